//! Prior knowledge given to a node's children when it is expanded, as virtual playouts: every
//! move starts even, captures, ladders, atari escapes and good shapes start as wins, escapes
//! into a working ladder, self-ataris and (early in the game) first-line moves as losses, and a pass starts low so that it wins only when nothing
//! else does. On top of that, the learned move patterns ([`crate::knowledge::patterns`]) set the result
//! of [`GAMMA_VISITS`] more virtual playouts: the stronger the move's gamma, the more of them
//! are wins. The patterns, learned from strong games, rank the many quiet moves that the
//! hand-made terms leave even.

use crate::knowledge::patterns::{self, Group, PatternTable, shape_tables};
use crate::knowledge::tactics::{Scratch, escapes, ladder_atari};
use crate::rules::board::{Board, Color, Point};

use super::tree::{HalfWins, NewChild, PASS};

/// Virtual playouts at an even result that every move starts with.
const EVEN: u32 = 10;
/// Virtual wins for a capture or for saving an own string from atari.
const TACTICAL_WIN: u32 = 20;
/// Virtual losses for extending a string in atari or with two liberties into one that a
/// ladder (or a plain atari) still takes: as many as the learned patterns can give, which
/// favour extending out of atari.
const FAILED_ESCAPE_LOSS: u32 = GAMMA_VISITS;
/// Virtual losses for a self-atari of more than one stone.
const SELF_ATARI_LOSS: u32 = 20;
/// Virtual losses for a first-line move while most of the board is empty.
const EDGE_LOSS: u32 = 10;
/// Virtual wins for a good shape (see [`shape_tables::is_good_shape`]).
const SHAPE_WIN: u32 = 10;
/// Virtual wins for a move within distance two of the last move (local answers matter most).
const NEAR_LAST_WIN: u32 = 5;
/// Virtual losses for passing.
const PASS_LOSS: u32 = 20;

/// Virtual playouts whose result the move's pattern gamma sets: more than any hand-made
/// term, so that the learned patterns weigh most in a new node.
const GAMMA_VISITS: u32 = 40;
/// The gamma (without the distance to the move before last) of a move that starts even.
const GAMMA_EVEN: f32 = 1.0;
/// How strongly the gamma moves the prior: the rate is `r / (1 + r)` with
/// `r = (gamma / GAMMA_EVEN)^SHARPNESS`.
const SHARPNESS: f32 = 0.5;

/// The child for a stone of `c` on `p`; `last` is the opponent's last stone, if any.
pub fn stone(
    board: &Board,
    p: Point,
    c: Color,
    last: Option<Point>,
    scratch: &mut Scratch,
) -> NewChild {
    let mut visits = EVEN;
    let mut wins: HalfWins = EVEN;
    let mut add = |n: u32, win: bool| {
        visits += n;
        if win {
            wins += 2 * n;
        }
    };
    let mut captures = false;
    // An own string in atari, or with two liberties, that the stone extends.
    let mut rescues = false;
    let mut extends = false;
    let mut ladders = false;
    for n in board.neighbors(p) {
        match board.color_at(n) {
            Some(o) if o == c.opponent() && board.in_atari(n) => captures = true,
            Some(o) if o == c && board.in_atari(n) => rescues = true,
            Some(o) if o == c && board.liberties(n) == 2 => extends = true,
            Some(o) if o == c.opponent() && !ladders && board.liberties(n) == 2 => {
                ladders = ladder_atari(board, n, c, scratch) == Some(p);
            }
            _ => {}
        }
    }
    let self_atari = board.self_atari_size(p, c);
    if captures || ladders {
        add(TACTICAL_WIN, true);
    }
    if rescues || extends {
        // The string the stone makes is safe, or a ladder (or an atari) still takes it.
        let safe = escapes(board, p, c, scratch);
        if safe && rescues {
            add(TACTICAL_WIN, true);
        } else if !safe && !captures {
            add(FAILED_ESCAPE_LOSS, false);
        }
    }
    if self_atari.is_some_and(|s| s > 1) || (self_atari.is_some() && !captures) {
        add(SELF_ATARI_LOSS, false);
    }
    if self_atari.is_none() && shape_tables::is_good_shape(board, p) {
        add(SHAPE_WIN, true);
    }
    let size = board.size();
    let (col, row) = p.coords(size);
    if let Some(l) = last {
        let (lc, lr) = l.coords(size);
        if col.abs_diff(lc) + row.abs_diff(lr) <= 2 {
            add(NEAR_LAST_WIN, true);
        }
    }
    let line = col.min(row).min(size - 1 - col).min(size - 1 - row);
    if line == 0 && size >= 7 && board.empty_count() * 10 > size * size * 7 {
        add(EDGE_LOSS, false);
    }
    let rate = pattern_rate(board, p, c, last, scratch);
    NewChild {
        mv: p.index() as u16,
        prior_visits: visits + GAMMA_VISITS,
        prior_wins: wins + (2.0 * GAMMA_VISITS as f32 * rate).round() as HalfWins,
    }
}

/// The win rate the learned move patterns give a stone of `c` on `p`.
fn pattern_rate(
    board: &Board,
    p: Point,
    c: Color,
    last: Option<Point>,
    scratch: &mut Scratch,
) -> f32 {
    let table = PatternTable::builtin();
    let features = patterns::extract(board, p, c, last, None, scratch);
    // The search does not say where the move before last was: leave that group out.
    let gamma = table.gamma(&features) / table.group(Group::SecondDistance)[0];
    let r = (gamma / GAMMA_EVEN).powf(SHARPNESS);
    r / (1.0 + r)
}

/// The pass child.
pub fn pass() -> NewChild {
    NewChild {
        mv: PASS,
        prior_visits: EVEN + PASS_LOSS,
        prior_wins: EVEN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(v: &str) -> Point {
        Point::parse(v, 9).unwrap()
    }

    fn board(black: &[&str], white: &[&str]) -> Board {
        Board::with_stones(9, black, white)
    }

    /// The share of virtual wins `c`'s stone on `v` starts with.
    fn rate(b: &Board, v: &str, c: Color, last: Option<Point>) -> f32 {
        share(stone(b, pt(v), c, last, &mut Scratch::new()))
    }

    fn share(child: NewChild) -> f32 {
        child.prior_wins as f32 / (2 * child.prior_visits) as f32
    }

    #[test]
    fn captures_beat_quiet_moves_and_self_ataris_lose() {
        let b = board(&["D5", "F5", "E4"], &["E5"]);
        let capture = rate(&b, "E6", Color::Black, None);
        let quiet = rate(&b, "C7", Color::Black, None);
        // For White, E6 saves E5: the two stones get three liberties (D6, F6, E7).
        let save = rate(&b, "E6", Color::White, None);
        assert!(capture > quiet);
        assert!(save > quiet);
        // White D4 inside black C4, D3, E4 has one liberty (D5) and captures nothing.
        let b = board(&["C4", "D3", "E4"], &[]);
        let self_atari = rate(&b, "D4", Color::White, None);
        assert!(self_atari < quiet);
        assert!(share(pass()) < quiet);
    }

    #[test]
    fn running_into_a_working_ladder_starts_behind() {
        // White D4 in atari (Black C4, D3, E4); D5 gives it two liberties, C5 and D6, with
        // E5 black: the ladder works on an empty board.
        let mut b = board(&["C4", "D3", "E4", "E5"], &["D4"]);
        let run = rate(&b, "D5", Color::White, None);
        let quiet = rate(&b, "G7", Color::White, None);
        assert!(run < quiet, "{run} {quiet}");
        // With a white stone on C6 the ladder fails: then running out is good.
        b.play(pt("C6"), Color::White);
        let run = rate(&b, "D5", Color::White, None);
        let quiet = rate(&b, "G7", Color::White, None);
        assert!(run > quiet, "{run} {quiet}");
    }

    #[test]
    fn extending_two_liberties_into_a_ladder_starts_behind() {
        // White D4 (liberties D5, E4) against Black C4, D3, E5, F4: E4 leaves the two stones
        // two liberties, D5 and E3, and Black ladders them; D5 gives them three.
        let b = board(&["C4", "D3", "E5", "F4"], &["D4"]);
        let quiet = rate(&b, "G7", Color::White, None);
        let run = rate(&b, "E4", Color::White, None);
        assert!(run < quiet, "{run} {quiet}");
        let out = rate(&b, "D5", Color::White, None);
        assert!(out > quiet, "{out} {quiet}");
    }

    #[test]
    fn moves_near_the_last_one_start_ahead() {
        let b = board(&[], &["E5"]);
        let last = Some(pt("E5"));
        let near = rate(&b, "E7", Color::Black, last);
        let far = rate(&b, "B8", Color::Black, last);
        assert!(near > far, "{near} {far}");
    }

    #[test]
    fn the_learned_patterns_prefer_contact_to_the_corner_point() {
        let b = board(&[], &["E5"]);
        let last = Some(pt("E5"));
        let mut scratch = Scratch::new();
        let contact = pattern_rate(&b, pt("E4"), Color::Black, last, &mut scratch);
        let corner = pattern_rate(&b, pt("A1"), Color::Black, last, &mut scratch);
        assert!(
            0.0 < corner && corner < contact && contact < 1.0,
            "{corner} {contact}"
        );
    }
}
