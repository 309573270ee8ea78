//! The rank levels' player: one look at the position and no search, as a person of the rank
//! plays. The net's policy (else the learned patterns' priors) is taken as a model of the
//! moves people play; of the legal moves (own eyes left out) a player weighs a number drawn at
//! random that grows with its rank ([`Rank::moves_weighed`]) and plays the one the policy
//! likes best. An obvious move ([`Rank::obvious_move`], [`Rank::obvious_pair`]) and a pass the
//! policy ranks among its top five (the game is over) are played as they are. It resigns only
//! late in a game lost by a wide margin ([`Rank::resigns_behind`]), and only with a net, which
//! counts the margin.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{SeedableRng, seq::index};

use super::{Answer, Budget, Player, PlayerError, Progress, sensible_moves};
use crate::engine::rank::{RESIGN_WIN_RATE, Rank};
use crate::engine::search::move_priors;
use crate::engine::search::puct::net_view;
use crate::knowledge::net::Net;
use crate::rules::board::{Color, Move};
use crate::rules::game::Game;

/// A player of one rank.
pub struct RankPlayer {
    rank: Rank,
    /// The policy it plays from; without one, the learned patterns' priors.
    net: Option<Arc<Net>>,
    rng: SmallRng,
}

impl RankPlayer {
    /// A player of `rank` playing from `net`'s policy (the patterns' without one), seeded with
    /// `seed` (from the operating system's entropy when `None`).
    pub fn new(rank: Rank, net: Option<Arc<Net>>, seed: Option<u64>) -> RankPlayer {
        RankPlayer {
            rank,
            net,
            rng: SmallRng::seed_from_u64(seed.unwrap_or_else(rand::random)),
        }
    }

    /// The move among `priors` (every legal move of `color` in `game` and the pass, with
    /// its prior) that a player of this rank plays.
    fn choose(&mut self, game: &Game, color: Color, priors: &[(Move, f32)]) -> Move {
        let mut ranked: Vec<(Move, f32)> = priors.to_vec();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let Some(&(top, top_prior)) = ranked.first() else {
            return Move::Pass;
        };
        if ranked.iter().take(5).any(|&(mv, _)| mv == Move::Pass) {
            return top;
        }
        let sensible = sensible_moves(game, color);
        let open: Vec<(Move, f32)> = ranked
            .iter()
            .copied()
            .filter(|&(mv, prior)| {
                prior > 0.0 && matches!(mv, Move::Play(p) if sensible.contains(&p))
            })
            .collect();
        if open.is_empty() {
            return Move::Pass;
        }
        let points = game.size() * game.size();
        let second = ranked.get(1).map_or(0.0, |r| r.1);
        if top_prior > Rank::obvious_move(points, open.len())
            || top_prior + second > self.rank.obvious_pair()
        {
            return top;
        }
        let weighed = self.rank.moves_weighed(points, open.len());
        // `open` is sorted, so the best of the drawn moves is the one drawn first in it.
        let best = index::sample(&mut self.rng, open.len(), weighed)
            .into_iter()
            .min()
            .map_or(top, |i| open[i].0);
        let pass_prior = priors
            .iter()
            .find(|(mv, _)| *mv == Move::Pass)
            .map_or(0.0, |p| p.1);
        let best_prior = open.iter().find(|o| o.0 == best).map_or(0.0, |o| o.1);
        if best_prior < pass_prior { top } else { best }
    }
}

impl Player for RankPlayer {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        _progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError> {
        let priors = match &self.net {
            Some(net) => {
                let (priors, out) = net_view(net, game, color);
                let (win, lead) = match color {
                    Color::White => (out.white_win, out.white_lead),
                    Color::Black => (out.white_loss, -out.white_lead),
                };
                let points = game.size() * game.size();
                if budget.may_resign
                    && game.moves().len() >= Rank::may_resign_from(points)
                    && win < RESIGN_WIN_RATE
                    && lead < -self.rank.resigns_behind(points)
                {
                    return Ok(Answer::Resign);
                }
                priors
            }
            None => move_priors(game, color),
        };
        Ok(Answer::Move(self.choose(game, color, &priors)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::player::plain_move;
    use crate::rules::board::Point;
    use crate::rules::game::Rules;

    fn player(rank: &str, seed: u64) -> RankPlayer {
        RankPlayer::new(rank.parse().expect("a rank"), None, Some(seed))
    }

    /// Priors over the empty 9x9 board: the pass `pass`, the points in order of `favourites`
    /// halving from `top`, the rest a sliver each.
    fn priors(game: &Game, favourites: &[Point], top: f32, pass: f32) -> Vec<(Move, f32)> {
        let mut priors: Vec<(Move, f32)> = game
            .board()
            .empty_points()
            .map(|p| {
                let at = favourites.iter().position(|&f| f == p);
                (
                    Move::Play(p),
                    at.map_or(0.001, |i| top / 2f32.powi(i as i32)),
                )
            })
            .collect();
        priors.push((Move::Pass, pass));
        priors
    }

    #[test]
    fn a_stronger_rank_plays_the_favourite_more_often() {
        let game = Game::new(9, Rules::default());
        let favourites: Vec<Point> = game.board().empty_points().take(6).collect();
        let priors = priors(&game, &favourites, 0.3, 0.0);
        let favourite_share = |rank: &str| {
            let mut p = player(rank, 7);
            (0..400)
                .filter(|_| p.choose(&game, Color::Black, &priors) == Move::Play(favourites[0]))
                .count()
        };
        let (weak, strong) = (favourite_share("25k"), favourite_share("3d"));
        assert!(strong > weak + 100, "25k {weak}, 3d {strong} of 400");
    }

    #[test]
    fn obvious_moves_and_a_pass_among_the_top_five_are_played_as_they_are() {
        let game = Game::new(9, Rules::default());
        let favourites: Vec<Point> = game.board().empty_points().skip(10).take(3).collect();
        let mut weak = player("30k", 1);
        let obvious = priors(&game, &favourites, 0.9, 0.0);
        assert_eq!(
            weak.choose(&game, Color::Black, &obvious),
            Move::Play(favourites[0])
        );
        let over = priors(&game, &favourites, 0.2, 0.05);
        assert_eq!(
            weak.choose(&game, Color::Black, &over),
            Move::Play(favourites[0])
        );
        let pass_first = priors(&game, &favourites, 0.2, 0.5);
        assert_eq!(weak.choose(&game, Color::Black, &pass_first), Move::Pass);
    }

    #[test]
    fn plays_a_whole_game_without_filling_its_own_eyes() {
        let mut game = Game::new(9, Rules::default());
        let mut players = [player("20k", 3), player("1d", 4)];
        for turn in 0..300 {
            let color = game.to_move();
            let Answer::Move(mv) = plain_move(&mut players[turn % 2], &game, color) else {
                panic!("no net, no resignation");
            };
            if let Move::Play(p) = mv {
                assert!(!game.board().is_eye(p, color), "{turn}: {mv:?}");
            }
            game.play(color, mv).expect("a legal move");
            if game.trailing_passes() >= 2 {
                return;
            }
        }
        panic!("no end after 300 moves");
    }
}
