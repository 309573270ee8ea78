//! GoGui's analysis views (`gogui-analyze_commands`): ownership as a `dboard`, visits as
//! `pspairs`, the best sequence as a `var`, and the win rate as a `string`, all from one
//! search of the position.

use std::fmt::Write as _;
use std::time::Duration;

use crate::engine::player::Report;
use crate::rules::board::Color;

/// How long the search behind the views runs (`# interrupt` ends it sooner).
pub const SEARCH_TIME: Duration = Duration::from_secs(2);

/// What `gogui-analyze_commands` lists: `type/label/command`, `%c` being the colour to move.
pub const ANALYZE_COMMANDS: &[&str] = &[
    "dboard/Ownership/tengen-ownership %c",
    "pspairs/Visits/tengen-visits %c",
    "var/Best sequence/tengen-pv %c",
    "string/Win rate/tengen-winrate %c",
];

/// A view of a search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum View {
    /// Who owns each point: Black 1 to White -1, the top row first.
    Ownership,
    /// Visits of every searched move.
    Visits,
    /// The most visited line.
    Variation,
    /// The win rate of the best move and the expected score.
    WinRate,
}

/// The response text of `view` for `report`, searched for `color` on a board of `size`.
pub fn render(view: View, report: &Report, color: Color, size: usize) -> String {
    match view {
        View::Ownership => {
            // The report's ownership is for `color`: GoGui draws Black positive.
            let sign = if color == Color::Black { 1.0 } else { -1.0 };
            let values = report.ownership.clone().unwrap_or_default();
            values
                .chunks(size)
                .map(|row| {
                    row.iter()
                        .map(|v| format!("{:.2}", sign * v))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        View::Visits => report
            .moves
            .iter()
            .filter_map(|m| m.mv.point().map(|p| (p, m.visits)))
            .map(|(p, visits)| format!("{} {visits}", p.to_vertex(size)))
            .collect::<Vec<_>>()
            .join(" "),
        View::Variation => {
            let mut text = String::new();
            let mut mover = color;
            for &mv in report.moves.first().map_or(&[][..], |m| &m.pv[..]) {
                let word = if mover == Color::Black { "b" } else { "w" };
                let _ = write!(text, "{word} {} ", mv.to_vertex(size));
                mover = mover.opponent();
            }
            text.trim_end().to_string()
        }
        View::WinRate => match report.moves.first() {
            None => "no legal move".to_string(),
            Some(best) => {
                let who = if color == Color::Black {
                    "Black"
                } else {
                    "White"
                };
                let mut text = format!(
                    "{who}: {:.1}% with {} ({} playouts)",
                    100.0 * best.winrate,
                    best.mv.to_vertex(size),
                    report.root.visits
                );
                if let Some(score) = best.score {
                    let _ = write!(text, ", score {:+.1}", score.mean);
                }
                text
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::{MoveInfo, RootInfo, ScoreStats};
    use crate::rules::board::Move;

    fn report() -> Report {
        let d4 = Move::parse("B2", 3).unwrap();
        Report {
            moves: vec![MoveInfo {
                mv: d4,
                visits: 90,
                winrate: 0.625,
                prior: 0.5,
                lcb: 0.6,
                utility: 0.25,
                order: 0,
                pv: vec![d4, Move::parse("A1", 3).unwrap()],
                score: Some(ScoreStats {
                    mean: 2.5,
                    stdev: 3.0,
                }),
                ownership: None,
            }],
            root: RootInfo {
                visits: 100,
                winrate: 0.6,
                utility: 0.2,
                score: None,
            },
            ownership: Some(vec![1.0, 0.5, 0.0, 0.0, 0.0, 0.0, -0.25, -1.0, 0.0]),
            last: true,
        }
    }

    #[test]
    fn views_are_written_as_gogui_reads_them() {
        let r = report();
        assert_eq!(
            render(View::Ownership, &r, Color::White, 3),
            "-1.00 -0.50 -0.00\n-0.00 -0.00 -0.00\n0.25 1.00 -0.00"
        );
        assert_eq!(render(View::Visits, &r, Color::Black, 3), "B2 90");
        assert_eq!(render(View::Variation, &r, Color::White, 3), "w B2 b A1");
        assert_eq!(
            render(View::WinRate, &r, Color::Black, 3),
            "Black: 62.5% with B2 (100 playouts), score +2.5"
        );
    }
}
