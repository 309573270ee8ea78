//! Loading a game from SGF, as GNU Go's GTP `loadsgf FILE [N]` does.
//!
//! The main line of the first game of the collection is played: at every branch the first
//! variation. The root gives the board size (`SZ`, 19 when missing, square boards of 2 to 25
//! only), the komi (`KM`; when missing 5.5, or 0.5 in a handicap game, as GNU Go has it) and
//! the handicap (`HA`, informational: with two stones or more White moves first unless `PL`
//! says otherwise). Setup stones (`AB`, `AW`, `AE`) may sit in any node before the first move,
//! `PL` names the player to move, and `B`/`W` are the moves (`B[]`, and `B[tt]` on boards up to
//! 19x19, are passes); every move must be legal under the rules given.

use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use sgf_parse::go::{self, Prop};
use sgf_parse::{SgfNode, SgfParseError};

use crate::board::{Color, MAX_SIZE, MIN_SIZE, Move, Point};
use crate::game::{self, Game, Rules, SetupError};

/// The board size when the root has no `SZ`.
const DEFAULT_SIZE: usize = 19;
/// GNU Go's komi when the root has no `KM` and no handicap.
const DEFAULT_KOMI: f64 = 5.5;
/// GNU Go's komi when the root has no `KM` but a handicap.
const HANDICAP_KOMI: f64 = 0.5;
/// The most nodes on one path from the root that are read: sgf-parse builds and drops game
/// trees recursively, and a much deeper tree would overflow the stack.
const MAX_DEPTH: usize = 5000;

/// Why an SGF file or text cannot be loaded.
#[derive(Debug)]
pub enum SgfError {
    /// The file cannot be read.
    Io(std::io::Error),
    /// The text is not an SGF collection of Go games (or is an empty one).
    Parse(SgfParseError),
    /// The game tree is deeper than this loader reads.
    TooDeep,
    /// `SZ` names a board that is not square or not from 2x2 to 25x25 (columns, rows).
    UnsupportedSize(u8, u8),
    /// A property this loader uses has a value it cannot read (the property as written).
    BadProperty(String),
    /// A move or setup point lies off the board (the property, the board size).
    OffBoard(String, usize),
    /// One node sets up a point more than once (`AB`, `AW` and `AE` together).
    SetupConflict,
    /// Setup stones come after this many moves.
    SetupAfterMoves(usize),
    /// One node holds more than one move.
    MultipleMoves,
    /// The move number to stop before is 0 (moves are numbered from 1).
    BadMoveNumber,
    /// A move of the main line is illegal under the rules.
    IllegalMove {
        /// Its number, from 1.
        number: usize,
        /// Who played it.
        color: Color,
        /// The move as a GTP vertex.
        vertex: String,
        /// Why it is illegal.
        reason: game::IllegalMove,
    },
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SgfError::Io(e) => write!(f, "cannot read the file: {e}"),
            SgfError::Parse(e) => write!(f, "not an SGF collection of Go games: {e}"),
            SgfError::TooDeep => write!(f, "the game tree is more than {MAX_DEPTH} nodes deep"),
            SgfError::UnsupportedSize(cols, rows) => write!(
                f,
                "unsupported board size {cols}x{rows} (square boards from {MIN_SIZE} to {MAX_SIZE})"
            ),
            SgfError::BadProperty(prop) => write!(f, "cannot read the property {prop}"),
            SgfError::OffBoard(prop, size) => write!(f, "{prop} is off the {size}x{size} board"),
            SgfError::SetupConflict => write!(f, "a node sets up the same point twice"),
            SgfError::SetupAfterMoves(n) => write!(f, "stones are set up after move {n}"),
            SgfError::MultipleMoves => write!(f, "a node holds more than one move"),
            SgfError::BadMoveNumber => write!(f, "move numbers start at 1"),
            SgfError::IllegalMove {
                number,
                color,
                vertex,
                reason,
            } => write!(f, "move {number} ({color} {vertex}) is illegal: {reason}"),
        }
    }
}

impl std::error::Error for SgfError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SgfError::Io(e) => Some(e),
            SgfError::Parse(e) => Some(e),
            SgfError::IllegalMove { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

/// Loads the game in the SGF file at `path`: see [`load_game`]. Bytes that are not UTF-8 (a
/// comment in another encoding) are replaced, not refused.
pub fn load_file(path: &Path, move_number: Option<usize>, rules: Rules) -> Result<Game, SgfError> {
    let bytes = std::fs::read(path).map_err(SgfError::Io)?;
    load_game(&String::from_utf8_lossy(&bytes), move_number, rules)
}

/// Loads the first game of the SGF collection `text`, as GNU Go's `loadsgf` does: its main line
/// is played under `rules`, whose komi is replaced by the file's (see the module doc). With
/// `move_number` N the game stops before move N (moves are numbered from 1, passes included;
/// setup stones are not moves); a number past the end loads the whole line.
///
/// The player to move is the one after the last move played. Before any move it is the one
/// named by `PL`, or the player of move N when the load stops before it, or White in a handicap
/// game; once moves are played `Game` cannot name a player other than the last mover's opponent,
/// so a `PL` after the last move, or a move N by the same player as move N-1, is not reflected.
pub fn load_game(text: &str, move_number: Option<usize>, rules: Rules) -> Result<Game, SgfError> {
    if move_number == Some(0) {
        return Err(SgfError::BadMoveNumber);
    }
    // Text before the first `(` (a byte-order mark, a mail header) is no part of the collection.
    let text = text.find('(').map_or("", |start| &text[start..]);
    if deepest_path(text) > MAX_DEPTH {
        return Err(SgfError::TooDeep);
    }
    let collection = go::parse(text).map_err(SgfError::Parse)?;
    let root = collection
        .first()
        .ok_or(SgfError::Parse(SgfParseError::NoGameTrees))?;
    replay(root, move_number, rules)
}

/// Plays the main line from `root`, stopping before move `stop_before` if it is reached.
fn replay(
    root: &SgfNode<Prop>,
    stop_before: Option<usize>,
    rules: Rules,
) -> Result<Game, SgfError> {
    let size = board_size(root)?;
    let handicap = handicap(root);
    let komi = komi(root, handicap)?;
    let mut game = Game::new(size, Rules { komi, ..rules });
    let mut next = if handicap >= 2 {
        Color::White
    } else {
        Color::Black
    };
    for node in root.main_variation() {
        let content = NodeContent::read(node, size)?;
        if !content.setup.is_empty() {
            let played = game.moves().len();
            game.setup(&content.setup).map_err(|e| match e {
                SetupError::GameStarted => SgfError::SetupAfterMoves(played),
                SetupError::Occupied => SgfError::SetupConflict,
            })?;
        }
        if let Some(c) = content.player {
            next = c;
        }
        if let Some((c, mv)) = content.mv {
            let number = game.moves().len() + 1;
            if stop_before == Some(number) {
                next = c;
                break;
            }
            game.play(c, mv).map_err(|reason| SgfError::IllegalMove {
                number,
                color: c,
                vertex: mv.to_vertex(size),
                reason,
            })?;
            next = c.opponent();
        }
    }
    // Only takes effect when no move was played.
    game.set_first_to_move(next);
    Ok(game)
}

/// What one node does to the game.
#[derive(Default)]
struct NodeContent {
    /// Setup in `Game::setup`'s form: a stone added over an existing one first clears it.
    setup: Vec<(Point, Option<Color>)>,
    /// The player to move named by `PL`.
    player: Option<Color>,
    /// The move.
    mv: Option<(Color, Move)>,
}

impl NodeContent {
    fn read(node: &SgfNode<Prop>, size: usize) -> Result<NodeContent, SgfError> {
        let mut content = NodeContent::default();
        let mut set_up = HashSet::new();
        for prop in node.properties() {
            match prop {
                Prop::AB(points) => {
                    content.add_setup("AB", points, Some(Color::Black), size, &mut set_up)?
                }
                Prop::AW(points) => {
                    content.add_setup("AW", points, Some(Color::White), size, &mut set_up)?
                }
                Prop::AE(points) => content.add_setup("AE", points, None, size, &mut set_up)?,
                Prop::PL(c) => {
                    content.player = Some(match c {
                        sgf_parse::Color::Black => Color::Black,
                        sgf_parse::Color::White => Color::White,
                    })
                }
                Prop::B(m) => content.set_move(Color::Black, m, size)?,
                Prop::W(m) => content.set_move(Color::White, m, size)?,
                Prop::Invalid(id, values) => match id.as_str() {
                    "PL" => content.player = Some(player_from_text(prop, values)?),
                    "B" | "W" | "AB" | "AW" | "AE" => return Err(bad_property(prop)),
                    _ => {}
                },
                _ => {}
            }
        }
        Ok(content)
    }

    /// Adds the setup of one `AB`/`AW`/`AE` property (`id`) putting `color` on `points`.
    fn add_setup(
        &mut self,
        id: &str,
        points: &HashSet<go::Point>,
        color: Option<Color>,
        size: usize,
        set_up: &mut HashSet<go::Point>,
    ) -> Result<(), SgfError> {
        for &p in points {
            if !set_up.insert(p) {
                return Err(SgfError::SetupConflict);
            }
            let point =
                board_point(p, size).ok_or_else(|| SgfError::OffBoard(property(id, p), size))?;
            self.setup.push((point, None));
            if color.is_some() {
                self.setup.push((point, color));
            }
        }
        Ok(())
    }

    fn set_move(&mut self, c: Color, m: &go::Move, size: usize) -> Result<(), SgfError> {
        if self.mv.is_some() {
            return Err(SgfError::MultipleMoves);
        }
        let mv = match *m {
            go::Move::Pass => Move::Pass,
            // FF[3] writes a pass as `tt` where that is off the board.
            go::Move::Move(go::Point { x: 19, y: 19 }) if size <= 19 => Move::Pass,
            go::Move::Move(p) => {
                let off_board = || SgfError::OffBoard(property(&c.letter().to_string(), p), size);
                Move::Play(board_point(p, size).ok_or_else(off_board)?)
            }
        };
        self.mv = Some((c, mv));
        Ok(())
    }
}

/// The board point of an SGF point (counted from the top left), if it is on the board.
fn board_point(p: go::Point, size: usize) -> Option<Point> {
    let (col, row_from_top) = (usize::from(p.x), usize::from(p.y));
    (col < size && row_from_top < size).then(|| Point::new(size, col, size - 1 - row_from_top))
}

/// A property with one point, as SGF writes it (`B[jj]`).
fn property(id: &str, p: go::Point) -> String {
    let letter = |v: u8| match v {
        0..26 => char::from(b'a' + v),
        26..52 => char::from(b'A' + (v - 26)),
        _ => '?',
    };
    format!("{id}[{}{}]", letter(p.x), letter(p.y))
}

/// The error for a property whose value cannot be read.
fn bad_property(prop: &Prop) -> SgfError {
    SgfError::BadProperty(prop.to_string())
}

/// A `PL` value sgf-parse does not read: any case of `b`, `black`, `w`, `white`, or FF[3]'s
/// `1` (Black) and `2` (White).
fn player_from_text(prop: &Prop, values: &[String]) -> Result<Color, SgfError> {
    match values {
        [v] => match v.trim() {
            "1" => Ok(Color::Black),
            "2" => Ok(Color::White),
            t => t.parse().map_err(|_| bad_property(prop)),
        },
        _ => Err(bad_property(prop)),
    }
}

/// The root's `SZ`.
fn board_size(root: &SgfNode<Prop>) -> Result<usize, SgfError> {
    match root.get_property("SZ") {
        None => Ok(DEFAULT_SIZE),
        Some(&Prop::SZ((cols, rows))) => {
            let size = usize::from(cols);
            if cols == rows && (MIN_SIZE..=MAX_SIZE).contains(&size) {
                Ok(size)
            } else {
                Err(SgfError::UnsupportedSize(cols, rows))
            }
        }
        Some(prop) => Err(bad_property(prop)),
    }
}

/// The root's `HA`, 0 when missing or unreadable (it is informational).
fn handicap(root: &SgfNode<Prop>) -> i64 {
    match root.get_property("HA") {
        Some(&Prop::HA(n)) => n,
        // sgf-parse refuses HA[0] and HA[1], and values with spaces.
        Some(Prop::Invalid(_, values)) => match values.as_slice() {
            [v] => v.trim().parse().unwrap_or(0),
            _ => 0,
        },
        _ => 0,
    }
}

/// The root's `KM`, or GNU Go's default for the `handicap`. An empty `KM[]` counts as missing.
fn komi(root: &SgfNode<Prop>, handicap: i64) -> Result<f64, SgfError> {
    let komi = match root.get_property("KM") {
        Some(&Prop::KM(k)) => Some(k),
        Some(prop @ Prop::Invalid(_, values)) => match values.as_slice() {
            [v] if v.trim().is_empty() => None,
            [v] => Some(v.trim().parse().map_err(|_| bad_property(prop))?),
            _ => return Err(bad_property(prop)),
        },
        _ => None,
    };
    match komi {
        Some(k) if k.is_finite() => Ok(k),
        Some(k) => Err(SgfError::BadProperty(format!("KM[{k}]"))),
        None if handicap > 0 => Ok(HANDICAP_KOMI),
        None => Ok(DEFAULT_KOMI),
    }
}

/// The most nodes on one path from a root of the trees sgf-parse would build from `text`
/// (tokenizing as its lexer does: a property name runs to its `[`, values honour `\` escapes).
fn deepest_path(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut deepest, mut i) = (0, 0, 0);
    let mut open = Vec::new();
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'(' => open.push(depth),
            b')' => depth = open.pop().unwrap_or(0),
            b';' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b if b.is_ascii_whitespace() => {}
            _ => {
                // A property: its name runs to the first `[`, then come its values.
                i -= 1;
                while bytes.get(i).is_some_and(|&b| b != b'[') {
                    i += 1;
                }
                while bytes.get(i) == Some(&b'[') {
                    i += 1;
                    let mut escaped = false;
                    while let Some(&b) = bytes.get(i) {
                        i += 1;
                        match b {
                            b']' if !escaped => break,
                            b'\\' if !escaped => escaped = true,
                            _ => escaped = false,
                        }
                    }
                    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                        i += 1;
                    }
                }
            }
        }
    }
    deepest
}
