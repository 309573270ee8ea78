//! The vital point of a small eye space: where a stone kills a group whose only eye space it
//! is (nakade), or where the group's owner plays to live.

use crate::rules::board::{Board, Cell, Point};

/// The largest eye space whose vital point is looked for.
const MAX_EYE_SPACE: usize = 6;

/// The vital point of the small eye space next to the opponent's stone on `last`: an empty
/// region of three to six points walled in by the opponent alone, whose shape has one point
/// touching more of the region than any other (the middle of three, the centre of the
/// pyramid four, the bulky five, the crossed five and the rabbity six). Playing there is
/// what kills, or for the wall's owner what lives.
pub fn nakade_point(board: &Board, last: Point) -> Option<Point> {
    let wall = board.color_at(last)?;
    let start = board
        .neighbors(last)
        .into_iter()
        .find(|&n| board.cell(n) == Cell::Empty)?;
    let mut region = [start; MAX_EYE_SPACE];
    let mut size = 1;
    let mut k = 0;
    while k < size {
        for n in board.neighbors(region[k]) {
            match board.cell(n) {
                Cell::Empty if !region[..size].contains(&n) => {
                    if size == MAX_EYE_SPACE {
                        return None;
                    }
                    region[size] = n;
                    size += 1;
                }
                Cell::Empty | Cell::Border => {}
                cell => {
                    if cell.color() != Some(wall) {
                        return None;
                    }
                }
            }
        }
        k += 1;
    }
    if size < 3 {
        return None;
    }
    let touching = |p: Point| {
        board
            .neighbors(p)
            .into_iter()
            .filter(|n| region[..size].contains(n))
            .count()
    };
    let mut best = region[0];
    let mut best_count = 0;
    let mut ties = 0;
    for &p in &region[..size] {
        let count = touching(p);
        if count > best_count {
            best = p;
            best_count = count;
            ties = 0;
        } else if count == best_count {
            ties += 1;
        }
    }
    // Four in a row or bent, and the square, have no single vital point.
    (ties == 0 && best_count >= 2).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::tactics::tests::pt;

    #[test]
    fn finds_the_vital_point_of_three_in_a_row() {
        // White walls off B1-C1-D1 on a 5x5 board: A1 white, A2..E2 white, E1 white.
        let b = Board::with_stones(5, &[], &["A1", "A2", "B2", "C2", "D2", "E2", "E1"]);
        assert_eq!(nakade_point(&b, pt("E1", 5)), Some(pt("C1", 5)));
    }

    #[test]
    fn finds_the_centre_of_the_pyramid_four() {
        // Eye space B1, C1, D1 and C2 above C1, walled in by white: C1 touches the other three.
        let b = Board::with_stones(
            5,
            &[],
            &["A1", "A2", "B2", "D2", "E2", "E1", "C3", "B3", "D3"],
        );
        assert_eq!(nakade_point(&b, pt("D2", 5)), Some(pt("C1", 5)));
    }

    #[test]
    fn straight_four_and_open_areas_have_no_vital_point() {
        // B1-E1 in a row (four points) walled by white: alive, no single vital point.
        let b = Board::with_stones(7, &[], &["A1", "A2", "B2", "C2", "D2", "E2", "F2", "F1"]);
        assert_eq!(nakade_point(&b, pt("F1", 7)), None);
        // An area touching Black is no eye space of White's.
        let b = Board::with_stones(5, &["C1"], &["A1", "A2", "B2", "C2", "D2", "E2", "E1"]);
        assert_eq!(nakade_point(&b, pt("E1", 5)), None);
        // The open board.
        let b = Board::with_stones(9, &[], &["E5"]);
        assert_eq!(nakade_point(&b, pt("E5", 9)), None);
    }
}
