//! The board: stones, strings (groups) with exact liberty counts, captures, the simple-ko
//! point and an incremental Zobrist hash. It knows nothing of history, rule options or players:
//! positional superko and the suicide option live in [`crate::game`].
//!
//! The board is a fixed-size `Copy`-able struct, so a playout copies it and allocates nothing.

mod color;
pub mod playout;
mod point;
mod zobrist;

pub use color::{Color, ParseColorError};
pub use point::{MAX_CELLS, MAX_SIZE, MAX_STRIDE, MIN_SIZE, Move, Point, VertexError};

use zobrist::KEYS;

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

/// Words of the stack bitset used to deduplicate liberties.
const MARK_WORDS: usize = MAX_CELLS.div_ceil(64);

/// A Go board of size 2..=25.
#[derive(Clone)]
pub struct Board {
    size: usize,
    stride: usize,
    cells: [Cell; MAX_CELLS],
    /// For a stone: the head point of its string.
    head: [u16; MAX_CELLS],
    /// For a stone: the next stone of its string (a ring).
    next: [u16; MAX_CELLS],
    /// For a string head: its number of distinct liberties.
    libs: [u16; MAX_CELLS],
    /// For a string head: its number of stones.
    stones: [u16; MAX_CELLS],
    /// The empty points, in no particular order.
    empties: [u16; MAX_SIZE * MAX_SIZE],
    /// For an empty point: its index in `empties`.
    empty_pos: [u16; MAX_CELLS],
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
            cells: [Cell::Border; MAX_CELLS],
            head: [0; MAX_CELLS],
            next: [0; MAX_CELLS],
            libs: [0; MAX_CELLS],
            stones: [0; MAX_CELLS],
            empties: [0; MAX_SIZE * MAX_SIZE],
            empty_pos: [0; MAX_CELLS],
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
        board
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
        let i = p.index();
        let s = self.stride;
        [i - s, i - 1, i + 1, i + s].map(Point::from_index)
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

    /// Liberties of the string on `p`; `p` must hold a stone.
    #[inline]
    pub fn liberties(&self, p: Point) -> usize {
        self.libs[self.head[p.index()] as usize] as usize
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

    /// Up to `max` distinct liberties of the string on `p`, written into `out`; returns how many.
    pub fn string_liberties(&self, p: Point, out: &mut [Point]) -> usize {
        let mut seen = [0u64; MARK_WORDS];
        let mut n = 0;
        for s in self.string_stones(p) {
            for q in self.neighbors(s) {
                let qi = q.index();
                if self.cells[qi] == Cell::Empty && seen[qi / 64] & (1 << (qi % 64)) == 0 {
                    seen[qi / 64] |= 1 << (qi % 64);
                    if n == out.len() {
                        return n;
                    }
                    out[n] = q;
                    n += 1;
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
        let own = Cell::from(c);
        for n in self.neighbors(p) {
            let cell = self.cells[n.index()];
            if cell == Cell::Empty {
                return false;
            }
            if cell == Cell::Border {
                continue;
            }
            let libs = self.liberties(n);
            let joins_living_string = cell == own && libs > 1;
            let captures = cell != own && libs == 1;
            if joins_living_string || captures {
                return false;
            }
        }
        true
    }

    /// Whether the empty point `p` is an eye of `c`: every neighbour is `c` (or the edge) and
    /// the opponent does not hold enough diagonals to make it false.
    #[inline]
    pub fn is_eye(&self, p: Point, c: Color) -> bool {
        let own = Cell::from(c);
        let mut at_edge = false;
        for n in self.neighbors(p) {
            match self.cells[n.index()] {
                Cell::Border => at_edge = true,
                cell if cell != own => return false,
                _ => {}
            }
        }
        let opp = Cell::from(c.opponent());
        let bad = self
            .diagonals(p)
            .iter()
            .filter(|d| self.cells[d.index()] == opp)
            .count();
        bad < if at_edge { 1 } else { 2 }
    }

    /// Whether a stone of `c` on the empty point `p` would leave its string with one liberty
    /// (or none). A capture of two or more stones never counts as a self-atari; a capture of
    /// one stone counts its point as a liberty. Returns the size the string would have, or
    /// `None` when the move is not a self-atari.
    pub fn self_atari_size(&self, p: Point, c: Color) -> Option<usize> {
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
                let libs = self.libs[h as usize];
                if cell == own {
                    if libs > 2 {
                        return None;
                    }
                    size += self.stones[h as usize] as usize;
                    let mut buf = [p; 3];
                    let k = self.string_liberties(n, &mut buf);
                    for &q in &buf[..k] {
                        if add(q, &mut found, &mut n_found) {
                            return None;
                        }
                    }
                } else if libs == 1 {
                    // Capturing two or more stones frees room enough; capturing one frees at
                    // least its point (and may still be a ko or a snapback).
                    if self.stones[h as usize] >= 2 || add(n, &mut found, &mut n_found) {
                        return None;
                    }
                }
            }
        }
        Some(size)
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
            if self.libs[head as usize] == 1 && !heads[..n_heads].contains(&head) {
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
    pub fn play(&mut self, p: Point, c: Color) -> u32 {
        let pi = p.index();
        debug_assert_eq!(self.cells[pi], Cell::Empty);
        let own = Cell::from(c);
        let opp = Cell::from(c.opponent());
        self.ko = None;
        self.cells[pi] = own;
        self.remove_empty(pi);
        self.hash ^= KEYS[c.index()][pi];
        self.head[pi] = pi as u16;
        self.next[pi] = pi as u16;
        self.stones[pi] = 1;

        let mut own_heads = [0u16; 4];
        let mut n_own = 0;
        let mut opp_heads = [0u16; 4];
        let mut n_opp = 0;
        let mut empty_neighbors = 0;
        for n in self.neighbors(p) {
            let ni = n.index();
            let cell = self.cells[ni];
            if cell == Cell::Empty {
                empty_neighbors += 1;
            } else if cell == own {
                let h = self.head[ni];
                if !own_heads[..n_own].contains(&h) {
                    own_heads[n_own] = h;
                    n_own += 1;
                }
            } else if cell == opp {
                let h = self.head[ni];
                if !opp_heads[..n_opp].contains(&h) {
                    opp_heads[n_opp] = h;
                    n_opp += 1;
                }
            }
        }

        if n_own == 0 {
            self.libs[pi] = empty_neighbors;
        } else {
            self.extend_string(p, &own_heads[..n_own]);
        }

        let mut captured = 0;
        let mut last_captured = pi;
        for &h in &opp_heads[..n_opp] {
            let h = h as usize;
            self.libs[h] -= 1;
            if self.libs[h] == 0 {
                captured += self.remove_string(h, c.opponent());
                last_captured = h;
            }
        }
        self.captures[c.index()] += captured;

        let g = self.head[pi] as usize;
        if captured == 1 && self.stones[g] == 1 && self.libs[g] == 1 {
            self.ko = Some((Point::from_index(last_captured), c.opponent()));
        }
        if self.libs[g] == 0 {
            let lost = self.remove_string(g, c);
            self.captures[c.opponent().index()] += lost;
        }
        captured
    }

    /// Joins the new stone on `p` to the adjacent own strings `heads`, keeping the liberty count
    /// exact: the largest string keeps its count less `p`, and gains every liberty of the
    /// smaller strings (and every empty neighbour of `p`) it did not already touch. Only the
    /// smaller strings are scanned.
    fn extend_string(&mut self, p: Point, heads: &[u16]) {
        let big = heads
            .iter()
            .map(|&h| h as usize)
            .max_by_key(|&h| self.stones[h])
            .unwrap_or(p.index());
        let mut libs = self.libs[big] - 1;
        if heads.len() == 1 {
            // Extending one string: the empty neighbours of `p` are distinct by themselves.
            for n in self.neighbors(p) {
                if self.cells[n.index()] == Cell::Empty && !self.touches_string(n, p, big) {
                    libs += 1;
                }
            }
            let g = self.join(big, p.index());
            self.libs[g] = libs;
            return;
        }
        let mut counted = [0u64; MARK_WORDS];
        let mut consider = |board: &Board, q: Point| {
            let qi = q.index();
            if board.cells[qi] == Cell::Empty && q != p && counted[qi / 64] & (1 << (qi % 64)) == 0
            {
                counted[qi / 64] |= 1 << (qi % 64);
                if !board.touches_string(q, p, big) {
                    libs += 1;
                }
            }
        };
        for n in self.neighbors(p) {
            consider(self, n);
        }
        for &h in heads {
            if h as usize != big {
                for s in self.string_stones(Point::from_index(h as usize)) {
                    for q in self.neighbors(s) {
                        consider(self, q);
                    }
                }
            }
        }
        let mut g = self.join(big, p.index());
        for &h in heads {
            if h as usize != big {
                g = self.join(g, h as usize);
            }
        }
        self.libs[g] = libs;
    }

    /// Whether the empty point `q` touches the string with head `g` other than through `except`.
    #[inline]
    fn touches_string(&self, q: Point, except: Point, g: usize) -> bool {
        self.neighbors(q).iter().any(|&r| {
            r != except
                && self.cells[r.index()].color().is_some()
                && self.head[r.index()] as usize == g
        })
    }

    /// Merges the strings with heads `a` and `b`; returns the surviving head. Liberty counts
    /// of the result are the caller's business.
    fn join(&mut self, a: usize, b: usize) -> usize {
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
        big
    }

    /// Counts the distinct liberties of the string with head `g` from scratch.
    #[cfg(test)]
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

    /// Takes the string with head `g` (of colour `c`) off the board, giving its points as
    /// liberties to the strings around it. Returns the number of stones removed.
    fn remove_string(&mut self, g: usize, c: Color) -> u32 {
        let other = Cell::from(c.opponent());
        let mut s = g;
        let mut removed = 0;
        loop {
            let next = self.next[s] as usize;
            self.cells[s] = Cell::Empty;
            self.add_empty(s);
            self.hash ^= KEYS[c.index()][s];
            removed += 1;
            let mut credited = [0u16; 4];
            let mut n_credited = 0;
            for n in self.neighbors(Point::from_index(s)) {
                let ni = n.index();
                if self.cells[ni] == other {
                    let h = self.head[ni];
                    if !credited[..n_credited].contains(&h) {
                        credited[n_credited] = h;
                        n_credited += 1;
                        self.libs[h as usize] += 1;
                    }
                }
            }
            s = next;
            if s == g {
                break;
            }
        }
        removed
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

    /// Recomputes everything derived from the stones and compares it with the incremental
    /// state; used by tests to check the board's invariants.
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        let mut hash = 0;
        let mut n_empty = 0;
        for p in self.points() {
            let i = p.index();
            match self.cells[i] {
                Cell::Empty => {
                    n_empty += 1;
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
                    assert_eq!(self.libs[head], self.count_liberties(head), "liberties");
                    assert!(
                        self.libs[head] > 0,
                        "string without liberty left on the board"
                    );
                }
            }
        }
        assert_eq!(n_empty, self.n_empty);
        assert_eq!(hash, self.hash);
    }
}

/// Iterator over the stones of one string.
pub struct StringStones<'a> {
    next: &'a [u16; MAX_CELLS],
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
