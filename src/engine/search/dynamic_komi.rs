//! Dynamic komi for handicap games (Pachi's "linear dynkomi"). With handicap stones Black
//! starts far ahead, and a search that wins nearly every playout cannot tell a solid move from
//! a slack one: every move keeps the win, so it gives points away until the lead is gone.
//! Searching as if White had extra komi keeps Black's win rate in the range where moves
//! differ. The extra komi starts at what the handicap is worth and fades linearly to nothing,
//! so that the real komi decides the endgame.
//!
//! White searches with it too on boards larger than 9x9, as Pachi does by default
//! (`dynkomi_mask=3`): behind by the handicap, it would otherwise see every move lose, play
//! desperate overplays and resign early; with it, White plays the normal moves that catch
//! up. On 9x9 and smaller a handicap stone is worth a large share of the board, and White
//! keeping the real komi, whose search picks the moves most likely to turn a lost game,
//! catches up more often (measured against GNU Go: docs/LOG.md).
//!
//! Pachi applies it on every size too; its fade is scaled here by the board's area.
//!
//! A White search giving a handicap without extra komi (the search with a net, whose score
//! utility keeps its moves apart; the playout search on small boards, and on any board once
//! the extra komi has faded or with `handicap_komi = 0`) sees the game lost from the first
//! move; it may resign only when its lead falls behind a schedule of catching up, as KataGo's
//! GTP engine decides.

use crate::rules::board::Color;
use crate::rules::game::{Game, Scoring, opening_length};

/// The largest board on which White's search keeps the real komi.
const WHITE_REAL_KOMI_MAX_SIZE: usize = 9;

/// Moves on 19x19 over which the extra komi fades to nothing (Pachi's 200); smaller boards
/// scale it by their area (45 moves on 9x9, 94 on 13x13).
const FADE_MOVES_19X19: f32 = 200.0;

/// The komi the search for `to_move` adds to the game's in `game`: in a handicap game,
/// `per_stone` points for every handicap stone less what White already has (komi and the
/// rules' handicap compensation, above the half point that breaks ties), times the share of
/// the fade still ahead; 0 otherwise, and 0 for White on boards up to
/// [`WHITE_REAL_KOMI_MAX_SIZE`].
pub fn extra_komi(game: &Game, to_move: Color, per_stone: f32) -> f32 {
    let stones = game.handicap();
    let white_keeps_komi = to_move == Color::White && game.size() <= WHITE_REAL_KOMI_MAX_SIZE;
    if stones == 0 || per_stone <= 0.0 || white_keeps_komi {
        return 0.0;
    }
    let size = game.size() as f32;
    let fade = FADE_MOVES_19X19 * size * size / (19.0 * 19.0);
    let left = 1.0 - game.moves().len() as f32 / fade;
    let worth = stones as f32 * per_stone + 0.5 - game.scoring_komi() as f32;
    (worth * left).max(0.0)
}

/// Points a handicap stone is taken to give Black when White decides whether it can still
/// catch up (KataGo's 15: about two komi).
const STONE_WORTH_TO_CATCH_UP: f64 = 15.0;

/// The share of the board's area, in moves, over which White is expected to catch up with a
/// handicap (KataGo's 0.6).
const CATCH_UP_SHARE: f64 = 0.6;

/// In a handicap game, the lead (White's, komi included) below which White may resign now:
/// minus what the handicap gave Black, shrinking linearly from the opening's end to 60% of
/// the board's area in moves, less a margin of 5 points and 15% of the handicap; `None` in an
/// even game.
pub fn white_resign_floor(game: &Game) -> Option<f64> {
    let stones = game.handicap();
    let advantage = STONE_WORTH_TO_CATCH_UP * stones.saturating_sub(1) as f64
        + (7.5 - game.scoring_komi()).max(0.0);
    if stones == 0 || advantage <= 0.0 {
        return None;
    }
    let area = (game.size() * game.size()) as f64;
    let from = opening_length(game.size()) as f64;
    let span = (CATCH_UP_SHARE * area - from).max(1.0);
    let spent = (game.moves().len() as f64 - from).clamp(0.0, span);
    Some(-advantage * (span - spent) / span - 5.0 - 0.15 * advantage)
}

/// Whether `color` is White giving a handicap (one that [`white_resign_floor`] counts).
pub fn white_gives_handicap(game: &Game, color: Color) -> bool {
    color == Color::White && white_resign_floor(game).is_some()
}

/// Whether `color`, leading by `white_lead` points (White's view, komi included), is White
/// giving a handicap and still on its schedule of catching up ([`white_resign_floor`]): then it
/// does not resign, however low its win rate.
pub fn white_catching_up(game: &Game, color: Color, white_lead: f64) -> bool {
    color == Color::White && white_resign_floor(game).is_some_and(|floor| white_lead >= floor)
}

/// What the start of `game` gives Black, in points, as KataGo's GTP engine takes it
/// (`initialBlackAdvantage`): with two or more handicap stones, 15 points a stone after the
/// first (14 under territory scoring) plus what komi and White's compensation lack of 7; else
/// what komi lacks of 7.
pub fn initial_black_advantage(game: &Game) -> f64 {
    let stones = game.handicap();
    if stones <= 1 {
        return 7.0 - game.rules().komi;
    }
    let stone = match game.rules().scoring {
        Scoring::Area => 15.0,
        Scoring::Territory => 14.0,
    };
    stone * (stones - 1) as f64 + 7.0 - game.scoring_komi()
}

/// The step by which KataGo moves its playout doubling advantage from move to move.
const DOUBLING_STEP: f64 = 0.125;
/// The most playout doubling advantage KataGo takes (the nets were not trained beyond).
const MAX_DOUBLING: f64 = 2.75;

/// KataGo's dynamic playout doubling advantage for White (negative: for Black) in a game that
/// starts uneven (`dynamicPlayoutDoublingAdvantageCapPerOppLead`): the player behind from the
/// start plays as if it had `2^a` times the other's playouts, so that it plays for the win it
/// can still get rather than for the least loss. `a` starts at `cap_per_point` times the points
/// the start gives beyond a threshold (4 on 19x19, down to 2 on smaller boards), scaled by the
/// board's size, at most 2.75, in steps of 1/8; from move to move it rises a step while that
/// player's win/loss value (`white_winloss`, the last search's, White's view) is below -0.9 and
/// falls one above -0.5. `previous` is the last move's; 0 in an even game, on boards under
/// 8x8, or with `cap_per_point` 0.
pub fn playout_doubling_for_white(
    game: &Game,
    cap_per_point: f64,
    previous: f64,
    white_winloss: Option<f64>,
) -> f64 {
    let size = game.size();
    let scaling = (19.0 * 19.0 / (size * size) as f64).powf(0.75);
    let threshold = (4.0 / scaling).max(2.0);
    let black_advantage = initial_black_advantage(game);
    let behind = if black_advantage >= 0.0 {
        Color::White
    } else {
        Color::Black
    };
    let advantage = black_advantage.abs();
    if cap_per_point <= 0.0 || advantage < threshold || size <= 7 {
        return 0.0;
    }
    let cap = MAX_DOUBLING.min(cap_per_point * (advantage - threshold) * scaling);
    let cap = (cap / DOUBLING_STEP).round() * DOUBLING_STEP;
    let toward_behind = |v: f64| if behind == Color::White { v } else { -v };
    let board = game.board();
    let has_white_stone = || {
        board
            .points()
            .any(|p| board.color_at(p) == Some(Color::White))
    };
    // Without a White stone the game is new (or set up anew): the cap, as KataGo starts it.
    let doubling = match white_winloss {
        Some(winloss) if has_white_stone() => {
            let previous = toward_behind(previous);
            let step = match toward_behind(winloss) {
                v if v < -0.9 => DOUBLING_STEP,
                v if v > -0.5 => -DOUBLING_STEP,
                _ => 0.0,
            };
            (previous + step).clamp(0.0, cap)
        }
        _ => cap,
    };
    toward_behind(doubling)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::{Color, Move, Point};
    use crate::rules::game::{Rules, fixed_handicap_points};

    fn handicap_game(size: usize, stones: usize, komi: f64) -> Game {
        let mut game = Game::new(size, Rules::chinese(komi));
        let points = fixed_handicap_points(size, stones).expect("a fixed handicap");
        game.set_handicap(&points).expect("the stones fit");
        game
    }

    #[test]
    fn the_player_behind_from_the_start_takes_katagos_playout_doubling() {
        // Two stones on 19x19, komi 0.5, Chinese rules: Black starts 15 + 7 - 0.5 - 2 = 19.5
        // points ahead; White takes 0.045 * (19.5 - 4) = 0.70, in eighths 0.75.
        let mut game = handicap_game(19, 2, 0.5);
        assert_eq!(initial_black_advantage(&game), 19.5);
        assert_eq!(playout_doubling_for_white(&game, 0.045, 0.0, None), 0.75);
        assert_eq!(playout_doubling_for_white(&game, 0.0, 0.0, None), 0.0);
        // No White stone yet: the cap, whatever was before.
        assert_eq!(
            playout_doubling_for_white(&game, 0.045, 0.25, Some(0.0)),
            0.75
        );
        game.play(Color::White, Move::Play(Point::new(19, 9, 2)))
            .unwrap();
        // From 0.5: up a step while White is far behind, down one once it is not, at most
        // the cap and never below 0.
        let next =
            |previous, winloss| playout_doubling_for_white(&game, 0.045, previous, Some(winloss));
        assert_eq!(next(0.5, -0.95), 0.625);
        assert_eq!(next(0.5, -0.7), 0.5);
        assert_eq!(next(0.5, -0.3), 0.375);
        assert_eq!(next(0.75, -0.95), 0.75);
        assert_eq!(next(0.0, 0.2), 0.0);
        // An even game is left alone; a komi that puts Black behind gives Black the advantage.
        let even = Game::new(19, Rules::chinese(7.5));
        assert_eq!(playout_doubling_for_white(&even, 0.045, 0.0, None), 0.0);
        let reverse = Game::new(19, Rules::chinese(30.0));
        assert_eq!(
            playout_doubling_for_white(&reverse, 0.045, 0.0, None),
            -0.875
        );
        // Small boards count a point for more; 7x7 and under never.
        let nine = handicap_game(9, 2, 0.5);
        assert_eq!(playout_doubling_for_white(&nine, 0.045, 0.0, None), 2.375);
        let seven = Game::new(7, Rules::chinese(-20.0));
        assert_eq!(playout_doubling_for_white(&seven, 0.045, 0.0, None), 0.0);
    }

    #[test]
    fn it_starts_at_the_handicap_worth_and_fades_to_nothing() {
        // Four stones are worth 28 points; Chinese rules give White 4 for them.
        let mut game = handicap_game(19, 4, 0.5);
        assert_eq!(extra_komi(&game, Color::Black, 7.0), 24.0);
        assert_eq!(extra_komi(&game, Color::Black, 0.0), 0.0);
        let mut last = 24.0;
        let mut c = Color::White;
        for p in game
            .board()
            .empty_points()
            .collect::<Vec<_>>()
            .into_iter()
            .take(220)
        {
            game.play(c, Move::Play(p)).expect("a legal move");
            c = c.opponent();
            let now = extra_komi(&game, Color::Black, 7.0);
            assert!(now <= last, "{now} after {last}");
            last = now;
        }
        assert_eq!(last, 0.0, "gone by move 200");
        // Halfway through the fade, half of it is left.
        let mut half = handicap_game(9, 2, 0.5);
        let fade = (FADE_MOVES_19X19 * 81.0 / 361.0).round() as usize;
        let points: Vec<Point> = half.board().empty_points().collect();
        for (k, &p) in points.iter().take(fade / 2).enumerate() {
            let c = if k % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            half.play(c, Move::Play(p)).expect("a legal move");
        }
        let extra = extra_komi(&half, Color::Black, 7.0);
        assert!((extra - 6.0).abs() < 0.3, "{extra}");
    }

    #[test]
    fn even_games_and_a_large_komi_take_nothing() {
        let even = Game::new(9, Rules::chinese(7.0));
        assert_eq!(extra_komi(&even, Color::Black, 7.0), 0.0);
        // Two stones are worth 14 points; White's 6.5 komi and 2 points of compensation
        // already take 8 of them back.
        assert_eq!(
            extra_komi(&handicap_game(9, 2, 6.5), Color::Black, 7.0),
            6.0
        );
        let japanese = |komi| {
            let mut game = handicap_game(9, 2, komi);
            game.set_rules(Rules::japanese(komi));
            game
        };
        assert_eq!(extra_komi(&japanese(6.5), Color::Black, 7.0), 8.0);
        assert_eq!(
            extra_komi(&handicap_game(9, 2, 30.0), Color::Black, 7.0),
            0.0
        );
    }

    #[test]
    fn white_keeps_the_real_komi_on_small_boards_only() {
        // (size, stones, colour to move, extra komi) at komi 0.5, 7 points a stone, and a
        // point a stone of compensation.
        let cases = [
            (9, 2, Color::White, 0.0),
            (9, 2, Color::Black, 12.0),
            (13, 2, Color::White, 12.0),
            (19, 4, Color::White, 24.0),
        ];
        for (size, stones, to_move, extra) in cases {
            let game = handicap_game(size, stones, 0.5);
            assert_eq!(
                extra_komi(&game, to_move, 7.0),
                extra,
                "{size}x{size}, {stones} stones, {to_move:?} to move"
            );
        }
    }

    #[test]
    fn white_may_resign_a_handicap_game_only_behind_its_schedule() {
        assert_eq!(
            white_resign_floor(&Game::new(19, Rules::chinese(7.5))),
            None
        );
        // Two stones at komi 0.5 and 2 points of compensation: 15 points for the second
        // stone and 5 of komi.
        let mut game = handicap_game(19, 2, 0.5);
        let advantage = 20.0;
        let floor = white_resign_floor(&game).expect("a handicap game");
        assert!((floor - (-advantage - 5.0 - 0.15 * advantage)).abs() < 1e-9);
        let points: Vec<Point> = game.board().empty_points().collect();
        let mut c = Color::White;
        let mut last = floor;
        for &p in points.iter().take(240) {
            game.play(c, Move::Play(p)).expect("a legal move");
            c = c.opponent();
            let now = white_resign_floor(&game).expect("still a handicap game");
            assert!(now >= last, "{now} after {last}");
            last = now;
        }
        // Past 60% of the board's area only the margin is left.
        assert!((last - (-5.0 - 0.15 * advantage)).abs() < 1e-9, "{last}");
    }
}
