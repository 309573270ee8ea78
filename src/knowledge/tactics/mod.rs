//! Reading the fights on a board, for the move patterns, the search's priors and playouts and
//! the medium level: which strings a ladder takes ([`ladder_atari`], [`escapes`],
//! [`strings_a_ladder_takes`]), the atari that kills or the move that saves in a fight of
//! two-liberty strings ([`two_liberty_answer`]), the vital point of a small eye space
//! ([`nakade_point`]), and the captures around a string ([`touching_ataris`],
//! [`captures_around`], [`stones_saved_by_capture`]).
//!
//! Built on the board alone. The cheap primitives a playout asks of every move
//! ([`Board::liberties_after`](crate::rules::board::Board::liberties_after),
//! [`Board::self_atari_size`](crate::rules::board::Board::self_atari_size)) are the board's own.

mod capture;
mod fights;
mod ladder;
mod nakade;

pub use capture::{captures_around, stones_saved_by_capture, touching_ataris};
pub use fights::two_liberty_answer;
pub use ladder::{Scratch, escapes, is_ladder_atari, ladder_atari, strings_a_ladder_takes};
pub use nakade::nakade_point;

#[cfg(test)]
pub(crate) mod tests;
