//! Ladder reading: whether a string with two liberties can be chased into capture by
//! successive ataris. The attacker tries both liberties at each step,
//! keeping the one after which the defender's forced extension leaves it with two liberties
//! again; the defender escapes when it gets three liberties or, after an atari, can take a
//! chasing string (of any size) instead of extending.
//! Reads on scratch boards owned by the caller, so it allocates nothing.

use crate::rules::board::{Board, Color, Point};

use super::capture::captures_around;

/// Ladder steps read at most (a ladder across a 25x25 board and back is shorter).
const MAX_STEPS: usize = 64;

/// Boards to read ladders on.
pub struct Scratch {
    chase: Board,
    trial: Board,
    extension: Board,
}

impl Scratch {
    /// Scratch boards for any size.
    pub fn new() -> Box<Scratch> {
        Box::new(Scratch {
            chase: Board::new(2),
            trial: Board::new(2),
            extension: Board::new(2),
        })
    }
}

/// Whether `c` playing on the empty point `lib` (extending a string in atari, say) leaves the
/// string it makes safe: three liberties or more, or two that no ladder can take.
pub fn escapes(board: &Board, lib: Point, c: Color, scratch: &mut Scratch) -> bool {
    if board.self_atari_size(lib, c).is_some() {
        return false;
    }
    // Three liberties need no reading: the count never overstates what the move gets.
    if board.liberties_after(lib, c, 3) >= 3 {
        return true;
    }
    let Scratch {
        chase,
        trial,
        extension,
    } = scratch;
    extension.copy_from(board);
    extension.play(lib, c);
    let mut after = [lib; 3];
    match extension.string_liberties(lib, &mut after) {
        0 | 1 => false,
        2 => !(0..2).any(|first| chase_from(extension, lib, c.opponent(), first, chase, trial)),
        _ => true,
    }
}

/// The atari that kills the string on `s` (two liberties, `attacker`'s opponent) in a
/// ladder, if there is one. Both first ataris are tried; after that the chase is forced: the
/// attacker keeps the atari that leaves the defender two liberties.
pub fn ladder_atari(
    board: &Board,
    s: Point,
    attacker: Color,
    scratch: &mut Scratch,
) -> Option<Point> {
    let mut libs = [s; 3];
    if board.string_liberties(s, &mut libs) != 2 {
        return None;
    }
    let Scratch { chase, trial, .. } = scratch;
    (0..2)
        .find(|&first| chase_from(board, s, attacker, first, chase, trial))
        .map(|first| libs[first])
}

/// The heads of `c`'s strings with two liberties that the opponent takes in a ladder.
pub fn strings_a_ladder_takes(board: &Board, c: Color, scratch: &mut Scratch) -> Vec<Point> {
    board
        .points()
        .filter(|&p| {
            board.color_at(p) == Some(c)
                && board.string_head(p) == p
                && board.liberties(p) == 2
                && ladder_atari(board, p, c.opponent(), scratch).is_some()
        })
        .collect()
}

/// Whether `attacker`'s atari at `at` (one of the two liberties of the string on `s`) kills
/// that string in a ladder.
pub fn is_ladder_atari(
    board: &Board,
    s: Point,
    at: Point,
    attacker: Color,
    scratch: &mut Scratch,
) -> bool {
    let mut libs = [s; 3];
    if board.string_liberties(s, &mut libs) != 2 {
        return false;
    }
    let Some(first) = libs[..2].iter().position(|&l| l == at) else {
        return false;
    };
    let Scratch { chase, trial, .. } = scratch;
    chase_from(board, s, attacker, first, chase, trial)
}

/// Chases the string on `s`, starting with the atari on its liberty number `first`, reading
/// on the boards `chase` and `trial`. At each step the attacker first tries the atari on the
/// first liberty; when that chase fails and the other atari also kept the defender at two
/// liberties, the reader comes back and tries it (deepest step first, at most
/// [`MAX_BACKTRACKS`] times): on the first line the wrong atari lets the string out.
fn chase_from<'a>(
    board: &Board,
    s: Point,
    attacker: Color,
    first: usize,
    mut chase: &'a mut Board,
    mut trial: &'a mut Board,
) -> bool {
    let defender = attacker.opponent();
    // The chase so far (atari, extension), and where the second atari is still to be tried.
    let mut path = [(s, s); MAX_STEPS];
    let mut untried = [false; MAX_STEPS];
    let mut backtracks = MAX_BACKTRACKS;
    let mut depth = 0;
    let mut orders = first..first + 1;
    chase.copy_from(board);
    loop {
        match step(chase, trial, s, attacker, orders) {
            Step::Caught => return true,
            Step::Continues(order, moves) if depth + 1 < MAX_STEPS => {
                path[depth] = moves;
                untried[depth] = depth > 0 && order == 0;
                // The boards trade roles: swapping the references moves no board.
                std::mem::swap(&mut chase, &mut trial);
                depth += 1;
                orders = 0..2;
                continue;
            }
            Step::Continues(..) | Step::Escapes => {}
        }
        let Some(back) = (0..depth).rev().find(|&d| untried[d]) else {
            return false;
        };
        if backtracks == 0 {
            return false;
        }
        backtracks -= 1;
        untried[back] = false;
        chase.copy_from(board);
        for &(atari, escape) in &path[..back] {
            chase.play(atari, attacker);
            chase.play(escape, defender);
        }
        depth = back;
        orders = 1..2;
    }
}

/// Returns to an earlier branch of a chase at most this many times.
const MAX_BACKTRACKS: usize = 8;

/// What one atari of a chase leads to.
enum Step {
    /// The string is taken.
    Caught,
    /// The defender extended to two liberties again: the order of liberties used (0 for the
    /// atari on the first) and the two moves.
    Continues(usize, (Point, Point)),
    /// No atari in `orders` keeps the string at two liberties without leaving a chasing
    /// string for it to take.
    Escapes,
}

/// Tries the ataris on the string on `s` in `chase` (the orders in `orders`: 0 ataris on its
/// first liberty, 1 on its second), leaving the position after a continuing one in `trial`.
fn step(
    chase: &Board,
    trial: &mut Board,
    s: Point,
    attacker: Color,
    orders: std::ops::Range<usize>,
) -> Step {
    let defender = attacker.opponent();
    let mut libs = [s; 3];
    if chase.string_liberties(s, &mut libs) != 2 {
        return Step::Escapes;
    }
    for order in orders {
        let (atari, escape) = (libs[order], libs[1 - order]);
        if chase.legality(atari, attacker).is_err() {
            continue;
        }
        trial.copy_from(chase);
        trial.play(atari, attacker);
        if can_capture_a_chaser(trial, s, escape) {
            // The defender takes a chasing string instead of extending: no ladder this way.
            continue;
        }
        if trial.legality(escape, defender).is_err() {
            return Step::Caught;
        }
        trial.play(escape, defender);
        match trial.liberties(s) {
            0 | 1 => return Step::Caught,
            2 => return Step::Continues(order, (atari, escape)),
            _ => {}
        }
    }
    Step::Escapes
}

/// Whether the string on `s`, in atari with its last liberty `escape`, can take a string of
/// the other colour touching it by playing elsewhere than `escape` (a capture on `escape` is
/// the extension itself, which the chase reads). A chasing string that the atari saved has
/// liberties again and does not count.
fn can_capture_a_chaser(board: &Board, s: Point, escape: Point) -> bool {
    let Some(own) = board.color_at(s) else {
        return false;
    };
    captures_around(board, s, own).any(|lib| lib != escape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::tactics::tests::{LADDER, board_from_rows};

    #[test]
    fn a_ladder_works_on_an_empty_board_and_fails_with_a_breaker() {
        // White D4 against black C4, D3 and E5 has two liberties, D5 and E4; the ladder runs
        // towards the upper left (D5, C5, C6, B6...) or the lower right (E4, E3, F3, F2...).
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let mut scratch = Scratch::new();
        let b = Board::with_stones(9, &["C4", "D3", "E5"], &["D4"]);
        assert_eq!(b.liberties(pt("D4")), 2);
        let atari = ladder_atari(&b, pt("D4"), Color::Black, &mut scratch);
        assert!(
            atari == Some(pt("D5")) || atari == Some(pt("E4")),
            "{atari:?}"
        );
        // White stones on both paths break it.
        let b = Board::with_stones(9, &["C4", "D3", "E5"], &["D4", "B6", "F2"]);
        assert_eq!(ladder_atari(&b, pt("D4"), Color::Black, &mut scratch), None);
    }

    #[test]
    fn three_liberties_are_no_ladder() {
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let b = Board::with_stones(9, &["C4"], &["D4"]);
        assert_eq!(
            ladder_atari(&b, pt("D4"), Color::Black, &mut Scratch::new()),
            None
        );
    }

    fn white_c3_escapes(rows: &[&str]) -> bool {
        let b = board_from_rows(rows);
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        assert!(b.in_atari(pt("C3")));
        escapes(&b, pt("D3"), Color::White, &mut Scratch::new())
    }

    #[test]
    fn the_strings_a_ladder_takes_are_listed_once_each() {
        // White C3-D3, extended from LADDER's atari, has two liberties and is taken in the
        // ladder up the diagonal, unless a white stone on its path breaks it.
        let mut rows = LADDER;
        rows[6] = ". X O O . . . . .";
        let b = board_from_rows(&rows);
        let mut scratch = Scratch::new();
        let taken = strings_a_ladder_takes(&b, Color::White, &mut scratch);
        assert_eq!(taken, [b.string_head(Point::parse("C3", 9).unwrap())]);
        assert!(strings_a_ladder_takes(&b, Color::Black, &mut scratch).is_empty());
        rows[1] = ". . . . . . O . .";
        let b = board_from_rows(&rows);
        assert!(strings_a_ladder_takes(&b, Color::White, &mut scratch).is_empty());
    }

    #[test]
    fn extending_into_a_ladder_to_the_edge_does_not_escape() {
        assert!(!white_c3_escapes(&LADDER));
    }

    #[test]
    fn a_ladder_breaker_lets_the_string_escape() {
        let mut rows = LADDER;
        rows[1] = ". . . . . . O . .";
        assert!(white_c3_escapes(&rows));
    }

    #[test]
    fn a_string_that_can_capture_a_chaser_escapes() {
        let mut rows = LADDER;
        rows[4] = ". . O . . . . . .";
        rows[5] = ". O X . . . . . .";
        assert!(white_c3_escapes(&rows));
    }

    /// White C1 has two liberties, B1 and D1; White D1 would be suicide.
    const CHASER_IN_ATARI: [&str; 9] = [
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". O X X . . . . .",
        "X . O . X . . . .",
    ];

    #[test]
    fn an_atari_that_leaves_two_chasing_stones_in_atari_does_not_kill() {
        // Black B1 ataris White C1 but leaves Black A1-B1 with one liberty, A2: White takes
        // the pair instead of extending.
        let b = board_from_rows(&CHASER_IN_ATARI);
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let mut scratch = Scratch::new();
        assert!(!is_ladder_atari(
            &b,
            pt("C1"),
            pt("B1"),
            Color::Black,
            &mut scratch
        ));
        // Without White B2 the pair has two liberties and the atari kills: White D1 is
        // suicide.
        let mut rows = CHASER_IN_ATARI;
        rows[7] = ". . X X . . . . .";
        let b = board_from_rows(&rows);
        assert!(is_ladder_atari(
            &b,
            pt("C1"),
            pt("B1"),
            Color::Black,
            &mut scratch
        ));
    }

    #[test]
    fn a_chasing_string_in_atari_that_the_next_atari_saves_does_not_let_the_string_out() {
        // After White D3, Black C2-E2 has one liberty, E3; Black's atari there saves it, and
        // the ladder runs up to the right.
        let mut rows = LADDER;
        rows[6] = ". X O . . X . . .";
        rows[7] = ". O X X X O . . .";
        rows[8] = ". . O O O . . . .";
        assert!(!white_c3_escapes(&rows));
        // Without Black F3 the saved string is in atari again once White reaches E4, and no
        // atari there saves it: White takes it.
        rows[6] = ". X O . . . . . .";
        assert!(white_c3_escapes(&rows));
    }

    #[test]
    fn a_first_line_ladder_needs_the_atari_from_above() {
        // White E1 (next to Black D1) extends to F1 after Black E2; Black must atari from
        // above (F2, not G1) all the way to the corner.
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let b = Board::with_stones(9, &["D1", "E2"], &["E1"]);
        assert!(!escapes(&b, pt("F1"), Color::White, &mut Scratch::new()));
        // A white stone on the second line in the way breaks it.
        let b = Board::with_stones(9, &["D1", "E2"], &["E1", "H2"]);
        assert!(escapes(&b, pt("F1"), Color::White, &mut Scratch::new()));
    }
}
