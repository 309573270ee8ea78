//! The playout policy of the search: answer the last move locally (take a string it left in
//! atari, save an own string it put in atari, take a string the mover's own last stone left
//! in atari), else play the reply to it that last won a playout of this search thread (see
//! [`super::last_good_reply`]), else settle a fight of two-liberty strings or take the vital
//! point of a small eye space next to it ([`crate::knowledge::tactics`]), else play a good shape next to
//! it (weighted by the learned 3x3 pattern gammas), otherwise a random move that neither
//! fills an own eye nor puts more than a few stones into atari
//! ([`crate::rules::board::playout::random_move`]). A mercy rule ends hopeless playouts early. It
//! runs in the playout loop of [`crate::rules::board::playout`], allocation-free.

use rand::Rng;
use rand::rngs::SmallRng;

use crate::knowledge::patterns::shape_tables;
use crate::knowledge::tactics::{self, Scratch, escapes};
use crate::rules::board::playout::{self, MovePolicy, random_move};
use crate::rules::board::{Board, Cell, Color, Point};

use super::last_good_reply::ReplyTable;

/// Out of 256: how often a playout answers the last move when it can.
const LOCAL_ANSWER_ODDS: u32 = 230;
/// Out of 256: how often a playout answers a two-liberty fight or an eye space next to the
/// last move when it can.
const TACTICS_ODDS: u32 = 230;
/// Out of 256: how often a playout plays a good shape next to the last move when there is one.
const SHAPE_ODDS: u32 = 230;
/// The least learned gamma of a shape the playout plays next to the last move: only a shape
/// clearly likelier than an ordinary move (gamma 1) is worth leaving the random move for.
const MIN_SHAPE_GAMMA: f32 = 2.0;

/// How a finished playout came out.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Black's area minus White's, before komi.
    pub area_difference: f32,
}

impl Outcome {
    /// Black's margin under `komi` (negative when White is ahead).
    pub fn margin(&self, komi: f32) -> f32 {
        self.area_difference - komi
    }

    /// Who won under `komi`; `None` for a jigo.
    pub fn winner(&self, komi: f32) -> Option<Color> {
        let margin = self.margin(komi);
        if margin > 0.0 {
            Some(Color::Black)
        } else if margin < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }
}

/// The search's playout policy (see the module's doc), answering moves with `replies`.
pub struct Heavy<'a> {
    scratch: &'a mut Scratch,
    replies: &'a ReplyTable,
    /// The capture lead that ends a playout: a third of the board's points, at least 4.
    mercy: i64,
}

impl<'a> Heavy<'a> {
    /// The policy on a board of `size`, reading ladders in `scratch`.
    pub fn new(size: usize, scratch: &'a mut Scratch, replies: &'a ReplyTable) -> Heavy<'a> {
        Heavy {
            scratch,
            replies,
            mercy: (size * size / 3).max(4) as i64,
        }
    }
}

impl MovePolicy for Heavy<'_> {
    fn choose(
        &mut self,
        board: &Board,
        c: Color,
        last: Option<Point>,
        own_last: Option<Point>,
        rng: &mut SmallRng,
    ) -> Option<Point> {
        if let Some(l) = last
            && rng.next_u32() % 256 < LOCAL_ANSWER_ODDS
            && let Some(p) = answer_locally(board, c, l, self.scratch)
                .or_else(|| own_last.and_then(|o| capture_next_to(board, c, o)))
        {
            return Some(p);
        }
        if let Some(l) = last
            && let Some(p) = good_reply(board, c, l, self.replies)
        {
            return Some(p);
        }
        if let Some(l) = last
            && rng.next_u32() % 256 < TACTICS_ODDS
            && let Some(p) = tactics::two_liberty_answer(board, c, l)
                .or_else(|| tactics::nakade_point(board, l))
                .filter(|&p| board.is_sensible(p, c))
        {
            return Some(p);
        }
        if let Some(l) = last
            && rng.next_u32() % 256 < SHAPE_ODDS
            && let Some(p) = shape_move(board, c, l, rng)
        {
            return Some(p);
        }
        random_move(board, c, rng)
    }

    /// The mercy rule: one side has captured more than `mercy` stones more than the other.
    #[inline]
    fn stops(&self, board: &Board) -> bool {
        capture_lead(board).abs() > self.mercy
    }
}

/// Stones Black has captured minus stones White has.
fn capture_lead(board: &Board) -> i64 {
    i64::from(board.captures(Color::Black)) - i64::from(board.captures(Color::White))
}

/// Plays out from `board` with `to_move` first and the [`Heavy`] policy (`last` is the move
/// just played, if any; `replies` the last good replies to answer moves with) and scores the
/// result: the area difference, or the whole board to the side ahead when the mercy rule
/// stopped it. Calls `record` with every stone played, in order.
pub fn play_out(
    board: &mut Board,
    to_move: Color,
    last: Option<Point>,
    rng: &mut SmallRng,
    scratch: &mut Scratch,
    replies: &ReplyTable,
    record: impl FnMut(Point, Color),
) -> Outcome {
    let mut policy = Heavy::new(board.size(), scratch, replies);
    let ending = playout::play_out(board, to_move, last, &mut policy, rng, record);
    let area_difference = if ending.stopped {
        let all = (board.size() * board.size()) as f32;
        if capture_lead(board) > 0 { all } else { -all }
    } else {
        area_difference(board)
    };
    Outcome { area_difference }
}

/// Black's area minus White's on a played-out board: stones, and empty points whose
/// neighbours are all of one colour.
fn area_difference(board: &Board) -> f32 {
    let mut difference = 0i32;
    for p in board.points() {
        match playout::area_owner(board, p) {
            Some(Color::Black) => difference += 1,
            Some(Color::White) => difference -= 1,
            None => {}
        }
    }
    difference as f32
}

/// The last good reply of `c` to the move on `last`, when it can be played now: an empty
/// point, no own eye, no self-atari.
fn good_reply(board: &Board, c: Color, last: Point, replies: &ReplyTable) -> Option<Point> {
    let p = replies.get(c, last)?;
    (board.cell(p) == Cell::Empty && is_safe(board, p, c)).then_some(p)
}

/// Whether `c` may play on the empty point `p` without filling an own eye or putting its
/// string into atari: what the playouts ask of a reply and of a shape move.
fn is_safe(board: &Board, p: Point, c: Color) -> bool {
    board.is_sensible(p, c) && board.self_atari_size(p, c).is_none()
}

/// One of the empty points around the last move where `c` makes a shape whose learned gamma
/// (see [`shape_tables`]) reaches [`MIN_SHAPE_GAMMA`], chosen with probability proportional to
/// that gamma; never an own eye or a self-atari.
fn shape_move(board: &Board, c: Color, last: Point, rng: &mut SmallRng) -> Option<Point> {
    let [s, w, e, n] = board.neighbors(last);
    let [sw, se, nw, ne] = board.diagonals(last);
    let mut found = [last; 8];
    let mut weight = [0f32; 8];
    let mut count = 0;
    let mut total = 0.0;
    for p in [s, w, e, n, sw, se, nw, ne] {
        if board.cell(p) != Cell::Empty {
            continue;
        }
        let g = shape_tables::gamma(board, p, c);
        if g >= MIN_SHAPE_GAMMA && is_safe(board, p, c) {
            found[count] = p;
            weight[count] = g;
            total += g;
            count += 1;
        }
    }
    if count == 0 {
        return None;
    }
    let mut r = (rng.next_u32() as f32 / 4_294_967_296.0) * total;
    for (&p, &w) in found[..count].iter().zip(&weight[..count]) {
        r -= w;
        if r < 0.0 {
            return Some(p);
        }
    }
    Some(found[count - 1])
}

/// A capture of the string the opponent just played, or the escape of an own string it put
/// in atari: by capturing a string around it, or by extending when that gives the string
/// room and does not run into a ladder. A two-liberty last move is not chased into a ladder
/// here (tried in self-play and not kept; see docs/LOG.md).
fn answer_locally(board: &Board, c: Color, last: Point, scratch: &mut Scratch) -> Option<Point> {
    if board.color_at(last) != Some(c.opponent()) {
        return None;
    }
    if let Some(lib) = board.atari_liberty(last)
        && board.legality(lib, c).is_ok()
    {
        return Some(lib);
    }
    board.neighbors(last).into_iter().find_map(|n| {
        if board.color_at(n) != Some(c) {
            return None;
        }
        let lib = board.atari_liberty(n)?;
        if let Some(capture) = tactics::captures_around(board, n, c).next() {
            return Some(capture);
        }
        (board.legality(lib, c).is_ok() && escapes(board, lib, c, scratch)).then_some(lib)
    })
}

/// The capture of an opponent string next to `c`'s stone on `own` that is in atari: the
/// atari `c` played last move, left unanswered.
fn capture_next_to(board: &Board, c: Color, own: Point) -> Option<Point> {
    if board.color_at(own) != Some(c) {
        return None;
    }
    capture_touching(board, own, c)
}

/// A legal move of `c` that captures an opponent string in atari next to `stone`.
fn capture_touching(board: &Board, stone: Point, c: Color) -> Option<Point> {
    board.neighbors(stone).into_iter().find_map(|n| {
        if board.color_at(n) != Some(c.opponent()) {
            return None;
        }
        let lib = board.atari_liberty(n)?;
        board.legality(lib, c).is_ok().then_some(lib)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn board(size: usize, black: &[&str], white: &[&str]) -> Board {
        Board::with_stones(size, black, white)
    }

    #[test]
    fn captures_the_last_move_in_atari() {
        // White's C3 is in atari after it played there: the only liberty is C4... black C2,
        // B3, D3 surround it.
        let b = board(5, &["C2", "B3", "D3"], &["C3"]);
        let c3 = Point::parse("C3", 5).unwrap();
        assert_eq!(
            answer_locally(&b, Color::Black, c3, &mut Scratch::new()),
            Point::parse("C4", 5).ok()
        );
    }

    #[test]
    fn escapes_an_atari_by_extending() {
        // Black C3 with white C2, B3; White just played D3: Black extends to C4.
        let b = board(5, &["C3"], &["C2", "B3", "D3"]);
        let d3 = Point::parse("D3", 5).unwrap();
        assert_eq!(
            answer_locally(&b, Color::Black, d3, &mut Scratch::new()),
            Point::parse("C4", 5).ok()
        );
    }

    #[test]
    fn escapes_an_atari_by_capturing_the_attacker() {
        // White just played D3, leaving black C3 in atari (last liberty C2); white's B3 is
        // itself in atari (last liberty B2): Black takes it.
        let b = board(5, &["C3", "A3", "B4"], &["B3", "C4", "D3"]);
        let d3 = Point::parse("D3", 5).unwrap();
        assert_eq!(
            answer_locally(&b, Color::Black, d3, &mut Scratch::new()),
            Point::parse("B2", 5).ok()
        );
    }

    #[test]
    fn takes_a_string_its_own_last_move_put_in_atari() {
        // Black's D3 put white C3 in atari (black B3, C2 around it, last liberty C4); White
        // answered far away at G7. Black takes C3.
        let b = board(9, &["B3", "C2", "D3"], &["C3", "G7"]);
        let mut rng = SmallRng::seed_from_u64(1);
        let (d3, g7) = (
            Point::parse("D3", 9).unwrap(),
            Point::parse("G7", 9).unwrap(),
        );
        assert_eq!(
            capture_next_to(&b, Color::Black, d3),
            Point::parse("C4", 9).ok()
        );
        // The playout does so whenever it answers locally (230 of 256 draws).
        let (mut scratch, replies) = (Scratch::new(), ReplyTable::new());
        let mut policy = Heavy::new(9, &mut scratch, &replies);
        let takes = (0..200)
            .filter(|_| {
                policy.choose(&b, Color::Black, Some(g7), Some(d3), &mut rng)
                    == Point::parse("C4", 9).ok()
            })
            .count();
        assert!(takes > 150, "{takes}");
        // Not White's business: D3 is no white stone.
        assert_eq!(capture_next_to(&b, Color::White, d3), None);
    }

    #[test]
    fn answers_with_the_last_good_reply_when_it_is_playable() {
        // Black just played E5 far from everything; White's remembered reply is C3.
        let b = board(9, &["E5", "G3"], &["C7"]);
        let (e5, c3, g3) = (
            Point::parse("E5", 9).unwrap(),
            Point::parse("C3", 9).unwrap(),
            Point::parse("G3", 9).unwrap(),
        );
        let mut replies = ReplyTable::new();
        replies.learn(
            &[(e5, Color::Black), (c3, Color::White)],
            Some(Color::White),
        );
        let mut rng = SmallRng::seed_from_u64(2);
        let mut scratch = Scratch::new();
        let mut play = |replies: &ReplyTable| {
            Heavy::new(9, &mut scratch, replies).choose(&b, Color::White, Some(e5), None, &mut rng)
        };
        assert!((0..50).all(|_| play(&replies) == Some(c3)));
        // Without it the choice spreads over the board.
        let empty = ReplyTable::new();
        assert!((0..50).any(|_| play(&empty) != Some(c3)));
        // An occupied reply point is skipped.
        replies.learn(
            &[(e5, Color::Black), (g3, Color::White)],
            Some(Color::White),
        );
        assert!((0..50).all(|_| play(&replies) != Some(g3)));
    }

    #[test]
    fn shape_moves_follow_the_gammas_and_avoid_self_atari() {
        // White just played E5 next to black D5 and E4; black F5 and E6 stand a point away.
        let b = board(9, &["D5", "E4", "G6"], &["E5", "F4"]);
        let black = Color::Black;
        let last = Point::parse("E5", 9).unwrap();
        let around: Vec<Point> = b
            .neighbors(last)
            .into_iter()
            .chain(b.diagonals(last))
            .collect();
        let eligible: Vec<(Point, f32)> = around
            .iter()
            .filter(|&&p| b.cell(p) == Cell::Empty && b.self_atari_size(p, black).is_none())
            .map(|&p| (p, shape_tables::gamma(&b, p, black)))
            .filter(|&(_, g)| g >= MIN_SHAPE_GAMMA)
            .collect();
        assert!(
            eligible.len() >= 2,
            "the position needs a choice: {eligible:?}"
        );
        let total: f32 = eligible.iter().map(|e| e.1).sum();
        let mut rng = SmallRng::seed_from_u64(5);
        let draws = 20_000;
        let mut seen = std::collections::HashMap::new();
        for _ in 0..draws {
            let p = shape_move(&b, black, last, &mut rng).expect("a shape move exists");
            *seen.entry(p).or_insert(0u32) += 1;
        }
        for (p, count) in &seen {
            let gamma = eligible
                .iter()
                .find(|e| e.0 == *p)
                .map(|e| e.1)
                .unwrap_or_else(|| panic!("{p:?} is not an eligible shape move"));
            let share = f64::from(*count) / f64::from(draws);
            let expected = f64::from(gamma / total);
            assert!(
                (share - expected).abs() < 0.02,
                "{p:?}: {share} vs {expected}"
            );
        }
        // Near a lone stone too, every shape move it makes reaches the threshold.
        let lone = board(9, &[], &["E5"]);
        let e5 = Point::parse("E5", 9).unwrap();
        assert!((0..100).all(|_| {
            shape_move(&lone, black, e5, &mut rng)
                .is_none_or(|p| shape_tables::gamma(&lone, p, black) >= MIN_SHAPE_GAMMA)
        }));
    }

    #[test]
    fn playouts_end_and_score_every_point() {
        let mut rng = SmallRng::seed_from_u64(3);
        for size in [5, 9, 19] {
            for _ in 0..20 {
                let mut b = Board::new(size);
                let mut stones = 0;
                let out = play_out(
                    &mut b,
                    Color::Black,
                    None,
                    &mut rng,
                    &mut Scratch::new(),
                    &ReplyTable::new(),
                    |_, _| stones += 1,
                );
                assert!(stones > 0);
                assert!(out.area_difference.abs() <= (size * size) as f32);
            }
        }
    }

    #[test]
    fn the_mercy_rule_gives_the_board_to_the_side_far_ahead_in_captures() {
        // On 5x5 a lead of more than 8 captured stones ends the playout at the stone that
        // made it and gives the whole board to the side ahead.
        let mut rng = SmallRng::seed_from_u64(9);
        let (mut scratch, replies) = (Scratch::new(), ReplyTable::new());
        let mut stopped = 0;
        for _ in 0..300 {
            let mut b = Board::new(5);
            let mut stones = Vec::new();
            let out = play_out(
                &mut b,
                Color::Black,
                None,
                &mut rng,
                &mut scratch,
                &replies,
                |p, c| stones.push((p, c)),
            );
            let mut replay = Board::new(5);
            let first_far_ahead = stones.iter().position(|&(p, c)| {
                replay.play(p, c);
                capture_lead(&replay).abs() > 8
            });
            if let Some(i) = first_far_ahead {
                stopped += 1;
                assert_eq!(i, stones.len() - 1);
                assert_eq!(out.area_difference, 25f32.copysign(capture_lead(&b) as f32));
            }
        }
        assert!(stopped > 0);
    }
}
