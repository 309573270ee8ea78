//! Another GTP engine (KataGo, GNU Go, Leela Zero) as a child process behind a level: the
//! `child` module is the child's life (start, restart, each move's deadline), `player` the
//! [`Player`](super::Player) protocol on it. Its board is kept in step with our game by
//! [`Mirror`](crate::engine::gtp_client::sync::Mirror): only new moves are sent; an undo or a switch
//! to another line uses the child's `undo` when it lists it, else `clear_board` and a replay.
//!
//! One deadline per move: the move's, `min(move_timeout, clock - reserve)`. Starting the
//! child, its handshake, syncing the position and `genmove` all fit inside it; what does not
//! is the fallback's move.
//!
//! The child starts lazily, in the background: the first `genmove` that needs it waits for it
//! only as long as that move's deadline allows. A start that misses that deadline goes on in
//! the background, but no later move waits for it: each takes the child up once it is ready
//! (and asks it when at least half the move's time is left), the fallback plays until then.
//! A handshake not finished within [`HANDSHAKE_TIMEOUT`](crate::engine::gtp_client::HANDSHAKE_TIMEOUT)
//! fails the start: the child is killed and left alone until the next game. A child that
//! hangs or dies is killed and a fresh one started in the background; after
//! [`MAX_RESTARTS`] restarts in one game it is left alone until the next game. A new game is
//! noticed whoever moves first.
//!
//! With `avoid_early_pass`, a pass that answers the opponent's pass while dame or ataris are
//! left is taken back and the child is asked once more, for its analysed candidates
//! (see [`early_pass`]).

mod child;
pub mod early_pass;
mod player;

use std::fmt;
use std::time::Duration;

use crate::engine::gtp_client::sync::Start;
use crate::rules::board::{Color, Move};
pub use child::MAX_RESTARTS;
use child::State;

/// Why the child gave no usable move.
#[derive(Debug)]
pub enum ExternalError {
    /// It is not running and will not be tried again before the next game.
    Unavailable,
    /// It is still starting.
    Starting,
    /// It could not be started (the reason, once).
    StartFailed(String),
    /// It did not answer within the move's budget.
    Timeout,
    /// The move's time ran out before it could be asked (it is kept for the next move).
    OutOfTime,
    /// It exited or broke a pipe.
    Crashed(String),
    /// It answered something that is not a legal move here.
    BadAnswer(String),
}

impl fmt::Display for ExternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalError::Unavailable => f.write_str("not available in this game"),
            ExternalError::Starting => f.write_str("still starting"),
            ExternalError::StartFailed(why) => write!(f, "cannot start: {why}"),
            ExternalError::Timeout => f.write_str("no answer in time; restarting it"),
            ExternalError::OutOfTime => f.write_str("no time left in this move to ask it"),
            ExternalError::Crashed(why) => write!(f, "crashed ({why}); restarting it"),
            ExternalError::BadAnswer(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for ExternalError {}

/// An external engine behind a level.
pub struct ExternalEngine {
    name: String,
    command: Option<Vec<String>>,
    move_timeout: Duration,
    state: State,
    restarts: u32,
    /// The last child's `name version`, for `version`.
    describe: Option<String>,
    /// Whether a pass that would end the game too early is reconsidered.
    avoid_early_pass: bool,
    /// The game of the last `genmove` (to notice a new one).
    seen: Option<(Start, Vec<(Color, Move)>)>,
}

impl ExternalEngine {
    /// The engine `name` run as `command` (`None` when the config names no such engine), each
    /// move bounded by `move_timeout`.
    pub fn new(name: &str, command: Option<Vec<String>>, move_timeout: Duration) -> ExternalEngine {
        ExternalEngine {
            name: name.to_string(),
            command,
            move_timeout,
            state: State::Idle,
            restarts: 0,
            describe: None,
            avoid_early_pass: true,
            seen: None,
        }
    }

    /// This engine with `avoid_early_pass` on or off (on by default): when the opponent has
    /// just passed and the child passes too while tengen's scorer sees dame or a living
    /// string in atari, the child's pass is taken back and its best non-pass candidate from
    /// `kata-genmove_analyze` or `lz-genmove_analyze` is played (one retry per move; a child
    /// with neither command keeps its pass).
    pub fn with_avoid_early_pass(mut self, on: bool) -> ExternalEngine {
        self.avoid_early_pass = on;
        self
    }
}
