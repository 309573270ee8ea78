//! The medium level: every sensible point is scored by one-ply heuristics (captures, atari
//! escapes and attacks read out as ladders, self-atari avoidance, eye spaces and territory,
//! influence gained, nearness to the last moves, opening lines and a little 3x3 shape) and
//! the best one is played, with a little noise for variety.
//!
//! It passes only when no point scores above zero: every point left is in a territory (its
//! own or the opponent's, judged from the empty regions), a self-atari, a stone the opponent
//! can simply capture, or otherwise worthless. Dame and captures keep a positive score, so
//! it fills the dame before passing, whatever the opponent does.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::MovePicker;
use crate::knowledge::tactics::{
    Scratch, escapes, is_ladder_atari, stones_saved_by_capture, strings_a_ladder_takes,
};
use crate::rules::board::{Board, Cell, Color, MAX_CELLS, Move, Point};
use crate::rules::game::Game;
use crate::rules::game::regions::{Region, Regions};

/// Largest eye space where a stone is worth playing inside to make or destroy eyes
/// although it may be captured.
const MAX_NAKADE: usize = 7;
/// How far a stone's influence reaches, in steps.
const INFLUENCE_REACH: u8 = 3;
/// Score of one point of influence gained.
const INFLUENCE_WEIGHT: f32 = 0.2;
/// Largest random bonus added to a move worth playing.
const NOISE: f32 = 1.5;

/// Plays the best point by a one-ply heuristic evaluation.
pub struct HeuristicPlayer {
    rng: SmallRng,
}

impl HeuristicPlayer {
    /// A heuristic player whose noise is seeded with `seed`, or from the operating system's
    /// entropy for `None`.
    pub fn new(seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or_else(rand::random::<u64>);
        HeuristicPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl MovePicker for HeuristicPlayer {
    fn pick(&mut self, game: &Game, color: Color) -> Move {
        let board = game.board();
        let mut scratch = Scratch::new();
        let eval = Evaluator::new(game, color, &mut scratch);
        let mut candidates: Vec<(f32, Point)> = Vec::with_capacity(board.empty_count());
        for p in board.empty_points() {
            if !board.is_sensible(p, color) {
                continue;
            }
            if let Some(score) = eval.score(p, &mut scratch)
                && score > 0.0
            {
                candidates.push((score + self.rng.random_range(0.0..NOISE), p));
            }
        }
        candidates.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        // The board checked simple ko and suicide; superko needs the game's history.
        candidates
            .into_iter()
            .map(|(_, p)| p)
            .find(|&p| game.legality(color, Move::Play(p)).is_ok())
            .map_or(Move::Pass, Move::Play)
    }
}

/// Up to four distinct strings next to a point, with their liberties and sizes.
struct Strings {
    n: usize,
    heads: [Point; 4],
    libs: [usize; 4],
    sizes: [usize; 4],
}

impl Strings {
    fn new(p: Point) -> Strings {
        Strings {
            n: 0,
            heads: [p; 4],
            libs: [0; 4],
            sizes: [0; 4],
        }
    }

    fn add(&mut self, board: &Board, stone: Point) {
        let head = board.string_head(stone);
        if !self.heads[..self.n].contains(&head) {
            self.heads[self.n] = head;
            self.libs[self.n] = board.liberties(stone);
            self.sizes[self.n] = board.string_size(stone);
            self.n += 1;
        }
    }

    /// (head, liberties, size) of each string.
    fn iter(&self) -> impl Iterator<Item = (Point, usize, usize)> + '_ {
        (0..self.n).map(|k| (self.heads[k], self.libs[k], self.sizes[k]))
    }

    /// Total stones of the strings with exactly `libs` liberties.
    fn stones_with_libs(&self, libs: usize) -> usize {
        self.iter().filter(|s| s.1 == libs).map(|s| s.2).sum()
    }
}

/// Who holds an empty point, judged from its empty region.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Area {
    /// A small region bordered by the player's stones only, next to a string with another
    /// such region: territory, and an eye.
    Own,
    /// The same for the opponent.
    Opponent,
    /// A small region bordered by the player's stones only, the only eye space of the
    /// strings around it: a move there may make a second eye.
    OwnEyeSpace,
    /// The same for the opponent: a move there may destroy its eyes.
    OpponentEyeSpace,
    /// Anything else: a region bordered by both colours, or too large to be secure.
    Open,
}

/// The empty regions of a position read as eye spaces.
struct EyeSpaces {
    regions: Regions,
    /// Per region: the colour whose eye space it is (small, and bordered by that colour only).
    owner: Vec<Option<Color>>,
    /// Per region: whether a string around it touches another eye space of its colour.
    two_eyes: Vec<bool>,
}

impl EyeSpaces {
    /// The eye spaces of `board`; one of colour `c` has at most `limit[c.index()]` points.
    fn of(board: &Board, limit: [usize; 2]) -> EyeSpaces {
        let regions = Regions::of(board);
        let owner: Vec<Option<Color>> = regions
            .iter()
            .map(|r| r.owner().filter(|c| r.size() <= limit[c.index()]))
            .collect();
        // Per string head: the eye spaces it touches.
        let mut eyes_of_string = [0u8; MAX_CELLS];
        let eye_spaces = regions.iter().zip(&owner).filter(|(_, o)| o.is_some());
        for (region, _) in eye_spaces {
            for h in &region.bordering_strings {
                eyes_of_string[h.index()] = eyes_of_string[h.index()].saturating_add(1);
            }
        }
        let two_eyes = regions
            .iter()
            .map(|r| {
                r.bordering_strings
                    .iter()
                    .any(|h| eyes_of_string[h.index()] >= 2)
            })
            .collect();
        EyeSpaces {
            regions,
            owner,
            two_eyes,
        }
    }
}

/// Distance (in steps through empty points, up to [`INFLUENCE_REACH`] + 1) from each
/// empty point to the nearest stone of each colour.
struct Distances {
    steps: [[u8; MAX_CELLS]; 2],
}

impl Distances {
    fn of(board: &Board) -> Distances {
        let far = INFLUENCE_REACH + 1;
        let mut steps = [[far; MAX_CELLS]; 2];
        for c in Color::ALL {
            let dist = &mut steps[c.index()];
            let mut frontier: Vec<Point> = Vec::new();
            for p in board.points() {
                if board.color_at(p) == Some(c) {
                    dist[p.index()] = 0;
                    frontier.push(p);
                }
            }
            for d in 1..far {
                let mut next = Vec::new();
                for p in frontier {
                    for n in board.neighbors(p) {
                        if board.cell(n) == Cell::Empty && dist[n.index()] > d {
                            dist[n.index()] = d;
                            next.push(n);
                        }
                    }
                }
                frontier = next;
            }
        }
        Distances { steps }
    }

    /// The distances of `p` to the stones of `me` and to those of the opponent.
    fn of_pair(&self, p: Point, me: Color) -> [u8; 2] {
        [
            self.steps[me.index()][p.index()],
            self.steps[me.opponent().index()][p.index()],
        ]
    }
}

/// What a player knows about a position before it scores the points.
struct Evaluator<'a> {
    board: &'a Board,
    me: Color,
    size: usize,
    eye_spaces: EyeSpaces,
    /// The opponent's last move, unless it passed.
    opponent_last: Option<Point>,
    /// This player's last move, unless it passed.
    own_last: Option<Point>,
    /// Few stones are on the board yet.
    opening: bool,
    /// Own strings with two liberties that the opponent could capture by ladder.
    endangered: Vec<Point>,
    /// Distance from each empty point to the nearest stone of each colour.
    distance: Distances,
}

impl<'a> Evaluator<'a> {
    fn new(game: &'a Game, me: Color, scratch: &mut Scratch) -> Evaluator<'a> {
        let board = game.board();
        let size = board.size();
        let last = |c: Color| {
            game.moves()
                .iter()
                .rev()
                .find(|&&(mover, _)| mover == c)
                .and_then(|&(_, mv)| mv.point())
        };
        let stones = size * size - board.empty_count();
        let endangered = strings_a_ladder_takes(board, me, scratch);
        // Own regions up to a quarter of the board count as territory (no need to fill
        // them); the opponent's only up to a tenth (larger ones are worth invading).
        let mut secure_limit = [(size * size / 10).max(4); 2];
        secure_limit[me.index()] = (size * size / 4).max(4);
        Evaluator {
            board,
            me,
            size,
            eye_spaces: EyeSpaces::of(board, secure_limit),
            opponent_last: last(me.opponent()),
            own_last: last(me),
            opening: stones < size * size / 6,
            endangered,
            distance: Distances::of(board),
        }
    }

    fn area(&self, p: Point) -> Area {
        let spaces = &self.eye_spaces;
        let Some(r) = spaces.regions.number_of(p) else {
            return Area::Open;
        };
        let Some(owner) = spaces.owner[r] else {
            return Area::Open;
        };
        // A region of one or two points cannot be split into two eyes; a large one of the
        // player's own can wait until the opponent invades it.
        let size = self.region_size(p);
        let settled = spaces.two_eyes[r] || size <= 2;
        match (owner == self.me, settled) {
            (true, true) => Area::Own,
            (true, false) if size > MAX_NAKADE => Area::Own,
            (true, false) => Area::OwnEyeSpace,
            (false, true) => Area::Opponent,
            (false, false) => Area::OpponentEyeSpace,
        }
    }

    /// The number of points of the empty region of `p`.
    fn region_size(&self, p: Point) -> usize {
        self.eye_spaces.regions.region_of(p).map_or(0, Region::size)
    }

    /// The score of a stone of `me` on the legal empty point `p` that is not its own eye;
    /// `None` for a move never to play.
    fn score(&self, p: Point, scratch: &mut Scratch) -> Option<f32> {
        let board = self.board;
        let me = self.me;
        let mut own = Strings::new(p);
        let mut opp = Strings::new(p);
        let mut empty_neighbors = 0;
        for n in board.neighbors(p) {
            match board.cell(n) {
                Cell::Empty => empty_neighbors += 1,
                Cell::Border => {}
                cell if cell.color() == Some(me) => own.add(board, n),
                _ => opp.add(board, n),
            }
        }
        let libs = board.liberties_after(p, me, 4);
        let captured = opp.stones_with_libs(1);
        let mut score = 0.0;
        // Moves that win or save stones are played even inside a territory.
        let mut tactical = false;

        let new_size = 1 + own.iter().map(|s| s.2).sum::<usize>();
        if captured == 1 && libs <= 1 && new_size >= 2 {
            // The opponent takes back more than one stone at once (a snapback).
            return None;
        }
        if captured > 0 {
            score += 60.0 + 12.0 * captured as f32;
            score += 10.0 * stones_saved_by_capture(board, p, me) as f32;
            tactical = true;
        } else if libs <= 1 {
            // A self-atari: allowed only as a one-stone throw-in that puts a larger string
            // in atari (the way to kill a group with a two-point eye).
            let throw_in = board.self_atari_size(p, me) == Some(1)
                && opp.iter().any(|(_, l, s)| l == 2 && s >= 2);
            if !throw_in {
                return None;
            }
            score += 8.0;
            tactical = true;
        }

        // Escaping from atari by extension.
        let in_atari = own.stones_with_libs(1);
        if in_atari > 0 && captured == 0 {
            if libs >= 3 || escapes(board, p, me, scratch) {
                score += 50.0 + 10.0 * in_atari as f32;
                tactical = true;
            } else {
                score -= 10.0;
            }
        }

        // Strengthening own strings the opponent could ladder.
        let weak: usize = own
            .iter()
            .filter(|&(h, l, _)| l == 2 && self.endangered.contains(&h))
            .map(|s| s.2)
            .sum();
        if weak > 0 && (libs >= 3 || (libs == 2 && escapes(board, p, me, scratch))) {
            score += 25.0 + 8.0 * weak as f32;
            tactical = true;
        }

        // Ataris: big when the string cannot get out, small otherwise.
        if libs >= 2 {
            for (h, l, s) in opp.iter() {
                if l != 2 {
                    continue;
                }
                if is_ladder_atari(board, h, p, me, scratch) {
                    score += 35.0 + 10.0 * s as f32;
                    tactical = true;
                } else {
                    score += 2.0 + s.min(5) as f32;
                }
            }
        }
        // Pressure on strings short of liberties, once the fighting has begun.
        if !self.opening {
            score += 1.5 * opp.iter().filter(|s| s.1 == 3).count() as f32;
        }

        let area = self.area(p);
        // Inside a small eye space of the opponent's, a stone on a point with two or more
        // liberties may kill by nakade even if it is captured later.
        let nakade = area == Area::OpponentEyeSpace
            && empty_neighbors >= 2
            && self.region_size(p) <= MAX_NAKADE;
        // A stone the opponent can simply capture is a waste (and would be thrown into a
        // territory again and again).
        if libs == 2 && captured == 0 && !tactical && !nakade && !escapes(board, p, me, scratch) {
            return None;
        }
        // Filling an own liberty without gaining any, away from the opponent.
        let fewest_own = own.iter().map(|s| s.1).min();
        if captured == 0 && opp.n == 0 && fewest_own.is_some_and(|f| libs < f && libs <= 2) {
            score -= 4.0;
        }

        match area {
            Area::Own | Area::Opponent if !tactical => return None,
            // The vital point of an eye space: the one with the most room around it.
            Area::OwnEyeSpace | Area::OpponentEyeSpace => score += 2.0 * empty_neighbors as f32,
            _ => {}
        }
        score += 1.0;
        if self.opening && opp.n > 0 && !tactical {
            // Contact in the opening only helps the opponent settle.
            score -= 3.0;
        } else if own.n > 0 && opp.n > 0 {
            // Dame, a block or a hane.
            score += 1.5;
        }
        score += INFLUENCE_WEIGHT * self.influence_gain(p);
        score += self.nearness(p);
        score += self.lines(p, empty_neighbors);
        score += self.shape(p, libs);
        Some(score)
    }

    /// The points that `p` would bring nearer to `me` than to the opponent (or take from
    /// the opponent to neutral), weighted towards the edges where territory is made.
    fn influence_gain(&self, p: Point) -> f32 {
        let (x0, y0) = p.coords(self.size);
        let reach = INFLUENCE_REACH as usize;
        let mut gain = 0.0;
        for y in y0.saturating_sub(reach)..=(y0 + reach).min(self.size - 1) {
            let dy = y.abs_diff(y0);
            let left = reach - dy;
            for x in x0.saturating_sub(left)..=(x0 + left).min(self.size - 1) {
                let q = Point::new(self.size, x, y);
                if self.board.cell(q) != Cell::Empty {
                    continue;
                }
                let d = (dy + x.abs_diff(x0)) as u8;
                let [mine, theirs] = self.distance.of_pair(q, self.me);
                if d >= mine {
                    continue;
                }
                let owner = |m: u8| (theirs.cmp(&m) as i8) as f32;
                let line = x.min(y).min(self.size - 1 - x).min(self.size - 1 - y);
                let weight = if line < 3 { 1.0 } else { 0.6 };
                gain += weight * (owner(d) - owner(mine));
            }
        }
        gain
    }

    /// Bonus for answering near the last moves.
    fn nearness(&self, p: Point) -> f32 {
        let distance = |q: Point| {
            let (x0, y0) = p.coords(self.size);
            let (x1, y1) = q.coords(self.size);
            x0.abs_diff(x1).max(y0.abs_diff(y1))
        };
        let mut bonus = match self.opponent_last.map(distance) {
            Some(1) => 5.0,
            Some(2) => 3.0,
            Some(3) => 1.0,
            _ => 0.0,
        };
        if self.own_last.is_some_and(|q| distance(q) <= 2) {
            bonus += 1.0;
        }
        // In the opening the big points matter more than answering every move.
        if self.opening { 0.4 * bonus } else { bonus }
    }

    /// Third and fourth lines in the opening; the edge is small in the whole game.
    fn lines(&self, p: Point, empty_neighbors: usize) -> f32 {
        let (x, y) = p.coords(self.size);
        let line = x.min(y).min(self.size - 1 - x).min(self.size - 1 - y) + 1;
        if !self.opening {
            // A first-line move that touches nothing is a waste outside the endgame.
            return if line == 1 && empty_neighbors >= 3 {
                -1.5
            } else {
                0.0
            };
        }
        let mut bonus = match line {
            1 => -4.0,
            2 => -1.5,
            3 => 3.0,
            4 if self.size >= 13 => 2.5,
            4 => 1.0,
            _ => 0.0,
        };
        let big_board = self.size >= 13;
        if line >= 3 && self.empty_around(p, if big_board { 3 } else { 2 }) {
            // An open corner or side, away from the fighting; corners first.
            bonus += 3.0;
            let corner_line = x.min(self.size - 1 - x).max(y.min(self.size - 1 - y)) + 1;
            if big_board && corner_line <= 4 {
                bonus += 2.0;
            }
        }
        bonus
    }

    /// Whether no stone lies within `r` points of `p` (in both directions).
    fn empty_around(&self, p: Point, r: usize) -> bool {
        let (x, y) = p.coords(self.size);
        let lo = |v: usize| v.saturating_sub(r);
        let hi = |v: usize| (v + r).min(self.size - 1);
        (lo(y)..=hi(y)).all(|row| {
            (lo(x)..=hi(x)).all(|col| {
                self.board
                    .color_at(Point::new(self.size, col, row))
                    .is_none()
            })
        })
    }

    /// 3x3 shape: cutting and connecting at cutting points, empty triangles, diagonal
    /// extensions.
    fn shape(&self, p: Point, libs: usize) -> f32 {
        let board = self.board;
        let own = Cell::from(self.me);
        let opp = Cell::from(self.me.opponent());
        let n = board.neighbors(p);
        let d = board.diagonals(p);
        // Each 2x2 square holding p: its two orthogonal neighbours and its diagonal.
        let squares = [
            (n[0], n[1], d[0]),
            (n[0], n[2], d[1]),
            (n[3], n[1], d[2]),
            (n[3], n[2], d[3]),
        ];
        let mut bonus = 0.0;
        let mut empty_triangle = false;
        for (a, b, diag) in squares {
            let (ca, cb, cd) = (board.cell(a), board.cell(b), board.cell(diag));
            let two_strings =
                |c: Cell| ca == c && cb == c && board.string_head(a) != board.string_head(b);
            if two_strings(own) && cd == opp {
                // Connects at a cutting point.
                bonus += 6.0;
            } else if two_strings(opp) && cd == own && libs >= 2 {
                // Cuts.
                bonus += 6.0;
            }
            let own_count = [ca, cb, cd].iter().filter(|&&c| c == own).count();
            let empty_count = [ca, cb, cd].iter().filter(|&&c| c == Cell::Empty).count();
            if own_count == 2 && empty_count == 1 {
                empty_triangle = true;
            } else if cd == own && ca == Cell::Empty && cb == Cell::Empty {
                bonus += 1.0;
            }
        }
        // An empty triangle is slow shape, unless it blocks or fills a dame in contact.
        if empty_triangle && !n.iter().any(|&q| board.cell(q) == opp) {
            bonus -= 3.0;
        }
        bonus
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::random::RandomPlayer;
    use crate::engine::player::{Budget, Player, Silent};
    use crate::rules::game::Rules;
    use crate::rules::game::score::Assessment;

    fn pt(game: &Game, v: &str) -> Point {
        Point::parse(v, game.size()).expect("valid vertex")
    }

    fn genmove(game: &Game, c: Color, seed: u64) -> Move {
        HeuristicPlayer::new(Some(seed)).pick(game, c)
    }

    /// The move of the colour `c` to play in `game`, by `players[c.index()]`.
    fn next_move(game: &Game, players: &mut [&mut dyn Player; 2]) -> Move {
        let c = game.to_move();
        players[c.index()]
            .genmove(game, c, &Budget::default(), &mut Silent)
            .unwrap()
            .as_move()
            .unwrap()
    }

    /// Black's moves with the noise seeded 0 to 9.
    fn black_moves(game: &Game) -> Vec<Move> {
        (0..10)
            .map(|seed| genmove(game, Color::Black, seed))
            .collect()
    }

    /// Black E5 is in atari (its liberty E4) against White D5, E6 and F5.
    const E5_IN_ATARI: [&str; 9] = [
        ". . . . . . . . .", //
        ". . . . . . . . .", //
        ". . . . . . . . .", //
        ". . . . O . . . .", //
        ". . . O X O . . .", //
        ". . . . . . . . .", //
        ". . . . . . . . .", //
        ". . . . . . . . .", //
        ". . . . . . . . .",
    ];

    #[test]
    fn captures_the_larger_string_in_atari() {
        let game = Game::from_rows(
            &[
                ". . . . . . X . X", //
                ". . . . . . X O X", //
                ". . . . . . . . .", //
                ". . . X X X . . .", //
                ". . X O O O X . .", //
                ". . . X X . . . .", //
                ". . . . . . . . .", //
                ". . . . . . . . .", //
                ". . . . . . . . .",
            ],
            Rules::chinese(7.0),
        );
        assert_eq!(black_moves(&game), [Move::Play(pt(&game, "F4")); 10]);
    }

    #[test]
    fn saves_a_string_in_atari() {
        let game = Game::from_rows(&E5_IN_ATARI, Rules::chinese(7.0));
        assert_eq!(black_moves(&game), [Move::Play(pt(&game, "E4")); 10]);
        // When White's E6 is itself in atari, capturing it saves E5 too, and more.
        let mut rows = E5_IN_ATARI;
        rows[3] = ". . . X O X . . .";
        let game = Game::from_rows(&rows, Rules::chinese(7.0));
        assert_eq!(genmove(&game, Color::Black, 0), Move::Play(pt(&game, "E7")));
    }

    #[test]
    fn does_not_run_from_atari_into_a_ladder() {
        // Extending at C2 leaves two liberties and White ladders the stones into the corner.
        let game = Game::from_rows(
            &[
                ". . . . . . . . .", //
                ". . . . . . . . .", //
                ". . . . . . . . .", //
                ". . . . . . . . .", //
                ". . . . . . . . .", //
                ". . O . . . . . .", //
                ". O X O . . . . .", //
                ". . . O . . . . .", //
                ". . . . . . . . .",
            ],
            Rules::chinese(7.0),
        );
        assert!(!black_moves(&game).contains(&Move::Play(pt(&game, "C2"))));
    }

    #[test]
    fn runs_from_atari_only_where_a_breaker_stops_the_ladder() {
        // With White F4, E5 escapes to E4, but White ladders it down to the lower left corner.
        let mut rows = E5_IN_ATARI;
        rows[5] = ". . . . . O . . .";
        let game = Game::from_rows(&rows, Rules::chinese(7.0));
        let e4 = Move::Play(pt(&game, "E4"));
        assert!(!black_moves(&game).contains(&e4));
        // A black stone on the ladder's path breaks it.
        rows[7] = ". X . . . . . . .";
        let game = Game::from_rows(&rows, Rules::chinese(7.0));
        assert_eq!(black_moves(&game), [e4; 10]);
    }

    #[test]
    fn never_plays_a_self_atari_or_fills_an_own_eye() {
        for (seed, rules) in [(0, Rules::chinese(7.0)), (1, Rules::tromp_taylor(7.0))] {
            let mut medium = HeuristicPlayer::new(Some(seed));
            let mut random = RandomPlayer::new(Some(seed));
            for game_no in 0..6 {
                let mut game = Game::new(9, rules);
                let medium_color = if game_no % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                let mut players: [&mut dyn Player; 2] = if medium_color == Color::Black {
                    [&mut medium, &mut random]
                } else {
                    [&mut random, &mut medium]
                };
                while game.trailing_passes() < 2 && game.moves().len() < 3 * 81 {
                    let c = game.to_move();
                    let mv = next_move(&game, &mut players);
                    if let (true, Move::Play(p)) = (c == medium_color, mv) {
                        let board = game.board();
                        assert!(!board.is_eye(p, c));
                        assert!(!board.is_suicide(p, c));
                        let captures = board.neighbors(p).iter().any(|&q| {
                            board.color_at(q) == Some(c.opponent()) && board.liberties(q) == 1
                        });
                        if let (false, Some(n)) = (captures, board.self_atari_size(p, c)) {
                            // Only the one-stone throw-in that ataris a larger string.
                            let ataris = board.neighbors(p).iter().any(|&q| {
                                board.color_at(q) == Some(c.opponent())
                                    && board.liberties(q) == 2
                                    && board.string_size(q) >= 2
                            });
                            assert!(n == 1 && ataris, "self-atari at {}", p.to_vertex(9));
                        }
                    }
                    assert_eq!(game.play(c, mv), Ok(()));
                }
            }
        }
    }

    #[test]
    fn keeps_a_seki() {
        // D9 and D8 are the shared liberties of a seki: filling either is a self-atari.
        let game = Game::from_rows(
            &[
                ". O X . O X . . .", //
                ". O X . O X . . .", //
                ". O X X O X . . .", //
                ". O O O X X . . .", //
                ". . . O X . . . .", //
                ". . . O X . . . .", //
                ". . . O X . . . .", //
                ". . . O X . . . .", //
                ". . . O X . . . .",
            ],
            Rules::chinese(7.0),
        );
        let shared = [pt(&game, "D9"), pt(&game, "D8")].map(Move::Play);
        for c in Color::ALL {
            for seed in 0..10 {
                assert!(!shared.contains(&genmove(&game, c, seed)));
            }
        }
    }

    #[test]
    fn fills_the_dame_before_passing() {
        // Column C is dame between Black's B and White's D walls.
        let mut game = Game::from_rows(
            &[
                ". X . O .", //
                ". X . O .", //
                ". X . O .", //
                ". X . O .", //
                ". X . O .",
            ],
            Rules::chinese(0.5),
        );
        game.set_first_to_move(Color::White);
        assert_eq!(game.play(Color::White, Move::Pass), Ok(()));
        let mv = genmove(&game, Color::Black, 0);
        assert_ne!(mv, Move::Pass, "passed while the dame are open");
        let (mut black, mut white) = (HeuristicPlayer::new(Some(1)), HeuristicPlayer::new(Some(2)));
        let mut players: [&mut dyn Player; 2] = [&mut black, &mut white];
        while game.trailing_passes() < 2 {
            assert!(game.moves().len() < 100, "the game does not end");
            let c = game.to_move();
            let mv = next_move(&game, &mut players);
            assert_eq!(game.play(c, mv), Ok(()));
        }
        let board = game.board();
        for p in board.empty_points() {
            let colors = board.neighbors(p).map(|q| board.color_at(q));
            let touches = |c| colors.contains(&Some(c));
            assert!(
                !(touches(Color::Black) && touches(Color::White)),
                "dame left at {}",
                p.to_vertex(5)
            );
        }
        // Black, first to fill, got three of the five dame: 13 points to 12, less komi.
        assert_eq!(Assessment::of(&game, 100).score(), 0.5);
    }

    #[test]
    fn self_play_ends_with_two_passes() {
        for (size, seed) in [(9, 0), (9, 1), (13, 2)] {
            let mut black = HeuristicPlayer::new(Some(seed));
            let mut white = HeuristicPlayer::new(Some(seed + 100));
            let mut players: [&mut dyn Player; 2] = [&mut black, &mut white];
            let mut game = Game::new(size, Rules::chinese(7.0));
            while game.trailing_passes() < 2 && game.moves().len() < 3 * size * size {
                let c = game.to_move();
                let mv = next_move(&game, &mut players);
                assert_eq!(game.play(c, mv), Ok(()));
            }
            assert_eq!(
                game.trailing_passes(),
                2,
                "{size}x{size} game {seed} hit the cap"
            );
        }
    }

    /// Medium's share of `games` games against the random player on `size`, alternating
    /// colours: a win counts 1, a draw 1/2.
    fn score_against_random(size: usize, komi: f64, games: u64) -> f64 {
        let mut points = 0.0;
        for g in 0..games {
            let mut medium = HeuristicPlayer::new(Some(g));
            let mut random = RandomPlayer::new(Some(g + 1000));
            let medium_color = if g % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let mut game = Game::new(size, Rules::chinese(komi));
            let mut players: [&mut dyn Player; 2] = if medium_color == Color::Black {
                [&mut medium, &mut random]
            } else {
                [&mut random, &mut medium]
            };
            while game.trailing_passes() < 2 && game.moves().len() < 3 * size * size {
                let c = game.to_move();
                let mv = next_move(&game, &mut players);
                assert_eq!(game.play(c, mv), Ok(()));
            }
            let black_lead = Assessment::of(&game, 300).score();
            let lead = if medium_color == Color::Black {
                black_lead
            } else {
                -black_lead
            };
            points += if lead > 0.0 {
                1.0
            } else if lead == 0.0 {
                0.5
            } else {
                0.0
            };
        }
        points
    }

    #[test]
    fn beats_the_random_player_on_9x9() {
        let points = score_against_random(9, 7.0, 20);
        assert!(
            points >= 19.0,
            "medium scored {points} of 20 against random"
        );
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "many 19x19 games: release only")]
    fn beats_the_random_player_on_19x19() {
        let points = score_against_random(19, 7.5, 4);
        assert!(points >= 4.0, "medium scored {points} of 4 against random");
    }
}
