//! Move patterns: features of candidate moves and their learned weights ("gammas"), shared by
//! the tree's priors and the playout policy.
//!
//! A candidate move has one value in each feature group ([`Group`]): its 3x3 shape ([`shape`],
//! classes under the eight symmetries, colours relative to the player to move), whether it
//! captures, ataris, escapes from atari or is a self-atari, its distance to the last two moves
//! and its line. [`extract`] computes them from a [`crate::rules::board::Board`]. The 3x3 class of a
//! point is `class_of(raw_code(board, p, to_move))`: O(1), from the board's incremental 3x3
//! code, so a playout can afford it for every candidate; [`shape_tables`] answers the 3x3
//! questions the search asks most (is it one of MoGo's good shapes, what is its learned gamma)
//! with one lookup by that code. The atari and escape features read ladders with
//! [`crate::knowledge::tactics`].
//!
//! [`PatternTable`] holds one gamma per value; a move's strength is the product of its values'
//! gammas, and the probability that it is the move played is its strength over the sum of all
//! candidates' (Coulom 2007). The built-in table ([`PatternTable::builtin`]) was learned by
//! `tengen train-patterns` ([`crate::knowledge::train`]) from KataGo self-play games and is embedded in the
//! binary from `src/knowledge/patterns/gammas.txt`.

mod features;
pub mod shape;
pub mod shape_tables;
pub mod spatial;
mod table;

pub use crate::knowledge::tactics::Scratch;
pub use features::{
    ATARI, ATARI_LADDER, CAPTURE_LAST, CAPTURE_MANY, CAPTURE_ONE, CAPTURE_SAVES, ESCAPE,
    ESCAPE_CAUGHT, Features, GROUPS, Group, SELF_ATARI_BIG, SELF_ATARI_SMALL, distance_value,
    extract, pass_class,
};
pub use shape::{class_count, class_of, code3x3, raw_code};
pub use table::{LineError, PatternTable, TableError};

#[cfg(test)]
pub(crate) mod tests;
