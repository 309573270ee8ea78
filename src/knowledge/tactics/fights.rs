//! Fights of strings with two liberties (the capturing races random moves misjudge most):
//! the atari that kills, or the move that saves. Read on the board itself with liberty
//! counts, no search: cheap enough to look at after every playout move.

use crate::rules::board::{Board, Color, Point};

use super::capture::touching_ataris;

/// A move of `c` answering the opponent's stone on `last` in a fight of two-liberty strings:
/// the atari that kills the last move's string (or a two-liberty string next to an own one it
/// touched), or else the move that saves an own two-liberty string next to it which the
/// opponent could kill that way: by capturing, by winning the race first, or by extending to
/// three liberties.
pub fn two_liberty_answer(board: &Board, c: Color, last: Point) -> Option<Point> {
    let opponent = c.opponent();
    if board.color_at(last) != Some(opponent) {
        return None;
    }
    if let Some(libs) = two_liberties(board, last)
        && let Some(p) = killing_atari(board, last, libs, c)
    {
        return Some(p);
    }
    let mut seen = SeenStrings::new(last);
    for n in board.neighbors(last) {
        if board.color_at(n) != Some(c) || !seen.first_visit(board, n) {
            continue;
        }
        let Some(libs) = two_liberties(board, n) else {
            continue;
        };
        if killing_atari(board, n, libs, opponent).is_some()
            && let Some(p) = defend(board, n, libs, c)
        {
            return Some(p);
        }
    }
    None
}

/// The strings already looked at in a scan of neighbouring strings, by head (the first
/// [`SeenStrings::CAPACITY`]; beyond that a string may be looked at twice, which costs time,
/// not correctness).
struct SeenStrings {
    heads: [Point; SeenStrings::CAPACITY],
    len: usize,
}

impl SeenStrings {
    const CAPACITY: usize = 8;

    /// An empty set; `filler` is any point (it only fills the unused slots).
    fn new(filler: Point) -> SeenStrings {
        SeenStrings {
            heads: [filler; SeenStrings::CAPACITY],
            len: 0,
        }
    }

    /// Whether the string on `p` is met here for the first time; remembers it.
    fn first_visit(&mut self, board: &Board, p: Point) -> bool {
        let head = board.string_head(p);
        if self.heads[..self.len].contains(&head) {
            return false;
        }
        if self.len < SeenStrings::CAPACITY {
            self.heads[self.len] = head;
            self.len += 1;
        }
        true
    }
}

/// The two liberties of the string on `s`, when it has exactly two.
fn two_liberties(board: &Board, s: Point) -> Option<[Point; 2]> {
    let mut libs = [s; 3];
    (board.string_liberties(s, &mut libs) == 2).then_some([libs[0], libs[1]])
}

/// The atari by `attacker` on the string on `s` (liberties `libs`) that leaves it no way
/// out: the attacking stone is not itself in atari, extending at the other liberty gives the
/// string at most one liberty, and no attacking string next to it is in atari.
fn killing_atari(board: &Board, s: Point, libs: [Point; 2], attacker: Color) -> Option<Point> {
    let defender = attacker.opponent();
    // The defender would answer an atari by taking an attacking string in atari.
    if touching_ataris(board, s, attacker).next().is_some() {
        return None;
    }
    [(libs[0], libs[1]), (libs[1], libs[0])]
        .into_iter()
        .find_map(|(atari, other)| {
            if board.legality(atari, attacker).is_err()
                || board.self_atari_size(atari, attacker).is_some()
            {
                return None;
            }
            // The extension counts `atari` among the string's liberties; the attacker holds it.
            let after = board.liberties_after(other, defender, 3);
            (after <= 2).then_some(atari)
        })
}

/// How `c` saves its string on `s` (liberties `libs`): an atari that kills a two-liberty
/// opponent string next to it (the race is won first), else an extension to three liberties
/// or more that is not a self-atari.
fn defend(board: &Board, s: Point, libs: [Point; 2], c: Color) -> Option<Point> {
    let opponent = c.opponent();
    let mut seen = SeenStrings::new(s);
    for stone in board.string_stones(s) {
        for n in board.neighbors(stone) {
            if board.color_at(n) != Some(opponent) || !seen.first_visit(board, n) {
                continue;
            }
            if let Some(their) = two_liberties(board, n)
                && let Some(p) = killing_atari(board, n, their, c)
            {
                return Some(p);
            }
        }
    }
    libs.into_iter()
        .find(|&l| board.legality(l, c).is_ok() && board.liberties_after(l, c, 3) >= 3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::tactics::tests::pt;

    #[test]
    fn kills_a_two_liberty_string_that_cannot_extend() {
        // White C3 (last move) has liberties C4 and D3; Black B3, C2, D4 and E3 wall it in:
        // either atari kills, the extension gets no room.
        let b = Board::with_stones(7, &["B3", "C2", "D4", "E3", "D2"], &["C3"]);
        // D3 would let White out at C4 (B4, C5); C4 leaves D3, a point without liberties.
        assert_eq!(
            two_liberty_answer(&b, Color::Black, pt("C3", 7)),
            Some(pt("C4", 7))
        );
    }

    #[test]
    fn leaves_a_string_that_would_run_into_the_open() {
        // White D4 has liberties E4 and D5 after black C4 and D3, but either extension gets
        // three liberties: no atari kills it.
        let b = Board::with_stones(9, &["C4", "D3"], &["D4"]);
        assert_eq!(two_liberty_answer(&b, Color::Black, pt("D4", 9)), None);
    }

    #[test]
    fn does_not_atari_when_the_defender_captures_instead() {
        // White C3 has liberties C4 and D3, but black B3 next to it is in atari (white A3
        // and B4 around it, its last liberty B2): White would answer the atari by taking B3.
        let b = Board::with_stones(7, &["B3", "C2"], &["A3", "B4", "C3"]);
        assert!(b.in_atari(pt("B3", 7)));
        assert_eq!(two_liberty_answer(&b, Color::Black, pt("C3", 7)), None);
    }

    #[test]
    fn wins_a_race_between_two_liberty_strings() {
        // On the first line black C1-C2 (liberties B1, B2) and white D1-D2 (liberties E1,
        // E2) are both walled in; Black to move kills White first.
        let b = Board::with_stones(
            7,
            &["C1", "C2", "D3", "D4", "E3"],
            &["D1", "D2", "C3", "C4", "B3"],
        );
        assert_eq!(b.liberties(pt("C1", 7)), 2);
        assert_eq!(b.liberties(pt("D1", 7)), 2);
        let p = two_liberty_answer(&b, Color::Black, pt("D2", 7)).expect("the race is won");
        assert!(p == pt("E1", 7) || p == pt("E2", 7), "{p:?}");
    }

    #[test]
    fn saves_an_own_string_the_opponent_could_kill() {
        // Black C3 has liberties C4 and B3 after White's D3; white A3 and B2 make B3 a dead
        // end, so White's atari at C4 would kill. Black extends to C4, which gets room.
        let b = Board::with_stones(7, &["C3"], &["C2", "B2", "A3", "D3"]);
        assert_eq!(
            two_liberty_answer(&b, Color::Black, pt("D3", 7)),
            Some(pt("C4", 7))
        );
        // With White to move, that atari is the answer.
        assert_eq!(
            two_liberty_answer(&b, Color::White, pt("C3", 7)),
            Some(pt("C4", 7))
        );
    }
}
