//! Points on the padded 1-D board and their GTP text form (`D4`, no `I`, `pass`).

use std::fmt;

/// The smallest board size tengen plays on.
pub const MIN_SIZE: usize = 2;
/// The largest board size tengen plays on (GTP's letters run out at 25).
pub const MAX_SIZE: usize = 25;
/// Width of the padded board for the largest size: one border cell on each side.
pub const MAX_STRIDE: usize = MAX_SIZE + 2;
/// Number of cells of the padded board for the largest size.
pub const MAX_CELLS: usize = MAX_STRIDE * MAX_STRIDE;

/// Column letters of GTP vertices: `A`..`Z` without `I`.
const COLUMN_LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// A point of a board of a given size: an index into its padded 1-D array
/// (row-major from the bottom row, stride `size + 2`).
///
/// A `Point` is only meaningful together with the board size it was made for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u16);

impl Point {
    /// The point at `col`, `row` (both 0-based, row 0 at the bottom) on a board of `size`.
    #[inline]
    pub fn new(size: usize, col: usize, row: usize) -> Point {
        debug_assert!(col < size && row < size && size <= MAX_SIZE);
        Point(((row + 1) * (size + 2) + col + 1) as u16)
    }

    /// The point with the given raw cell index.
    #[inline]
    pub(crate) fn from_index(index: usize) -> Point {
        Point(index as u16)
    }

    /// The raw index into the padded array.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based column and row (row 0 at the bottom) on a board of `size`.
    #[inline]
    pub fn coords(self, size: usize) -> (usize, usize) {
        let stride = size + 2;
        let i = self.index();
        (i % stride - 1, i / stride - 1)
    }

    /// The GTP vertex of this point on a board of `size`, upper case (`D4`).
    pub fn to_vertex(self, size: usize) -> String {
        let (col, row) = self.coords(size);
        format!("{}{}", COLUMN_LETTERS[col] as char, row + 1)
    }

    /// Parses a vertex such as `d4` or `Q16` (case-insensitive, no `I`) on a board of `size`.
    /// `pass` is not a point: see [`Move::parse`].
    pub fn parse(text: &str, size: usize) -> Result<Point, VertexError> {
        let bytes = text.as_bytes();
        let (&first, digits) = bytes.split_first().ok_or(VertexError::Malformed)?;
        let letter = first.to_ascii_uppercase();
        let col = COLUMN_LETTERS
            .iter()
            .position(|&l| l == letter)
            .ok_or(VertexError::Malformed)?;
        if digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
            return Err(VertexError::Malformed);
        }
        let row: usize = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse().ok())
            .ok_or(VertexError::Malformed)?;
        if col >= size || row == 0 || row > size {
            return Err(VertexError::OffBoard);
        }
        Ok(Point::new(size, col, row - 1))
    }
}

/// `points` as a GTP vertex list: upper-case vertices separated by spaces.
pub fn vertex_list(points: &[Point], size: usize) -> String {
    points
        .iter()
        .map(|p| p.to_vertex(size))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why a vertex could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexError {
    /// Not of the form letter + number.
    Malformed,
    /// Well-formed but outside the board.
    OffBoard,
}

impl fmt::Display for VertexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VertexError::Malformed => "invalid vertex",
            VertexError::OffBoard => "vertex off the board",
        })
    }
}

impl std::error::Error for VertexError {}

/// A move on the board: a stone at a point, or a pass.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Put a stone on this point.
    Play(Point),
    /// Pass.
    Pass,
}

impl Move {
    /// Parses a GTP vertex or `pass` (any case) on a board of `size`.
    pub fn parse(text: &str, size: usize) -> Result<Move, VertexError> {
        if text.eq_ignore_ascii_case("pass") {
            Ok(Move::Pass)
        } else {
            Point::parse(text, size).map(Move::Play)
        }
    }

    /// The GTP text of this move: `D4` or `PASS` (upper case, as GNU Go writes it).
    pub fn to_vertex(self, size: usize) -> String {
        match self {
            Move::Play(p) => p.to_vertex(size),
            Move::Pass => "PASS".to_string(),
        }
    }

    /// The point of a stone move, `None` for a pass.
    pub fn point(self) -> Option<Point> {
        match self {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_round_trip_on_every_size() {
        for size in MIN_SIZE..=MAX_SIZE {
            for row in 0..size {
                for col in 0..size {
                    let p = Point::new(size, col, row);
                    assert_eq!(p.coords(size), (col, row));
                    let text = p.to_vertex(size);
                    assert_eq!(Point::parse(&text, size), Ok(p));
                    assert_eq!(Point::parse(&text.to_lowercase(), size), Ok(p));
                }
            }
        }
    }

    #[test]
    fn a_vertex_list_is_upper_case_vertices_between_spaces() {
        let points = [
            Point::new(19, 0, 0),
            Point::new(19, 18, 18),
            Point::new(19, 8, 3),
        ];
        assert_eq!(vertex_list(&points, 19), "A1 T19 J4");
        assert_eq!(vertex_list(&[], 19), "");
    }

    #[test]
    fn skips_i_and_rejects_bad_vertices() {
        assert_eq!(Point::new(19, 8, 0).to_vertex(19), "J1");
        assert_eq!(Point::parse("I5", 19), Err(VertexError::Malformed));
        assert_eq!(Point::parse("T20", 19), Err(VertexError::OffBoard));
        assert_eq!(Point::parse("A0", 19), Err(VertexError::OffBoard));
        assert_eq!(Point::parse("K1", 9), Err(VertexError::OffBoard));
        for bad in [
            "",
            "4",
            "DD",
            "D",
            "D-1",
            "D4x",
            "D004",
            "é4",
            "D99999999999",
        ] {
            assert!(Point::parse(bad, 19).is_err(), "{bad}");
        }
    }

    #[test]
    fn pass_in_any_case() {
        assert_eq!(Move::parse("PASS", 9), Ok(Move::Pass));
        assert_eq!(Move::parse("pass", 9), Ok(Move::Pass));
        assert_eq!(Move::Pass.to_vertex(9), "PASS");
        assert_eq!(
            Move::parse("Z25", 25).map(|m| m.to_vertex(25)),
            Ok("Z25".into())
        );
    }
}
