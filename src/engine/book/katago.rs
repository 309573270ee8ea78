//! KataGo's JSON analysis engine (`katago analysis`) as the book builder's searcher: one query
//! a position, its root moves with their visits back. Its moves are facts the book records,
//! as it records those of tengen's own search.
//!
//! Nothing it writes is held without bound: a line is read up to [`MAX_LINE`] bytes, and each
//! position waits at most [`QUERY_TIMEOUT`].

use std::io::{BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::BookError;
use crate::engine::gtp_client::{drain_stderr, excerpt};
use crate::ground::lines::{read_bounded, without_newline};
use crate::rules::board::Move;
use crate::rules::game::Game;

/// The longest line read from the engine (an answer with principal variations for every
/// move of a 19x19 position is some tens of kilobytes).
const MAX_LINE: usize = 4 << 20;

/// The longest a position may take, the engine's start included (a net loads in seconds;
/// a search of many visits on a CPU can take minutes).
const QUERY_TIMEOUT: Duration = Duration::from_secs(3600);

/// A running `katago analysis`.
pub struct AnalysisEngine {
    child: Child,
    input: BufWriter<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    queries: u64,
    size: usize,
    komi: f64,
    rules: &'static str,
    visits: u64,
}

impl AnalysisEngine {
    /// Starts `command_line` (split as a shell would, without running one) for positions of
    /// `size` with `komi` and `rules` (tengen's names), each searched with `visits`.
    pub fn start(
        command_line: &str,
        size: usize,
        komi: f64,
        rules: &str,
        visits: u64,
    ) -> Result<AnalysisEngine, BookError> {
        let fail = |e: &dyn std::fmt::Display| BookError(format!("--engine `{command_line}`: {e}"));
        let argv = shell_words::split(command_line).map_err(|e| fail(&e))?;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| fail(&"an empty command"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| fail(&e))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(fail(&"no pipes to the child"));
        };
        // KataGo logs its start-up on stderr: drained, so that it never blocks on a full pipe.
        std::thread::spawn(move || drain_stderr(stderr, "analysis engine"));
        let (sender, lines) = mpsc::sync_channel(16);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            while let Ok(Some(too_long)) = read_bounded(&mut reader, &mut line, MAX_LINE) {
                if too_long {
                    log::warn!("analysis engine: a line over {MAX_LINE} bytes, dropped");
                    continue;
                }
                if sender.send(without_newline(&line).to_vec()).is_err() {
                    return;
                }
            }
        });
        Ok(AnalysisEngine {
            child,
            input: BufWriter::new(stdin),
            lines,
            queries: 0,
            size,
            komi,
            rules: katago_rules(rules),
            visits,
        })
    }

    /// The root moves of `game` for the player to move, most visited first, with their
    /// visits.
    pub fn candidates(&mut self, game: &Game) -> Result<Vec<(Move, u32)>, BookError> {
        self.queries += 1;
        let id = format!("book-{}", self.queries);
        let moves: Vec<[String; 2]> = game
            .moves()
            .iter()
            .map(|&(color, mv)| [color.letter().to_string(), mv.to_vertex(self.size)])
            .collect();
        let query = json!({
            "id": id,
            "moves": moves,
            "rules": self.rules,
            "komi": self.komi,
            "boardXSize": self.size,
            "boardYSize": self.size,
            "maxVisits": self.visits,
        });
        writeln!(self.input, "{query}")
            .and_then(|()| self.input.flush())
            .map_err(|e| BookError(format!("the analysis engine stopped reading: {e}")))?;
        let deadline = Instant::now() + QUERY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(BookError(format!(
                        "the analysis engine gave no answer in {} s",
                        QUERY_TIMEOUT.as_secs()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(BookError(
                        "the analysis engine exited (its log is shown with RUST_LOG=debug)".into(),
                    ));
                }
            };
            let Ok(answer) = serde_json::from_slice::<Value>(&line) else {
                log::warn!(
                    "analysis engine: not JSON: {}",
                    excerpt(&String::from_utf8_lossy(&line))
                );
                continue;
            };
            if answer["id"] != id.as_str() {
                continue;
            }
            if let Some(error) = answer.get("error") {
                return Err(BookError(format!("the analysis engine: {error}")));
            }
            if let Some(warning) = answer.get("warning") {
                log::warn!("analysis engine: {warning}");
                continue;
            }
            if answer["isDuringSearch"] == true {
                continue;
            }
            return self.moves_of(&answer);
        }
    }

    /// The `moveInfos` of a final answer, most visited first.
    fn moves_of(&self, answer: &Value) -> Result<Vec<(Move, u32)>, BookError> {
        let infos = answer["moveInfos"]
            .as_array()
            .ok_or_else(|| BookError("the analysis engine's answer has no moveInfos".into()))?;
        let mut moves = Vec::with_capacity(infos.len());
        for info in infos {
            let (Some(vertex), Some(visits)) = (info["move"].as_str(), info["visits"].as_u64())
            else {
                return Err(BookError(format!(
                    "the analysis engine's moveInfo has no move or visits: {info}"
                )));
            };
            let mv = Move::parse(vertex, self.size)
                .map_err(|e| BookError(format!("the analysis engine's move `{vertex}`: {e}")))?;
            moves.push((mv, u32::try_from(visits).unwrap_or(u32::MAX)));
        }
        moves.sort_by_key(|&(_, visits)| std::cmp::Reverse(visits));
        Ok(moves)
    }
}

impl Drop for AnalysisEngine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// KataGo's name for the rules tengen calls `rules` (as `kgs-rules` names them).
fn katago_rules(rules: &str) -> &'static str {
    match rules.to_ascii_lowercase().replace('_', "-").as_str() {
        "japanese" => "japanese",
        "korean" => "korean",
        "aga" => "aga",
        "new-zealand" => "new-zealand",
        "tromp-taylor" => "tromp-taylor",
        _ => "chinese",
    }
}
