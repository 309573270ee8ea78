//! Questions answered from a point's 3x3 code alone ([`super::Board::pattern3`]): two bits per
//! neighbour holding the [`super::Cell`] value, fields in [`super::PATTERN_OFFSETS`] order.
//! Each field's low bit is set for black and border, its high bit for white and border, so
//! whole-neighbourhood questions become a few mask operations.

use super::Color;

/// The low bit of every field.
const LOW: u16 = 0x5555;
/// The low bits of the orthogonal fields: N (1), W (3), E (4) and S (6).
const SIDES: u16 = 1 << 2 | 1 << 6 | 1 << 8 | 1 << 12;
/// The low bits of the diagonal fields: NW (0), NE (2), SW (5) and SE (7).
const CORNERS: u16 = LOW & !SIDES;

/// The low bits of the orthogonal fields that hold an empty point (both field bits clear).
#[inline]
fn empty_sides(code: u16) -> u16 {
    !(code | code >> 1) & SIDES
}

/// Whether any orthogonal neighbour is empty.
#[inline]
pub fn has_empty_side(code: u16) -> bool {
    empty_sides(code) != 0
}

/// Whether at least two orthogonal neighbours are empty.
#[inline]
pub fn has_two_empty_sides(code: u16) -> bool {
    let empty = empty_sides(code);
    empty & empty.wrapping_sub(1) != 0
}

/// Whether the point is an eye of `c`: every orthogonal neighbour is `c` or the edge, and the
/// opponent holds fewer than two diagonals (fewer than one on the edge).
#[inline]
pub fn is_eye(code: u16, c: Color) -> bool {
    let own_bit = c.index() as u32; // 0: black's low bit, 1: white's high bit
    if (code >> own_bit) & SIDES != SIDES {
        return false;
    }
    let low = code & LOW;
    let high = (code >> 1) & LOW;
    let opponent = match c {
        Color::Black => high & !low,
        Color::White => low & !high,
    };
    let on_edge = low & high != 0;
    let false_corners = (opponent & CORNERS).count_ones();
    false_corners < if on_edge { 1 } else { 2 }
}
