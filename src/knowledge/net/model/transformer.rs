//! The layers of KataGo's transformer nets as its `desc.cpp` reads them: the RMSNorm at the
//! trunk's tip, and the attention and feed-forward blocks (model version 15 on).

use super::reader::Reader;
use super::{Activation, Block, MatMul, Problem, expect_eq, parse_activation, parse_matmul};

/// The RMSNorm before a transformer block's layers: each point's channels divided by their
/// root mean square (with `epsilon` under the root), times `weight`.
#[derive(Clone, Debug)]
pub struct RmsNorm {
    pub weight: Vec<f32>,
    pub epsilon: f32,
}

/// The RMSNorm at the tip of a transformer trunk: over each point's channels, or over the whole
/// board's (`spatial`), then `gamma`, `beta` and the activation.
#[derive(Clone, Debug)]
pub struct TipRmsNorm {
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
    pub epsilon: f32,
    pub spatial: bool,
    pub act: Activation,
}

/// Rotary position encoding: each query and key channel pair turns by an angle
/// `x * fx + y * fy` at point `(x, y)`.
#[derive(Clone, Debug)]
pub enum Rope {
    /// Frequencies learned per key/value head and pair: `[head][pair][fx, fy]`.
    Learned(Vec<f32>),
    /// KataGo's fixed frequencies `theta^(-2p / pairs)`: the first half of the pairs turn
    /// with the row, the second half with the column.
    Fixed { theta: f32 },
}

impl Rope {
    /// `(fx, fy)` of key/value `head`'s `pair` of `pairs`.
    pub fn frequencies(&self, head: usize, pair: usize, pairs: usize) -> (f32, f32) {
        match self {
            Rope::Learned(freqs) => {
                let f = &freqs[(head * pairs + pair) * 2..];
                (f[0], f[1])
            }
            Rope::Fixed { theta } => {
                let per_axis = pairs / 2;
                let freq = |p: usize| 1.0 / theta.powf((2 * p) as f32 / pairs as f32);
                if pair < per_axis {
                    (0.0, freq(pair))
                } else {
                    (freq(pair - per_axis), 0.0)
                }
            }
        }
    }
}

/// Multi-head attention over the board's points, added to the stream.
#[derive(Clone, Debug)]
pub struct Attention {
    pub norm: RmsNorm,
    pub heads: usize,
    /// Key/value heads: each serves `heads / kv_heads` query heads.
    pub kv_heads: usize,
    /// The channels of a query (and key) head.
    pub q_dim: usize,
    /// The channels of a value head.
    pub v_dim: usize,
    pub q: MatMul,
    pub k: MatMul,
    pub v: MatMul,
    pub out: MatMul,
    pub rope: Option<Rope>,
}

/// The SwiGLU feed-forward block: `linear2(silu(linear1(x)) * gate(x))` of the normed stream,
/// added to the stream.
#[derive(Clone, Debug)]
pub struct FeedForward {
    pub norm: RmsNorm,
    pub linear1: MatMul,
    pub gate: MatMul,
    pub linear2: MatMul,
}

/// Fails naming `layer` unless `epsilon` is in (0, 1], as KataGo requires.
fn check_epsilon(layer: &str, epsilon: f32) -> Result<(), Problem> {
    if epsilon > 0.0 && epsilon <= 1.0 {
        Ok(())
    } else {
        Err(Problem::Field {
            layer: layer.to_string(),
            what: format!("RMSNorm epsilon {epsilon} is not in (0, 1]"),
        })
    }
}

/// A C++ `int` read as KataGo reads a boolean option: anything but 0 is true.
fn option(r: &mut Reader, layer: &str, what: &str) -> Result<bool, Problem> {
    Ok(r.int(layer, what)? != 0)
}

/// A matrix product of `inputs` to `outputs` channels, each given with what it is checked
/// against.
fn parse_sized_matmul(
    r: &mut Reader,
    inputs: (usize, &str),
    outputs: (usize, &str),
) -> Result<MatMul, Problem> {
    let (name, mul) = parse_matmul(r)?;
    expect_eq(&name, inputs.1, mul.in_channels, inputs.0)?;
    expect_eq(&name, outputs.1, mul.out_channels, outputs.0)?;
    Ok(mul)
}

fn parse_rms_norm(r: &mut Reader, channels: usize) -> Result<RmsNorm, Problem> {
    let name = r.token("an RMSNorm", "its name")?.to_string();
    let count = r.positive(&name, "the channels")?;
    let epsilon = r.float(&name, "epsilon")?;
    check_epsilon(&name, epsilon)?;
    expect_eq(&name, "channels against the stream", count, channels)?;
    let weight = r.floats(&name, Some(count))?;
    Ok(RmsNorm { weight, epsilon })
}

/// The trunk's final RMSNorm, `channels` wide, and the activation after it.
pub(super) fn parse_tip(
    r: &mut Reader,
    channels: usize,
    version: i32,
) -> Result<TipRmsNorm, Problem> {
    let name = r.token("the trunk's RMSNorm", "its name")?.to_string();
    let count = r.positive(&name, "the channels")?;
    let epsilon = r.float(&name, "epsilon")?;
    check_epsilon(&name, epsilon)?;
    let spatial = option(r, &name, "spatial")?;
    let group = r.int(&name, "cgroupSize")?;
    if group != 0 {
        return Err(Problem::Unsupported {
            kind: format!("a grouped RMSNorm ({name}, cgroupSize {group})"),
        });
    }
    expect_eq(&name, "channels against the trunk", count, channels)?;
    Ok(TipRmsNorm {
        gamma: r.floats(&name, Some(count))?,
        beta: r.floats(&name, Some(count))?,
        epsilon,
        spatial,
        act: parse_activation(r, version)?,
    })
}

pub(super) fn parse_attention(r: &mut Reader, channels: usize) -> Result<Block, Problem> {
    let name = r
        .token("a transformer attention block", "its name")?
        .to_string();
    let heads = r.positive(&name, "numHeads")?;
    let kv_heads = r.positive(&name, "numKVHeads")?;
    let q_dim = r.positive(&name, "qHeadDim")?;
    let v_dim = r.positive(&name, "vHeadDim")?;
    let use_rope = option(r, &name, "useRope")?;
    let learned_rope = option(r, &name, "learnableRope")?;
    let field = |what: String| Problem::Field {
        layer: name.clone(),
        what,
    };
    if !heads.is_multiple_of(kv_heads) {
        return Err(field(format!(
            "numHeads {heads} is not a multiple of numKVHeads {kv_heads}"
        )));
    }
    if use_rope && !q_dim.is_multiple_of(2) {
        return Err(field(format!("qHeadDim {q_dim} is odd, with RoPE")));
    }
    let norm = parse_rms_norm(r, channels)?;
    let stream = (channels, "inputs against the stream");
    let q = parse_sized_matmul(r, stream, (heads * q_dim, "outputs (numHeads * qHeadDim)"))?;
    let k = parse_sized_matmul(
        r,
        stream,
        (kv_heads * q_dim, "outputs (numKVHeads * qHeadDim)"),
    )?;
    let v = parse_sized_matmul(
        r,
        stream,
        (kv_heads * v_dim, "outputs (numKVHeads * vHeadDim)"),
    )?;
    let out = parse_sized_matmul(
        r,
        (heads * v_dim, "inputs (numHeads * vHeadDim)"),
        (channels, "outputs against the stream"),
    )?;
    let rope = match (use_rope, learned_rope) {
        (false, _) => None,
        (true, true) => {
            let freqs_name = r.token(&name, "the RoPE frequencies' name")?.to_string();
            let rope_heads = r.positive(&freqs_name, "its heads")?;
            let rope_pairs = r.positive(&freqs_name, "its pairs")?;
            let two = r.positive(&freqs_name, "its last dimension")?;
            expect_eq(
                &freqs_name,
                "heads against numKVHeads",
                rope_heads,
                kv_heads,
            )?;
            expect_eq(
                &freqs_name,
                "pairs against qHeadDim / 2",
                rope_pairs,
                q_dim / 2,
            )?;
            expect_eq(&freqs_name, "last dimension", two, 2)?;
            Some(Rope::Learned(
                r.floats(&freqs_name, Some(kv_heads * q_dim))?,
            ))
        }
        (true, false) => {
            let theta_name = r.token(&name, "the RoPE theta's name")?.to_string();
            let theta = r.float(&theta_name, "theta")?;
            if !(theta > 0.0 && theta.is_finite()) {
                return Err(field(format!(
                    "RoPE theta {theta} is not positive and finite"
                )));
            }
            Some(Rope::Fixed { theta })
        }
    };
    Ok(Block::Attention(Attention {
        norm,
        heads,
        kv_heads,
        q_dim,
        v_dim,
        q,
        k,
        v,
        out,
        rope,
    }))
}

pub(super) fn parse_feed_forward(r: &mut Reader, channels: usize) -> Result<Block, Problem> {
    let name = r
        .token("a transformer feed-forward block", "its name")?
        .to_string();
    let count = r.positive(&name, "numChannels")?;
    let hidden = r.positive(&name, "ffnChannels")?;
    let swiglu = option(r, &name, "useSwiGLU")?;
    expect_eq(&name, "channels against the stream", count, channels)?;
    if !swiglu {
        // No KataGo backend evaluates one either.
        return Err(Problem::Unsupported {
            kind: format!("a feed-forward block without SwiGLU ({name})"),
        });
    }
    let norm = parse_rms_norm(r, channels)?;
    let stream_in = (channels, "inputs against the stream");
    let hidden_out = (hidden, "outputs against ffnChannels");
    let linear1 = parse_sized_matmul(r, stream_in, hidden_out)?;
    let gate = parse_sized_matmul(r, stream_in, hidden_out)?;
    let linear2 = parse_sized_matmul(
        r,
        (hidden, "inputs against ffnChannels"),
        (channels, "outputs against the stream"),
    )?;
    Ok(Block::FeedForward(FeedForward {
        norm,
        linear1,
        gate,
        linear2,
    }))
}
