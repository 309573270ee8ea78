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
use std::io::Read;
use std::path::Path;

use sgf_parse::go::{self, Prop};
use sgf_parse::{SgfNode, SgfParseError};

use crate::rules::board::{Color, MAX_SIZE, MIN_SIZE, Move, Point};
use crate::rules::game::{self, Game, Rules, SetupError};

/// The board size when the root has no `SZ`.
const DEFAULT_SIZE: usize = 19;
/// GNU Go's komi when the root has no `KM` and no handicap.
const DEFAULT_KOMI: f64 = 5.5;
/// GNU Go's komi when the root has no `KM` but a handicap.
const HANDICAP_KOMI: f64 = 0.5;
/// The most nodes on one path from the root that are read: sgf-parse builds and drops game
/// trees recursively, and a much deeper tree would overflow the stack.
const MAX_DEPTH: usize = 5000;
/// The largest SGF file read: 4 MiB, ample for a game with thousands of commented variations.
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// The most nodes read, in all the collection's trees.
const MAX_NODES: usize = 100_000;
/// The most game trees and variations read.
const MAX_VARIATIONS: usize = 10_000;
/// The longest property value read (a comment), in bytes.
const MAX_VALUE_BYTES: usize = 256 << 10;

/// Why an SGF file or text cannot be loaded.
#[derive(Debug)]
pub enum SgfError {
    /// The file cannot be read.
    Io(std::io::Error),
    /// The text is not an SGF collection of Go games (or is an empty one).
    Parse(SgfParseError),
    /// The path is no regular file (a directory, a FIFO, a device).
    NotAFile,
    /// The game tree is deeper than this loader reads.
    TooDeep,
    /// The file or its trees are larger than this loader reads: more than the bound of what.
    TooLarge(usize, &'static str),
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
            SgfError::NotAFile => write!(f, "not a regular file"),
            SgfError::TooDeep => write!(f, "the game tree is more than {MAX_DEPTH} nodes deep"),
            SgfError::TooLarge(max, what) => write!(f, "more than {max} {what}"),
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

/// Loads the game in the SGF file at `path`: see [`read_file`] and [`load_game`].
pub fn load_file(path: &Path, move_number: Option<usize>, rules: Rules) -> Result<Game, SgfError> {
    load_game(&read_file(path)?, move_number, rules)
}

/// The text of the SGF file at `path`: a regular file of at most [`MAX_FILE_BYTES`], checked on
/// the file opened (so a path swapped for a FIFO after a look cannot block: on Unix it is
/// opened without blocking). Bytes that are not UTF-8 (a comment in another encoding) are
/// replaced, not refused.
pub fn read_file(path: &Path) -> Result<String, SgfError> {
    let too_large = SgfError::TooLarge(MAX_FILE_BYTES, "bytes");
    let file = open_without_blocking(path).map_err(SgfError::Io)?;
    let metadata = file.metadata().map_err(SgfError::Io)?;
    if !metadata.is_file() {
        return Err(SgfError::NotAFile);
    }
    if metadata.len() > MAX_FILE_BYTES as u64 {
        return Err(too_large);
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(SgfError::Io)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `path` opened for reading; on Unix with `O_NONBLOCK`, so that opening a FIFO with no writer
/// returns at once (a regular file reads the same either way).
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    #[cfg(not(unix))]
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    options.open(path)
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
    replay(&first_game(text)?, move_number, rules)
}

/// The root of the first game of the SGF collection `text`.
fn first_game(text: &str) -> Result<SgfNode<Prop>, SgfError> {
    parse(text)?
        .into_iter()
        .next()
        .ok_or(SgfError::Parse(SgfParseError::NoGameTrees))
}

/// A whole game record: where it starts, its moves and its root comment (training data for
/// move patterns, which replays the game move by move).
pub struct Record {
    /// The position before the first move (setup and handicap stones placed, the first player set).
    pub start: Game,
    /// The main line's moves, in order.
    pub moves: Vec<(Color, Move)>,
    /// The root node's comment (`C`), if any.
    pub comment: Option<String>,
}

/// Loads the first game of the SGF collection `text` as a [`Record`]; the moves are checked as
/// [`load_game`] checks them.
pub fn load_record(text: &str, rules: Rules) -> Result<Record, SgfError> {
    let root = first_game(text)?;
    let comment = match root.get_property("C") {
        Some(Prop::C(text)) => Some(text.to_string()),
        _ => None,
    };
    let moves = replay(&root, None, rules)?.moves().to_vec();
    let start = replay(&root, Some(1), rules)?;
    Ok(Record {
        start,
        moves,
        comment,
    })
}

/// The black stones of a root's `setup` when they are exactly the `handicap` its `HA` names
/// and no white stone is set up beside them. (`setup` clears each point before placing a
/// stone on it, so only white stones count against a handicap root.)
fn handicap_stones(setup: &[(Point, Option<Color>)], handicap: i64) -> Option<Vec<Point>> {
    if setup.iter().any(|&(_, c)| c == Some(Color::White)) {
        return None;
    }
    let stones: Vec<Point> = setup
        .iter()
        .filter_map(|&(p, c)| (c == Some(Color::Black)).then_some(p))
        .collect();
    (stones.len() as i64 == handicap).then_some(stones)
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
    for (depth, node) in root.main_variation().enumerate() {
        let content = NodeContent::read(node, size)?;
        let root_handicap = if depth == 0 && handicap >= 2 {
            handicap_stones(&content.setup, handicap)
        } else {
            None
        };
        if let Some(stones) = root_handicap {
            // The root's black stones are the handicap (HA says how many): the game knows
            // it is a handicap game, as after `fixed_handicap`.
            game.set_handicap(&stones)
                .map_err(|_| SgfError::SetupConflict)?;
        } else if !content.setup.is_empty() {
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
        Some(k) if game::checked_komi(k).is_some() => Ok(k),
        Some(k) => Err(SgfError::BadProperty(format!(
            "KM[{k:?}] (komi is at most {} either way)",
            game::MAX_KOMI
        ))),
        None if handicap > 0 => Ok(HANDICAP_KOMI),
        None => Ok(DEFAULT_KOMI),
    }
}

/// How big the trees sgf-parse would build from `text` are, tokenizing as its lexer does (a
/// property name runs to its `[`, values honour `\` escapes): checked before they are built.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    /// The most nodes on one path from a root.
    deepest: usize,
    /// Nodes in all.
    nodes: usize,
    /// Game trees and variations (`(`).
    variations: usize,
    /// The longest property value, in bytes.
    longest_value: usize,
}

impl Shape {
    fn of(text: &str) -> Shape {
        let bytes = text.as_bytes();
        let mut shape = Shape::default();
        let (mut depth, mut i) = (0, 0);
        let mut open = Vec::new();
        while let Some(&b) = bytes.get(i) {
            i += 1;
            match b {
                b'(' => {
                    open.push(depth);
                    shape.variations += 1;
                }
                b')' => depth = open.pop().unwrap_or(0),
                b';' => {
                    depth += 1;
                    shape.nodes += 1;
                    shape.deepest = shape.deepest.max(depth);
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
                        let start = i;
                        let mut escaped = false;
                        while let Some(&b) = bytes.get(i) {
                            i += 1;
                            match b {
                                b']' if !escaped => break,
                                b'\\' if !escaped => escaped = true,
                                _ => escaped = false,
                            }
                        }
                        // Less the closing `]`.
                        let length = (i - start).saturating_sub(1);
                        shape.longest_value = shape.longest_value.max(length);
                        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                            i += 1;
                        }
                    }
                }
            }
        }
        shape
    }

    /// `Ok` when the trees are within what this loader builds.
    fn check(&self) -> Result<(), SgfError> {
        if self.deepest > MAX_DEPTH {
            return Err(SgfError::TooDeep);
        }
        let over = |n: usize, max: usize, what| (n > max).then_some(SgfError::TooLarge(max, what));
        match over(self.nodes, MAX_NODES, "nodes")
            .or_else(|| over(self.variations, MAX_VARIATIONS, "variations"))
            .or_else(|| {
                over(
                    self.longest_value,
                    MAX_VALUE_BYTES,
                    "bytes in one property value",
                )
            }) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The SGF collection in `text` from its first `(`, parsed once its [`Shape`] is checked.
fn parse(text: &str) -> Result<Vec<SgfNode<Prop>>, SgfError> {
    // Text before the first `(` (a byte-order mark, a mail header) is no part of the collection.
    let text = text.find('(').map_or("", |start| &text[start..]);
    Shape::of(text).check()?;
    go::parse(text).map_err(SgfError::Parse)
}

/// The result (`RE`) and root comment (`C`) of the first game of `text`, as written.
pub fn result_and_comment(text: &str) -> Result<(Option<String>, Option<String>), SgfError> {
    let collection = parse(text)?;
    let root = collection
        .first()
        .ok_or(SgfError::Parse(SgfParseError::NoGameTrees))?;
    let result = match root.get_property("RE") {
        Some(Prop::RE(value)) => Some(value.to_string()),
        _ => None,
    };
    let comment = match root.get_property("C") {
        Some(Prop::C(value)) => Some(value.to_string()),
        _ => None,
    };
    Ok((result, comment))
}

/// Today's date (UTC) as SGF's `DT` writes it: `YYYY-MM-DD`.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date `days` days after 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// What an SGF record says about a game besides its moves.
pub struct RecordInfo<'a> {
    /// Black's name (`PB`).
    pub black: &'a str,
    /// White's name (`PW`).
    pub white: &'a str,
    /// The date the game was played, `YYYY-MM-DD` (`DT`).
    pub date: &'a str,
    /// The result as SGF writes it: `B+R`, `W+3.5`, `0`, `B+T`, `W+F` (`RE`).
    pub result: &'a str,
    /// The ruleset's name (`RU`).
    pub rules: &'a str,
    /// A comment on the root node (`C`), e.g. how the result was decided.
    pub comment: &'a str,
}

/// The SGF FF[4] record of `game`: its size, komi, handicap stones, setup and moves, with the
/// rules, names, date, result and comment of `info` (those that are not empty).
pub fn write_record(game: &Game, info: &RecordInfo) -> String {
    let size = game.size();
    let mut out = format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[tengen:{}]SZ[{size}]KM[{}]",
        env!("CARGO_PKG_VERSION"),
        game.rules().komi,
    );
    // An empty field is left out (a game not over has no result).
    for (id, value) in [
        ("RU", info.rules),
        ("PB", info.black),
        ("PW", info.white),
        ("DT", info.date),
        ("RE", info.result),
    ] {
        if !value.is_empty() {
            out.push_str(&format!("{id}[{}]", escape(value)));
        }
    }
    if game.handicap() > 0 {
        out.push_str(&format!("HA[{}]", game.handicap()));
    }
    let initial = game.initial_board();
    for (c, id) in [(Color::Black, "AB"), (Color::White, "AW")] {
        let stones: Vec<Point> = initial
            .points()
            .filter(|&p| initial.color_at(p) == Some(c))
            .collect();
        if !stones.is_empty() {
            out.push_str(id);
            for p in stones {
                out.push_str(&format!("[{}]", sgf_point(p, size)));
            }
        }
    }
    if !info.comment.is_empty() {
        out.push_str(&format!("C[{}]", escape(info.comment)));
    }
    for (i, &(c, mv)) in game.moves().iter().enumerate() {
        out.push_str(if i % 10 == 0 { "\n;" } else { ";" });
        let letter = if c == Color::Black { 'B' } else { 'W' };
        let value = mv.point().map_or(String::new(), |p| sgf_point(p, size));
        out.push_str(&format!("{letter}[{value}]"));
    }
    out.push_str(")\n");
    out
}

/// The two SGF letters of a point (column, then row from the top).
fn sgf_point(p: Point, size: usize) -> String {
    let (col, row) = p.coords(size);
    let letter = |v: usize| char::from(b'a' + v as u8);
    format!("{}{}", letter(col), letter(size - 1 - row))
}

/// A text value with `\\` and `]` escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::game::IllegalMove;
    use proptest::prelude::*;
    use std::path::PathBuf;

    use Color::{Black as B, White as W};

    /// A KataGo self-play record (9x9, 48 moves, ending with two passes).
    const KATAGO_9X9: &str = include_str!("../../tests/data/sgf/katago-9x9-900013.sgf");

    fn load(text: &str) -> Game {
        load_game(text, None, Rules::default()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn load_err(text: &str) -> SgfError {
        match load_game(text, None, Rules::default()) {
            Ok(_) => panic!("{text} loaded"),
            Err(e) => e,
        }
    }

    fn at(game: &Game, vertex: &str) -> Option<Color> {
        game.board()
            .color_at(Point::parse(vertex, game.size()).unwrap())
    }

    fn stones(game: &Game) -> usize {
        game.board()
            .points()
            .filter(|&p| game.board().color_at(p).is_some())
            .count()
    }

    fn vertices(game: &Game) -> Vec<String> {
        game.moves()
            .iter()
            .map(|&(c, m)| format!("{}{}", c.letter(), m.to_vertex(game.size())))
            .collect()
    }

    #[test]
    fn coordinates_count_rows_from_the_top() {
        let game = load("(;SZ[9];B[aa];W[ai];B[ia];W[ie];B[ec])");
        assert_eq!(vertices(&game), ["BA9", "WA1", "BJ9", "WJ5", "BE7"]);
        assert_eq!(at(&game, "E7"), Some(B));
        assert_eq!(game.to_move(), W);
    }

    #[test]
    fn size_defaults_to_19_and_komi_to_gnu_go_s() {
        let game = load("(;B[pd])");
        assert_eq!(game.size(), 19);
        assert_eq!(at(&game, "Q16"), Some(B));
        assert_eq!(game.rules().komi, 5.5);
        // The rest of the rules are the caller's.
        let game = load_game("(;KM[6.5])", None, Rules::japanese(0.0)).unwrap();
        assert_eq!(*game.rules(), Rules::japanese(6.5));
        assert_eq!(load("(;KM[])").rules().komi, 5.5);
        assert_eq!(load("(;KM[ -3 ])").rules().komi, -3.0);
        assert_eq!(load("(;HA[2]AB[dd][pp])").rules().komi, 0.5);
        assert_eq!(load("(;HA[2]KM[0]AB[dd][pp])").rules().komi, 0.0);
        // GNU Go counts HA[1] as a handicap game for the komi (Black still moves first).
        let game = load("(;HA[1])");
        assert_eq!((game.rules().komi, game.to_move()), (0.5, B));
        assert_eq!(load("(;HA[0])").rules().komi, 5.5);
    }

    #[test]
    fn setup_in_the_root() {
        let game = load("(;SZ[9]AB[cc][gg:gh]AW[ee])");
        assert_eq!(stones(&game), 4);
        for v in ["C7", "G3", "G2"] {
            assert_eq!(at(&game, v), Some(B), "{v}");
        }
        assert_eq!(at(&game, "E5"), Some(W));
        assert!(game.moves().is_empty());
        assert_eq!(game.to_move(), B);
    }

    #[test]
    fn setup_in_the_second_node_and_ae() {
        let game = load("(;SZ[9]AB[cc][dd]AW[ee];AE[cc]AW[dd];B[ff];W[gg])");
        assert_eq!(at(&game, "C7"), None);
        // A stone set up over another replaces it.
        assert_eq!(at(&game, "D6"), Some(W));
        assert_eq!(at(&game, "E5"), Some(W));
        assert_eq!(vertices(&game), ["BF4", "WG3"]);
        assert_eq!(stones(&game), 4);
    }

    #[test]
    fn pl_names_the_first_player() {
        assert_eq!(load("(;SZ[9]AB[cc]PL[W])").to_move(), W);
        assert_eq!(load("(;SZ[9]AB[cc];PL[W])").to_move(), W);
        assert_eq!(load("(;SZ[9]PL[2])").to_move(), W);
        assert_eq!(load("(;SZ[9]PL[b])").to_move(), B);
        let game = load("(;SZ[9]PL[W];W[ee];B[cc])");
        assert_eq!(vertices(&game), ["WE5", "BC7"]);
        assert_eq!(game.to_move(), W);
    }

    #[test]
    fn handicap_games_start_with_white() {
        let text = "(;GM[1]FF[4]SZ[19]HA[4]AB[dd][pd][dp][pp];W[qf];B[nc])";
        let game = load_game(text, Some(1), Rules::default()).unwrap();
        assert_eq!(stones(&game), 4);
        assert_eq!(game.to_move(), W);
        assert_eq!(game.rules().komi, 0.5);
        let game = load(text);
        assert_eq!(vertices(&game), ["WR14", "BO17"]);
        assert_eq!(game.to_move(), W);
        assert_eq!(load("(;SZ[9]HA[2]AB[cc][gg])").to_move(), W);
        assert_eq!(load("(;SZ[9]HA[2]AB[cc][gg]PL[B])").to_move(), B);
    }

    #[test]
    fn move_number_stops_before_that_move() {
        let text = "(;SZ[9];B[ee];W[cc];B[gg];W[cg])";
        let game = load_game(text, Some(3), Rules::default()).unwrap();
        assert_eq!(vertices(&game), ["BE5", "WC7"]);
        assert_eq!(game.to_move(), B);
        let game = load_game(text, Some(1), Rules::default()).unwrap();
        assert!(game.moves().is_empty());
        assert_eq!(game.to_move(), B);
        // Before the first move the player of that move is to move.
        let game = load_game("(;SZ[9];W[ee])", Some(1), Rules::default()).unwrap();
        assert_eq!(game.to_move(), W);
        for n in [5, 6, 1000] {
            let game = load_game(text, Some(n), Rules::default()).unwrap();
            assert_eq!(game.moves().len(), 4, "{n}");
        }
        // Setup is not counted, passes are.
        let game = load_game(
            "(;SZ[9]AB[aa];AW[bb];B[];W[cc];B[dd])",
            Some(3),
            Rules::default(),
        )
        .unwrap();
        assert_eq!(vertices(&game), ["BPASS", "WC7"]);
        assert_eq!(stones(&game), 3);
        // What follows the stop is not read.
        let game = load_game("(;SZ[9];B[ee];W[ee])", Some(2), Rules::default()).unwrap();
        assert_eq!(game.moves().len(), 1);
        assert!(matches!(
            load_game("(;SZ[9];B[ee])", Some(0), Rules::default()),
            Err(SgfError::BadMoveNumber)
        ));
    }

    #[test]
    fn passes() {
        let game = load("(;SZ[9];B[ee];W[];B[tt];W[cc];B[])");
        assert_eq!(vertices(&game), ["BE5", "WPASS", "BPASS", "WC7", "BPASS"]);
        assert_eq!(game.trailing_passes(), 1);
        assert_eq!(load("(;B[tt];W[tt])").trailing_passes(), 2);
        // `tt` is a point on larger boards.
        let game = load("(;SZ[21];B[tt])");
        assert_eq!(vertices(&game), ["BU2"]);
        assert!(matches!(load_err("(;SZ[9];B[ss])"), SgfError::OffBoard(..)));
        // Not a pass in setup.
        assert!(matches!(load_err("(;AB[tt])"), SgfError::OffBoard(..)));
    }

    #[test]
    fn variations_follow_the_main_line() {
        let game = load("(;SZ[9];B[ee](;W[cc];B[gg](;W[gc])(;W[cg]))(;W[gc];B[cg]))");
        assert_eq!(vertices(&game), ["BE5", "WC7", "BG3", "WG7"]);
        let game = load("(;SZ[9](;B[aa];W[bb])(;B[cc]))(;SZ[13];B[dd])");
        assert_eq!(game.size(), 9);
        assert_eq!(vertices(&game), ["BA9", "WB8"]);
        // Errors off the main line do not matter.
        assert_eq!(load("(;SZ[9];B[ee](;W[cc])(;W[ee]))").moves().len(), 2);
    }

    #[test]
    fn captures_and_the_ko_rule_apply() {
        // White's B4 stone has one liberty, at C4: Black takes it and White may not retake.
        let text = "(;SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[bb])";
        match load_err(text) {
            SgfError::IllegalMove {
                number,
                color,
                vertex,
                reason,
            } => {
                assert_eq!((number, color, vertex.as_str()), (2, W, "B4"));
                assert_eq!(reason, IllegalMove::Ko);
            }
            e => panic!("{e}"),
        }
        let game = load_game(text, Some(2), Rules::default()).unwrap();
        assert_eq!(at(&game, "B4"), None);
        assert_eq!(game.board().captures(B), 1);
    }

    #[test]
    fn suicide_follows_the_rules() {
        let text = "(;SZ[5]AW[aa]AB[ab][bb][ca];W[ba])";
        assert!(matches!(
            load_err(text),
            SgfError::IllegalMove {
                reason: IllegalMove::Suicide,
                ..
            }
        ));
        let game = load_game(text, None, Rules::tromp_taylor(7.5)).unwrap();
        assert_eq!((at(&game, "A5"), at(&game, "B5")), (None, None));
        assert_eq!(game.rules().komi, 5.5);
    }

    #[test]
    fn bad_input_is_an_error() {
        type Check = fn(&SgfError) -> bool;
        let cases: &[(&str, Check)] = &[
            ("", |e| matches!(e, SgfError::Parse(_))),
            ("no game here", |e| matches!(e, SgfError::Parse(_))),
            ("(;SZ[9];B[ee]", |e| matches!(e, SgfError::Parse(_))),
            ("(;SZ[9]))", |e| matches!(e, SgfError::Parse(_))),
            ("()", |e| matches!(e, SgfError::Parse(_))),
            ("(;GM[2];B[aa])", |e| matches!(e, SgfError::Parse(_))),
            ("(;SZ[1])", |e| matches!(e, SgfError::UnsupportedSize(1, 1))),
            ("(;SZ[26])", |e| {
                matches!(e, SgfError::UnsupportedSize(26, 26))
            }),
            ("(;SZ[9:7])", |e| {
                matches!(e, SgfError::UnsupportedSize(9, 7))
            }),
            ("(;SZ[nine])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;SZ[300])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;KM[seven])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;KM[inf])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;KM[NaN])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;PL[X])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;B[e])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;SZ[9];W[ee5])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;AB[])", |e| matches!(e, SgfError::BadProperty(_))),
            ("(;SZ[9];B[jj])", |e| matches!(e, SgfError::OffBoard(..))),
            ("(;SZ[9]AW[aa:jj])", |e| matches!(e, SgfError::OffBoard(..))),
            ("(;SZ[9]AB[cc]AW[cc])", |e| {
                matches!(e, SgfError::SetupConflict)
            }),
            ("(;SZ[9]AB[cc]AE[bb:dd])", |e| {
                matches!(e, SgfError::SetupConflict)
            }),
            ("(;SZ[9];B[ee];AB[cc])", |e| {
                matches!(e, SgfError::SetupAfterMoves(1))
            }),
            ("(;SZ[9];B[ee];W[cc];AE[ee])", |e| {
                matches!(e, SgfError::SetupAfterMoves(2))
            }),
            ("(;SZ[9];B[ee]W[cc])", |e| {
                matches!(e, SgfError::MultipleMoves)
            }),
            ("(;SZ[9];B[ee];W[ee])", |e| {
                matches!(
                    e,
                    SgfError::IllegalMove {
                        number: 2,
                        reason: IllegalMove::Occupied,
                        ..
                    }
                )
            }),
            ("(;SZ[9]AB[ee];W[ee])", |e| {
                matches!(e, SgfError::IllegalMove { number: 1, .. })
            }),
        ];
        for (text, expected) in cases {
            let e = load_err(text);
            assert!(expected(&e), "{text}: {e:?}");
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn too_deep_trees_are_refused_without_overflowing_the_stack() {
        let deep = format!("(;SZ[9]{})", ";B[]".repeat(100_000));
        assert!(matches!(load_err(&deep), SgfError::TooDeep));
        let nested = format!("(;SZ[9]{}{})", "(;B[]".repeat(100_000), ")".repeat(100_000));
        assert!(matches!(load_err(&nested), SgfError::TooDeep));
        // Semicolons in values and escaped brackets are not nodes.
        let long = format!(
            "(;SZ[9]C[{}\\]{}];B[ee])",
            ";".repeat(100_000),
            ";".repeat(10)
        );
        assert_eq!(load(&long).moves().len(), 1);
        let deepest = format!("(;SZ[9]{})", ";B[]".repeat(MAX_DEPTH - 1));
        assert_eq!(load(&deepest).moves().len(), MAX_DEPTH - 1);
    }

    #[test]
    fn the_shape_is_checked_before_the_trees_are_built() {
        let shape = Shape::of("(;SZ[9]C[a;b(c)\\]];B[ee](;W[cc])(;W[dd];B[ff]))");
        assert_eq!(
            shape,
            Shape {
                deepest: 4,
                nodes: 5,
                variations: 3,
                longest_value: 8,
            }
        );
        let too_large = |text: &str| matches!(load_err(text), SgfError::TooLarge(..));
        assert!(too_large(&format!(
            "(;SZ[9]{})",
            "(;B[ee])".repeat(MAX_VARIATIONS)
        )));
        assert!(too_large(&format!(
            "(;SZ[9]{})",
            format!("(;B[ee]{})", ";W[cc]".repeat(99)).repeat(MAX_NODES / 100)
        )));
        assert!(too_large(&format!(
            "(;SZ[9]C[{}];B[ee])",
            "x".repeat(MAX_VALUE_BYTES + 1)
        )));
        let long = format!("(;SZ[9]C[{}];B[ee])", "x".repeat(MAX_VALUE_BYTES));
        assert_eq!(load(&long).moves().len(), 1);
    }

    #[test]
    fn komi_is_at_most_a_thousand_either_way() {
        assert_eq!(load("(;SZ[9]KM[-1000])").rules().komi, -1000.0);
        for km in ["1e308", "1000.5", "nan", "inf"] {
            let e = load_err(&format!("(;SZ[9]KM[{km}])"));
            assert!(matches!(e, SgfError::BadProperty(_)), "{km}: {e:?}");
            assert!(e.to_string().len() < 100, "{e}");
        }
    }

    #[test]
    fn leading_junk_and_odd_spellings() {
        let game = load("\u{feff}Subject: a game\n(;FF[3]SiZe[9]\n B [ee] ;W[cc]\n)\n");
        assert_eq!(vertices(&game), ["BE5", "WC7"]);
        assert_eq!(load("(;HA[ 3 ])").to_move(), W);
    }

    #[test]
    fn error_messages_say_what_is_wrong() {
        for (sgf, message) in [
            (
                "(;SZ[9];B[ee];W[ee])",
                "move 2 (white E5) is illegal: point is occupied",
            ),
            ("(;SZ[9];B[jj])", "B[jj] is off the 9x9 board"),
            ("(;KM[x])", "cannot read the property KM[x]"),
            (
                "(;SZ[9:7])",
                "unsupported board size 9x7 (square boards from 2 to 25)",
            ),
        ] {
            assert_eq!(load_err(sgf).to_string(), message, "{sgf}");
        }
    }

    #[test]
    fn a_record_holds_the_start_the_moves_and_the_root_comment() {
        let record = load_record(KATAGO_9X9, Rules::default()).unwrap();
        let game = load(KATAGO_9X9);
        assert_eq!(record.moves, game.moves());
        assert!(record.start.moves().is_empty());
        assert_eq!(record.start.board().empty_count(), 81);
        assert_eq!(record.start.to_move(), B);
        let comment = record.comment.expect("a root comment");
        assert!(comment.contains("random opening moves"), "{comment}");
        let handicap = load_record("(;SZ[9]HA[2]AB[cc][gg];W[ee])", Rules::default()).unwrap();
        assert_eq!(handicap.start.to_move(), W);
        assert_eq!(handicap.start.board().empty_count(), 79);
        assert_eq!(handicap.moves.len(), 1);
        assert!(handicap.comment.is_none());
        assert!(load_record("(;SZ[9];B[ee];W[ee])", Rules::default()).is_err());
    }

    #[test]
    fn katago_record_with_passes() {
        let game = load(KATAGO_9X9);
        assert_eq!((game.size(), game.rules().komi), (9, 7.0));
        assert_eq!(game.moves().len(), 48);
        assert_eq!(vertices(&game)[..2], ["BC6", "WG5"]);
        assert_eq!(game.trailing_passes(), 2);
        assert_eq!(game.moves()[44], (B, Move::Pass));
        let game = load_game(KATAGO_9X9, Some(45), Rules::default()).unwrap();
        assert_eq!((game.moves().len(), game.to_move()), (44, B));
    }

    #[test]
    fn load_file_reads_and_reports_unreadable_paths() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sgf");
        let game = load_file(
            &dir.join("katago-9x9-900013.sgf"),
            Some(10),
            Rules::default(),
        )
        .unwrap();
        assert_eq!(game.moves().len(), 9);
        assert!(matches!(
            load_file(&dir.join("no-such-file.sgf"), None, Rules::default()),
            Err(SgfError::Io(_))
        ));
        assert!(matches!(
            load_file(&dir, None, Rules::default()),
            Err(SgfError::NotAFile)
        ));
    }

    /// KataGo self-play records copied into tests/data/sgf (from the project's shared set):
    /// each loads in full with as many moves as the file holds.
    #[test]
    fn katago_records_load() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sgf");
        for (prefix, size) in [("katago-9x9-", 9), ("katago-19x19-", 19)] {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(&data)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
                .collect();
            paths.sort();
            assert!(paths.len() >= 2, "{prefix} records in {}", data.display());
            for path in &paths {
                let text = std::fs::read_to_string(path).unwrap();
                let game = load_file(path, None, Rules::default())
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let moves = text.matches(";B[").count() + text.matches(";W[").count();
                assert_eq!(game.size(), size);
                assert_eq!(game.moves().len(), moves, "{}", path.display());
                assert!(moves > 10, "{}", path.display());
            }
        }
    }

    /// Valid SGF to mutate.
    const SAMPLES: &[&str] = &[
        "(;GM[1]FF[4]SZ[9]KM[7]HA[2]AB[cc][gg]PL[W];W[ee];B[ce](;W[dd];B[])(;W[tt]))",
        "(;SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[];B[aa]C[x\\]y;(])",
        "(;SZ[13]AB[aa:cc];AE[bb]AW[dd];PL[W];W[ee];B[ff];W[gg](;B[hh])(;B[ii]))",
        KATAGO_9X9,
    ];

    fn mutate(text: &str, edits: &[(usize, u8, char)]) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        for &(at, op, c) in edits {
            let i = at % (chars.len() + 1);
            match op {
                0 if i < chars.len() => {
                    chars.remove(i);
                }
                1 if i < chars.len() => chars[i] = c,
                _ => chars.insert(i, c),
            }
        }
        chars.into_iter().collect()
    }

    #[test]
    fn samples_load() {
        for text in SAMPLES {
            assert!(
                load_game(text, None, Rules::tromp_taylor(7.5)).is_ok(),
                "{text}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn never_panics_on_arbitrary_text(text in any::<String>(), n in proptest::option::of(0usize..8)) {
            let _ = load_game(&text, n, Rules::default());
        }

        #[test]
        fn never_panics_on_sgf_like_text(
            text in "[();\\[\\]\\\\ \n:ABWEKMSZHLPCtabcdehijsz0-9.+-]{0,200}",
            n in proptest::option::of(0usize..8),
        ) {
            let _ = load_game(&text, n, Rules::default());
        }

        #[test]
        fn never_panics_on_mutated_sgf(
            sample in 0..SAMPLES.len(),
            edits in proptest::collection::vec(
                (any::<usize>(), 0u8..3, proptest::sample::select(
                    "();[]\\:ABWEKMSZHLPabcdeijstz019 .-\u{e9}".chars().collect::<Vec<_>>())),
                1..6),
            n in proptest::option::of(0usize..60),
            tromp_taylor in any::<bool>(),
        ) {
            let text = mutate(SAMPLES[sample], &edits);
            let rules = if tromp_taylor { Rules::tromp_taylor(7.5) } else { Rules::default() };
            if let Ok(game) = load_game(&text, n, rules) {
                prop_assert!(n.is_none_or(|n| game.moves().len() < n));
            }
        }
    }

    #[test]
    fn a_written_record_loads_back_with_its_setup_moves_and_names() {
        let mut game = Game::new(9, Rules::chinese(7.0));
        game.set_handicap(&[Point::new(9, 2, 2), Point::new(9, 6, 6)])
            .unwrap();
        for (c, v) in [(W, "E5"), (B, "D4"), (W, "pass"), (B, "C3")] {
            let mv = Move::parse(v, 9).unwrap();
            if game.play(c, mv).is_err() {
                // C3 holds a handicap stone: play elsewhere.
                game.play(c, Move::parse("J9", 9).unwrap()).unwrap();
            }
        }
        let info = RecordInfo {
            black: "tengen [medium]",
            white: "GNU Go 3.8",
            date: "2026-11-23",
            result: "W+R",
            rules: "Chinese",
            comment: "White resigned? no: Black]",
        };
        let text = write_record(&game, &info);
        assert!(text.contains("PB[tengen [medium\\]]"), "{text}");
        assert!(text.contains("RE[W+R]") && text.contains("HA[2]") && text.contains("KM[7]"));
        let back = load_game(&text, None, Rules::chinese(7.0)).unwrap();
        assert_eq!(back.moves(), game.moves());
        assert_eq!(back.board().hash(), game.board().hash());
        assert_eq!(back.rules().komi, 7.0);
        assert_eq!(
            back.handicap(),
            2,
            "HA with as many AB stones is a handicap"
        );
        // Setup stones that are not the handicap HA names stay plain setup.
        let odd = text.replace("HA[2]", "HA[3]");
        assert_eq!(
            load_game(&odd, None, Rules::chinese(7.0))
                .unwrap()
                .handicap(),
            0
        );
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_780), (2026, 11, 23));
    }
}
