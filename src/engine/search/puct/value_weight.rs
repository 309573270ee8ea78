//! KataGo's weighting of a node's children when their values make the node's own
//! (`valueWeightExponent`, `useNoisePruning`). Without it a node's utility is the mean of every
//! visit through it, so a poor move that exploration visited drags its parent down. With it,
//! after each visit, the node's utility is recomputed as its own evaluation (weighing 1) and
//! its visited children's means, each weighing its visits, then:
//! - noise pruning: taken in order of policy, a child that has more than twice its policy's
//!   share of the visits so far yet looks worse than the children before it loses part of the
//!   excess, the more the worse it looks;
//! - value weighting: each child's weight is scaled by `p^exponent`, `p` how likely a
//!   Student's t (three degrees of freedom) puts it above the children's weighted mean, with
//!   a spread that narrows as its weight grows.
//!
//! The children's weights are then scaled back to their total after pruning.

/// KataGo's `noisePruneUtilityScale`: the utility gap at which a child loses 63% of its
/// excess weight.
const NOISE_PRUNE_UTILITY_SCALE: f64 = 0.15;

/// How a node weighs its children's values; the default weighs each by its visits.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(super) struct ValueWeighting {
    /// KataGo's `valueWeightExponent` (0: no value weighting).
    pub(super) exponent: f64,
    /// KataGo's `useNoisePruning`.
    pub(super) noise_pruning: bool,
}

/// A visited child as its parent weighs it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct ChildValue {
    /// Its mean utility for the player choosing it.
    pub(super) utility: f64,
    /// Its mean squared utility (for the parent's spread of utilities).
    pub(super) mean_sq: f64,
    /// Its prior.
    pub(super) policy: f32,
    /// Its weight: its visits until [`ValueWeighting::weigh`] changes it.
    pub(super) weight: f64,
}

impl ValueWeighting {
    /// Whether a node's utility is recomputed from its children rather than summed.
    pub(super) fn is_on(self) -> bool {
        self.exponent > 0.0 || self.noise_pruning
    }

    /// Reweighs `children` (ordered by policy, highest first) in place; returns their total
    /// weight.
    pub(super) fn weigh(self, children: &mut [ChildValue]) -> f64 {
        let mut total: f64 = children.iter().map(|c| c.weight).sum();
        if self.noise_pruning {
            total = prune_noise(children, total);
        }
        if self.exponent > 0.0 {
            weigh_by_value(children, total, self.exponent);
        }
        total
    }
}

/// Noise pruning (KataGo's `pruneNoiseWeight`); returns the total weight left.
fn prune_noise(children: &mut [ChildValue], total: f64) -> f64 {
    if children.len() <= 1 || total <= 1e-5 {
        return total;
    }
    let (mut utility_sum, mut weight_sum, mut policy_sum) = (0.0, 0.0, 0.0);
    for child in children.iter_mut() {
        let policy = f64::from(child.policy).max(1e-30);
        if weight_sum > 0.0 {
            let gap = utility_sum / weight_sum - child.utility;
            let lenient_share = 2.0 * weight_sum * policy / policy_sum;
            if gap > 0.0 && child.weight > lenient_share {
                let excess = child.weight - lenient_share;
                child.weight -= excess * (1.0 - (-gap / NOISE_PRUNE_UTILITY_SCALE).exp());
            }
        }
        utility_sum += child.utility * child.weight;
        weight_sum += child.weight;
        policy_sum += policy;
    }
    weight_sum
}

/// Value weighting (KataGo's `downweightBadChildrenAndNormalizeWeight`), the weights scaled
/// back to `total`.
fn weigh_by_value(children: &mut [ChildValue], total: f64, exponent: f64) {
    if total <= 0.0 {
        return;
    }
    let mean = children.iter().map(|c| c.utility * c.weight).sum::<f64>() / total;
    let mut unscaled = 0.0;
    for child in children.iter_mut() {
        let precision = 1.5 * child.weight.sqrt();
        let stdev = (1e-8 + 1.0 / precision).sqrt();
        let above = student_t3_cdf((child.utility - mean) / stdev) + 1e-4;
        child.weight *= above.powf(exponent);
        unscaled += child.weight;
    }
    for child in children.iter_mut() {
        child.weight *= total / unscaled;
    }
}

/// The cumulative distribution of Student's t with three degrees of freedom.
fn student_t3_cdf(t: f64) -> f64 {
    let x = t / 3f64.sqrt();
    0.5 + (x / (1.0 + x * x) + x.atan()) / std::f64::consts::PI
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(utility: f64, policy: f32, visits: f64) -> ChildValue {
        ChildValue {
            utility,
            mean_sq: utility * utility,
            policy,
            weight: visits,
        }
    }

    const VALUE_WEIGHTING: ValueWeighting = ValueWeighting {
        exponent: 0.25,
        noise_pruning: false,
    };
    const NOISE_PRUNING: ValueWeighting = ValueWeighting {
        exponent: 0.0,
        noise_pruning: true,
    };

    #[test]
    fn the_t_distribution_with_three_degrees_matches_its_table() {
        assert!((student_t3_cdf(0.0) - 0.5).abs() < 1e-12);
        // Tables: t = 2.353 is the 95th percentile, 4.541 the 99th.
        assert!((student_t3_cdf(2.353) - 0.95).abs() < 1e-4);
        assert!((student_t3_cdf(-4.541) - 0.01).abs() < 1e-4);
    }

    #[test]
    fn by_default_each_child_weighs_its_visits() {
        let mut children = [child(0.2, 0.6, 30.0), child(-0.4, 0.4, 10.0)];
        let total = ValueWeighting::default().weigh(&mut children);
        assert_eq!(total, 40.0);
        assert_eq!(children[1].weight, 10.0);
        assert!(!ValueWeighting::default().is_on());
    }

    #[test]
    fn value_weighting_moves_weight_from_worse_children_and_keeps_the_total() {
        let mut children = [child(0.2, 0.6, 30.0), child(-0.4, 0.4, 10.0)];
        let total = VALUE_WEIGHTING.weigh(&mut children);
        assert_eq!(total, 40.0);
        assert!((children[0].weight + children[1].weight - 40.0).abs() < 1e-9);
        assert!(children[1].weight < 9.5, "{children:?}");
        assert!(children[0].weight > 30.5, "{children:?}");
    }

    #[test]
    fn noise_pruning_cuts_a_worse_childs_visits_beyond_twice_its_policy_share() {
        // The second child has 20 visits where its policy's share of the first's 20 is 2 (4
        // leniently), and looks 0.3 worse: it loses (20 - 4) * (1 - e^-2).
        let mut children = [child(0.1, 0.5, 20.0), child(-0.2, 0.05, 20.0)];
        let total = NOISE_PRUNING.weigh(&mut children);
        let kept = 20.0 - 16.0 * (1.0 - (-2.0f64).exp());
        // (Policies are f32: 0.05 / 0.5 is a share off by parts in 10^8.)
        assert!((children[1].weight - kept).abs() < 1e-6, "{children:?}");
        assert!((total - 20.0 - kept).abs() < 1e-6);
        // A child that looks better, or keeps to its share, keeps its weight.
        let mut better = [child(0.1, 0.5, 20.0), child(0.3, 0.05, 20.0)];
        assert_eq!(NOISE_PRUNING.weigh(&mut better), 40.0);
        let mut fair = [child(0.1, 0.5, 20.0), child(-0.2, 0.5, 20.0)];
        assert_eq!(NOISE_PRUNING.weigh(&mut fair), 40.0);
    }
}
