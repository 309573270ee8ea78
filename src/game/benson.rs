//! Benson's algorithm (1976, "Life in the game of Go"): the strings of one colour that stay
//! alive whatever the opponent plays, even if their owner never answers ("pass-alive"), and
//! the regions they enclose in which the opponent can never live.
//!
//! A region is a maximal connected set of points not of the colour (empty points and
//! opponent stones); it is vital to a string when every empty point of the region is a
//! liberty of that string. Starting from every string and every region, the algorithm drops
//! the strings with fewer than two vital regions left, then the regions touching a dropped
//! string, until nothing changes. What is left is unconditionally alive.

use crate::board::{Board, Cell, Color, MAX_CELLS, Point};

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
        let strings = Strings::of(board, c);
        let regions = Regions::of(board, c, &strings);
        let mut string_alive = vec![true; strings.count];
        let mut region_alive = vec![true; regions.points.len()];
        loop {
            let mut changed = false;
            for (s, alive) in string_alive.iter_mut().enumerate() {
                if !*alive {
                    continue;
                }
                let vital = regions
                    .vital_to
                    .iter()
                    .zip(&region_alive)
                    .filter(|(vital_to, live)| **live && vital_to.contains(&s))
                    .count();
                if vital < 2 {
                    *alive = false;
                    changed = true;
                }
            }
            for (r, live) in region_alive.iter_mut().enumerate() {
                if *live && regions.borders[r].iter().any(|&s| !string_alive[s]) {
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
            if let Some(s) = strings.index_of(p) {
                alive[p.index()] = string_alive[s];
            }
        }
        let mut enclosed = vec![false; MAX_CELLS];
        for (r, points) in regions.points.iter().enumerate() {
            if region_alive[r] && !regions.vital_to[r].is_empty() {
                for p in points {
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

/// The strings of one colour, numbered from 0.
struct Strings {
    /// Per cell: the number of the string on it, `usize::MAX` for none.
    index: Vec<usize>,
    count: usize,
}

impl Strings {
    fn of(board: &Board, c: Color) -> Strings {
        let mut index = vec![usize::MAX; MAX_CELLS];
        let mut count = 0;
        for p in board.points() {
            if board.color_at(p) == Some(c) && index[p.index()] == usize::MAX {
                for s in board.string_stones(p) {
                    index[s.index()] = count;
                }
                count += 1;
            }
        }
        Strings { index, count }
    }

    fn index_of(&self, p: Point) -> Option<usize> {
        let s = self.index[p.index()];
        (s != usize::MAX).then_some(s)
    }
}

/// The regions of the points not of one colour.
struct Regions {
    /// Each region's points.
    points: Vec<Vec<Point>>,
    /// Each region's bordering strings.
    borders: Vec<Vec<usize>>,
    /// The strings each region is vital to.
    vital_to: Vec<Vec<usize>>,
}

impl Regions {
    fn of(board: &Board, c: Color, strings: &Strings) -> Regions {
        let mut seen = vec![false; MAX_CELLS];
        let mut regions = Regions {
            points: Vec::new(),
            borders: Vec::new(),
            vital_to: Vec::new(),
        };
        for start in board.points() {
            if board.color_at(start) == Some(c) || seen[start.index()] {
                continue;
            }
            let mut points = vec![start];
            seen[start.index()] = true;
            let mut borders = Vec::new();
            let mut k = 0;
            while k < points.len() {
                for n in board.neighbors(points[k]) {
                    if let Some(s) = strings.index_of(n) {
                        if !borders.contains(&s) {
                            borders.push(s);
                        }
                    } else if board.cell(n) != Cell::Border && !seen[n.index()] {
                        seen[n.index()] = true;
                        points.push(n);
                    }
                }
                k += 1;
            }
            let vital_to = borders
                .iter()
                .copied()
                .filter(|&s| {
                    points.iter().all(|&p| {
                        board.color_at(p).is_some()
                            || board
                                .neighbors(p)
                                .iter()
                                .any(|&n| strings.index_of(n) == Some(s))
                    })
                })
                .collect();
            regions.points.push(points);
            regions.borders.push(borders);
            regions.vital_to.push(vital_to);
        }
        regions
    }
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
