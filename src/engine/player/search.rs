//! The search levels as one player: the playout search (`mcts`) or the search guided by a
//! network, each behind [`Searcher`], with the opening book, pondering and resignation (only
//! past the opening, after several searches in a row found the game lost) written once.

use std::sync::Arc;
use std::time::Duration;

use super::{
    AnalysisRequest, Answer, Budget, LosingStreak, Player, PlayerError, Progress, Report, Update,
};
use crate::engine::book::Opening;
use crate::engine::search::puct::net_priors;
use crate::engine::search::{self, Choice, PuctSearch, Search, SearchSettings};
use crate::knowledge::net::Net;
use crate::rules::board::{Color, Move};
use crate::rules::game::Game;

/// What a search level needs of its search: what varies between the two searches is below
/// this line (how a leaf is valued, how a child is scored), what a player does with a search
/// is above it.
pub trait Searcher: Send {
    /// The move for `color` in `game` within `budget`.
    fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice;
    /// The last search as a report, for a front end that listens to `genmove`.
    fn report(&self) -> Report;
    /// Analyses `game` as `request` asks, calling `report` every interval and at the end
    /// until it returns false.
    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        report: &mut dyn FnMut(&Report) -> bool,
    );
    /// Searches `game` (the opponent to move) on its time until `budget` stops it; the
    /// playouts or visits run.
    fn ponder(&mut self, game: &Game, budget: &Budget) -> u64;
    /// The search's name in the log.
    fn name(&self) -> &'static str;
    /// The level's settings.
    fn settings(&self) -> &SearchSettings;
    /// Searches under `settings` from the next search on.
    fn set_settings(&mut self, settings: SearchSettings);
    /// The least time a move takes, however short its deadline.
    fn least_time(&self) -> Duration;
}

impl Searcher for Search {
    fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
        Search::choose(self, game, color, budget)
    }

    fn report(&self) -> Report {
        self.root_report()
    }

    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        report: &mut dyn FnMut(&Report) -> bool,
    ) {
        Search::analyze(self, game, request, report);
    }

    fn ponder(&mut self, game: &Game, budget: &Budget) -> u64 {
        Search::ponder(self, game, game.to_move(), budget)
    }

    fn name(&self) -> &'static str {
        "mcts"
    }

    fn settings(&self) -> &SearchSettings {
        Search::settings(self)
    }

    fn set_settings(&mut self, settings: SearchSettings) {
        Search::set_settings(self, settings);
    }

    /// A playout search stops at its deadline within a playout.
    fn least_time(&self) -> Duration {
        Duration::ZERO
    }
}

impl Searcher for PuctSearch {
    fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
        PuctSearch::choose(self, game, color, budget)
    }

    fn report(&self) -> Report {
        PuctSearch::report(self, false)
    }

    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        report: &mut dyn FnMut(&Report) -> bool,
    ) {
        PuctSearch::analyze(self, game, request, report);
    }

    fn ponder(&mut self, game: &Game, budget: &Budget) -> u64 {
        PuctSearch::ponder(self, game, budget)
    }

    fn name(&self) -> &'static str {
        "net search"
    }

    fn settings(&self) -> &SearchSettings {
        PuctSearch::settings(self)
    }

    fn set_settings(&mut self, settings: SearchSettings) {
        PuctSearch::set_settings(self, settings);
    }

    /// The root's evaluation, at least.
    fn least_time(&self) -> Duration {
        self.evaluation_time()
    }
}

/// The prior of each legal move for `color` in `game` that a search level starts from: `net`'s
/// policy when there is one, else the playout search's move priors.
pub fn move_priors(net: Option<&Net>, game: &Game, color: Color) -> Vec<(Move, f32)> {
    match net {
        Some(net) => net_priors(net, game, color),
        None => search::move_priors(game, color),
    }
}

/// A search level: the `mcts` level, with a network or without.
pub struct SearchPlayer {
    search: Box<dyn Searcher>,
    /// Searches in a row that found the game lost.
    losing_streak: LosingStreak,
    /// Whether it thinks on the opponent's time.
    ponder: bool,
    /// The opening book's chooser, when the level plays from the book.
    book: Option<Opening>,
    /// Whether a net guides the search (the book's default depends on it).
    with_net: bool,
}

impl SearchPlayer {
    /// The playout search under `settings`.
    pub fn playouts(settings: SearchSettings) -> SearchPlayer {
        let (ponder, book) = (settings.ponder, opening(&settings, false));
        SearchPlayer::new(ponder, book, false, Box::new(Search::new(settings)))
    }

    /// The search guided by `net` under `settings` (playouts count visits).
    pub fn with_net(net: Arc<Net>, settings: SearchSettings) -> SearchPlayer {
        let (ponder, book) = (settings.ponder, opening(&settings, true));
        SearchPlayer::new(ponder, book, true, Box::new(PuctSearch::new(net, settings)))
    }

    fn new(
        ponder: bool,
        book: Option<Opening>,
        with_net: bool,
        search: Box<dyn Searcher>,
    ) -> SearchPlayer {
        SearchPlayer {
            search,
            losing_streak: LosingStreak::default(),
            ponder,
            book,
            with_net,
        }
    }
}

/// The book's chooser when `settings` play from the book (with a net or not).
fn opening(settings: &SearchSettings, net: bool) -> Option<Opening> {
    settings.book(net).then(|| Opening::new(settings.seed))
}

impl Player for SearchPlayer {
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
            progress.update(Update::Report(&self.search.report()));
        }
        let who = self.search.name();
        if self.losing_streak.resigns(&choice, game, budget, who) {
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
        self.search.analyze(game, request, &mut |report| {
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

    fn least_time(&self) -> Duration {
        self.search.least_time()
    }

    fn param(&mut self, name: &str) -> Result<String, PlayerError> {
        self.search
            .settings()
            .param(name)
            .map_err(PlayerError::Param)
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), PlayerError> {
        let settings = self
            .search
            .settings()
            .with_param(name, value)
            .map_err(PlayerError::Param)?;
        if settings.book(self.with_net) != self.book.is_some() {
            self.book = opening(&settings, self.with_net);
        }
        self.ponder = settings.ponder;
        self.search.set_settings(settings);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::Silent;
    use crate::engine::search::MIN_PLAYOUTS_TO_RESIGN;
    use crate::engine::search::SearchSettings;
    use crate::rules::board::Move;
    use crate::rules::game::{Rules, opening_length};

    /// Black's answers in a two-stone 9x9 game (komi `komi`) to `rounds` White moves, by a
    /// player whose dynamic komi is `handicap_komi` a stone; stops at a resignation.
    fn black_answers_with_two_stones(komi: f64, handicap_komi: f32, rounds: usize) -> Vec<Answer> {
        let mut game = Game::new(9, Rules::chinese(komi));
        game.set_handicap(&crate::rules::game::fixed_handicap_points(9, 2).unwrap())
            .unwrap();
        let mut mcts = SearchPlayer::playouts(SearchSettings {
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

    /// The root visits of the report a genmove on an empty board of `size` gives (a size
    /// unlike the last one's, so that no tree is reused).
    fn visits_of_a_move(player: &mut SearchPlayer, size: usize) -> u64 {
        struct Visits(u64);
        impl Progress for Visits {
            fn update(&mut self, update: Update<'_>) -> bool {
                if let Update::Report(report) = update {
                    self.0 = report.root.visits;
                }
                true
            }
        }
        let game = Game::new(size, Rules::default());
        let mut visits = Visits(0);
        player
            .genmove(&game, Color::Black, &Budget::default(), &mut visits)
            .expect("a move");
        visits.0
    }

    #[test]
    fn a_net_search_says_how_long_its_least_move_takes() {
        use crate::knowledge::net::model::{Model, synthetic};
        let model = synthetic::net(15, true, synthetic::seed(15));
        let net = Net::from_model(Model::parse(&model, true).expect("a synthetic net"));
        let settings = SearchSettings {
            playouts: Some(8),
            threads: 1,
            ..SearchSettings::default()
        };
        let mut player = SearchPlayer::with_net(Arc::new(net), settings.clone());
        assert_eq!(player.least_time(), Duration::ZERO, "nothing measured yet");
        visits_of_a_move(&mut player, 9);
        assert!(player.least_time() > Duration::ZERO);
        let mut playouts = SearchPlayer::playouts(settings);
        visits_of_a_move(&mut playouts, 9);
        assert_eq!(playouts.least_time(), Duration::ZERO);
    }

    #[test]
    fn a_setting_changed_in_play_rules_the_next_search() {
        let mut player = SearchPlayer::playouts(SearchSettings {
            playouts: Some(300),
            threads: 1,
            seed: Some(5),
            book_set: Some(false),
            early_stop: false,
            ..SearchSettings::default()
        });
        assert_eq!(visits_of_a_move(&mut player, 9), 300);
        player.set_param("maxVisits", "40").expect("a setting");
        assert_eq!(player.param("playouts").ok().as_deref(), Some("40"));
        assert_eq!(visits_of_a_move(&mut player, 7), 40);
        // A refused value changes nothing.
        assert!(player.set_param("maxVisits", "0").is_err());
        assert!(player.set_param("numSearchThreads", "many").is_err());
        assert_eq!(visits_of_a_move(&mut player, 9), 40);
        // The book comes and goes with its setting.
        player.set_param("book", "true").expect("a setting");
        assert!(player.book.is_some());
        player.set_param("book", "none").expect("a setting");
        assert!(
            player.book.is_some(),
            "without a net the book is on by default"
        );
        player.set_param("book", "false").expect("a setting");
        assert!(player.book.is_none());
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
