//! The result of a game that was played out: the referee's `final_score` when there is one,
//! else both engines' when they agree, else tengen's own scorer; the comment says which.

use std::time::Duration;

use log::warn;

use super::engine::Contestant;
use super::play::PlayedGame;
use crate::engine::gtp_client::sync::{Limits, Mirror, Start};
use crate::engine::gtp_client::{Client, ClientError};
use crate::rules::game::score::{Assessment, DEFAULT_PLAYOUTS, format_result};

/// How long a `final_score` may take.
const SCORE_TIMEOUT: Duration = Duration::from_secs(60);

/// The result (`B+3.5`, `W+1`, `0`) and how it was decided.
pub fn decide(
    played: &PlayedGame,
    referee: Option<&mut Contestant>,
    black: &mut Contestant,
    white: &mut Contestant,
) -> (String, String) {
    if let Some(referee) = referee {
        match referee_score(played, referee) {
            Ok(result) => {
                return (
                    result,
                    format!("scored by the referee ({})", referee.name()),
                );
            }
            Err(e) => warn!("the referee could not score game: {e}"),
        }
    }
    let own = || Assessment::of(&played.game, DEFAULT_PLAYOUTS).result();
    let black_says = engine_score(black);
    let white_says = engine_score(white);
    match (&black_says, &white_says) {
        (Some(b), Some(w)) if b == w => (b.clone(), "both engines' final_score agree".into()),
        _ => {
            let said = |s: &Option<String>| s.clone().unwrap_or_else(|| "nothing".into());
            (
                own(),
                format!(
                    "scored by tengen (Black's engine said {}, White's said {})",
                    said(&black_says),
                    said(&white_says)
                ),
            )
        }
    }
}

/// The referee's verdict: it is given the whole game, then asked `final_score`.
fn referee_score(played: &PlayedGame, referee: &mut Contestant) -> Result<String, String> {
    let client = referee.client().map_err(|e| e.to_string())?;
    let game = &played.game;
    let limits = Limits {
        each: SCORE_TIMEOUT,
        by: None,
    };
    Mirror::new(false)
        .sync(client, &Start::of(game), game.moves(), limits)
        .map_err(|e| e.to_string())?;
    let answer = send(client, "final_score").map_err(|e| e.to_string())?;
    let result = normalize(&answer).ok_or_else(|| format!("final_score answered `{answer}`"));
    if result.is_err() {
        referee.stop();
    }
    result
}

/// Sends one command with the scoring timeout.
fn send(client: &mut Client, command: &str) -> Result<String, ClientError> {
    client.send(command, Some(SCORE_TIMEOUT))
}

/// What an engine's `final_score` says, normalised; `None` when it cannot say.
fn engine_score(engine: &mut Contestant) -> Option<String> {
    let client = engine.client().ok()?;
    match send(client, "final_score") {
        Ok(answer) => normalize(&answer),
        Err(ClientError::Refused(_)) => None,
        Err(e) => {
            warn!("final_score: {e}");
            engine.stop();
            None
        }
    }
}

/// `B+3.5`, `W+2`, `0` from a `final_score` answer (`b+3.5`, `W+2.0`, `0`, `Draw`, `Jigo`).
fn normalize(answer: &str) -> Option<String> {
    let answer = answer.trim();
    if ["0", "draw", "jigo", "b+0", "w+0"]
        .iter()
        .any(|d| answer.eq_ignore_ascii_case(d))
    {
        return Some(format_result(0.0));
    }
    let (side, margin) = answer.split_once('+')?;
    let margin: f64 = margin.trim().parse().ok().filter(|m: &f64| m.is_finite())?;
    match side.trim().to_ascii_uppercase().as_str() {
        "B" => Some(format_result(margin)),
        "W" => Some(format_result(-margin)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn final_scores_are_normalised() {
        assert_eq!(normalize("B+3.5").as_deref(), Some("B+3.5"));
        assert_eq!(normalize(" w+2.0 ").as_deref(), Some("W+2"));
        assert_eq!(normalize("0").as_deref(), Some("0"));
        assert_eq!(normalize("Jigo").as_deref(), Some("0"));
        assert_eq!(normalize("B+R"), None);
        assert_eq!(normalize("cannot score"), None);
        assert_eq!(normalize("X+3"), None);
    }
}
