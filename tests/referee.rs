//! GNU Go referees tengen's rules over whole seeded random games: before every move it is
//! asked whether each point is legal for the player to move (`is_legal`), after every move
//! which stones stand (`list_stones`), and at the end of each game, where both find the same
//! dead stones, for the area score under Chinese rules (`final_score`).
//!
//! GNU Go plays simple ko and tengen's Chinese rules positional superko, so every answer is
//! compared with tengen's game under simple ko (the same board code, without the repetition
//! check), and the game under superko is played alongside: a move it forbids for a repetition
//! is never played, so that the game stays one both rules allow and both programs hold the
//! same position throughout; where it forbids a move simple ko allows, the reason must be
//! superko.
//! Ignored (reported as such) without GNU Go unless TENGEN_REQUIRE_EXTERNAL=1.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{Gtp, margin};
use tengen::rules::board::{Color, Move, Point};
use tengen::rules::game::score::{Assessment, DEFAULT_PLAYOUTS, StoneStatus};
use tengen::rules::game::{Game, IllegalMove, KoRule, Rules};

/// The komi of every game (an integer: a draw is a result like any other).
const KOMI: f64 = 7.0;

/// Board sizes and seeds of the games: small boards, where captures, kos, suicide points and
/// repetitions come often.
const GAMES: [(usize, u64); 18] = [
    (5, 1),
    (5, 2),
    (5, 3),
    (5, 4),
    (5, 5),
    (5, 6),
    (5, 7),
    (5, 8),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (9, 1),
    (9, 2),
    (9, 3),
    (9, 4),
];

/// A small seeded generator (xorshift64*), so that every run plays the same games.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// What one game checked.
#[derive(Default)]
struct Tally {
    moves: usize,
    /// `is_legal` answers compared, and how many of them said a simple ko retake or a
    /// suicide is illegal.
    legality_checks: usize,
    kos: usize,
    suicides: usize,
    /// Points that superko forbids and simple ko allows.
    superko: usize,
    /// Whether the final score was compared (both found the same dead stones).
    score_compared: bool,
}

/// The points `color` may play in both `games` (simple ko and superko agree) and that are not
/// its own eyes: the moves the random player chooses from (a capture half the time when there
/// is one).
fn candidates(games: &[Game; 2], color: Color) -> Vec<Point> {
    let board = games[0].board();
    board
        .points()
        .filter(|&p| {
            games
                .iter()
                .all(|g| g.legality(color, Move::Play(p)).is_ok())
                && !board.is_eye(p, color)
        })
        .collect()
}

/// The vertices of `color`'s stones in `game`, sorted.
fn stones(game: &Game, color: Color) -> BTreeSet<String> {
    let board = game.board();
    board
        .points()
        .filter(|&p| board.color_at(p) == Some(color))
        .map(|p| p.to_vertex(game.size()))
        .collect()
}

/// The moves of `game` as `B C3 W D4 …`, for a failure's message.
fn record(game: &Game) -> String {
    game.moves()
        .iter()
        .map(|(c, mv)| format!("{} {}", c.letter(), mv.to_vertex(game.size())))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The vertices in a GTP answer, upper case and sorted.
fn vertices(answer: &str) -> BTreeSet<String> {
    answer
        .split_whitespace()
        .map(str::to_ascii_uppercase)
        .collect()
}

/// Plays the seeded random game of `size` and `seed` on tengen's rules and GNU Go's side by
/// side, comparing them at every move.
fn referee_game(gnugo: &Path, size: usize, seed: u64) -> Tally {
    let mut gnu = Gtp::spawn(
        gnugo.to_str().unwrap(),
        &[
            "--mode",
            "gtp",
            "--chinese-rules",
            "--simple-ko",
            "--forbid-suicide",
        ],
    );
    for command in [
        format!("boardsize {size}"),
        "clear_board".to_string(),
        format!("komi {KOMI}"),
    ] {
        gnu.ok(&command);
    }
    let chinese = Rules::chinese(KOMI);
    assert_eq!(chinese.ko, KoRule::PositionalSuperko);
    // The same game under superko (the one played) and under simple ko (the one asked).
    let mut games = [
        Game::new(size, chinese),
        Game::new(
            size,
            Rules {
                ko: KoRule::Simple,
                ..chinese
            },
        ),
    ];
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    let all: Vec<Point> = games[0].board().points().collect();
    let label = |tally: &Tally| format!("{size}x{size} seed {seed}, move {}", tally.moves + 1);
    while games[0].trailing_passes() < 2 {
        assert!(
            tally.moves < 1000,
            "{}: the game does not end",
            label(&tally)
        );
        let color = games[0].to_move();
        // Every point of the board: GNU Go's answer against tengen's under simple ko.
        let mut asked = Vec::new();
        let mut script = String::new();
        for &p in &all {
            let [superko, simple] = games.each_ref().map(|g| g.legality(color, Move::Play(p)));
            if superko != simple {
                assert_eq!(
                    (superko, simple),
                    (Err(IllegalMove::Superko), Ok(())),
                    "{}: {color} {}",
                    label(&tally),
                    p.to_vertex(size)
                );
                tally.superko += 1;
            }
            asked.push((p, simple));
            script += &format!("is_legal {color} {}\n", p.to_vertex(size));
        }
        // A move at random among the sensible ones; now and then a pass (which ends a simple
        // ko) while the opponent can still move, so that a game ends only when it is full.
        let mine = candidates(&games, color);
        let pass_now = tally.moves > 0
            && games[0].trailing_passes() == 0
            && rng.below(40) == 0
            && !candidates(&games, color.opponent()).is_empty();
        // Half the time a capture when there is one, so that kos come often.
        let board = games[0].board();
        let captures: Vec<Point> = mine
            .iter()
            .copied()
            .filter(|&p| {
                board.points().any(|s| {
                    board.color_at(s) == Some(color.opponent()) && board.atari_liberty(s) == Some(p)
                })
            })
            .collect();
        let mv = if mine.is_empty() || pass_now {
            Move::Pass
        } else if !captures.is_empty() && rng.below(2) == 0 {
            Move::Play(captures[rng.below(captures.len())])
        } else {
            Move::Play(mine[rng.below(mine.len())])
        };
        let vertex = mv.to_vertex(size);
        script += &format!("play {color} {vertex}\nlist_stones black\nlist_stones white\n");
        gnu.send_raw(&script);
        for &(p, verdict) in &asked {
            let legal = verdict.is_ok();
            let answer = gnu.read_response();
            assert_eq!(
                answer.as_deref(),
                Ok(if legal { "1" } else { "0" }),
                "{}: is {color} {} legal? tengen says {legal}, GNU Go {answer:?}; moves so far: {}",
                label(&tally),
                p.to_vertex(size),
                record(&games[0])
            );
            tally.legality_checks += 1;
            tally.kos += usize::from(verdict == Err(IllegalMove::Ko));
            tally.suicides += usize::from(verdict == Err(IllegalMove::Suicide));
        }
        if let Err(e) = gnu.read_response() {
            panic!("{}: GNU Go refused {color} {vertex}: {e}", label(&tally));
        }
        for game in &mut games {
            game.play(color, mv)
                .unwrap_or_else(|e| panic!("{}: {vertex}: {e}", label(&tally)));
        }
        for c in Color::ALL {
            let theirs = vertices(&gnu.read_response().expect("list_stones"));
            assert_eq!(
                stones(&games[0], c),
                theirs,
                "{}: {c} stones after {color} {vertex}; moves: {}",
                label(&tally),
                record(&games[0])
            );
        }
        tally.moves += 1;
    }
    // The score, where both agree on what is dead.
    let ours = Assessment::of(&games[0], DEFAULT_PLAYOUTS);
    let our_dead: BTreeSet<String> = ours
        .stones_with(StoneStatus::Dead)
        .into_iter()
        .map(|p| p.to_vertex(size))
        .collect();
    let their_dead = vertices(&gnu.ok("final_status_list dead"));
    if our_dead == their_dead {
        let theirs = gnu.ok("final_score");
        assert_eq!(
            ours.score(),
            margin(&theirs),
            "{size}x{size} seed {seed}: tengen counts {}, GNU Go {theirs}; moves: {}",
            ours.result(),
            record(&games[0])
        );
        tally.score_compared = true;
    } else {
        eprintln!(
            "{size}x{size} seed {seed}: dead stones differ (tengen {our_dead:?}, GNU Go \
             {their_dead:?}): score not compared"
        );
    }
    assert_eq!(gnu.quit(), Some(0));
    tally
}

#[test]
#[cfg_attr(not(gnugo_tests), ignore = "GNU Go not found: install gnugo")]
fn gnu_go_agrees_on_legality_captures_and_score_over_seeded_games() {
    let gnugo = common::gnugo();
    let tallies: Vec<Tally> = GAMES
        .iter()
        .map(|&(size, seed)| referee_game(&gnugo, size, seed))
        .collect();
    let sum = |f: fn(&Tally) -> usize| tallies.iter().map(f).sum::<usize>();
    let (moves, checks, kos, suicides, superko, scored) = (
        sum(|t| t.moves),
        sum(|t| t.legality_checks),
        sum(|t| t.kos),
        sum(|t| t.suicides),
        sum(|t| t.superko),
        sum(|t| usize::from(t.score_compared)),
    );
    eprintln!(
        "{} games, {moves} moves, {checks} legality answers ({kos} ko retakes, \
         {suicides} suicides), {superko} points forbidden by superko alone, \
         {scored} scores compared",
        tallies.len()
    );
    // The games reach what the referee is for: many moves, kos, suicides, scores.
    assert!(moves >= 1000, "{moves} moves");
    assert!(
        kos >= 15 && suicides >= 1000,
        "{kos} kos, {suicides} suicides"
    );
    assert!(scored >= GAMES.len() / 2, "{scored} scores compared");
}
