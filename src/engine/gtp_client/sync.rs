//! Keeping an engine's board in step with a game: what it holds is mirrored, so that only new
//! moves are sent; a switch to another line uses `undo` when the engine lists it, else a
//! fresh board (`boardsize`, `clear_board`, `komi`, the stones before the first move) and a
//! replay.

use std::fmt;
use std::time::{Duration, Instant};

use super::{Client, ClientError, excerpt};
use crate::rules::board::{Color, Move, Point, vertex_list};
use crate::rules::game::Game;

/// How the stones before the first move are placed on an engine's board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// With one `play` a stone.
    Play,
    /// With `set_free_handicap` when they are all Black's (the handicap), else with `play`.
    FreeHandicap,
    /// With `fixed_handicap N`, where the engine chooses the points: the points it answers
    /// must be the stones (they are Black's, the GTP spec's points for N).
    FixedHandicap,
}

/// The start of a game as an engine is told it.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    /// The board size.
    pub size: usize,
    /// The komi.
    pub komi: f64,
    /// The stones before the first move, in point order.
    pub stones: Vec<(Point, Color)>,
    /// How they are placed.
    pub placement: Placement,
}

impl Start {
    /// `game`'s start, its handicap stones placed with `set_free_handicap`.
    pub fn of(game: &Game) -> Start {
        Start {
            size: game.size(),
            komi: game.rules().komi,
            stones: game.setup_stones(),
            placement: if game.handicap() > 0 {
                Placement::FreeHandicap
            } else {
                Placement::Play
            },
        }
    }
}

/// How long the commands of a sync may take: each at most `each`, and all of them by `by`
/// when given (a command not sent by then is [`ClientError::Expired`]).
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// The most one command may take.
    pub each: Duration,
    /// When every command must be answered.
    pub by: Option<Instant>,
}

impl Limits {
    /// Sends `command` to `client` within these limits.
    pub fn send(&self, client: &mut Client, command: &str) -> Result<String, ClientError> {
        match self.by {
            Some(by) => client.send_by(command, by.min(Instant::now() + self.each)),
            None => client.send(command, Some(self.each)),
        }
    }
}

/// Why a sync stopped.
#[derive(Debug)]
pub enum SyncError {
    /// `command` got no answer, or a refusal.
    Failed {
        /// The command.
        command: String,
        /// What went wrong.
        error: ClientError,
    },
    /// The engine answered `command` (a `fixed_handicap`) with other points than the stones.
    Misplaced {
        /// The command.
        command: String,
        /// Its answer.
        answer: String,
    },
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncError::Failed { command, error } => write!(f, "`{command}`: {error}"),
            SyncError::Misplaced { command, answer } => write!(
                f,
                "answered `{}` to `{command}`, not the GTP spec's points",
                excerpt(answer)
            ),
        }
    }
}

impl std::error::Error for SyncError {}

/// The board an engine holds, as far as it is known: a start and the moves played from it
/// (its own moves too, legal or not).
#[derive(Clone, Debug, Default)]
pub struct Mirror {
    /// The start and the moves; `None` when not known (the next sync starts afresh).
    held: Option<(Start, Vec<(Color, Move)>)>,
    /// Whether the engine lists `undo`.
    undo: bool,
}

impl Mirror {
    /// The mirror of a fresh engine, which lists `undo` or not.
    pub fn new(undo: bool) -> Mirror {
        Mirror { held: None, undo }
    }

    /// The engine played `mv` for `c` on its board (it generated it).
    pub fn played(&mut self, c: Color, mv: Move) {
        if let Some((_, moves)) = &mut self.held {
            moves.push((c, mv));
        }
    }

    /// What the engine holds is not known any more: the next sync starts afresh.
    pub fn forget(&mut self) {
        self.held = None;
    }

    /// Brings `client`'s board to `start` and `moves` within `limits`: the new moves only when
    /// it holds an earlier position from the same start; `undo`s when it went down another
    /// line and lists `undo`; else a fresh board, the stones and every move. The mirror
    /// follows each command answered, so a sync cut short by `limits.by` goes on from there
    /// next time; after any other failure what the engine holds is not known.
    pub fn sync(
        &mut self,
        client: &mut Client,
        start: &Start,
        moves: &[(Color, Move)],
        limits: Limits,
    ) -> Result<(), SyncError> {
        let kept = match &mut self.held {
            Some((held_start, held_moves)) if held_start == start => {
                let common = held_moves
                    .iter()
                    .zip(moves)
                    .take_while(|(a, b)| a == b)
                    .count();
                if held_moves.len() == common {
                    Some(common)
                } else if self.undo {
                    let mut undone = Ok(());
                    while held_moves.len() > common {
                        undone = limits.send(client, "undo").map(drop);
                        if undone.is_err() {
                            break;
                        }
                        held_moves.pop();
                    }
                    match undone {
                        Ok(()) => Some(common),
                        Err(ClientError::Refused(_)) => None,
                        Err(error) => return Err(failed("undo", error)),
                    }
                } else {
                    None
                }
            }
            _ => None,
        };
        let kept = match kept {
            Some(kept) => kept,
            None => {
                self.held = None;
                reset(client, start, limits)?;
                self.held = Some((start.clone(), Vec::new()));
                0
            }
        };
        for &(c, mv) in &moves[kept..] {
            let command = format!("play {c} {}", mv.to_vertex(start.size));
            match limits.send(client, &command) {
                Ok(_) => self.played(c, mv),
                Err(error) => {
                    if !matches!(error, ClientError::Expired { .. }) {
                        // Whether it played the move is not known.
                        self.held = None;
                    }
                    return Err(failed(&command, error));
                }
            }
        }
        Ok(())
    }
}

/// A failed `command` as a [`SyncError`].
fn failed(command: &str, error: ClientError) -> SyncError {
    SyncError::Failed {
        command: command.to_string(),
        error,
    }
}

/// Gives `client` a fresh board with `start`'s size, komi and stones.
fn reset(client: &mut Client, start: &Start, limits: Limits) -> Result<(), SyncError> {
    let mut send = |command: &str| {
        limits
            .send(client, command)
            .map_err(|error| failed(command, error))
    };
    send(&format!("boardsize {}", start.size))?;
    send("clear_board")?;
    send(&format!("komi {}", start.komi))?;
    let all_black = start.stones.iter().all(|&(_, c)| c == Color::Black);
    match start.placement {
        Placement::FixedHandicap if !start.stones.is_empty() => {
            let command = format!("fixed_handicap {}", start.stones.len());
            let answer = send(&command)?;
            let mut placed: Vec<Option<Point>> = answer
                .split_whitespace()
                .map(|word| match Move::parse(word, start.size) {
                    Ok(Move::Play(p)) => Some(p),
                    _ => None,
                })
                .collect();
            let mut wanted: Vec<Option<Point>> =
                start.stones.iter().map(|&(p, _)| Some(p)).collect();
            placed.sort_by_key(|p| p.map(Point::index));
            wanted.sort_by_key(|p| p.map(Point::index));
            if placed != wanted {
                return Err(SyncError::Misplaced { command, answer });
            }
        }
        Placement::FreeHandicap if all_black && !start.stones.is_empty() => {
            let points: Vec<Point> = start.stones.iter().map(|&(p, _)| p).collect();
            send(&format!(
                "set_free_handicap {}",
                vertex_list(&points, start.size)
            ))?;
        }
        _ => {
            for &(p, c) in &start.stones {
                send(&format!("play {c} {}", p.to_vertex(start.size)))?;
            }
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::rules::game::Rules;

    /// An engine in sh that logs each command to a file and accepts it, but refuses `refused`
    /// and answers `fixed_handicap` with `fixed`.
    struct Fake {
        client: Client,
        log: std::path::PathBuf,
    }

    impl Fake {
        fn start(name: &str, refused: &str, fixed: &str) -> Fake {
            let log =
                std::env::temp_dir().join(format!("tengen-sync-{name}-{}.log", std::process::id()));
            let _ = std::fs::remove_file(&log);
            let script = format!(
                "while read -r id cmd rest; do echo \"$cmd $rest\" >> {}; \
                 case \"$cmd $rest\" in \
                   '{refused}') printf '?%s no\\n\\n' $id ;; \
                   fixed_handicap*) printf '=%s {fixed}\\n\\n' $id ;; \
                   *) printf '=%s\\n\\n' $id ;; \
                 esac; done",
                log.display()
            );
            let client = Client::spawn_argv(&["sh".into(), "-c".into(), script], name).unwrap();
            Fake { client, log }
        }

        /// The commands sent since the last call.
        fn sent(&mut self) -> Vec<String> {
            // Every command has been answered, so it is in the log.
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            let _ = std::fs::remove_file(&self.log);
            text.lines().map(|l| l.trim().to_string()).collect()
        }
    }

    impl Drop for Fake {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.log);
        }
    }

    const LIMITS: Limits = Limits {
        each: Duration::from_secs(20),
        by: None,
    };

    /// A 9x9 game with `handicap` stones (none: an even game) and `moves`, alternating from
    /// whoever moves first.
    fn game(handicap: &[&str], moves: &[&str]) -> Game {
        let mut game = Game::new(9, Rules::japanese(6.5));
        let points: Vec<Point> = handicap
            .iter()
            .map(|v| Point::parse(v, 9).unwrap())
            .collect();
        if !points.is_empty() {
            game.set_handicap(&points).unwrap();
        }
        for v in moves {
            game.play(game.to_move(), Move::parse(v, 9).unwrap())
                .unwrap();
        }
        game
    }

    fn sync(mirror: &mut Mirror, fake: &mut Fake, game: &Game) -> Result<(), SyncError> {
        mirror.sync(&mut fake.client, &Start::of(game), game.moves(), LIMITS)
    }

    #[test]
    fn a_new_engine_gets_the_start_then_only_new_moves() {
        let mut fake = Fake::start("new", "", "");
        let mut mirror = Mirror::new(true);
        sync(&mut mirror, &mut fake, &game(&["C3", "G7"], &["E5"])).unwrap();
        assert_eq!(
            fake.sent(),
            [
                "boardsize 9",
                "clear_board",
                "komi 6.5",
                "set_free_handicap C3 G7",
                "play white E5"
            ]
        );
        sync(&mut mirror, &mut fake, &game(&["C3", "G7"], &["E5", "D4"])).unwrap();
        assert_eq!(fake.sent(), ["play black D4"]);
        // Its own move is not sent again.
        mirror.played(Color::White, Move::parse("F6", 9).unwrap());
        sync(
            &mut mirror,
            &mut fake,
            &game(&["C3", "G7"], &["E5", "D4", "F6", "B2"]),
        )
        .unwrap();
        assert_eq!(fake.sent(), ["play black B2"]);
        // Set-up stones of both colours are played.
        let mut setup = Game::new(9, Rules::japanese(6.5));
        let stone = |v: &str, c| (Point::parse(v, 9).unwrap(), Some(c));
        setup
            .setup(&[stone("C3", Color::Black), stone("G7", Color::White)])
            .unwrap();
        sync(&mut mirror, &mut fake, &setup).unwrap();
        assert_eq!(
            fake.sent(),
            [
                "boardsize 9",
                "clear_board",
                "komi 6.5",
                "play black C3",
                "play white G7"
            ]
        );
    }

    #[test]
    fn another_line_is_reached_with_undo_or_else_a_fresh_board() {
        let line = game(&[], &["E5", "C3", "G7"]);
        let other = game(&[], &["E5", "D4"]);
        let mut fake = Fake::start("undo", "", "");
        let mut mirror = Mirror::new(true);
        sync(&mut mirror, &mut fake, &line).unwrap();
        fake.sent();
        sync(&mut mirror, &mut fake, &other).unwrap();
        assert_eq!(fake.sent(), ["undo", "undo", "play white D4"]);
        // Back to an earlier position: undo only.
        sync(&mut mirror, &mut fake, &game(&[], &["E5"])).unwrap();
        assert_eq!(fake.sent(), ["undo"]);
        // Without undo, or with a refused one: a fresh board and the whole line.
        let replayed = [
            "boardsize 9",
            "clear_board",
            "komi 6.5",
            "play black E5",
            "play white D4",
        ];
        for (undo, refused) in [(false, ""), (true, "undo ")] {
            let mut fake = Fake::start("no-undo", refused, "");
            let mut mirror = Mirror::new(undo);
            sync(&mut mirror, &mut fake, &line).unwrap();
            fake.sent();
            sync(&mut mirror, &mut fake, &other).unwrap();
            let sent = fake.sent();
            assert!(
                sent.ends_with(&replayed.map(String::from)),
                "{undo} {sent:?}"
            );
        }
        // Another komi is another start.
        let mut komi = game(&[], &["E5", "D4"]);
        komi.set_komi(0.5);
        sync(&mut mirror, &mut fake, &komi).unwrap();
        assert_eq!(fake.sent()[..3], ["boardsize 9", "clear_board", "komi 0.5"]);
    }

    #[test]
    fn a_refused_move_is_an_error_and_the_next_sync_starts_afresh() {
        let mut fake = Fake::start("refuse", "play white C3", "");
        let mut mirror = Mirror::new(true);
        let error = sync(&mut mirror, &mut fake, &game(&[], &["E5", "C3", "G7"])).unwrap_err();
        assert!(
            matches!(
                &error,
                SyncError::Failed { command, error: ClientError::Refused(_) }
                    if command == "play white C3"
            ),
            "{error:?}"
        );
        assert_eq!(
            fake.sent().last().map(String::as_str),
            Some("play white C3")
        );
        sync(&mut mirror, &mut fake, &game(&[], &["E5"])).unwrap();
        assert_eq!(
            fake.sent(),
            ["boardsize 9", "clear_board", "komi 6.5", "play black E5"]
        );
        // A deadline already past sends nothing and loses nothing.
        let past = Limits {
            by: Some(Instant::now()),
            ..LIMITS
        };
        let next = game(&[], &["E5", "D4"]);
        let expired = mirror.sync(&mut fake.client, &Start::of(&next), next.moves(), past);
        assert!(matches!(
            expired,
            Err(SyncError::Failed {
                error: ClientError::Expired { .. },
                ..
            })
        ));
        sync(&mut mirror, &mut fake, &next).unwrap();
        assert_eq!(fake.sent(), ["play white D4"]);
    }

    #[test]
    fn a_fixed_handicap_must_land_on_the_stones() {
        let handicap = game(&["C3", "G7"], &[]);
        let fixed = Start {
            placement: Placement::FixedHandicap,
            ..Start::of(&handicap)
        };
        for (answer, right) in [("G7 C3", true), ("C3 G7 E5", false), ("C3 pass", false)] {
            let mut fake = Fake::start("fixed", "", answer);
            let synced = Mirror::new(false).sync(&mut fake.client, &fixed, &[], LIMITS);
            assert_eq!(synced.is_ok(), right, "{answer}: {synced:?}");
            assert_eq!(
                fake.sent().last().map(String::as_str),
                Some("fixed_handicap 2")
            );
        }
    }
}
