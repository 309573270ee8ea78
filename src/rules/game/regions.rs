//! The regions of a board: maximal 4-connected sets of points that are not walls, with the
//! colours and strings of the walls around each. Walls are stones: all of them for the empty
//! regions, or a chosen set (the living stones for the scorer, one colour's for Benson's
//! algorithm), the other stones then lying inside regions like empty points.

use crate::rules::board::{Board, Cell, Color, MAX_CELLS, Point};

/// One region.
pub struct Region {
    /// Its points, empty or stones that are no walls.
    pub points: Vec<Point>,
    /// Whether Black's, White's walls border it.
    pub bordered_by: [bool; 2],
    /// The heads of the wall strings bordering it.
    pub bordering_strings: Vec<Point>,
}

impl Region {
    /// Its number of points.
    pub fn size(&self) -> usize {
        self.points.len()
    }

    /// The colour of its walls when only one colour borders it.
    pub fn owner(&self) -> Option<Color> {
        match self.bordered_by {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        }
    }
}

/// The regions of a board, numbered in the order of their first point in [`Board::points`].
pub struct Regions {
    /// Per cell: the number of the region holding the point, [`NONE`] for walls.
    index: Vec<u16>,
    regions: Vec<Region>,
}

/// The `index` of a point in no region.
const NONE: u16 = u16::MAX;

impl Regions {
    /// The empty regions of `board`: every stone is a wall.
    pub fn of(board: &Board) -> Regions {
        Regions::bounded_by(board, |_| true)
    }

    /// The regions of `board` bounded by the stones for which `is_wall` holds.
    pub fn bounded_by(board: &Board, is_wall: impl Fn(Point) -> bool) -> Regions {
        let mut index = vec![NONE; MAX_CELLS];
        let mut regions = Vec::new();
        for start in board.points() {
            let walled = board.color_at(start).is_some_and(|_| is_wall(start));
            if walled || index[start.index()] != NONE {
                continue;
            }
            let number = regions.len() as u16;
            let mut region = Region {
                points: vec![start],
                bordered_by: [false; 2],
                bordering_strings: Vec::new(),
            };
            index[start.index()] = number;
            let mut k = 0;
            while k < region.points.len() {
                for n in board.neighbors(region.points[k]) {
                    if let Some(c) = board.color_at(n).filter(|_| is_wall(n)) {
                        region.bordered_by[c.index()] = true;
                        let head = board.string_head(n);
                        if !region.bordering_strings.contains(&head) {
                            region.bordering_strings.push(head);
                        }
                    } else if board.cell(n) != Cell::Border && index[n.index()] == NONE {
                        index[n.index()] = number;
                        region.points.push(n);
                    }
                }
                k += 1;
            }
            regions.push(region);
        }
        Regions { index, regions }
    }

    /// The regions, in their numbers' order.
    pub fn iter(&self) -> std::slice::Iter<'_, Region> {
        self.regions.iter()
    }

    /// The number of the region holding `p`, `None` for a wall.
    pub fn number_of(&self, p: Point) -> Option<usize> {
        let r = self.index[p.index()];
        (r != NONE).then_some(usize::from(r))
    }

    /// The region holding `p`, `None` for a wall.
    pub fn region_of(&self, p: Point) -> Option<&Region> {
        self.number_of(p).map(|r| &self.regions[r])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Black's wall on the second line closes off the corner A1-D1 with E1.
    const CORNER_WALL: [&str; 5] = ["A2", "B2", "C2", "D2", "E1"];

    #[test]
    fn empty_regions_know_their_size_and_borders() {
        let b = Board::with_stones(9, &CORNER_WALL, &["E5"]);
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let regions = Regions::of(&b);
        assert_eq!(regions.iter().count(), 2);
        let corner = regions.region_of(pt("A1")).unwrap();
        assert_eq!(corner.size(), 4);
        assert_eq!(corner.owner(), Some(Color::Black));
        // Two strings border it: A2-D2 and E1.
        assert_eq!(corner.bordering_strings.len(), 2);
        // The rest of the board is open to both colours.
        let open = regions.region_of(pt("J9")).unwrap();
        assert_eq!(open.bordered_by, [true, true]);
        assert_eq!(open.owner(), None);
        assert_eq!(regions.number_of(pt("A2")), None);
        assert_eq!(regions.number_of(pt("A1")), Some(0));
    }

    #[test]
    fn stones_that_are_no_walls_lie_inside_regions() {
        // White's C1 inside Black's corner joins the corner region when only Black is a wall.
        let b = Board::with_stones(9, &CORNER_WALL, &["C1"]);
        let c1 = Point::parse("C1", 9).unwrap();
        let regions = Regions::bounded_by(&b, |p| b.color_at(p) == Some(Color::Black));
        let corner = regions.region_of(c1).unwrap();
        assert_eq!(corner.size(), 4);
        assert_eq!(corner.owner(), Some(Color::Black));
        assert!(Regions::of(&b).region_of(c1).is_none());
    }
}
