//! Captures around a string: the strings of the other colour touching it that are in atari,
//! which its owner can take instead of answering an atari.

use crate::board::{Board, Color, Point};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tactics::tests::board_from_rows;

    #[test]
    fn the_strings_in_atari_around_a_string() {
        // White C5 is in atari (its liberty C4) and touches Black D5-E5.
        let b = board_from_rows(&[
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . X . . . . . .",
            ". . X O O . . . .",
            ". X O X X O . . .",
            ". . . O . O . . .",
            ". . . . O . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
        ]);
        let pt = |v: &str| Point::parse(v, 9).unwrap();
        let touching: Vec<Point> = touching_ataris(&b, pt("D5"), Color::White).collect();
        assert_eq!(touching, [pt("C5")]);
        // White D6-E6 touches Black D5-E5 (in atari) twice, Black C6-C7 (not) once; White E3
        // touches no black stone.
        let mut touching: Vec<Point> = touching_ataris(&b, pt("D6"), Color::Black).collect();
        touching.sort_by_key(|p| p.index());
        assert_eq!(touching, [pt("D5"), pt("E5")]);
        assert_eq!(touching_ataris(&b, pt("E3"), Color::Black).count(), 0);
    }
}
