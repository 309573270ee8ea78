//! Small random-weight nets written in KataGo's model format, for tests (here, and the fuzz
//! targets' seeds: no net is kept in the repository) and for KataGo to load and answer
//! (`write_synthetic_nets` below writes them to a directory, for recording KataGo's outputs).
//!
//! - A convolutional net per model version 8 to 15: an ordinary, a global-pooling and a
//!   nested-bottleneck block (itself holding an ordinary and a global-pooling block), every
//!   activation KataGo knows from version 11, batch norms with and without scale and bias.
//! - A transformer net per model version 15 to 17: attention blocks with learned, fixed and no
//!   RoPE, with as many key/value heads as query heads and with fewer, SwiGLU feed-forward
//!   blocks, in the trunk and inside a nested bottleneck beside convolutional blocks; an
//!   RMSNorm at the trunk's tip, over the whole board (15, 17) or each point (16); the Q-value
//!   policy channels of 16 and 17.

use std::io::Write;

/// The channel counts of a synthetic net (and two counts a test may make wrong).
#[derive(Clone, Copy)]
pub struct Dims {
    pub trunk: usize,
    pub regular: usize,
    pub pooled: usize,
    pub inner: usize,
    pub inner_regular: usize,
    pub inner_pooled: usize,
    pub p1: usize,
    pub g1: usize,
    pub v1: usize,
    pub v2: usize,
    /// The initial conv's inputs: 22 in a good net.
    pub spatial: usize,
    /// The value head's outputs: 3 in a good net.
    pub value_outputs: usize,
}

impl Dims {
    /// The nets KataGo is asked to answer for: 24 trunk channels.
    pub const STANDARD: Dims = Dims {
        trunk: 24,
        regular: 16,
        pooled: 8,
        inner: 12,
        inner_regular: 8,
        inner_pooled: 4,
        p1: 12,
        g1: 8,
        v1: 8,
        v2: 16,
        spatial: 22,
        value_outputs: 3,
    };

    /// A net of a few kilobytes, for cutting at every length.
    pub const TINY: Dims = Dims {
        trunk: 2,
        regular: 2,
        pooled: 1,
        inner: 1,
        inner_regular: 1,
        inner_pooled: 1,
        p1: 1,
        g1: 1,
        v1: 1,
        v2: 2,
        spatial: 22,
        value_outputs: 3,
    };
}

/// A seeded generator (splitmix64): the same net for the same seed on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let z = crate::rules::board::splitmix(self.0);
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z
    }

    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// A model file being written.
pub struct Writer {
    pub out: Vec<u8>,
    binary: bool,
    version: i32,
    rng: Rng,
    /// Counts layers, to vary activations and batch-norm options from one to the next.
    layers: usize,
}

impl Writer {
    pub fn new(version: i32, binary: bool, seed: u64) -> Self {
        Writer {
            out: Vec::new(),
            binary,
            version,
            rng: Rng(seed),
            layers: 0,
        }
    }

    /// A header line: words separated by newlines, as KataGo's exporter writes them.
    pub fn words(&mut self, words: &[&str]) {
        for w in words {
            self.out.extend_from_slice(w.as_bytes());
            self.out.push(b'\n');
        }
    }

    fn numbers(&mut self, values: &[usize]) {
        let words: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        self.words(&refs);
    }

    /// A block of weights: `@BIN@` and little-endian f32s, or text.
    pub fn floats(&mut self, values: &[f32]) {
        if self.binary {
            self.out.extend_from_slice(b"@BIN@");
            for v in values {
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            self.out.push(b'\n');
        } else {
            let text: Vec<String> = values.iter().map(|v| format!("{v:e}")).collect();
            self.out.extend_from_slice(text.join(" ").as_bytes());
            self.out.push(b'\n');
        }
    }

    fn random(&mut self, count: usize, scale: f32) -> Vec<f32> {
        (0..count)
            .map(|_| self.rng.uniform(-scale, scale))
            .collect()
    }

    /// A convolution with weights of variance `gain / fan_in`.
    pub fn conv(&mut self, name: &str, k: usize, ic: usize, oc: usize, gain: f32) {
        self.words(&[name]);
        self.numbers(&[k, k, ic, oc, 1, 1]);
        let scale = (3.0 * gain / (k * k * ic) as f32).sqrt();
        let w = self.random(k * k * ic * oc, scale);
        self.floats(&w);
    }

    pub fn norm(&mut self, name: &str, channels: usize) {
        self.layers += 1;
        let (has_scale, has_bias) = (
            self.layers.is_multiple_of(2),
            !self.layers.is_multiple_of(3),
        );
        self.words(&[name]);
        self.numbers(&[channels]);
        self.words(&[if self.layers.is_multiple_of(2) {
            "1e-05"
        } else {
            "0.001"
        }]);
        self.numbers(&[has_scale as usize, has_bias as usize]);
        let mean = self.random(channels, 0.3);
        self.floats(&mean);
        let variance: Vec<f32> = (0..channels).map(|_| self.rng.uniform(0.5, 1.5)).collect();
        self.floats(&variance);
        if has_scale {
            let scale: Vec<f32> = (0..channels).map(|_| self.rng.uniform(0.6, 1.4)).collect();
            self.floats(&scale);
        }
        if has_bias {
            let bias = self.random(channels, 0.3);
            self.floats(&bias);
        }
    }

    /// An activation: ReLU before version 11 (a name only), from 11 the four kinds in turn.
    pub fn activation(&mut self, name: &str) {
        self.layers += 1;
        self.words(&[name]);
        if self.version >= 11 {
            let kinds = [
                "ACTIVATION_MISH",
                "ACTIVATION_RELU",
                "ACTIVATION_SILU",
                "ACTIVATION_IDENTITY",
            ];
            self.words(&[kinds[self.layers % 4]]);
        }
    }

    pub fn matmul(&mut self, name: &str, ic: usize, oc: usize, gain: f32) {
        self.words(&[name]);
        self.numbers(&[ic, oc]);
        let scale = (3.0 * gain / ic as f32).sqrt();
        let w = self.random(ic * oc, scale);
        self.floats(&w);
    }

    pub fn bias(&mut self, name: &str, channels: usize) {
        self.words(&[name]);
        self.numbers(&[channels]);
        let b = self.random(channels, 0.2);
        self.floats(&b);
    }

    /// A head's 1x1 convolution `{name}/w` with its norm and activation.
    fn conv_norm_act(&mut self, name: &str, ic: usize, oc: usize) {
        self.conv(&format!("{name}/w"), 1, ic, oc, 1.0);
        self.norm(&format!("{name}/norm"), oc);
        self.activation(&format!("{name}/actv"));
    }

    fn ordinary(&mut self, name: &str, c: usize, mid: usize) {
        self.words(&["ordinary_block", name]);
        self.norm(&format!("{name}/norm1"), c);
        self.activation(&format!("{name}/actv1"));
        self.conv(&format!("{name}/w1"), 3, c, mid, 1.0);
        self.norm(&format!("{name}/norm2"), mid);
        self.activation(&format!("{name}/actv2"));
        self.conv(&format!("{name}/w2"), 3, mid, c, 0.5);
    }

    fn gpool(&mut self, name: &str, c: usize, regular: usize, pooled: usize) {
        self.words(&["gpool_block", name]);
        self.norm(&format!("{name}/norm1"), c);
        self.activation(&format!("{name}/actv1"));
        self.conv(&format!("{name}/w1a"), 3, c, regular, 1.0);
        self.conv(&format!("{name}/w1b"), 3, c, pooled, 1.0);
        self.norm(&format!("{name}/norm1b"), pooled);
        self.activation(&format!("{name}/actv1b"));
        self.matmul(&format!("{name}/w1r"), 3 * pooled, regular, 1.0);
        self.norm(&format!("{name}/norm2"), regular);
        self.activation(&format!("{name}/actv2"));
        self.conv(&format!("{name}/w2"), 3, regular, c, 0.5);
    }

    /// An RMSNorm of a transformer block: weights near 1.
    fn rms_norm(&mut self, name: &str, channels: usize) {
        self.words(&[name]);
        self.numbers(&[channels]);
        self.words(&["1e-06"]);
        let w: Vec<f32> = (0..channels).map(|_| self.rng.uniform(0.6, 1.4)).collect();
        self.floats(&w);
    }

    /// An attention block of `heads` query heads over `kv_heads` key/value heads; `rope` 0 for
    /// none, 1 learned, 2 fixed.
    #[allow(clippy::too_many_arguments)]
    fn attention(
        &mut self,
        name: &str,
        c: usize,
        heads: usize,
        kv_heads: usize,
        q_dim: usize,
        v_dim: usize,
        rope: usize,
    ) {
        self.words(&["transformer_attention_block", name]);
        self.numbers(&[
            heads,
            kv_heads,
            q_dim,
            v_dim,
            (rope > 0) as usize,
            (rope == 1) as usize,
        ]);
        self.rms_norm(&format!("{name}.norm1"), c);
        self.matmul(&format!("{name}.q_proj"), c, heads * q_dim, 1.0);
        self.matmul(&format!("{name}.k_proj"), c, kv_heads * q_dim, 1.0);
        self.matmul(&format!("{name}.v_proj"), c, kv_heads * v_dim, 1.0);
        self.matmul(&format!("{name}.out_proj"), heads * v_dim, c, 0.5);
        match rope {
            1 => {
                self.words(&[&format!("{name}.rope_freqs")]);
                self.numbers(&[kv_heads, q_dim / 2, 2]);
                let freqs = self.random(kv_heads * q_dim, 1.5);
                self.floats(&freqs);
            }
            2 => self.words(&[&format!("{name}.rope_theta"), "100"]),
            _ => {}
        }
    }

    /// A SwiGLU feed-forward block.
    fn feed_forward(&mut self, name: &str, c: usize, hidden: usize) {
        self.words(&["transformer_ffn_block", name]);
        self.numbers(&[c, hidden, 1]);
        self.rms_norm(&format!("{name}.norm"), c);
        self.matmul(&format!("{name}.ffn_linear1"), c, hidden, 1.0);
        self.matmul(&format!("{name}.ffn_linear_gate"), c, hidden, 1.0);
        self.matmul(&format!("{name}.ffn_linear2"), hidden, c, 0.5);
    }

    fn nested(&mut self, name: &str, c: usize, d: &Dims) {
        let inner = d.inner;
        self.words(&["nested_bottleneck_block", name]);
        self.numbers(&[2]);
        self.norm(&format!("{name}/norm1"), c);
        self.activation(&format!("{name}/actv1"));
        self.conv(&format!("{name}/w1"), 1, c, inner, 1.0);
        self.ordinary(&format!("{name}/blockstack/b1"), inner, inner);
        self.gpool(
            &format!("{name}/blockstack/b2"),
            inner,
            d.inner_regular,
            d.inner_pooled,
        );
        self.norm(&format!("{name}/norm2"), inner);
        self.activation(&format!("{name}/actv2"));
        self.conv(&format!("{name}/w2"), 1, inner, c, 0.5);
    }
}

/// A whole synthetic net of `version`, uncompressed, of the standard size.
pub fn net(version: i32, binary: bool, seed: u64) -> Vec<u8> {
    net_sized(version, binary, seed, &Dims::STANDARD)
}

/// The model header up to the trunk's first layer: the name, version, input counts, and the
/// fields of versions 13 and 15; then the trunk's header, `blocks` blocks, with an RMSNorm tip
/// when `rms_tip`.
fn header(w: &mut Writer, name: &str, blocks: usize, d: &Dims, rms_tip: bool) {
    let version = w.version;
    w.words(&[name, &version.to_string(), "22", "19"]);
    if version >= 13 {
        // Post-processing multipliers near KataGo's defaults, but not them, so that reading
        // them is checked.
        w.words(&["20.5", "19", "21.5", "18.5", "41", "0.3", "28"]);
    }
    if version >= 15 {
        w.numbers(&[0, 0, 0, 0, 0, 0, 0, 0]);
    }
    w.words(&["trunk"]);
    w.numbers(&[blocks, d.trunk, d.trunk, d.regular, d.regular, d.pooled]);
    if version >= 15 {
        w.numbers(&[rms_tip as usize, 0, 0, 0, 0, 0]);
    }
    let first = if version % 2 == 0 { 5 } else { 3 };
    w.conv("conv1", first, d.spatial, d.trunk, 2.0);
    w.matmul("ginputw", 19, d.trunk, 1.0);
}

/// A whole synthetic net of `version`, uncompressed.
pub fn net_sized(version: i32, binary: bool, seed: u64, d: &Dims) -> Vec<u8> {
    let trunk = d.trunk;
    let mut w = Writer::new(version, binary, seed);
    header(&mut w, &format!("synthetic-v{version}"), 3, d, false);
    w.ordinary("rconv1", trunk, trunk);
    w.gpool("rconv2", trunk, d.regular, d.pooled);
    w.nested("rconv3", trunk, d);
    w.norm("trunk/norm", trunk);
    w.activation("trunk/actv");
    heads(&mut w, d);
    w.out
}

/// A synthetic transformer net of `version` (15 to 17), uncompressed, of the standard size.
pub fn transformer_net(version: i32, binary: bool, seed: u64) -> Vec<u8> {
    let d = &Dims::STANDARD;
    let (c, inner) = (d.trunk, d.inner);
    let mut w = Writer::new(version, binary, seed);
    header(
        &mut w,
        &format!("synthetic-transformer-v{version}"),
        4,
        d,
        true,
    );
    w.attention("blocks.0", c, 4, 2, 6, 4, 1);
    w.feed_forward("blocks.1", c, 32);
    w.words(&["nested_bottleneck_block", "blocks.2"]);
    w.numbers(&[4]);
    w.norm("blocks.2.normactconvp.norm", c);
    w.activation("blocks.2.normactconvp.act");
    w.conv("blocks.2.normactconvp.conv", 1, c, inner, 1.0);
    w.attention("blocks.2.blockstack.0", inner, 2, 2, 8, 6, 2);
    w.ordinary("blocks.2.blockstack.1", inner, inner);
    w.attention("blocks.2.blockstack.2", inner, 3, 1, 4, 4, 0);
    w.feed_forward("blocks.2.blockstack.3", inner, 20);
    w.norm("blocks.2.normactconvq.norm", inner);
    w.activation("blocks.2.normactconvq.act");
    w.conv("blocks.2.normactconvq.conv", 1, inner, c, 0.5);
    w.gpool("blocks.3", c, d.regular, d.pooled);
    w.words(&["norm_trunkfinal"]);
    w.numbers(&[c]);
    w.words(&["1e-06"]);
    w.numbers(&[(version != 16) as usize, 0]);
    let gamma: Vec<f32> = (0..c).map(|_| w.rng.uniform(0.6, 1.4)).collect();
    w.floats(&gamma);
    let beta = w.random(c, 0.3);
    w.floats(&beta);
    w.activation("act_trunkfinal");
    heads(&mut w, d);
    w.out
}

/// The policy and value heads.
fn heads(w: &mut Writer, d: &Dims) {
    let (version, trunk) = (w.version, d.trunk);
    let (p1, g1) = (d.p1, d.g1);
    // Version 16 adds two Q-value channels; 17 says how many it has (2 here).
    let policy_channels = match version {
        17.. => 2,
        16 => 4,
        12.. => 2,
        _ => 1,
    };
    w.words(&["policyhead"]);
    if version >= 17 {
        w.numbers(&[policy_channels, 0, 0, 0]);
    }
    w.conv("p1/intermediate_conv/w", 1, trunk, p1, 1.0);
    w.conv_norm_act("g1", trunk, g1);
    w.matmul("matmulg2w", 3 * g1, p1, 1.0);
    w.norm("p1/norm", p1);
    w.activation("p1/actv");
    w.conv("p2/w", 1, p1, policy_channels, 2.0);
    if version >= 15 {
        w.matmul("g2/w", 3 * g1, p1, 1.0);
        w.bias("g2/b", p1);
        w.activation("g2/actv");
        w.matmul("g3/w", p1, policy_channels, 2.0);
    } else {
        w.matmul("matmulpass", 3 * g1, policy_channels, 2.0);
    }

    let (v1, v2) = (d.v1, d.v2);
    let score_channels = if version >= 9 { 6 } else { 4 };
    w.words(&["valuehead"]);
    if version >= 17 {
        w.numbers(&[0, 0, 0]);
    }
    w.conv_norm_act("v1", trunk, v1);
    w.matmul("v2/w", 3 * v1, v2, 1.0);
    w.bias("v2/b", v2);
    w.activation("v2/actv");
    w.matmul("v3/w", v2, d.value_outputs, 0.5);
    w.bias("v3/b", d.value_outputs);
    w.matmul("sv3/w", v2, score_channels, 0.02);
    w.bias("sv3/b", score_channels);
    w.conv("vownership/w", 1, v1, 1, 1.0);
}

/// `data` gzipped.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).expect("writing to memory");
    gz.finish().expect("writing to memory")
}

/// The seed of version `version`'s synthetic net.
pub fn seed(version: i32) -> u64 {
    0x7E46_E400 + version as u64
}

/// The seed of version `version`'s synthetic transformer net.
pub fn transformer_seed(version: i32) -> u64 {
    0x7E46_E500 + version as u64
}

/// Writes `synthetic-v8.bin.gz` .. `synthetic-v15.bin.gz` (and `synthetic-v15.txt.gz`, the
/// text format) and `synthetic-transformer-v15.bin.gz` .. `-v17.bin.gz` into
/// `$TENGEN_SYNTHETIC_NETS_DIR`, for KataGo to load:
/// `TENGEN_SYNTHETIC_NETS_DIR=dir cargo test --lib write_synthetic_nets -- --ignored`.
#[cfg(test)]
#[test]
#[ignore = "writes files: set TENGEN_SYNTHETIC_NETS_DIR"]
fn write_synthetic_nets() {
    let dir = std::env::var("TENGEN_SYNTHETIC_NETS_DIR").expect("TENGEN_SYNTHETIC_NETS_DIR");
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).expect("the directory");
    for version in 8..=15 {
        let file = dir.join(format!("synthetic-v{version}.bin.gz"));
        std::fs::write(&file, gzip(&net(version, true, seed(version)))).expect("write");
    }
    let text = gzip(&net(15, false, seed(15)));
    std::fs::write(dir.join("synthetic-v15.txt.gz"), text).expect("write");
    for version in 15..=17 {
        let file = dir.join(format!("synthetic-transformer-v{version}.bin.gz"));
        let net = transformer_net(version, true, transformer_seed(version));
        std::fs::write(&file, gzip(&net)).expect("write");
    }
}
