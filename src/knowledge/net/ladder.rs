//! KataGo's ladder reading (`Board::searchIsLadderCaptured`,
//! `searchIsLadderCapturedAttackerFirst2Libs` and `nninputs.cpp`'s `iterLadders`), for the
//! net's ladder features.
//!
//! The second home of ladder reading, for the net's sake: `tactics`' reader answers what tengen
//! needs, this one answers exactly what KataGo's does, the same move order, the same cut-offs
//! (a ko left for the defender saves it, 25000 nodes at most, a stack of 1.5 times the board's
//! points) and the same quirks, so the features are the ones KataGo's nets were trained on.

use super::kataboard::{BLACK, KataBoard, MoveRecord, NULL_LOC, WHITE, opp};

/// KataGo's `MAX_LADDER_SEARCH_NODE_BUDGET`.
const NODE_BUDGET: usize = 25_000;

/// The reader's reusable buffers.
#[derive(Default)]
pub(crate) struct LadderReader {
    buf: Vec<u16>,
    starts: Vec<usize>,
    lens: Vec<usize>,
    /// The move being searched at each level, `None` before its list is made.
    cur: Vec<Option<usize>>,
    records: Vec<MoveRecord>,
}

fn adjacent(board: &KataBoard, a: usize, b: usize) -> bool {
    board.adj.iter().any(|&d| a as isize == b as isize + d)
}

impl LadderReader {
    /// Whether the string at `loc`, with at most 2 liberties (1 when `defender_first`), is
    /// captured in a ladder: the defender moves first when `defender_first` (KataGo's
    /// `searchIsLadderCaptured`). Leaves `board` as it found it, but for the representation
    /// of its strings, and for the simple-ko point when the node budget runs out (as KataGo
    /// does).
    pub fn is_captured(&mut self, board: &mut KataBoard, loc: usize, defender_first: bool) -> bool {
        let pla = board.colors[loc];
        if pla != BLACK && pla != WHITE {
            return false;
        }
        let libs = board.libs(loc);
        if libs > 2 || (defender_first && libs > 1) {
            return false;
        }
        let opp = opp(pla);
        let ko_saved = board.ko_loc;
        if defender_first {
            board.ko_loc = NULL_LOC;
        }
        let stack_size = board.size * board.size * 3 / 2 + 1;
        self.starts.resize(stack_size + 1, 0);
        self.lens.resize(stack_size + 1, 0);
        self.cur.resize(stack_size + 1, None);
        self.records.resize(stack_size + 1, MoveRecord::default());
        if self.buf.is_empty() {
            self.buf.resize(64, 0);
        }

        let mut stack_idx: isize = 0;
        let mut nodes = 0;
        self.cur[0] = None;
        self.starts[0] = 0;
        self.lens[0] = 0;
        let mut value = false;
        let mut from_deeper = false;
        loop {
            if stack_idx < 0 {
                board.ko_loc = ko_saved;
                return value;
            }
            let si = stack_idx as usize;
            if si >= stack_size - 1 {
                value = true;
                from_deeper = true;
                stack_idx -= 1;
                continue;
            }
            if nodes >= NODE_BUDGET {
                for level in (0..si).rev() {
                    board.undo(self.records[level]);
                }
                return false;
            }
            let defender = si.is_multiple_of(2) == defender_first;

            match self.cur[si] {
                None => {
                    let libs = board.libs(loc);
                    if !defender && libs <= 1 {
                        value = true;
                        from_deeper = true;
                        stack_idx -= 1;
                        continue;
                    }
                    let defender_escapes = libs >= 2 || board.ko_loc != NULL_LOC;
                    if (defender && defender_escapes) || (!defender && libs >= 3) {
                        value = false;
                        from_deeper = true;
                        stack_idx -= 1;
                        continue;
                    }
                    let start = self.starts[si];
                    let mut len;
                    if defender {
                        len = board.find_liberty_gaining_captures(loc, &mut self.buf, start, start);
                        len += board.find_liberties(loc, &mut self.buf, start, start + len);
                        let last = self.buf[start + len - 1] as usize;
                        let (lower, upper) = board.bound_libs_after_play(last, pla);
                        if lower >= 3 {
                            value = false;
                            from_deeper = true;
                            stack_idx -= 1;
                            continue;
                        }
                        if len == 1 && upper <= 1 {
                            value = true;
                            from_deeper = true;
                            stack_idx -= 1;
                            continue;
                        }
                    } else {
                        len = board.find_liberties(loc, &mut self.buf, start, start);
                        let move0 = self.buf[start] as usize;
                        let move1 = self.buf[start + 1] as usize;
                        let mut libs0 = board.immediate_libs(move0) as i32;
                        let mut libs1 = board.immediate_libs(move1) as i32;
                        // Both liberties ko mouths whose filling gains nothing: a double-ko death.
                        if libs0 == 0
                            && libs1 == 0
                            && board.would_be_ko_capture(move0, opp)
                            && board.would_be_ko_capture(move1, opp)
                            && board.libs_after_play(move0, pla, 3) <= 2
                            && board.libs_after_play(move1, pla, 3) <= 2
                            && !board.has_liberty_gaining_captures(loc)
                        {
                            value = true;
                            from_deeper = true;
                            stack_idx -= 1;
                            continue;
                        }
                        if !adjacent(board, move0, move1) {
                            if libs0 >= 3 && libs1 >= 3 {
                                value = false;
                                from_deeper = true;
                                stack_idx -= 1;
                                continue;
                            } else if libs0 >= 3 {
                                len = 1;
                            } else if libs1 >= 3 {
                                self.buf[start] = self.buf[start + 1];
                                len = 1;
                            }
                        }
                        if len > 1 {
                            libs0 = libs0 * 2 + board.heuristic_connection_libs_x2(move0, pla);
                            libs1 = libs1 * 2 + board.heuristic_connection_libs_x2(move1, pla);
                            if libs1 > libs0 {
                                self.buf.swap(start, start + 1);
                            }
                        }
                    }
                    self.lens[si] = len;
                    self.cur[si] = Some(0);
                }
                Some(cur) => {
                    if from_deeper {
                        board.undo(self.records[si]);
                    }
                    if defender != value {
                        from_deeper = true;
                        stack_idx -= 1;
                        continue;
                    }
                    self.cur[si] = Some(cur + 1);
                }
            }

            let cur = self.cur[si].unwrap_or(0);
            if cur >= self.lens[si] {
                value = defender;
                from_deeper = true;
                stack_idx -= 1;
                continue;
            }
            let mv = self.buf[self.starts[si] + cur] as usize;
            let p = if defender { pla } else { opp };
            if !board.is_legal(mv, p, false) {
                value = defender;
                from_deeper = false;
                continue;
            }
            self.records[si] = board.play_recorded(mv, p);
            nodes += 1;
            stack_idx += 1;
            self.cur[si + 1] = None;
            self.starts[si + 1] = self.starts[si] + self.lens[si];
            self.lens[si + 1] = 0;
        }
    }

    /// Whether the string at `loc`, with exactly 2 liberties, is captured in a ladder with the
    /// attacker to move; `working` gets the attacker's liberties that work (KataGo's
    /// `searchIsLadderCapturedAttackerFirst2Libs`).
    pub fn is_captured_attacker_first(
        &mut self,
        board: &mut KataBoard,
        loc: usize,
        working: &mut Vec<usize>,
    ) -> bool {
        let pla = board.colors[loc];
        if (pla != BLACK && pla != WHITE) || board.libs(loc) != 2 {
            return false;
        }
        let opp = opp(pla);
        if self.buf.len() < 2 {
            self.buf.resize(64, 0);
        }
        board.find_liberties(loc, &mut self.buf, 0, 0);
        let moves = [self.buf[0] as usize, self.buf[1] as usize];
        let mut works = [false; 2];
        for (m, w) in moves.iter().zip(works.iter_mut()) {
            if board.is_legal(*m, opp, false) {
                let record = board.play_recorded(*m, opp);
                *w = self.is_captured(board, loc, true);
                board.undo(record);
            }
        }
        if works[0] || works[1] {
            working.clear();
            working.extend(moves.iter().zip(works).filter(|(_, w)| *w).map(|(m, _)| *m));
            true
        } else {
            false
        }
    }

    /// Calls `f(loc, pos, working)` for each stone (in KataGo's point order, `pos = y * size +
    /// x`) of a string in an inescapable atari, or of a 2-liberty string the attacker can put
    /// in one; `working` holds the attacker's working moves for the first stone of a 2-liberty
    /// string and is empty for its other stones (KataGo's `iterLadders`).
    pub fn iter_ladders(&mut self, board: &KataBoard, mut f: impl FnMut(usize, usize, &[usize])) {
        let size = board.size;
        let mut solved: Vec<(u16, bool)> = Vec::new();
        let mut copy = board.clone();
        let mut working: Vec<usize> = Vec::new();
        for y in 0..size {
            for x in 0..size {
                let loc = board.loc(x, y);
                let stone = board.colors[loc];
                if stone != BLACK && stone != WHITE {
                    continue;
                }
                let libs = board.libs(loc);
                if libs != 1 && libs != 2 {
                    continue;
                }
                let pos = y * size + x;
                let head = board.chain_head[loc];
                if let Some(&(_, laddered)) = solved.iter().find(|(h, _)| *h == head) {
                    if laddered {
                        working.clear();
                        f(loc, pos, &working);
                    }
                    continue;
                }
                let laddered = if libs == 1 {
                    self.is_captured(&mut copy, loc, true)
                } else {
                    working.clear();
                    self.is_captured_attacker_first(&mut copy, loc, &mut working)
                };
                solved.push((head, laddered));
                if laddered {
                    f(loc, pos, &working);
                }
            }
        }
    }
}
