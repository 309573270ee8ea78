//! KataGo's board (`cpp/game/board.cpp`) as the net's inputs need it: strings kept as KataGo
//! keeps them (circular stone lists, a head per string, liberty counts), KataGo's simple-ko
//! point, and moves played and taken back as it plays them.
//!
//! This is the second home of the board, for the net's sake: KataGo's ladder reading
//! (`ladder`) walks strings and liberties in KataGo's order and stops at its node budget, so it
//! only gives KataGo's answers on KataGo's representation. Points here are KataGo's locations:
//! `(x + 1) + (y + 1) * (size + 1)`, `y = 0` the top row.

use crate::rules::board::{MAX_SIZE, splitmix};

/// A point's content, as KataGo numbers it.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

/// No location (KataGo's `NULL_LOC`).
pub(crate) const NULL_LOC: usize = 0;

/// Cells of the padded array for the largest board: KataGo's `MAX_ARR_SIZE`.
pub(crate) const ARR: usize = (MAX_SIZE + 1) * (MAX_SIZE + 2) + 1;

/// The other player.
pub(crate) fn opp(pla: u8) -> u8 {
    3 - pla
}

const fn zobrist() -> [[u64; ARR]; 3] {
    let mut table = [[0u64; ARR]; 3];
    let mut i = 0;
    while i < ARR {
        table[1][i] = splitmix((3 * i + 1) as u64 ^ 0x6B61_7461_676F);
        table[2][i] = splitmix((3 * i + 2) as u64 ^ 0x6B61_7461_676F);
        i += 1;
    }
    table
}

/// `KEYS[color][loc]`, xor-ed into the position hash for a stone.
static KEYS: [[u64; ARR]; 3] = zobrist();

/// What `play_recorded` needs to take a move back.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct MoveRecord {
    pla: u8,
    loc: usize,
    ko_loc: usize,
    /// Bits 0-3: directions of captures; `0x10`: the move was suicide.
    cap_dirs: u8,
}

/// A position on KataGo's representation.
#[derive(Clone)]
pub(crate) struct KataBoard {
    pub size: usize,
    pub colors: [u8; ARR],
    /// The head location of each stone's string.
    pub chain_head: [u16; ARR],
    /// The next stone of the string, circularly.
    next_in_chain: [u16; ARR],
    /// Stones of the string whose head is the index.
    num_locs: [u16; ARR],
    /// Liberties of the string whose head is the index.
    num_liberties: [u16; ARR],
    /// The simple-ko point, `NULL_LOC` if none.
    pub ko_loc: usize,
    /// Zobrist hash of the stones.
    pub pos_hash: u64,
    /// Black stones captured so far (KataGo's `numBlackCaptures`).
    pub num_black_captures: i32,
    /// White stones captured so far.
    pub num_white_captures: i32,
    /// Up, left, right, down.
    pub adj: [isize; 4],
}

impl KataBoard {
    /// An empty board of `size` (2 to `MAX_SIZE`).
    pub fn new(size: usize) -> KataBoard {
        let mut colors = [WALL; ARR];
        for y in 0..size {
            for x in 0..size {
                colors[(x + 1) + (y + 1) * (size + 1)] = EMPTY;
            }
        }
        let stride = (size + 1) as isize;
        KataBoard {
            size,
            colors,
            chain_head: [0; ARR],
            next_in_chain: [0; ARR],
            num_locs: [0; ARR],
            num_liberties: [0; ARR],
            ko_loc: NULL_LOC,
            pos_hash: splitmix(size as u64),
            num_black_captures: 0,
            num_white_captures: 0,
            adj: [-stride, -1, 1, stride],
        }
    }

    /// The location of column `x`, row `y` (0 the top row).
    #[inline]
    pub fn loc(&self, x: usize, y: usize) -> usize {
        (x + 1) + (y + 1) * (self.size + 1)
    }

    #[inline]
    fn at(&self, loc: usize, dir: usize) -> usize {
        (loc as isize + self.adj[dir]) as usize
    }

    #[inline]
    fn head(&self, loc: usize) -> usize {
        self.chain_head[loc] as usize
    }

    /// Liberties of the string at `loc` (a stone).
    #[inline]
    pub fn libs(&self, loc: usize) -> usize {
        self.num_liberties[self.head(loc)] as usize
    }

    /// Stones of the string at `loc` (a stone).
    #[inline]
    pub fn chain_size(&self, loc: usize) -> usize {
        self.num_locs[self.head(loc)] as usize
    }

    /// Whether a stone of `pla` at `loc` would be left without liberties (KataGo's `isSuicide`).
    pub fn is_suicide(&self, loc: usize, pla: u8) -> bool {
        let opp = opp(pla);
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            let c = self.colors[adj];
            if c == EMPTY || (c == pla && self.libs(adj) > 1) || (c == opp && self.libs(adj) == 1) {
                return false;
            }
        }
        true
    }

    /// Whether `pla` at `loc` is a suicide the rules forbid: any single-stone suicide, and a
    /// multi-stone one unless `multi_stone_suicide_legal`.
    pub fn is_illegal_suicide(&self, loc: usize, pla: u8, multi_stone_suicide_legal: bool) -> bool {
        let opp = opp(pla);
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            let c = self.colors[adj];
            if c == EMPTY
                || (c == pla && (multi_stone_suicide_legal || self.libs(adj) > 1))
                || (c == opp && self.libs(adj) == 1)
            {
                return false;
            }
        }
        true
    }

    /// KataGo's `isLegal` for a point (not pass): empty, not the ko point, no illegal suicide.
    pub fn is_legal(&self, loc: usize, pla: u8, multi_stone_suicide_legal: bool) -> bool {
        self.colors[loc] == EMPTY
            && loc != self.ko_loc
            && !self.is_illegal_suicide(loc, pla, multi_stone_suicide_legal)
    }

    /// Whether `pla` at `loc` would take a ko: every neighbour the opponent's (or the edge),
    /// exactly one of them a lone stone in atari.
    pub fn would_be_ko_capture(&self, loc: usize, pla: u8) -> bool {
        if self.colors[loc] != EMPTY {
            return false;
        }
        let opp = opp(pla);
        let mut capturable = NULL_LOC;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            let c = self.colors[adj];
            if c != WALL && c != opp {
                return false;
            }
            if c == opp && self.libs(adj) == 1 {
                if capturable != NULL_LOC {
                    return false;
                }
                capturable = adj;
            }
        }
        capturable != NULL_LOC && self.chain_size(capturable) == 1
    }

    /// Empty neighbours of `loc`.
    pub fn immediate_libs(&self, loc: usize) -> usize {
        (0..4)
            .filter(|&dir| self.colors[self.at(loc, dir)] == EMPTY)
            .count()
    }

    /// KataGo's `countHeuristicConnectionLibertiesX2`: twice the liberties, less 3, of each
    /// neighbouring string of `pla` with more than one.
    pub fn heuristic_connection_libs_x2(&self, loc: usize, pla: u8) -> i32 {
        let mut total = 0;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == pla {
                let libs = self.libs(adj) as i32;
                if libs > 1 {
                    total += libs * 2 - 3;
                }
            }
        }
        total
    }

    /// KataGo's `getBoundNumLibertiesAfterPlay`: quick lower and upper bounds.
    pub fn bound_libs_after_play(&self, loc: usize, pla: u8) -> (usize, usize) {
        let opp = opp(pla);
        let (mut immediate, mut caps, mut cap_stones, mut conn, mut max_conn) = (0, 0, 0, 0, 0);
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            let c = self.colors[adj];
            if c == EMPTY {
                immediate += 1;
            } else if c == opp {
                if self.libs(adj) == 1 {
                    caps += 1;
                    cap_stones += self.chain_size(adj);
                }
            } else if c == pla {
                let conn_libs = self.libs(adj) - 1;
                conn += conn_libs;
                max_conn = max_conn.max(conn_libs);
            }
        }
        (
            caps + max_conn.max(immediate),
            immediate + cap_stones + conn,
        )
    }

    /// KataGo's `getNumLibertiesAfterPlay`: the liberties of a stone of `pla` at `loc`, capped
    /// at `max`.
    pub fn libs_after_play(&self, loc: usize, pla: u8, max: usize) -> usize {
        let opp = opp(pla);
        let mut libs = [NULL_LOC; ARR];
        let mut num_libs = 0;
        let mut captured = [NULL_LOC; 4];
        let mut num_captured = 0;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            let c = self.colors[adj];
            if c == EMPTY || (c == opp && self.libs(adj) == 1) {
                libs[num_libs] = adj;
                num_libs += 1;
                if num_libs >= max {
                    return max;
                }
                if c == opp {
                    let head = self.head(adj);
                    if !captured[..num_captured].contains(&head) {
                        captured[num_captured] = head;
                        num_captured += 1;
                    }
                }
            }
        }
        let would_be_empty = |l: usize| {
            self.colors[l] == EMPTY
                || (self.colors[l] == opp && captured[..num_captured].contains(&self.head(l)))
        };
        for head in self.adjacent_heads(loc, pla) {
            let mut cur = head;
            loop {
                for k in 0..4 {
                    let lib = self.at(cur, k);
                    if lib != loc && would_be_empty(lib) && !libs[..num_libs].contains(&lib) {
                        libs[num_libs] = lib;
                        num_libs += 1;
                        if num_libs >= max {
                            return max;
                        }
                    }
                }
                cur = self.next_in_chain[cur] as usize;
                if cur == head {
                    break;
                }
            }
        }
        num_libs
    }

    /// The heads of the strings of `pla` next to `loc`, each once.
    fn adjacent_heads(&self, loc: usize, pla: u8) -> impl Iterator<Item = usize> + use<> {
        let mut heads = [NULL_LOC; 4];
        let mut num_heads = 0;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == pla && !heads[..num_heads].contains(&self.head(adj)) {
                heads[num_heads] = self.head(adj);
                num_heads += 1;
            }
        }
        heads.into_iter().take(num_heads)
    }

    /// Whether the empty `loc` touches the string whose head is `head`.
    fn is_liberty_of(&self, loc: usize, head: usize) -> bool {
        (0..4).any(|dir| {
            let adj = self.at(loc, dir);
            self.colors[adj] == self.colors[head] && self.head(adj) == head
        })
    }

    /// Whether `loc` touches a stone of `pla` of the string headed by `pla_head`.
    pub fn is_adjacent_to_pla_head(&self, pla: u8, loc: usize, pla_head: usize) -> bool {
        (0..4).any(|dir| {
            let adj = self.at(loc, dir);
            self.colors[adj] == pla && self.head(adj) == pla_head
        })
    }

    /// Whether `loc` touches a stone of `pla`.
    pub fn is_adjacent_to_pla(&self, loc: usize, pla: u8) -> bool {
        (0..4).any(|dir| self.colors[self.at(loc, dir)] == pla)
    }

    fn merge_chains(&mut self, loc1: usize, loc2: usize) {
        let mut head1 = self.head(loc1);
        let mut head2 = self.head(loc2);
        if self.num_locs[head1] < self.num_locs[head2] {
            std::mem::swap(&mut head1, &mut head2);
        }
        self.num_locs[head1] += self.num_locs[head2];
        let mut new_libs = 0;
        let mut loc = head2;
        loop {
            for dir in 0..4 {
                let adj = self.at(loc, dir);
                if self.colors[adj] == EMPTY && !self.is_liberty_of(adj, head1) {
                    new_libs += 1;
                }
            }
            self.chain_head[loc] = head1 as u16;
            if self.next_in_chain[loc] as usize != head2 {
                loc = self.next_in_chain[loc] as usize;
            } else {
                break;
            }
        }
        self.num_liberties[head1] += new_libs;
        self.next_in_chain[loc] = self.next_in_chain[head1];
        self.next_in_chain[head1] = head2 as u16;
    }

    /// Removes the string at `loc`; returns its stone count.
    fn remove_chain(&mut self, loc: usize) -> i32 {
        let mut removed = 0;
        let opp = opp(self.colors[loc]);
        let mut cur = loc;
        loop {
            self.pos_hash ^= KEYS[self.colors[cur] as usize][cur];
            self.colors[cur] = EMPTY;
            removed += 1;
            self.change_surrounding_liberties(cur, opp, 1);
            cur = self.next_in_chain[cur] as usize;
            if cur == loc {
                break;
            }
        }
        removed
    }

    fn change_surrounding_liberties(&mut self, loc: usize, pla: u8, delta: i32) {
        for head in self.adjacent_heads(loc, pla) {
            self.num_liberties[head] = (self.num_liberties[head] as i32 + delta) as u16;
        }
    }

    /// Gives every stone of the string at `loc` the head `head`.
    fn set_chain_head(&mut self, loc: usize, head: usize) {
        let mut cur = loc;
        loop {
            self.chain_head[cur] = head as u16;
            cur = self.next_in_chain[cur] as usize;
            if cur == loc {
                break;
            }
        }
    }

    /// Fills the empty region at `loc` with a string of `pla` headed by `loc` (undo of a
    /// capture).
    fn add_chain(&mut self, loc: usize, pla: u8) {
        self.num_liberties[loc] = 0;
        self.num_locs[loc] = 0;
        let front = self.add_chain_helper(loc, loc, loc, pla);
        self.next_in_chain[loc] = front as u16;
    }

    fn add_chain_helper(&mut self, head: usize, tail_target: usize, loc: usize, pla: u8) -> usize {
        self.colors[loc] = pla;
        self.pos_hash ^= KEYS[pla as usize][loc];
        self.chain_head[loc] = head as u16;
        self.num_locs[head] += 1;
        self.next_in_chain[loc] = tail_target as u16;
        self.change_surrounding_liberties(loc, opp(pla), -1);
        let mut next_tail = loc;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == EMPTY {
                next_tail = self.add_chain_helper(head, next_tail, adj, pla);
            }
        }
        next_tail
    }

    fn rebuild_chain(&mut self, loc: usize, pla: u8) {
        self.num_liberties[loc] = 0;
        self.num_locs[loc] = 0;
        let front = self.rebuild_chain_helper(loc, loc, loc, pla);
        self.next_in_chain[loc] = front as u16;
    }

    fn rebuild_chain_helper(
        &mut self,
        head: usize,
        tail_target: usize,
        loc: usize,
        pla: u8,
    ) -> usize {
        let mut new_libs = 0;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == EMPTY && !self.is_liberty_of(adj, head) {
                new_libs += 1;
            }
        }
        self.num_liberties[head] += new_libs;
        self.chain_head[loc] = head as u16;
        self.num_locs[head] += 1;
        self.next_in_chain[loc] = tail_target as u16;
        let mut next_tail = loc;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == pla && self.head(adj) != head {
                next_tail = self.rebuild_chain_helper(head, next_tail, adj, pla);
            }
        }
        next_tail
    }

    /// Plays `pla` at the empty `loc` (KataGo's `playMoveAssumeLegal`): captures, the simple-ko
    /// point, suicide removed.
    pub fn play(&mut self, loc: usize, pla: u8) {
        let opp = opp(pla);
        self.colors[loc] = pla;
        self.pos_hash ^= KEYS[pla as usize][loc];
        self.num_locs[loc] = 1;
        self.num_liberties[loc] = self.immediate_libs(loc) as u16;
        self.chain_head[loc] = loc as u16;
        self.next_in_chain[loc] = loc as u16;

        let mut num_captured = 0;
        let mut possible_ko = NULL_LOC;
        let mut opp_heads = [NULL_LOC; 4];
        let mut num_opps = 0;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == pla {
                if self.head(adj) == self.head(loc) {
                    continue;
                }
                let h = self.head(adj);
                self.num_liberties[h] -= 1;
                self.merge_chains(adj, loc);
            } else if self.colors[adj] == opp {
                let opp_head = self.head(adj);
                if opp_heads[..num_opps].contains(&opp_head) {
                    continue;
                }
                self.num_liberties[opp_head] -= 1;
                opp_heads[num_opps] = opp_head;
                num_opps += 1;
                if self.libs(adj) == 0 {
                    num_captured += self.remove_chain(adj);
                    possible_ko = adj;
                }
            }
        }
        let head = self.head(loc);
        self.ko_loc =
            if num_captured == 1 && self.num_locs[head] == 1 && self.num_liberties[head] == 1 {
                possible_ko
            } else {
                NULL_LOC
            };
        if pla == BLACK {
            self.num_white_captures += num_captured;
        } else {
            self.num_black_captures += num_captured;
        }
        if self.libs(loc) == 0 {
            let suicided = self.remove_chain(loc);
            if pla == BLACK {
                self.num_black_captures += suicided;
            } else {
                self.num_white_captures += suicided;
            }
        }
    }

    /// Plays as `play` and returns what `undo` needs.
    pub fn play_recorded(&mut self, loc: usize, pla: u8) -> MoveRecord {
        let opp = opp(pla);
        let mut cap_dirs = 0u8;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if self.colors[adj] == opp && self.libs(adj) == 1 {
                cap_dirs |= 1 << dir;
            }
        }
        if cap_dirs == 0 && self.is_suicide(loc, pla) {
            cap_dirs = 0x10;
        }
        let record = MoveRecord {
            pla,
            loc,
            ko_loc: self.ko_loc,
            cap_dirs,
        };
        self.play(loc, pla);
        record
    }

    /// Takes back the move of `record` (moves are taken back in the reverse order).
    pub fn undo(&mut self, record: MoveRecord) {
        self.ko_loc = record.ko_loc;
        let loc = record.loc;
        let opp = opp(record.pla);
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            if record.cap_dirs & (1 << dir) != 0 && self.colors[adj] == EMPTY {
                self.add_chain(adj, opp);
                let n = self.chain_size(adj) as i32;
                if record.pla == BLACK {
                    self.num_white_captures -= n;
                } else {
                    self.num_black_captures -= n;
                }
            }
        }
        if record.cap_dirs == 0x10 {
            self.add_chain(loc, record.pla);
            let n = self.chain_size(loc) as i32;
            if record.pla == BLACK {
                self.num_black_captures -= n;
            } else {
                self.num_white_captures -= n;
            }
        }
        self.pos_hash ^= KEYS[self.colors[loc] as usize][loc];
        self.colors[loc] = EMPTY;
        self.change_surrounding_liberties(loc, opp, 1);

        if self.chain_size(loc) <= 1 {
            return;
        }
        let neighbors = (0..4)
            .filter(|&dir| self.colors[self.at(loc, dir)] == record.pla)
            .count();
        if neighbors <= 1 {
            let mut head = self.head(loc);
            if head == loc {
                let new_head = self.next_in_chain[loc] as usize;
                self.set_chain_head(loc, new_head);
                self.num_locs[new_head] = self.num_locs[head];
                self.num_liberties[new_head] = self.num_liberties[head];
                head = new_head;
            }
            let mut cur = head;
            while self.next_in_chain[cur] as usize != loc {
                cur = self.next_in_chain[cur] as usize;
            }
            self.next_in_chain[cur] = self.next_in_chain[loc];
            let mut delta: i32 = 1;
            for dir in 0..4 {
                let adj = self.at(loc, dir);
                if self.colors[adj] == EMPTY && !self.is_liberty_of(adj, head) {
                    delta -= 1;
                }
            }
            self.num_liberties[head] = (self.num_liberties[head] as i32 + delta) as u16;
            self.num_locs[head] -= 1;
        } else {
            self.set_chain_head(loc, NULL_LOC);
            for dir in 0..4 {
                let adj = self.at(loc, dir);
                if self.colors[adj] == record.pla && self.head(adj) == NULL_LOC {
                    self.rebuild_chain(adj, record.pla);
                }
            }
        }
    }

    /// Appends the liberties of the string at `loc` to `buf` from `buf_idx`, skipping those
    /// already in `buf[buf_start..]`; returns how many were added (KataGo's `findLiberties`).
    pub fn find_liberties(
        &self,
        loc: usize,
        buf: &mut Vec<u16>,
        buf_start: usize,
        buf_idx: usize,
    ) -> usize {
        let mut found = 0;
        let mut cur = loc;
        loop {
            for dir in 0..4 {
                let lib = self.at(cur, dir);
                if self.colors[lib] == EMPTY
                    && !buf[buf_start..buf_idx + found].contains(&(lib as u16))
                {
                    if buf_idx + found >= buf.len() {
                        buf.resize(buf.len() * 3 / 2 + 64, 0);
                    }
                    buf[buf_idx + found] = lib as u16;
                    found += 1;
                }
            }
            cur = self.next_in_chain[cur] as usize;
            if cur == loc {
                break;
            }
        }
        found
    }

    /// Appends the points that capture a neighbouring string in atari of the string at `loc`
    /// (KataGo's `findLibertyGainingCaptures`).
    pub fn find_liberty_gaining_captures(
        &self,
        loc: usize,
        buf: &mut Vec<u16>,
        buf_start: usize,
        buf_idx: usize,
    ) -> usize {
        let opp = opp(self.colors[loc]);
        // Strings already read, to skip them: only a shortcut, as `find_liberties` adds no
        // point twice, so a full list just stops growing.
        let mut checked = [NULL_LOC; 32];
        let mut num_checked = 0;
        let mut found = 0;
        let mut cur = loc;
        loop {
            for dir in 0..4 {
                let adj = self.at(cur, dir);
                if self.colors[adj] == opp {
                    let head = self.head(adj);
                    if self.num_liberties[head] == 1 && !checked[..num_checked].contains(&head) {
                        found += self.find_liberties(adj, buf, buf_start, buf_idx + found);
                        if num_checked < checked.len() {
                            checked[num_checked] = head;
                            num_checked += 1;
                        }
                    }
                }
            }
            cur = self.next_in_chain[cur] as usize;
            if cur == loc {
                break;
            }
        }
        found
    }

    /// Whether a neighbouring string of the string at `loc` is in atari.
    pub fn has_liberty_gaining_captures(&self, loc: usize) -> bool {
        let opp = opp(self.colors[loc]);
        let mut cur = loc;
        loop {
            for dir in 0..4 {
                let adj = self.at(cur, dir);
                if self.colors[adj] == opp && self.libs(adj) == 1 {
                    return true;
                }
            }
            cur = self.next_in_chain[cur] as usize;
            if cur == loc {
                return false;
            }
        }
    }

    /// The position hash after `pla` plays at the empty `loc` (KataGo's `getPosHashAfterMove`).
    pub fn hash_after_move(&self, loc: usize, pla: u8) -> u64 {
        let mut hash = self.pos_hash ^ KEYS[pla as usize][loc];
        let opp = opp(pla);
        let mut suicide = true;
        let mut heads = [NULL_LOC; 4];
        let mut num_heads = 0;
        for dir in 0..4 {
            let adj = self.at(loc, dir);
            let c = self.colors[adj];
            if c == EMPTY || (c == pla && self.libs(adj) > 1) {
                suicide = false;
            } else if c == opp && self.libs(adj) == 1 {
                let head = self.head(adj);
                if !heads[..num_heads].contains(&head) {
                    heads[num_heads] = head;
                    num_heads += 1;
                    suicide = false;
                    hash ^= self.string_hash(adj, opp);
                }
            }
        }
        if suicide {
            for dir in 0..4 {
                let adj = self.at(loc, dir);
                if self.colors[adj] == pla && self.libs(adj) == 1 {
                    let head = self.head(adj);
                    if !heads[..num_heads].contains(&head) {
                        heads[num_heads] = head;
                        num_heads += 1;
                        hash ^= self.string_hash(adj, pla);
                    }
                }
            }
            hash ^= KEYS[pla as usize][loc];
        }
        hash
    }

    fn string_hash(&self, loc: usize, color: u8) -> u64 {
        let mut hash = 0;
        let mut cur = loc;
        loop {
            hash ^= KEYS[color as usize][cur];
            cur = self.next_in_chain[cur] as usize;
            if cur == loc {
                return hash;
            }
        }
    }

    /// The stones of the string at `loc`, in KataGo's list order.
    pub fn chain_stones(&self, loc: usize) -> impl Iterator<Item = usize> + '_ {
        let mut cur = Some(loc);
        std::iter::from_fn(move || {
            let here = cur?;
            let next = self.next_in_chain[here] as usize;
            cur = (next != loc).then_some(next);
            Some(here)
        })
    }
}
