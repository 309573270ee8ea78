//! Good local shapes: the 3x3 patterns MoGo's playouts answer the last move with (hane, cut,
//! and edge moves; Gelly et al., "Modification of UCT with Patterns in Monte-Carlo Go", 2006),
//! matched in all eight orientations and for either colour. A table of every 3x3
//! neighbourhood, built once, answers "is this a good shape" with one lookup.

use std::sync::OnceLock;

use crate::board::{Board, Cell, PATTERN_OFFSETS, Point};

/// The patterns, top row first, the move at the centre. `X` and `O` are stones of the two
/// colours (either may be the player), `x` anything but `X`, `o` anything but `O`, `.` empty,
/// `#` off the board, `?` anything.
const PATTERNS: [&str; 13] = [
    // Hane: enclosing hane.
    "XOX ... ???",
    // Hane: non-cutting hane.
    "XO. ... ?.?",
    // Hane: magari.
    "XO? X.. x.?",
    // Hane: thin hane.
    "XOO ... ?.?",
    // Cut: unprotected cut.
    "XO? O.o ?o?",
    // Cut: peeped cut.
    "XO? O.X ???",
    // Cut: de (pushing between).
    "?X? O.O ooo",
    // Edge: chase.
    "X.? O.? ###",
    // Edge: block the side cut.
    "OX? X.O ###",
    // Edge: block the side connection.
    "?X? x.O ###",
    // Edge: sagari.
    "?XO x.x ###",
    // Edge: cut.
    "?OX X.O ###",
    // Diagonal attachment beside a stone.
    ".O. X.. ...",
];

/// Whether the neighbourhood of the empty point `p` is one of the good shapes.
#[inline]
pub fn is_good_shape(board: &Board, p: Point) -> bool {
    table()[usize::from(board.pattern3(p))]
}

/// Builds the table now, if not yet built.
pub fn warm_up() {
    table();
}

fn table() -> &'static [bool] {
    static TABLE: OnceLock<Vec<bool>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let patterns: Vec<[u8; 8]> = PATTERNS.iter().map(|p| parse(p)).collect();
        (0..1usize << 16)
            .map(|code| {
                let cells: [u8; 8] = std::array::from_fn(|k| (code >> (2 * k) & 3) as u8);
                patterns
                    .iter()
                    .any(|pattern| matches_any_orientation(pattern, &cells))
            })
            .collect()
    })
}

/// A pattern's eight neighbour characters in [`PATTERN_OFFSETS`] order (the board's 3x3 code order).
fn parse(pattern: &str) -> [u8; 8] {
    let chars: Vec<u8> = pattern
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    debug_assert_eq!(chars.len(), 9, "{pattern}");
    let mut out = [b'?'; 8];
    let mut k = 0;
    for (i, &c) in chars.iter().enumerate() {
        if i != 4 {
            out[k] = c;
            k += 1;
        }
    }
    out
}

/// Whether `cells` match `pattern` under some rotation or reflection, with either colour
/// as `X`.
fn matches_any_orientation(pattern: &[u8; 8], cells: &[u8; 8]) -> bool {
    (0..8).any(|symmetry| {
        let oriented: [u8; 8] = std::array::from_fn(|k| {
            let (dx, dy) = transform(PATTERN_OFFSETS[k], symmetry);
            let source = PATTERN_OFFSETS
                .iter()
                .position(|&o| o == (dx, dy))
                .unwrap_or(k);
            cells[source]
        });
        [false, true].iter().any(|&swap| {
            pattern
                .iter()
                .zip(&oriented)
                .all(|(&want, &cell)| matches(want, cell, swap))
        })
    })
}

/// One of the eight symmetries of the square applied to an offset.
fn transform((x, y): (isize, isize), symmetry: usize) -> (isize, isize) {
    let (x, y) = if symmetry & 4 != 0 { (y, x) } else { (x, y) };
    let x = if symmetry & 1 != 0 { -x } else { x };
    let y = if symmetry & 2 != 0 { -y } else { y };
    (x, y)
}

/// Whether the cell value `cell` fits the pattern character `want`; `swap` exchanges the
/// colours.
fn matches(want: u8, cell: u8, swap: bool) -> bool {
    let (x, o) = if swap {
        (Cell::White as u8, Cell::Black as u8)
    } else {
        (Cell::Black as u8, Cell::White as u8)
    };
    match want {
        b'X' => cell == x,
        b'O' => cell == o,
        b'x' => cell != x,
        b'o' => cell != o,
        b'.' => cell == Cell::Empty as u8,
        b'#' => cell == Cell::Border as u8,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(black: &[&str], white: &[&str]) -> Board {
        Board::with_stones(9, black, white)
    }

    fn pt(v: &str) -> Point {
        Point::parse(v, 9).unwrap()
    }

    #[test]
    fn a_cut_matches_in_every_orientation_and_colour() {
        // The unprotected cut "XO? O.o ?o?": black D6, white E6 and D5; E5 cuts. Then the
        // same with the colours swapped.
        for (black, white) in [
            (&["D6"][..], &["E6", "D5"][..]),
            (&["E6", "D5"][..], &["D6"][..]),
        ] {
            let b = board(black, white);
            assert!(is_good_shape(&b, pt("E5")), "{black:?} {white:?}");
        }
        // Rotated: black F4, white F5 and E4 around E5.
        assert!(is_good_shape(&board(&["F4"], &["F5", "E4"]), pt("E5")));
    }

    #[test]
    fn empty_surroundings_are_no_shape() {
        assert!(!is_good_shape(&Board::new(9), pt("E5")));
        assert!(!is_good_shape(&board(&["A9"], &["J1"]), pt("E5")));
    }

    #[test]
    fn an_edge_block_matches_on_the_first_line() {
        // "OX? X.O ###": centre D1 with black D2 and C1, white C2 and E1.
        let b = board(&["D2", "C1"], &["C2", "E1"]);
        assert!(is_good_shape(&b, pt("D1")));
    }
}
