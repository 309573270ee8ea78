//! The opening book: positions keyed by a Zobrist hash with the board's eight symmetries
//! folded, each with a few weighted moves, for one board size, komi and scoring. The books
//! in `book/` are built into the binary ([`builtin`]); `tengen book build` makes them with
//! tengen's own search ([`build`]).
//!
//! The file format, a text file (docs/BOOK.md describes it):
//!
//! ```text
//! # comments and blank lines are skipped
//! tengen-book 1
//! size 9
//! komi 7
//! rules chinese
//! 5f3a0c2e9b1d4a77 B E5 3100 D5 900   # after: (the empty board)
//! ```
//!
//! An entry line holds the position's key (16 hex digits, see [`Canonical`]), the colour to
//! move, and up to [`MAX_MOVES`] pairs of a vertex and a weight (1 to [`MAX_WEIGHT`]). The
//! vertices are in the canonical orientation: [`Canonical::to_game`] maps them back.

mod build;
mod katago;

pub use build::{BuildOptions, build};

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::rules::board::{Board, Color, MAX_SIZE, MIN_SIZE, Move, Point, splitmix};
use crate::rules::game::{Game, Rules, Scoring, checked_komi};

/// The first word of a book file and the format's version.
const MAGIC: &str = "tengen-book";
const VERSION: u32 = 1;
/// The largest book file read (a few MB would hold a million entries).
pub const MAX_BYTES: u64 = 64 << 20;
/// The most entries a book may hold.
pub const MAX_ENTRIES: usize = 1_000_000;
/// The most moves one entry may list.
pub const MAX_MOVES: usize = 16;
/// The largest weight of a move.
pub const MAX_WEIGHT: u32 = 1_000_000_000;

/// The books shipped in `book/`, one per board size.
const SHIPPED: &[(&str, &str)] = &[("book/9x9.txt", include_str!("../../../book/9x9.txt"))];

/// The shipped books, read once per process. A shipped book that does not read (a test
/// guards against it) is left out with a warning.
pub fn builtin() -> &'static [Book] {
    static BOOKS: OnceLock<Vec<Book>> = OnceLock::new();
    BOOKS.get_or_init(|| {
        SHIPPED
            .iter()
            .filter_map(|(name, text)| match Book::parse(text) {
                Ok(book) => Some(book),
                Err(e) => {
                    log::warn!("{name}: {e}; that book is not used");
                    None
                }
            })
            .collect()
    })
}

/// The shipped book for a game of `size` with `rules`, if there is one.
pub fn builtin_for(size: usize, rules: &Rules) -> Option<&'static Book> {
    builtin().iter().find(|b| b.fits(size, rules))
}

/// The eight symmetries of the square: `t & 1` mirrors the columns, `t & 2` the rows, and
/// `t & 4` then swaps columns and rows.
fn transform(t: u8, size: usize, (col, row): (usize, usize)) -> (usize, usize) {
    let mut x = if t & 1 != 0 { size - 1 - col } else { col };
    let mut y = if t & 2 != 0 { size - 1 - row } else { row };
    if t & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    (x, y)
}

/// The inverse of [`transform`].
fn untransform(t: u8, size: usize, (x, y): (usize, usize)) -> (usize, usize) {
    let (mut col, mut row) = if t & 4 != 0 { (y, x) } else { (x, y) };
    if t & 1 != 0 {
        col = size - 1 - col;
    }
    if t & 2 != 0 {
        row = size - 1 - row;
    }
    (col, row)
}

const POINTS: usize = MAX_SIZE * MAX_SIZE;

const fn book_keys() -> [[u64; POINTS]; 2] {
    let mut table = [[0u64; POINTS]; 2];
    let mut i = 0;
    while i < POINTS {
        table[0][i] = splitmix(0xB00C_0000_0000_0000 ^ (2 * i as u64));
        table[1][i] = splitmix(0xB00C_0000_0000_0000 ^ (2 * i as u64 + 1));
        i += 1;
    }
    table
}

/// `KEYS[color][row * 25 + col]`: the key of a stone of `color` at `col`, `row`. The book's
/// own table, not the board's, so that book files do not change with the board's layout.
static KEYS: [[u64; POINTS]; 2] = book_keys();
/// Xor-ed into the key when White is to move.
const WHITE_TO_MOVE: u64 = 0x5A5A_C3C3_0F0F_9669;

/// A position in its canonical orientation: the least key over the eight symmetries, and a
/// symmetry that gives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The book key: the Zobrist hash of the stones and the colour to move, the least over
    /// the eight orientations of the board.
    pub key: u64,
    /// A symmetry that turns the position into its canonical orientation.
    pub transform: u8,
    size: usize,
}

impl Canonical {
    /// The canonical form of `board` with `to_move` to play.
    pub fn of(board: &Board, to_move: Color) -> Canonical {
        let size = board.size();
        let mut keys = [if to_move == Color::White {
            WHITE_TO_MOVE
        } else {
            0
        }; 8];
        for p in board.points() {
            let Some(color) = board.color_at(p) else {
                continue;
            };
            let table = &KEYS[color.index()];
            for (t, key) in keys.iter_mut().enumerate() {
                let (x, y) = transform(t as u8, size, p.coords(size));
                *key ^= table[y * MAX_SIZE + x];
            }
        }
        let (transform, key) = (0..8u8)
            .map(|t| (t, keys[usize::from(t)]))
            .min_by_key(|&(t, key)| (key, t))
            .unwrap_or((0, keys[0]));
        Canonical {
            key,
            transform,
            size,
        }
    }

    /// The point of the game's board that `p` (in the canonical orientation) stands for.
    pub fn to_game(&self, p: Point) -> Point {
        let (col, row) = untransform(self.transform, self.size, p.coords(self.size));
        Point::new(self.size, col, row)
    }

    /// The point in the canonical orientation that the game's `p` becomes.
    pub fn to_canonical(&self, p: Point) -> Point {
        let (x, y) = transform(self.transform, self.size, p.coords(self.size));
        Point::new(self.size, x, y)
    }
}

/// One move of an entry, in the canonical orientation, with its weight.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The point, canonical orientation.
    pub point: Point,
    /// How often it is chosen, relative to the entry's other moves.
    pub weight: u32,
}

/// A position's moves: the colour to move and its book moves, heaviest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The colour to move.
    pub to_move: Color,
    /// The moves.
    pub moves: Vec<BookMove>,
    /// The line that first reached it (written as a comment; empty when read).
    pub line: String,
}

/// An opening book for one board size, komi and scoring.
#[derive(Clone, Debug, PartialEq)]
pub struct Book {
    size: usize,
    komi: f64,
    /// The rules' name as written (`chinese`, `japanese`, ...).
    rules: String,
    scoring: Scoring,
    entries: HashMap<u64, Entry>,
}

crate::ground::error::message_error!(
    /// Why a book could not be read; `Display` names the line.
    BookError
);

impl Book {
    /// An empty book for `size` (2 to 25), `komi` and the rules named `rules` (as
    /// `kgs-rules` names them).
    pub fn new(size: usize, komi: f64, rules: &str) -> Result<Book, BookError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(BookError(format!(
                "size must be from {MIN_SIZE} to {MAX_SIZE}, not {size}"
            )));
        }
        let komi = checked_komi(komi).ok_or_else(|| BookError(format!("bad komi {komi}")))?;
        let scoring = Rules::named(rules, komi)
            .ok_or_else(|| BookError(format!("unknown rules `{rules}`")))?
            .scoring;
        Ok(Book {
            size,
            komi,
            rules: rules.to_ascii_lowercase(),
            scoring,
            entries: HashMap::new(),
        })
    }

    /// The board size.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The komi it was built for.
    pub fn komi(&self) -> f64 {
        self.komi
    }

    /// The rules' name it was built for.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether it was built for a game of `size` under `rules`: the same size, komi and
    /// scoring (the ko and suicide rules do not change an opening).
    pub fn fits(&self, size: usize, rules: &Rules) -> bool {
        size == self.size && rules.komi == self.komi && rules.scoring == self.scoring
    }

    /// The entry stored for `canonical`, if any.
    pub fn entry(&self, canonical: &Canonical) -> Option<&Entry> {
        self.entries.get(&canonical.key)
    }

    /// Adds (or replaces) the entry of a position.
    pub fn insert(&mut self, canonical: &Canonical, entry: Entry) {
        self.entries.insert(canonical.key, entry);
    }

    /// The book's moves for `color` in `game`, mapped onto the game's board, with their
    /// weights; only legal moves (superko included), none when the book does not fit the
    /// game.
    pub fn moves(&self, game: &Game, color: Color) -> Vec<(Move, u32)> {
        if !self.fits(game.size(), game.rules()) {
            return Vec::new();
        }
        let canonical = Canonical::of(game.board(), color);
        let Some(entry) = self.entry(&canonical) else {
            return Vec::new();
        };
        if entry.to_move != color {
            return Vec::new();
        }
        entry
            .moves
            .iter()
            .map(|m| (Move::Play(canonical.to_game(m.point)), m.weight))
            .filter(|&(mv, _)| game.legality(color, mv).is_ok())
            .collect()
    }

    /// Reads a book file (at most [`MAX_BYTES`]).
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let name = path.display();
        let file = std::fs::File::open(path)
            .map_err(|e| BookError(format!("{name}: cannot read: {e}")))?;
        let mut text = String::new();
        file.take(MAX_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| BookError(format!("{name}: cannot read: {e}")))?;
        if text.len() as u64 > MAX_BYTES {
            return Err(BookError(format!(
                "{name}: larger than {MAX_BYTES} bytes; not a book"
            )));
        }
        Book::parse(&text).map_err(|e| BookError(format!("{name}: {e}")))
    }

    /// Reads a book from its text.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        if text.len() as u64 > MAX_BYTES {
            return Err(BookError(format!("larger than {MAX_BYTES} bytes")));
        }
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line.split('#').next().unwrap_or("").trim()))
            .filter(|(_, line)| !line.is_empty());
        let mut header = |key: &str| -> Result<(usize, String), BookError> {
            let (n, line) = lines
                .next()
                .ok_or_else(|| BookError(format!("ends before its `{key}` line")))?;
            match line.split_once(char::is_whitespace) {
                Some((k, value)) if k == key => Ok((n, value.trim().to_string())),
                _ => Err(BookError(format!(
                    "line {n}: expected `{key} ...`, found `{line}`"
                ))),
            }
        };
        let (n, version) = header(MAGIC)?;
        if version.parse() != Ok(VERSION) {
            return Err(BookError(format!(
                "line {n}: version `{version}` is not {VERSION}; not a tengen book this version reads"
            )));
        }
        let (n, size) = header("size")?;
        let size: usize = size
            .parse()
            .map_err(|_| BookError(format!("line {n}: size `{size}` is not a number")))?;
        let (n, komi) = header("komi")?;
        let komi: f64 = komi
            .parse()
            .map_err(|_| BookError(format!("line {n}: komi `{komi}` is not a number")))?;
        let (n, rules) = header("rules")?;
        let mut book =
            Book::new(size, komi, &rules).map_err(|e| BookError(format!("line {n}: {e}")))?;
        for (n, line) in lines {
            if book.entries.len() >= MAX_ENTRIES {
                return Err(BookError(format!(
                    "line {n}: more than {MAX_ENTRIES} entries"
                )));
            }
            let (key, entry) =
                parse_entry(line, size).map_err(|why| BookError(format!("line {n}: {why}")))?;
            if book.entries.insert(key, entry).is_some() {
                return Err(BookError(format!("line {n}: key {key:016x} repeated")));
            }
        }
        Ok(book)
    }

    /// The book as text ([`Book::parse`] reads it back), entries in key order.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "# tengen opening book: key, colour to move, then moves (canonical orientation) and weights\n\
             {MAGIC} {VERSION}\nsize {}\nkomi {}\nrules {}\n",
            self.size, self.komi, self.rules
        );
        let mut keys: Vec<&u64> = self.entries.keys().collect();
        keys.sort();
        for key in keys {
            let entry = &self.entries[key];
            out.push_str(&format!("{key:016x} {}", entry.to_move.letter()));
            for m in &entry.moves {
                out.push_str(&format!(" {} {}", m.point.to_vertex(self.size), m.weight));
            }
            if !entry.line.is_empty() {
                out.push_str(&format!("  # {}", entry.line));
            }
            out.push('\n');
        }
        out
    }
}

/// One entry line: key, colour, then vertex and weight pairs.
fn parse_entry(line: &str, size: usize) -> Result<(u64, Entry), String> {
    let mut words = line.split_whitespace();
    let key = words.next().unwrap_or("");
    if key.len() != 16 {
        return Err(format!("key `{key}` is not 16 hex digits"));
    }
    let key = u64::from_str_radix(key, 16).map_err(|_| format!("key `{key}` is not hex"))?;
    let to_move = match words.next() {
        Some(c) if c.eq_ignore_ascii_case("b") => Color::Black,
        Some(c) if c.eq_ignore_ascii_case("w") => Color::White,
        other => return Err(format!("colour `{}` is not B or W", other.unwrap_or(""))),
    };
    let words: Vec<&str> = words.collect();
    if words.is_empty() || !words.len().is_multiple_of(2) {
        return Err("wants one or more vertex and weight pairs".to_string());
    }
    if words.len() / 2 > MAX_MOVES {
        return Err(format!("more than {MAX_MOVES} moves"));
    }
    let moves = words
        .chunks(2)
        .map(|pair| {
            let point = Point::parse(pair[0], size)
                .map_err(|e| format!("`{}`: {e} of size {size}", pair[0]))?;
            let weight = pair[1]
                .parse()
                .ok()
                .filter(|w| (1..=MAX_WEIGHT).contains(w))
                .ok_or_else(|| {
                    format!(
                        "weight `{}` is not a number from 1 to {MAX_WEIGHT}",
                        pair[1]
                    )
                })?;
            Ok(BookMove { point, weight })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((
        key,
        Entry {
            to_move,
            moves,
            line: String::new(),
        },
    ))
}

/// What `tengen book show` prints: the book's header, then the entry of the position after
/// `moves` (vertices or `pass`, played from the empty board, Black first), its moves in the
/// game's orientation with their weights and shares.
pub fn show(book: &Book, moves: &[String]) -> Result<String, BookError> {
    let size = book.size;
    let rules = Rules::named(&book.rules, book.komi)
        .ok_or_else(|| BookError(format!("unknown rules `{}`", book.rules)))?;
    let mut game = Game::new(size, rules);
    for text in moves {
        let mv = Move::parse(text, size)
            .map_err(|e| BookError(format!("`{text}`: {e} of size {size}")))?;
        let color = game.to_move();
        game.play(color, mv)
            .map_err(|e| BookError(format!("`{text}` is illegal here: {e}")))?;
    }
    let color = game.to_move();
    let mut out = format!(
        "book {size}x{size}, komi {}, {} rules: {} positions\n",
        book.komi,
        book.rules,
        book.len()
    );
    let canonical = Canonical::of(game.board(), color);
    out.push_str(&format!(
        "after {}, {} to move (key {:016x}): ",
        if moves.is_empty() {
            "no moves".to_string()
        } else {
            moves.join(" ")
        },
        if color == Color::Black {
            "Black"
        } else {
            "White"
        },
        canonical.key
    ));
    let found = book.moves(&game, color);
    if found.is_empty() {
        out.push_str("not in the book\n");
        return Ok(out);
    }
    let plural = if found.len() == 1 { "" } else { "s" };
    out.push_str(&format!("{} move{plural}\n", found.len()));
    let total: u64 = found.iter().map(|&(_, w)| u64::from(w)).sum();
    for (mv, weight) in found {
        out.push_str(&format!(
            "  {:<4} {weight:>10} {:>5.1}%\n",
            mv.to_vertex(size),
            100.0 * weight as f64 / total as f64
        ));
    }
    Ok(out)
}

/// Picks book moves for a player: the shipped book of the game's size when it fits the game,
/// a weighted random choice among its legal moves.
pub struct Opening {
    rng: SmallRng,
}

impl Opening {
    /// A chooser seeded with `seed` (random when `None`).
    pub fn new(seed: Option<u64>) -> Opening {
        Opening {
            rng: SmallRng::seed_from_u64(seed.unwrap_or_else(rand::random)),
        }
    }

    /// A book move for `color` in `game`, when a shipped book holds the position.
    pub fn choose(&mut self, game: &Game, color: Color) -> Option<Move> {
        let book = builtin_for(game.size(), game.rules())?;
        let mv = pick(&book.moves(game, color), &mut self.rng)?;
        log::info!("book: {}", mv.to_vertex(game.size()));
        Some(mv)
    }
}

/// A move drawn from `moves` in proportion to the weights.
fn pick(moves: &[(Move, u32)], rng: &mut SmallRng) -> Option<Move> {
    let total: u64 = moves.iter().map(|&(_, w)| u64::from(w)).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng.random_range(0..total);
    for &(mv, w) in moves {
        if r < u64::from(w) {
            return Some(mv);
        }
        r -= u64::from(w);
    }
    None
}

#[cfg(test)]
mod tests;
