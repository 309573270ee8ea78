//! The `mcts` level: tengen's own search ([`crate::engine::search`]) as a player, which resigns
//! only past the opening and after several searches in a row found the game lost.

use super::{AnalysisRequest, Answer, Budget, LosingStreak, Player, PlayerError, Progress, Update};
use crate::engine::book::Opening;
use crate::engine::search::{Search, SearchSettings};
use crate::rules::board::Color;
use crate::rules::game::Game;

/// The MCTS player.
pub struct MctsPlayer {
    search: Search,
    /// Searches in a row that found the game lost.
    losing_streak: LosingStreak,
    /// Whether it thinks on the opponent's time.
    ponder: bool,
    /// The opening book's chooser, when the level plays from the book.
    book: Option<Opening>,
}

impl MctsPlayer {
    /// A player searching with `settings`.
    pub fn new(settings: SearchSettings) -> MctsPlayer {
        MctsPlayer {
            ponder: settings.ponder,
            book: settings.book(false).then(|| Opening::new(settings.seed)),
            search: Search::new(settings),
            losing_streak: LosingStreak::default(),
        }
    }
}

impl Player for MctsPlayer {
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
            progress.update(Update::Report(&self.search.root_report()));
        }
        if self.losing_streak.resigns(&choice, game, budget, "mcts") {
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
        self.search.ponder(game, game.to_move(), budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::Silent;
    use crate::engine::search::MIN_PLAYOUTS_TO_RESIGN;
    use crate::rules::board::Move;
    use crate::rules::game::{Rules, opening_length};

    /// Black's answers in a two-stone 9x9 game (komi `komi`) to `rounds` White moves, by a
    /// player whose dynamic komi is `handicap_komi` a stone; stops at a resignation.
    fn black_answers_with_two_stones(komi: f64, handicap_komi: f32, rounds: usize) -> Vec<Answer> {
        let mut game = Game::new(9, Rules::chinese(komi));
        game.set_handicap(&crate::rules::game::fixed_handicap_points(9, 2).unwrap())
            .unwrap();
        let mut mcts = MctsPlayer::new(SearchSettings {
            playouts: Some(MIN_PLAYOUTS_TO_RESIGN),
            threads: 1,
            seed: Some(3),
            resign_threshold: 0.3,
            handicap_komi_set: Some(handicap_komi),
            early_stop: false,
            ..SearchSettings::default()
        });
        let budget = Budget {
            may_resign: true,
            ..Budget::default()
        };
        let mut answers = Vec::new();
        for _ in 0..rounds {
            // White takes the first free point of the centre column, then of the next ones.
            let free = game
                .board()
                .empty_points()
                .map(Move::Play)
                .filter(|&mv| game.legality(Color::White, mv).is_ok())
                .min_by_key(|mv| match mv {
                    Move::Play(p) => {
                        let (col, row) = p.coords(9);
                        (col.abs_diff(4), row.abs_diff(4))
                    }
                    Move::Pass => (9, 9),
                })
                .expect("a free point");
            game.play(Color::White, free).unwrap();
            let answer = mcts
                .genmove(&game, Color::Black, &budget, &mut Silent)
                .unwrap();
            answers.push(answer);
            match answer {
                Answer::Move(mv) => game.play(Color::Black, mv).unwrap(),
                Answer::Resign => break,
            }
        }
        answers
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "searches whole games: release only")]
    fn dynamic_komi_never_makes_black_resign() {
        // 100 points a stone make every playout a loss for Black, yet it plays on.
        assert!(
            black_answers_with_two_stones(0.5, 100.0, 8)
                .iter()
                .all(|a| *a != Answer::Resign)
        );
        // The same search with that deficit in the real komi resigns once the opening (13
        // moves on 9x9) is over, not before: the test can fail.
        let answers = black_answers_with_two_stones(200.0, 0.0, 8);
        assert_eq!(answers.last(), Some(&Answer::Resign));
        assert!(2 * answers.len() >= opening_length(9), "{answers:?}");
        assert!(
            black_answers_with_two_stones(200.0, 0.0, 6)
                .iter()
                .all(|a| *a != Answer::Resign)
        );
    }
}
