//! KataGo's root symmetry pruning (`rootSymmetryPruning`, on in its GTP engine): on a board
//! that a symmetry of the square maps onto itself, a move's search looks at one move of each
//! set of moves the symmetry makes equivalent, and spends the visits the copies would take.

use super::evaluate::net_point;
use crate::knowledge::net::forward::symmetry::transform;
use crate::rules::board::{Color, Move};
use crate::rules::game::{Game, IllegalMove};

/// The root moves of `game` (`to_move` to play) that copy another under a symmetry of the
/// stones, the copy kept where KataGo keeps it (`markDuplicateMoveLocs`: for Black the
/// rightmost column first, for White the leftmost, each from the top), never a move for
/// which `skipped` holds. None while a ko or superko bans a point, as in KataGo.
pub(super) fn duplicate_moves(
    game: &Game,
    to_move: Color,
    skipped: impl Fn(Move) -> bool,
) -> Vec<Move> {
    let size = game.size();
    let point = |i: usize| net_point(size, i);
    let symmetries = kept_symmetries(game, to_move);
    if symmetries.is_empty() {
        return Vec::new();
    }
    let columns: Vec<usize> = match to_move {
        Color::Black => (0..size).rev().collect(),
        Color::White => (0..size).collect(),
    };
    // `x` the column, `y` the row from the top, as the symmetries number the points.
    let mut duplicate = vec![false; size * size];
    for x in columns {
        for y in 0..size {
            let i = y * size + x;
            if duplicate[i] || skipped(Move::Play(point(i))) {
                continue;
            }
            for &s in &symmetries {
                let image = transform(s, size, i);
                if image != i {
                    duplicate[image] = true;
                }
            }
        }
    }
    (0..size * size)
        .filter(|&i| duplicate[i])
        .map(|i| Move::Play(point(i)))
        .collect()
}

/// The symmetries other than the identity (KataGo's numbering) that map the stones of
/// `game` onto themselves; none while a ko or superko bans a point to `to_move`.
fn kept_symmetries(game: &Game, to_move: Color) -> Vec<usize> {
    let board = game.board();
    let size = board.size();
    let color = |i: usize| board.color_at(net_point(size, i));
    let symmetries: Vec<usize> = (1..8)
        .filter(|&s| (0..size * size).all(|i| color(i) == color(transform(s, size, i))))
        .collect();
    let banned = || {
        board.points().any(|p| {
            matches!(
                game.legality(to_move, Move::Play(p)),
                Err(IllegalMove::Ko | IllegalMove::Superko)
            )
        })
    };
    // The stones are checked first: most boards keep no symmetry, and then no ban matters.
    if symmetries.is_empty() || banned() {
        return Vec::new();
    }
    symmetries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Point;
    use crate::rules::game::Rules;

    fn game_after(size: usize, moves: &[&str]) -> Game {
        let mut game = Game::new(size, Rules::chinese(7.0));
        let mut color = Color::Black;
        for v in moves {
            let p = Point::parse(v, size).expect(v);
            game.play(color, Move::Play(p)).expect(v);
            color = color.opponent();
        }
        game
    }

    fn vertices(moves: &[Move], size: usize) -> Vec<String> {
        moves
            .iter()
            .map(|m| m.point().map_or("pass".into(), |p| p.to_vertex(size)))
            .collect()
    }

    #[test]
    fn an_empty_board_keeps_one_move_of_each_eight() {
        let game = Game::new(9, Rules::chinese(7.0));
        let duplicates = duplicate_moves(&game, Color::Black, |_| false);
        // The centre, four sets of four on the diagonals, four on the middle lines and six
        // sets of eight elsewhere: 15 of 81 points.
        assert_eq!(81 - duplicates.len(), 15);
        let kept = |v: &str| !vertices(&duplicates, 9).contains(&v.to_string());
        // Black keeps the top right's copies, White the top left's.
        assert!(kept("E5") && kept("G7") && kept("J9") && !kept("C3") && !kept("C7"));
        let white = duplicate_moves(&game, Color::White, |_| false);
        let kept = |v: &str| !vertices(&white, 9).contains(&v.to_string());
        assert!(kept("C7") && !kept("G7") && !kept("C3"));
    }

    #[test]
    fn one_stone_off_the_diagonals_breaks_every_symmetry_and_a_diagonal_keeps_one() {
        assert!(duplicate_moves(&game_after(9, &["C4"]), Color::White, |_| false).is_empty());
        let diagonal = duplicate_moves(&game_after(9, &["C3"]), Color::White, |_| false);
        // Mirrored in the diagonal through C3: 9 points on it, 36 pairs off it.
        assert_eq!(diagonal.len(), 36);
        let tengen = duplicate_moves(&game_after(9, &["E5"]), Color::White, |_| false);
        assert_eq!(81 - 1 - tengen.len(), 14);
    }

    #[test]
    fn a_skipped_move_is_never_the_copy_kept() {
        let game = Game::new(9, Rules::chinese(7.0));
        let at = |v: &str| Move::Play(Point::parse(v, 9).unwrap());
        let duplicates = duplicate_moves(&game, Color::Black, |m| m == at("G7"));
        // G3, the next of the four 3-3 points in Black's order, stands for them.
        assert_eq!(81 - duplicates.len(), 15);
        assert!(duplicates.contains(&at("G7")) && !duplicates.contains(&at("G3")));
    }

    #[test]
    fn a_ko_ban_leaves_every_move_on_symmetric_stones() {
        // Two kos, each the other turned half round the centre. Black takes one, White plays
        // the centre, Black takes the other: the stones are symmetric again, and White may
        // not retake at H7 at once, but may at B3.
        let mut game = Game::new(9, Rules::chinese(7.0));
        let mut stones = Vec::new();
        for (v, color) in [
            ("B3", Color::White),
            ("A3", Color::Black),
            ("B2", Color::Black),
            ("B4", Color::Black),
            ("D3", Color::White),
            ("C2", Color::White),
            ("C4", Color::White),
        ] {
            let (col, row) = Point::parse(v, 9).unwrap().coords(9);
            stones.push((Point::new(9, col, row), Some(color)));
            stones.push((Point::new(9, 8 - col, 8 - row), Some(color)));
        }
        game.setup(&stones).unwrap();
        for (color, v) in [
            (Color::Black, "C3"),
            (Color::White, "E5"),
            (Color::Black, "G7"),
        ] {
            game.play(color, Move::Play(Point::parse(v, 9).unwrap()))
                .unwrap();
        }
        assert_eq!(kept_symmetries(&game, Color::Black), vec![3]);
        assert!(kept_symmetries(&game, Color::White).is_empty());
        assert!(duplicate_moves(&game, Color::White, |_| false).is_empty());
    }
}
