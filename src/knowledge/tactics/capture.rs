//! Captures around a string: the strings of the other colour touching it that are in atari
//! (which its owner can take instead of answering an atari), and the own strings in atari
//! that a capture saves.

use crate::rules::board::{Board, Color, Point};

/// The stones of `other`'s strings in atari touching the string on `s`: one for each stone
/// of `s` and side where they touch, so a string may come more than once. The last liberty
/// of each is `board.atari_liberty(stone)`.
pub fn touching_ataris(board: &Board, s: Point, other: Color) -> impl Iterator<Item = Point> + '_ {
    board.string_stones(s).flat_map(move |stone| {
        board
            .neighbors(stone)
            .into_iter()
            .filter(move |&n| board.color_at(n) == Some(other) && board.in_atari(n))
    })
}

/// The points where `c` legally takes an opponent string in atari touching `c`'s string on
/// `s` (as [`touching_ataris`] meets them, so a point may come more than once).
pub fn captures_around(board: &Board, s: Point, c: Color) -> impl Iterator<Item = Point> + '_ {
    touching_ataris(board, s, c.opponent())
        .filter_map(|n| board.atari_liberty(n))
        .filter(move |&lib| board.legality(lib, c).is_ok())
}

/// The stones of `c`'s strings in atari that `c`'s stone on `p` saves by capturing the
/// strings in atari next to it (counting the first four such strings).
pub fn stones_saved_by_capture(board: &Board, p: Point, c: Color) -> usize {
    let mut captured = [p; 4];
    let mut n_captured = 0;
    let mut saved = [p; 4];
    let mut n_saved = 0;
    let mut stones = 0;
    for n in board.neighbors(p) {
        if board.color_at(n) != Some(c.opponent()) || !board.in_atari(n) {
            continue;
        }
        let head = board.string_head(n);
        if captured[..n_captured].contains(&head) {
            continue;
        }
        captured[n_captured] = head;
        n_captured += 1;
        for own in touching_ataris(board, head, c) {
            let own_head = board.string_head(own);
            if n_saved < saved.len() && !saved[..n_saved].contains(&own_head) {
                saved[n_saved] = own_head;
                n_saved += 1;
                stones += board.string_size(own);
            }
        }
    }
    stones
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::tactics::tests::board_from_rows;

    /// White C5 is in atari (its liberty C4), and so is Black D5-E5 next to it (E4).
    const SURROUNDED_PAIR: [&str; 9] = [
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . X . . . . . .",
        ". . X O O . . . .",
        ". X O X X O . . .",
        ". . . O . O . . .",
        ". . . . O . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
    ];

    #[test]
    fn the_strings_in_atari_around_a_string() {
        let b = board_from_rows(&SURROUNDED_PAIR);
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let touching: Vec<Point> = touching_ataris(&b, pt("D5"), Color::White).collect();
        assert_eq!(touching, [pt("C5")]);
        // White D6-E6 touches Black D5-E5 (in atari) twice, Black C6-C7 (not) once; White E3
        // touches no black stone.
        let mut touching: Vec<Point> = touching_ataris(&b, pt("D6"), Color::Black).collect();
        touching.sort_by_key(|p| p.index());
        assert_eq!(touching, [pt("D5"), pt("E5")]);
        assert_eq!(touching_ataris(&b, pt("E3"), Color::Black).count(), 0);
        // Black takes C5 at C4 from D5-E5; White takes D5-E5 at E4 from D6-E6, twice.
        assert_eq!(
            captures_around(&b, pt("D5"), Color::Black).collect::<Vec<_>>(),
            [pt("C4")]
        );
        let captures: Vec<Point> = captures_around(&b, pt("D6"), Color::White).collect();
        assert_eq!(captures, [pt("E4"), pt("E4")]);
    }

    #[test]
    fn a_capture_saves_the_strings_in_atari_around_the_captured_one() {
        // In SURROUNDED_PAIR Black C4 takes C5 and saves D5-E5; White E4 takes D5-E5 and
        // saves C5; Black F6 takes nothing.
        let b = board_from_rows(&SURROUNDED_PAIR);
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        assert_eq!(stones_saved_by_capture(&b, pt("C4"), Color::Black), 2);
        assert_eq!(stones_saved_by_capture(&b, pt("E4"), Color::White), 1);
        assert_eq!(stones_saved_by_capture(&b, pt("F6"), Color::Black), 0);
    }
}
