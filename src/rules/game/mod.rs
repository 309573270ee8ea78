//! A game: the board plus the rules (komi, ko rule, suicide, scoring) and the move history,
//! which is the single source of truth: undo rebuilds the board from it.

mod benson;
pub mod clock;
mod handicap;
pub mod kata_rules;
pub mod regions;
pub mod score;

pub use handicap::{
    HandicapError, fixed_handicap_points, free_handicap_points, max_fixed_handicap,
};

use std::fmt;

use crate::rules::board::{Board, BoardIllegal, Color, MAX_CELLS, MAX_SIZE, MIN_SIZE, Move, Point};

/// Which repetitions are forbidden.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KoRule {
    /// Only the immediate retake of a single stone.
    Simple,
    /// No move may recreate an earlier board position (Chinese, Tromp-Taylor, OGS).
    PositionalSuperko,
    /// No move may recreate an earlier position with the same player to move (AGA).
    SituationalSuperko,
}

/// How the result is counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// Stones plus surrounded points (Chinese, Tromp-Taylor, AGA, New Zealand).
    Area,
    /// Surrounded points plus prisoners (Japanese, Korean).
    Territory,
}

/// The largest komi taken from outside (`komi`, SGF `KM`, an analysis query, `tengen match
/// --komi`), either way: more than the 625 points of the largest board.
pub const MAX_KOMI: f64 = 1000.0;

/// `komi` when it is a finite number of at most [`MAX_KOMI`] points either way.
pub fn checked_komi(komi: f64) -> Option<f64> {
    (komi.is_finite() && komi.abs() <= MAX_KOMI).then_some(komi)
}

/// How many stones the opening of a game on a `size` board lasts: Pachi's
/// `board_earliest_pass`, size² / (7 - size / 5), 13 on 9x9 and 90 on 19x19. Before that a
/// player neither ends the game by passing nor resigns: a position there is rarely as clear
/// as a search's win rate makes it look.
pub fn opening_length(size: usize) -> usize {
    size * size / (7 - size / 5).max(1)
}

/// How many handicap stones White is compensated for, a point a stone, as KataGo's
/// `whiteHandicapBonus`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HandicapBonus {
    /// None.
    Zero,
    /// Every handicap stone.
    N,
    /// Every handicap stone but the first.
    NMinusOne,
}

impl HandicapBonus {
    /// White's points for `stones` handicap stones (none for fewer than two: a one-stone
    /// handicap places no stone).
    pub fn points(self, stones: usize) -> usize {
        match (self, stones) {
            (_, 0 | 1) | (HandicapBonus::Zero, _) => 0,
            (HandicapBonus::N, n) => n,
            (HandicapBonus::NMinusOne, n) => n - 1,
        }
    }
}

/// The rules a game is played under.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rules {
    /// Points given to White.
    pub komi: f64,
    /// The repetition rule.
    pub ko: KoRule,
    /// Whether a move that leaves its own string without liberties is allowed (and removes it).
    pub suicide_allowed: bool,
    /// Area or territory counting.
    pub scoring: Scoring,
}

impl Default for Rules {
    /// Chinese rules with komi 7.5: area scoring, positional superko, no suicide.
    fn default() -> Rules {
        Rules::chinese(7.5)
    }
}

impl Rules {
    /// Chinese: area scoring, positional superko, suicide illegal.
    pub fn chinese(komi: f64) -> Rules {
        Rules {
            komi,
            ko: KoRule::PositionalSuperko,
            suicide_allowed: false,
            scoring: Scoring::Area,
        }
    }

    /// White's compensation for handicap stones, as GNU Go, KGS and KataGo count it: under
    /// area scoring without suicide a point a stone (Chinese rules), but the first under
    /// situational superko (AGA); none under territory scoring (Japanese: the stones are
    /// Black's only advantage) or with suicide allowed (New Zealand, Tromp-Taylor).
    pub fn handicap_bonus(&self) -> HandicapBonus {
        match (self.scoring, self.suicide_allowed, self.ko) {
            (Scoring::Area, false, KoRule::SituationalSuperko) => HandicapBonus::NMinusOne,
            (Scoring::Area, false, _) => HandicapBonus::N,
            _ => HandicapBonus::Zero,
        }
    }

    /// Tromp-Taylor: area scoring, positional superko, suicide allowed.
    pub fn tromp_taylor(komi: f64) -> Rules {
        Rules {
            suicide_allowed: true,
            ..Rules::chinese(komi)
        }
    }

    /// Japanese: territory scoring, simple ko, suicide illegal.
    pub fn japanese(komi: f64) -> Rules {
        Rules {
            komi,
            ko: KoRule::Simple,
            suicide_allowed: false,
            scoring: Scoring::Territory,
        }
    }

    /// The name of these rules as an SGF record's `RU` gives it: `Chinese`, `AGA`,
    /// `Japanese`, `Tromp-Taylor` (any other mix: `Chinese` with its own ko or suicide rule is
    /// named after its scoring).
    pub fn name(&self) -> &'static str {
        match (self.scoring, self.ko, self.suicide_allowed) {
            (Scoring::Territory, _, _) => "Japanese",
            (Scoring::Area, _, true) => "Tromp-Taylor",
            (Scoring::Area, KoRule::SituationalSuperko, false) => "AGA",
            (Scoring::Area, _, false) => "Chinese",
        }
    }

    /// The rules a name gives, the komi kept: `kgs-rules`'s (`chinese`, `aga`, `japanese`,
    /// `new_zealand`) and KataGo's (`chinese-ogs`, `chinese-kgs`, `korean`, `bga`, `french`,
    /// `tromp-taylor`, `new-zealand`, `goe`, and the closest rule set tengen plays for
    /// `stone-scoring` and `aga-button`), in any case and with `-`, `_` or a space between
    /// words, as KataGo reads them. What each is played as: [`kata_rules::KataRules`].
    pub fn named(name: &str, komi: f64) -> Option<Rules> {
        let word: String = name
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .collect::<String>()
            .to_ascii_lowercase();
        match word.as_str() {
            "chinese" | "chineseogs" | "chinesekgs" | "stonescoring" | "ancientarea" => {
                Some(Rules::chinese(komi))
            }
            "aga" | "bga" | "french" | "agabutton" => Some(Rules {
                ko: KoRule::SituationalSuperko,
                ..Rules::chinese(komi)
            }),
            "japanese" | "korean" | "ancientterritory" => Some(Rules::japanese(komi)),
            "newzealand" | "nz" | "tromptaylor" | "goe" | "ing" => Some(Rules::tromp_taylor(komi)),
            _ => None,
        }
    }
}

/// Why a move is illegal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The point holds a stone.
    Occupied,
    /// Retakes a simple ko at once.
    Ko,
    /// Recreates an earlier position.
    Superko,
    /// Leaves its own string without liberties while suicide is forbidden.
    Suicide,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalMove::Occupied => "point is occupied",
            IllegalMove::Ko => "ko",
            IllegalMove::Superko => "superko",
            IllegalMove::Suicide => "suicide",
        })
    }
}

impl std::error::Error for IllegalMove {}

/// Why setup stones cannot be placed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// Moves have been played already.
    GameStarted,
    /// A stone would be placed on an occupied point, or twice.
    Occupied,
}

/// A game in progress.
#[derive(Clone)]
pub struct Game {
    rules: Rules,
    /// The position before the first move: empty, or with handicap / setup stones.
    initial: Board,
    /// Who moves first from `initial`.
    first_to_move: Color,
    /// Handicap stones placed by `set_handicap`.
    handicap: usize,
    moves: Vec<(Color, Move)>,
    board: Board,
    /// Every position so far (the initial one first) with the player to move in it.
    positions: Vec<(u64, Color)>,
}

impl Game {
    /// A new game on an empty board of `size` (must be in 2..=25).
    pub fn new(size: usize, rules: Rules) -> Game {
        assert!((MIN_SIZE..=MAX_SIZE).contains(&size));
        let board = Board::new(size);
        Game {
            rules,
            positions: vec![(board.hash(), Color::Black)],
            initial: board.clone(),
            first_to_move: Color::Black,
            handicap: 0,
            moves: Vec::new(),
            board,
        }
    }

    /// The board size.
    pub fn size(&self) -> usize {
        self.board.size()
    }

    /// The current position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Replaces the rules (ko, suicide, scoring and komi).
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    /// Sets the komi.
    pub fn set_komi(&mut self, komi: f64) {
        self.rules.komi = komi;
    }

    /// The position before the first move: handicap and setup stones only.
    pub fn initial_board(&self) -> &Board {
        &self.initial
    }

    /// The stones before the first move (handicap and setup stones), in point order.
    pub fn setup_stones(&self) -> Vec<(Point, Color)> {
        let initial = &self.initial;
        initial
            .points()
            .filter_map(|p| initial.color_at(p).map(|c| (p, c)))
            .collect()
    }

    /// The moves played, in order (handicap and setup stones are not moves).
    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }

    /// Number of handicap stones placed with [`Game::set_handicap`].
    pub fn handicap(&self) -> usize {
        self.handicap
    }

    /// What a count takes from Black's points: the komi and White's compensation for the
    /// handicap stones ([`Rules::handicap_bonus`]).
    pub fn scoring_komi(&self) -> f64 {
        self.rules.komi + self.rules.handicap_bonus().points(self.handicap) as f64
    }

    /// The player to move: the opponent of the last mover, or whoever moves first.
    pub fn to_move(&self) -> Color {
        self.moves
            .last()
            .map_or(self.first_to_move, |&(c, _)| c.opponent())
    }

    /// Sets who moves first (SGF `PL` before any move).
    pub fn set_first_to_move(&mut self, c: Color) {
        if self.moves.is_empty() {
            self.first_to_move = c;
            self.positions[0].1 = c;
        }
    }

    /// The number of passes at the end of the move list.
    pub fn trailing_passes(&self) -> usize {
        self.moves
            .iter()
            .rev()
            .take_while(|(_, m)| *m == Move::Pass)
            .count()
    }

    /// Whether the board holds no stone and no move was played.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty() && self.initial.empty_count() == self.size() * self.size()
    }

    /// Whether `c` may play `mv` now, and if not why.
    pub fn legality(&self, c: Color, mv: Move) -> Result<(), IllegalMove> {
        let Move::Play(p) = mv else { return Ok(()) };
        match self.board.legality(p, c) {
            Ok(()) => {}
            Err(BoardIllegal::Occupied) => return Err(IllegalMove::Occupied),
            Err(BoardIllegal::Ko) => return Err(IllegalMove::Ko),
            Err(BoardIllegal::Suicide) if !self.rules.suicide_allowed => {
                return Err(IllegalMove::Suicide);
            }
            Err(BoardIllegal::Suicide) => {}
        }
        let hash = self.board.hash_after(p, c);
        let repeats = match self.rules.ko {
            KoRule::Simple => false,
            KoRule::PositionalSuperko => self.positions.iter().any(|&(h, _)| h == hash),
            KoRule::SituationalSuperko => self
                .positions
                .iter()
                .any(|&(h, to_move)| h == hash && to_move == c.opponent()),
        };
        if repeats {
            Err(IllegalMove::Superko)
        } else {
            Ok(())
        }
    }

    /// Plays `mv` for `c` (either colour may move: GTP allows consecutive moves of one colour).
    /// An illegal move leaves the game unchanged.
    pub fn play(&mut self, c: Color, mv: Move) -> Result<(), IllegalMove> {
        self.legality(c, mv)?;
        self.apply(c, mv);
        self.moves.push((c, mv));
        Ok(())
    }

    fn apply(&mut self, c: Color, mv: Move) {
        match mv {
            Move::Play(p) => {
                self.board.play(p, c);
            }
            Move::Pass => self.board.pass(),
        }
        self.positions.push((self.board.hash(), c.opponent()));
    }

    /// Takes back the last move. Fails when no move was played.
    pub fn undo(&mut self) -> Result<(), CannotUndo> {
        self.moves.pop().ok_or(CannotUndo)?;
        let moves = std::mem::take(&mut self.moves);
        self.replay_from_initial(&moves);
        self.moves = moves;
        Ok(())
    }

    /// Rebuilds the board and the position list from `initial` and `moves`.
    fn replay_from_initial(&mut self, moves: &[(Color, Move)]) {
        self.board = self.initial.clone();
        self.positions.truncate(1);
        for &(c, mv) in moves {
            self.apply(c, mv);
        }
    }

    /// Places handicap stones for Black on an empty board; White moves next.
    pub fn set_handicap(&mut self, points: &[Point]) -> Result<(), SetupError> {
        let stones: Vec<(Point, Option<Color>)> =
            points.iter().map(|&p| (p, Some(Color::Black))).collect();
        self.setup(&stones)?;
        self.handicap = points.len();
        self.set_first_to_move(Color::White);
        Ok(())
    }

    /// Adds (or with `None` removes) setup stones before the first move (SGF `AB`/`AW`/`AE`).
    /// Strings left without liberties by the setup are removed.
    pub fn setup(&mut self, stones: &[(Point, Option<Color>)]) -> Result<(), SetupError> {
        if !self.moves.is_empty() {
            return Err(SetupError::GameStarted);
        }
        let mut layout = [None; MAX_CELLS];
        for p in self.initial.points() {
            layout[p.index()] = self.initial.color_at(p);
        }
        for &(p, c) in stones {
            if c.is_some() && layout[p.index()].is_some() {
                return Err(SetupError::Occupied);
            }
            layout[p.index()] = c;
        }
        let mut board = Board::new(self.size());
        for p in self.initial.points() {
            // A string left without liberties by the layout is captured as it is completed.
            if let Some(c) = layout[p.index()]
                && board.color_at(p).is_none()
            {
                board.play(p, c);
            }
        }
        board.pass();
        self.initial = board;
        self.replay_from_initial(&[]);
        Ok(())
    }
}

#[cfg(test)]
impl Game {
    /// A game whose initial position is drawn as rows, top row first: `X` Black, `O` White,
    /// anything else empty; spaces are ignored.
    pub(crate) fn from_rows(rows: &[&str], rules: Rules) -> Game {
        let size = rows.len();
        let mut game = Game::new(size, rules);
        let mut stones = Vec::new();
        for (r, line) in rows.iter().enumerate() {
            for (col, ch) in line.chars().filter(|c| !c.is_whitespace()).enumerate() {
                let c = match ch {
                    'X' => Some(Color::Black),
                    'O' => Some(Color::White),
                    _ => None,
                };
                if c.is_some() {
                    stones.push((Point::new(size, col, size - 1 - r), c));
                }
            }
        }
        game.setup(&stones).expect("a valid diagram");
        game
    }
}

/// `undo` with no move to take back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CannotUndo;

#[cfg(test)]
mod tests;
