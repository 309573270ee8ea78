//! `avoid_early_pass`: whether a child's pass after the opponent's pass would end the game
//! too early (dame between live groups, a living string in atari), and which of the child's
//! analysed candidates to play instead.

use crate::rules::board::{Cell, Color, Move, Point};
use crate::rules::game::Game;
use crate::rules::game::regions::Regions;
use crate::rules::game::score::{Assessment, StoneStatus};

/// Playouts of the scorer's look at the position (only run after a pass answers a pass).
const PLAYOUTS: usize = 400;

/// The centiseconds between the child's `info` reports while it is asked again: the last
/// report before `play` holds the final candidates, so the interval only bounds the chatter.
pub const REPORT_INTERVAL_CS: u32 = 10;

/// The points where a move still changes the game: the liberty of each non-dead string in
/// atari that `color` may play, and each empty point between live stones of both colours
/// (dame) that `color` may play without filling its own eye or self-atari. Empty when the game
/// is settled. Liberties shared in seki are not dame.
pub fn open_points(game: &Game, color: Color) -> Vec<Point> {
    let board = game.board();
    let assessment = Assessment::of(game, PLAYOUTS);
    let legal = |p: Point| game.legality(color, Move::Play(p)).is_ok();
    let mut open: Vec<Point> = assessment
        .living_atari_liberties(board)
        .filter(|&p| legal(p))
        .collect();
    // The regions as the scorer counts them: empty points and dead stones, bounded by the
    // living stones. Dame lie between living stones of both colours, none in seki.
    let living = |p: Point| assessment.status(p) != Some(StoneStatus::Dead);
    for region in Regions::bounded_by(board, living).iter() {
        let seki = region
            .bordering_strings
            .iter()
            .any(|&h| assessment.status(h) == Some(StoneStatus::Seki));
        if region.bordered_by == [true, true] && !seki {
            open.extend(region.points.iter().copied().filter(|&p| {
                board.cell(p) == Cell::Empty
                    && legal(p)
                    && !board.is_eye(p, color)
                    && board.self_atari_size(p, color).is_none()
            }));
        }
    }
    open.sort_by_key(|p| p.index());
    open.dedup();
    open
}

/// One candidate move of an analysis report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The move.
    pub mv: Move,
    /// The playouts (visits) the child gave it.
    pub visits: u64,
}

/// What a `kata-genmove_analyze` / `lz-genmove_analyze` response says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The candidates of the last `info` report, most visited first.
    pub candidates: Vec<Candidate>,
    /// The move of the closing `play` line (which the child has played on its board).
    pub played: Option<Move>,
}

impl Analysis {
    /// Parses the response text of a `*-genmove_analyze` on a `size` board: `info move X
    /// visits N …` reports, one per line, each with every candidate, then `play X`. Words it
    /// does not know and candidates it cannot read are skipped.
    pub fn parse(text: &str, size: usize) -> Analysis {
        let mut analysis = Analysis::default();
        for line in text.lines().map(str::trim) {
            if let Some(vertex) = line.strip_prefix("play ") {
                analysis.played = Move::parse(vertex.trim(), size).ok();
            } else if line.starts_with("info ") {
                analysis.candidates = parse_report(line, size);
            }
        }
        analysis
    }

    /// The move to play instead of a pass: the child's own choice when it is a legal
    /// non-pass move that fills no own eye, else the most visited candidate that is.
    pub fn best_non_pass(&self, game: &Game, color: Color) -> Option<Move> {
        let board = game.board();
        let sensible = |mv: Move| match mv {
            Move::Pass => false,
            Move::Play(p) => game.legality(color, mv).is_ok() && !board.is_eye(p, color),
        };
        self.played
            .into_iter()
            .chain(self.candidates.iter().map(|c| c.mv))
            .find(|&mv| sensible(mv))
    }
}

/// The candidates of one report line, most visited first (ties in the order listed).
fn parse_report(line: &str, size: usize) -> Vec<Candidate> {
    let mut candidates = Vec::new();
    for segment in line.split("info ").filter(|s| !s.trim().is_empty()) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let value = |key: &str| {
            words
                .iter()
                .position(|w| *w == key)
                .and_then(|i| words.get(i + 1))
        };
        let mv = value("move").and_then(|v| Move::parse(v, size).ok());
        let visits = value("visits").and_then(|v| v.parse().ok());
        if let (Some(mv), Some(visits)) = (mv, visits) {
            candidates.push(Candidate { mv, visits });
        }
    }
    candidates.sort_by_key(|c| std::cmp::Reverse(c.visits));
    candidates
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::game::Rules;

    /// A 9x9 game of two walls, Black's on column D and White's on column E but for E5, which
    /// holds `e5` (White's wall steps out to F5), and E6, which holds `e6`.
    pub(in crate::engine::player::external) fn walls(e5: char, e6: char) -> Game {
        let rows: Vec<String> = (1..=9)
            .rev()
            .map(|row| match row {
                6 => format!("...X{e6}...."),
                5 => format!("...X{e5}O..."),
                _ => "...XO....".to_string(),
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        Game::from_rows(&rows, Rules::default())
    }

    fn vertex(text: &str) -> Move {
        Move::parse(text, 9).unwrap()
    }

    #[test]
    fn reports_are_parsed_best_first_and_the_last_one_counts() {
        let text = "\ninfo move E5 visits 3 winrate 0.5 pv E5 D4\n\
             info move C3 visits 40 utility 0.1 winrate 0.55 scoreMean 2.0 order 1 pv C3 \
             info move pass visits 61 winrate 0.6 order 0 pv pass info move J9 visits 40 pv J9 \
             info move Z99 visits 7 pv Z99 info move D4 winrate 0.1\n\
             play pass";
        let analysis = Analysis::parse(text, 9);
        assert_eq!(analysis.played, Some(Move::Pass));
        let got: Vec<(Move, u64)> = analysis
            .candidates
            .iter()
            .map(|c| (c.mv, c.visits))
            .collect();
        assert_eq!(
            got,
            vec![(Move::Pass, 61), (vertex("C3"), 40), (vertex("J9"), 40)]
        );
        // Leela Zero's form: no `order`, `play` in lower case too.
        let lz = Analysis::parse(
            "info move D4 visits 2 winrate 5000 prior 100 lcb 4000 order 0 pv D4\nplay D4",
            9,
        );
        assert_eq!(lz.played, Some(vertex("D4")));
        assert_eq!(lz.candidates.len(), 1);
        assert_eq!(Analysis::parse("", 9), Analysis::default());
    }

    #[test]
    fn the_choice_skips_pass_illegal_moves_and_own_eyes() {
        // Black owns the left, White the right; E5 is dame; Black has an eye at A1.
        let mut game = walls('.', 'O');
        let black = |v: &str| (Point::parse(v, 9).unwrap(), Some(Color::Black));
        game.setup(&[black("A2"), black("B2"), black("B1")])
            .unwrap();
        let candidates = |moves: &[(&str, u64)]| {
            moves
                .iter()
                .map(|&(m, visits)| Candidate {
                    mv: vertex(m),
                    visits,
                })
                .collect()
        };
        let analysis = Analysis {
            candidates: candidates(&[("pass", 90), ("A1", 9), ("D4", 8), ("E5", 3)]),
            played: Some(Move::Pass),
        };
        assert_eq!(
            analysis.best_non_pass(&game, Color::Black),
            Some(vertex("E5"))
        );
        let own_choice = Analysis {
            played: Some(vertex("J1")),
            ..analysis.clone()
        };
        assert_eq!(
            own_choice.best_non_pass(&game, Color::Black),
            Some(vertex("J1"))
        );
        let nothing = Analysis {
            candidates: candidates(&[("pass", 90), ("D4", 8)]),
            played: Some(Move::Pass),
        };
        assert_eq!(nothing.best_non_pass(&game, Color::Black), None);
    }

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "scores many positions with playouts: release only"
    )]
    fn dame_and_ataris_are_open_and_a_finished_game_is_not() {
        // E5 is dame between the two walls.
        let dame = walls('.', 'O');
        let e5 = Point::new(9, 4, 4);
        assert_eq!(open_points(&dame, Color::Black), vec![e5]);
        assert_eq!(open_points(&dame, Color::White), vec![e5]);
        // Filled: settled.
        assert!(open_points(&walls('X', 'O'), Color::White).is_empty());
        // Black's E5 is in atari (D5 connects it): open whether the scorer saves it or not.
        let atari = Game::from_rows(
            &[
                "...XO....",
                "...XO....",
                "...XO....",
                "...XOO...",
                "....XO...",
                "...XOO...",
                "...XO....",
                "...XO....",
                "...XO....",
            ],
            Rules::default(),
        );
        let d5 = Point::new(9, 3, 4);
        assert!(open_points(&atari, Color::Black).contains(&d5));
    }
}
