//! The easy level: a uniformly random legal move that neither fills its own eye nor commits
//! suicide; a pass when no such move is left.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::{MovePicker, sensible_moves};
use crate::rules::board::{Color, Move};
use crate::rules::game::Game;

/// Plays uniformly at random among the sensible moves.
pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    /// A player seeded with `seed`, or from the operating system's entropy when `None`.
    pub fn new(seed: Option<u64>) -> RandomPlayer {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed.unwrap_or_else(rand::random)),
        }
    }
}

impl MovePicker for RandomPlayer {
    fn pick(&mut self, game: &Game, color: Color) -> Move {
        let board = game.board();
        let moves: Vec<_> = sensible_moves(game, color)
            .into_iter()
            .filter(|&p| !board.is_suicide(p, color))
            .collect();
        if moves.is_empty() {
            Move::Pass
        } else {
            Move::Play(moves[self.rng.random_range(0..moves.len())])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::plain_move;
    use crate::rules::game::Rules;

    #[test]
    fn plays_legal_moves_never_into_its_own_eyes_and_passes_at_the_end() {
        for rules in [Rules::chinese(7.0), Rules::tromp_taylor(7.0)] {
            let mut player = RandomPlayer::new(Some(3));
            let mut game = Game::new(7, rules);
            while game.trailing_passes() < 2 {
                let color = game.to_move();
                let mv = plain_move(&mut player, &game, color).as_move().unwrap();
                if let Move::Play(p) = mv {
                    assert!(!game.board().is_eye(p, color), "filled its own eye");
                    assert!(!game.board().is_suicide(p, color), "suicide");
                }
                game.play(color, mv).expect("a legal move");
                assert!(game.moves().len() < 1000, "the game must end");
            }
            // At the end, every empty point is an eye or unplayable for both.
            for c in Color::ALL {
                assert!(
                    sensible_moves(&game, c)
                        .iter()
                        .all(|&p| game.board().is_suicide(p, c))
                );
            }
        }
    }

    #[test]
    fn choices_spread_over_the_board() {
        let game = Game::new(9, Rules::default());
        let mut player = RandomPlayer::new(Some(11));
        let mut seen = std::collections::HashSet::new();
        for _ in 0..400 {
            seen.insert(player.pick(&game, Color::Black));
        }
        // 400 uniform draws from 81 points leave almost none unseen.
        assert!(seen.len() > 70, "{} distinct moves", seen.len());
        assert!(!seen.contains(&Move::Pass));
    }
}
