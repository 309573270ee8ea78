//! The medium level: a one-ply evaluator. Every sensible move gets a score from tactical
//! features (captures, escapes, ataris, self-ataris), territory (empty regions only one side
//! borders), nearness to the last moves, the line it is on, and simple shape; the best move
//! is played, and the player passes only when no move scores above zero.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::{Player, sensible_moves};
use crate::board::{Board, Cell, Color, MAX_CELLS, Move, Point};
use crate::game::Game;

/// Plays the best-scoring move of a one-ply evaluation.
pub struct HeuristicPlayer {
    rng: SmallRng,
}

impl HeuristicPlayer {
    /// A player seeded with `seed` (for its small random tie-breaking noise), or from the
    /// operating system's entropy when `None`.
    pub fn new(seed: Option<u64>) -> HeuristicPlayer {
        HeuristicPlayer {
            rng: SmallRng::seed_from_u64(seed.unwrap_or_else(rand::random)),
        }
    }
}

impl Player for HeuristicPlayer {
    fn genmove(&mut self, game: &Game, color: Color) -> Move {
        let board = game.board();
        let regions = Regions::of(board);
        let recent: Vec<Point> = game
            .moves()
            .iter()
            .rev()
            .take(2)
            .filter_map(|(_, m)| m.point())
            .collect();
        let opening = game.moves().len() < board.size() * board.size() / 5;
        let mut best = (0.0, Move::Pass);
        for p in sensible_moves(game, color) {
            if board.is_suicide(p, color) {
                continue;
            }
            let score = evaluate(board, p, color, &regions, &recent, opening)
                + self.rng.random_range(0.0..0.5);
            if score > best.0 {
                best = (score, Move::Play(p));
            }
        }
        best.1
    }
}

/// Which colours border each maximal region of empty points, for the regions small enough
/// to count as enclosed: at most an eighth of the board or half of its empty points (the
/// open board of the opening is nobody's yet).
struct Regions {
    /// For each empty point of an enclosed region: bit 0 set if Black borders it, bit 1 if
    /// White does; 0 for points of open regions.
    borders: [u8; MAX_CELLS],
}

impl Regions {
    fn of(board: &Board) -> Regions {
        let mut borders = [0u8; MAX_CELLS];
        let mut seen = [false; MAX_CELLS];
        let enclosed = (board.size() * board.size() / 8).max(board.empty_count() / 2);
        let mut region = Vec::new();
        for start in board.empty_points() {
            if seen[start.index()] {
                continue;
            }
            region.clear();
            region.push(start);
            seen[start.index()] = true;
            let mut bits = 0u8;
            let mut k = 0;
            while k < region.len() {
                for n in board.neighbors(region[k]) {
                    match board.cell(n) {
                        Cell::Empty if !seen[n.index()] => {
                            seen[n.index()] = true;
                            region.push(n);
                        }
                        Cell::Black => bits |= 1,
                        Cell::White => bits |= 2,
                        _ => {}
                    }
                }
                k += 1;
            }
            if region.len() <= enclosed {
                for p in &region {
                    borders[p.index()] = bits;
                }
            }
        }
        Regions { borders }
    }

    /// Whether the empty region of `p` is enclosed and only `c` borders it.
    fn only(&self, p: Point, c: Color) -> bool {
        self.borders[p.index()] == 1 << c.index()
    }
}

/// The score of `color` playing on `p`; above zero is worth playing.
fn evaluate(
    board: &Board,
    p: Point,
    color: Color,
    regions: &Regions,
    recent: &[Point],
    opening: bool,
) -> f64 {
    let own = Cell::from(color);
    let opp = Cell::from(color.opponent());
    let mut score = 1.0;
    let mut seen = [p; 4];
    let mut n_seen = 0;
    let mut captures = 0;
    let mut own_strings = 0;
    for n in board.neighbors(p) {
        let cell = board.cell(n);
        if cell != own && cell != opp {
            continue;
        }
        let head = board.string_head(n);
        if seen[..n_seen].contains(&head) {
            continue;
        }
        seen[n_seen] = head;
        n_seen += 1;
        let size = board.string_size(n) as f64;
        let libs = board.liberties(n);
        if cell == opp {
            match libs {
                1 => {
                    captures += 1;
                    score += 30.0 + 12.0 * size;
                }
                2 => score += 4.0 + 3.0 * size,
                _ => {}
            }
        } else {
            own_strings += 1;
            if libs == 1 {
                score += 25.0 + 10.0 * size; // reduced below when the escape fails
            }
        }
    }
    let self_atari = board.self_atari_size(p, color);
    match self_atari {
        Some(size) if captures == 0 => score -= 40.0 + 15.0 * size as f64,
        // Extending a string into atari rescues nothing.
        _ if captures == 0 && own_strings > 0 => {
            let libs_after = liberties_after(board, p, color);
            if libs_after == 2 {
                score -= 4.0; // a two-liberty escape may be a ladder
            }
        }
        _ => {}
    }
    if own_strings >= 2 {
        score += 3.0;
    }
    // Territory: filling one's own area wastes a move; stones thrown into the opponent's
    // settled area die (unless they capture).
    if captures == 0 && regions.only(p, color) {
        score -= 12.0;
    }
    if captures == 0 && regions.only(p, color.opponent()) {
        score -= 10.0;
    }
    score += shape(board, p, color);
    score += nearness(board, p, recent);
    score += line_preference(board, p, opening);
    score
}

/// Liberties of the string `color` would have after playing on `p` (no capture assumed).
fn liberties_after(board: &Board, p: Point, color: Color) -> usize {
    let mut libs: Vec<Point> = board
        .neighbors(p)
        .into_iter()
        .filter(|&n| board.cell(n) == Cell::Empty)
        .collect();
    let mut buf = [p; 8];
    for n in board.neighbors(p) {
        if board.color_at(n) == Some(color) {
            let k = board.string_liberties(n, &mut buf);
            libs.extend(buf[..k].iter().filter(|&&q| q != p));
        }
    }
    libs.sort();
    libs.dedup();
    libs.len()
}

/// Shape: connections and diagonal links are good, empty triangles bad.
fn shape(board: &Board, p: Point, color: Color) -> f64 {
    let own = Cell::from(color);
    let s = board.stride() as isize;
    let at = |d: isize| board.cell(Point::from_offset(p, d));
    let mut score = 0.0;
    // Empty triangle: two own stones at right angles with the corner between them empty.
    for (a, b) in [(1, s), (s, -1), (-1, -s), (-s, 1)] {
        if at(a) == own && at(b) == own && at(a + b) == Cell::Empty {
            score -= 3.0;
        }
    }
    // Diagonal links to own stones through empty points.
    for (a, b) in [(1, s), (s, -1), (-1, -s), (-s, 1)] {
        if at(a + b) == own && at(a) == Cell::Empty && at(b) == Cell::Empty {
            score += 1.0;
        }
    }
    score
}

/// Answering near the last moves: up to 4 points at distance 1, fading to none at 4.
fn nearness(board: &Board, p: Point, recent: &[Point]) -> f64 {
    let size = board.size();
    let (x, y) = p.coords(size);
    recent
        .iter()
        .map(|q| {
            let (qx, qy) = q.coords(size);
            let d = x.abs_diff(qx).max(y.abs_diff(qy));
            4.0 - d.min(4) as f64
        })
        .fold(0.0, f64::max)
}

/// Edge lines are poor, especially early; the 3rd and 4th lines are good in the opening.
fn line_preference(board: &Board, p: Point, opening: bool) -> f64 {
    let size = board.size();
    let (x, y) = p.coords(size);
    let line = x.min(y).min(size - 1 - x).min(size - 1 - y) + 1;
    match (line, opening) {
        (1, true) => -6.0,
        (1, false) => -2.0,
        (2, true) => -2.0,
        (3 | 4, true) if size >= 9 => 3.0,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;
    use crate::game::score::Assessment;
    use crate::player::random::RandomPlayer;

    fn game_with(size: usize, moves: &[(Color, &str)]) -> Game {
        let mut game = Game::new(size, Rules::chinese(7.0));
        for &(c, v) in moves {
            game.play(c, Move::parse(v, size).unwrap()).unwrap();
        }
        game
    }

    fn vertex(game: &Game, mv: Move) -> String {
        mv.to_vertex(game.size())
    }

    use Color::{Black as B, White as W};

    #[test]
    fn captures_a_string_in_atari() {
        let game = game_with(9, &[(W, "E5"), (B, "E6"), (B, "D5"), (B, "F5"), (W, "A1")]);
        let mv = HeuristicPlayer::new(Some(1)).genmove(&game, B);
        assert_eq!(vertex(&game, mv), "E4");
    }

    #[test]
    fn saves_its_own_string_in_atari() {
        let game = game_with(9, &[(B, "E5"), (W, "E6"), (W, "D5"), (W, "F5"), (B, "A9")]);
        let mv = HeuristicPlayer::new(Some(1)).genmove(&game, B);
        assert_eq!(vertex(&game, mv), "E4");
    }

    #[test]
    fn avoids_self_atari() {
        // Black's only non-eye moves in the corner are self-ataris next to White's wall.
        let game = game_with(5, &[(W, "B1"), (W, "B2"), (W, "A3"), (B, "E5")]);
        let mv = HeuristicPlayer::new(Some(1)).genmove(&game, B);
        assert!(
            !["A1", "A2"].contains(&vertex(&game, mv).as_str()),
            "{}",
            vertex(&game, mv)
        );
    }

    #[test]
    fn fills_dame_instead_of_passing_after_the_opponent_passes() {
        // Columns: Black A-B, dame C, White D-E. White has passed.
        let mut moves = Vec::new();
        for row in 1..=5 {
            moves.push((B, format!("B{row}")));
            moves.push((W, format!("D{row}")));
        }
        let moves: Vec<(Color, &str)> = moves.iter().map(|(c, v)| (*c, v.as_str())).collect();
        let mut game = game_with(5, &moves);
        game.play(W, Move::Pass).unwrap();
        let mv = HeuristicPlayer::new(Some(1)).genmove(&game, B);
        assert!(vertex(&game, mv).starts_with('C'), "{}", vertex(&game, mv));
        // Once the dame are filled, only own territory and hopeless invasions are left.
        for row in 1..=5 {
            let c = if row % 2 == 0 { B } else { W };
            let _ = game.play(c, Move::parse(&format!("C{row}"), 5).unwrap());
        }
        assert_eq!(HeuristicPlayer::new(Some(1)).genmove(&game, B), Move::Pass);
    }

    /// Plays medium against easy; returns medium's wins (a draw counts as half).
    fn match_against_random(size: usize, games: usize) -> f64 {
        let komi = if size == 9 { 7.0 } else { 7.5 };
        let mut wins = 0.0;
        for g in 0..games {
            let medium_color = if g % 2 == 0 { B } else { W };
            let mut medium = HeuristicPlayer::new(Some(g as u64));
            let mut easy = RandomPlayer::new(Some(1000 + g as u64));
            let mut game = Game::new(size, Rules::chinese(komi));
            while game.trailing_passes() < 2 && game.moves().len() < 3 * size * size {
                let c = game.to_move();
                let mv = if c == medium_color {
                    medium.genmove(&game, c)
                } else {
                    easy.genmove(&game, c)
                };
                game.play(c, mv).expect("legal");
            }
            let score = Assessment::of(&game, 300).score();
            let medium_lead = if medium_color == B { score } else { -score };
            wins += if medium_lead > 0.0 {
                1.0
            } else if medium_lead == 0.0 {
                0.5
            } else {
                0.0
            };
        }
        wins
    }

    #[test]
    fn medium_beats_easy_on_9x9_and_19x19() {
        let wins9 = match_against_random(9, 20);
        assert!(wins9 >= 19.0, "medium won {wins9} of 20 on 9x9");
        let wins19 = match_against_random(19, 4);
        assert!(wins19 >= 4.0, "medium won {wins19} of 4 on 19x19");
    }
}
