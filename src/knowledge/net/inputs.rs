//! The input features of a position as KataGo computes them (`NNInputs::fillRowV7`, model
//! versions 8 to 17), from a tengen [`Game`] replayed as KataGo's GTP engine replays the same
//! `play` commands.
//!
//! Spatial planes: 0 on board, 1-2 own / opponent stones, 3-5 strings of 1, 2, 3 liberties,
//! 6 ko and superko bans, 9-13 the last five moves, 14 stones in (or put in) an inescapable
//! ladder, 15-16 the same one and two moves ago, 17 the moves that start a working ladder,
//! 18-19 own / opponent area (pass-alive and surrounded, area scoring only). Globals: 0-4 which
//! of the last five moves were passes, 5 komi / 20 from the mover's view, 6-7 ko rule, 8 suicide,
//! 9 territory scoring, 10-11 tax, 14 a pass would end the phase, 18 the komi's parity wave.
//! 15-16 playout doubling. Planes 7-8 and 20-21 and globals 12-13 (the encore) and 17 (button)
//! stay zero: KataGo's GTP never enters the encore and none of tengen's rule sets has a button.

use super::area::calculate_area;
use super::history::{History, PASS_LOC};
use super::kataboard::{BLACK, EMPTY, KataBoard, NULL_LOC, WHITE};
use super::ladder::LadderReader;
use super::{Features, GLOBAL_FEATURES, SPATIAL_FEATURES};
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::kata_rules::KataRules;
use crate::rules::game::{Game, KoRule, Scoring};

/// How far komi may go past the board's area before KataGo clips it (`KOMI_CLIP_RADIUS`).
const KOMI_CLIP_RADIUS: f32 = 20.0;

/// KataGo's colour number of a tengen colour.
fn kata_color(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// What KataGo's evaluator is told beyond the position (its `MiscNNInputParams`). The default
/// is what `kata-raw-nn` uses.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct InputOptions {
    /// At the root of a search under `conservativePass`: when a pass would end the game, the
    /// net sees no history and no pass-ends-the-phase flag.
    pub conservative_pass_at_root: bool,
    /// `enablePassingHacks` (on in KataGo's GTP search): the same when a pass would end the
    /// game now without a win for the player.
    pub passing_hacks: bool,
    /// `playoutDoublingAdvantage`, from the player's view.
    pub playout_doubling_advantage: f64,
    /// Pass-alive areas read as if multi-stone suicide were legal: a model's
    /// `preferPassAliveUnderSuicideRules`.
    pub pass_alive_as_if_suicide_legal: bool,
}

/// A game as KataGo holds it: its board and its history, ready to give the net's inputs.
#[derive(Clone)]
pub struct NetPosition {
    board: KataBoard,
    history: History,
}

impl NetPosition {
    /// The position of `game` as KataGo's GTP holds it after the same commands: the initial
    /// stones set up (handicap stones with White to move), then every move played. A move by
    /// the player not to move clears the history first, as KataGo's `play` does, and a run of
    /// Black moves at the start counts as handicap stones.
    pub fn from_game(game: &Game) -> NetPosition {
        let size = game.size();
        let mut board = KataBoard::new(size);
        let initial = game.initial_board();
        for y in 0..size {
            for x in 0..size {
                if let Some(c) = initial.color_at(Point::new(size, x, size - 1 - y)) {
                    board.play(board.loc(x, y), kata_color(c));
                }
            }
        }
        board.ko_loc = NULL_LOC;
        let first = game.moves().first().map_or(game.to_move(), |&(c, _)| c);
        let mut history = History::new(
            &board,
            kata_color(first),
            KataRules::from_rules(game.rules()),
        );
        history.assume_starting_black_moves_are_handicap();
        let mut position = NetPosition { board, history };
        for &(c, mv) in game.moves() {
            position.play(c, mv);
        }
        position
    }

    /// Plays `mv` for `color` as KataGo's GTP `play` does. Like it, this refuses (ignores) a
    /// stone on an occupied point and a single-stone suicide, which KataGo forbids under every
    /// rule set; bans by ko or superko are not checked.
    pub fn play(&mut self, color: Color, mv: Move) {
        let pla = kata_color(color);
        let loc = match mv {
            Move::Pass => PASS_LOC,
            Move::Play(p) => {
                let size = self.board.size;
                let (col, row) = p.coords(size);
                let loc = self.board.loc(col, size - 1 - row);
                if self.board.colors[loc] != EMPTY || self.board.is_illegal_suicide(loc, pla, true)
                {
                    return;
                }
                loc
            }
        };
        if pla != self.history.presumed_next {
            self.board.ko_loc = NULL_LOC;
            self.history.clear(&self.board, pla);
            self.history.assume_starting_black_moves_are_handicap();
        }
        self.history.play(&mut self.board, loc, pla);
    }

    /// The player KataGo takes to be next.
    pub fn to_move(&self) -> Color {
        if self.history.presumed_next == WHITE {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The net's inputs for `player`. For the player not to move, KataGo's `kata-raw-nn COLOR`
    /// clears the history first (no ko point, no last moves, no superko bans).
    pub fn features(&self, player: Color, options: &InputOptions) -> Features {
        let pla = kata_color(player);
        if pla == self.history.presumed_next {
            fill(&self.board, &self.history, pla, options)
        } else {
            let mut board = self.board.clone();
            board.ko_loc = NULL_LOC;
            let mut history = self.history.clone();
            history.clear(&board, pla);
            fill(&board, &history, pla, options)
        }
    }
}

impl Features {
    /// The inputs for the player to move in `game`.
    pub fn from_game(game: &Game) -> Features {
        NetPosition::from_game(game).features(game.to_move(), &InputOptions::default())
    }
}

/// `fillRowV7` for `pla`, who is the history's next player (the whole history shown: KataGo's
/// `maxHistory` is 1000).
fn fill(board: &KataBoard, history: &History, pla: u8, options: &InputOptions) -> Features {
    let size = board.size;
    let area = size * size;
    let opp = super::kataboard::opp(pla);
    let mut spatial = vec![0.0f32; SPATIAL_FEATURES * area];
    let mut global = [0.0f32; GLOBAL_FEATURES];
    let mut set = |feature: usize, pos: usize| spatial[feature * area + pos] = 1.0;

    for y in 0..size {
        for x in 0..size {
            let pos = y * size + x;
            let loc = board.loc(x, y);
            set(0, pos);
            let stone = board.colors[loc];
            if stone == pla {
                set(1, pos);
            } else if stone == opp {
                set(2, pos);
            }
            if stone == pla || stone == opp {
                match board.libs(loc) {
                    1 => set(3, pos),
                    2 => set(4, pos),
                    3 => set(5, pos),
                    _ => {}
                }
            }
            if loc == board.ko_loc || history.super_ko_banned[loc] {
                set(6, pos);
            }
        }
    }

    let rules = &history.rules;
    let mut ending_now_would_not_win = false;
    if rules.scoring == Scoring::Area {
        let suicide_legal =
            rules.multi_stone_suicide_legal || options.pass_alive_as_if_suicide_legal;
        let owner = calculate_area(board, suicide_legal);
        let mut score: i32 = 0;
        for y in 0..size {
            for x in 0..size {
                let o = owner[board.loc(x, y)];
                if o == pla {
                    set(18, y * size + x);
                    score += 1;
                } else if o == opp {
                    set(19, y * size + x);
                    score -= 1;
                }
            }
        }
        ending_now_would_not_win = score as f32 + history.self_komi(pla) <= 0.0;
    }

    let suppress_pass_ends_phase = history.pass_would_end_game(board, pla)
        && (options.conservative_pass_at_root
            || history.suppress_end_from_friendly_pass(board, pla)
            || (options.passing_hacks && ending_now_would_not_win));
    let max_turns = if suppress_pass_ends_phase {
        0
    } else if history.is_game_finished || history.is_past_normal_phase_end {
        1
    } else {
        5
    };
    let turns = max_turns.min(history.approx_valid_turns_this_phase);
    let mut included = 0;
    for (back, &(loc, mover)) in history.moves.iter().rev().take(turns).enumerate() {
        if mover != if back % 2 == 0 { opp } else { pla } {
            break;
        }
        included = back + 1;
        if loc == PASS_LOC {
            global[back] = 1.0;
        } else {
            let (x, y) = (loc % (size + 1) - 1, loc / (size + 1) - 1);
            set(9 + back, y * size + x);
        }
    }

    let mut reader = LadderReader::default();
    reader.iter_ladders(board, |loc, pos, working| {
        set(14, pos);
        if board.colors[loc] == opp && board.libs(loc) > 1 {
            for &w in working {
                let (x, y) = (w % (size + 1) - 1, w / (size + 1) - 1);
                set(17, y * size + x);
            }
        }
    });
    let prev = if included < 1 {
        board
    } else {
        &history.recent[1]
    };
    reader.iter_ladders(prev, |_, pos, _| set(15, pos));
    let prev_prev = if included < 2 {
        prev
    } else {
        &history.recent[2]
    };
    reader.iter_ladders(prev_prev, |_, pos, _| set(16, pos));

    let board_area = area as f32;
    let self_komi = history.self_komi(pla).clamp(
        -board_area - KOMI_CLIP_RADIUS,
        board_area + KOMI_CLIP_RADIUS,
    );
    global[5] = self_komi / 20.0;
    match rules.ko {
        KoRule::Simple => {}
        KoRule::PositionalSuperko => {
            global[6] = 1.0;
            global[7] = 0.5;
        }
        KoRule::SituationalSuperko => {
            global[6] = 1.0;
            global[7] = -0.5;
        }
    }
    if rules.multi_stone_suicide_legal {
        global[8] = 1.0;
    }
    if rules.scoring == Scoring::Territory {
        global[9] = 1.0;
    }
    if rules.tax_seki {
        global[10] = 1.0;
    }
    if !suppress_pass_ends_phase && history.pass_would_end_phase(board, pla) {
        global[14] = 1.0;
    }
    if options.playout_doubling_advantage != 0.0 {
        global[15] = 1.0;
        global[16] = (0.5 * options.playout_doubling_advantage) as f32;
    }
    if rules.scoring == Scoring::Area {
        global[18] = komi_wave(self_komi, area.is_multiple_of(2));
    }

    let legal = (0..size)
        .flat_map(|y| (0..size).map(move |x| (x, y)))
        .map(|(x, y)| history.is_legal(board, board.loc(x, y), pla))
        .collect();
    Features {
        size,
        to_move: if pla == BLACK {
            Color::Black
        } else {
            Color::White
        },
        spatial,
        global,
        legal,
    }
}

/// The triangle wave of the komi's distance above the nearest komi that allows a draw
/// (period 2, peak 0.5 at half a point above it): a draw needs komi of the board's parity.
fn komi_wave(self_komi: f32, board_area_even: bool) -> f32 {
    let floor = if board_area_even {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

#[cfg(test)]
mod tests;
