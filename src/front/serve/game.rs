//! One game as the server holds it: the library's [`Game`] (rules, superko, captures) plus
//! who plays which colour, the level and how the game ended; its JSON state; and the checks
//! on a new game's settings.

use serde::{Deserialize, Serialize};

use super::store::{Ending, StoredGame};
use crate::rules::board::{Board, Color, Move, Point};
use crate::rules::game::{Game, Rules, fixed_handicap_points, max_fixed_handicap};

/// Board sizes the server plays (the library's range).
pub const SIZES: std::ops::RangeInclusive<usize> = 2..=25;

/// The longest komi the server accepts, either way.
pub const MAX_KOMI: f64 = 1000.0;

/// The longest a client id may be, in bytes.
pub const MAX_CLIENT_LEN: usize = 128;

/// A request the server refuses: its status (400 malformed or out of range, 409 out of turn,
/// 422 against the rules), the field at fault and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: u16,
    /// The request field at fault (`moves[3]`), if one is.
    pub field: Option<String>,
    /// What is wrong, for a person to read.
    pub message: String,
}

impl Refusal {
    /// A 400 about `field`.
    pub fn bad(field: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            status: 400,
            field: Some(field.to_string()),
            message: message.into(),
        }
    }

    /// A 422 (the rules forbid it) about `field`.
    pub fn illegal(field: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            status: 422,
            field: Some(field.to_string()),
            message: message.into(),
        }
    }
}

/// The body of `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// Who opens the game (the per-client limit counts by it).
    pub client: String,
    /// Board size, 2 to 25.
    pub size: usize,
    /// The AI's level, one of the config's.
    pub level: String,
    /// The client's colour, `B` or `W`; the AI plays the other.
    pub color: String,
    /// Komi; default 7.5, or 0.5 with handicap.
    pub komi: Option<f64>,
    /// Handicap stones for Black on the fixed points: 0, or 2 to 9 (4 on even sizes).
    pub handicap: Option<usize>,
    /// The moves of a game to restore, as the state lists them.
    pub moves: Option<Vec<String>>,
    /// The client's id for this request (1 to 128 printable bytes): the same request sent
    /// again returns the game it created.
    pub request_id: Option<String>,
}

/// A game held by the server.
#[derive(Clone)]
pub struct ServedGame {
    /// The key.
    pub key: String,
    /// Who opened it.
    pub client: String,
    /// The AI's level.
    pub level: String,
    /// The client's colour.
    pub human: Color,
    /// Board, rules and moves.
    pub game: Game,
    /// How it ended, once it has.
    pub ending: Option<Ending>,
    /// The client's id of the request that created it.
    pub request_id: Option<String>,
    /// The `number` of the last undo (the next move's number when it was asked).
    pub undone_from: Option<usize>,
    /// The store's version of the game this copy is ([`StoredGame::version`]).
    pub version: u64,
}

/// The game's state as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct State {
    /// The key: the capability to play this game.
    pub key: String,
    /// Who opened the game.
    pub client: String,
    /// The AI's level.
    pub level: String,
    /// Board size.
    pub size: usize,
    /// The client's colour.
    pub color: char,
    /// The AI's colour.
    pub ai_color: char,
    /// Komi.
    pub komi: f64,
    /// Handicap stones.
    pub handicap: usize,
    /// Where they stand.
    pub handicap_stones: Vec<String>,
    /// Every move so far, in order: vertices or `pass` (handicap stones are not moves).
    pub moves: Vec<String>,
    /// The number the next move will have (moves so far + 1).
    pub number: usize,
    /// Whose turn it is, `B` or `W` (also after the end).
    pub to_move: char,
    /// Whether the client moves next (false once the game is over).
    pub your_turn: bool,
    /// The board, top row first: `.` empty, `X` Black, `O` White, one string per row.
    pub board: Vec<String>,
    /// Stones captured so far by each colour.
    pub captures: Captures,
    /// The last move, if any.
    pub last_move: Option<String>,
    /// Whether the game is over.
    pub over: bool,
    /// `B+R`, `W+3.5`, `0` once over.
    pub result: Option<String>,
    /// The stones counted dead at the end.
    pub dead: Vec<String>,
    /// The most moves this game may have before it is scored as it stands.
    pub max_moves: usize,
    /// The AI's answer in this response (`D4`, `pass`, `resign`), when it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
}

/// Stones captured by Black (`B`) and by White (`W`).
#[derive(Debug, Clone, Serialize)]
pub struct Captures {
    #[serde(rename = "B")]
    black: u32,
    #[serde(rename = "W")]
    white: u32,
}

/// A move as the API writes it: `D4`, or `pass` in lower case as clients send it (GTP's
/// [`Move::to_vertex`] writes `PASS`).
pub fn move_text(mv: Move, size: usize) -> String {
    match mv {
        Move::Play(p) => p.to_vertex(size),
        Move::Pass => "pass".to_string(),
    }
}

/// `board` as the API shows it: top row first, `.` empty, `X` Black, `O` White.
pub fn board_rows(board: &Board) -> Vec<String> {
    let size = board.size();
    (0..size)
        .rev()
        .map(|row| {
            (0..size)
                .map(|col| match board.color_at(Point::new(size, col, row)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                })
                .collect()
        })
        .collect()
}

/// The most moves a game on `size` may have: four times the points (a game past that has
/// long stopped being Go), after which it is scored as it stands.
pub fn max_moves(size: usize) -> usize {
    4 * size * size
}

impl ServedGame {
    /// A game as `request` asks (with its moves replayed), checked against `levels`.
    pub fn create(key: String, request: NewGame, levels: &[String]) -> Result<Self, Refusal> {
        let client = request.client;
        let printable = |text: &str| {
            !text.is_empty() && text.len() <= MAX_CLIENT_LEN && !text.chars().any(char::is_control)
        };
        if !printable(&client) {
            return Err(Refusal::bad(
                "client",
                format!("wants 1 to {MAX_CLIENT_LEN} bytes of printable text"),
            ));
        }
        if request
            .request_id
            .as_deref()
            .is_some_and(|id| !printable(id))
        {
            return Err(Refusal::bad(
                "request_id",
                format!("wants 1 to {MAX_CLIENT_LEN} bytes of printable text"),
            ));
        }
        if !SIZES.contains(&request.size) {
            return Err(Refusal::bad(
                "size",
                format!("{} is not a board size from 2 to 25", request.size),
            ));
        }
        if !levels.contains(&request.level) {
            return Err(Refusal::bad(
                "level",
                format!(
                    "no level named `{}` (levels: {})",
                    request.level.chars().take(40).collect::<String>(),
                    levels.join(", ")
                ),
            ));
        }
        let human = match request.color.as_str() {
            "B" | "b" => Color::Black,
            "W" | "w" => Color::White,
            _ => {
                return Err(Refusal::bad(
                    "color",
                    "wants \"B\" or \"W\" (the client's colour)",
                ));
            }
        };
        let size = request.size;
        let handicap = request.handicap.unwrap_or(0);
        let max = max_fixed_handicap(size);
        if handicap == 1 || handicap > max {
            return Err(Refusal::bad(
                "handicap",
                if max == 0 {
                    format!("a {size}x{size} board takes no handicap stones")
                } else {
                    format!("wants 0, or 2 to {max} stones on {size}x{size}")
                },
            ));
        }
        let komi = request.komi.unwrap_or(if handicap > 0 { 0.5 } else { 7.5 });
        if !(komi.abs() <= MAX_KOMI && (komi * 2.0).fract() == 0.0) {
            return Err(Refusal::bad(
                "komi",
                format!("wants a multiple of 0.5 from -{MAX_KOMI} to {MAX_KOMI}"),
            ));
        }
        let mut game = Game::new(size, Rules::chinese(komi));
        if handicap > 0 {
            let points = fixed_handicap_points(size, handicap)
                .map_err(|e| Refusal::bad("handicap", e.to_string()))?;
            game.set_handicap(&points)
                .map_err(|_| Refusal::bad("handicap", "cannot be placed"))?;
        }
        let mut served = ServedGame {
            key,
            client,
            level: request.level,
            human,
            game,
            ending: None,
            request_id: request.request_id,
            undone_from: None,
            version: 0,
        };
        let moves = request.moves.unwrap_or_default();
        if moves.len() > max_moves(size) {
            return Err(Refusal::bad(
                "moves",
                format!(
                    "{} moves: a {size}x{size} game has at most {}",
                    moves.len(),
                    max_moves(size)
                ),
            ));
        }
        for (i, text) in moves.iter().enumerate() {
            let field = format!("moves[{i}]");
            if served.game_over_by_passes() {
                return Err(Refusal::illegal(
                    &field,
                    "the game ended with two passes before this move",
                ));
            }
            let mv = Move::parse(text, size).map_err(|e| {
                Refusal::bad(
                    &field,
                    format!("{e}: `{}`", text.chars().take(10).collect::<String>()),
                )
            })?;
            let color = served.game.to_move();
            served.game.play(color, mv).map_err(|e| {
                Refusal::illegal(&field, format!("{text} for {}: {e}", color.letter()))
            })?;
        }
        Ok(served)
    }

    /// The game `stored` holds, its moves replayed.
    pub fn from_stored(stored: &StoredGame, levels: &[String]) -> Result<Self, Refusal> {
        let request = NewGame {
            client: stored.client.clone(),
            size: stored.size,
            level: stored.level.clone(),
            color: stored.color.to_string(),
            komi: Some(stored.komi),
            handicap: Some(stored.handicap),
            moves: Some(stored.moves.clone()),
            request_id: stored.request_id.clone(),
        };
        let mut served = ServedGame::create(stored.key.clone(), request, levels)?;
        served.ending = stored.ending.clone();
        served.undone_from = stored.undone_from;
        served.version = stored.version;
        Ok(served)
    }

    /// What the store keeps of this game.
    pub fn to_stored(&self, now: u64) -> StoredGame {
        StoredGame {
            key: self.key.clone(),
            client: self.client.clone(),
            size: self.game.size(),
            level: self.level.clone(),
            color: self.human.letter(),
            komi: self.game.rules().komi,
            handicap: self.game.handicap(),
            moves: self.move_texts(0),
            ending: self.ending.clone(),
            last_active: now,
            request_id: self.request_id.clone(),
            undone_from: self.undone_from,
            version: self.version,
        }
    }

    /// Whether `request` asks for this game's settings (a resent creation): size, colour,
    /// komi and handicap.
    pub fn has_settings_of(&self, request: &ServedGame) -> bool {
        self.game.size() == request.game.size()
            && self.human == request.human
            && self.game.rules().komi == request.game.rules().komi
            && self.game.handicap() == request.game.handicap()
    }

    /// Whether the AI resigned this game.
    pub fn ai_resigned(&self) -> bool {
        self.ending
            .as_ref()
            .is_some_and(|e| *e == Self::resignation(self.human.opponent()))
    }

    /// Whether the client resigned this game.
    pub fn client_resigned(&self) -> bool {
        self.ending
            .as_ref()
            .is_some_and(|e| *e == Self::resignation(self.human))
    }

    /// The moves from index `from` on, as text.
    pub fn move_texts(&self, from: usize) -> Vec<String> {
        let size = self.game.size();
        self.game.moves()[from..]
            .iter()
            .map(|&(_, mv)| move_text(mv, size))
            .collect()
    }

    /// The number the next move will have.
    pub fn next_number(&self) -> usize {
        self.game.moves().len() + 1
    }

    /// Whether the game is over.
    pub fn over(&self) -> bool {
        self.ending.is_some()
    }

    /// Whether the last two moves were passes.
    fn game_over_by_passes(&self) -> bool {
        self.game.trailing_passes() >= 2
    }

    /// Whether the game has ended on the board (two passes, or the move limit) and wants
    /// scoring.
    pub fn needs_scoring(&self) -> bool {
        self.ending.is_none()
            && (self.game_over_by_passes()
                || self.game.moves().len() >= max_moves(self.game.size()))
    }

    /// Whether the AI moves next.
    pub fn ai_to_move(&self) -> bool {
        !self.over() && self.game.to_move() != self.human
    }

    /// The ending of a resignation by `loser`.
    pub fn resignation(loser: Color) -> Ending {
        Ending {
            result: format!("{}+R", loser.opponent().letter()),
            dead: Vec::new(),
        }
    }

    /// The state the API shows.
    pub fn state(&self) -> State {
        let game = &self.game;
        let board = game.board();
        let size = game.size();
        let rows = board_rows(board);
        let initial = game.initial_board();
        let handicap_stones = if game.handicap() > 0 {
            initial
                .points()
                .filter(|&p| initial.color_at(p) == Some(Color::Black))
                .map(|p| p.to_vertex(size))
                .collect()
        } else {
            Vec::new()
        };
        State {
            key: self.key.clone(),
            client: self.client.clone(),
            level: self.level.clone(),
            size,
            color: self.human.letter(),
            ai_color: self.human.opponent().letter(),
            komi: game.rules().komi,
            handicap: game.handicap(),
            handicap_stones,
            moves: self.move_texts(0),
            number: self.next_number(),
            to_move: game.to_move().letter(),
            your_turn: !self.over() && game.to_move() == self.human,
            board: rows,
            captures: Captures {
                black: board.captures(Color::Black),
                white: board.captures(Color::White),
            },
            last_move: game.moves().last().map(|&(_, mv)| move_text(mv, size)),
            over: self.over(),
            result: self.ending.as_ref().map(|e| e.result.clone()),
            dead: self.ending.as_ref().map_or(Vec::new(), |e| e.dead.clone()),
            max_moves: max_moves(size),
            reply: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(moves: &[&str]) -> NewGame {
        NewGame {
            client: "c".to_string(),
            size: 9,
            level: "easy".to_string(),
            color: "B".to_string(),
            komi: None,
            handicap: None,
            moves: Some(moves.iter().map(|m| m.to_string()).collect()),
            request_id: None,
        }
    }

    fn levels() -> Vec<String> {
        vec!["easy".to_string()]
    }

    #[test]
    fn a_restored_game_shows_its_moves_board_and_turn() {
        let game =
            ServedGame::create("k".into(), request(&["e5", "D4", "pass"]), &levels()).unwrap();
        let state = game.state();
        assert_eq!(state.moves, ["E5", "D4", "pass"]);
        assert_eq!(state.number, 4);
        assert_eq!(state.to_move, 'W');
        assert!(!state.your_turn);
        assert_eq!(state.board[4], "....X....");
        assert_eq!(state.board[5], "...O.....");
        assert_eq!(state.komi, 7.5);
    }

    #[test]
    fn bad_settings_name_their_field() {
        let field = |r: NewGame| {
            ServedGame::create("k".into(), r, &levels())
                .err()
                .unwrap()
                .field
                .unwrap()
        };
        assert_eq!(
            field(NewGame {
                size: 26,
                ..request(&[])
            }),
            "size"
        );
        assert_eq!(
            field(NewGame {
                level: "x".into(),
                ..request(&[])
            }),
            "level"
        );
        assert_eq!(
            field(NewGame {
                color: "red".into(),
                ..request(&[])
            }),
            "color"
        );
        assert_eq!(
            field(NewGame {
                komi: Some(0.3),
                ..request(&[])
            }),
            "komi"
        );
        assert_eq!(
            field(NewGame {
                komi: Some(f64::NAN),
                ..request(&[])
            }),
            "komi"
        );
        assert_eq!(
            field(NewGame {
                handicap: Some(1),
                ..request(&[])
            }),
            "handicap"
        );
        assert_eq!(
            field(NewGame {
                handicap: Some(10),
                ..request(&[])
            }),
            "handicap"
        );
        assert_eq!(
            field(NewGame {
                client: String::new(),
                ..request(&[])
            }),
            "client"
        );
        assert_eq!(field(request(&["E5", "E5"])), "moves[1]");
        assert_eq!(field(request(&["Z5"])), "moves[0]");
        assert_eq!(field(request(&["pass", "pass", "E5"])), "moves[2]");
        let illegal = ServedGame::create("k".into(), request(&["E5", "E5"]), &levels())
            .err()
            .unwrap();
        assert_eq!(illegal.status, 422);
    }

    #[test]
    fn handicap_gives_white_the_first_move_and_half_a_point() {
        let game = ServedGame::create(
            "k".into(),
            NewGame {
                handicap: Some(2),
                ..request(&[])
            },
            &levels(),
        )
        .unwrap();
        let state = game.state();
        assert_eq!(state.handicap_stones.len(), 2);
        assert_eq!(state.to_move, 'W');
        assert_eq!(state.komi, 0.5);
    }
}
