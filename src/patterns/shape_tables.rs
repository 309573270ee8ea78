//! Knowledge about the 3x3 shape a move makes, tabulated over every neighbourhood a board can
//! show (its 16-bit [`Board::pattern3`] code) so that each question costs one lookup: the
//! learned gamma of the shape (the playout policy). The tables are built once, on first use or
//! by [`warm_up`].

use std::sync::OnceLock;

use crate::board::{Board, Color, Point};

use super::shape::{self, class_of};
use super::{Group, PatternTable};

/// The learned gamma of the 3x3 shape `c` makes by playing on the empty point `p`. Strings in
/// atari around `p` do not count here: the playout answers those first.
#[inline]
pub fn gamma(board: &Board, p: Point, c: Color) -> f32 {
    gammas()[usize::from(shape::relative(board.pattern3(p), c))]
}

/// Builds the tables (and the pattern classes and gammas they read) now, if not yet built.
pub fn warm_up() {
    gammas();
}

/// Gammas by 3x3 code with Black to move. Classes the table does not list (its `rare` gamma)
/// are weighed as 1: they are rare because they are odd, not because they are good.
fn gammas() -> &'static [f32] {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table = PatternTable::builtin();
        let gammas = table.group(Group::Pattern);
        (0..1u32 << 16)
            .map(|code| {
                let g = gammas[usize::from(class_of(code))];
                if g == table.rare() { 1.0 } else { g }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::shape::raw_code;

    fn board(black: &[&str], white: &[&str]) -> Board {
        Board::with_stones(9, black, white)
    }

    fn pt(v: &str) -> Point {
        Point::parse(v, 9).unwrap()
    }

    #[test]
    fn gammas_are_the_learned_ones_for_either_colour() {
        let table = PatternTable::builtin();
        let gammas = table.group(Group::Pattern);
        let p = pt("E5");
        // A hane-like shape and the same shape with the colours swapped.
        let b = board(&["D6", "E4"], &["E6"]);
        let swapped = board(&["E6"], &["D6", "E4"]);
        let learned = gammas[usize::from(class_of(raw_code(&b, p, Color::Black) & 0xffff))];
        let expected = if learned == table.rare() {
            1.0
        } else {
            learned
        };
        assert_eq!(gamma(&b, p, Color::Black), expected);
        assert_eq!(gamma(&swapped, p, Color::White), expected);
        // Around an empty point: the learned gamma of the empty 3x3 shape.
        assert_eq!(
            gamma(&Board::new(9), p, Color::White),
            gammas[usize::from(class_of(0))]
        );
    }
}
