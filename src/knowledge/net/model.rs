//! KataGo's model files: the `.bin.gz` and `.txt.gz` formats of model versions 8 to 17
//! (convolutional and transformer nets), read as KataGo's `desc.cpp` reads them, with every batch-norm layer folded at load time into the
//! convolution or matrix product before it (or kept as a per-channel scale and bias where it
//! normalises the residual stream). The result, [`Model`], is immutable and shared by all threads.

mod reader;
#[doc(hidden)]
pub mod synthetic;
#[cfg(test)]
mod tests;
mod transformer;

use std::fmt;
use std::io::Read;
use std::path::Path;

use reader::Reader;
pub use transformer::{Attention, FeedForward, RmsNorm, Rope, TipRmsNorm};

/// The oldest model version read.
pub const MIN_VERSION: i32 = 8;
/// The newest model version read.
pub const MAX_VERSION: i32 = 17;

/// A model file that could not be loaded: which file, and what is wrong with it.
#[derive(Debug)]
pub struct NetError {
    /// The file as it was named.
    pub file: String,
    /// What is wrong.
    pub problem: Problem,
}

/// What is wrong with a model file.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// The file could not be read.
    Io(String),
    /// The gzip stream is corrupt or cut short.
    Gzip(String),
    /// The name does not end in `.bin.gz`, `.txt.gz`, `.gz`, `.bin` or `.txt`.
    Extension,
    /// A model version outside 8..=17.
    Version(i64),
    /// The file ends inside a layer.
    Truncated { layer: String, what: String },
    /// A header field that does not parse or holds a value KataGo refuses.
    Field { layer: String, what: String },
    /// Two layers' channel counts that must agree do not.
    Mismatch { layer: String, what: String },
    /// A NaN or infinite weight.
    NonFinite { layer: String },
    /// A block or layer kind this evaluator does not run (SGF-metadata encoders, feed-forward
    /// blocks without SwiGLU, grouped RMSNorms).
    Unsupported { kind: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Io(e) => write!(f, "cannot read the file: {e}"),
            Problem::Gzip(e) => write!(f, "bad gzip stream: {e}"),
            Problem::Extension => {
                write!(
                    f,
                    "a model file ends in .bin.gz, .txt.gz, .gz, .bin or .txt"
                )
            }
            Problem::Version(v) => write!(
                f,
                "model version {v} is not supported (versions {MIN_VERSION} to {MAX_VERSION} are)"
            ),
            Problem::Truncated { layer, what } => {
                write!(f, "truncated in layer {layer}: {what}")
            }
            Problem::Field { layer, what } => write!(f, "layer {layer}: {what}"),
            Problem::Mismatch { layer, what } => write!(f, "layer {layer}: {what}"),
            Problem::NonFinite { layer } => {
                write!(f, "layer {layer}: NaN or infinite weight")
            }
            Problem::Unsupported { kind } => write!(f, "{kind} is not supported"),
        }
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line: a message from below (an io error) never carries a newline here.
        let problem = self.problem.to_string().replace('\n', " ");
        write!(f, "{}: {problem}", self.file)
    }
}

impl std::error::Error for NetError {}

/// An activation function, as KataGo names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    /// `x * tanh(softplus(x))`.
    Mish,
    /// `x / (1 + exp(-x))`.
    Silu,
}

/// A convolution, weights in the file's order `[ky][kx][in][out]` (so that in NHWC it is one
/// matrix product of the unrolled input with a `(k*k*in) x out` matrix).
#[derive(Clone, Debug)]
pub struct Conv {
    /// The kernel's side (odd).
    pub ksize: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
    /// A 3x3 kernel as the forward pass's Winograd path reads it, filled when a net is made
    /// from the model (`forward::winograd::transform_kernel`); empty before and for other sizes.
    pub transformed: Vec<f32>,
}

/// A matrix product, weights `[in][out]`.
#[derive(Clone, Debug)]
pub struct MatMul {
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A batch-norm layer as a per-channel scale and bias, then its activation.
#[derive(Clone, Debug)]
pub struct NormAct {
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
    pub act: Activation,
}

/// A convolution whose batch-norm is folded into its weights and `bias`, then the activation.
#[derive(Clone, Debug)]
pub struct ConvNormAct {
    pub conv: Conv,
    pub bias: Vec<f32>,
    pub act: Activation,
}

/// A residual block.
#[derive(Clone, Debug)]
pub enum Block {
    /// norm-act, conv (+ folded norm) act, conv, added to the stream.
    Ordinary {
        pre: NormAct,
        first: ConvNormAct,
        last: Conv,
    },
    /// As ordinary, with a second branch pooled over the board and added to the first conv's
    /// output as a per-channel bias (before the middle norm, folded into both branches).
    GlobalPooling {
        pre: NormAct,
        /// The first conv, scaled by the middle norm.
        regular: Conv,
        /// The pooled branch's conv with its own norm folded in.
        gpool: ConvNormAct,
        /// Pooled features to the middle channels, scaled by the middle norm.
        gpool_to_bias: MatMul,
        /// The middle norm's bias and activation.
        mid_bias: Vec<f32>,
        mid_act: Activation,
        last: Conv,
    },
    /// norm-act, a conv into fewer channels, a stack of blocks there, norm-act, a conv back.
    NestedBottleneck {
        pre: NormAct,
        pre_conv: Conv,
        blocks: Vec<Block>,
        post: NormAct,
        post_conv: Conv,
    },
    /// Attention over the board's points (transformer nets).
    Attention(Attention),
    /// A point-wise feed-forward block (transformer nets).
    FeedForward(FeedForward),
}

/// The trunk's final normalisation, before the heads.
#[derive(Clone, Debug)]
pub enum Tip {
    /// A batch norm and activation.
    Norm(NormAct),
    /// An RMSNorm and activation (transformer nets).
    RmsNorm(TipRmsNorm),
}

/// The trunk: the inputs into the residual stream, the blocks, the final norm.
#[derive(Clone, Debug)]
pub struct Trunk {
    pub channels: usize,
    pub initial_conv: Conv,
    pub initial_matmul: MatMul,
    pub blocks: Vec<Block>,
    pub tip: Tip,
}

/// The policy head.
#[derive(Clone, Debug)]
pub struct PolicyHead {
    /// p1 conv, scaled by the p1 norm.
    pub p1: Conv,
    pub g1: ConvNormAct,
    /// Pooled g1 to p1's channels, scaled by the p1 norm.
    pub gpool_to_bias: MatMul,
    pub p1_bias: Vec<f32>,
    pub p1_act: Activation,
    /// p1 to the policy channels (1, or 2 with the optimistic policy; the Q-value channels of
    /// versions 16 and 17 are dropped at load time, as KataGo reads none of them).
    pub p2: Conv,
    /// Pooled g1 to the pass logits (to p1's channels from version 15).
    pub pass_mul: MatMul,
    /// Version 15's pass layers: bias, activation, then to the policy channels.
    pub pass_extra: Option<(Vec<f32>, Activation, MatMul)>,
}

/// The value head.
#[derive(Clone, Debug)]
pub struct ValueHead {
    pub v1: ConvNormAct,
    pub v2: MatMul,
    pub v2_bias: Vec<f32>,
    pub v2_act: Activation,
    /// Win, loss, no-result logits.
    pub v3: MatMul,
    pub v3_bias: Vec<f32>,
    /// The score outputs: 4 in version 8, 6 from version 9.
    pub sv3: MatMul,
    pub sv3_bias: Vec<f32>,
    pub ownership: Conv,
}

/// The constants the score outputs are scaled by: KataGo's defaults before version 13, read
/// from the file from 13 on.
#[derive(Clone, Debug, PartialEq)]
pub struct PostProcess {
    pub td_score_multiplier: f64,
    pub score_mean_multiplier: f64,
    pub score_stdev_multiplier: f64,
    pub lead_multiplier: f64,
    pub variance_time_multiplier: f64,
    pub shortterm_value_error_multiplier: f64,
    pub shortterm_score_error_multiplier: f64,
}

impl Default for PostProcess {
    fn default() -> Self {
        PostProcess {
            td_score_multiplier: 20.0,
            score_mean_multiplier: 20.0,
            score_stdev_multiplier: 20.0,
            lead_multiplier: 20.0,
            variance_time_multiplier: 40.0,
            shortterm_value_error_multiplier: 0.25,
            shortterm_score_error_multiplier: 30.0,
        }
    }
}

/// A loaded network.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub version: i32,
    /// Whether the net wants its area features computed as if suicide were legal, whatever the
    /// rules (a version-15 header flag; KataGo's search then feeds it so).
    pub pass_alive_as_if_suicide_legal: bool,
    pub post_process: PostProcess,
    pub trunk: Trunk,
    pub policy: PolicyHead,
    pub value: ValueHead,
}

/// The most a model file may unpack to: KataGo's largest nets are a few hundred MB.
pub const MAX_MODEL_BYTES: u64 = 1 << 30;

impl Model {
    /// Reads a model file, gzipped or not, binary or text as its name says.
    pub fn load(path: &Path) -> Result<Model, NetError> {
        let file = path.display().to_string();
        let err = |problem| NetError {
            file: file.clone(),
            problem,
        };
        let raw = std::fs::read(path).map_err(|e| err(Problem::Io(e.to_string())))?;
        Model::from_file_bytes(&raw, &file).map_err(err)
    }

    /// The model in `raw`, the bytes of a file named `name`: gzipped or not, binary or text as
    /// the name says; unpacked to at most [`MAX_MODEL_BYTES`].
    pub fn from_file_bytes(raw: &[u8], name: &str) -> Result<Model, Problem> {
        let lower = name.to_lowercase();
        if lower.ends_with(".txt") {
            return Model::parse(raw, false);
        }
        if lower.ends_with(".bin") {
            return Model::parse(raw, true);
        }
        if !lower.ends_with(".gz") {
            return Err(Problem::Extension);
        }
        let mut data = Vec::new();
        flate2::read::MultiGzDecoder::new(raw)
            .take(MAX_MODEL_BYTES + 1)
            .read_to_end(&mut data)
            .map_err(|e| Problem::Gzip(e.to_string()))?;
        if data.len() as u64 > MAX_MODEL_BYTES {
            return Err(Problem::Gzip(format!(
                "it unpacks to more than {} GiB, more than any net",
                MAX_MODEL_BYTES >> 30
            )));
        }
        let binary = !lower.ends_with(".txt.gz");
        match Model::parse(&data, binary) {
            // A plain `.gz` may be either, as KataGo tries both.
            Err(_) if binary && !lower.ends_with(".bin.gz") => Model::parse(&data, false),
            result => result,
        }
    }

    /// Parses an uncompressed model, its float blocks binary (`@BIN@` and little-endian f32)
    /// or text.
    pub fn parse(data: &[u8], binary: bool) -> Result<Model, Problem> {
        let mut r = Reader::new(data, binary);
        let name = r.token("model", "the model name")?.to_string();
        if name.len() > 96
            || !name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            return Err(Problem::Field {
                layer: "model".into(),
                what: "the model name is not 1-96 letters, digits, '_' or '-'".into(),
            });
        }
        let version = r.int(&name, "the model version")?;
        if !(MIN_VERSION as i64..=MAX_VERSION as i64).contains(&version) {
            return Err(Problem::Version(version));
        }
        let version = version as i32;
        let spatial = r.positive(&name, "the number of spatial inputs")?;
        let global = r.positive(&name, "the number of global inputs")?;
        if spatial != super::SPATIAL_FEATURES || global != super::GLOBAL_FEATURES {
            return Err(Problem::Mismatch {
                layer: name,
                what: format!(
                    "{spatial} spatial and {global} global inputs, expected {} and {}",
                    super::SPATIAL_FEATURES,
                    super::GLOBAL_FEATURES
                ),
            });
        }
        let mut post_process = PostProcess::default();
        if version >= 13 {
            let fields: [(&mut f64, &str); 7] = [
                (&mut post_process.td_score_multiplier, "tdScoreMultiplier"),
                (
                    &mut post_process.score_mean_multiplier,
                    "scoreMeanMultiplier",
                ),
                (
                    &mut post_process.score_stdev_multiplier,
                    "scoreStdevMultiplier",
                ),
                (&mut post_process.lead_multiplier, "leadMultiplier"),
                (
                    &mut post_process.variance_time_multiplier,
                    "varianceTimeMultiplier",
                ),
                (
                    &mut post_process.shortterm_value_error_multiplier,
                    "shorttermValueErrorMultiplier",
                ),
                (
                    &mut post_process.shortterm_score_error_multiplier,
                    "shorttermScoreErrorMultiplier",
                ),
            ];
            for (slot, what) in fields {
                let v = r.float(&name, what)? as f64;
                if !(v > 0.0 && v.is_finite()) {
                    return Err(Problem::Field {
                        layer: name,
                        what: format!("{what} must be positive"),
                    });
                }
                *slot = v;
            }
        }
        let mut pass_alive_as_if_suicide_legal = false;
        if version >= 15 {
            let meta = r.int(&name, "metaEncoderVersion")?;
            if meta != 0 {
                return Err(Problem::Unsupported {
                    kind: format!("an SGF-metadata encoder (metaEncoderVersion {meta})"),
                });
            }
            let pass_alive = r.int(&name, "preferPassAliveUnderSuicideRules")?;
            if pass_alive != 0 && pass_alive != 1 {
                return Err(Problem::Field {
                    layer: name,
                    what: format!("preferPassAliveUnderSuicideRules is {pass_alive}"),
                });
            }
            pass_alive_as_if_suicide_legal = pass_alive == 1;
            r.zeros(&name, 6)?;
        }
        let trunk = parse_trunk(&mut r, version)?;
        let policy = parse_policy(&mut r, version, trunk.channels)?;
        let value = parse_value(&mut r, version, trunk.channels)?;
        Ok(Model {
            name,
            version,
            pass_alive_as_if_suicide_legal,
            post_process,
            trunk,
            policy,
            value,
        })
    }

    /// Calls `f` on every convolution of the model.
    pub fn for_each_conv(&mut self, f: &mut impl FnMut(&mut Conv)) {
        fn blocks(list: &mut [Block], f: &mut impl FnMut(&mut Conv)) {
            for block in list {
                match block {
                    Block::Ordinary { first, last, .. } => {
                        f(&mut first.conv);
                        f(last);
                    }
                    Block::GlobalPooling {
                        regular,
                        gpool,
                        last,
                        ..
                    } => {
                        f(regular);
                        f(&mut gpool.conv);
                        f(last);
                    }
                    Block::NestedBottleneck {
                        pre_conv,
                        blocks: inner,
                        post_conv,
                        ..
                    } => {
                        f(pre_conv);
                        blocks(inner, f);
                        f(post_conv);
                    }
                    Block::Attention(_) | Block::FeedForward(_) => {}
                }
            }
        }
        f(&mut self.trunk.initial_conv);
        blocks(&mut self.trunk.blocks, f);
        f(&mut self.policy.p1);
        f(&mut self.policy.g1.conv);
        f(&mut self.policy.p2);
        f(&mut self.value.v1.conv);
        f(&mut self.value.ownership);
    }

    /// The number of policy channels: 1, or 2 where the second is the optimistic policy.
    pub fn policy_channels(&self) -> usize {
        self.policy.p2.out_channels
    }
}

fn mismatch(layer: &str, what: String) -> Problem {
    Problem::Mismatch {
        layer: layer.to_string(),
        what,
    }
}

/// Fails naming `layer` unless `a == b`.
fn expect_eq(layer: &str, what: &str, a: usize, b: usize) -> Result<(), Problem> {
    if a == b {
        Ok(())
    } else {
        Err(mismatch(layer, format!("{what}: {a} != {b}")))
    }
}

/// A batch-norm layer as read: its merged scale and bias.
struct Norm {
    name: String,
    scale: Vec<f32>,
    bias: Vec<f32>,
}

fn parse_conv(r: &mut Reader) -> Result<(String, Conv), Problem> {
    let name = r.token("a convolution", "its name")?.to_string();
    let ky = r.positive(&name, "the kernel height")?;
    let kx = r.positive(&name, "the kernel width")?;
    let in_channels = r.positive(&name, "the input channels")?;
    let out_channels = r.positive(&name, "the output channels")?;
    let dy = r.positive(&name, "the vertical dilation")?;
    let dx = r.positive(&name, "the horizontal dilation")?;
    if ky != kx || ky % 2 != 1 {
        return Err(Problem::Field {
            layer: name,
            what: format!("a {ky}x{kx} kernel (square and odd sides are read)"),
        });
    }
    if dy != 1 || dx != 1 {
        return Err(Problem::Unsupported {
            kind: format!("a dilated convolution ({name})"),
        });
    }
    let count = [ky, kx, in_channels, out_channels]
        .iter()
        .try_fold(1usize, |a, &b| a.checked_mul(b));
    let weights = r.floats(&name, count)?;
    Ok((
        name,
        Conv {
            ksize: ky,
            in_channels,
            out_channels,
            weights,
            transformed: Vec::new(),
        },
    ))
}

/// A batch-norm layer, merged as KataGo merges it: `scale / sqrt(variance + epsilon)` and
/// `bias - merged_scale * mean`, in f32.
fn parse_norm(r: &mut Reader) -> Result<Norm, Problem> {
    let name = r.token("a batch norm", "its name")?.to_string();
    let channels = r.positive(&name, "the channels")?;
    let epsilon = r.float(&name, "epsilon")?;
    if !(epsilon > 0.0 && epsilon.is_finite()) {
        return Err(Problem::Field {
            layer: name,
            what: format!("epsilon {epsilon} is not positive and finite"),
        });
    }
    let has_scale = r.flag(&name, "hasScale")?;
    let has_bias = r.flag(&name, "hasBias")?;
    let mean = r.floats(&name, Some(channels))?;
    let variance = r.floats(&name, Some(channels))?;
    let scale = if has_scale {
        r.floats(&name, Some(channels))?
    } else {
        vec![1.0; channels]
    };
    let bias = if has_bias {
        r.floats(&name, Some(channels))?
    } else {
        vec![0.0; channels]
    };
    let merged_scale: Vec<f32> = (0..channels)
        .map(|c| scale[c] / (variance[c] + epsilon).sqrt())
        .collect();
    let merged_bias = (0..channels)
        .map(|c| bias[c] - merged_scale[c] * mean[c])
        .collect();
    Ok(Norm {
        name,
        scale: merged_scale,
        bias: merged_bias,
    })
}

/// An activation layer: a name, and from version 11 its kind (ReLU before).
fn parse_activation(r: &mut Reader, version: i32) -> Result<Activation, Problem> {
    let name = r.token("an activation", "its name")?.to_string();
    if version < 11 {
        return Ok(Activation::Relu);
    }
    match r.token(&name, "the activation kind")? {
        "ACTIVATION_IDENTITY" => Ok(Activation::Identity),
        "ACTIVATION_RELU" => Ok(Activation::Relu),
        "ACTIVATION_MISH" => Ok(Activation::Mish),
        "ACTIVATION_SILU" => Ok(Activation::Silu),
        other => Err(Problem::Field {
            what: format!("unknown activation {other}"),
            layer: name,
        }),
    }
}

fn parse_matmul(r: &mut Reader) -> Result<(String, MatMul), Problem> {
    let name = r.token("a matrix product", "its name")?.to_string();
    let in_channels = r.positive(&name, "the input channels")?;
    let out_channels = r.positive(&name, "the output channels")?;
    let weights = r.floats(&name, in_channels.checked_mul(out_channels))?;
    Ok((
        name,
        MatMul {
            in_channels,
            out_channels,
            weights,
        },
    ))
}

fn parse_bias(r: &mut Reader) -> Result<(String, Vec<f32>), Problem> {
    let name = r.token("a bias", "its name")?.to_string();
    let channels = r.positive(&name, "the channels")?;
    let weights = r.floats(&name, Some(channels))?;
    Ok((name, weights))
}

fn norm_act(norm: Norm, act: Activation) -> NormAct {
    NormAct {
        scale: norm.scale,
        bias: norm.bias,
        act,
    }
}

/// Multiplies each output channel of a conv by `scale`.
fn scale_conv(conv: &mut Conv, scale: &[f32]) {
    for row in conv.weights.chunks_exact_mut(conv.out_channels) {
        for (w, s) in row.iter_mut().zip(scale) {
            *w *= s;
        }
    }
}

/// Multiplies each output channel of a matrix product by `scale`.
fn scale_matmul(mul: &mut MatMul, scale: &[f32]) {
    for row in mul.weights.chunks_exact_mut(mul.out_channels) {
        for (w, s) in row.iter_mut().zip(scale) {
            *w *= s;
        }
    }
}

/// A conv followed by its norm and activation, the norm folded into the conv.
fn fold(
    conv_name: &str,
    mut conv: Conv,
    norm: Norm,
    act: Activation,
) -> Result<ConvNormAct, Problem> {
    expect_eq(
        conv_name,
        &format!("output channels against {}", norm.name),
        conv.out_channels,
        norm.scale.len(),
    )?;
    scale_conv(&mut conv, &norm.scale);
    Ok(ConvNormAct {
        conv,
        bias: norm.bias,
        act,
    })
}

fn parse_blocks(
    r: &mut Reader,
    version: i32,
    parent: &str,
    count: usize,
    channels: usize,
    depth: usize,
) -> Result<Vec<Block>, Problem> {
    // Nesting deeper than this is no net anyone trained; the bound keeps recursion finite.
    if depth > 8 {
        return Err(Problem::Field {
            layer: parent.to_string(),
            what: "blocks nested more than 8 deep".into(),
        });
    }
    let mut blocks = Vec::new();
    for _ in 0..count {
        let kind = r.token(parent, "a block kind")?.to_string();
        let block = match kind.as_str() {
            "ordinary_block" => parse_ordinary(r, version, channels)?,
            "gpool_block" => parse_gpool(r, version, channels)?,
            "nested_bottleneck_block" => parse_nested(r, version, channels, depth)?,
            "transformer_attention_block" => transformer::parse_attention(r, channels)?,
            "transformer_ffn_block" => transformer::parse_feed_forward(r, channels)?,
            _ => {
                return Err(Problem::Field {
                    layer: parent.to_string(),
                    what: format!("unknown block kind {kind}"),
                });
            }
        };
        blocks.push(block);
    }
    Ok(blocks)
}

fn parse_ordinary(r: &mut Reader, version: i32, channels: usize) -> Result<Block, Problem> {
    let name = r.token("a residual block", "its name")?.to_string();
    let pre = parse_norm(r)?;
    let pre_act = parse_activation(r, version)?;
    let (first_name, first) = parse_conv(r)?;
    let mid = parse_norm(r)?;
    let mid_act = parse_activation(r, version)?;
    let (_, last) = parse_conv(r)?;
    expect_eq(&name, "pre norm channels", pre.scale.len(), channels)?;
    expect_eq(&name, "first conv inputs", first.in_channels, channels)?;
    expect_eq(&name, "last conv inputs", last.in_channels, mid.scale.len())?;
    expect_eq(&name, "last conv outputs", last.out_channels, channels)?;
    Ok(Block::Ordinary {
        pre: norm_act(pre, pre_act),
        first: fold(&first_name, first, mid, mid_act)?,
        last,
    })
}

fn parse_gpool(r: &mut Reader, version: i32, channels: usize) -> Result<Block, Problem> {
    let name = r.token("a global pooling block", "its name")?.to_string();
    let pre = parse_norm(r)?;
    let pre_act = parse_activation(r, version)?;
    let (_, mut regular) = parse_conv(r)?;
    let (gpool_name, gpool) = parse_conv(r)?;
    let gpool_norm = parse_norm(r)?;
    let gpool_act = parse_activation(r, version)?;
    let (_, mut gpool_to_bias) = parse_matmul(r)?;
    let mid = parse_norm(r)?;
    let mid_act = parse_activation(r, version)?;
    let (_, last) = parse_conv(r)?;
    expect_eq(&name, "pre norm channels", pre.scale.len(), channels)?;
    expect_eq(&name, "regular conv inputs", regular.in_channels, channels)?;
    expect_eq(&name, "gpool conv inputs", gpool.in_channels, channels)?;
    expect_eq(
        &name,
        "pooled features (3 per gpool channel) against gpoolToBiasMul inputs",
        gpool.out_channels * 3,
        gpool_to_bias.in_channels,
    )?;
    let mid_channels = mid.scale.len();
    expect_eq(
        &name,
        "regular conv outputs",
        regular.out_channels,
        mid_channels,
    )?;
    expect_eq(
        &name,
        "gpoolToBiasMul outputs",
        gpool_to_bias.out_channels,
        mid_channels,
    )?;
    expect_eq(&name, "last conv inputs", last.in_channels, mid_channels)?;
    expect_eq(&name, "last conv outputs", last.out_channels, channels)?;
    scale_conv(&mut regular, &mid.scale);
    scale_matmul(&mut gpool_to_bias, &mid.scale);
    Ok(Block::GlobalPooling {
        pre: norm_act(pre, pre_act),
        regular,
        gpool: fold(&gpool_name, gpool, gpool_norm, gpool_act)?,
        gpool_to_bias,
        mid_bias: mid.bias,
        mid_act,
        last,
    })
}

fn parse_nested(
    r: &mut Reader,
    version: i32,
    channels: usize,
    depth: usize,
) -> Result<Block, Problem> {
    let name = r
        .token("a nested bottleneck block", "its name")?
        .to_string();
    let count = r.positive(&name, "the number of inner blocks")?;
    let pre = parse_norm(r)?;
    let pre_act = parse_activation(r, version)?;
    let (_, pre_conv) = parse_conv(r)?;
    expect_eq(&name, "pre norm channels", pre.scale.len(), channels)?;
    expect_eq(&name, "pre conv inputs", pre_conv.in_channels, channels)?;
    let inner = pre_conv.out_channels;
    let blocks = parse_blocks(r, version, &name, count, inner, depth + 1)?;
    let post = parse_norm(r)?;
    let post_act = parse_activation(r, version)?;
    let (_, post_conv) = parse_conv(r)?;
    expect_eq(&name, "post norm channels", post.scale.len(), inner)?;
    expect_eq(&name, "post conv inputs", post_conv.in_channels, inner)?;
    expect_eq(&name, "post conv outputs", post_conv.out_channels, channels)?;
    Ok(Block::NestedBottleneck {
        pre: norm_act(pre, pre_act),
        pre_conv,
        blocks,
        post: norm_act(post, post_act),
        post_conv,
    })
}

fn parse_trunk(r: &mut Reader, version: i32) -> Result<Trunk, Problem> {
    let name = r.token("the trunk", "its name")?.to_string();
    let num_blocks = r.positive(&name, "the number of blocks")?;
    let channels = r.positive(&name, "the trunk channels")?;
    for what in [
        "the mid channels",
        "the regular channels",
        "the dilated channels",
        "the gpool channels",
    ] {
        r.int(&name, what)?;
    }
    let mut rms_tip = false;
    if version >= 15 {
        rms_tip = match r.int(&name, "the trunk norm kind")? {
            0 => false,
            1 => true,
            kind => {
                return Err(Problem::Field {
                    layer: name,
                    what: format!("unknown trunk norm kind {kind}"),
                });
            }
        };
        r.zeros(&name, 5)?;
    }
    let (conv_name, initial_conv) = parse_conv(r)?;
    expect_eq(
        &conv_name,
        "outputs against the trunk",
        initial_conv.out_channels,
        channels,
    )?;
    expect_eq(
        &conv_name,
        "inputs",
        initial_conv.in_channels,
        super::SPATIAL_FEATURES,
    )?;
    let (mul_name, initial_matmul) = parse_matmul(r)?;
    expect_eq(
        &mul_name,
        "outputs against the trunk",
        initial_matmul.out_channels,
        channels,
    )?;
    expect_eq(
        &mul_name,
        "inputs",
        initial_matmul.in_channels,
        super::GLOBAL_FEATURES,
    )?;
    let blocks = parse_blocks(r, version, &name, num_blocks, channels, 0)?;
    let tip = if rms_tip {
        Tip::RmsNorm(transformer::parse_tip(r, channels, version)?)
    } else {
        let norm = parse_norm(r)?;
        expect_eq(&name, "tip norm channels", norm.scale.len(), channels)?;
        Tip::Norm(norm_act(norm, parse_activation(r, version)?))
    };
    Ok(Trunk {
        channels,
        initial_conv,
        initial_matmul,
        blocks,
        tip,
    })
}

fn parse_policy(r: &mut Reader, version: i32, trunk: usize) -> Result<PolicyHead, Problem> {
    let name = r.token("the policy head", "its name")?.to_string();
    // Version 16 adds two Q-value channels; 17 says whether it has them.
    let policy_channels = match version {
        17.. => match r.int(&name, "policyOutChannels")? {
            c @ (2 | 4) => c as usize,
            c => {
                return Err(Problem::Field {
                    layer: name,
                    what: format!("policyOutChannels is {c}, not 2 or 4"),
                });
            }
        },
        16 => 4,
        12.. => 2,
        _ => 1,
    };
    if version >= 17 {
        r.zeros(&name, 3)?;
    }
    let (_, mut p1) = parse_conv(r)?;
    let (g1_name, g1) = parse_conv(r)?;
    let g1_norm = parse_norm(r)?;
    let g1_act = parse_activation(r, version)?;
    let (_, mut gpool_to_bias) = parse_matmul(r)?;
    let p1_norm = parse_norm(r)?;
    let p1_act = parse_activation(r, version)?;
    let (_, mut p2) = parse_conv(r)?;
    let (_, pass_mul) = parse_matmul(r)?;
    let mut pass_extra = if version >= 15 {
        let (_, bias) = parse_bias(r)?;
        let act = parse_activation(r, version)?;
        let (_, mul2) = parse_matmul(r)?;
        Some((bias, act, mul2))
    } else {
        None
    };
    expect_eq(&name, "p1 conv inputs", p1.in_channels, trunk)?;
    expect_eq(&name, "g1 conv inputs", g1.in_channels, trunk)?;
    let p1_channels = p1_norm.scale.len();
    expect_eq(&name, "p1 conv outputs", p1.out_channels, p1_channels)?;
    expect_eq(
        &name,
        "gpoolToBiasMul inputs (3 per g1 channel)",
        gpool_to_bias.in_channels,
        g1.out_channels * 3,
    )?;
    expect_eq(
        &name,
        "gpoolToBiasMul outputs",
        gpool_to_bias.out_channels,
        p1_channels,
    )?;
    expect_eq(&name, "p2 conv inputs", p2.in_channels, p1_channels)?;
    expect_eq(&name, "p2 conv outputs", p2.out_channels, policy_channels)?;
    expect_eq(
        &name,
        "gpoolToPassMul inputs (3 per g1 channel)",
        pass_mul.in_channels,
        g1.out_channels * 3,
    )?;
    match &pass_extra {
        Some((bias, _, mul2)) => {
            expect_eq(
                &name,
                "gpoolToPassMul outputs",
                pass_mul.out_channels,
                p1_channels,
            )?;
            expect_eq(&name, "gpoolToPassBias channels", bias.len(), p1_channels)?;
            expect_eq(
                &name,
                "gpoolToPassMul2 inputs",
                mul2.in_channels,
                p1_channels,
            )?;
            expect_eq(
                &name,
                "gpoolToPassMul2 outputs",
                mul2.out_channels,
                policy_channels,
            )?;
        }
        None => expect_eq(
            &name,
            "gpoolToPassMul outputs",
            pass_mul.out_channels,
            policy_channels,
        )?,
    }
    scale_conv(&mut p1, &p1_norm.scale);
    scale_matmul(&mut gpool_to_bias, &p1_norm.scale);
    // The policy and its optimistic twin are all KataGo reads of the head.
    if policy_channels > 2 {
        keep_outputs(&mut p2.weights, &mut p2.out_channels, 2);
        if let Some((_, _, mul2)) = &mut pass_extra {
            keep_outputs(&mut mul2.weights, &mut mul2.out_channels, 2);
        }
    }
    Ok(PolicyHead {
        p1,
        g1: fold(&g1_name, g1, g1_norm, g1_act)?,
        gpool_to_bias,
        p1_bias: p1_norm.bias,
        p1_act,
        p2,
        pass_mul,
        pass_extra,
    })
}

/// Keeps the first `keep` output channels of weights `[..][out]`.
fn keep_outputs(weights: &mut Vec<f32>, out: &mut usize, keep: usize) {
    *weights = weights
        .chunks_exact(*out)
        .flat_map(|row| &row[..keep])
        .copied()
        .collect();
    *out = keep;
}

fn parse_value(r: &mut Reader, version: i32, trunk: usize) -> Result<ValueHead, Problem> {
    let name = r.token("the value head", "its name")?.to_string();
    if version >= 17 {
        r.zeros(&name, 3)?;
    }
    let (v1_name, v1) = parse_conv(r)?;
    let v1_norm = parse_norm(r)?;
    let v1_act = parse_activation(r, version)?;
    let (_, v2) = parse_matmul(r)?;
    let (_, v2_bias) = parse_bias(r)?;
    let v2_act = parse_activation(r, version)?;
    let (_, v3) = parse_matmul(r)?;
    let (_, v3_bias) = parse_bias(r)?;
    let (_, sv3) = parse_matmul(r)?;
    let (_, sv3_bias) = parse_bias(r)?;
    let (_, ownership) = parse_conv(r)?;
    let score_channels = if version >= 9 { 6 } else { 4 };
    expect_eq(&name, "v1 conv inputs", v1.in_channels, trunk)?;
    let v1_channels = v1_norm.scale.len();
    expect_eq(
        &name,
        "v2 inputs (3 per v1 channel)",
        v2.in_channels,
        v1_channels * 3,
    )?;
    expect_eq(&name, "v2 bias channels", v2_bias.len(), v2.out_channels)?;
    expect_eq(&name, "v3 inputs", v3.in_channels, v2.out_channels)?;
    expect_eq(&name, "v3 outputs", v3.out_channels, 3)?;
    expect_eq(&name, "v3 bias channels", v3_bias.len(), 3)?;
    expect_eq(&name, "sv3 inputs", sv3.in_channels, v2.out_channels)?;
    expect_eq(&name, "sv3 outputs", sv3.out_channels, score_channels)?;
    expect_eq(&name, "sv3 bias channels", sv3_bias.len(), score_channels)?;
    expect_eq(
        &name,
        "ownership conv inputs",
        ownership.in_channels,
        v1_channels,
    )?;
    expect_eq(&name, "ownership conv outputs", ownership.out_channels, 1)?;
    Ok(ValueHead {
        v1: fold(&v1_name, v1, v1_norm, v1_act)?,
        v2,
        v2_bias,
        v2_act,
        v3,
        v3_bias,
        sv3,
        sv3_bias,
        ownership,
    })
}
