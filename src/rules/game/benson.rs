//! Benson's algorithm (1976, "Life in the game of Go"): the strings of one colour that stay
//! alive whatever the opponent plays, even if their owner never answers ("pass-alive"), and
//! the regions they enclose in which the opponent can never live.
//!
//! A region is a maximal connected set of points not of the colour (empty points and
//! opponent stones); it is vital to a string when every empty point of the region is a
//! liberty of that string. Starting from every string and every region, the algorithm drops
//! the strings with fewer than two vital regions left, then the regions touching a dropped
//! string, until nothing changes. What is left is unconditionally alive.

use super::regions::{Region, Regions};
use crate::rules::board::{Board, Color, MAX_CELLS, Point};

/// What Benson's algorithm proves for one colour.
pub struct PassAlive {
    /// Per cell: a stone of a pass-alive string.
    alive: Vec<bool>,
    /// Per cell: a point of a region that pass-alive strings enclose and that is vital to
    /// one of them, so that no opponent stone inside can ever live.
    enclosed: Vec<bool>,
}

impl PassAlive {
    /// Runs the algorithm for the strings of `c` on `board`.
    pub fn of(board: &Board, c: Color) -> PassAlive {
        let regions = Regions::bounded_by(board, |p| board.color_at(p) == Some(c));
        // Per cell: whether the string headed there is still taken to be alive.
        let mut string_alive = vec![false; MAX_CELLS];
        let heads: Vec<Point> = board
            .points()
            .filter(|&p| board.color_at(p) == Some(c) && board.string_head(p) == p)
            .collect();
        for h in &heads {
            string_alive[h.index()] = true;
        }
        let vital_to: Vec<Vec<Point>> = regions
            .iter()
            .map(|region| vital_strings(board, c, region))
            .collect();
        let mut region_alive = vec![true; vital_to.len()];
        loop {
            let mut changed = false;
            for h in &heads {
                if !string_alive[h.index()] {
                    continue;
                }
                let vital = vital_to
                    .iter()
                    .zip(&region_alive)
                    .filter(|(vital_to, live)| **live && vital_to.contains(h))
                    .count();
                if vital < 2 {
                    string_alive[h.index()] = false;
                    changed = true;
                }
            }
            for (region, live) in regions.iter().zip(region_alive.iter_mut()) {
                if *live
                    && region
                        .bordering_strings
                        .iter()
                        .any(|h| !string_alive[h.index()])
                {
                    *live = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut alive = vec![false; MAX_CELLS];
        for p in board.points() {
            if board.color_at(p) == Some(c) {
                alive[p.index()] = string_alive[board.string_head(p).index()];
            }
        }
        let mut enclosed = vec![false; MAX_CELLS];
        for ((region, live), vital_to) in regions.iter().zip(&region_alive).zip(&vital_to) {
            if *live && !vital_to.is_empty() {
                for p in &region.points {
                    enclosed[p.index()] = true;
                }
            }
        }
        PassAlive { alive, enclosed }
    }

    /// Whether the stone on `p` belongs to a pass-alive string.
    pub fn is_alive(&self, p: Point) -> bool {
        self.alive[p.index()]
    }

    /// Whether `p` lies in a region where the opponent can never live.
    pub fn is_enclosed(&self, p: Point) -> bool {
        self.enclosed[p.index()]
    }
}

/// The heads of the strings of `c` bordering `region` to which it is vital: every empty point
/// of the region is a liberty of the string.
fn vital_strings(board: &Board, c: Color, region: &Region) -> Vec<Point> {
    region
        .bordering_strings
        .iter()
        .copied()
        .filter(|&h| {
            region.points.iter().all(|&p| {
                board.color_at(p).is_some()
                    || board
                        .neighbors(p)
                        .iter()
                        .any(|&n| board.color_at(n) == Some(c) && board.string_head(n) == h)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(v: &str) -> Point {
        Point::parse(v, 9).unwrap()
    }

    #[test]
    fn two_eyes_live_and_one_eye_does_not() {
        // Black's wall on the third line with eyes at A1 and C1 (two separate points).
        let b = Board::with_stones(
            9,
            &["B1", "D1", "A2", "B2", "C2", "D2"],
            &["E1", "E2", "A3", "B3", "C3", "D3"],
        );
        let black = PassAlive::of(&b, Color::Black);
        assert!(black.is_alive(pt("B2")) && black.is_alive(pt("D1")));
        assert!(black.is_enclosed(pt("A1")) && black.is_enclosed(pt("C1")));
        assert!(!black.is_enclosed(pt("E5")));
        // With one eye (C1 filled by Black) the same wall is not proven alive.
        let b = Board::with_stones(
            9,
            &["B1", "C1", "D1", "A2", "B2", "C2", "D2"],
            &["E1", "E2", "A3", "B3", "C3", "D3"],
        );
        let black = PassAlive::of(&b, Color::Black);
        assert!(!black.is_alive(pt("B2")));
        assert!(!black.is_enclosed(pt("A1")));
        // White's outside stones have no eyes at all.
        assert!(!PassAlive::of(&b, Color::White).is_alive(pt("E1")));
    }

    #[test]
    fn an_opponent_stone_inside_a_vital_region_cannot_live() {
        // Black lives with the eye A1 and the two-point region C1-D1 holding a white stone on
        // C1: every empty point of that region (D1) is a black liberty.
        let b = Board::with_stones(
            9,
            &["B1", "E1", "A2", "B2", "C2", "D2", "E2"],
            &["C1", "F1", "F2", "A3", "B3", "C3", "D3", "E3"],
        );
        let black = PassAlive::of(&b, Color::Black);
        assert!(black.is_alive(pt("C2")));
        assert!(black.is_enclosed(pt("C1")) && black.is_enclosed(pt("D1")));
    }

    #[test]
    fn a_big_open_region_is_no_proof() {
        // Stones on an empty board enclose nothing.
        let b = Board::with_stones(9, &["E5", "C3"], &["G7"]);
        let black = PassAlive::of(&b, Color::Black);
        assert!(!black.is_alive(pt("E5")));
        assert!(!black.is_enclosed(pt("A1")));
    }
}
