//! A chain of players: the first (an external engine) answers when it can; when it cannot
//! (missing, still starting, slow, crashed, answering nonsense) the next one does, and so
//! on, all within the one deadline of the move.

use std::time::{Duration, Instant};

use log::{debug, warn};

use super::{AnalysisRequest, Answer, Budget, ExternalError, Player, PlayerError, Progress};
use crate::rules::board::Color;
use crate::rules::game::Game;

/// Below this much time left, only the last (quickest) player of the chain is asked; nor is
/// a player asked that takes longer than the time left ([`Player::least_time`]: a big net's
/// one evaluation), so that a short clock hands the move down the chain, not to the flag.
const QUICK_ANSWER: Duration = Duration::from_millis(300);

/// The least time a player after the first is given even when the ones before used up the
/// move's budget, so that a search still answers sensibly (it stays within the one-second
/// grace the clock's reserve covers); never more than the whole move was given, so that a
/// nearly spent sudden-death clock is not overdrawn move after move.
const FALLBACK_MINIMUM: Duration = Duration::from_millis(200);

/// Players asked in order until one answers.
pub struct FallbackPlayer {
    chain: Vec<Box<dyn Player>>,
    /// The most one move may take, whatever the clock allows (`None`: only the clock, or the
    /// players' own limits, bound it; a chain with no other program in it needs no guard).
    move_timeout: Option<Duration>,
    /// The player of the chain that answered the last move: the one that ponders.
    answered: Option<usize>,
}

impl FallbackPlayer {
    /// `chain` (its first player is the one wanted, the rest answer in its place), each move
    /// bounded by `move_timeout` where there is one.
    pub fn new(chain: Vec<Box<dyn Player>>, move_timeout: Option<Duration>) -> FallbackPlayer {
        FallbackPlayer {
            chain,
            move_timeout,
            answered: None,
        }
    }
}

impl Player for FallbackPlayer {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError> {
        let start = Instant::now();
        let timeout = self.move_timeout.map(|t| start + t);
        let deadline = match (budget.deadline, timeout) {
            (Some(d), Some(t)) => Some(d.min(t)),
            (d, t) => d.or(t),
        };
        let least = deadline.map_or(FALLBACK_MINIMUM, |d| {
            FALLBACK_MINIMUM.min(d.saturating_duration_since(start))
        });
        let last = self.chain.len().saturating_sub(1);
        let mut error = PlayerError::CannotAnalyze;
        self.answered = None;
        for (i, player) in self.chain.iter_mut().enumerate() {
            let now = Instant::now();
            if let Some(deadline) = deadline {
                let left = deadline.saturating_duration_since(now);
                let too_slow = left < player.least_time() || (i > 0 && left < QUICK_ANSWER);
                if i < last && too_slow {
                    continue;
                }
            }
            let due = if i == 0 {
                deadline
            } else {
                deadline.map(|d| d.max(now + least))
            };
            let budget = Budget {
                deadline: due,
                ..budget.clone()
            };
            match player.genmove(game, color, &budget, progress) {
                Ok(answer) => {
                    self.answered = Some(i);
                    return Ok(answer);
                }
                Err(e) => {
                    log_failure(&e, i == last);
                    error = e;
                }
            }
        }
        Err(error)
    }

    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        progress: &mut dyn Progress,
    ) -> Result<(), PlayerError> {
        for player in &mut self.chain {
            match player.analyze(game, request, progress) {
                Err(PlayerError::CannotAnalyze) => {}
                Err(e) => warn!("{e}; the next player analyses"),
                Ok(()) => return Ok(()),
            }
        }
        Err(PlayerError::CannotAnalyze)
    }

    fn ponder(&mut self, game: &Game, budget: &Budget) -> u64 {
        match self.answered.and_then(|i| self.chain.get_mut(i)) {
            Some(player) => player.ponder(game, budget),
            None => 0,
        }
    }

    fn describe(&self) -> Option<String> {
        self.chain.first().and_then(|p| p.describe())
    }

    /// The last player's, the one that always answers.
    fn least_time(&self) -> Duration {
        self.chain.last().map_or(Duration::ZERO, |p| p.least_time())
    }

    /// The first search's of the chain.
    fn param(&mut self, name: &str) -> Result<String, PlayerError> {
        for player in &mut self.chain {
            match player.param(name) {
                Err(PlayerError::NoSearch) => {}
                result => return result,
            }
        }
        Err(PlayerError::NoSearch)
    }

    /// Set in every search of the chain, so that whichever plays a move plays it so.
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), PlayerError> {
        let mut result = Err(PlayerError::NoSearch);
        for player in &mut self.chain {
            match player.set_param(name, value) {
                Err(PlayerError::NoSearch) => {}
                Err(e) => return Err(e),
                Ok(()) => result = Ok(()),
            }
        }
        result
    }
}

/// One log line for a player of the chain that gave no move.
fn log_failure(error: &PlayerError, last: bool) {
    let next = if last {
        "nobody is left to play; passing"
    } else {
        "the next player plays this move"
    };
    match error {
        PlayerError::Engine {
            name,
            error: ExternalError::Unavailable,
        } => debug!("{name}: unavailable; {next}"),
        PlayerError::Engine {
            name,
            error: ExternalError::Starting,
        } => debug!("{name}: still starting; {next}"),
        // A child ready late in a move: it plays the next one.
        PlayerError::Engine {
            name,
            error: ExternalError::OutOfTime,
        } => debug!("{name}: no time left to ask it; {next}"),
        e => warn!("{e}; {next}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::{Answer, Silent};
    use crate::rules::board::{Move, Point};
    use crate::rules::game::Rules;

    /// A player that answers `mv` (none: it is unavailable, as an absent engine) and takes at
    /// least `least` for it.
    struct Fixed {
        mv: Option<Move>,
        least: Duration,
    }

    impl Player for Fixed {
        fn genmove(
            &mut self,
            _game: &Game,
            _color: Color,
            _budget: &Budget,
            _progress: &mut dyn Progress,
        ) -> Result<Answer, PlayerError> {
            self.mv.map(Answer::Move).ok_or(PlayerError::Engine {
                name: "absent".into(),
                error: ExternalError::Unavailable,
            })
        }

        fn least_time(&self) -> Duration {
            self.least
        }
    }

    #[test]
    fn a_player_slower_than_the_time_left_is_passed_over() {
        let game = Game::new(9, Rules::default());
        let [slow, quick] = [Point::new(9, 2, 2), Point::new(9, 6, 6)].map(Move::Play);
        let player = |mv, secs| -> Box<dyn Player> {
            Box::new(Fixed {
                mv,
                least: Duration::from_secs(secs),
            })
        };
        let mut chain = FallbackPlayer::new(
            vec![
                player(None, 0),
                player(Some(slow), 2),
                player(Some(quick), 0),
            ],
            Some(Duration::from_secs(60)),
        );
        let move_in = |chain: &mut FallbackPlayer, secs| {
            let budget = Budget {
                deadline: Some(Instant::now() + Duration::from_secs(secs)),
                ..Budget::default()
            };
            chain
                .genmove(&game, Color::Black, &budget, &mut Silent)
                .expect("a move")
        };
        // A slow player (2 s a move) is passed over with 1 s left, and plays with 5 s.
        assert_eq!(move_in(&mut chain, 1), Answer::Move(quick));
        assert_eq!(move_in(&mut chain, 5), Answer::Move(slow));
        // The first player of a chain too (an absent engine's level: its own net first).
        chain.chain.remove(0);
        assert_eq!(move_in(&mut chain, 1), Answer::Move(quick));
        assert_eq!(move_in(&mut chain, 5), Answer::Move(slow));
        // Without a clock only the chain's own timeout bounds a move; without one (no other
        // program in the chain), nothing does.
        let unclocked = |chain: &mut FallbackPlayer, timeout| {
            chain.move_timeout = timeout;
            chain
                .genmove(&game, Color::Black, &Budget::default(), &mut Silent)
                .expect("a move")
        };
        assert_eq!(
            unclocked(&mut chain, Some(Duration::from_secs(1))),
            Answer::Move(quick)
        );
        assert_eq!(unclocked(&mut chain, None), Answer::Move(slow));
    }
}
