//! What bounds a search ([`Budget`]) and what it answers ([`Choice`]), the same for both
//! searches.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::rules::board::Move;
use crate::rules::game::clock::Clock;

/// What bounds one search or one move: playouts, a deadline, a flag set from outside to stop
/// early (the best move so far is played), and for a move the game clock and whether
/// resigning is allowed.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Playouts to run at most; `None`: the level's own count, or the deadline decides.
    pub playouts: Option<u64>,
    /// The moment the answer is due; `None` when the clock sets no limit.
    pub deadline: Option<Instant>,
    /// When a search whose best move is clearly ahead stops (an unclear one goes on to the
    /// deadline); `None`: only the deadline counts.
    pub target: Option<Instant>,
    /// Set (by `# interrupt`, or the next line during an analysis) to stop thinking now.
    pub stop: Option<Arc<AtomicBool>>,
    /// The game clock, for players that pass it on (an external engine).
    pub clock: Option<Clock>,
    /// Whether the player may resign (never in `kgs-genmove_cleanup`).
    pub may_resign: bool,
}

impl Budget {
    /// Whether the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Whether thinking must stop now: the deadline passed or the stop flag is set.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || self.stopped()
    }
}

/// The move a search chose.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move (or pass).
    pub mv: Move,
    /// Whether the search found the game lost (its best win rate below the resign threshold,
    /// trusted); `None` when this move gives no verdict (a pass forced by the rules).
    pub losing: Option<bool>,
    /// Whether a tree search ran (so [`Search::root_report`](super::Search::root_report)
    /// describes this move).
    pub searched: bool,
}
