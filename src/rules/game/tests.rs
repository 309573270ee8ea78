use super::*;

fn pt(game: &Game, v: &str) -> Point {
    Point::parse(v, game.size()).unwrap()
}

fn play_all(game: &mut Game, moves: &[(Color, &str)]) {
    for &(c, v) in moves {
        let mv = Move::parse(v, game.size()).unwrap();
        game.play(c, mv).unwrap_or_else(|e| panic!("{c} {v}: {e}"));
    }
}

/// A game of `size` under the default rules after `moves`.
fn game_after(size: usize, moves: &[(Color, &str)]) -> Game {
    let mut game = Game::new(size, Rules::default());
    play_all(&mut game, moves);
    game
}

use Color::{Black as B, White as W};

#[test]
fn illegal_moves_leave_the_game_unchanged() {
    let mut game = game_after(9, &[(B, "E5")]);
    let hash = game.board().hash();
    assert_eq!(
        game.play(W, Move::Play(pt(&game, "E5"))),
        Err(IllegalMove::Occupied)
    );
    assert_eq!(game.board().hash(), hash);
    assert_eq!(game.moves().len(), 1);
}

#[test]
fn suicide_is_illegal_unless_the_rules_allow_it() {
    let mut game = game_after(5, &[(W, "A1"), (B, "A2"), (B, "C1"), (B, "B2")]);
    assert_eq!(
        game.play(W, Move::Play(pt(&game, "B1"))),
        Err(IllegalMove::Suicide)
    );
    game.set_rules(Rules::tromp_taylor(7.5));
    assert_eq!(game.play(W, Move::Play(pt(&game, "B1"))), Ok(()));
    assert_eq!(game.board().color_at(pt(&game, "A1")), None);
    assert_eq!(game.board().captures(B), 2);
    // A one-stone suicide recreates the position it was played in: superko forbids it.
    play_all(&mut game, &[(B, "B1")]);
    game.undo().unwrap();
    let mut lone = Game::new(5, Rules::tromp_taylor(7.5));
    play_all(&mut lone, &[(B, "A2"), (B, "B1")]);
    assert_eq!(
        lone.play(W, Move::Play(pt(&lone, "A1"))),
        Err(IllegalMove::Superko)
    );
}

#[test]
fn consecutive_moves_of_one_colour_are_accepted() {
    let game = game_after(9, &[(B, "C3"), (B, "G7"), (B, "C7")]);
    assert_eq!(game.to_move(), W);
}

/// A position where Black and White can take and retake a ko, with moves elsewhere between.
fn ko_position() -> Game {
    game_after(
        5,
        &[
            (B, "B2"),
            (W, "C2"),
            (B, "A3"),
            (W, "D3"),
            (B, "B4"),
            (W, "C4"),
            (B, "C3"),
        ],
    )
}

#[test]
fn simple_ko_and_its_retake_after_a_threat() {
    let mut game = ko_position();
    play_all(&mut game, &[(W, "B3")]);
    assert_eq!(
        game.play(B, Move::Play(pt(&game, "C3"))),
        Err(IllegalMove::Ko)
    );
    play_all(&mut game, &[(B, "E5"), (W, "E1"), (B, "C3")]);
}

#[test]
fn positional_superko_forbids_a_repeated_position() {
    let mut game = ko_position();
    play_all(&mut game, &[(W, "B3")]);
    // Black passes, White passes: the ko point clears (simple ko forgets it).
    play_all(&mut game, &[(B, "pass"), (W, "pass")]);
    // Retaking at C3 would recreate the position after Black's C3 (before W B3): superko.
    assert_eq!(
        game.play(B, Move::Play(pt(&game, "C3"))),
        Err(IllegalMove::Superko)
    );
    let mut simple = game.clone();
    simple.set_rules(Rules::japanese(6.5));
    assert_eq!(simple.play(B, Move::Play(pt(&simple, "C3"))), Ok(()));
}

#[test]
fn situational_superko_depends_on_the_player_to_move() {
    let mut game = ko_position();
    game.set_rules(Rules::named("aga", 7.5).unwrap());
    play_all(&mut game, &[(W, "B3"), (B, "pass"), (W, "pass")]);
    // The earlier position (after Black's C3) had White to move; retaking leaves White to move.
    assert_eq!(
        game.play(B, Move::Play(pt(&game, "C3"))),
        Err(IllegalMove::Superko)
    );
}

#[test]
fn multi_stone_capture_counts_prisoners() {
    let game = game_after(
        9,
        &[
            (W, "A1"),
            (W, "B1"),
            (W, "C1"),
            (B, "A2"),
            (B, "B2"),
            (B, "C2"),
            (B, "D1"),
        ],
    );
    assert_eq!(game.board().captures(B), 3);
    assert_eq!(game.board().empty_count(), 81 - 4);
}

#[test]
fn undo_to_any_depth_restores_every_position() {
    let mut game = ko_position();
    let mut hashes = vec![];
    let mut snapshot = game.clone();
    for (c, v) in [(W, "B3"), (B, "E5"), (W, "E1"), (B, "C3"), (W, "A1")] {
        hashes.push((snapshot.board().hash(), snapshot.board().captures(W)));
        play_all(&mut snapshot, &[(c, v)]);
    }
    game = snapshot;
    while let Some((hash, caps)) = hashes.pop() {
        game.undo().unwrap();
        assert_eq!(
            (game.board().hash(), game.board().captures(W)),
            (hash, caps)
        );
    }
    for _ in 0..7 {
        game.undo().unwrap();
    }
    assert!(game.is_empty());
    assert_eq!(game.undo(), Err(CannotUndo));
}

#[test]
fn handicap_stones_are_not_moves() {
    let mut game = Game::new(19, Rules::default());
    let points = fixed_handicap_points(19, 4).unwrap();
    game.set_handicap(&points).unwrap();
    assert_eq!(game.to_move(), W);
    assert_eq!(game.handicap(), 4);
    assert!(!game.is_empty());
    assert_eq!(game.undo(), Err(CannotUndo));
    play_all(&mut game, &[(W, "K10")]);
    assert_eq!(game.set_handicap(&points), Err(SetupError::GameStarted));
}

#[test]
fn trailing_passes_count() {
    let game = game_after(9, &[(B, "E5"), (W, "pass"), (B, "pass")]);
    assert_eq!(game.trailing_passes(), 2);
}
