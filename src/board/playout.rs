//! Random playouts on a board copy: the light policy measured by `tengen bench` and the
//! seki-preserving policy the scorer uses to tell dead stones from living ones.
//! A playout allocates nothing: it plays on the `Board` it is given.

use rand::Rng;
use rand::rngs::SmallRng;

use super::{Board, Cell, Color, Point};

/// The largest string a random playout move may put into atari (the scorer's `NoSelfAtari`
/// playouts and the search's): enough for the throw-ins and nakade that kill eye spaces of
/// up to six points; bigger self-ataris are blunders.
pub const MAX_THROW_IN: usize = 3;

/// Which moves a playout may choose from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Any legal move that does not fill an own eye, uniformly at random.
    Light,
    /// Captures first; otherwise as `Light`, but never a self-atari of a string of four or
    /// more stones, nor one that leaves the string only its own eye
    /// ([`Board::is_bad_self_atari`]). Random playouts that fill shared liberties
    /// destroy every seki; this policy keeps them (a small string's too), while still
    /// allowing the throw-ins of up to three stones that kill an eye space from inside
    /// (nakade). Taking what can be taken makes dead groups die as they would in a real game
    /// instead of escaping by chance.
    NoSelfAtari,
}

/// Plays random moves from `board` with `to_move` first until both sides pass in a row or
/// `max_moves` moves (passes included) have been made. Returns the number of moves made.
pub fn play_out(
    board: &mut Board,
    mut to_move: Color,
    policy: Policy,
    max_moves: usize,
    rng: &mut SmallRng,
) -> usize {
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < max_moves {
        match random_move(board, to_move, policy, rng) {
            Some(p) => {
                board.play(p, to_move);
                passes = 0;
            }
            None => {
                board.pass();
                passes += 1;
            }
        }
        moves += 1;
        to_move = to_move.opponent();
    }
    moves
}

/// The default move cap of a playout: three times the number of points.
pub fn move_cap(size: usize) -> usize {
    3 * size * size
}

/// A random move for `c` allowed by `policy`, or `None` when there is none (the player passes).
/// Starts at a random empty point and takes the first acceptable one from there on; the
/// `NoSelfAtari` policy first takes any capture, found the same way.
pub fn random_move(board: &Board, c: Color, policy: Policy, rng: &mut SmallRng) -> Option<Point> {
    let n = board.empty_count();
    if n == 0 {
        return None;
    }
    let start = below(rng, n);
    if policy == Policy::NoSelfAtari
        && let Some(p) = first_from(board, start, |p| {
            captures(board, p, c) && board.legality(p, c).is_ok()
        })
    {
        return Some(p);
    }
    first_from(board, start, |p| {
        board.is_sensible(p, c)
            && (policy == Policy::Light || !board.is_bad_self_atari(p, c, MAX_THROW_IN))
    })
}

/// A random index below `n` by one multiplication (Lemire), without rejection: the bias is
/// below n / 2^32, far under anything a playout could notice.
#[inline]
pub fn below(rng: &mut SmallRng, n: usize) -> usize {
    ((u64::from(rng.next_u32()) * n as u64) >> 32) as usize
}

/// The first empty point, scanning the empty list cyclically from index `start`, that is
/// `acceptable`.
#[inline]
pub fn first_from(
    board: &Board,
    start: usize,
    acceptable: impl Fn(Point) -> bool,
) -> Option<Point> {
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
fn captures(board: &Board, p: Point, c: Color) -> bool {
    board
        .neighbors(p)
        .iter()
        .any(|&n| board.color_at(n) == Some(c.opponent()) && board.liberties(n) == 1)
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

    #[test]
    #[cfg_attr(debug_assertions, ignore = "hundreds of playouts: release only")]
    fn playouts_end_with_only_eyes_and_keep_invariants() {
        let mut rng = SmallRng::seed_from_u64(7);
        for size in [2, 3, 5, 9, 13, 19] {
            for policy in [Policy::Light, Policy::NoSelfAtari] {
                for _ in 0..20 {
                    let mut board = Board::new(size);
                    let moves =
                        play_out(&mut board, Color::Black, policy, move_cap(size), &mut rng);
                    assert!(moves <= move_cap(size));
                    board.check_invariants();
                    if moves < move_cap(size) && policy == Policy::Light {
                        // Both passed: no side has a move left but eye fills.
                        for c in Color::ALL {
                            assert_eq!(random_move(&board, c, policy, &mut rng), None);
                        }
                    }
                }
            }
        }
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
