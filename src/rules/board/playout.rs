//! The playout loop: moves from a [`MovePolicy`] on a board copy until both sides pass, and
//! the two policies of the rules layer: the light one measured by `tengen bench` and the
//! seki-preserving one the scorer uses to tell dead stones from living ones (the search's
//! heavy policy is `search::policy`). A playout allocates nothing: it plays on the `Board` it
//! is given.

use rand::Rng;
use rand::rngs::SmallRng;

use super::{Board, Cell, Color, Point};

/// The largest string a random playout move may put into atari (the [`NoSelfAtari`]
/// playouts' and the search's): enough for the throw-ins and nakade that kill eye spaces of
/// up to six points; bigger self-ataris are blunders.
pub const MAX_THROW_IN: usize = 3;

/// How a playout chooses its moves.
pub trait MovePolicy {
    /// The move of `c` on `board`, or `None` to pass. `last` is the move just played (`None`
    /// after a pass), `own_last` the one before it, `c`'s own previous move.
    fn choose(
        &mut self,
        board: &Board,
        c: Color,
        last: Option<Point>,
        own_last: Option<Point>,
        rng: &mut SmallRng,
    ) -> Option<Point>;

    /// Whether the playout stops after a move that left `board`, before two passes or the
    /// move cap end it (a mercy rule). Never, unless a policy says otherwise.
    #[inline]
    fn stops(&self, _board: &Board) -> bool {
        false
    }
}

/// Any legal move that does not fill an own eye, uniformly at random.
#[derive(Copy, Clone, Debug, Default)]
pub struct Light;

/// Captures first; otherwise as [`Light`], but never a self-atari of a string of four or more
/// stones, nor one that leaves the string only its own eye ([`Board::is_bad_self_atari`]).
/// Random playouts that fill shared liberties destroy every seki; this policy keeps them (a
/// small string's too), while still allowing the throw-ins of up to three stones that kill an
/// eye space from inside (nakade). Taking what can be taken makes dead groups die as they
/// would in a real game instead of escaping by chance.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoSelfAtari;

impl MovePolicy for Light {
    #[inline]
    fn choose(
        &mut self,
        board: &Board,
        c: Color,
        _last: Option<Point>,
        _own_last: Option<Point>,
        rng: &mut SmallRng,
    ) -> Option<Point> {
        let start = random_start(board, rng)?;
        first_from(board, start, |p| board.is_sensible(p, c))
    }
}

impl MovePolicy for NoSelfAtari {
    #[inline]
    fn choose(
        &mut self,
        board: &Board,
        c: Color,
        _last: Option<Point>,
        _own_last: Option<Point>,
        rng: &mut SmallRng,
    ) -> Option<Point> {
        let start = random_start(board, rng)?;
        first_from(board, start, |p| {
            captures(board, p, c) && board.legality(p, c).is_ok()
        })
        .or_else(|| keeping_seki_from(board, c, start))
    }
}

/// How a playout ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The moves made, passes included.
    pub moves: usize,
    /// Whether the policy stopped it ([`MovePolicy::stops`]) before two passes or the cap.
    pub stopped: bool,
}

/// Plays moves of `policy` from `board` with `to_move` first until both sides pass in a row,
/// [`move_cap`] moves (passes included) have been made, or the policy stops it. `last` is the
/// move just played, if any. Calls `record` with every stone played, in order.
#[inline]
pub fn play_out<P: MovePolicy>(
    board: &mut Board,
    mut to_move: Color,
    mut last: Option<Point>,
    policy: &mut P,
    rng: &mut SmallRng,
    mut record: impl FnMut(Point, Color),
) -> Ending {
    let max_moves = move_cap(board.size());
    let mut passes = 0;
    // The stone before the last one: the mover's own previous move.
    let mut own_last = None;
    let mut moves = 0;
    while moves < max_moves {
        let chosen = policy.choose(board, to_move, last, own_last, rng);
        moves += 1;
        own_last = last;
        last = chosen;
        match chosen {
            Some(p) => {
                board.play(p, to_move);
                record(p, to_move);
                passes = 0;
            }
            None => {
                board.pass();
                passes += 1;
                if passes == 2 {
                    break;
                }
            }
        }
        to_move = to_move.opponent();
        if policy.stops(board) {
            return Ending {
                moves,
                stopped: true,
            };
        }
    }
    Ending {
        moves,
        stopped: false,
    }
}

/// The move cap of a playout: three times the number of points.
pub fn move_cap(size: usize) -> usize {
    3 * size * size
}

/// The random move of the seki-keeping policies ([`NoSelfAtari`]'s after its captures, and
/// the search's last resort): from a uniformly random empty point on, the first where `c`
/// may play without filling its own eye, putting more than [`MAX_THROW_IN`] stones into
/// atari, or leaving a string only its own eye (which breaks a small string's seki); `None`
/// when there is none.
#[inline]
pub fn random_move(board: &Board, c: Color, rng: &mut SmallRng) -> Option<Point> {
    let start = random_start(board, rng)?;
    keeping_seki_from(board, c, start)
}

/// [`random_move`]'s scan from index `start` of the empty list.
#[inline]
fn keeping_seki_from(board: &Board, c: Color, start: usize) -> Option<Point> {
    first_from(board, start, |p| {
        board.is_sensible(p, c) && !board.is_bad_self_atari(p, c, MAX_THROW_IN)
    })
}

/// A uniformly random index into the empty list, or `None` when the board is full.
#[inline]
fn random_start(board: &Board, rng: &mut SmallRng) -> Option<usize> {
    let n = board.empty_count();
    (n > 0).then(|| below(rng, n))
}

/// A random index below `n` by one multiplication (Lemire), without rejection: the bias is
/// below n / 2^32, far under anything a playout could notice.
#[inline]
fn below(rng: &mut SmallRng, n: usize) -> usize {
    ((u64::from(rng.next_u32()) * n as u64) >> 32) as usize
}

/// The first empty point, scanning the empty list cyclically from index `start`, that is
/// `acceptable`.
#[inline]
fn first_from(board: &Board, start: usize, acceptable: impl Fn(Point) -> bool) -> Option<Point> {
    let n = board.empty_count();
    let mut k = start;
    loop {
        let p = board.empty_at(k);
        if acceptable(p) {
            return Some(p);
        }
        k += 1;
        if k == n {
            k = 0;
        }
        if k == start {
            return None;
        }
    }
}

/// Whether a stone of `c` on the empty point `p` would capture.
#[inline]
fn captures(board: &Board, p: Point, c: Color) -> bool {
    board
        .neighbors(p)
        .iter()
        .any(|&n| board.color_at(n) == Some(c.opponent()) && board.in_atari(n))
}

/// Who owns `p` on a played-out board under area counting: the colour of its stone, or of all
/// its neighbours when it is empty; `None` for an empty point touching both colours.
pub fn area_owner(board: &Board, p: Point) -> Option<Color> {
    if let Some(c) = board.color_at(p) {
        return Some(c);
    }
    let mut owner = None;
    for n in board.neighbors(p) {
        match board.cell(n) {
            Cell::Black | Cell::White => {
                let c = board.cell(n).color();
                if owner.is_some() && owner != c {
                    return None;
                }
                owner = c;
            }
            Cell::Empty | Cell::Border => {}
        }
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Playouts of `policy` from empty boards of every size: each ends within the cap with the
    /// board's invariants kept and every recorded stone on the board or captured; and when
    /// both sides passed, the second had no move of the policy left.
    fn check_playouts(policy: &mut impl MovePolicy, rng: &mut SmallRng) {
        for size in [2, 3, 5, 9, 13, 19] {
            for _ in 0..20 {
                let mut board = Board::new(size);
                let mut stones = 0;
                let ending = play_out(&mut board, Color::Black, None, policy, rng, |_, _| {
                    stones += 1
                });
                assert!(ending.moves <= move_cap(size));
                assert!(!ending.stopped);
                assert!(stones <= ending.moves);
                assert_eq!(
                    board.captures(Color::Black) + board.captures(Color::White),
                    {
                        let on_board = board.points().filter(|&p| board.color_at(p).is_some());
                        (stones - on_board.count()) as u32
                    }
                );
                board.check_invariants();
                if ending.moves < move_cap(size) {
                    // The second to pass had nothing left (the first may have had only a ko
                    // capture, which its pass made legal).
                    let last_to_pass = if ending.moves % 2 == 1 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    assert_eq!(policy.choose(&board, last_to_pass, None, None, rng), None);
                }
            }
        }
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "hundreds of playouts: release only")]
    fn playouts_end_with_only_eyes_and_keep_invariants() {
        let mut rng = SmallRng::seed_from_u64(7);
        check_playouts(&mut Light, &mut rng);
        check_playouts(&mut NoSelfAtari, &mut rng);
    }

    /// A policy that stops the playout once `c` has captured anything.
    struct StopAtCapture(Color);

    impl MovePolicy for StopAtCapture {
        fn choose(
            &mut self,
            board: &Board,
            c: Color,
            last: Option<Point>,
            own_last: Option<Point>,
            rng: &mut SmallRng,
        ) -> Option<Point> {
            Light.choose(board, c, last, own_last, rng)
        }

        fn stops(&self, board: &Board) -> bool {
            board.captures(self.0) > 0
        }
    }

    #[test]
    fn a_policy_can_stop_a_playout() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut board = Board::new(9);
        let ending = play_out(
            &mut board,
            Color::Black,
            None,
            &mut StopAtCapture(Color::White),
            &mut rng,
            |_, _| {},
        );
        assert!(ending.stopped);
        assert!(ending.moves < move_cap(9));
        assert!(board.captures(Color::White) > 0);
    }

    #[test]
    fn no_self_atari_keeps_a_small_strings_seki() {
        // Black A2 and B1 keep A1 as their eye and share B2 with White's group: B2 would
        // give White the corner. A1 is Black's eye, E1 and D4 White's: Black passes, where
        // the light policy plays B2.
        let b = Board::with_stones(
            5,
            &["A2", "B1"],
            &[
                "C1", "D1", "C2", "D2", "E2", "A3", "B3", "C3", "D3", "E3", "A4", "B4", "C4", "E4",
                "A5", "B5", "C5", "D5", "E5",
            ],
        );
        let b2 = Point::parse("B2", 5).unwrap();
        assert!(b.is_sensible(b2, Color::Black));
        assert_eq!(b.self_atari_size(b2, Color::Black), Some(3));
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..20 {
            assert_eq!(random_move(&b, Color::Black, &mut rng), None);
            assert_eq!(
                NoSelfAtari.choose(&b, Color::Black, None, None, &mut rng),
                None
            );
            assert_eq!(
                Light.choose(&b, Color::Black, None, None, &mut rng),
                Some(b2)
            );
        }
    }

    #[test]
    fn no_self_atari_takes_a_string_in_atari_first() {
        // Black C3 is in atari (white B3, C2, D3): White takes it at C4 every time, where the
        // light policy picks any of the board's empty points.
        let b = Board::with_stones(9, &["C3"], &["B3", "C2", "D3"]);
        let c4 = Point::parse("C4", 9).unwrap();
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..50 {
            assert_eq!(
                NoSelfAtari.choose(&b, Color::White, None, None, &mut rng),
                Some(c4)
            );
        }
        assert!((0..50).any(|_| Light.choose(&b, Color::White, None, None, &mut rng) != Some(c4)));
    }

    #[test]
    fn area_owner_of_empty_points() {
        let mut board = Board::new(5);
        let p = |v: &str| Point::parse(v, 5).unwrap();
        for v in ["B1", "A2"] {
            board.play(p(v), Color::Black);
        }
        assert_eq!(area_owner(&board, p("A1")), Some(Color::Black));
        board.play(p("C3"), Color::White);
        assert_eq!(area_owner(&board, p("C2")), Some(Color::White));
        board.play(p("D2"), Color::Black);
        assert_eq!(area_owner(&board, p("C2")), None);
        assert_eq!(area_owner(&board, p("E5")), None);
    }
}
