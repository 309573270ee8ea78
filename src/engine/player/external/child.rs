//! The child's life: started in the background when first needed, restarted when it hangs or
//! dies (at most [`MAX_RESTARTS`] times a game), given another chance at a new game; and each
//! move's deadline.

use std::collections::HashSet;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use log::{debug, info, warn};

use super::{ExternalEngine, ExternalError};
use crate::engine::gtp_client::sync::{Mirror, Start};
use crate::engine::gtp_client::{Client, ClientError, Greeting, HANDSHAKE_TIMEOUT, Killer};
use crate::engine::player::{Answer, Budget};
use crate::rules::board::{Color, Move};
use crate::rules::game::Game;

/// Restarts of a hung or crashed child allowed in one game.
pub const MAX_RESTARTS: u32 = 3;

/// A started child and what it has been told.
pub(super) struct Child {
    /// Its process.
    pub(super) client: Client,
    /// `name version`.
    pub(super) describe: String,
    /// The commands it lists.
    pub(super) commands: HashSet<String>,
    /// The board it holds.
    pub(super) mirror: Mirror,
    /// The last rules command it accepted or refused.
    pub(super) rules_sent: Option<String>,
    /// The last time settings command it accepted or refused.
    pub(super) time_sent: Option<String>,
}

/// A child spawned and being greeted on a thread of its own.
pub(super) struct Starting {
    /// The greeted child, or why it failed.
    receiver: Receiver<Result<Child, ClientError>>,
    /// Kills the child when the start is given up (until the child is taken over).
    killer: Option<Killer>,
    /// A move has waited for it until its deadline: later ones do not wait.
    waited: bool,
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(killer) = self.killer.take() {
            killer.kill();
        }
    }
}

/// Where the child is.
pub(super) enum State {
    /// Not started (or killed): start it when needed.
    Idle,
    /// Starting in the background.
    Starting(Starting),
    /// Ready.
    Running(Box<Child>),
    /// Not to be tried again before the next game.
    Disabled,
}

impl ExternalEngine {
    /// When a move is due: the budget's deadline or the move timeout, whichever comes first.
    pub(super) fn deadline(&self, budget: &Budget) -> Instant {
        let timeout = Instant::now() + self.move_timeout;
        budget.deadline.map_or(timeout, |d| d.min(timeout))
    }

    /// Notes the game of a `genmove`; at a new game a child that failed gets another chance.
    pub(super) fn note_game(&mut self, game: &Game) {
        if starts_new_game(self.seen.as_ref(), game) {
            self.restarts = 0;
            if matches!(self.state, State::Disabled) {
                debug!("{}: a new game; trying the engine again", self.name);
                self.state = State::Idle;
            }
        }
        self.seen = Some((Start::of(game), game.moves().to_vec()));
    }

    /// Restarts a hung or crashed child; forgets the position of one that answered nonsense.
    pub(super) fn after_answer(&mut self, result: &Result<Answer, ExternalError>) {
        match result {
            Err(ExternalError::Timeout | ExternalError::Crashed(_)) => self.restart(),
            // What it holds is known: the sync keeps its mirror move by move.
            Err(ExternalError::OutOfTime) => {}
            Err(_) => {
                if let State::Running(child) = &mut self.state {
                    child.mirror.forget();
                }
            }
            Ok(_) => {}
        }
    }

    /// The running child, started (or waited for) within `deadline`. Only the first move
    /// of a start waits for it; later ones only look whether it is ready.
    pub(super) fn ready_child(&mut self, deadline: Instant) -> Result<&mut Child, ExternalError> {
        if let State::Idle = self.state {
            let Some(command) = &self.command else {
                self.state = State::Disabled;
                return Err(ExternalError::StartFailed(format!(
                    "no engine `{}` in the config",
                    self.name
                )));
            };
            match start_in_background(command, &self.name) {
                Ok(starting) => self.state = State::Starting(starting),
                Err(e) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(e.to_string()));
                }
            }
        }
        if let State::Starting(starting) = &mut self.state {
            let wait = if starting.waited {
                Duration::ZERO
            } else {
                deadline.saturating_duration_since(Instant::now())
            };
            match starting.receiver.recv_timeout(wait) {
                Ok(Ok(child)) => {
                    starting.killer = None;
                    info!("{}: started {}", self.name, child.describe);
                    self.describe = Some(child.describe.clone());
                    self.state = State::Running(Box::new(child));
                }
                Ok(Err(e)) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(e.to_string()));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if !wait.is_zero() {
                        starting.waited = true;
                        warn!(
                            "{}: not ready by the move's deadline; the fallback plays until it \
                             is (it may take {} s to start)",
                            self.name,
                            HANDSHAKE_TIMEOUT.as_secs()
                        );
                    }
                    return Err(ExternalError::Starting);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(
                        "the start-up thread died".into(),
                    ));
                }
            }
        }
        match &mut self.state {
            State::Running(child) => Ok(child),
            _ => Err(ExternalError::Unavailable),
        }
    }

    /// Kills the child and starts a fresh one in the background, unless this game has seen
    /// too many restarts.
    pub(super) fn restart(&mut self) {
        if let State::Running(child) = &mut self.state {
            child.client.kill();
        }
        self.restarts += 1;
        self.state = match &self.command {
            Some(command) if self.restarts <= MAX_RESTARTS => {
                match start_in_background(command, &self.name) {
                    Ok(starting) => State::Starting(starting),
                    Err(e) => {
                        warn!("{}: cannot start it again: {e}", self.name);
                        State::Disabled
                    }
                }
            }
            _ => {
                warn!(
                    "{}: {} restarts in this game; not used again before the next game",
                    self.name, MAX_RESTARTS
                );
                State::Disabled
            }
        };
    }
}

/// Whether `game` is another game than `seen`, the game of the last `genmove`, so that a
/// child that failed gets another chance: an empty game, another board or set-up, or a game
/// of one move that does not continue `seen` (the opponent moved first: `clear_board`, `play b
/// E5`, `genmove w`). Taking back every move but the first and playing another counts too.
fn starts_new_game(seen: Option<&(Start, Vec<(Color, Move)>)>, game: &Game) -> bool {
    let Some((seen, seen_moves)) = seen else {
        return true;
    };
    let now = Start::of(game);
    let moves = game.moves();
    moves.is_empty()
        || now.size != seen.size
        || now.stones != seen.stones
        || now.placement != seen.placement
        || (moves.len() == 1 && !moves.starts_with(seen_moves))
}

/// Spawns `command` and greets it on a thread of its own, the whole handshake within
/// [`HANDSHAKE_TIMEOUT`] (after it the child is killed and the start fails).
fn start_in_background(command: &[String], name: &str) -> Result<Starting, ClientError> {
    let mut client = Client::spawn_argv(command, name)?;
    let killer = client.killer();
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let (tx, receiver) = mpsc::channel();
    thread::spawn(move || {
        let started = match client.greet_by(deadline) {
            Ok(Greeting { describe, commands }) => Ok(Child {
                client,
                describe,
                mirror: Mirror::new(commands.contains("undo")),
                commands,
                rules_sent: None,
                time_sent: None,
            }),
            Err(e) => Err(e),
        };
        let _ = tx.send(started);
    });
    Ok(Starting {
        receiver,
        killer: Some(killer),
        waited: false,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::rules::game::Rules;

    #[test]
    fn a_new_game_is_noticed_whoever_moves_first() {
        let game = |moves: &[&str]| {
            let mut game = Game::new(9, Rules::default());
            for (i, mv) in moves.iter().enumerate() {
                let c = if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                game.play(c, Move::parse(mv, 9).unwrap()).unwrap();
            }
            game
        };
        let seen = |moves: &[&str]| {
            let g = game(moves);
            (Start::of(&g), g.moves().to_vec())
        };
        let long = seen(&["E5", "C3", "G7", "D4"]);
        // Tengen moves first, or second after the opponent's first move.
        assert!(starts_new_game(Some(&long), &game(&[])));
        assert!(starts_new_game(Some(&long), &game(&["E5"])));
        assert!(starts_new_game(Some(&seen(&["C3"])), &game(&["E5"])));
        assert!(starts_new_game(None, &game(&["E5", "C3"])));
        assert!(starts_new_game(
            Some(&long),
            &Game::new(13, Rules::default())
        ));
        // The same game going on (tengen played E5 and is asked for White's move too), or
        // taken back a few moves.
        assert!(!starts_new_game(Some(&seen(&[])), &game(&["E5"])));
        assert!(!starts_new_game(Some(&seen(&["E5"])), &game(&["E5"])));
        assert!(!starts_new_game(
            Some(&seen(&["E5"])),
            &game(&["E5", "C3", "G7"])
        ));
        assert!(!starts_new_game(Some(&long), &game(&["E5", "C3"])));
        assert!(!starts_new_game(
            Some(&long),
            &game(&["E5", "C3", "G7", "D4", "F6"])
        ));
    }
}
