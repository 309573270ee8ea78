//! The lines gtp2ogs (the bridge that puts a GTP engine on OGS) reads on tengen's stderr after
//! a searched `genmove`: one it turns into the variation observers see, and, when the level's
//! `ogs_chat` is on, one it passes on to observers as chat (its `MALKOVICH:` lines).
//!
//! gtp2ogs 9 parses a variation only in the format of an engine it has recognised on stderr;
//! none is neutral. Leela's line (`MC winrate=…, N visits, score W% (from …) PV: …`) is
//! recognised by its own start and names no engine, but has no room for a score. KataGo's
//! (`CHAT:Visits N Winrate W% ScoreLead L ScoreStdev S PV …`) carries the lead, and gtp2ogs
//! reads it once a stderr line holds the word `KataGo`. So a search that knows the lead (with
//! a net) writes KataGo's line, introduced as tengen's in KataGo's format, and one that does
//! not (the plain mcts search) writes Leela's. Win rate and lead are the mover's, as KataGo
//! reports them by default. The lines go out before the move's response, while gtp2ogs still
//! waits for the move (it reads variations only then).

use std::io::{self, Write};

use crate::engine::player::{MoveInfo, Progress, Report, ScoreStats, Update};
use crate::rules::board::{Color, Move};

/// What introduces the variation in KataGo's format: the word gtp2ogs looks for, and a
/// reader's reason for it.
const KATAGO_FORMAT: &str = "tengen, in KataGo's format for gtp2ogs:";

/// What Leela's format has in its `(from …)` part.
const LEELA_FORMAT: &str = "from tengen's search, in Leela's format for gtp2ogs";

/// A `genmove`'s progress that keeps the player's last report, for the lines after the move.
#[derive(Default)]
pub struct Thinking {
    report: Option<Report>,
}

impl Progress for Thinking {
    fn update(&mut self, update: Update<'_>) -> bool {
        if let Update::Report(report) = update {
            self.report = Some(report.clone());
        }
        true
    }
}

impl Thinking {
    /// Writes to `out` the variation for the move answered as `vertex` by `color` on a board
    /// of `size`, then, if `chat`, the chat line for it; nothing when no search reported the
    /// move (a book move, a resignation, a move the engine put in place of the player's).
    pub fn write(
        &self,
        vertex: &str,
        color: Color,
        size: usize,
        chat: bool,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let Some(report) = &self.report else {
            return Ok(());
        };
        let Some(played) = report.moves.iter().find(|m| m.mv.to_vertex(size) == vertex) else {
            return Ok(());
        };
        let Some(variation) = variation_line(report, played, size) else {
            return Ok(());
        };
        let mut text = variation + "\n";
        if chat {
            text += &chat_line(report, played, color);
            text.push('\n');
        }
        // One write, so that a log line cannot come between the two.
        out.write_all(text.as_bytes())?;
        out.flush()
    }
}

/// The line gtp2ogs turns into the variation after `played` (one of `report`'s moves):
/// KataGo's format when the search knows the lead, Leela's otherwise; `None` when a number
/// is not finite.
pub fn variation_line(report: &Report, played: &MoveInfo, size: usize) -> Option<String> {
    let win = percent(played.winrate)?;
    let visits = report.root.visits;
    let pv = played
        .pv
        .iter()
        .map(|&mv| match mv {
            Move::Pass => "pass".to_string(),
            Move::Play(_) => mv.to_vertex(size),
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(match played.score {
        Some(score) => {
            let (lead, stdev) = finite_score(score)?;
            format!(
                "{KATAGO_FORMAT} CHAT:Visits {visits} Winrate {win:.2}% ScoreLead {lead:.1} \
                 ScoreStdev {stdev:.1} PV {pv}"
            )
        }
        None => format!(
            "MC winrate={:.4}, {visits} visits, score {win:.2}% ({LEELA_FORMAT}) PV: {pv}",
            win / 100.0
        ),
    })
}

/// The chat line for observers after `played` (one of `report`'s moves) by `color`: its win
/// rate, its lead when the search knows it, and the search's visits.
pub fn chat_line(report: &Report, played: &MoveInfo, color: Color) -> String {
    let side = match color {
        Color::Black => "Black",
        Color::White => "White",
    };
    let win = percent(played.winrate).unwrap_or(50.0);
    let lead = played
        .score
        .and_then(finite_score)
        .map_or(String::new(), |(lead, _)| {
            format!(", lead {lead:+.1} points")
        });
    format!(
        "MALKOVICH:{side}: win rate {win:.1}%{lead}, {} visits",
        report.root.visits
    )
}

/// A win rate from 0 to 1 as a percentage, if finite.
fn percent(winrate: f32) -> Option<f32> {
    winrate.is_finite().then(|| 100.0 * winrate.clamp(0.0, 1.0))
}

/// The lead rounded to tenths (a lead that rounds to zero is `0.0`, not `-0.0`) and its
/// spread, if both are finite.
fn finite_score(score: ScoreStats) -> Option<(f32, f32)> {
    if !score.mean.is_finite() || !score.stdev.is_finite() {
        return None;
    }
    // Adding 0.0 turns -0.0 into 0.0.
    let lead = (score.mean * 10.0).round() / 10.0 + 0.0;
    Some((lead, score.stdev.max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::RootInfo;
    use crate::rules::board::Point;

    fn play(vertex: &str) -> Move {
        Move::Play(Point::parse(vertex, 9).unwrap())
    }

    fn info(
        mv: Move,
        visits: u32,
        winrate: f32,
        pv: &[Move],
        score: Option<ScoreStats>,
    ) -> MoveInfo {
        MoveInfo {
            mv,
            visits,
            winrate,
            prior: 0.5,
            lcb: winrate - 0.01,
            utility: 2.0 * winrate - 1.0,
            order: 0,
            pv: pv.to_vec(),
            score,
            ownership: None,
        }
    }

    /// A report of 1234 visits whose most visited move is E5 and whose second is C3.
    fn report(score: Option<ScoreStats>) -> Report {
        let moves = vec![
            info(
                play("E5"),
                1000,
                0.5523,
                &[play("E5"), play("C3"), Move::Pass],
                score,
            ),
            info(play("C3"), 234, 0.48, &[play("C3"), play("G7")], score),
        ];
        Report {
            moves,
            root: RootInfo {
                visits: 1234,
                winrate: 0.5523,
                utility: 0.1046,
                score,
            },
            ownership: None,
            last: true,
        }
    }

    fn lead(mean: f32, stdev: f32) -> Option<ScoreStats> {
        Some(ScoreStats { mean, stdev })
    }

    #[test]
    fn a_search_without_a_score_writes_leelas_line() {
        let report = report(None);
        assert_eq!(
            variation_line(&report, &report.moves[0], 9).unwrap(),
            "MC winrate=0.5523, 1234 visits, score 55.23% (from tengen's search, in Leela's \
             format for gtp2ogs) PV: E5 C3 pass"
        );
    }

    #[test]
    fn a_search_with_a_score_writes_katagos_line() {
        let report = report(lead(-3.46, 11.04));
        assert_eq!(
            variation_line(&report, &report.moves[1], 9).unwrap(),
            "tengen, in KataGo's format for gtp2ogs: CHAT:Visits 1234 Winrate 48.00% \
             ScoreLead -3.5 ScoreStdev 11.0 PV C3 G7"
        );
        // A lead that rounds to nothing has no sign; an unknown number gives no line.
        let even = report_with_first(lead(-0.04, 2.0));
        assert!(
            variation_line(&even, &even.moves[0], 9)
                .unwrap()
                .contains(" ScoreLead 0.0 ScoreStdev 2.0 ")
        );
        let broken = report_with_first(lead(f32::NAN, 2.0));
        assert_eq!(variation_line(&broken, &broken.moves[0], 9), None);
    }

    fn report_with_first(score: Option<ScoreStats>) -> Report {
        let mut report = report(None);
        report.moves[0].score = score;
        report
    }

    #[test]
    fn the_chat_line_names_the_mover_its_win_rate_lead_and_visits() {
        let with_lead = report(lead(2.25, 8.0));
        assert_eq!(
            chat_line(&with_lead, &with_lead.moves[0], Color::White),
            "MALKOVICH:White: win rate 55.2%, lead +2.3 points, 1234 visits"
        );
        let without = report(None);
        assert_eq!(
            chat_line(&without, &without.moves[1], Color::Black),
            "MALKOVICH:Black: win rate 48.0%, 1234 visits"
        );
    }

    fn written(thinking: &Thinking, vertex: &str, chat: bool) -> String {
        let mut out = Vec::new();
        thinking
            .write(vertex, Color::Black, 9, chat, &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_lines_follow_the_move_played_and_the_chat_only_when_asked() {
        let mut thinking = Thinking::default();
        assert_eq!(written(&thinking, "E5", true), "", "no search, no lines");
        assert!(thinking.update(Update::Report(&report(None))));
        let quiet = written(&thinking, "C3", false);
        assert_eq!(quiet.lines().count(), 1, "{quiet}");
        assert!(quiet.ends_with("PV: C3 G7\n"), "{quiet}");
        let chatty = written(&thinking, "C3", true);
        assert_eq!(
            chatty.lines().collect::<Vec<_>>(),
            [
                quiet.trim_end(),
                "MALKOVICH:Black: win rate 48.0%, 1234 visits"
            ]
        );
        // A move the search did not report, or a resignation: nothing.
        assert_eq!(written(&thinking, "A1", true), "");
        assert_eq!(written(&thinking, "resign", true), "");
    }
}
