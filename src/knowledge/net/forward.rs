//! The forward pass on the CPU: a batch of [`Features`] through a [`Model`] at the board's own
//! size (KataGo pads to 19x19 with a mask; convolutions see zeros off the board, pooling divides
//! by the board's area, attention and RMSNorms pass over masked points, and RoPE's angles depend
//! only on a point's coordinates, so the numbers are the same), then KataGo's post-processing
//! (`nneval.cpp`) into a [`NetOutput`] from White's view.

pub mod conv;
mod lanes;
mod matmul;
mod ops;
mod output;
pub mod symmetry;
mod transformer;
pub mod winograd;

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use super::cache::{DEFAULT_CACHE_POSITIONS, EvalCache};
use super::inputs::InputOptions;
use super::model::{Block, Conv, MatMul, Model, NetError, Tip};
use super::{Features, GLOBAL_FEATURES, NetOutput, SPATIAL_FEATURES};

/// A loaded network, ready to evaluate; cheap to clone (the weights and the cache of
/// evaluations are shared).
#[derive(Clone, Debug)]
pub struct Net {
    model: Arc<Model>,
    cache: Arc<EvalCache>,
}

/// The optimism `kata-raw-nn` uses when none is given (KataGo's `rootPolicyOptimism` default
/// for GTP: `min(policyOptimism, 0.2)`); it matters only to nets with an optimistic policy.
pub const DEFAULT_OPTIMISM: f32 = 0.2;

/// What the net's layers produce for a batch, before post-processing: in the net's own
/// orientation, NHWC.
struct RawOutputs {
    /// `[board][point][policy channel]`.
    policy: Vec<f32>,
    /// `[board][policy channel]`.
    pass: Vec<f32>,
    /// `[board][3]`: win, loss, no-result logits for the player to move.
    value: Vec<f32>,
    /// `[board][4 or 6]`.
    score: Vec<f32>,
    /// `[board][point]`.
    ownership: Vec<f32>,
}

/// Buffers of one nesting level of blocks.
#[derive(Default)]
struct Level {
    /// The stream after a block's first norm-act.
    normed: Vec<f32>,
    /// A block's middle activations.
    mid: Vec<f32>,
    /// The stream inside a nested bottleneck block.
    inner: Vec<f32>,
}

/// Per-thread working memory, grown to the largest batch seen and reused.
#[derive(Default)]
struct Scratch {
    /// The spatial inputs under each board's symmetry, NHWC.
    input: Vec<f32>,
    /// The global inputs, one row per board.
    global: Vec<f32>,
    /// The residual stream.
    trunk: Vec<f32>,
    /// The convolutions' unrolled inputs or Winograd tiles.
    unrolled: Vec<f32>,
    /// Per nesting level of blocks; `levels[0].normed` ends as the trunk's output.
    levels: Vec<Level>,
    /// Pooled features, `3 * channels` per board.
    pooled: Vec<f32>,
    /// A per-board vector: a bias from the global inputs or a pooling, or a hidden layer.
    per_board: Vec<f32>,
    /// The heads' spatial layers (p1, then v1).
    head_a: Vec<f32>,
    /// The policy head's pooled branch (g1).
    head_b: Vec<f32>,
    /// The transformer blocks' buffers.
    transformer: transformer::Buffers,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `buf` holding exactly `len` values (contents unspecified).
pub(super) fn sized(buf: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buf.len() < len {
        buf.resize(len, 0.0);
    }
    &mut buf[..len]
}

impl Net {
    /// Loads a model file (`.bin.gz`, `.txt.gz`, `.gz`, `.bin`, `.txt`).
    pub fn load(path: &Path) -> Result<Net, NetError> {
        Ok(Net::from_model(Model::load(path)?))
    }

    /// A net from a model already read, its 3x3 kernels transformed for Winograd's method.
    pub fn from_model(mut model: Model) -> Net {
        model.for_each_conv(&mut |conv| {
            if conv.ksize == 3 {
                conv.transformed =
                    winograd::transform_kernel(&conv.weights, conv.in_channels, conv.out_channels);
            }
        });
        Net {
            model: Arc::new(model),
            cache: Arc::new(EvalCache::new(DEFAULT_CACHE_POSITIONS)),
        }
    }

    /// The cache of evaluations every search on this net shares.
    pub fn cache(&self) -> &EvalCache {
        &self.cache
    }

    /// The evaluation of `features` with policy `optimism`: the cache's when it holds one
    /// (under whichever symmetry evaluated it), else evaluated under `symmetry` and kept.
    pub fn evaluate_cached(
        &self,
        features: &Features,
        symmetry: usize,
        optimism: f32,
    ) -> Arc<NetOutput> {
        self.evaluate_cached_batch(&[(features, symmetry)], optimism)
            .pop()
            .expect("one output per input")
    }

    /// The evaluations of `inputs` (features and symmetry) with policy `optimism`, as
    /// [`Net::evaluate_cached`] gives each, the ones the cache lacks evaluated in one batch.
    pub fn evaluate_cached_batch(
        &self,
        inputs: &[(&Features, usize)],
        optimism: f32,
    ) -> Vec<Arc<NetOutput>> {
        let keys: Vec<u64> = inputs
            .iter()
            .map(|(features, _)| EvalCache::key(features, optimism))
            .collect();
        let found: Vec<Option<Arc<NetOutput>>> = keys.iter().map(|&k| self.cache.get(k)).collect();
        let missing: Vec<(&Features, usize)> = inputs
            .iter()
            .zip(&found)
            .filter(|(_, out)| out.is_none())
            .map(|(&input, _)| input)
            .collect();
        let mut evaluated = self
            .evaluate_batch(&missing, optimism)
            .into_iter()
            .map(Arc::new);
        found
            .into_iter()
            .zip(keys)
            .map(|(out, key)| {
                out.unwrap_or_else(|| {
                    let output = evaluated.next().expect("one output per input");
                    self.cache.insert(key, Arc::clone(&output));
                    output
                })
            })
            .collect()
    }

    /// The model's name, as its file gives it.
    pub fn name(&self) -> &str {
        &self.model.name
    }

    /// The model version (8 to 17).
    pub fn version(&self) -> i32 {
        self.model.version
    }

    /// Whether the policy head has the optimistic channel that `optimism` mixes in.
    pub fn has_optimism_channel(&self) -> bool {
        self.model.policy_channels() == 2
    }

    /// The input options KataGo evaluates this net with outside a search (`kata-raw-nn`): its
    /// area features as if suicide were legal when the model asks for that.
    pub fn input_options(&self) -> InputOptions {
        InputOptions {
            pass_alive_as_if_suicide_legal: self.model.pass_alive_as_if_suicide_legal,
            ..InputOptions::default()
        }
    }

    /// The model as read.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The floating-point operations of one evaluation on a `size x size` board: two per
    /// multiply-add of every convolution (counted as a direct one) and matrix product, those
    /// of attention between every two points included.
    pub fn flops(&self, size: usize) -> u64 {
        let area = (size * size) as u64;
        let conv = |c: &Conv| conv_flops(c, area);
        let m = &*self.model;
        let (p, v) = (&m.policy, &m.value);
        let pass =
            mul_flops(&p.pass_mul) + p.pass_extra.as_ref().map_or(0, |(_, _, m2)| mul_flops(m2));
        conv(&m.trunk.initial_conv)
            + mul_flops(&m.trunk.initial_matmul)
            + m.trunk
                .blocks
                .iter()
                .map(|b| block_flops(b, area))
                .sum::<u64>()
            + conv(&p.p1)
            + conv(&p.g1.conv)
            + mul_flops(&p.gpool_to_bias)
            + conv(&p.p2)
            + pass
            + conv(&v.v1.conv)
            + mul_flops(&v.v2)
            + mul_flops(&v.v3)
            + mul_flops(&v.sv3)
            + conv(&v.ownership)
    }

    /// Evaluates one position under `symmetry` (0-7) with policy `optimism` (0-1, used by
    /// nets with the optimistic channel).
    ///
    /// # Panics
    /// If `symmetry` is not 0-7 or the features' planes or legal points do not fit their size
    /// (features are built by `net::inputs`, never read from outside).
    pub fn evaluate(&self, features: &Features, symmetry: usize, optimism: f32) -> NetOutput {
        self.evaluate_batch(&[(features, symmetry)], optimism)
            .pop()
            .expect("one output per input")
    }

    /// Evaluates positions, each under its symmetry, in one pass per run of equal board sizes
    /// (panics as [`Net::evaluate`] does).
    pub fn evaluate_batch(&self, inputs: &[(&Features, usize)], optimism: f32) -> Vec<NetOutput> {
        let mut outputs = Vec::with_capacity(inputs.len());
        let mut start = 0;
        while start < inputs.len() {
            let size = inputs[start].0.size;
            let end = start
                + inputs[start..]
                    .iter()
                    .take_while(|(f, _)| f.size == size)
                    .count();
            let run = &inputs[start..end];
            let raw = SCRATCH.with(|s| self.run(run, size, &mut s.borrow_mut()));
            for (i, &(features, symmetry)) in run.iter().enumerate() {
                outputs.push(output::post_process(
                    &self.model,
                    features,
                    &raw,
                    i,
                    symmetry,
                    optimism,
                ));
            }
            start = end;
        }
        outputs
    }

    /// The layers, for boards of one size.
    fn run(&self, inputs: &[(&Features, usize)], size: usize, s: &mut Scratch) -> RawOutputs {
        let m = &*self.model;
        let boards = inputs.len();
        let area = size * size;
        let points = boards * area;
        let input = sized(&mut s.input, points * SPATIAL_FEATURES);
        let global = sized(&mut s.global, boards * GLOBAL_FEATURES);
        for (b, &(f, symmetry)) in inputs.iter().enumerate() {
            assert!(symmetry < 8, "symmetry {symmetry} is not 0-7");
            assert_eq!(f.spatial.len(), SPATIAL_FEATURES * area, "spatial features");
            assert_eq!(f.legal.len(), area, "legal points");
            symmetry::inputs_to_nhwc(
                &f.spatial,
                SPATIAL_FEATURES,
                size,
                symmetry,
                &mut input[b * area * SPATIAL_FEATURES..(b + 1) * area * SPATIAL_FEATURES],
            );
            global[b * GLOBAL_FEATURES..(b + 1) * GLOBAL_FEATURES].copy_from_slice(&f.global);
        }

        // Trunk: the inputs' conv plus the global inputs' product as a per-board bias.
        let c = m.trunk.channels;
        let trunk = sized(&mut s.trunk, points * c);
        conv::conv2d(
            input,
            boards,
            size,
            &m.trunk.initial_conv,
            trunk,
            false,
            &mut s.unrolled,
        );
        let per_board = sized(&mut s.per_board, boards * c);
        matmul::matmul(
            global,
            &m.trunk.initial_matmul.weights,
            per_board,
            boards,
            GLOBAL_FEATURES,
            c,
            false,
        );
        ops::add_per_board(trunk, per_board, area, c);
        let depth = nesting(&m.trunk.blocks);
        if s.levels.len() < depth {
            s.levels.resize_with(depth, Level::default);
        }
        run_blocks(
            &m.trunk.blocks,
            trunk,
            c,
            boards,
            size,
            &mut s.levels,
            &mut s.unrolled,
            &mut s.pooled,
            &mut s.per_board,
            &mut s.transformer,
        );
        // The trunk's final norm, into a buffer the heads read.
        let tip = sized(&mut s.levels[0].normed, points * c);
        match &m.trunk.tip {
            Tip::Norm(norm) => ops::norm_act(trunk, norm, tip),
            Tip::RmsNorm(norm) => transformer::tip_rms_norm(trunk, norm, area, tip),
        }
        let tip = &*tip;

        // Policy head.
        let ph = &m.policy;
        let p1c = ph.p1.out_channels;
        let g1c = ph.g1.conv.out_channels;
        let pc = m.policy_channels();
        let p1 = sized(&mut s.head_a, points * p1c);
        conv::conv2d(tip, boards, size, &ph.p1, p1, false, &mut s.unrolled);
        let g1 = sized(&mut s.head_b, points * g1c);
        conv::conv2d(tip, boards, size, &ph.g1.conv, g1, false, &mut s.unrolled);
        ops::bias_act(g1, &ph.g1.bias, ph.g1.act);
        let pooled = sized(&mut s.pooled, boards * 3 * g1c);
        ops::pool(g1, boards, area, g1c, pooled);
        let per_board = sized(&mut s.per_board, boards * p1c);
        matmul::matmul(
            pooled,
            &ph.gpool_to_bias.weights,
            per_board,
            boards,
            3 * g1c,
            p1c,
            false,
        );
        ops::add_per_board(p1, per_board, area, p1c);
        ops::bias_act(p1, &ph.p1_bias, ph.p1_act);
        let mut policy = vec![0.0; points * pc];
        conv::conv2d(
            p1,
            boards,
            size,
            &ph.p2,
            &mut policy,
            false,
            &mut s.unrolled,
        );
        let mut pass = vec![0.0; boards * pc];
        match &ph.pass_extra {
            None => matmul::matmul(
                pooled,
                &ph.pass_mul.weights,
                &mut pass,
                boards,
                3 * g1c,
                pc,
                false,
            ),
            Some((bias, act, mul2)) => {
                let hidden = sized(&mut s.per_board, boards * p1c);
                matmul::matmul(
                    pooled,
                    &ph.pass_mul.weights,
                    hidden,
                    boards,
                    3 * g1c,
                    p1c,
                    false,
                );
                ops::bias_act(hidden, bias, *act);
                matmul::matmul(hidden, &mul2.weights, &mut pass, boards, p1c, pc, false);
            }
        }

        // Value head.
        let vh = &m.value;
        let v1c = vh.v1.conv.out_channels;
        let v1 = sized(&mut s.head_a, points * v1c);
        conv::conv2d(tip, boards, size, &vh.v1.conv, v1, false, &mut s.unrolled);
        ops::bias_act(v1, &vh.v1.bias, vh.v1.act);
        let pooled = sized(&mut s.pooled, boards * 3 * v1c);
        ops::pool_value(v1, boards, area, v1c, pooled);
        let v2c = vh.v2.out_channels;
        let v2 = sized(&mut s.per_board, boards * v2c);
        matmul::matmul(pooled, &vh.v2.weights, v2, boards, 3 * v1c, v2c, false);
        ops::bias_act(v2, &vh.v2_bias, vh.v2_act);
        let mut value = vec![0.0; boards * 3];
        matmul::matmul(v2, &vh.v3.weights, &mut value, boards, v2c, 3, false);
        ops::bias_act(&mut value, &vh.v3_bias, super::model::Activation::Identity);
        let sc = vh.sv3.out_channels;
        let mut score = vec![0.0; boards * sc];
        matmul::matmul(v2, &vh.sv3.weights, &mut score, boards, v2c, sc, false);
        ops::bias_act(&mut score, &vh.sv3_bias, super::model::Activation::Identity);
        let mut ownership = vec![0.0; points];
        conv::conv2d(
            v1,
            boards,
            size,
            &vh.ownership,
            &mut ownership,
            false,
            &mut s.unrolled,
        );

        RawOutputs {
            policy,
            pass,
            value,
            score,
            ownership,
        }
    }
}

/// The floating-point operations of a convolution (counted as a direct one) on `area` points.
fn conv_flops(c: &Conv, area: u64) -> u64 {
    2 * area * (c.ksize * c.ksize * c.in_channels * c.out_channels) as u64
}

/// The floating-point operations of a matrix product on one vector.
fn mul_flops(m: &MatMul) -> u64 {
    2 * (m.in_channels * m.out_channels) as u64
}

/// The floating-point operations of a block on a board of `area` points.
fn block_flops(block: &Block, area: u64) -> u64 {
    let conv = |c: &Conv| conv_flops(c, area);
    match block {
        Block::Ordinary { first, last, .. } => conv(&first.conv) + conv(last),
        Block::GlobalPooling {
            regular,
            gpool,
            gpool_to_bias,
            last,
            ..
        } => conv(regular) + conv(&gpool.conv) + mul_flops(gpool_to_bias) + conv(last),
        Block::NestedBottleneck {
            pre_conv,
            blocks,
            post_conv,
            ..
        } => {
            conv(pre_conv)
                + blocks.iter().map(|b| block_flops(b, area)).sum::<u64>()
                + conv(post_conv)
        }
        Block::Attention(a) => {
            let projections: u64 = [&a.q, &a.k, &a.v, &a.out]
                .iter()
                .map(|m| area * mul_flops(m))
                .sum();
            // Every query point against every key point: scores, then the weighted values.
            projections + 2 * area * area * (a.heads * (a.q_dim + a.v_dim)) as u64
        }
        Block::FeedForward(f) => {
            area * (mul_flops(&f.linear1) + mul_flops(&f.gate) + mul_flops(&f.linear2))
        }
    }
}

/// How many levels of blocks a stack holds (1 for a stack without nested blocks).
fn nesting(blocks: &[Block]) -> usize {
    1 + blocks
        .iter()
        .map(|b| match b {
            Block::NestedBottleneck { blocks, .. } => nesting(blocks),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// Runs residual blocks over `stream` (`boards` boards of `size`, `c` channels), in place;
/// `levels[0]` holds this stack's buffers, the rest those of the stacks nested in it.
#[allow(clippy::too_many_arguments)]
fn run_blocks(
    blocks: &[Block],
    stream: &mut [f32],
    c: usize,
    boards: usize,
    size: usize,
    levels: &mut [Level],
    unrolled: &mut Vec<f32>,
    pooled: &mut Vec<f32>,
    per_board: &mut Vec<f32>,
    attention: &mut transformer::Buffers,
) {
    let area = size * size;
    let points = boards * area;
    let Some((lv, deeper)) = levels.split_first_mut() else {
        unreachable!("levels sized to the model's nesting");
    };
    for block in blocks {
        let normed = sized(&mut lv.normed, points * c);
        match block {
            Block::Ordinary { pre, first, last } => {
                ops::norm_act(stream, pre, normed);
                let mc = first.conv.out_channels;
                let mid = sized(&mut lv.mid, points * mc);
                conv::conv2d(normed, boards, size, &first.conv, mid, false, unrolled);
                ops::bias_act(mid, &first.bias, first.act);
                conv::conv2d(mid, boards, size, last, stream, true, unrolled);
            }
            Block::GlobalPooling {
                pre,
                regular,
                gpool,
                gpool_to_bias,
                mid_bias,
                mid_act,
                last,
            } => {
                ops::norm_act(stream, pre, normed);
                let gc = gpool.conv.out_channels;
                // The pooled branch first, in `mid`, then the regular branch over it.
                let g = sized(&mut lv.mid, points * gc);
                conv::conv2d(normed, boards, size, &gpool.conv, g, false, unrolled);
                ops::bias_act(g, &gpool.bias, gpool.act);
                let pool_out = sized(pooled, boards * 3 * gc);
                ops::pool(g, boards, area, gc, pool_out);
                let mc = regular.out_channels;
                let bias = sized(per_board, boards * mc);
                matmul::matmul(
                    pool_out,
                    &gpool_to_bias.weights,
                    bias,
                    boards,
                    3 * gc,
                    mc,
                    false,
                );
                let mid = sized(&mut lv.mid, points * mc);
                conv::conv2d(normed, boards, size, regular, mid, false, unrolled);
                ops::add_per_board(mid, bias, area, mc);
                ops::bias_act(mid, mid_bias, *mid_act);
                conv::conv2d(mid, boards, size, last, stream, true, unrolled);
            }
            Block::NestedBottleneck {
                pre,
                pre_conv,
                blocks: inner_blocks,
                post,
                post_conv,
            } => {
                ops::norm_act(stream, pre, normed);
                let ic = pre_conv.out_channels;
                let mut inner_buf = std::mem::take(&mut lv.inner);
                let inner = sized(&mut inner_buf, points * ic);
                conv::conv2d(normed, boards, size, pre_conv, inner, false, unrolled);
                run_blocks(
                    inner_blocks,
                    inner,
                    ic,
                    boards,
                    size,
                    deeper,
                    unrolled,
                    pooled,
                    per_board,
                    attention,
                );
                let post_normed = sized(&mut lv.mid, points * ic);
                ops::norm_act(inner, post, post_normed);
                conv::conv2d(post_normed, boards, size, post_conv, stream, true, unrolled);
                lv.inner = inner_buf;
            }
            Block::Attention(a) => transformer::attention(stream, a, boards, size, attention),
            Block::FeedForward(f) => transformer::feed_forward(stream, f, points, attention),
        }
    }
}

#[cfg(test)]
mod tests;
