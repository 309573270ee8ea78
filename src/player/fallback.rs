//! A level played by an external engine, with tengen's own players answering whenever the
//! engine cannot: missing, still starting, slow, crashed, or answering nonsense.

use std::time::{Duration, Instant};

use log::{debug, warn};

use super::external::{ExternalEngine, ExternalError};
use super::{Answer, Limits, Player};
use crate::board::Color;
use crate::game::Game;

/// Below this much time left, the last (quickest) fallback answers instead of the first.
const QUICK_ANSWER: Duration = Duration::from_millis(300);

/// The least time a fallback is given even when the engine used up the move's budget, so
/// that a search still answers sensibly (it stays within the one-second grace the clock's
/// reserve covers).
const FALLBACK_MINIMUM: Duration = Duration::from_millis(200);

/// An external engine with fallback players.
pub struct FallbackPlayer {
    external: ExternalEngine,
    fallback: Vec<Box<dyn Player>>,
}

impl FallbackPlayer {
    /// `external`, with `fallback` (at least one player) answering in its place.
    pub fn new(external: ExternalEngine, fallback: Vec<Box<dyn Player>>) -> FallbackPlayer {
        FallbackPlayer { external, fallback }
    }
}

impl Player for FallbackPlayer {
    fn genmove(&mut self, game: &Game, color: Color, limits: &Limits) -> Answer {
        let started = Instant::now();
        let move_deadline = started + self.external.move_timeout();
        let deadline = limits
            .deadline
            .map_or(move_deadline, |d| d.min(move_deadline));
        let error = match self.external.genmove(game, color, deadline, limits) {
            Ok(answer) => return answer,
            Err(e) => e,
        };
        let name = self.external.name();
        match error {
            ExternalError::Unavailable => debug!("{name}: unavailable; the fallback plays"),
            ExternalError::Starting => debug!("{name}: still starting; the fallback plays"),
            e => warn!("{name}: {e}; the fallback plays this move"),
        }
        let now = Instant::now();
        let left = deadline.saturating_duration_since(now);
        let quick = left < QUICK_ANSWER;
        let Some(player) = (if quick {
            self.fallback.last_mut()
        } else {
            self.fallback.first_mut()
        }) else {
            return Answer::Move(crate::board::Move::Pass);
        };
        let limits = Limits {
            deadline: Some(deadline.max(now + FALLBACK_MINIMUM)),
            ..limits.clone()
        };
        player.genmove(game, color, &limits)
    }

    fn describe(&self) -> Option<String> {
        self.external.describe().map(str::to_string)
    }
}
