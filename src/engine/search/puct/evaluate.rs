//! How the net search values a leaf: the net's win/loss, score and ownership (those its cache
//! lacks in one batch), the moves the rules allow with the net's priors, the utility that
//! shapes the value with the score, and the count of a game two passes ended.

use super::descent::Leaf;
use super::tree::Value;
use crate::knowledge::net::inputs::{InputOptions, NetPosition};
use crate::knowledge::net::{DEFAULT_OPTIMISM, Features, Net, NetOutput};
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::Game;
use crate::rules::game::score::lead_as_it_stands;

/// KataGo's `staticScoreUtilityFactor`, with its scale 2.
const STATIC_SCORE_FACTOR: f64 = 0.1;
const STATIC_SCORE_SCALE: f64 = 2.0;
/// KataGo's `dynamicScoreUtilityFactor` and `dynamicScoreCenterScale`.
const DYNAMIC_SCORE_FACTOR: f64 = 0.3;
const DYNAMIC_SCORE_SCALE: f64 = 0.75;
/// KataGo's `dynamicScoreCenterZeroWeight` in its GTP engine: the dynamic centre lies this
/// share of the way from the root's expected score to 0.
const DYNAMIC_CENTER_ZERO_WEIGHT: f64 = 0.2;
/// The score's spread is summed over this many deviations each side of its mean, in tenths
/// of a deviation, as KataGo's table of expected score values is.
const SPREAD_DEVIATIONS: i32 = 5;
const STEPS_PER_DEVIATION: i32 = 10;

/// A leaf's evaluation: its value, and for a position the net saw, the moves it opens with
/// their priors and the net's ownership.
pub(super) struct Evaluation {
    pub(super) value: Value,
    pub(super) children: Vec<(Move, f32)>,
    pub(super) ownership: Option<Vec<f32>>,
}

/// The net, and what one search's utility is centred on.
pub(super) struct Evaluator<'a> {
    net: &'a Net,
    /// The dynamic score utility's centre (White's view).
    pub(super) center: f64,
    /// The playout doubling advantage the net is told White has (negative: Black).
    pub(super) doubling_for_white: f64,
    sqrt_area: f64,
    /// Each point of the score's spread: its distance from the mean in deviations, and its
    /// normal weight, the weights summing to 1.
    spread: Vec<(f64, f64)>,
}

impl Evaluator<'_> {
    /// An evaluator with `net` for a board of `size`, centred on 0.
    pub(super) fn new(net: &Net, size: usize) -> Evaluator<'_> {
        Evaluator {
            net,
            center: 0.0,
            doubling_for_white: 0.0,
            sqrt_area: ((size * size) as f64).sqrt(),
            spread: normal_spread(),
        }
    }

    /// Centres the dynamic score utility for a root whose expected score (White's view) is
    /// `score`, as KataGo does: a fifth of the way to 0, and no farther from `score` than the
    /// dynamic scale.
    pub(super) fn center_on(&mut self, score: f64) {
        let cap = DYNAMIC_SCORE_SCALE * self.sqrt_area;
        // max and min, not clamp, which panics on a NaN from a broken net.
        self.center = (score * (1.0 - DYNAMIC_CENTER_ZERO_WEIGHT))
            .max(score - cap)
            .min(score + cap);
    }

    /// A leaf's utility from White's view (the formula in [`super`]'s comment).
    pub(super) fn utility(&self, value: Value) -> f64 {
        let stdev = (value.score_sq - value.score * value.score).max(0.0).sqrt();
        value.winloss
            + STATIC_SCORE_FACTOR
                * self.expected_score_value(value.score, stdev, 0.0, STATIC_SCORE_SCALE)
            + DYNAMIC_SCORE_FACTOR
                * self.expected_score_value(value.score, stdev, self.center, DYNAMIC_SCORE_SCALE)
    }

    /// The mean of `2/pi * atan((s - center) / (scale * sqrt(area)))` over a normal spread of
    /// the score `s` of `mean` and `stdev`: KataGo's `expectedWhiteScoreValue`.
    fn expected_score_value(&self, mean: f64, stdev: f64, center: f64, scale: f64) -> f64 {
        let width = scale * self.sqrt_area;
        let value = |s: f64| std::f64::consts::FRAC_2_PI * ((s - center) / width).atan();
        if stdev == 0.0 {
            return value(mean);
        }
        self.spread
            .iter()
            .map(|&(z, weight)| weight * value(mean + z * stdev))
            .sum()
    }

    /// The leaves evaluated, each under its symmetry: a game that two passes ended counted by
    /// area, the others by the net (those its cache lacks in one batch), their children the
    /// moves the rules allow.
    pub(super) fn evaluate(&self, leaves: &[Leaf], symmetries: &[usize]) -> Vec<Evaluation> {
        let net_options = self.net.input_options();
        let features: Vec<Option<Features>> = leaves
            .iter()
            .map(|leaf| self.features(leaf, net_options))
            .collect();
        let inputs: Vec<(&Features, usize)> = features
            .iter()
            .zip(symmetries)
            .filter_map(|(f, &symmetry)| f.as_ref().map(|f| (f, symmetry)))
            .collect();
        let mut outputs = self
            .net
            .evaluate_cached_batch(&inputs, DEFAULT_OPTIMISM)
            .into_iter();
        leaves
            .iter()
            .zip(&features)
            .map(|(leaf, f)| match f.as_ref().and_then(|_| outputs.next()) {
                Some(out) => evaluation_of(&out, leaf),
                None => {
                    let game = &leaf.position.game;
                    let score = -lead_as_it_stands(game);
                    Evaluation {
                        value: Value {
                            winloss: score.signum(),
                            score,
                            score_sq: final_score_sq(score),
                            lead: score,
                        },
                        children: Vec::new(),
                        ownership: None,
                    }
                }
            })
            .collect()
    }

    /// `leaf` evaluated under each of `symmetries` and the answers averaged (KataGo's
    /// `rootNumSymmetriesToSample`: priors free of one symmetry's noise), not through the
    /// cache, which keeps one symmetry's answer a position; `None` for a game over.
    pub(super) fn evaluate_averaged(
        &self,
        leaf: &Leaf,
        symmetries: &[usize],
    ) -> Option<Evaluation> {
        let features = self.features(leaf, self.net.input_options())?;
        let inputs: Vec<(&Features, usize)> = symmetries.iter().map(|&s| (&features, s)).collect();
        let out = NetOutput::mean(&self.net.evaluate_batch(&inputs, DEFAULT_OPTIMISM))?;
        Some(evaluation_of(&out, leaf))
    }

    /// The net's inputs for `leaf` (the playout doubling told from its mover's side), none
    /// for a game over.
    fn features(&self, leaf: &Leaf, net_options: InputOptions) -> Option<Features> {
        let options = InputOptions {
            playout_doubling_advantage: match leaf.to_move {
                Color::White => self.doubling_for_white,
                Color::Black => -self.doubling_for_white,
            },
            ..net_options
        };
        (!leaf.position.is_over()).then(|| leaf.position.net.features(leaf.to_move, &options))
    }
}

/// The points of a normal spread, [`SPREAD_DEVIATIONS`] each side in steps of a tenth: each
/// one's distance from the mean in deviations and its weight, the weights summing to 1.
fn normal_spread() -> Vec<(f64, f64)> {
    let reach = SPREAD_DEVIATIONS * STEPS_PER_DEVIATION;
    let points: Vec<(f64, f64)> = (-reach..=reach)
        .map(|i| {
            let z = f64::from(i) / f64::from(STEPS_PER_DEVIATION);
            (z, (-0.5 * z * z).exp())
        })
        .collect();
    let total: f64 = points.iter().map(|p| p.1).sum();
    points.into_iter().map(|(z, w)| (z, w / total)).collect()
}

/// The expected square of a finished game's `score`, as KataGo grids it: a whole-point score
/// is a draw, half a win and half a loss, so half a point either side of it.
fn final_score_sq(score: f64) -> f64 {
    if score.fract() == 0.0 {
        score * score + 0.25
    } else {
        score * score
    }
}

/// The evaluation of `leaf` from the net's answer `out`.
fn evaluation_of(out: &NetOutput, leaf: &Leaf) -> Evaluation {
    Evaluation {
        value: Value {
            winloss: f64::from(out.white_win - out.white_loss),
            score: f64::from(out.white_score_selfplay),
            score_sq: f64::from(out.white_score_selfplay_sq),
            lead: f64::from(out.white_lead),
        },
        children: legal_priors(out, &leaf.position.game, leaf.to_move),
        ownership: Some(out.white_ownership.clone()),
    }
}

/// The point at index `i` of the net's planes (KataGo's `y * size + x`, `y` the row from the
/// top), on a board of `size`.
pub(super) fn net_point(size: usize, i: usize) -> Point {
    Point::new(size, i % size, size - 1 - i / size)
}

/// The net's policy for `color` to play in `game` (symmetry 0): each legal move and the pass
/// with its prior, the priors summing to 1.
pub fn net_priors(net: &Net, game: &Game, color: Color) -> Vec<(Move, f32)> {
    net_view(net, game, color).0
}

/// `net`'s whole answer for `color` to move in `game`: the priors of [`net_priors`] and the
/// output they came from (its win rates and score lead).
pub fn net_view(net: &Net, game: &Game, color: Color) -> (Vec<(Move, f32)>, NetOutput) {
    let features = NetPosition::from_game(game).features(color, &net.input_options());
    let out = net.evaluate(&features, 0, DEFAULT_OPTIMISM);
    (legal_priors(&out, game, color), out)
}

/// The moves the rules allow `to_move` in `game` (the pass last), each with the prior `out`
/// gives it, normalised to sum to 1: a node's edges, so that the move played is chosen from
/// the root's without another check (a descent's `Game::play` checks each move again, as a
/// `Game` plays no other way).
fn legal_priors(out: &NetOutput, game: &Game, to_move: Color) -> Vec<(Move, f32)> {
    let size = game.size();
    let mut children: Vec<(Move, f32)> = Vec::new();
    for (i, &p) in out.policy.iter().enumerate().take(size * size) {
        let mv = Move::Play(net_point(size, i));
        if p.is_finite() && game.legality(to_move, mv).is_ok() {
            children.push((mv, p.max(0.0)));
        }
    }
    children.push((Move::Pass, out.policy_pass.max(0.0)));
    let total: f32 = children.iter().map(|c| c.1).sum();
    if total > 0.0 {
        for c in &mut children {
            c.1 /= total;
        }
    }
    children
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::net::model::{Model, synthetic};

    fn net() -> Net {
        let model = synthetic::net(15, true, synthetic::seed(15));
        Net::from_model(Model::parse(&model, true).expect("a synthetic net"))
    }

    fn value(score: f64, stdev: f64) -> Value {
        Value {
            winloss: 0.0,
            score,
            score_sq: score * score + stdev * stdev,
            lead: score,
        }
    }

    #[test]
    fn the_score_terms_are_averaged_over_the_scores_spread() {
        let net = net();
        let evaluator = Evaluator::new(&net, 9);
        let (mean, stdev, width) = (12.0, 8.0, STATIC_SCORE_SCALE * 9.0);
        // The normal integral of the score value, in steps of a thousandth of a deviation.
        let steps = 10_000;
        let (mut sum, mut weights) = (0.0, 0.0);
        for i in -steps..=steps {
            let z = 5.0 * f64::from(i) / f64::from(steps);
            let w = (-0.5 * z * z).exp();
            sum += w * std::f64::consts::FRAC_2_PI * ((mean + z * stdev) / width).atan();
            weights += w;
        }
        let averaged = evaluator.expected_score_value(mean, stdev, 0.0, STATIC_SCORE_SCALE);
        assert!((averaged - sum / weights).abs() < 1e-4, "{averaged}");
        let at_mean = evaluator.expected_score_value(mean, 0.0, 0.0, STATIC_SCORE_SCALE);
        assert!(
            averaged < at_mean - 0.01,
            "a winning score's spread costs utility"
        );
        assert!(evaluator.utility(value(mean, stdev)) < evaluator.utility(value(mean, 0.0)));
    }

    #[test]
    fn the_dynamic_centre_lies_a_fifth_of_the_way_to_zero_within_its_scale() {
        let net = net();
        let mut evaluator = Evaluator::new(&net, 9);
        evaluator.center_on(10.0);
        assert!((evaluator.center - 8.0).abs() < 1e-12);
        evaluator.center_on(-5.0);
        assert!((evaluator.center + 4.0).abs() < 1e-12);
        // 0.75 * 9 points at most from the score.
        evaluator.center_on(50.0);
        assert!((evaluator.center - 43.25).abs() < 1e-12);
    }

    #[test]
    fn a_finished_games_whole_point_score_spreads_half_a_point_as_a_draw_does() {
        assert_eq!(final_score_sq(3.0), 9.25);
        assert_eq!(final_score_sq(-2.5), 6.25);
    }
}
