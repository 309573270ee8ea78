//! Knowledge about the 3x3 shape a move makes, tabulated over every neighbourhood a board can
//! show (its 16-bit [`Board::pattern3`] code) so that each question costs one lookup: whether
//! the shape is one of MoGo's good shapes (the tree's priors) and its learned gamma (the
//! playout policy). The tables are built once, on first use or by [`warm_up`].

use std::sync::OnceLock;

use crate::rules::board::{Board, Color, Point};

use super::shape::{self, EMPTY, OFF_BOARD, OPPONENT, OWN, class_of};
use super::{Group, PatternTable};

/// Whether the neighbourhood of the empty point `p` is one of the good shapes, for either
/// player.
#[inline]
pub fn is_good_shape(board: &Board, p: Point) -> bool {
    good_shapes()[usize::from(board.pattern3(p))]
}

/// The learned gamma of the 3x3 shape `c` makes by playing on the empty point `p`. Strings in
/// atari around `p` do not count here: the playout answers those first.
#[inline]
pub fn gamma(board: &Board, p: Point, c: Color) -> f32 {
    gammas()[usize::from(shape::relative(board.pattern3(p), c))]
}

/// Builds the tables (and the pattern classes and gammas they read) now, if not yet built.
pub fn warm_up() {
    good_shapes();
    gammas();
}

/// The table of `f` over every board 3x3 code.
fn tabulate<T>(f: impl FnMut(u16) -> T) -> Vec<T> {
    (0..=u16::MAX).map(f).collect()
}

/// Gammas by 3x3 code with Black to move. Classes the table does not list (its `rare` gamma)
/// are weighed as 1: they are rare because they are odd, not because they are good.
fn gammas() -> &'static [f32] {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table = PatternTable::builtin();
        let gammas = table.group(Group::Pattern);
        tabulate(|code| {
            let g = gammas[usize::from(class_of(u32::from(code)))];
            if g == table.rare() { 1.0 } else { g }
        })
    })
}

/// The good shapes: the 3x3 patterns MoGo's playouts answer the last move with (hane, cut and
/// edge moves; Gelly et al., "Modification of UCT with Patterns in Monte-Carlo Go", 2006), top
/// row first, the move at the centre. `X` and `O` are stones of the two colours (either may be
/// the player), `x` anything but `X`, `o` anything but `O`, `.` empty, `#` off the board, `?`
/// anything. They match in all eight orientations and for either colour.
const GOOD_SHAPES: [&str; 13] = [
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

/// Whether each 3x3 code is a good shape: some orientation of it, with the colours as they are
/// or swapped, matches a pattern of [`GOOD_SHAPES`] as written.
fn good_shapes() -> &'static [bool] {
    static TABLE: OnceLock<Vec<bool>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let patterns = GOOD_SHAPES.map(neighbours);
        tabulate(|code| {
            shape::symmetries(u32::from(code)).into_iter().any(|image| {
                // Codes without atari flags stay below 2^16 under the symmetries.
                let image = image as u16;
                [Color::Black, Color::White].into_iter().any(|x_colour| {
                    let cells = shape::relative(image, x_colour);
                    patterns.iter().any(|pattern| matches(pattern, cells))
                })
            })
        })
    })
}

/// A pattern's eight neighbour characters in [`crate::rules::board::PATTERN_OFFSETS`] order (the 3x3
/// code's order): its nine characters without the centre.
fn neighbours(pattern: &str) -> [u8; 8] {
    let cells: Vec<u8> = pattern
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    assert_eq!(cells.len(), 9, "{pattern}");
    std::array::from_fn(|k| cells[if k < 4 { k } else { k + 1 }])
}

/// Whether the 3x3 code `cells` (colours relative to `X`: [`OWN`] is `X`, [`OPPONENT`] is
/// `O`) fits `pattern` as written.
fn matches(pattern: &[u8; 8], cells: u16) -> bool {
    pattern.iter().enumerate().all(|(k, &want)| {
        let cell = (cells >> (2 * k) & 3) as u8;
        match want {
            b'X' => cell == OWN,
            b'O' => cell == OPPONENT,
            b'x' => cell != OWN,
            b'o' => cell != OPPONENT,
            b'.' => cell == EMPTY,
            b'#' => cell == OFF_BOARD,
            _ => true,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::patterns::shape::raw_code;

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
