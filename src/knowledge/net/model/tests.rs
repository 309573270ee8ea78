//! The model reader: the synthetic nets of every version, batch-norm folding by hand, and
//! broken files (cut at every length, wrong counts, NaN weights, garbage, unsupported blocks),
//! each an error and never a panic.

use super::synthetic::{self, Dims};
use super::*;

fn parse_text(text: &str) -> Result<Model, Problem> {
    Model::parse(text.as_bytes(), false)
}

/// What is wrong with a text model that must not load.
fn text_error(text: &str) -> String {
    parse_text(text).unwrap_err().to_string()
}

fn tiny(version: i32, binary: bool) -> Vec<u8> {
    synthetic::net_sized(version, binary, 7, &Dims::TINY)
}

fn tiny_text(version: i32) -> String {
    String::from_utf8(tiny(version, false)).expect("text")
}

/// The blocks of a stack, by kind.
fn kinds(blocks: &[Block]) -> Vec<&'static str> {
    blocks
        .iter()
        .map(|b| match b {
            Block::Ordinary { .. } => "ordinary",
            Block::GlobalPooling { .. } => "gpool",
            Block::NestedBottleneck { .. } => "nested",
            Block::Attention(_) => "attention",
            Block::FeedForward(_) => "feed-forward",
        })
        .collect()
}

#[test]
fn synthetic_nets_of_every_version_load() {
    for version in 8..=15 {
        let m = Model::parse(&synthetic::net(version, true, 1), true)
            .unwrap_or_else(|e| panic!("version {version}: {e}"));
        assert_eq!(m.name, format!("synthetic-v{version}"));
        assert_eq!(m.version, version);
        assert_eq!(m.trunk.channels, 24);
        assert_eq!(
            m.trunk.initial_conv.ksize,
            if version % 2 == 0 { 5 } else { 3 }
        );
        assert_eq!(kinds(&m.trunk.blocks), ["ordinary", "gpool", "nested"]);
        let Block::NestedBottleneck { blocks, .. } = &m.trunk.blocks[2] else {
            unreachable!()
        };
        assert_eq!(kinds(blocks), ["ordinary", "gpool"]);
        assert_eq!(m.policy_channels(), if version >= 12 { 2 } else { 1 });
        assert_eq!(m.policy.pass_extra.is_some(), version >= 15);
        assert_eq!(m.value.sv3.out_channels, if version >= 9 { 6 } else { 4 });
        let expected_lead = if version >= 13 { 18.5 } else { 20.0 };
        assert_eq!(m.post_process.lead_multiplier, expected_lead);
        // Activations are read from version 11; before, all are ReLU.
        let Tip::Norm(tip) = &m.trunk.tip else {
            panic!("version {version}: a batch-norm tip")
        };
        let acts = [tip.act, m.policy.p1_act, m.value.v2_act];
        if version < 11 {
            assert!(acts.iter().all(|&a| a == Activation::Relu));
        } else {
            assert!(acts.iter().any(|&a| a != Activation::Relu));
        }
    }
}

fn transformer_text(version: i32) -> String {
    let net = synthetic::transformer_net(version, false, synthetic::transformer_seed(version));
    String::from_utf8(net).expect("text")
}

#[test]
fn synthetic_transformer_nets_of_versions_15_to_17_load() {
    for version in 15..=17 {
        let bytes = synthetic::transformer_net(version, true, synthetic::transformer_seed(version));
        let m = Model::parse(&bytes, true).unwrap_or_else(|e| panic!("version {version}: {e}"));
        assert_eq!(m.version, version);
        assert_eq!(
            kinds(&m.trunk.blocks),
            ["attention", "feed-forward", "nested", "gpool"]
        );
        let Block::NestedBottleneck { blocks, .. } = &m.trunk.blocks[2] else {
            unreachable!()
        };
        assert_eq!(
            kinds(blocks),
            ["attention", "ordinary", "attention", "feed-forward"]
        );
        let rope = |b: &Block| match b {
            Block::Attention(a) => match &a.rope {
                None => "none",
                Some(Rope::Learned(f)) => {
                    assert_eq!(f.len(), a.kv_heads * a.q_dim);
                    "learned"
                }
                Some(Rope::Fixed { theta }) => {
                    assert_eq!(*theta, 100.0);
                    "fixed"
                }
            },
            _ => unreachable!(),
        };
        assert_eq!(
            [rope(&m.trunk.blocks[0]), rope(&blocks[0]), rope(&blocks[2])],
            ["learned", "fixed", "none"]
        );
        let Block::Attention(a) = &m.trunk.blocks[0] else {
            unreachable!()
        };
        assert_eq!((a.heads, a.kv_heads, a.q_dim, a.v_dim), (4, 2, 6, 4));
        let Tip::RmsNorm(tip) = &m.trunk.tip else {
            panic!("version {version}: an RMSNorm tip")
        };
        assert_eq!(tip.spatial, version != 16);
        // Version 16's two Q-value channels are dropped: the policy and the optimistic one.
        assert_eq!(m.policy_channels(), 2);
        let (_, _, pass2) = m.policy.pass_extra.as_ref().expect("pass layers");
        assert_eq!(pass2.out_channels, 2);
        assert_eq!(pass2.weights.len(), m.policy.p1.out_channels * 2);
    }
}

/// Dropping the Q-value channels keeps the first two columns of every row.
#[test]
fn keeping_outputs_keeps_the_first_columns() {
    let mut weights = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let mut out = 4;
    keep_outputs(&mut weights, &mut out, 2);
    assert_eq!((weights, out), (vec![1.0, 2.0, 5.0, 6.0], 2));
}

#[test]
fn text_and_binary_files_read_the_same_weights() {
    let binary = Model::parse(&synthetic::net(15, true, 3), true).expect("binary");
    let text = Model::parse(&synthetic::net(15, false, 3), false).expect("text");
    assert_eq!(
        binary.trunk.initial_conv.weights,
        text.trunk.initial_conv.weights
    );
    assert_eq!(binary.value.ownership.weights, text.value.ownership.weights);
    let (Tip::Norm(b), Tip::Norm(t)) = (&binary.trunk.tip, &text.trunk.tip) else {
        panic!("batch-norm tips")
    };
    assert_eq!(b.scale, t.scale);
    // A binary file read as text, and text as binary, are errors.
    assert!(Model::parse(&synthetic::net(15, true, 3), false).is_err());
    assert!(Model::parse(&synthetic::net(15, false, 3), true).is_err());
}

/// A 1x1 conv into two channels, then a batch norm with scale and bias, folded: each output
/// channel's weights times `scale / sqrt(variance + epsilon)`, and the bias
/// `bias - merged_scale * mean`.
#[test]
fn batch_norm_folds_into_the_conv_before_it() {
    let text = "w 1 1 1 2 1 1 2.0 -1.0\n\
                bn 2 0.25 1 1\n\
                1.0 -2.0\n\
                0.75 3.75\n\
                3.0 0.5\n\
                0.5 0.0\n";
    let mut r = Reader::new(text.as_bytes(), false);
    let (name, conv) = parse_conv(&mut r).expect("conv");
    let norm = parse_norm(&mut r).expect("norm");
    // merged scales: 3 / sqrt(1) = 3, 0.5 / sqrt(4) = 0.25; biases: 0.5 - 3 = -2.5, 0 + 0.5.
    assert_eq!(norm.scale, [3.0, 0.25]);
    assert_eq!(norm.bias, [-2.5, 0.5]);
    let folded = fold(&name, conv, norm, Activation::Relu).expect("fold");
    assert_eq!(folded.conv.weights, [6.0, -0.25]);
    assert_eq!(folded.bias, [-2.5, 0.5]);
    // Without scale and bias: 1 / sqrt(variance + epsilon), -mean / sqrt(...).
    let text = "bn 1 1e-3 0 0 0.5 0.999\n";
    let norm = parse_norm(&mut Reader::new(text.as_bytes(), false)).expect("norm");
    assert_eq!(norm.scale, [1.0]);
    assert_eq!(norm.bias, [-0.5]);
}

#[test]
fn every_cut_of_a_file_is_an_error() {
    for binary in [true, false] {
        let full = tiny(15, binary);
        assert!(Model::parse(&full, binary).is_ok());
        for len in 0..full.len() {
            let cut = &full[..len];
            // A file cut only in its final separator is whole, and the last weight of a text
            // file cut inside its digits still reads as a number.
            let rest = &full[len..];
            let whole = rest.iter().all(u8::is_ascii_whitespace)
                || (!binary && !rest.trim_ascii_end().iter().any(u8::is_ascii_whitespace));
            if Model::parse(cut, binary).is_ok() {
                assert!(whole, "cut at {len} of {} loaded", full.len());
            }
        }
    }
}

#[test]
fn a_cut_names_the_layer_it_ends_in() {
    let full = tiny(12, true);
    let at = full
        .windows(5)
        .position(|w| w == b"v1/w\n")
        .expect("the value head's conv");
    let err = Model::parse(&full[..at + 25], true).unwrap_err();
    assert!(
        matches!(&err, Problem::Truncated { layer, .. } if layer == "v1/w"),
        "{err}"
    );
}

#[test]
fn counts_that_do_not_match_are_errors() {
    let d = Dims {
        value_outputs: 4,
        ..Dims::TINY
    };
    let err = Model::parse(&synthetic::net_sized(10, true, 1, &d), true).unwrap_err();
    assert!(err.to_string().contains("v3 outputs: 4 != 3"), "{err}");
    let d = Dims {
        spatial: 21,
        ..Dims::TINY
    };
    let err = Model::parse(&synthetic::net_sized(10, true, 1, &d), true).unwrap_err();
    assert_eq!(err.to_string(), "layer conv1: inputs: 21 != 22");
    // A count in a header changed: the weights no longer fit what follows.
    let text = tiny_text(10).replacen("v2/b\n2\n", "v2/b\n3\n", 1);
    let err = parse_text(&text).unwrap_err();
    assert!(
        err.to_string().starts_with("layer v2/b: expected a weight"),
        "{err}"
    );
    // A negative or absurd count.
    let text = tiny_text(10).replacen("conv1\n5\n5\n22\n2\n", "conv1\n5\n5\n22\n-2\n", 1);
    assert!(text_error(&text).contains("must be positive"));
    let text = tiny_text(10).replacen("conv1\n5\n5\n22\n2\n", "conv1\n5\n5\n22\n2000000000\n", 1);
    let err = parse_text(&text).unwrap_err();
    assert!(matches!(err, Problem::Truncated { .. }), "{err}");
}

#[test]
fn nan_and_infinite_weights_are_errors() {
    let mut bin = tiny(11, true);
    let at = bin.windows(5).position(|w| w == b"@BIN@").expect("a block") + 5;
    bin[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = Model::parse(&bin, true).unwrap_err();
    assert_eq!(
        err,
        Problem::NonFinite {
            layer: "conv1".into()
        }
    );
    let text = tiny_text(11);
    let block = text.find("ginputw\n19\n2\n").expect("the global matmul") + 13;
    for bad in ["nan", "inf", "-inf"] {
        let mut broken = text.clone();
        let end = block + broken[block..].find(' ').expect("a weight");
        broken.replace_range(block..end, bad);
        let err = parse_text(&broken).unwrap_err();
        assert_eq!(
            err,
            Problem::NonFinite {
                layer: "ginputw".into()
            },
            "{bad}"
        );
    }
    // A batch norm's epsilon must be positive and finite.
    let text = tiny_text(11).replacen("rconv1/norm1\n2\n0.001\n", "rconv1/norm1\n2\n0\n", 1);
    assert!(text_error(&text).contains("epsilon"));
}

#[test]
fn garbage_and_damaged_files_are_errors_never_panics() {
    let mut state = 0x5EED_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for len in [0, 1, 5, 100, 4096] {
        let garbage: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        assert!(Model::parse(&garbage, true).is_err());
        assert!(Model::parse(&garbage, false).is_err());
    }
    // Bytes changed at random in a good file: loads or fails, but returns.
    for binary in [true, false] {
        let good = tiny(13, binary);
        for _ in 0..3000 {
            let mut damaged = good.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % damaged.len() as u64) as usize;
                damaged[at] = next() as u8;
            }
            let _ = Model::parse(&damaged, binary);
        }
    }
}

#[test]
fn what_katago_refuses_or_no_backend_runs_is_refused_by_name() {
    // A feed-forward block without SwiGLU, which no KataGo backend evaluates.
    let text = transformer_text(15).replacen("blocks.1\n24\n32\n1\n", "blocks.1\n24\n32\n0\n", 1);
    let err = parse_text(&text).unwrap_err();
    assert!(matches!(err, Problem::Unsupported { .. }), "{err}");
    assert!(
        err.to_string().contains("without SwiGLU (blocks.1)"),
        "{err}"
    );
    // Each edit of a synthetic net's text, and what the refusal names.
    let (transformer, tiny_net) = (transformer_text(15), tiny_text(15));
    for (text, from, to, refusal) in [
        // A grouped RMSNorm at the tip.
        (
            &transformer,
            "norm_trunkfinal\n24\n1e-06\n1\n0\n",
            "norm_trunkfinal\n24\n1e-06\n1\n8\n",
            "grouped RMSNorm",
        ),
        // Heads that do not share key/value heads evenly, and an odd RoPE head.
        (
            &transformer,
            "blocks.0\n4\n2\n6\n",
            "blocks.0\n4\n3\n6\n",
            "not a multiple of numKVHeads",
        ),
        (
            &transformer,
            "blocks.0\n4\n2\n6\n",
            "blocks.0\n4\n2\n5\n",
            "odd, with RoPE",
        ),
        (
            &tiny_net,
            "trunk\n3\n2\n2\n2\n2\n1\n0\n",
            "trunk\n3\n2\n2\n2\n2\n1\n2\n",
            "unknown trunk norm kind 2",
        ),
        (&tiny_net, "28\n0\n", "28\n1\n", "SGF-metadata encoder"),
        (
            &transformer_text(17),
            "policyhead\n2\n",
            "policyhead\n3\n",
            "policyOutChannels is 3",
        ),
        (
            &tiny_net,
            "ordinary_block",
            "mystery_block",
            "unknown block kind mystery_block",
        ),
    ] {
        let error = text_error(&text.replacen(from, to, 1));
        assert!(error.contains(refusal), "{refusal}: {error}");
    }
    for version in ["7", "18", "-1"] {
        let text = tiny_text(15).replacen("\n15\n", &format!("\n{version}\n"), 1);
        let err = parse_text(&text).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("model version {version} ")),
            "{err}"
        );
    }
}

/// Files on disk: gzipped or not, and every way a file can be wrong names the file in one line.
#[test]
fn loading_files_reports_the_file_and_the_problem_in_one_line() {
    let dir = std::env::temp_dir().join(format!("tengen-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bin = dir.join("net.bin.gz");
    std::fs::write(&bin, synthetic::gzip(&tiny(14, true))).expect("write");
    assert_eq!(Model::load(&bin).expect("bin.gz").version, 14);
    let txt = dir.join("net.txt.gz");
    std::fs::write(&txt, synthetic::gzip(&tiny(14, false))).expect("write");
    assert_eq!(Model::load(&txt).expect("txt.gz").version, 14);
    // A plain .gz is tried as binary, then as text.
    let gz = dir.join("net.gz");
    std::fs::write(&gz, synthetic::gzip(&tiny(14, false))).expect("write");
    assert_eq!(Model::load(&gz).expect("gz").version, 14);
    let raw = dir.join("net.bin");
    std::fs::write(&raw, tiny(14, true)).expect("write");
    assert_eq!(Model::load(&raw).expect("bin").version, 14);

    let check = |path: &Path, wanted: &str| {
        let err = Model::load(path).unwrap_err();
        let line = err.to_string();
        assert!(line.starts_with(&path.display().to_string()), "{line}");
        assert!(line.contains(wanted), "{line}");
        assert!(!line.contains('\n'), "{line}");
    };
    let mut gzipped = synthetic::gzip(&tiny(14, true));
    let half = gzipped.len() / 2;
    let cut = dir.join("cut.bin.gz");
    std::fs::write(&cut, &gzipped[..half]).expect("write");
    check(&cut, "bad gzip stream");
    for b in &mut gzipped[20..40] {
        *b ^= 0x55;
    }
    let corrupt = dir.join("corrupt.bin.gz");
    std::fs::write(&corrupt, &gzipped).expect("write");
    check(&corrupt, "bad gzip stream");
    let not_gzip = dir.join("plain.bin.gz");
    std::fs::write(&not_gzip, b"hello").expect("write");
    check(&not_gzip, "bad gzip stream");
    check(&dir.join("missing.bin.gz"), "cannot read");
    let named = dir.join("net.onnx");
    std::fs::write(&named, b"x").expect("write");
    check(&named, ".bin.gz");
    let unsupported = dir.join("no-swiglu.txt.gz");
    let text = transformer_text(16).replacen("blocks.1\n24\n32\n1\n", "blocks.1\n24\n32\n0\n", 1);
    std::fs::write(&unsupported, synthetic::gzip(text.as_bytes())).expect("write");
    check(
        &unsupported,
        "a feed-forward block without SwiGLU (blocks.1) is not supported",
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_version_15_net_may_ask_for_areas_as_if_suicide_were_legal() {
    let text = tiny_text(15);
    let plain = parse_text(&text).expect("the synthetic net");
    assert!(!plain.pass_alive_as_if_suicide_legal);
    // The header's second number after the post-processing multipliers is the flag.
    let flagged = text.replacen("\n28\n0\n0\n", "\n28\n0\n1\n", 1);
    assert_ne!(flagged, text);
    let model = parse_text(&flagged).expect("the flagged net");
    assert!(model.pass_alive_as_if_suicide_legal);
    let net = crate::knowledge::net::Net::from_model(model);
    assert!(net.input_options().pass_alive_as_if_suicide_legal);
    let bad = text.replacen("\n28\n0\n0\n", "\n28\n0\n2\n", 1);
    assert!(parse_text(&bad).is_err());
}
