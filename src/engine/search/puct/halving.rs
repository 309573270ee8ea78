//! Sequential halving at the root (Danihelka et al., "Policy improvement by planning with
//! Gumbel", 2022, as DeepMind's `mctx` plays it without Gumbel noise): a move's search of a
//! known number of visits spends them on the moves of highest prior in rounds, each round
//! visiting every move left equally often and keeping the better half, until two are left;
//! the move played is the better of the most visited. A move's worth is its log prior plus its
//! value, scaled to the values' range at the root and weighted by `(50 + most visits) / 10`,
//! so that the prior orders the moves at first and the value decides as visits accrue.
//! Below the root the search is PUCT.

use super::tree::{ROOT, Tree, sign};

/// How many moves the halving starts from (mctx's `max_num_considered_actions`).
const CONSIDERED: usize = 16;
/// mctx's `maxvisit_init` and `value_scale`: the value's weight is `(50 + most visits) / 10`.
const VISIT_INIT: f64 = 50.0;
const VALUE_SCALE: f64 = 0.1;

/// The halving of one search: the visits each of the root's moves had before it, and for each
/// visit of the search, the visits of this search a move must have to be chosen.
#[derive(Clone, Debug)]
pub(super) struct Halving {
    /// The root's visits when the search began.
    start: u32,
    /// The visits through each root edge when the search began.
    before: Vec<u32>,
    /// For the search's `i`-th visit: the visits (of this search) of the moves it may take.
    schedule: Vec<u32>,
}

impl Halving {
    /// The halving of `visits` more visits from `tree`'s root; `None` when the root has fewer
    /// than two moves or no visit is left.
    pub(super) fn new(tree: &Tree, visits: u64) -> Option<Halving> {
        let moves = tree.nodes[ROOT].edge_count as usize;
        if moves < 2 || visits == 0 {
            return None;
        }
        let visits = usize::try_from(visits).ok()?;
        Some(Halving {
            start: tree.nodes[ROOT].visits,
            before: tree.nodes[ROOT]
                .edges()
                .map(|e| tree.edge_visits(e))
                .collect(),
            schedule: considered_visits(moves.min(CONSIDERED), visits),
        })
    }

    /// The root edge the next descent takes: of the moves with as many visits of this search
    /// as the schedule says (with none, those short of it), the best worth.
    pub(super) fn select(&self, tree: &Tree) -> Option<usize> {
        let root = &tree.nodes[ROOT];
        // The descent asking has put its visit in flight already.
        let index = (root.visits + root.in_flight).saturating_sub(self.start + 1) as usize;
        let due = *self.schedule.get(index).or(self.schedule.last())?;
        let worths = self.worths(tree);
        let best_of = |keep: &dyn Fn(u32) -> bool| {
            worths
                .iter()
                .filter(|&&(_, visits, _)| keep(visits))
                .max_by(|a, b| a.2.total_cmp(&b.2))
                .map(|&(edge, _, _)| edge)
        };
        best_of(&|visits| visits == due).or_else(|| best_of(&|visits| visits < due))
    }

    /// The root's edges in the order to play them: of the most visited by this search, the
    /// best worth first; then the others by their visits.
    pub(super) fn ranked(&self, tree: &Tree) -> Vec<usize> {
        let mut worths = self.worths(tree);
        worths.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.total_cmp(&a.2)));
        worths.into_iter().map(|(edge, _, _)| edge).collect()
    }

    /// Each root edge, its visits in this search (those in flight counted) and its worth:
    /// log prior plus the scaled, completed value.
    fn worths(&self, tree: &Tree) -> Vec<(usize, u32, f64)> {
        let root = &tree.nodes[ROOT];
        let chooser = root.mover.opponent();
        let edges: Vec<usize> = root.edges().collect();
        let mut values: Vec<Option<(f64, u32)>> = Vec::with_capacity(edges.len());
        let mut visits = Vec::with_capacity(edges.len());
        let mut most = 0;
        for (i, &edge) in edges.iter().enumerate() {
            let (done, in_flight, value) = match tree.node_of(edge) {
                Some(child) => {
                    let node = &tree.nodes[child];
                    let done = tree.edge_visits(edge);
                    let value = (node.visits > 0)
                        .then(|| (sign(chooser) * node.utility / f64::from(node.visits), done));
                    (done, node.in_flight, value)
                }
                None => (0, 0, None),
            };
            most = most.max(done);
            values.push(value);
            visits.push((done + in_flight).saturating_sub(self.before[i]));
        }
        let priors: Vec<f64> = edges.iter().map(|&e| f64::from(tree.prior(e))).collect();
        let completed =
            completed_values(&values, &priors, sign(chooser) * f64::from(root.evaluation));
        let (low, high) = completed
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
        let range = (high - low).max(1e-8);
        let weight = (VISIT_INIT + f64::from(most)) * VALUE_SCALE;
        let top = priors.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
        edges
            .iter()
            .enumerate()
            .map(|(i, &edge)| {
                let logit = (priors[i].max(f64::MIN_POSITIVE) / top).ln().max(-1e9);
                let worth = logit + weight * (completed[i] - low) / range;
                (edge, visits[i], worth)
            })
            .collect()
    }
}

/// The values of moves (each visited one's with its visits), an unvisited one's (`None`)
/// completed by mctx's mixed value: the parent's own evaluation `own`, weighing one visit, and
/// the visited moves' values weighted by their priors, weighing all their visits.
fn completed_values(values: &[Option<(f64, u32)>], priors: &[f64], own: f64) -> Vec<f64> {
    let (weighted, prior_sum, visits) =
        values
            .iter()
            .zip(priors)
            .fold((0.0, 0.0, 0.0), |(w, p, n), (value, &prior)| match value {
                Some((v, visits)) => (w + prior * v, p + prior, n + f64::from(*visits)),
                None => (w, p, n),
            });
    let mixed = if prior_sum > 0.0 {
        (own + visits * weighted / prior_sum) / (1.0 + visits)
    } else {
        own
    };
    values
        .iter()
        .map(|v| v.map_or(mixed, |(value, _)| value))
        .collect()
}

/// mctx's `get_sequence_of_considered_visits`: for each of `visits` visits, the visits a move
/// must have had to take it, halving `considered` moves round by round, each round's visits
/// about `visits / (log2(considered) * moves left)` each, down to two moves.
fn considered_visits(considered: usize, visits: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..visits as u32).collect();
    }
    let rounds = considered.next_power_of_two().trailing_zeros() as usize;
    let mut sequence = Vec::with_capacity(visits);
    let mut had = vec![0u32; considered];
    let mut left = considered;
    while sequence.len() < visits {
        let extra = (visits / (rounds * left)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&had[..left]);
            for h in &mut had[..left] {
                *h += 1;
            }
        }
        left = (left / 2).max(2);
    }
    sequence.truncate(visits);
    sequence
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_hundred_visits_on_sixteen_moves_end_at_forty_nine_for_the_last_two() {
        let schedule = considered_visits(16, 200);
        assert_eq!(schedule.len(), 200);
        // Rounds of 3, 6, 12 and 25 visits each for 16, 8, 4 and 2 moves (48 + 48 + 48 +
        // 50), then 2 more: the visits each rank of move ends with.
        let mut counts = [0u32; 16];
        for &due in &schedule {
            // The move taken is the best (here: the first) with the visits due.
            let i = (0..16).find(|&i| counts[i] == due).unwrap();
            counts[i] += 1;
        }
        assert_eq!(counts, [49, 49, 21, 21, 9, 9, 9, 9, 3, 3, 3, 3, 3, 3, 3, 3]);
        assert_eq!(
            &considered_visits(16, 20)[..18],
            &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
        );
        assert_eq!(considered_visits(1, 3), [0, 1, 2]);
    }

    #[test]
    fn an_unvisited_move_is_worth_the_mix_of_the_parents_and_the_visited_values() {
        // Visited: 0.5 at prior 0.6 (3 visits) and -0.1 at prior 0.2 (one); the parent's own
        // value 0.1.
        let values = [Some((0.5, 3)), Some((-0.1, 1)), None];
        let completed = completed_values(&values, &[0.6, 0.2, 0.2], 0.1);
        let mixed = (0.1 + 4.0 * (0.6 * 0.5 + 0.2 * -0.1) / 0.8) / 5.0;
        assert_eq!(completed[..2], [0.5, -0.1]);
        assert!((completed[2] - mixed).abs() < 1e-12);
        assert_eq!(
            completed_values(&[None, None], &[0.5, 0.5], 0.3),
            [0.3, 0.3]
        );
    }
}
