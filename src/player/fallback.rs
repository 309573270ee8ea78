//! A level played by an external engine, with tengen's own players answering whenever the
//! engine cannot: missing, still starting, slow, crashed, or answering nonsense.

use std::sync::atomic::AtomicBool;
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
        let deadline = self.deadline(limits);
        match self.external.genmove(game, color, deadline, limits) {
            Ok(answer) => answer,
            Err(e) => self.fall_back(game, color, limits, deadline, e),
        }
    }

    fn genmove_streamed(
        &mut self,
        game: &Game,
        color: Color,
        name: &str,
        line: &str,
        limits: &Limits,
        out: &mut dyn FnMut(&str) -> bool,
    ) -> Option<Answer> {
        let deadline = self.deadline(limits);
        let result =
            self.external
                .genmove_streamed(game, color, (name, line), deadline, limits, out)?;
        Some(match result {
            Ok(answer) => answer,
            Err(e) => self.fall_back(game, color, limits, deadline, e),
        })
    }

    fn describe(&self) -> Option<String> {
        self.external.describe().map(str::to_string)
    }

    fn stream_analysis(
        &mut self,
        game: &Game,
        name: &str,
        line: &str,
        stop: &AtomicBool,
        out: &mut dyn FnMut(&str) -> bool,
    ) -> bool {
        self.external.stream_analysis(game, name, line, stop, out)
    }
}

impl FallbackPlayer {
    /// When this move is due: the clock's deadline or the engine's move timeout, whichever
    /// comes first.
    fn deadline(&self, limits: &Limits) -> Instant {
        let move_deadline = Instant::now() + self.external.move_timeout();
        limits
            .deadline
            .map_or(move_deadline, |d| d.min(move_deadline))
    }

    /// The fallback's answer after the engine failed with `error`, within what is left
    /// until `deadline`.
    fn fall_back(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        deadline: Instant,
        error: ExternalError,
    ) -> Answer {
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
}
