//! `lz-analyze` and `kata-analyze`: their arguments and the `info move …` lines they stream.
//!
//! `lz-analyze [color] [interval] [minmoves N] [maxmoves N] [avoid C V,… N] [allow C V,… N]`
//! (the interval in centiseconds, also as `interval N`); `kata-analyze` takes the same plus
//! KataGo's boolean keys (`ownership`, `rootInfo`, `pvVisits`, …), which are accepted and not
//! reported yet. Leela Zero's dialect writes win rates, priors and bounds as integers in
//! ten-thousandths, KataGo's as floats from 0 to 1, as Sabaki and Lizzie expect.

use std::fmt::Write as _;
use std::time::Duration;

use super::protocol::GtpError;
use crate::engine::player::{Report, ScoreStats};
use crate::rules::board::{Color, Move};

/// The interval when none is given: 1 s.
const DEFAULT_INTERVAL_CS: u64 = 100;

/// The shortest interval honoured: 10 ms.
const MIN_INTERVAL_CS: u64 = 1;

/// Which engine's output the command imitates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Leela Zero: integer ten-thousandths.
    Lz,
    /// KataGo: floats.
    Kata,
}

/// A parsed analysis command.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzeCommand {
    /// The output dialect.
    pub dialect: Dialect,
    /// Whose moves (default: the player to move).
    pub color: Option<Color>,
    /// Time between reports.
    pub interval: Duration,
    /// Report at most this many moves.
    pub max_moves: Option<usize>,
    /// Only these moves for a colour (empty: all).
    pub allow: Vec<(Color, Move)>,
    /// Never these moves for a colour.
    pub avoid: Vec<(Color, Move)>,
    /// `kata-analyze … ownership true`: each point's expected owner after the move list.
    pub ownership: bool,
    /// `kata-analyze … rootInfo true`: the position's own statistics.
    pub root_info: bool,
}

/// Parses a genmove-analyze command: the arguments of the matching analysis command.
pub fn parse_genmove(name: &str, args: &[String], size: usize) -> Result<AnalyzeCommand, GtpError> {
    let analysis = match name {
        "lz-genmove_analyze" => "lz-analyze",
        "kata-genmove_analyze" => "kata-analyze",
        _ => return Err(GtpError::UnknownCommand),
    };
    parse(analysis, args, size)
}

/// Parses the arguments of `name` on a board of `size`.
pub fn parse(name: &str, args: &[String], size: usize) -> Result<AnalyzeCommand, GtpError> {
    let dialect = match name {
        "lz-analyze" => Dialect::Lz,
        "kata-analyze" => Dialect::Kata,
        _ => return Err(GtpError::UnknownCommand),
    };
    let mut command = AnalyzeCommand {
        dialect,
        color: None,
        interval: Duration::from_millis(10 * DEFAULT_INTERVAL_CS),
        max_moves: None,
        allow: Vec::new(),
        avoid: Vec::new(),
        ownership: false,
        root_info: false,
    };
    let mut words = args.iter().map(String::as_str).peekable();
    if let Some(color) = words.peek().and_then(|w| w.parse::<Color>().ok()) {
        command.color = Some(color);
        words.next();
    }
    if let Some(cs) = words.peek().and_then(|w| w.parse::<u64>().ok()) {
        command.interval = centiseconds(cs);
        words.next();
    }
    while let Some(key) = words.next() {
        match key {
            "interval" => command.interval = centiseconds(number(words.next())?),
            "minmoves" => {
                number(words.next())?;
            }
            "maxmoves" => command.max_moves = Some(number(words.next())? as usize),
            "avoid" | "allow" => {
                let color: Color = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or(GtpError::Syntax)?;
                let vertices = words.next().ok_or(GtpError::Syntax)?;
                number(words.next())?;
                let list = if key == "avoid" {
                    &mut command.avoid
                } else {
                    &mut command.allow
                };
                for vertex in vertices.split(',').filter(|v| !v.is_empty()) {
                    let mv = Move::parse(vertex, size).map_err(|_| GtpError::Syntax)?;
                    list.push((color, mv));
                }
            }
            "ownership" | "ownershipStdev" | "movesOwnership" | "rootInfo" | "pvVisits"
            | "pvEdgeVisits"
                if dialect == Dialect::Kata =>
            {
                let on = match words.next() {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return Err(GtpError::Syntax),
                };
                match key {
                    "ownership" => command.ownership = on,
                    "rootInfo" => command.root_info = on,
                    _ => {}
                }
            }
            _ => return Err(GtpError::Syntax),
        }
    }
    Ok(command)
}

/// A count argument.
fn number(word: Option<&str>) -> Result<u64, GtpError> {
    word.and_then(|w| w.parse().ok()).ok_or(GtpError::Syntax)
}

/// An interval of `cs` centiseconds, at least [`MIN_INTERVAL_CS`].
fn centiseconds(cs: u64) -> Duration {
    Duration::from_millis(10 * cs.clamp(MIN_INTERVAL_CS, 360_000))
}

impl AnalyzeCommand {
    /// The root moves of `color` the command allows and avoids.
    pub fn moves_for(&self, color: Color) -> (Vec<Move>, Vec<Move>) {
        let of = |list: &[(Color, Move)]| {
            list.iter()
                .filter(|(c, _)| *c == color)
                .map(|&(_, mv)| mv)
                .collect()
        };
        (of(&self.allow), of(&self.avoid))
    }

    /// One report: every move's `info move …` on one line (then `rootInfo …` and
    /// `ownership …` when asked for); `None` when there is nothing to say (an empty line would
    /// end the response).
    pub fn format(&self, report: &Report, size: usize) -> Option<String> {
        let infos = &report.moves;
        let shown = self.max_moves.unwrap_or(usize::MAX).min(infos.len());
        if shown == 0 {
            return None;
        }
        let mut line = String::new();
        for info in &infos[..shown] {
            if !line.is_empty() {
                line.push(' ');
            }
            let vertex = |mv: Move| mv.to_vertex(size);
            let _ = write!(
                line,
                "info move {} visits {} ",
                vertex(info.mv),
                info.visits
            );
            let _ = match self.dialect {
                Dialect::Lz => write!(
                    line,
                    "winrate {} prior {} lcb {}",
                    ten_thousandths(info.winrate),
                    ten_thousandths(info.prior),
                    ten_thousandths(info.lcb)
                ),
                Dialect::Kata => write!(
                    line,
                    "utility {:.6} winrate {:.6}{} prior {:.6} lcb {:.6}",
                    info.utility,
                    info.winrate,
                    scores(info.score),
                    info.prior,
                    info.lcb
                ),
            };
            let _ = write!(line, " order {} pv", info.order);
            for &mv in &info.pv {
                let _ = write!(line, " {}", vertex(mv));
            }
        }
        if self.dialect == Dialect::Kata {
            let root = &report.root;
            if self.root_info {
                let _ = write!(
                    line,
                    " rootInfo visits {} utility {:.6} winrate {:.6}{}",
                    root.visits,
                    root.utility,
                    root.winrate,
                    scores(root.score)
                );
            }
            if let Some(ownership) = report.ownership.as_ref().filter(|_| self.ownership) {
                line.push_str(" ownership");
                for owner in ownership {
                    let _ = write!(line, " {owner:.4}");
                }
            }
        }
        Some(line)
    }
}

/// ` scoreMean M scoreStdev S scoreLead M` for a known score, else nothing.
fn scores(score: Option<ScoreStats>) -> String {
    score.map_or(String::new(), |s| {
        format!(
            " scoreMean {:.4} scoreStdev {:.4} scoreLead {:.4}",
            s.mean, s.stdev, s.mean
        )
    })
}

/// A rate as Leela Zero writes it.
fn ten_thousandths(rate: f32) -> u32 {
    (rate.clamp(0.0, 1.0) * 10_000.0).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::{MoveInfo, RootInfo};
    use crate::front::gtp::protocol::args_of as args;

    #[test]
    fn sabaki_and_lizzie_argument_forms_parse() {
        let c = parse("lz-analyze", &args("B 50"), 19).unwrap();
        assert_eq!(c.color, Some(Color::Black));
        assert_eq!(c.interval, Duration::from_millis(500));
        let c = parse("lz-analyze", &args("w interval 20 maxmoves 5"), 19).unwrap();
        assert_eq!((c.color, c.max_moves), (Some(Color::White), Some(5)));
        assert_eq!(c.interval, Duration::from_millis(200));
        let c = parse("lz-analyze", &args(""), 19).unwrap();
        assert_eq!((c.color, c.interval), (None, Duration::from_secs(1)));
        let c = parse(
            "kata-analyze",
            &args("b 10 ownership true avoid b D4,Q16 1 allow w pass 2"),
            19,
        )
        .unwrap();
        assert_eq!(c.avoid.len(), 2);
        assert_eq!(c.moves_for(Color::White), (vec![Move::Pass], vec![]));
        assert_eq!(c.moves_for(Color::Black).1.len(), 2);
        for bad in [
            "b x",
            "b 10 maxmoves",
            "b 10 avoid b Z99 1",
            "ownership true",
            "b 10 frob 1",
        ] {
            assert_eq!(
                parse("lz-analyze", &args(bad), 19),
                Err(GtpError::Syntax),
                "{bad}"
            );
        }
        assert!(parse("kata-analyze", &args("b 10 ownership maybe"), 19).is_err());
    }

    #[test]
    fn both_dialects_write_one_line() {
        let info = MoveInfo {
            mv: Move::parse("D4", 19).unwrap(),
            visits: 836,
            winrate: 0.4656,
            prior: 0.0839,
            lcb: 0.464,
            utility: -0.0688,
            order: 0,
            pv: vec![Move::parse("D4", 19).unwrap(), Move::Pass],
            score: Some(ScoreStats {
                mean: 1.5,
                stdev: 10.0,
            }),
            ownership: None,
        };
        let second = MoveInfo {
            mv: Move::parse("Q16", 19).unwrap(),
            order: 1,
            pv: vec![Move::parse("Q16", 19).unwrap()],
            ..info.clone()
        };
        let report = |moves: Vec<MoveInfo>| Report {
            moves,
            root: RootInfo {
                visits: 1672,
                winrate: 0.4656,
                utility: -0.0688,
                score: None,
            },
            ownership: Some(vec![0.5; 361]),
            last: false,
        };
        let lz = parse("lz-analyze", &args("b 50 ownership"), 19);
        assert!(lz.is_err(), "lz-analyze has no ownership");
        let lz = parse("lz-analyze", &args("b 50"), 19).unwrap();
        assert_eq!(
            lz.format(&report(vec![info.clone(), second.clone()]), 19)
                .unwrap(),
            "info move D4 visits 836 winrate 4656 prior 839 lcb 4640 order 0 pv D4 PASS \
             info move Q16 visits 836 winrate 4656 prior 839 lcb 4640 order 1 pv Q16"
        );
        let kata = parse("kata-analyze", &args("b 50 maxmoves 1"), 19).unwrap();
        let line = kata
            .format(&report(vec![info.clone(), second.clone()]), 19)
            .unwrap();
        assert!(
            line.starts_with(
                "info move D4 visits 836 utility -0.068800 winrate 0.465600 \
                 scoreMean 1.5000 scoreStdev 10.0000 scoreLead 1.5000 prior"
            ),
            "{line}"
        );
        assert!(!line.contains("Q16") && !line.contains("ownership"));
        let full = parse(
            "kata-analyze",
            &args("b 50 rootInfo true ownership true"),
            19,
        )
        .unwrap();
        let line = full.format(&report(vec![info]), 19).unwrap();
        assert!(
            line.contains(
                " rootInfo visits 1672 utility -0.068800 winrate 0.465600 ownership 0.5000"
            ),
            "{line}"
        );
        assert_eq!(line.matches(" 0.5000").count(), 361);
        assert_eq!(kata.format(&report(vec![]), 19), None);
    }
}
