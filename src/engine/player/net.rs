//! The `mcts` level with a network: the PUCT search ([`crate::engine::search::puct`]) as a player,
//! resigning as the plain `mcts` level does (past the opening, after several searches in a
//! row found the game lost).

use std::sync::Arc;

use super::{AnalysisRequest, Answer, Budget, LosingStreak, Player, PlayerError, Progress, Update};
use crate::engine::book::Opening;
use crate::engine::search::{PuctSearch, SearchSettings};
use crate::knowledge::net::Net;
use crate::rules::board::Color;
use crate::rules::game::Game;

/// The player searching with a net.
pub struct NetPlayer {
    search: PuctSearch,
    /// Whether it thinks on the opponent's time.
    ponder: bool,
    /// Searches in a row that found the game lost.
    losing_streak: LosingStreak,
    /// The opening book's chooser, when the level plays from the book (`book = true`).
    book: Option<Opening>,
}

impl NetPlayer {
    /// A player searching with `net` under `settings` (playouts count visits).
    pub fn new(net: Arc<Net>, settings: SearchSettings) -> NetPlayer {
        NetPlayer {
            ponder: settings.ponder,
            book: settings.book(true).then(|| Opening::new(settings.seed)),
            search: PuctSearch::new(net, settings),
            losing_streak: LosingStreak::default(),
        }
    }
}

impl Player for NetPlayer {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError> {
        if let Some(mv) = self.book.as_mut().and_then(|b| b.choose(game, color)) {
            return Ok(Answer::Move(mv));
        }
        let choice = self.search.choose(game, color, budget);
        if choice.searched && progress.listening() {
            progress.update(Update::Report(&self.search.report(false)));
        }
        if self
            .losing_streak
            .resigns(&choice, game, budget, "net search")
        {
            return Ok(Answer::Resign);
        }
        Ok(Answer::Move(choice.mv))
    }

    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        progress: &mut dyn Progress,
    ) -> Result<(), PlayerError> {
        self.search.analyze(game, request, |report| {
            progress.update(Update::Report(report))
        });
        Ok(())
    }

    fn ponder(&mut self, game: &Game, budget: &Budget) -> u64 {
        if !self.ponder {
            return 0;
        }
        self.search.ponder(game, budget)
    }
}
