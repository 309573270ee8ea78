//! Full games between tengen's easy and medium levels and GNU Go (Chinese rules, level 1 to
//! stay quick), on 9x9 and 19x19: every move each side makes must be accepted by the other,
//! and after two passes tengen's `final_score` must equal GNU Go's, in a handicap game too
//! (where Chinese rules give White a point a stone).
//! Ignored (reported as such) without GNU Go unless TENGEN_REQUIRE_EXTERNAL=1. Both sides are
//! seeded, so every run plays the same games.

mod common;

use std::path::Path;
use std::thread;

use common::{Gtp, margin};

/// Plays one game; returns (moves played, tengen's score, GNU Go's score).
fn play_game(
    gnugo: &Path,
    config: &Path,
    level: &str,
    size: usize,
    handicap: usize,
    tengen_is_black: bool,
) -> (usize, String, String) {
    let config = config.to_str().unwrap();
    let mut tengen = Gtp::spawn(
        common::tengen_path(),
        &["gtp", "--config", config, "--level", level],
    );
    let mut gnu = Gtp::spawn(
        gnugo.to_str().unwrap(),
        &[
            "--mode",
            "gtp",
            "--chinese-rules",
            "--level",
            "1",
            "--seed",
            "1",
        ],
    );
    let komi = match (handicap, size) {
        (2.., _) => "0.5",
        (_, 9) => "7",
        _ => "7.5",
    };
    for engine in [&mut tengen, &mut gnu] {
        engine.ok(&format!("boardsize {size}"));
        engine.ok("clear_board");
        engine.ok(&format!("komi {komi}"));
        if handicap >= 2 {
            engine.ok(&format!("fixed_handicap {handicap}"));
        }
    }
    let cap = 4 * size * size;
    let mut passes = 0;
    let mut moves = 0;
    let mut black_to_move = handicap < 2;
    while passes < 2 {
        let color = if black_to_move { "b" } else { "w" };
        let tengen_moves = black_to_move == tengen_is_black;
        let (mover, other) = if tengen_moves {
            (&mut tengen, &mut gnu)
        } else {
            (&mut gnu, &mut tengen)
        };
        let mv = mover.ok(&format!("genmove {color}"));
        assert_ne!(
            mv.to_lowercase(),
            "resign",
            "no resignation expected at these levels"
        );
        other
            .send(&format!("play {color} {mv}"))
            .unwrap_or_else(|e| {
                let who = if tengen_moves {
                    "GNU Go refused tengen's"
                } else {
                    "tengen refused GNU Go's"
                };
                panic!("{who} move {color} {mv} (move {moves}, {level} {size}x{size}): {e}")
            });
        passes = if mv.eq_ignore_ascii_case("pass") {
            passes + 1
        } else {
            0
        };
        moves += 1;
        assert!(
            moves < cap,
            "{level} vs GNU Go on {size}x{size} did not end in {cap} moves"
        );
        black_to_move = !black_to_move;
    }
    let ours = tengen.ok("final_score");
    let theirs = gnu.ok("final_score");
    tengen.quit();
    gnu.quit();
    (moves, ours, theirs)
}

#[test]
#[cfg_attr(not(gnugo_tests), ignore = "GNU Go not found: install gnugo")]
fn games_against_gnu_go_are_legal_and_scored_alike() {
    let gnugo = common::gnugo();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tengen-interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("engines.toml");
    std::fs::write(
        &config,
        "[levels.easy]\nplayer = \"random\"\nseed = 1\n[levels.medium]\nplayer = \"heuristic\"\nseed = 1\n",
    )
    .unwrap();
    // (level, size, handicap stones, whether tengen is Black)
    let games = [
        ("easy", 9, 0, true),
        ("medium", 9, 0, false),
        ("medium", 9, 3, true),
        ("easy", 19, 0, false),
        ("medium", 19, 0, true),
    ];
    let handles: Vec<_> = games
        .into_iter()
        .map(|(level, size, handicap, black)| {
            let (gnugo, config) = (gnugo.clone(), config.clone());
            thread::spawn(move || {
                let game = play_game(&gnugo, &config, level, size, handicap, black);
                (level, size, game)
            })
        })
        .collect();
    for handle in handles {
        let (level, size, (moves, ours, theirs)) = handle.join().expect("game thread");
        eprintln!("{level} vs GNU Go {size}x{size}: {moves} moves, tengen {ours}, GNU Go {theirs}");
        assert_eq!(
            margin(&ours),
            margin(&theirs),
            "{level} {size}x{size}: scores differ"
        );
    }
}
