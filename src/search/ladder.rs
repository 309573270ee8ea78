//! The ladder reader the playouts and the priors use: it lives with the move patterns
//! ([`crate::patterns::ladder`]), whose atari feature reads ladders too.

pub use crate::patterns::ladder::{Scratch, escapes, ladder_atari};
