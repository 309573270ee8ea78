//! What both search trees answer about their nodes, and what is read from them the same way:
//! the line a move leads into (the principal variation) and, for tree reuse, the game a tree's
//! root stands for and the node that the moves played since lead to.

use crate::rules::board::{Color, Move};
use crate::rules::game::{Game, Rules};

/// The longest principal variation reported.
const MAX_PV: usize = 16;

/// A search tree as its searches' shared rules read it.
pub trait SearchTree {
    /// A node's handle.
    type Node: Copy;
    /// Real visits a node needs to be part of a principal variation.
    const PV_MIN_VISITS: u32;

    /// The root.
    fn root(&self) -> Self::Node;
    /// The move that leads to `node`.
    fn move_into(&self, node: Self::Node) -> Move;
    /// The visits through `node`.
    fn visits_of(&self, node: Self::Node) -> u32;
    /// The win rate of the player who played the move into `node`, over its visits.
    fn win_rate_of(&self, node: Self::Node) -> f64;
    /// The children of `node` that have a node of their own.
    fn children_of(&self, node: Self::Node) -> impl Iterator<Item = Self::Node> + '_;

    /// The line from `node` down its most visited children (of at least
    /// [`SearchTree::PV_MIN_VISITS`]), at most [`MAX_PV`] moves.
    fn principal_variation(&self, node: Self::Node) -> Vec<Move> {
        let mut pv = vec![self.move_into(node)];
        let mut at = node;
        while pv.len() < MAX_PV {
            let Some(next) = self
                .children_of(at)
                .filter(|&c| self.visits_of(c) >= Self::PV_MIN_VISITS)
                .max_by_key(|&c| self.visits_of(c))
            else {
                break;
            };
            pv.push(self.move_into(next));
            at = next;
        }
        pv
    }

    /// The node that `game`'s moves since `root`'s lead to, when `game` (searched under
    /// `rules`) goes on from the game at the root, with `color` to move there.
    fn node_after(
        &self,
        root: &RootGame,
        game: &Game,
        rules: &Rules,
        color: Color,
    ) -> Option<Self::Node> {
        let mut to_move = root.to_move;
        let mut at = self.root();
        for &(mover, mv) in root.moves_since(game, rules)? {
            if mover != to_move {
                return None;
            }
            at = self.children_of(at).find(|&c| self.move_into(c) == mv)?;
            to_move = to_move.opponent();
        }
        (to_move == color).then_some(at)
    }
}

/// The game a search tree's root stands for: its size, first position (its hash), the rules
/// searched under, the moves up to the root and the player to move there.
#[derive(Clone, Debug, PartialEq)]
pub struct RootGame {
    size: usize,
    initial: u64,
    /// The rules searched under (a dynamic komi included).
    pub rules: Rules,
    moves: Vec<(Color, Move)>,
    to_move: Color,
}

impl RootGame {
    /// `game`'s position, searched under `rules` with `to_move` to play.
    pub fn of(game: &Game, rules: Rules, to_move: Color) -> RootGame {
        RootGame {
            size: game.size(),
            initial: game.initial_board().hash(),
            rules,
            moves: game.moves().to_vec(),
            to_move,
        }
    }

    /// The moves played in `game` since, when `game` is this game gone on, searched under the
    /// same `rules`. The size counts: the empty boards of every size hash alike.
    fn moves_since<'g>(&self, game: &'g Game, rules: &Rules) -> Option<&'g [(Color, Move)]> {
        let moves = game.moves();
        (self.size == game.size()
            && self.initial == game.initial_board().hash()
            && self.rules == *rules
            && moves.starts_with(&self.moves))
        .then(|| &moves[self.moves.len()..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Point;

    #[test]
    fn a_root_game_goes_on_only_in_the_same_game() {
        let mut game = Game::new(9, Rules::chinese(7.0));
        let root = RootGame::of(&game, *game.rules(), Color::Black);
        let stone = Move::Play(Point::new(9, 4, 4));
        game.play(Color::Black, stone).unwrap();
        let rules = *game.rules();
        assert_eq!(
            root.moves_since(&game, &rules),
            Some(&[(Color::Black, stone)][..])
        );
        assert_eq!(root.moves_since(&game, &Rules::chinese(6.5)), None);
        // An empty board of another size is another game, though it hashes the same.
        let other = Game::new(13, Rules::chinese(7.0));
        assert_eq!(other.initial_board().hash(), game.initial_board().hash());
        assert_eq!(root.moves_since(&other, &rules), None);
    }
}
