//! The part of KataGo's `BoardHistory` (`cpp/game/boardhistory.cpp`) the net's inputs read: the
//! moves since the history was last cleared, the recent positions, superko bans, pass state and
//! the komi adjustments, built as KataGo's GTP engine builds them from the same commands.
//!
//! KataGo's GTP never enters the cleanup phase (`preventCleanupPhase` is on by default), so the
//! encore is not modelled: under territory scoring two passes only mark the normal phase's end.

use super::kataboard::{ARR, BLACK, EMPTY, KataBoard, NULL_LOC, WHITE, opp};
use crate::rules::game::HandicapBonus;
use crate::rules::game::kata_rules::KataRules;
use crate::rules::game::{KoRule, Scoring};

/// KataGo's `PASS_LOC`.
pub(crate) const PASS_LOC: usize = 1;

/// Keys xor-ed into a ko hash for the player to move, where the ko rule looks at it.
const PLAYER_KEYS: [u64; 3] = [0, 0x3E6B_7C1D_A9F2_5481, 0xC715_92A0_4D3B_E86F];

/// KataGo's `BoardHistory` without the encore.
#[derive(Clone)]
pub(crate) struct History {
    pub rules: KataRules,
    /// Stones of each colour on the board the history was last cleared at.
    initial_stones: [usize; 3],
    assume_multiple_starting_black_moves_are_handicap: bool,
    white_has_moved: bool,
    /// Moves since the last clear: location (`PASS_LOC` for a pass) and player.
    pub moves: Vec<(usize, u8)>,
    /// The position after the last move, one move before, two moves before.
    pub recent: [KataBoard; 3],
    ko_hashes: Vec<u64>,
    was_ever_occupied_or_played: [bool; ARR],
    pub super_ko_banned: [bool; ARR],
    consecutive_ending_passes: u32,
    hashes_before_pass: [Vec<u64>; 3],
    pub presumed_next: u8,
    pub approx_valid_turns_this_phase: usize,
    white_bonus_score: f32,
    white_handicap_bonus_score: f32,
    pub is_game_finished: bool,
    pub is_past_normal_phase_end: bool,
}

impl History {
    /// A history starting at `board` with `pla` to move (KataGo's constructor and `clear`).
    pub fn new(board: &KataBoard, pla: u8, rules: KataRules) -> History {
        let mut history = History {
            rules,
            initial_stones: [0; 3],
            assume_multiple_starting_black_moves_are_handicap: false,
            white_has_moved: false,
            moves: Vec::new(),
            recent: [board.clone(), board.clone(), board.clone()],
            ko_hashes: Vec::new(),
            was_ever_occupied_or_played: [false; ARR],
            super_ko_banned: [false; ARR],
            consecutive_ending_passes: 0,
            hashes_before_pass: [Vec::new(), Vec::new(), Vec::new()],
            presumed_next: pla,
            approx_valid_turns_this_phase: 0,
            white_bonus_score: 0.0,
            white_handicap_bonus_score: 0.0,
            is_game_finished: false,
            is_past_normal_phase_end: false,
        };
        history.clear(board, pla);
        history
    }

    /// Forgets every move: `board` becomes the start, `pla` to move. Like KataGo's `clear`,
    /// this also turns off counting starting Black moves as handicap.
    pub fn clear(&mut self, board: &KataBoard, pla: u8) {
        self.moves.clear();
        self.initial_stones = [0; 3];
        self.was_ever_occupied_or_played = [false; ARR];
        for y in 0..board.size {
            for x in 0..board.size {
                let loc = board.loc(x, y);
                let c = board.colors[loc];
                self.initial_stones[c as usize] += 1;
                self.was_ever_occupied_or_played[loc] = c != EMPTY;
            }
        }
        self.assume_multiple_starting_black_moves_are_handicap = false;
        self.white_has_moved = false;
        self.recent = [board.clone(), board.clone(), board.clone()];
        self.presumed_next = pla;
        self.super_ko_banned = [false; ARR];
        self.consecutive_ending_passes = 0;
        self.hashes_before_pass = [Vec::new(), Vec::new(), Vec::new()];
        self.approx_valid_turns_this_phase = 0;
        self.is_game_finished = false;
        self.is_past_normal_phase_end = false;
        self.ko_hashes = vec![self.ko_hash(board, pla)];
        self.white_bonus_score = 0.0;
        if self.rules.scoring == Scoring::Territory {
            self.white_bonus_score = self.initial_stones[BLACK as usize] as f32
                - self.initial_stones[WHITE as usize] as f32
                - (board.num_white_captures - board.num_black_captures) as f32;
        }
        self.white_handicap_bonus_score = self.white_handicap_bonus() as f32;
    }

    /// Counts a run of Black moves at the start as handicap stones, as KataGo's GTP does.
    pub fn assume_starting_black_moves_are_handicap(&mut self) {
        self.assume_multiple_starting_black_moves_are_handicap = true;
        self.white_handicap_bonus_score = self.white_handicap_bonus() as f32;
    }

    fn ko_hash(&self, board: &KataBoard, pla: u8) -> u64 {
        match self.rules.ko {
            KoRule::PositionalSuperko => board.pos_hash,
            _ => board.pos_hash ^ PLAYER_KEYS[pla as usize],
        }
    }

    /// KataGo's `computeNumHandicapStones`.
    fn handicap_stones(&self) -> usize {
        let mut black_turns = 0;
        if self.assume_multiple_starting_black_moves_are_handicap {
            for (i, &(loc, pla)) in self.moves.iter().enumerate() {
                if pla != BLACK {
                    if self
                        .moves
                        .get(i + 1)
                        .is_some_and(|&(_, next)| next != BLACK)
                    {
                        black_turns = 0;
                        break;
                    }
                    if loc == PASS_LOC {
                        continue;
                    }
                    break;
                }
                if loc != PASS_LOC && loc != NULL_LOC {
                    black_turns += 1;
                }
            }
        }
        if self.initial_stones[WHITE as usize] != 0 {
            return 0;
        }
        let advantage = self.initial_stones[BLACK as usize] + black_turns;
        if advantage <= 1 { 0 } else { advantage }
    }

    /// KataGo's `computeWhiteHandicapBonus`.
    fn white_handicap_bonus(&self) -> usize {
        self.rules.handicap_bonus.points(self.handicap_stones())
    }

    /// The komi from `pla`'s view, with the score adjustments KataGo folds into it
    /// (`currentSelfKomi` with draws worth half a win).
    pub fn self_komi(&self, pla: u8) -> f32 {
        let white = self.white_bonus_score + self.white_handicap_bonus_score + self.rules.komi;
        if pla == WHITE { white } else { -white }
    }

    /// Whether passes lift ko bans and a repeated pass ends the phase (simple ko).
    fn spightlike(&self) -> bool {
        self.rules.ko == KoRule::Simple
    }

    fn would_be_spightlike_ending_pass(&self, pla: u8, ko_hash_before: u64) -> bool {
        self.spightlike() && self.hashes_before_pass[pla as usize].contains(&ko_hash_before)
    }

    /// KataGo's `passWouldEndPhase`.
    pub fn pass_would_end_phase(&self, board: &KataBoard, pla: u8) -> bool {
        self.consecutive_ending_passes + 1 >= 2
            || self.would_be_spightlike_ending_pass(pla, self.ko_hash(board, pla))
    }

    /// KataGo's `passWouldEndGame`.
    pub fn pass_would_end_game(&self, board: &KataBoard, pla: u8) -> bool {
        self.pass_would_end_phase(board, pla) && self.rules.scoring == Scoring::Area
    }

    /// KataGo's `shouldSuppressEndGameFromFriendlyPass`.
    pub fn suppress_end_from_friendly_pass(&self, board: &KataBoard, pla: u8) -> bool {
        self.rules.friendly_pass_ok
            && self.rules.scoring == Scoring::Area
            && self.consecutive_ending_passes + 1 == 2
            && !self.would_be_spightlike_ending_pass(pla, self.ko_hash(board, pla))
    }

    /// Whether `pla`, the player to move, may play at `loc` (KataGo's `isLegal`, not pass).
    pub fn is_legal(&self, board: &KataBoard, loc: usize, pla: u8) -> bool {
        pla == self.presumed_next
            && board.is_legal(loc, pla, self.rules.multi_stone_suicide_legal)
            && !self.super_ko_banned[loc]
    }

    /// Plays `pla` at `loc` (`PASS_LOC` to pass) on `board` and records it (KataGo's
    /// `makeBoardMoveAssumeLegal`, the cleanup phase prevented).
    pub fn play(&mut self, board: &mut KataBoard, loc: usize, pla: u8) {
        if self.is_game_finished || self.is_past_normal_phase_end {
            self.approx_valid_turns_this_phase = self.approx_valid_turns_this_phase.min(1);
        }
        self.is_game_finished = false;
        self.is_past_normal_phase_end = false;

        let mut spightlike_ending_pass = false;
        if loc != PASS_LOC {
            self.consecutive_ending_passes = 0;
        } else {
            if self.spightlike() {
                self.ko_hashes.clear();
            }
            let before = self.ko_hash(board, pla);
            self.consecutive_ending_passes += 1;
            spightlike_ending_pass = self.would_be_spightlike_ending_pass(pla, before);
            self.hashes_before_pass[pla as usize].push(before);
        }

        if loc == PASS_LOC {
            board.ko_loc = NULL_LOC;
        } else {
            board.play(loc, pla);
        }
        self.recent.rotate_right(1);
        self.recent[0] = board.clone();

        let next = opp(pla);
        self.ko_hashes.push(self.ko_hash(board, next));
        self.moves.push((loc, pla));
        self.approx_valid_turns_this_phase += 1;
        self.presumed_next = next;
        if loc != PASS_LOC {
            self.was_ever_occupied_or_played[loc] = true;
        }

        if self.rules.ko != KoRule::Simple {
            self.mark_superko_bans(board, next);
        }

        if self.rules.scoring == Scoring::Territory && loc != PASS_LOC {
            self.white_bonus_score += if pla == BLACK { 1.0 } else { -1.0 };
        }
        if pla == WHITE && loc != PASS_LOC {
            self.white_has_moved = true;
        }
        if self.assume_multiple_starting_black_moves_are_handicap
            && !self.white_has_moved
            && pla == BLACK
            && self.rules.handicap_bonus != HandicapBonus::Zero
        {
            self.white_handicap_bonus_score = self.white_handicap_bonus() as f32;
        }

        if self.consecutive_ending_passes >= 2 || spightlike_ending_pass {
            if self.rules.scoring == Scoring::Area {
                self.is_game_finished = true;
            } else {
                self.is_past_normal_phase_end = true;
                self.approx_valid_turns_this_phase = self.approx_valid_turns_this_phase.min(1);
            }
        }

        // Long cycles under simple ko end the game without a result.
        if loc != PASS_LOC && self.spightlike() {
            let last = self.ko_hashes[self.ko_hashes.len() - 1];
            if self.ko_hashes.iter().filter(|&&h| h == last).count() >= 3 {
                self.is_game_finished = true;
            }
        }
    }

    /// Marks the points where `next` would repeat an earlier position under superko.
    fn mark_superko_bans(&mut self, board: &KataBoard, next: u8) {
        for y in 0..board.size {
            for x in 0..board.size {
                let loc = board.loc(x, y);
                self.super_ko_banned[loc] = if board.colors[loc] != EMPTY
                    || (!self.was_ever_occupied_or_played[loc] && !board.is_suicide(loc, next))
                    || board.is_illegal_suicide(loc, next, self.rules.multi_stone_suicide_legal)
                    || loc == board.ko_loc
                {
                    false
                } else {
                    let after = board.hash_after_move(loc, next);
                    let ko_hash_after = match self.rules.ko {
                        KoRule::PositionalSuperko => after,
                        _ => after ^ PLAYER_KEYS[opp(next) as usize],
                    };
                    self.ko_hashes.contains(&ko_hash_after)
                };
            }
        }
    }
}
