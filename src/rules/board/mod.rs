//! The board: stones, strings (groups) with exact liberty counts, captures, the simple-ko
//! point and an incremental Zobrist hash. It knows nothing of history, rule options or players:
//! positional superko and the suicide option live in [`crate::rules::game`].
//!
//! The board is a fixed-size `Copy`-able struct, so a playout copies it and allocates nothing.

mod color;
mod grid;
pub mod playout;
mod point;
mod shape3;
mod zobrist;

pub use color::{Color, ParseColorError};
pub use point::{MAX_CELLS, MAX_SIZE, MAX_STRIDE, MIN_SIZE, Move, Point, VertexError, vertex_list};

use grid::Grid;
use zobrist::KEYS;
pub use zobrist::splitmix;

/// What occupies a cell of the padded board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cell {
    /// No stone.
    Empty = 0,
    /// A black stone.
    Black = 1,
    /// A white stone.
    White = 2,
    /// Off the board (the padding ring).
    Border = 3,
}

impl Cell {
    /// The colour of a stone cell.
    #[inline]
    pub fn color(self) -> Option<Color> {
        match self {
            Cell::Black => Some(Color::Black),
            Cell::White => Some(Color::White),
            _ => None,
        }
    }
}

impl From<Color> for Cell {
    #[inline]
    fn from(c: Color) -> Cell {
        match c {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }
}

/// The eight neighbours of a point as (column, row) offsets, rows growing upwards, in the
/// order of [`Board::pattern3`]'s two-bit fields: top row left to right, then the middle row's
/// left and right, then the bottom row.
pub const PATTERN_OFFSETS: [(isize, isize); 8] = [
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, 0),
    (1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// Why a stone cannot be placed, as far as the board alone can tell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoardIllegal {
    /// The point holds a stone.
    Occupied,
    /// Retaking a simple ko at once.
    Ko,
    /// The stone (and its string) would have no liberty and captures nothing.
    Suicide,
}

/// The pseudo-liberties of a string: every (stone, empty neighbour) pair counted once, so a
/// liberty shared by several stones counts several times. Keeping them costs no deduplication
/// when stones land, strings merge or get captured; the count, the sum and the sum of squares
/// of their cell indices still tell exactly when a string has no liberty (count 0) or one (all
/// pairs name the same point: count · squares = sum²), and which one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct PseudoLibs {
    count: u16,
    sum: u32,
    squares: u32,
}

impl PseudoLibs {
    const NONE: PseudoLibs = PseudoLibs {
        count: 0,
        sum: 0,
        squares: 0,
    };

    #[inline]
    fn absorb(&mut self, other: PseudoLibs) {
        self.count += other.count;
        self.sum += other.sum;
        self.squares += other.squares;
    }

    /// Removes one pseudo-liberty with wrapping arithmetic: the spare head [`NO_STRING`] takes
    /// removals it never had added.
    #[inline]
    fn remove_wrapping(&mut self, i: usize) {
        self.count = self.count.wrapping_sub(1);
        self.sum = self.sum.wrapping_sub(i as u32);
        self.squares = self.squares.wrapping_sub((i * i) as u32);
    }

    /// Adds the pseudo-liberty `i` when `yes`, without branching.
    #[inline]
    fn add_if(&mut self, i: usize, yes: bool) {
        let m = u32::from(yes);
        self.count += m as u16;
        self.sum += m * i as u32;
        self.squares += m * (i * i) as u32;
    }

    /// Whether all pseudo-liberties are one point (and there is at least one).
    #[inline]
    fn is_single(self) -> bool {
        let sum = u64::from(self.sum);
        (self.count > 0) & (u64::from(self.count) * u64::from(self.squares) == sum * sum)
    }
}

/// The indices of the set bits of `mask`, lowest first.
#[inline]
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            k
        })
    })
}

/// The head recorded for empty and border cells: cell 0, a corner of the border ring that
/// never holds a string, so its pseudo-liberty entry can soak up updates aimed at no string.
const NO_STRING: u16 = 0;

/// The longest liberty buffer [`Board::string_liberties`] deduplicates by searching the
/// buffer itself rather than a bitset.
const SHORT_LIBERTY_LIST: usize = 8;

/// Words of the stack bitset used to deduplicate liberties.
const MARK_WORDS: usize = MAX_CELLS.div_ceil(64);

/// A Go board of size 2..=25.
#[derive(Clone)]
pub struct Board {
    size: usize,
    stride: usize,
    cells: Grid<Cell>,
    /// Per cell: its 3x3 neighbourhood, two bits (the `Cell` value) per neighbour in
    /// [`PATTERN_OFFSETS`] order from the low bits, kept up to date as stones come and go.
    pattern3: Grid<u16>,
    /// For a stone: the head point of its string; [`NO_STRING`] for other cells.
    head: Grid<u16>,
    /// For a stone: the next stone of its string (a ring).
    next: Grid<u16>,
    /// For a string head: its pseudo-liberties (see [`PseudoLibs`]).
    libs: Grid<PseudoLibs>,
    /// For a string head: its number of stones.
    stones: Grid<u16>,
    /// The empty points, in no particular order.
    empties: [u16; MAX_SIZE * MAX_SIZE],
    /// For an empty point: its index in `empties`.
    empty_pos: Grid<u16>,
    n_empty: usize,
    /// The simple-ko point and the colour that may not play there on the next move.
    ko: Option<(Point, Color)>,
    hash: u64,
    /// Stones captured by each colour (prisoners it holds).
    captures: [u32; 2],
}

impl Board {
    /// An empty board of `size` (must be within [`MIN_SIZE`]..=[`MAX_SIZE`]).
    pub fn new(size: usize) -> Board {
        assert!(
            (MIN_SIZE..=MAX_SIZE).contains(&size),
            "board size {size} out of range"
        );
        let stride = size + 2;
        let mut board = Board {
            size,
            stride,
            cells: Grid::filled(Cell::Border),
            pattern3: Grid::filled(0),
            head: Grid::filled(NO_STRING),
            next: Grid::filled(0),
            libs: Grid::filled(PseudoLibs::NONE),
            stones: Grid::filled(0),
            empties: [0; MAX_SIZE * MAX_SIZE],
            empty_pos: Grid::filled(0),
            n_empty: 0,
            ko: None,
            hash: 0,
            captures: [0; 2],
        };
        for row in 0..size {
            for col in 0..size {
                let i = Point::new(size, col, row).index();
                board.cells[i] = Cell::Empty;
                board.add_empty(i);
            }
        }
        for p in board.points().collect::<Vec<_>>() {
            let i = p.index();
            board.pattern3[i] = board.pattern3_from_scratch(i);
        }
        board
    }

    /// The 3x3 neighbourhood code of cell `i` computed from the cells.
    fn pattern3_from_scratch(&self, i: usize) -> u16 {
        PATTERN_OFFSETS
            .iter()
            .enumerate()
            .fold(0, |code, (k, &(dx, dy))| {
                let q = (i as isize + dy * self.stride as isize + dx) as usize;
                code | (self.cells[q] as u16) << (2 * k)
            })
    }

    /// The 3x3 neighbourhood of the point `p`: two bits per neighbour (the [`Cell`] value),
    /// the neighbours in [`PATTERN_OFFSETS`] order from the low bits. O(1): kept up to date
    /// incrementally.
    #[inline]
    pub fn pattern3(&self, p: Point) -> u16 {
        self.pattern3[p.index()]
    }

    /// Makes this board a copy of `src`, copying only the cells a board of `src`'s size uses:
    /// the cheap way for a playout to start from a position without allocating.
    pub fn copy_from(&mut self, src: &Board) {
        let used = src.stride * src.stride;
        self.size = src.size;
        self.stride = src.stride;
        self.cells.copy_prefix(&src.cells, used);
        self.pattern3.copy_prefix(&src.pattern3, used);
        self.head.copy_prefix(&src.head, used);
        self.next.copy_prefix(&src.next, used);
        self.libs.copy_prefix(&src.libs, used);
        self.stones.copy_prefix(&src.stones, used);
        self.empty_pos.copy_prefix(&src.empty_pos, used);
        self.empties[..src.n_empty].copy_from_slice(&src.empties[..src.n_empty]);
        self.n_empty = src.n_empty;
        self.ko = src.ko;
        self.hash = src.hash;
        self.captures = src.captures;
    }

    /// The board's side length.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Every on-board point, bottom row first.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let size = self.size;
        (0..size).flat_map(move |row| (0..size).map(move |col| Point::new(size, col, row)))
    }

    /// What is on `p`.
    #[inline]
    pub fn cell(&self, p: Point) -> Cell {
        self.cells[p.index()]
    }

    /// The colour of the stone on `p`, if any.
    #[inline]
    pub fn color_at(&self, p: Point) -> Option<Color> {
        self.cells[p.index()].color()
    }

    /// The four orthogonal neighbours of `p` (some may be border cells).
    #[inline]
    pub fn neighbors(&self, p: Point) -> [Point; 4] {
        self.sides(p.index()).map(Point::from_index)
    }

    /// The four diagonal neighbours of `p` (some may be border cells).
    #[inline]
    pub fn diagonals(&self, p: Point) -> [Point; 4] {
        let i = p.index();
        let s = self.stride;
        [i - s - 1, i - s + 1, i + s - 1, i + s + 1].map(Point::from_index)
    }

    /// The empty points, in no particular order.
    #[inline]
    pub fn empty_points(&self) -> impl ExactSizeIterator<Item = Point> + '_ {
        self.empties[..self.n_empty]
            .iter()
            .map(|&i| Point::from_index(i as usize))
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.n_empty
    }

    /// The `k`-th empty point (`k < empty_count()`).
    #[inline]
    pub fn empty_at(&self, k: usize) -> Point {
        Point::from_index(self.empties[k] as usize)
    }

    /// The incremental Zobrist hash of the stones (not of the side to move).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The simple-ko point and the colour barred from it on the next move.
    pub fn ko(&self) -> Option<(Point, Color)> {
        self.ko
    }

    /// Stones captured so far by `c`.
    pub fn captures(&self, c: Color) -> u32 {
        self.captures[c.index()]
    }

    /// The head (representative stone) of the string on `p`; `p` must hold a stone.
    #[inline]
    pub fn string_head(&self, p: Point) -> Point {
        Point::from_index(self.head[p.index()] as usize)
    }

    /// Liberties of the string on `p`; `p` must hold a stone. O(1) for none or one, otherwise
    /// a scan of the string: prefer [`Board::in_atari`] when that is the question.
    #[inline]
    pub fn liberties(&self, p: Point) -> usize {
        let libs = self.libs[self.head[p.index()] as usize];
        if libs.count == 0 {
            0
        } else if libs.is_single() {
            1
        } else {
            self.count_liberties(self.head[p.index()] as usize) as usize
        }
    }

    /// Whether the string on `p` (which must hold a stone) has exactly one liberty. O(1).
    #[inline]
    pub fn in_atari(&self, p: Point) -> bool {
        self.libs[self.head[p.index()] as usize].is_single()
    }

    /// The last liberty of the string on `p` when it is in atari. O(1).
    #[inline]
    pub fn atari_liberty(&self, p: Point) -> Option<Point> {
        let libs = self.libs[self.head[p.index()] as usize];
        libs.is_single()
            .then(|| Point::from_index((libs.sum / u32::from(libs.count)) as usize))
    }

    /// Number of stones of the string on `p`; `p` must hold a stone.
    #[inline]
    pub fn string_size(&self, p: Point) -> usize {
        self.stones[self.head[p.index()] as usize] as usize
    }

    /// The stones of the string on `p`; `p` must hold a stone.
    pub fn string_stones(&self, p: Point) -> StringStones<'_> {
        let start = self.head[p.index()];
        StringStones {
            next: &self.next,
            start,
            current: Some(start),
        }
    }

    /// Distinct liberties of the string on `p`, written into `out` until it is full; returns
    /// how many were written. A full `out` means the string has at least that many, and the
    /// scan stops there: a buffer of three answers "two liberties or more than two" cheaply.
    pub fn string_liberties(&self, p: Point, out: &mut [Point]) -> usize {
        if out.is_empty() {
            return 0;
        }
        if out.len() <= SHORT_LIBERTY_LIST {
            return self.string_liberties_short(p, out);
        }
        let mut seen = [0u64; MARK_WORDS];
        let mut n = 0;
        for s in self.string_stones(p) {
            for q in self.neighbors(s) {
                let qi = q.index();
                if self.cells[qi] == Cell::Empty && seen[qi / 64] & (1 << (qi % 64)) == 0 {
                    seen[qi / 64] |= 1 << (qi % 64);
                    out[n] = q;
                    n += 1;
                    if n == out.len() {
                        return n;
                    }
                }
            }
        }
        n
    }

    /// [`Board::string_liberties`] for a short `out`, which is its own list of points seen:
    /// searching a few entries costs less than clearing a bitset of the whole board.
    fn string_liberties_short(&self, p: Point, out: &mut [Point]) -> usize {
        let mut n = 0;
        for s in self.string_stones(p) {
            for q in self.neighbors(s) {
                if self.cells[q.index()] == Cell::Empty && !out[..n].contains(&q) {
                    out[n] = q;
                    n += 1;
                    if n == out.len() {
                        return n;
                    }
                }
            }
        }
        n
    }

    /// Whether `c` may put a stone on the empty-or-not point `p`, as far as the board can tell
    /// (occupied, simple ko, suicide). Suicide is reported; whether it is allowed is a rule.
    pub fn legality(&self, p: Point, c: Color) -> Result<(), BoardIllegal> {
        if self.cells[p.index()] != Cell::Empty {
            Err(BoardIllegal::Occupied)
        } else if self.ko == Some((p, c)) {
            Err(BoardIllegal::Ko)
        } else if self.is_suicide(p, c) {
            Err(BoardIllegal::Suicide)
        } else {
            Ok(())
        }
    }

    /// Whether a stone of `c` on the empty point `p` would have no liberty and capture nothing.
    #[inline]
    pub fn is_suicide(&self, p: Point, c: Color) -> bool {
        !shape3::has_empty_side(self.pattern3[p.index()]) && self.is_suicide_when_enclosed(p, c)
    }

    /// [`Board::is_suicide`] for a point without an empty neighbour.
    ///
    /// Decided without branching on the neighbours, whose colours are random data in a
    /// playout: border cells name the spare head [`NO_STRING`], whose answer is masked out.
    fn is_suicide_when_enclosed(&self, p: Point, c: Color) -> bool {
        let own = Cell::from(c);
        let mut escapes = false;
        for n in self.sides(p.index()) {
            let cell = self.cells[n];
            let atari = self.libs[self.head[n] as usize].is_single();
            // An own string in atari has `p` as its last liberty: joining it gains nothing.
            // An opponent string in atari has `p` as its last liberty: it is captured.
            escapes |= (cell != Cell::Border) & ((cell == own) != atari);
        }
        !escapes
    }

    /// The four orthogonal neighbours of cell `i`: below, left, right, above.
    #[inline]
    fn sides(&self, i: usize) -> [usize; 4] {
        let s = self.stride;
        [i - s, i - 1, i + 1, i + s]
    }

    /// Whether the empty point `p` is an eye of `c`: every neighbour is `c` (or the edge) and
    /// the opponent does not hold enough diagonals to make it false. O(1) on the 3x3 code.
    #[inline]
    pub fn is_eye(&self, p: Point, c: Color) -> bool {
        shape3::is_eye(self.pattern3[p.index()], c)
    }

    /// Whether `c` may play on the empty point `p` (no simple ko, no suicide) and the point is
    /// not `c`'s own eye: the moves random playouts choose from. One look at the 3x3 code
    /// settles the usual case of a point with an empty neighbour.
    #[inline(always)]
    pub fn is_sensible(&self, p: Point, c: Color) -> bool {
        // A ko point never has an empty side: the stone it took was surrounded.
        shape3::has_empty_side(self.pattern3[p.index()]) || self.is_sensible_when_enclosed(p, c)
    }

    /// [`Board::is_sensible`] for a point without an empty neighbour: kept out of line so that
    /// the one-look common case inlines into the playouts' scans of the empty points.
    #[inline(never)]
    fn is_sensible_when_enclosed(&self, p: Point, c: Color) -> bool {
        self.ko != Some((p, c))
            && !shape3::is_eye(self.pattern3[p.index()], c)
            && !self.is_suicide_when_enclosed(p, c)
    }

    /// Whether a stone of `c` on the empty point `p` would leave its string with one liberty
    /// (or none). A capture of two or more stones never counts as a self-atari; a capture of
    /// one stone counts its point as a liberty. Returns the size the string would have, or
    /// `None` when the move is not a self-atari.
    #[inline]
    pub fn self_atari_size(&self, p: Point, c: Color) -> Option<usize> {
        self.self_atari(p, c).map(|s| s.size)
    }

    /// Whether a stone of `c` on the empty point `p` is a self-atari that random playouts do
    /// not play: one of more than `max_throw_in` stones, or one whose last liberty is an empty
    /// point with only `c`'s stones (or the edge) around it, the string's own eye, where the
    /// opponent can play only by taking it. That fills a shared liberty of a seki, or the
    /// liberty before the eye in a race; it never kills. Smaller self-ataris (throw-ins,
    /// nakade) are not bad.
    pub fn is_bad_self_atari(&self, p: Point, c: Color, max_throw_in: usize) -> bool {
        let Some(atari) = self.self_atari(p, c) else {
            return false;
        };
        atari.size > max_throw_in
            || atari.liberty.is_some_and(|l| {
                self.cell(l) == Cell::Empty
                    && self.neighbors(l).into_iter().all(|n| {
                        n == p || self.cell(n) == Cell::Border || self.color_at(n) == Some(c)
                    })
            })
    }

    /// [`Board::self_atari_size`] with the one liberty left, when there is one.
    fn self_atari(&self, p: Point, c: Color) -> Option<SelfAtari> {
        if shape3::has_two_empty_sides(self.pattern3[p.index()]) {
            // Two empty neighbours are two liberties.
            return None;
        }
        let own = Cell::from(c);
        let mut found = [p; 2];
        let mut n_found = 0;
        let mut size = 1;
        let add = |q: Point, found: &mut [Point; 2], n_found: &mut usize| -> bool {
            if q != p && !found[..*n_found].contains(&q) {
                found[*n_found] = q;
                *n_found += 1;
            }
            *n_found >= 2
        };
        let mut heads = [0u16; 4];
        let mut n_heads = 0;
        for n in self.neighbors(p) {
            let cell = self.cells[n.index()];
            if cell == Cell::Empty {
                if add(n, &mut found, &mut n_found) {
                    return None;
                }
            } else if cell == Cell::Border {
                continue;
            } else {
                let h = self.head[n.index()];
                if heads[..n_heads].contains(&h) {
                    continue;
                }
                heads[n_heads] = h;
                n_heads += 1;
                if cell == own {
                    let mut buf = [p; 3];
                    let k = self.string_liberties(n, &mut buf);
                    if k == buf.len() {
                        return None;
                    }
                    size += self.stones[h as usize] as usize;
                    for &q in &buf[..k] {
                        if add(q, &mut found, &mut n_found) {
                            return None;
                        }
                    }
                } else if self.in_atari(n) {
                    // Capturing two or more stones frees room enough; capturing one frees at
                    // least its point (and may still be a ko or a snapback).
                    if self.stones[h as usize] >= 2 || add(n, &mut found, &mut n_found) {
                        return None;
                    }
                }
            }
        }
        Some(SelfAtari {
            size,
            liberty: (n_found == 1).then_some(found[0]),
        })
    }

    /// How many liberties (at most `cap`, itself at most 8) the string of a stone of `c` on the
    /// empty point `p` would have: its empty neighbours, the other liberties of the own
    /// strings it joins, and one point for each opponent string next to it in atari (which it
    /// captures).
    pub fn liberties_after(&self, p: Point, c: Color, cap: usize) -> usize {
        debug_assert!(cap <= 8);
        let own = Cell::from(c);
        let mut found = [p; 8];
        let mut n_found = 0;
        let mut add = |q: Point| {
            if q != p && !found[..n_found].contains(&q) {
                found[n_found] = q;
                n_found += 1;
            }
            n_found >= cap
        };
        // An own string touching `p` on several sides is scanned once.
        let mut heads = [NO_STRING; 4];
        let mut n_heads = 0;
        for n in self.neighbors(p) {
            let cell = self.cells[n.index()];
            if cell == Cell::Empty {
                if add(n) {
                    return cap;
                }
            } else if cell == own {
                let head = self.head[n.index()];
                if heads[..n_heads].contains(&head) {
                    continue;
                }
                heads[n_heads] = head;
                n_heads += 1;
                let mut buf = [p; 9];
                let k = self.string_liberties(n, &mut buf[..=cap]);
                for &q in &buf[..k] {
                    if add(q) {
                        return cap;
                    }
                }
            } else if cell != Cell::Border && self.in_atari(n) && add(n) {
                return cap;
            }
        }
        n_found
    }

    /// Whether the stone on `p` could be taken and the position come back within `moves`
    /// moves: only when its string's stones and the empty regions next to it number `moves`
    /// or fewer, as every one of them must be played on again first (KataGo's
    /// `simpleRepetitionBoundGt`, negated). Any other position needs no history to be known.
    pub fn may_repeat_within(&self, p: Point, moves: usize) -> bool {
        let mut count = self.string_size(p);
        if count + self.liberties(p) > moves {
            return false;
        }
        let mut seen = [false; MAX_CELLS];
        let mut region = Vec::new();
        for stone in self.string_stones(p) {
            for start in self.neighbors(stone) {
                if self.cell(start) != Cell::Empty || seen[start.index()] {
                    continue;
                }
                seen[start.index()] = true;
                region.push(start);
                while let Some(q) = region.pop() {
                    count += 1;
                    if count > moves {
                        return false;
                    }
                    for n in self.neighbors(q) {
                        if self.cell(n) == Cell::Empty && !seen[n.index()] {
                            seen[n.index()] = true;
                            region.push(n);
                        }
                    }
                }
            }
        }
        true
    }

    /// The hash the board would have after `c` plays on `p` (which must be legal on the board,
    /// or a suicide when the rules allow it).
    pub fn hash_after(&self, p: Point, c: Color) -> u64 {
        let opp = Cell::from(c.opponent());
        let mut h = self.hash ^ KEYS[c.index()][p.index()];
        let mut heads = [0u16; 4];
        let mut n_heads = 0;
        let mut captured = false;
        for n in self.neighbors(p) {
            if self.cells[n.index()] != opp {
                continue;
            }
            let head = self.head[n.index()];
            if self.in_atari(n) && !heads[..n_heads].contains(&head) {
                heads[n_heads] = head;
                n_heads += 1;
                captured = true;
                for s in self.string_stones(n) {
                    h ^= KEYS[c.opponent().index()][s.index()];
                }
            }
        }
        if !captured && self.is_suicide(p, c) {
            // The stone and every string it joins come off the board.
            h ^= KEYS[c.index()][p.index()];
            let own = Cell::from(c);
            n_heads = 0;
            for n in self.neighbors(p) {
                if self.cells[n.index()] != own {
                    continue;
                }
                let head = self.head[n.index()];
                if !heads[..n_heads].contains(&head) {
                    heads[n_heads] = head;
                    n_heads += 1;
                    for s in self.string_stones(n) {
                        h ^= KEYS[c.index()][s.index()];
                    }
                }
            }
        }
        h
    }

    /// A pass: only clears the ko point.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = None;
    }

    /// Puts a stone of `c` on the empty point `p`, captures what it kills and, if it then has
    /// no liberty (a suicide the rules allowed), removes its own string. Returns the number of
    /// opponent stones captured. The caller checks legality first.
    ///
    /// The common work is done without branching on what the neighbours hold, since in a
    /// playout that is random data a branch predictor cannot learn: every neighbour's string
    /// loses `p` as a pseudo-liberty (empty and border cells name the spare head
    /// [`NO_STRING`], whose count absorbs the updates), and the new stone's own liberties are
    /// summed with masks. The sides to merge with and the strings to capture are gathered as
    /// bit masks; only the merges and captures themselves take branches.
    pub fn play(&mut self, p: Point, c: Color) -> u32 {
        let pi = p.index();
        debug_assert_eq!(self.cells[pi], Cell::Empty);
        let own = Cell::from(c);
        let opp = Cell::from(c.opponent());
        self.ko = None;
        self.set_cell(pi, own);
        self.remove_empty(pi);
        self.hash ^= KEYS[c.index()][pi];

        // Every neighbour is looked at as it was before the move; captures come after, so
        // that the points they free are credited exactly once.
        let sides = self.sides(pi);
        let mut own_libs = PseudoLibs::NONE;
        for n in sides {
            let h = self.head[n] as usize;
            self.libs[h].remove_wrapping(pi);
            own_libs.add_if(n, self.cells[n] == Cell::Empty);
        }
        self.head[pi] = pi as u16;
        self.next[pi] = pi as u16;
        self.stones[pi] = 1;
        self.libs[pi] = own_libs;
        // Which sides hold own stones to merge with, and which hold opponent strings left
        // without a liberty: one bit per side, gathered without branches.
        let mut own_sides = 0u32;
        for (k, &n) in sides.iter().enumerate() {
            own_sides |= u32::from(self.cells[n] == own) << k;
        }
        for k in bits(own_sides) {
            let g = self.head[pi] as usize;
            let h = self.head[sides[k]] as usize;
            if h != g {
                self.merge(g, h);
            }
        }

        let mut dead_sides = 0u32;
        for (k, &n) in sides.iter().enumerate() {
            let dead = (self.cells[n] == opp) & (self.libs[self.head[n] as usize].count == 0);
            dead_sides |= u32::from(dead) << k;
        }
        let mut captured = 0;
        let mut single_capture = pi;
        if dead_sides != 0 {
            for k in bits(dead_sides) {
                let n = sides[k];
                // A string captured through two sides is gone after the first.
                if self.cells[n] == opp {
                    captured += self.remove_string(self.head[n] as usize, c.opponent());
                    single_capture = n;
                }
            }
            self.captures[c.index()] += captured;
        }

        let g = self.head[pi] as usize;
        if captured == 1 && self.stones[g] == 1 && self.libs[g].count == 1 {
            self.ko = Some((Point::from_index(single_capture), c.opponent()));
        }
        if self.libs[g].count == 0 {
            let lost = self.remove_string(g, c);
            self.captures[c.opponent().index()] += lost;
        }
        captured
    }

    /// Merges the strings with heads `a` and `b`, relabelling the smaller one; returns the
    /// surviving head.
    fn merge(&mut self, a: usize, b: usize) -> usize {
        let (big, small) = if self.stones[a] >= self.stones[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.stones[big] += self.stones[small];
        let absorbed = self.libs[small];
        self.libs[big].absorb(absorbed);
        big
    }

    /// Counts the distinct liberties of the string with head `g`.
    fn count_liberties(&self, g: usize) -> u16 {
        let mut seen = [0u64; MARK_WORDS];
        let mut n = 0;
        for s in self.string_stones(Point::from_index(g)) {
            for q in self.neighbors(s) {
                let qi = q.index();
                if self.cells[qi] == Cell::Empty && seen[qi / 64] & (1 << (qi % 64)) == 0 {
                    seen[qi / 64] |= 1 << (qi % 64);
                    n += 1;
                }
            }
        }
        n
    }

    /// Takes the string with head `g` (of colour `c`) off the board, giving each freed point
    /// as a pseudo-liberty to every adjacent stone of the other colour. Returns the number of
    /// stones removed.
    fn remove_string(&mut self, g: usize, c: Color) -> u32 {
        let other = Cell::from(c.opponent());
        let mut stone = g;
        let mut removed = 0;
        loop {
            let next = self.next[stone] as usize;
            self.head[stone] = NO_STRING;
            self.set_cell(stone, Cell::Empty);
            self.add_empty(stone);
            self.hash ^= KEYS[c.index()][stone];
            removed += 1;
            // Other cells name the spare head or this string, and add nothing.
            for n in self.sides(stone) {
                let h = self.head[n] as usize;
                self.libs[h].add_if(stone, self.cells[n] == other);
            }
            stone = next;
            if stone == g {
                break;
            }
        }
        removed
    }

    /// Changes what is on cell `i` (never a border cell) and the 3x3 codes around it.
    #[inline]
    fn set_cell(&mut self, i: usize, cell: Cell) {
        let old = self.cells[i];
        self.cells[i] = cell;
        let s = self.stride;
        let change = (old as u16) ^ (cell as u16);
        // Cell `i` is neighbour `k` of the cell at offset `-k` from it, which sees `i` as its
        // neighbour `7 - k` (the offsets list is symmetric): the cell below-left sees `i` as
        // its upper-right neighbour (field 2), and so on.
        self.pattern3[i - s - 1] ^= change << 4;
        self.pattern3[i - s] ^= change << 2;
        self.pattern3[i - s + 1] ^= change;
        self.pattern3[i - 1] ^= change << 8;
        self.pattern3[i + 1] ^= change << 6;
        self.pattern3[i + s - 1] ^= change << 14;
        self.pattern3[i + s] ^= change << 12;
        self.pattern3[i + s + 1] ^= change << 10;
    }

    #[inline]
    fn add_empty(&mut self, i: usize) {
        self.empty_pos[i] = self.n_empty as u16;
        self.empties[self.n_empty] = i as u16;
        self.n_empty += 1;
    }

    #[inline]
    fn remove_empty(&mut self, i: usize) {
        let k = self.empty_pos[i] as usize;
        self.n_empty -= 1;
        let last = self.empties[self.n_empty];
        self.empties[k] = last;
        self.empty_pos[last as usize] = k as u16;
    }

    /// A board of `size` with black stones on the vertices `black`, then white ones on
    /// `white` (placed in that order, captures included): the tests' way to set a position.
    #[cfg(test)]
    pub(crate) fn with_stones(size: usize, black: &[&str], white: &[&str]) -> Board {
        let mut b = Board::new(size);
        for (stones, c) in [(black, Color::Black), (white, Color::White)] {
            for v in stones {
                b.play(Point::parse(v, size).expect("a test vertex"), c);
            }
        }
        b
    }

    /// Recomputes everything derived from the stones and compares it with the incremental
    /// state; used by tests to check the board's invariants.
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        let mut hash = 0;
        let mut n_empty = 0;
        for p in self.points() {
            let i = p.index();
            assert_eq!(
                self.pattern3_from_scratch(i),
                self.pattern3[i],
                "3x3 pattern"
            );
            match self.cells[i] {
                Cell::Empty => {
                    n_empty += 1;
                    assert_eq!(self.head[i], NO_STRING, "head of an empty point");
                    assert_eq!(self.empties[self.empty_pos[i] as usize] as usize, i);
                }
                Cell::Border => panic!("border inside the board"),
                cell => {
                    let c = cell.color().unwrap();
                    hash ^= KEYS[c.index()][i];
                    let head = self.head[i] as usize;
                    // Flood fill the string and compare with the ring.
                    let mut members = vec![i];
                    let mut in_string = [false; MAX_CELLS];
                    in_string[i] = true;
                    let mut k = 0;
                    while k < members.len() {
                        for n in self.neighbors(Point::from_index(members[k])) {
                            if self.cells[n.index()] == cell && !in_string[n.index()] {
                                in_string[n.index()] = true;
                                members.push(n.index());
                            }
                        }
                        k += 1;
                    }
                    for &m in &members {
                        assert_eq!(self.head[m] as usize, head, "string head");
                    }
                    assert_eq!(self.stones[head] as usize, members.len(), "string size");
                    assert_eq!(self.string_stones(p).count(), members.len(), "string ring");
                    let mut pseudo = PseudoLibs::NONE;
                    for &m in &members {
                        for n in self.neighbors(Point::from_index(m)) {
                            if self.cells[n.index()] == Cell::Empty {
                                pseudo.add_if(n.index(), true);
                            }
                        }
                    }
                    assert_eq!(self.libs[head], pseudo, "pseudo-liberties");
                    let libs = self.count_liberties(head);
                    assert!(libs > 0, "string without liberty left on the board");
                    assert_eq!(self.in_atari(p), libs == 1, "atari");
                }
            }
        }
        assert_eq!(n_empty, self.n_empty);
        assert_eq!(hash, self.hash);
    }
}

/// A self-atari: the size the string would have and its one liberty left (`None` when it
/// would have none).
#[derive(Copy, Clone, Debug)]
struct SelfAtari {
    size: usize,
    liberty: Option<Point>,
}

/// Iterator over the stones of one string.
pub struct StringStones<'a> {
    next: &'a Grid<u16>,
    start: u16,
    current: Option<u16>,
}

impl Iterator for StringStones<'_> {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        let s = self.current?;
        let n = self.next[s as usize];
        self.current = (n != self.start).then_some(n);
        Some(Point::from_index(s as usize))
    }
}

#[cfg(test)]
mod tests;
