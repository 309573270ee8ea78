use std::sync::Arc;
use std::time::{Duration, Instant};

use super::PuctSearch;
use super::descent::{Exploration, Position};
use super::tree::{Edge, Link, Node, ROOT, ROOT_HANDLE, TREE_BYTES, Tree, Value};
use super::value_weight::ValueWeighting;
use crate::engine::search::budget::Budget;
use crate::engine::search::report::{AnalysisRequest, ScoreStats};
use crate::engine::search::search_tree::SearchTree;
use crate::engine::search::settings::{DEFAULT_LEAF_BATCH, SearchSettings};
use crate::knowledge::net::Net;
use crate::knowledge::net::test_net::{real_net, real_net_test};
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::{Game, Rules, fixed_handicap_points};

/// A root (Black to move) on 9x9 with children of `priors`, none visited.
fn toy(priors: &[f32]) -> Tree {
    let mut tree = Tree::new(Color::White, 81, TREE_BYTES);
    let children: Vec<(Move, f32)> = priors
        .iter()
        .enumerate()
        .map(|(i, &p)| (Move::Play(Point::new(9, i, 0)), p))
        .collect();
    tree.expand(ROOT, &children, false);
    tree
}

/// One visit along `path` worth `winloss` for White (its utility the same).
fn back_up(tree: &mut Tree, path: &[usize], winloss: f64) {
    for &id in path {
        tree.nodes[id].in_flight += 1;
    }
    let value = Value {
        winloss,
        score: 0.0,
        score_sq: 0.0,
        lead: 0.0,
    };
    let edges: Vec<usize> = path
        .windows(2)
        .map(|pair| {
            let mut edges = tree.nodes[pair[0]].edges();
            edges
                .find(|&edge| tree.node_of(edge) == Some(pair[1]))
                .expect("a child of the node before")
        })
        .collect();
    tree.back_up(path, &edges, value, winloss, None);
}

/// The moves of the children of `at`, and the visits of those that have a node.
fn shape(tree: &Tree, at: usize) -> Vec<(Move, Option<u32>)> {
    tree.nodes[at]
        .edges()
        .map(|e| {
            let edge = tree.edges[e];
            (edge.mv(), tree.node_of(e).map(|id| tree.nodes[id].visits))
        })
        .collect()
}

#[test]
fn a_node_takes_104_bytes_and_its_link_12() {
    // TREE_BYTES's visit counts and docs/SEARCH.md assume it.
    assert_eq!(size_of::<Node>(), 104);
    assert_eq!(size_of::<Link>(), 12);
}

#[test]
fn an_edge_keeps_its_move_and_prior_in_eight_bytes() {
    assert_eq!(size_of::<Edge>(), 8);
    for mv in [
        Move::Pass,
        Move::Play(Point::new(19, 0, 0)),
        Move::Play(Point::new(25, 24, 24)),
    ] {
        let edge = Edge::new(mv, 0.25);
        assert_eq!((edge.mv(), edge.link()), (mv, None));
    }
}

#[test]
fn only_a_visited_child_gets_a_node() {
    let mut tree = toy(&[0.5, 0.3, 0.2]);
    assert_eq!((tree.nodes.len(), tree.edges.len()), (1, 3));
    let child = tree.child_node(ROOT, 1);
    assert_eq!(tree.child_node(ROOT, 1), child, "made once");
    assert_eq!(tree.nodes.len(), 2);
    assert_eq!(tree.nodes[child].mover, Color::Black);
    assert_eq!(tree.links.len(), 1);
    assert_eq!(tree.edges[1].mv(), Move::Play(Point::new(9, 1, 0)));
    assert_eq!(tree.node_of(1), Some(child));
    assert_eq!(tree.prior(1), 0.3, "the link keeps the prior");
    assert_eq!(tree.prior(2), 0.2);
    assert_eq!(tree.child(ROOT, 2).mover, Color::Black);
}

#[test]
fn keeping_a_subtree_moves_its_nodes_and_edges_down_in_place() {
    // Root edges A, B, C; B's node made first, then A's; A expanded before B, so B's edge
    // block lies after A's. B's children: a pass (visited, then expanded) and D (not).
    let mut tree = toy(&[0.5, 0.3, 0.2]);
    let b = tree.child_node(ROOT, 1);
    let a = tree.child_node(ROOT, 0);
    tree.expand(a, &[(Move::Pass, 1.0)], false);
    let d = Move::Play(Point::new(9, 3, 3));
    tree.expand(b, &[(Move::Pass, 0.6), (d, 0.4)], false);
    let a_pass = tree.child_node(a, tree.nodes[a].edges().start);
    let b_pass = tree.child_node(b, tree.nodes[b].edges().start);
    tree.expand(b_pass, &[(d, 1.0)], false);
    let b_pass_d = tree.child_node(b_pass, tree.nodes[b_pass].edges().start);
    back_up(&mut tree, &[ROOT, a, a_pass], 1.0);
    back_up(&mut tree, &[ROOT, b], 1.0);
    back_up(&mut tree, &[ROOT, b, b_pass], 1.0);
    back_up(&mut tree, &[ROOT, b, b_pass, b_pass_d], -1.0);
    let before = tree.principal_variation(1);
    assert_eq!(before[0], Move::Play(Point::new(9, 1, 0)));
    tree.keep_subtree(b);
    // B, its pass and that pass's D: three nodes, B's two edges and the pass's one, and the
    // links of the two visited.
    assert_eq!(tree.nodes.len(), 3);
    assert_eq!(tree.edges.len(), 3);
    assert_eq!(tree.links.len(), 2);
    assert_eq!(tree.nodes[ROOT].visits, 3);
    assert_eq!(shape(&tree, ROOT), vec![(Move::Pass, Some(2)), (d, None)]);
    let pass = tree.node_of(tree.nodes[ROOT].edges().start).unwrap();
    assert_eq!(shape(&tree, pass), vec![(d, Some(1))]);
    assert_eq!(tree.principal_variation(ROOT_HANDLE)[1..], before[1..]);
    assert_eq!(
        tree.bytes(),
        3 * size_of::<Node>() + 3 * size_of::<Edge>() + 2 * size_of::<Link>() + 81 * 8
    );
    // It searches on from there: a new child comes after its parent.
    let d_child = tree.child_node(ROOT, 1);
    assert_eq!(d_child, 3);
}

/// A graph of a root with A and B, where A's X and B's Y reach the same position (its key
/// 7): the nodes of A, of that position (made under A) and of B.
fn transposed() -> (Tree, [usize; 3]) {
    let mut tree = toy(&[0.5, 0.5]);
    tree.positions = Some(Default::default());
    let (x, y) = (
        Move::Play(Point::new(9, 4, 4)),
        Move::Play(Point::new(9, 5, 5)),
    );
    let a = tree.child_node(ROOT, 0);
    tree.expand(a, &[(x, 1.0)], false);
    let shared = tree.child_node(a, tree.nodes[a].edges().start);
    tree.remember(7, shared);
    let b = tree.child_node(ROOT, 1);
    tree.expand(b, &[(y, 0.8)], false);
    let b_y = tree.nodes[b].edges().start;
    assert_eq!(tree.transposition(b_y, 7, &[ROOT, b]), Some(shared));
    (tree, [a, shared, b])
}

#[test]
fn a_transposition_is_one_node_each_edge_counting_its_own_visits() {
    let (mut tree, [a, shared, b]) = transposed();
    assert_eq!(tree.nodes.len(), 4, "no node for B's Y");
    let b_y = tree.nodes[b].edges().start;
    assert_eq!(tree.node_of(b_y), Some(shared));
    assert_eq!(tree.prior(b_y), 0.8, "the edge keeps its own prior");
    assert_eq!(tree.transposition(b_y, 8, &[ROOT, b]), None, "another key");
    back_up(&mut tree, &[ROOT, a], 0.0);
    back_up(&mut tree, &[ROOT, a, shared], 1.0);
    back_up(&mut tree, &[ROOT, a, shared], 1.0);
    back_up(&mut tree, &[ROOT, b], 0.0);
    back_up(&mut tree, &[ROOT, b, shared], -1.0);
    assert_eq!(tree.nodes[shared].visits, 3);
    let a_x = tree.nodes[a].edges().start;
    assert_eq!((tree.edge_visits(a_x), tree.edge_visits(b_y)), (2, 1));
    // B's value weighs its one visit into the shared node by that node's mean of three (1/3),
    // not by the -1 that visit found.
    let b_node = &tree.nodes[b];
    assert_eq!(b_node.visits, 2);
    assert!(
        (b_node.utility - 1.0 / 3.0).abs() < 1e-9,
        "{}",
        b_node.utility
    );
    // A node on the way down is no transposition: the graph has no cycle.
    assert_eq!(tree.transposition(b_y, 7, &[ROOT, b, shared]), None);
}

#[test]
fn a_descent_stops_on_a_transposition_its_edge_has_not_caught_up_with() {
    let (mut tree, [a, shared, b]) = transposed();
    back_up(&mut tree, &[ROOT, a], 0.0);
    back_up(&mut tree, &[ROOT, a, shared], 1.0);
    back_up(&mut tree, &[ROOT, b], 0.0);
    tree.nodes[a].in_flight = 100; // steer the descent into B
    let root = Position::of(&Game::new(9, Rules::chinese(7.5)));
    let leaf = tree.descend(&root, 0, Exploration::default());
    assert_eq!(leaf.path, [ROOT, b]);
    assert_eq!(leaf.edges, [1, tree.nodes[b].edges().start]);
    assert_eq!(leaf.caught_up(&tree), Some(shared));
    // Backed up with the shared node's mean, not evaluated: the shared node keeps its visits.
    let (value, utility) = tree.nodes[shared].mean_value();
    tree.back_up(&leaf.path, &leaf.edges, value, utility, None);
    assert_eq!(tree.nodes[shared].visits, 1);
    assert_eq!(tree.edge_visits(tree.nodes[b].edges().start), 1);
    assert_eq!(tree.nodes[b].visits, 2);
    assert_eq!(tree.nodes[b].in_flight, 0);
    // Caught up, the next descent through B plays on into the shared node.
    let leaf = tree.descend(&root, 0, Exploration::default());
    assert_eq!(leaf.path, [ROOT, b, shared]);
    assert_eq!(leaf.caught_up(&tree), None);
}

#[test]
fn keeping_a_subtree_keeps_a_shared_node_made_before_it() {
    let (mut tree, [a, shared, b]) = transposed();
    back_up(&mut tree, &[ROOT, a, shared], 1.0);
    back_up(&mut tree, &[ROOT, b, shared], -1.0);
    assert!(shared < b);
    tree.keep_subtree(b);
    assert_eq!(tree.nodes.len(), 2);
    assert_eq!(tree.nodes[ROOT].visits, 1);
    let edge = tree.nodes[ROOT].edges().start;
    assert_eq!(tree.node_of(edge), Some(1));
    assert_eq!(tree.nodes[1].visits, 2, "the shared node keeps every visit");
    assert_eq!(tree.links.len(), 1);
    assert_eq!(tree.positions.as_ref().and_then(|p| p.get(&7)), Some(&1));
}

#[test]
fn a_tree_takes_no_more_than_its_bytes() {
    // Room for the root, its ownership and 100 edges (9x9: 82 edges an expansion).
    let budget = size_of::<Node>() + 81 * 8 + 100 * size_of::<Edge>();
    let mut tree = Tree::new(Color::White, 81, budget);
    let moves: Vec<(Move, f32)> = (0..82)
        .map(|i| (Move::Play(Point::new(9, i % 9, i / 9 % 9)), 1.0 / 82.0))
        .collect();
    assert!(tree.is_full(), "a visit may need more than is left");
    tree.expand(ROOT, &moves, false);
    assert_eq!(tree.nodes[ROOT].edge_count, 82);
    let child = tree.child_node(ROOT, 0);
    tree.expand(child, &moves, false);
    assert!(!tree.nodes[child].expanded, "no room for 82 more edges");
    assert!(tree.bytes() <= budget);
    tree.budget = tree.bytes() + 82 * size_of::<Edge>();
    tree.expand(child, &moves, false);
    assert_eq!(tree.nodes[child].edge_count, 82, "room for exactly 82");
}

#[test]
fn an_unvisited_root_picks_the_highest_prior() {
    let tree = toy(&[0.2, 0.7, 0.1]);
    assert_eq!(tree.select(ROOT, Exploration::default()), Some(1));
}

#[test]
fn backing_up_counts_a_win_for_the_player_who_moved() {
    let mut tree = toy(&[0.5, 0.5]);
    // A White win through Black's first move: that move lost for Black, the root (White's
    // view, White having "moved" into it) won.
    let first = tree.child_node(ROOT, 0);
    back_up(&mut tree, &[ROOT, first], 1.0);
    assert_eq!(tree.nodes[first].visits, 1);
    assert_eq!(tree.nodes[first].in_flight, 0);
    assert_eq!(tree.nodes[first].win_rate(), 0.0);
    assert_eq!(tree.nodes[ROOT].win_rate(), 1.0);
    assert_eq!(tree.nodes[first].mover_utility(), -1.0);
}

/// A `toy` root visited once (worth 0) and once through its first child, worth `white_value`
/// to White; and that child's node.
fn first_child_visited(priors: &[f32], white_value: f64) -> (Tree, usize) {
    let mut tree = toy(priors);
    back_up(&mut tree, &[ROOT], 0.0);
    let first = tree.child_node(ROOT, 0);
    back_up(&mut tree, &[ROOT, first], white_value);
    (tree, first)
}

#[test]
fn losses_turn_the_search_to_the_other_move_and_wins_keep_it() {
    // Black loses every visit through its favourite: it turns to the other move.
    let (tree, _) = first_child_visited(&[0.6, 0.4], 1.0);
    assert_eq!(tree.select(ROOT, Exploration::default()), Some(1));
    // With wins instead it stays.
    let (tree, _) = first_child_visited(&[0.6, 0.4], -1.0);
    assert_eq!(tree.select(ROOT, Exploration::default()), Some(0));
}

#[test]
fn first_play_urgency_is_the_parent_value_less_the_reduction() {
    // After the root's visit (worth 0) and one of child 1 (prior 0.64) worth v to White, an
    // unvisited child is worth the root's mean for Black, -v / 2, less 0.1 * sqrt(0.64).
    // With c = 1 + 0.45 ln(501 / 500) and sqrt(1.01) for the one visit: child 1 scores
    // -v + 0.3219, child 2 (prior 0.36) -v / 2 - 0.08 + 0.3621. v = 0: 0.3219 against
    // 0.2821, child 1 leads; v = 0.1: 0.2219 against 0.2321, child 2 does.
    let setup = |white_value: f64| first_child_visited(&[0.64, 0.36], white_value).0;
    assert_eq!(setup(0.0).select(ROOT, Exploration::default()), Some(0));
    assert_eq!(setup(0.1).select(ROOT, Exploration::default()), Some(1));
}

#[test]
fn first_play_urgency_can_start_from_the_parents_own_evaluation() {
    // As above with v = 0.06: from the root's mean, child 2 scores -0.03 - 0.08 + 0.3621 =
    // 0.2521 against child 1's 0.2619. From KataGo's blend, the mean weighs 0.64^2 = 0.4096
    // and the root's own evaluation (0) the rest: -0.0123 - 0.08 + 0.3621 = 0.2698, child 2.
    let (tree, first) = first_child_visited(&[0.64, 0.36], 0.06);
    assert_eq!(tree.nodes[ROOT].evaluation, 0.0);
    assert_eq!(tree.nodes[first].evaluation, 0.06);
    assert_eq!(tree.select(ROOT, Exploration::default()), Some(0));
    let blend = Exploration {
        fpu_from_evaluation: true,
        ..Exploration::default()
    };
    assert_eq!(tree.select(ROOT, blend), Some(1));
}

/// Backs up `values` (White's view) one visit each through the root's child at `edge`.
fn visit_child(tree: &mut Tree, edge: usize, values: impl IntoIterator<Item = f64>) {
    let child = tree.child_node(ROOT, edge);
    for value in values {
        back_up(tree, &[ROOT, child], value);
    }
}

#[test]
fn exploration_widens_with_the_spread_of_utilities_as_katago_scales_it() {
    let mut calm = toy(&[1.0]);
    visit_child(&mut calm, 0, [0.0; 10]);
    let mut torn = toy(&[1.0]);
    visit_child(
        &mut torn,
        0,
        (0..10).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }),
    );
    let factor = |tree: &Tree, scale| tree.nodes[ROOT].exploration_factor(scale);
    // Ten visits worth 0: variance (0.4^2 * 2 + 0) / (2 + 10 - 1), stdev 0.1706, factor
    // 1 + 0.85 (0.1706 / 0.4 - 1); worth +-1: variance (0.32 + 10) / 11, stdev 0.9686.
    assert!(
        (factor(&calm, 0.85) - 0.51252).abs() < 1e-4,
        "{}",
        factor(&calm, 0.85)
    );
    assert!(
        (factor(&torn, 0.85) - 2.20821).abs() < 1e-4,
        "{}",
        factor(&torn, 0.85)
    );
    assert_eq!(factor(&torn, 0.0), 1.0);
    // One visit says nothing of a spread: the prior's, a factor of 1.
    let mut once = toy(&[1.0]);
    visit_child(&mut once, 0, [1.0]);
    assert_eq!(once.nodes[ROOT].visits, 1);
    assert_eq!(factor(&once, 0.85), 1.0);
}

#[test]
fn the_lower_confidence_bound_picks_a_steady_move_over_a_more_visited_torn_one() {
    // Black to move. Move 0: 120 visits worth 0.6 and -0.4 to Black in turn (mean 0.1); move
    // 1: 100 visits all worth 0.3; move 2: 10 visits worth 0.9, too few (under 15% of 120).
    let mut tree = toy(&[0.4, 0.4, 0.2]);
    back_up(&mut tree, &[ROOT], 0.0);
    visit_child(
        &mut tree,
        0,
        (0..120).map(|i| if i % 2 == 0 { -0.6 } else { 0.4 }),
    );
    visit_child(&mut tree, 1, [-0.3; 100]);
    visit_child(&mut tree, 2, [-0.9; 10]);
    let lcb = |edge| tree.child(ROOT, edge).utility_lcb();
    // 5 standard errors: 5 sqrt(0.25 / 120) = 0.228 below 0.1, next to nothing below 0.3.
    assert!((lcb(0) - (0.1 - 0.2282)).abs() < 1e-3, "{}", lcb(0));
    assert!((lcb(1) - 0.3).abs() < 1e-3, "{}", lcb(1));
    assert!(lcb(2) > lcb(1));
    assert_eq!(tree.ranked_for_play(false), vec![0, 1, 2]);
    assert_eq!(tree.ranked_for_play(true), vec![1, 0, 2]);
    // Without visits a bound is the least there is.
    assert_eq!(toy(&[1.0]).child(ROOT, 0).utility_lcb(), -14.0);
}

#[test]
fn with_noise_pruning_a_node_is_worth_its_good_children_more_than_its_mean() {
    // Black to move, its own evaluation 0. Move 0 (prior 0.9): 30 visits worth 0.2 to Black;
    // move 1 (prior 0.1): 30 visits worth -0.3, far past twice its policy's share (6.67).
    let searched = |weighting: ValueWeighting| {
        let mut tree = toy(&[0.9, 0.1]);
        tree.weighting = weighting;
        back_up(&mut tree, &[ROOT], 0.0);
        visit_child(&mut tree, 0, [-0.2; 30]);
        visit_child(&mut tree, 1, [0.3; 30]);
        let root = &tree.nodes[ROOT];
        assert_eq!(root.visits, 61);
        -root.utility / 61.0
    };
    let mean = searched(ValueWeighting::default());
    assert!((mean - (6.0 - 9.0) / 61.0).abs() < 1e-9, "{mean}");
    let pruned = searched(ValueWeighting {
        exponent: 0.0,
        noise_pruning: true,
    });
    let kept = 30.0 - (30.0 - 20.0 / 3.0) * (1.0 - (-0.5f64 / 0.15).exp());
    let expected = (6.0 - 0.3 * kept) / (30.0 + kept + 1.0);
    assert!((pruned - expected).abs() < 1e-6, "{pruned} {expected}");
    assert!(pruned > 0.09, "{pruned}");
}

#[test]
fn a_new_leaf_takes_the_bias_its_shape_has_shown_under_another_node() {
    let mut tree = toy(&[0.5, 0.5]);
    tree.subtree_bias.factor = 0.5;
    back_up(&mut tree, &[ROOT], 0.0);
    let entry = tree.subtree_bias.entry(42);
    // Node a, evaluated at 0, then finds 0.4 one move below: its shape is worth 0.4 more
    // than the net said (weight 1^0.85).
    let a = tree.child_node(ROOT, 0);
    tree.nodes[a].bias.entry = entry;
    back_up(&mut tree, &[ROOT, a], 0.0);
    tree.expand(a, &[(Move::Play(Point::new(9, 4, 4)), 1.0)], false);
    let below = tree.child_node(a, tree.nodes[a].edges().start);
    back_up(&mut tree, &[ROOT, a, below], 0.4);
    assert!((tree.subtree_bias.bias(entry) - 0.2).abs() < 1e-6);
    // Node b, of the same shape, evaluated at 0.1: backed up as 0.1 + 0.5 * 0.4.
    let b = tree.child_node(ROOT, 1);
    tree.nodes[b].bias.entry = entry;
    back_up(&mut tree, &[ROOT, b], 0.1);
    assert!((tree.nodes[b].utility - 0.3).abs() < 1e-6);
    assert!((f64::from(tree.nodes[b].evaluation) - 0.1).abs() < 1e-6);
    // Without the factor the evaluation goes up as it is.
    tree.subtree_bias.factor = 0.0;
    let mut plain = toy(&[1.0]);
    let c = plain.child_node(ROOT, 0);
    plain.nodes[c].bias.entry = plain.subtree_bias.entry(42);
    back_up(&mut plain, &[ROOT, c], 0.1);
    assert_eq!(plain.nodes[c].utility, 0.1);
    // Keeping a's subtree keeps a's finding alone (b, which found nothing below, is gone).
    tree.subtree_bias.factor = 0.5;
    tree.keep_subtree(a);
    let kept = tree.nodes[ROOT].bias.entry;
    assert!((tree.subtree_bias.bias(kept) - 0.2).abs() < 1e-6);
}

#[test]
fn a_node_recomputed_from_its_children_takes_its_shapes_bias_as_it_stands_now() {
    // As KataGo's: each time a node's value is recomputed (here with noise pruning on), its
    // own evaluation takes the bias its entry has now, not the one it had when first visited.
    let mut tree = toy(&[0.5, 0.5]);
    tree.weighting.noise_pruning = true;
    tree.subtree_bias.factor = 0.5;
    back_up(&mut tree, &[ROOT], 0.0);
    let entry = tree.subtree_bias.entry(42);
    let mut below = [0; 2];
    for (i, edge) in [0, 1].into_iter().enumerate() {
        let node = tree.child_node(ROOT, edge);
        tree.nodes[node].bias.entry = entry;
        tree.expand(node, &[(Move::Play(Point::new(9, 4, 4)), 1.0)], false);
        below[i] = node;
    }
    let [a, b] = below;
    let under = |tree: &mut Tree, at: usize| tree.child_node(at, tree.nodes[at].edges().start);
    let (a_x, b_y) = (under(&mut tree, a), under(&mut tree, b));
    // a, evaluated at 0, finds 1 below: the entry's bias is 0.5 * 1, a's own too.
    back_up(&mut tree, &[ROOT, a], 0.0);
    back_up(&mut tree, &[ROOT, a, a_x], 1.0);
    assert!((tree.nodes[a].own_bias - 0.5).abs() < 1e-6);
    // b, evaluated at 0, finds -1 below: the entry's findings cancel out.
    back_up(&mut tree, &[ROOT, b], 0.0);
    back_up(&mut tree, &[ROOT, b, b_y], -1.0);
    assert!(tree.subtree_bias.bias(entry).abs() < 1e-6);
    assert!(tree.nodes[b].own_bias.abs() < 1e-6);
    // a again, two visits below now (weight 2^0.85 against b's 1): its own bias follows.
    back_up(&mut tree, &[ROOT, a, a_x], 1.0);
    let weight = 2f64.powf(0.85);
    let bias = 0.5 * (weight - 1.0) / (weight + 1.0);
    assert!((f64::from(tree.nodes[a].own_bias) - bias).abs() < 1e-6);
    assert!((tree.nodes[a].utility - (bias + 2.0)).abs() < 1e-6);
}

#[test]
fn a_visit_in_flight_counts_as_a_loss_so_threads_spread() {
    let mut tree = toy(&[0.5, 0.5]);
    back_up(&mut tree, &[ROOT], 0.0);
    for edge in 0..2 {
        let child = tree.child_node(ROOT, edge);
        back_up(&mut tree, &[ROOT, child], 0.0);
    }
    let first = tree.select(ROOT, Exploration::default()).unwrap();
    let child = tree.child_node(ROOT, first);
    tree.nodes[child].in_flight += 1;
    let second = tree.select(ROOT, Exploration::default()).unwrap();
    assert_ne!(first, second);
}

#[test]
fn a_handicap_move_is_searched_with_the_playout_doubling_the_net_is_told_of() {
    use crate::knowledge::net::model::{Model, synthetic};
    let model = synthetic::net(15, true, synthetic::seed(15));
    let net = Arc::new(Net::from_model(
        Model::parse(&model, true).expect("a synthetic net"),
    ));
    let mut game = Game::new(9, Rules::chinese(0.5));
    let points = fixed_handicap_points(9, 2).expect("two stones");
    game.set_handicap(&points).expect("an empty board");
    let root_value = |cap: f32| {
        let settings = SearchSettings {
            playouts: Some(8),
            threads: 1,
            seed: Some(3),
            playout_doubling_cap: cap,
            ..SearchSettings::default()
        };
        let mut search = PuctSearch::new(Arc::clone(&net), settings);
        search.choose(&game, Color::White, &Budget::default());
        let root = &search.tree.nodes[ROOT];
        (search.doubling_for_white, root.winloss)
    };
    let (doubling, with) = root_value(0.045);
    assert_eq!(doubling, 2.375, "two stones on 9x9");
    let (none, without) = root_value(0.0);
    assert_eq!(none, 0.0);
    assert_ne!(with, without, "the net reads the doubling");
}

/// A search of `visits` on `threads` with the real net, every root move searched: the tests
/// of tree reuse start from boards a symmetry maps onto themselves, where root symmetry
/// pruning would drop the kept tree.
fn net_search(visits: u64, threads: usize) -> PuctSearch {
    PuctSearch::new(
        Arc::new(real_net()),
        SearchSettings {
            playouts: Some(visits),
            threads,
            seed: Some(1),
            root_symmetry_pruning: false,
            ..SearchSettings::default()
        },
    )
}

/// Black's move in `rows` (Chinese rules, komi 7.5) after `visits` visits on `threads`.
fn black_move(rows: &[&str], visits: u64, threads: usize) -> String {
    let game = Game::from_rows(rows, Rules::chinese(7.5));
    let choice = net_search(visits, threads).choose(&game, Color::Black, &Budget::default());
    assert!(choice.searched);
    choice.mv.to_vertex(9)
}

real_net_test!(
    fn the_net_search_captures_to_save_its_own_stones() {
        // Black's four stones in atari can only be saved by taking F6 at E6.
        let rows = [
            ".........",
            "..OOOO...",
            ".OXXXXO..",
            "..OO.OX..",
            ".....X...",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        assert_eq!(black_move(&rows, 40, 1), "E6");
        assert_eq!(black_move(&rows, 40, 2), "E6");
    }
);

real_net_test!(
    fn the_net_search_saves_three_stones_in_atari() {
        let rows = [
            ".........",
            ".........",
            "...O.....",
            "..OXO....",
            "..OXO....",
            "..OX.X...",
            "...OXX...",
            ".........",
            ".........",
        ];
        assert_eq!(black_move(&rows, 40, 1), "E4");
    }
);

real_net_test!(
    fn an_analysis_reports_moves_and_the_nets_ownership() {
        let game = Game::from_rows(
            &[
                ".........",
                ".........",
                "..X...O..",
                ".........",
                ".........",
                ".........",
                "..X...O..",
                ".........",
                ".........",
            ],
            Rules::chinese(7.5),
        );
        let budget = Budget {
            playouts: Some(60),
            ..Budget::default()
        };
        let request = AnalysisRequest {
            avoid: vec![Move::Pass],
            ownership: true,
            moves_ownership: true,
            ..AnalysisRequest::new(Color::Black, Duration::from_secs(3600), budget)
        };
        let mut reports = Vec::new();
        net_search(60, 2).analyze(&game, &request, |r| {
            reports.push(r.clone());
            true
        });
        let last = reports.last().expect("a report");
        assert!(last.last);
        assert_eq!(last.root.visits, 60);
        let visits: u32 = last.moves.iter().map(|m| m.visits).sum();
        assert_eq!(visits, 59, "every visit but the root's goes to a move");
        assert!(last.moves.iter().all(|m| m.mv != Move::Pass));
        assert!(last.moves.windows(2).all(|w| w[0].visits >= w[1].visits));
        let ownership = last.ownership.as_ref().expect("ownership");
        assert_eq!(ownership.len(), 81);
        // Black's stones on the left are Black's, White's on the right White's: from Black's
        // view C7 (row 2, column 2) is near 1, G7 near -1.
        assert!(ownership[2 * 9 + 2] > 0.5, "{ownership:?}");
        assert!(ownership[2 * 9 + 6] < -0.5, "{ownership:?}");
        let best = &last.moves[0];
        assert_eq!(best.ownership.as_ref().map(Vec::len), Some(81));
        assert!(best.score.is_some() && best.pv.len() >= 2 && best.prior > 0.0);
        assert!(last.root.score.is_some());
        // The utility is the search's own: the win/loss term plus score terms (at most 0.4) that
        // lean the way the expected margin does.
        let score_terms = |utility: f32, winrate: f32, score: Option<ScoreStats>| {
            let terms = utility - (2.0 * winrate - 1.0);
            let margin = score.map_or(0.0, |s| s.mean);
            assert!(terms.abs() > 1e-4 && terms.abs() <= 0.4, "{terms} {margin}");
            assert_eq!(terms > 0.0, margin > 0.0, "{terms} {margin}");
        };
        score_terms(best.utility, best.winrate, best.score);
        score_terms(last.root.utility, last.root.winrate, last.root.score);
    }
);

real_net_test!(
    fn a_root_under_all_eight_symmetries_gives_equivalent_moves_one_prior() {
        // The net is not exactly symmetric: one symmetry gives the four 3-3 points of an empty
        // board different priors, the mean of all eight the same. A root the tree kept (after
        // Black's E5, the board symmetric again) is evaluated again.
        let priors_at_3_3 = |search: &PuctSearch| {
            let tree = &search.tree;
            let corners =
                [(2, 2), (6, 2), (2, 6), (6, 6)].map(|(x, y)| Move::Play(Point::new(9, x, y)));
            corners.map(|corner| {
                let edge = tree.nodes[ROOT]
                    .edges()
                    .find(|&e| tree.edges[e].mv() == corner);
                tree.prior(edge.expect("a root child"))
            })
        };
        let spread = |p: [f32; 4]| {
            p.iter().copied().fold(f32::MIN, f32::max) - p.iter().copied().fold(f32::MAX, f32::min)
        };
        let mut game = Game::new(9, Rules::chinese(7.5));
        let mut one = net_search(40, 1);
        one.choose(&game, Color::Black, &Budget::default());
        assert!(
            spread(priors_at_3_3(&one)) > 1e-5,
            "{:?}",
            priors_at_3_3(&one)
        );
        let mut all = net_search(40, 1);
        all.settings.root_symmetries = 8;
        all.choose(&game, Color::Black, &Budget::default());
        assert!(
            spread(priors_at_3_3(&all)) < 1e-6,
            "{:?}",
            priors_at_3_3(&all)
        );
        game.play(Color::Black, Move::Play(Point::new(9, 4, 4)))
            .unwrap();
        all.choose(&game, Color::White, &Budget::default());
        assert!(all.last_reused > 0);
        assert!(
            spread(priors_at_3_3(&all)) < 1e-6,
            "{:?}",
            priors_at_3_3(&all)
        );
    }
);

real_net_test!(
    fn root_symmetry_pruning_searches_one_move_of_each_equivalent_set() {
        let mut game = Game::new(9, Rules::chinese(7.5));
        let mut plain = net_search(40, 1);
        plain.choose(&game, Color::Black, &Budget::default());
        assert_eq!(plain.tree.nodes[ROOT].edge_count, 82);
        let mut pruned = net_search(40, 1);
        pruned.settings.root_symmetry_pruning = true;
        pruned.choose(&game, Color::Black, &Budget::default());
        // An empty 9x9 board has 15 sets of equivalent points; the pass stays.
        assert_eq!(pruned.tree.nodes[ROOT].edge_count, 16);
        // After the tengen the board is symmetric again: the kept tree gives way to a pruned root.
        game.play(Color::Black, Move::Play(Point::new(9, 4, 4)))
            .unwrap();
        pruned.choose(&game, Color::White, &Budget::default());
        assert_eq!(pruned.tree.nodes[ROOT].edge_count, 15);
        assert_eq!(pruned.last_reused, 0);
        // An analysis shows every move.
        let request = AnalysisRequest::new(
            Color::White,
            Duration::from_secs(3600),
            Budget {
                playouts: Some(40),
                ..Budget::default()
            },
        );
        pruned.analyze(&game, &request, |_| true);
        assert_eq!(pruned.tree.nodes[ROOT].edge_count, 81);
    }
);

real_net_test!(
    fn with_transpositions_a_search_shares_nodes_and_keeps_them_for_the_next_move() {
        let mut search = net_search(600, 1);
        search.settings.transpositions = true;
        let mut game = Game::new(9, Rules::chinese(7.5));
        for (color, v) in [
            (Color::Black, "E5"),
            (Color::White, "E3"),
            (Color::Black, "C4"),
        ] {
            game.play(color, Move::parse(v, 9).unwrap()).unwrap();
        }
        let first = search.choose(&game, Color::White, &Budget::default()).mv;
        let tree = &search.tree;
        assert_eq!(tree.nodes[ROOT].visits, 600);
        // Some node has two edges into it, and every edge at most its node's visits.
        assert!(
            tree.links.len() >= tree.nodes.len(),
            "{} links",
            tree.links.len()
        );
        assert!(
            tree.links
                .iter()
                .all(|link| link.visits <= tree.nodes[link.node as usize].visits)
        );
        assert!(
            tree.positions
                .as_ref()
                .is_some_and(|p| p.len() == tree.nodes.len() - 1)
        );
        game.play(Color::White, first).unwrap();
        search.choose(&game, Color::Black, &Budget::default());
        assert!(search.last_reused > 0);
        // Each node kept or made (the new root among them, a child before) known by its key.
        let tree = &search.tree;
        let mut known: Vec<u32> = tree
            .positions
            .iter()
            .flat_map(|p| p.values().copied())
            .collect();
        known.sort_unstable();
        known.dedup();
        assert_eq!(known.len(), tree.nodes.len());
        assert_eq!(known.last(), Some(&(tree.nodes.len() as u32 - 1)));
    }
);

real_net_test!(
    fn the_tree_is_reused_down_the_moves_played_and_only_there() {
        let mut game = Game::new(9, Rules::chinese(7.5));
        let mut search = net_search(80, 1);
        let first = search.choose(&game, Color::Black, &Budget::default()).mv;
        assert_eq!(search.last_reused, 0);
        let tree = &search.tree;
        let after_first = tree.nodes[ROOT]
            .edges()
            .find(|&edge| tree.edges[edge].mv() == first)
            .and_then(|edge| tree.node_of(edge))
            .expect("the move played is a root child");
        let reply = tree.ranked_children(after_first)[0];
        let (reply, reply_visits) = (tree.edges[reply].mv(), tree.edge_visits(reply));
        assert!(reply_visits >= 2);
        game.play(Color::Black, first).unwrap();
        game.play(Color::White, reply).unwrap();
        search.choose(&game, Color::Black, &Budget::default());
        assert_eq!(search.last_reused, reply_visits);
        assert_eq!(search.tree.nodes[ROOT].visits, 80);
        // A game that did not go through the tree starts afresh.
        let mut other = Game::new(9, Rules::chinese(7.5));
        other
            .play(Color::Black, Move::Play(Point::new(9, 0, 0)))
            .unwrap();
        search.choose(&other, Color::White, &Budget::default());
        assert_eq!(search.last_reused, 0);
        assert_eq!(search.tree.nodes[ROOT].visits, 80);
        // Nor is an empty board's tree kept for an empty board of another size.
        search.choose(
            &Game::new(9, Rules::chinese(7.5)),
            Color::Black,
            &Budget::default(),
        );
        let larger = Game::new(13, Rules::chinese(7.5));
        search.choose(&larger, Color::Black, &Budget::default());
        assert_eq!(search.last_reused, 0);
        assert_eq!(usize::from(search.tree.nodes[ROOT].edge_count), 13 * 13 + 1);
    }
);

real_net_test!(
    fn a_search_stops_when_its_tree_has_no_more_room() {
        let game = Game::new(9, Rules::chinese(7.5));
        let mut search = net_search(5_000, 2);
        let budget = 100_000;
        search.tree.budget = budget;
        let choice = search.choose(&game, Color::Black, &Budget::default());
        assert!(choice.searched);
        let tree = &search.tree;
        assert!(tree.bytes() <= budget, "{} bytes", tree.bytes());
        assert!(tree.is_full());
        // A visit takes a node, its link and an edge a legal move (104 + 12 + 8 * 82 bytes at
        // most): the tree holds at least the visits that fill it.
        let visits = tree.nodes[ROOT].visits;
        let most_a_visit = (size_of::<Node>() + size_of::<Link>() + 82 * size_of::<Edge>()) as u32;
        assert!(
            visits >= (budget as u32 - 3 * most_a_visit) / most_a_visit,
            "{visits}"
        );
        assert!(visits < 200, "{visits}");
    }
);

real_net_test!(
    fn a_search_on_the_clock_evaluates_leaves_in_batches_and_backs_each_up() {
        let settings = SearchSettings {
            threads: 2,
            seed: Some(1),
            ..SearchSettings::default()
        };
        let mut search = PuctSearch::new(Arc::new(real_net()), settings);
        let on_the_clock = Budget {
            deadline: Some(Instant::now() + Duration::from_secs(60)),
            ..Budget::default()
        };
        let fixed = Budget {
            playouts: Some(100),
            ..on_the_clock.clone()
        };
        assert_eq!(
            search.leaf_batch_for(&on_the_clock, false),
            DEFAULT_LEAF_BATCH
        );
        assert_eq!(search.leaf_batch_for(&fixed, false), 1);
        search.settings.leaf_batch = 8;
        assert_eq!(search.leaf_batch_for(&on_the_clock, false), 8);
        search.settings.leaf_batch = DEFAULT_LEAF_BATCH;
        // The tree's room (not the clock) ends the search, after a hundred visits or so.
        search.tree.budget = 100_000;
        let game = Game::new(9, Rules::chinese(7.5));
        assert!(search.choose(&game, Color::Black, &on_the_clock).searched);
        let tree = &search.tree;
        assert!(tree.is_full());
        assert!(
            tree.nodes.iter().all(|n| n.in_flight == 0),
            "a visit left in flight"
        );
        let below: u32 = tree.nodes[ROOT].edges().map(|e| tree.edge_visits(e)).sum();
        assert_eq!(
            tree.nodes[ROOT].visits,
            below + 1,
            "every visit but the root's own"
        );
        assert!(below >= 100, "{below}");
    }
);

real_net_test!(
    fn an_analysis_asking_no_visits_runs_past_the_levels_until_stopped() {
        let game = Game::new(9, Rules::chinese(7.5));
        let request =
            AnalysisRequest::new(Color::Black, Duration::from_secs(3600), Budget::default());
        // The level's 30 visits are a move's; the tree's room ends this analysis.
        let mut search = net_search(30, 1);
        search.tree.budget = 100_000;
        assert_eq!(
            search.leaf_batch_for(&request.budget, true),
            DEFAULT_LEAF_BATCH
        );
        let mut last = None;
        search.analyze(&game, &request, |report| {
            last = Some(report.clone());
            true
        });
        let last = last.expect("a report");
        assert!(last.last && last.root.visits > 100, "{}", last.root.visits);
        assert!(search.tree.is_full());
    }
);

#[test]
fn unvisited_children_rank_by_prior() {
    let tree = toy(&[0.2, 0.7, 0.1]);
    assert_eq!(tree.ranked_root_children(), vec![1, 0, 2]);
}

fn root_priors(tree: &Tree) -> Vec<f32> {
    tree.nodes[ROOT].edges().map(|e| tree.prior(e)).collect()
}

fn assert_priors(tree: &Tree, expected: &[f32]) {
    let priors = root_priors(tree);
    let close = priors
        .iter()
        .zip(expected)
        .all(|(p, e)| (p - e).abs() < 1e-6);
    assert!(
        close && priors.len() == expected.len(),
        "{priors:?} against {expected:?}"
    );
}

#[test]
fn a_root_policy_temperature_flattens_the_roots_priors_once() {
    // Priors 0.54, 0.36, 0.06 (their sum 0.96, the rest to moves not searched): at
    // temperature 2 their square roots, scaled back to 0.96.
    let mut tree = toy(&[0.54, 0.36, 0.06]);
    let roots = [0.54f32.sqrt(), 0.36f32.sqrt(), 0.06f32.sqrt()];
    let sum: f32 = roots.iter().sum();
    let tempered: Vec<f32> = roots.iter().map(|r| r / sum * 0.96).collect();
    tree.temper_root(2.0);
    assert_priors(&tree, &tempered);
    // A second search of the same root does not raise them again; back at 1, the net's.
    tree.temper_root(2.0);
    assert_priors(&tree, &tempered);
    tree.temper_root(1.0);
    assert_priors(&tree, &[0.54, 0.36, 0.06]);
    // Below 1 it sharpens them; a child kept as the new root has the net's priors.
    tree.temper_root(0.5);
    let sharpened = root_priors(&tree);
    assert!(sharpened[0] > 0.54 * 1.2, "{sharpened:?}");
    let child = tree.child_node(ROOT, 0);
    tree.expand(
        child,
        &[(Move::Pass, 0.7), (Move::Play(Point::new(9, 4, 4)), 0.3)],
        false,
    );
    back_up(&mut tree, &[ROOT, child], 1.0);
    tree.keep_subtree(child);
    tree.temper_root(1.0);
    assert_priors(&tree, &[0.7, 0.3]);
}

real_net_test!(
    fn a_search_out_of_time_plays_the_policys_move() {
        let game = Game::new(9, Rules::chinese(7.5));
        let budget = Budget {
            deadline: Some(Instant::now()),
            ..Budget::default()
        };
        let choice = net_search(100, 1).choose(&game, Color::Black, &budget);
        // E5 has the empty board's highest policy (0.2434).
        assert_eq!(choice.mv.to_vertex(9), "E5");
    }
);

real_net_test!(
    fn pondering_leaves_a_tree_for_the_next_move() {
        let mut game = Game::new(9, Rules::chinese(7.5));
        game.play(Color::Black, Move::Play(Point::new(9, 4, 4)))
            .unwrap();
        let mut search = net_search(50, 1);
        // Black ponders on White's move for 200 visits.
        let ponder_budget = Budget {
            playouts: Some(200),
            ..Budget::default()
        };
        assert_eq!(search.ponder(&game, &ponder_budget), 200);
        let tree = &search.tree;
        let reply = tree.edges[tree.ranked_root_children()[0]].mv();
        game.play(Color::White, reply).unwrap();
        search.choose(&game, Color::Black, &Budget::default());
        assert!(search.last_reused() >= 20, "{}", search.last_reused());
    }
);

real_net_test!(
    fn a_second_search_of_a_position_takes_its_evaluations_from_the_nets_cache() {
        let net = Arc::new(real_net());
        let settings = SearchSettings {
            playouts: Some(100),
            threads: 1,
            seed: Some(1),
            ..SearchSettings::default()
        };
        let game = Game::new(9, Rules::chinese(7.0));
        let first = PuctSearch::new(Arc::clone(&net), settings.clone()).choose(
            &game,
            Color::Black,
            &Budget::default(),
        );
        let (hits, misses) = net.cache().hits_and_misses();
        assert_eq!(hits + misses, 100, "one lookup a visit");
        // Another player with the same net and seed searches the same tree from the cache.
        let second = PuctSearch::new(Arc::clone(&net), settings).choose(
            &game,
            Color::Black,
            &Budget::default(),
        );
        let (hits_after, misses_after) = net.cache().hits_and_misses();
        assert_eq!(misses_after, misses, "nothing new to evaluate");
        assert_eq!(hits_after - hits, 100);
        assert_eq!(first.mv, second.mv);
    }
);

/// A 9x9 game with two handicap stones at komi 0.5, White to move.
fn two_stone_game() -> Game {
    let mut game = Game::new(9, Rules::chinese(0.5));
    let stones = fixed_handicap_points(9, 2).expect("two stones fit");
    game.set_handicap(&stones).expect("on an empty board");
    game
}

/// A one-thread search of 60 visits that resigns below 50%, with `handicap_komi_set`.
fn handicap_search(handicap_komi_set: Option<f32>) -> PuctSearch {
    PuctSearch::new(
        Arc::new(real_net()),
        SearchSettings {
            playouts: Some(60),
            threads: 1,
            seed: Some(1),
            resign_threshold: 0.5,
            handicap_komi_set,
            ..SearchSettings::default()
        },
    )
}

real_net_test!(
    fn dynamic_komi_is_off_with_a_net_unless_the_level_asks_for_it() {
        let game = two_stone_game();
        let searched = |handicap_komi_set| {
            let mut search = handicap_search(handicap_komi_set);
            let choice = search.choose(&game, Color::Black, &Budget::default());
            let komi = search.reusable.as_ref().map(|root| root.rules.komi);
            let lead = search.report(false).root.score.map(|score| score.mean);
            (choice.losing, komi, lead.expect("the net's score"))
        };
        let (plain_losing, plain_komi, plain_lead) = searched(None);
        assert_eq!(plain_komi, Some(0.5));
        assert_eq!(plain_losing, Some(false), "two stones up, Black wins");
        // Two stones at 7 points each, less the half point and the 2 points of compensation
        // White has: 12 points more.
        let (dynamic_losing, dynamic_komi, dynamic_lead) = searched(Some(7.0));
        assert_eq!(dynamic_komi, Some(12.5));
        assert_eq!(
            dynamic_losing, None,
            "never resigns on a win rate under extra komi"
        );
        assert!(
            plain_lead - dynamic_lead > 5.0,
            "Black leads by {dynamic_lead} against {plain_lead}"
        );
    }
);

real_net_test!(
    fn white_giving_a_handicap_is_not_losing_while_on_its_schedule() {
        let mut game = two_stone_game();
        let mut search = handicap_search(None);
        let choice = search.choose(&game, Color::White, &Budget::default());
        let report = search.report(false).root;
        assert!(report.winrate < 0.1, "White wins {}", report.winrate);
        // About 20 points behind: less than two stones and the komi's shortfall (about 30).
        assert_eq!(choice.losing, Some(false));
        // Eight more Black stones while White passes: far behind its schedule.
        let extra = [
            (2, 4),
            (4, 2),
            (4, 6),
            (6, 4),
            (4, 4),
            (3, 3),
            (5, 5),
            (3, 5),
        ];
        for (col, row) in extra {
            game.play(Color::White, Move::Pass).expect("a pass");
            let stone = Move::Play(Point::new(9, col, row));
            game.play(Color::Black, stone).expect("an empty point");
        }
        let choice = search.choose(&game, Color::White, &Budget::default());
        assert_eq!(choice.losing, Some(true));
    }
);
