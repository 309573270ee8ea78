//! Spatial patterns: the stones within a wider neighbourhood of a point than the 3x3 shape,
//! reduced to one code per class under the eight symmetries of the square.
//!
//! The neighbourhood is every point at gridcular distance `|dx| + |dy| + max(|dx|, |dy|)` up to
//! [`RADIUS`] from the candidate (Pachi's measure): the 3x3 square, the four points two lines
//! away on the axes and the eight a knight's move away, twenty points in all (the 5x5 square
//! without its corners). On the project's records radius 5 predicted better than 4 (twelve
//! points) and 6 (the whole 5x5 square): 9x9 top-1 41.6% against 41.0% and 40.8%. Each
//! point takes two bits in [`OFFSETS`] order from the low bits, with the cell values of
//! [`super::shape`] relative to the player to move: 0 empty, 1 own stone, 2 opponent stone,
//! 3 off the board. A class is named by its
//! smallest code (the canonical code), so the codes are the same in every build and can be
//! written to the table file. Liberties are not part of the code: the 3x3 pattern and the
//! tactical groups say what is in atari.

use std::sync::OnceLock;

use crate::rules::board::{Board, Cell, Color, Point};

use super::shape::{OFF_BOARD, OPPONENT, OWN, symmetry_fields};

/// The largest gridcular distance of a point of the neighbourhood.
pub const RADIUS: isize = 5;

/// Number of points in the neighbourhood.
pub const POINTS: usize = 20;

/// The neighbourhood's (column, row) offsets, rows growing upwards, nearest first.
pub const OFFSETS: [(isize, isize); POINTS] = offsets();

/// The code standing for a pass, which has no neighbourhood: above every real code (those
/// fit in `2 * POINTS` bits).
pub const PASS: u64 = u64::MAX;

/// Lists the offsets within [`RADIUS`], by distance and then row and column. The 5x5 square
/// it scans holds every point up to radius 6; the assertion stops a build with a larger one.
const fn offsets() -> [(isize, isize); POINTS] {
    let mut out = [(0, 0); POINTS];
    let mut n = 0;
    let mut d = 1;
    while d <= RADIUS {
        let mut dy: isize = 2;
        while dy >= -2 {
            let mut dx: isize = -2;
            while dx <= 2 {
                let (ax, ay) = (dx.abs(), dy.abs());
                let max = if ax > ay { ax } else { ay };
                if ax + ay + max == d {
                    out[n] = (dx, dy);
                    n += 1;
                }
                dx += 1;
            }
            dy -= 1;
        }
        d += 1;
    }
    assert!(n == POINTS, "RADIUS and POINTS disagree");
    out
}

/// The canonical code of the neighbourhood of the empty point `p` for `to_move`: the eight
/// symmetric codes are built in one pass over the points (empty ones add nothing), and the
/// smallest is kept.
pub fn code(board: &Board, p: Point, to_move: Color) -> u64 {
    let size = board.size() as isize;
    let (col, row) = p.coords(board.size());
    let fields = symmetries();
    let mut images = [0u64; 8];
    for (i, (dx, dy)) in OFFSETS.into_iter().enumerate() {
        let (c, r) = (col as isize + dx, row as isize + dy);
        let cell = if (0..size).contains(&c) && (0..size).contains(&r) {
            match board.cell(Point::new(board.size(), c as usize, r as usize)) {
                Cell::Empty => continue,
                cell if cell.color() == Some(to_move) => OWN,
                _ => OPPONENT,
            }
        } else {
            OFF_BOARD
        };
        for (image, to) in images.iter_mut().zip(fields) {
            *image |= u64::from(cell) << (2 * to[i]);
        }
    }
    images.into_iter().fold(u64::MAX, u64::min)
}

/// Packs one cell value per offset, two bits each from the low bits: how tests spell a code.
#[cfg(test)]
pub fn pack(cells: &[u8; POINTS]) -> u64 {
    cells
        .iter()
        .enumerate()
        .fold(0, |code, (i, &c)| code | u64::from(c & 3) << (2 * i))
}

/// The smallest of the eight images of `code` under the rotations and reflections.
pub fn canonical(code: u64) -> u64 {
    symmetries()
        .iter()
        .map(|to| permute(code, to))
        .fold(code, u64::min)
}

/// The eight images of `code` under the rotations and reflections, itself first.
#[cfg(test)]
pub fn symmetries_of(code: u64) -> [u64; 8] {
    symmetries().map(|to| permute(code, &to))
}

/// Where each field goes under each of the eight symmetries, built once.
fn symmetries() -> &'static [[usize; POINTS]; 8] {
    static TABLE: OnceLock<[[usize; POINTS]; 8]> = OnceLock::new();
    TABLE.get_or_init(|| symmetry_fields(&OFFSETS))
}

/// The code with field `i` moved to field `to[i]`.
fn permute(code: u64, to: &[usize; POINTS]) -> u64 {
    to.iter()
        .enumerate()
        .fold(0, |out, (i, &j)| out | ((code >> (2 * i)) & 3) << (2 * j))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_neighbourhood_is_the_five_by_five_square_without_corners() {
        assert_eq!(&OFFSETS[..4], &[(0, 1), (-1, 0), (1, 0), (0, -1)]);
        assert!(OFFSETS.contains(&(1, 1)) && OFFSETS.contains(&(-1, -1)));
        assert!(OFFSETS.contains(&(0, 2)) && OFFSETS.contains(&(-2, 0)));
        assert!(OFFSETS.contains(&(2, 1)) && OFFSETS.contains(&(-1, -2)));
        assert!(!OFFSETS.contains(&(2, 2)) && !OFFSETS.contains(&(0, 0)));
    }

    #[test]
    fn rotated_and_mirrored_positions_share_a_code() {
        // A black stone two above C3 and a white one to its right, on an empty 7x7 board.
        let board = Board::with_stones(7, &["C5"], &["D3"]);
        let at = |v: &str| Point::parse(v, 7).unwrap();
        let base = code(&board, at("C3"), Color::Black);
        // The same shape turned a quarter: black two to the right, white below.
        let turned = Board::with_stones(7, &["E4"], &["C3"]);
        assert_eq!(code(&turned, at("C4"), Color::Black), base);
        // Mirrored left to right.
        let mirrored = Board::with_stones(7, &["E5"], &["D3"]);
        assert_eq!(code(&mirrored, at("E3"), Color::Black), base);
        // Colours are relative to the player to move.
        let swapped = Board::with_stones(7, &["D3"], &["C5"]);
        assert_eq!(code(&swapped, at("C3"), Color::White), base);
        assert_ne!(code(&board, at("C3"), Color::White), base);
        // Another shape differs.
        let other = Board::with_stones(7, &["C5"], &["C4"]);
        assert_ne!(code(&other, at("C3"), Color::Black), base);
    }

    #[test]
    fn points_beyond_the_edge_are_off_the_board() {
        let board = Board::new(5);
        let corner = code(&board, Point::parse("A1", 5).unwrap(), Color::Black);
        let inside = code(&board, Point::parse("C3", 5).unwrap(), Color::Black);
        assert_eq!(inside, 0);
        // From A1 only the seven points up and to the right are on the board.
        let off = (0..POINTS)
            .filter(|i| (corner >> (2 * i)) & 3 == u64::from(OFF_BOARD))
            .count();
        assert_eq!(off, POINTS - 7);
        assert!(corner < PASS);
    }
}
