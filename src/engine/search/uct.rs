//! The search loop: every thread repeatedly descends the shared tree (UCT with RAVE and
//! priors), expands the leaf it reaches once it has been visited enough, plays the game out
//! with the playout policy and backs the result up the path, RAVE included. Threads share
//! nothing but the tree's atomics and a playout counter.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::knowledge::tactics::Scratch;
use crate::rules::board::{Board, Color, MAX_CELLS, Point};

use super::budget::Budget;
use super::last_good_reply::ReplyTable;
use super::policy;
use super::priors;
use super::root_tally::{OwnershipBuffer, RootTally};
use super::tree::{HalfWins, NewChild, NodeId, PASS, ROOT, Tree};

/// How the search weighs what it knows.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Real visits a node needs before it gets children (the root always does); see
    /// [`expand_after_for`] for the default.
    pub expand_after: u32,
    /// Playouts at which a move's own results and its RAVE results weigh the same: RAVE's
    /// many but biased results lead while a move has few playouts of its own, and fade as it
    /// gathers them.
    pub rave_equivalence: f32,
    /// How much more a RAVE result counts when its move came right after the node rather
    /// than at the playout's end (see [`amaf_weight`]; Pachi's `distance_rave`, whose default
    /// 3 we keep): early moves follow from the node's position, late ones hardly.
    pub rave_early_weight: u32,
    /// The UCB exploration constant. RAVE and the priors already spread the playouts, so
    /// the default is none, as in Pachi.
    pub exploration: f32,
}

/// Visits before a node is expanded on boards larger than 9x9, where an expansion adds up to
/// 362 children.
const LARGE_BOARD_EXPAND_AFTER: u32 = 8;
/// Visits before a node is expanded on 9x9 and smaller boards, where a small tree is cheap
/// to grow deeper (measured in docs/LOG.md).
const SMALL_BOARD_EXPAND_AFTER: u32 = 4;

/// The default `expand_after` for a board of `size`.
pub fn expand_after_for(size: usize) -> u32 {
    if size <= 9 {
        SMALL_BOARD_EXPAND_AFTER
    } else {
        LARGE_BOARD_EXPAND_AFTER
    }
}

/// The position searched and what the search may spend.
pub struct Problem<'a> {
    /// The position.
    pub board: &'a Board,
    /// Who moves.
    pub to_move: Color,
    /// The opponent's last stone, answered first by the playouts.
    pub last: Option<Point>,
    /// Komi, added to White's area.
    pub komi: f32,
    /// The root's children: the moves the rules allow here, with their priors.
    pub root_children: &'a [NewChild],
    /// Playouts to run for this move at most.
    pub max_playouts: u64,
    /// The deadline and the stop flag (the playouts are in `max_playouts`).
    pub budget: &'a Budget,
    /// Seeds the threads' random generators.
    pub seed: u64,
    /// Stop once the most visited root move can no longer be overtaken (a genmove); an
    /// analysis wants every move's statistics to keep growing instead.
    pub early_stop: bool,
    /// Where to add every playout's score and, when it keeps them, final owners.
    pub tally: Option<&'a RootTally>,
}

/// Shared state of one search.
struct Context<'a> {
    tree: &'a Tree,
    problem: &'a Problem<'a>,
    params: &'a Params,
    started: Instant,
    claimed: AtomicU64,
    stop: AtomicBool,
}

/// Runs the search on `tree` (which must be cleared or hold this position's tree) and returns
/// the number of playouts run.
pub fn run(tree: &Tree, problem: &Problem<'_>, params: &Params) -> u64 {
    let ctx = Context {
        tree,
        problem,
        params,
        started: Instant::now(),
        claimed: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    // The root gets its children before any playout, so that a search stopped at once (an
    // interrupt that arrives first) still has every legal move with its prior to choose from.
    if tree.children(ROOT).is_empty() && tree.claim_expansion(ROOT) {
        tree.expand(ROOT, problem.root_children);
    }
    let threads = params.threads.max(1);
    std::thread::scope(|s| {
        for t in 1..threads {
            let ctx = &ctx;
            s.spawn(move || Worker::new(ctx, t).run());
        }
        Worker::new(&ctx, 0).run();
    });
    ctx.claimed
        .load(Ordering::Relaxed)
        .min(problem.max_playouts)
}

/// How often (in playouts of one thread) the clock and the early stop are looked at.
const CHECK_EVERY: u64 = 64;
/// How many times the second root move's visits the first must have to be clearly ahead:
/// then the search stops at the budget's target rather than going on to its deadline.
const CLEAR_LEAD: f64 = 1.5;

impl Context<'_> {
    /// Claims the right to run one more playout. The outside stop flag (`# interrupt`, the
    /// end of an analysis) is looked at every time, so a stop takes one playout to be seen;
    /// the clock only every [`CHECK_EVERY`] playouts.
    fn claim(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
            && !self.problem.budget.stopped()
            && self.claimed.fetch_add(1, Ordering::Relaxed) < self.problem.max_playouts
    }

    /// Sets the stop flag when time is up: at the deadline, or at the target when the most
    /// visited root move is clearly ahead ([`CLEAR_LEAD`]); or when that move can no longer
    /// be overtaken in the playouts left until then, unless the time saved would be lost.
    fn check(&self) {
        if self.problem.budget.expired() {
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        let budget = self.problem.budget;
        // A target at the deadline (a byo-yomi period) is time that is lost if not spent.
        if !self.problem.early_stop || budget.target.is_some_and(|t| Some(t) == budget.deadline) {
            return;
        }
        let (mut first, mut second) = (0, 0);
        for id in self.tree.children(ROOT) {
            let v = u64::from(self.tree.visits(id));
            if v > first {
                second = first;
                first = v;
            } else if v > second {
                second = v;
            }
        }
        let clear = first as f64 >= CLEAR_LEAD * second as f64;
        let now = Instant::now();
        let until = match budget.target {
            Some(target) if clear && now >= target => {
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            Some(target) if clear => Some(target),
            _ => budget.deadline,
        };
        let done = self.claimed.load(Ordering::Relaxed);
        let mut left = self.problem.max_playouts.saturating_sub(done);
        if let Some(until) = until {
            let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
            let time_left = until.saturating_duration_since(now).as_secs_f64();
            left = left.min((done as f64 / elapsed * time_left) as u64);
        }
        if first > second + left {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// One search thread and its scratch space (allocated once per search, not per playout).
struct Worker<'a> {
    ctx: &'a Context<'a>,
    rng: SmallRng,
    board: Board,
    path: Vec<NodeId>,
    children: Vec<NewChild>,
    scratch: Box<Scratch>,
    /// Per point: the playout (`generation`) and the move number at which it was first
    /// played, and by whom (bit 0: white).
    first_play: Vec<u64>,
    generation: u64,
    /// This thread's last good replies (see [`ReplyTable`]), learned from its playouts.
    replies: Box<ReplyTable>,
    /// The stones of the current playout, tree moves included, from the opponent's last
    /// stone before the root on: what the replies learn from.
    moves: Vec<(Point, Color)>,
    /// Final owners counted here when the search's tally keeps them (analyses).
    ownership: Option<OwnershipBuffer>,
}

impl<'a> Worker<'a> {
    fn new(ctx: &'a Context<'a>, thread: usize) -> Worker<'a> {
        Worker {
            ctx,
            rng: SmallRng::seed_from_u64(
                ctx.problem.seed ^ (thread as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ),
            board: ctx.problem.board.clone(),
            path: Vec::with_capacity(256),
            children: Vec::with_capacity(MAX_CELLS),
            scratch: Scratch::new(),
            first_play: vec![0; MAX_CELLS],
            generation: 0,
            replies: ReplyTable::new(),
            moves: Vec::with_capacity(4 * MAX_CELLS),
            ownership: ctx
                .problem
                .tally
                .filter(|tally| tally.keeps_ownership())
                .map(|_| OwnershipBuffer::default()),
        }
    }

    fn run(mut self) {
        let mut n = 0u64;
        while self.ctx.claim() {
            self.playout();
            n += 1;
            if n.is_multiple_of(CHECK_EVERY) {
                self.ctx.check();
            }
        }
        if let (Some(tally), Some(buffer)) = (self.ctx.problem.tally, self.ownership.as_mut()) {
            tally.flush(buffer);
        }
    }

    /// One descent, playout and backup.
    fn playout(&mut self) {
        let ctx = self.ctx;
        let tree = ctx.tree;
        let problem = ctx.problem;
        self.generation += 1;
        self.board.copy_from(problem.board);
        self.path.clear();
        let mut node = ROOT;
        let mut color = problem.to_move;
        let mut last = problem.last;
        let mut depth = 0u64;
        self.moves.clear();
        self.moves
            .extend(last.map(|l| (l, problem.to_move.opponent())));
        tree.enter(ROOT);
        self.path.push(ROOT);
        loop {
            let mut kids = tree.children(node);
            if kids.is_empty() {
                // [`run`] has expanded the root with its own move list; only a full arena
                // leaves it a leaf, and then nothing more can be expanded.
                if tree.visits(node) > ctx.params.expand_after && tree.claim_expansion(node) {
                    self.children.clear();
                    children_of(
                        &self.board,
                        color,
                        last,
                        &mut self.scratch,
                        &mut self.children,
                    );
                    tree.expand(node, &self.children);
                    kids = tree.children(node);
                }
                if kids.is_empty() {
                    break;
                }
            }
            let child = self.select(node, kids);
            let mv = tree.mv(child);
            if mv == PASS {
                self.board.pass();
                last = None;
            } else {
                let p = Point::from_index(usize::from(mv));
                self.board.play(p, color);
                self.mark(p, color, depth);
                self.moves.push((p, color));
                last = Some(p);
            }
            tree.enter(child);
            self.path.push(child);
            node = child;
            color = color.opponent();
            depth += 1;
        }

        let generation = self.generation;
        let first_play = &mut self.first_play;
        let moves = &mut self.moves;
        let mut move_number = depth;
        let outcome = policy::play_out(
            &mut self.board,
            color,
            last,
            &mut self.rng,
            &mut self.scratch,
            &self.replies,
            |p, c| {
                mark(first_play, generation, p, c, move_number);
                moves.push((p, c));
                move_number += 1;
            },
        );
        let winner = outcome.winner(problem.komi);
        self.replies.learn(&self.moves, winner);
        let margin = outcome.margin(problem.komi);
        if let (Some(tally), Some(&first)) = (problem.tally, self.path.get(1)) {
            tally.record_score(tree.mv(first), margin);
            if tally.keeps_moves_ownership() {
                tally.record_move_owners(tree.mv(first), &self.board);
            }
            if let Some(buffer) = self.ownership.as_mut() {
                buffer.add(&self.board);
            }
        }
        let black: HalfWins = match winner {
            Some(Color::Black) => 2,
            Some(Color::White) => 0,
            None => 1,
        };
        self.back_up(black, move_number);
    }

    fn mark(&mut self, p: Point, c: Color, move_number: u64) {
        mark(&mut self.first_play, self.generation, p, c, move_number);
    }

    /// Adds the result (`black`: Black's half wins) to every node of the path, and to the
    /// RAVE statistics of every child whose move its player made later in this playout of
    /// `moves` moves (tree moves included), weighted by how early (see [`Params`]).
    fn back_up(&self, black: HalfWins, moves: u64) {
        let tree = self.ctx.tree;
        let early_weight = u64::from(self.ctx.params.rave_early_weight);
        let root_player = self.ctx.problem.to_move;
        for (depth, &id) in self.path.iter().enumerate() {
            // The node at depth d (d >= 1) was reached by move d - 1; the root's "mover" is the
            // opponent of the player to move there.
            let to_play = if depth % 2 == 0 {
                root_player
            } else {
                root_player.opponent()
            };
            let for_to_play = if to_play == Color::Black {
                black
            } else {
                2 - black
            };
            tree.record(id, 2 - for_to_play);
            // Moves from the node on: the child moves' numbers run from `depth`.
            let span = moves - depth as u64 + 1;
            for child in tree.children(id) {
                let mv = tree.mv(child);
                if mv == PASS {
                    continue;
                }
                let stamp = self.first_play[usize::from(mv)];
                let played_at = (stamp >> 1) & 0x7fff_ffff;
                if stamp >> 32 == self.generation
                    && played_at >= depth as u64
                    && (stamp & 1 == 1) == (to_play == Color::White)
                {
                    let weight = amaf_weight(early_weight, moves - played_at, span);
                    tree.record_amaf(child, for_to_play, weight);
                }
            }
        }
    }

    /// The child of `node` with the best RAVE-blended value plus exploration.
    fn select(&self, node: NodeId, kids: std::ops::Range<NodeId>) -> NodeId {
        let tree = self.ctx.tree;
        let params = self.ctx.params;
        // Without an exploration term (the default) the logarithm is never needed.
        let log_parent = if params.exploration > 0.0 {
            (tree.visits(node).max(1) as f32).ln()
        } else {
            0.0
        };
        let mut best = kids.start;
        let mut best_urgency = f32::MIN;
        for id in kids {
            let s = tree.stats(id);
            let n = (s.visits + s.prior_visits) as f32;
            let q = if n > 0.0 {
                (s.wins + s.prior_wins) as f32 / (2.0 * n)
            } else {
                0.5
            };
            let value = if s.amaf_visits > 0 {
                let an = s.amaf_visits as f32;
                let amaf = s.amaf_wins as f32 / (2.0 * an);
                let beta = an / (an + n + n * an / params.rave_equivalence);
                (1.0 - beta) * q + beta * amaf
            } else {
                q
            };
            let urgency = value + params.exploration * (log_parent / (n + 1.0)).sqrt();
            if urgency > best_urgency {
                best_urgency = urgency;
                best = id;
            }
        }
        best
    }
}

/// How many RAVE results a move counts for: `1 + early_weight · moves_after / span`, rounded
/// down, where `moves_after` counts the playout's moves from this one to its end and `span`
/// is one more than all the moves from the node on. With `early_weight` 3 a move counts
/// three times in the first third after the node, twice in the second and once in the last.
#[inline]
fn amaf_weight(early_weight: u64, moves_after: u64, span: u64) -> u64 {
    1 + early_weight * moves_after / span
}

/// Records that `p` was played by `c` at `move_number` in playout `generation`, unless it was
/// played earlier in the same playout.
#[inline]
fn mark(first_play: &mut [u64], generation: u64, p: Point, c: Color, move_number: u64) {
    let slot = &mut first_play[p.index()];
    if *slot >> 32 != generation {
        *slot = generation << 32 | (move_number & 0x7fff_ffff) << 1 | u64::from(c == Color::White);
    }
}

/// The children of a node inside the tree: every empty point the board allows that is not an
/// own eye, and the pass.
fn children_of(
    board: &Board,
    c: Color,
    last: Option<Point>,
    scratch: &mut Scratch,
    out: &mut Vec<NewChild>,
) {
    for p in board.empty_points() {
        if board.is_sensible(p, c) {
            out.push(priors::stone(board, p, c, last, scratch));
        }
    }
    out.push(priors::pass());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_moves_weigh_more_in_rave() {
        // 60 moves from the node on: thirds of the playout count 3, 2 and 1 times.
        let span = 61;
        assert_eq!(amaf_weight(3, 60, span), 3);
        assert_eq!(amaf_weight(3, 41, span), 3);
        assert_eq!(amaf_weight(3, 30, span), 2);
        assert_eq!(amaf_weight(3, 1, span), 1);
        // Without the weight every move counts once.
        assert_eq!(amaf_weight(0, 60, span), 1);
    }
}
