//! KataGo's published networks that `tengen net get` fetches by name, and what a net file says
//! of itself: its header (read even where this build refuses the net, to say what it is), and
//! whether it loads and evaluates a position.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::model::{Block, MAX_MODEL_BYTES, Model, NetError, Problem};
use super::{DEFAULT_OPTIMISM, Features, Net};
use crate::rules::game::{Game, Rules};

/// A trunk's shape: residual blocks by channels, convolutional or transformer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Architecture {
    pub blocks: usize,
    pub channels: usize,
    pub transformer: bool,
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.transformer {
            "transformer"
        } else {
            "conv"
        };
        write!(f, "{kind} {}x{}", self.blocks, self.channels)
    }
}

/// A network KataGo publishes, as `tengen net get NAME` fetches it.
#[derive(Debug)]
pub struct KnownNet {
    /// The short name it is asked for by.
    pub name: &'static str,
    /// The file's name, as published.
    pub file: &'static str,
    /// The official download address.
    pub url: &'static str,
    pub bytes: u64,
    pub sha256: &'static str,
    pub architecture: Architecture,
    pub model_version: i32,
    /// What it is for.
    pub purpose: &'static str,
    /// The visits of a move of the `net` level with this net when no clock or `--playouts`
    /// bounds it: a 19x19 move in 2 s or less on one thread (docs/FIGURES.md has the times).
    pub visits: u64,
}

/// The net `tengen net get` fetches without a name: the strongest per second on a CPU that
/// this build reads.
pub const DEFAULT: &str = "kata1-b18c384nbt";

/// KataGo's published nets, the strongest per second on a CPU first (docs/FIGURES.md (30):
/// matches at one second a move on 19x19). Sizes and sha256 are measured on the files; no
/// address could be fetched from where this list was written.
pub const KNOWN: &[KnownNet] = &[
    KnownNet {
        name: "kata1-b18c384nbt",
        file: "kata1-b18c384nbt-s9996604416-d4316597426.bin.gz",
        // katagotraining.org's networks page.
        url: "https://media.katagotraining.org/uploaded/networks/models/kata1/kata1-b18c384nbt-s9996604416-d4316597426.bin.gz",
        bytes: 97_898_094,
        sha256: "9d7a6afed8ff5b74894727e156f04f0cd36060a24824892008fbb6e0cba51f1d",
        architecture: Architecture {
            blocks: 18,
            channels: 384,
            transformer: false,
        },
        model_version: 14,
        purpose: "the most strength per second on a CPU: it beat g170e-b15c192 at one second a move",
        visits: 8,
    },
    KnownNet {
        name: "g170e-b15c192",
        file: "g170e-b15c192-s1672170752-d466197061.bin.gz",
        // The g170 run's archive. Not fetched from here, but its unpacked sha256 (7a1fe84a…)
        // and both sizes match a public listing of that download.
        url: "https://katagoarchive.org/g170/neuralnets/g170e-b15c192-s1672170752-d466197061.bin.gz",
        bytes: 36_948_927,
        sha256: "1579a64e6190c3a8d73eeb96feb4dee1879f9e5e114279b15d6c56dbab3b0f78",
        architecture: Architecture {
            blocks: 15,
            channels: 192,
            transformer: false,
        },
        model_version: 8,
        purpose: "three times b18c384nbt's visits a second, weaker at equal time; it beat b6c96 at one second a move",
        visits: 25,
    },
    KnownNet {
        name: "g170-b6c96",
        file: "g170-b6c96-s175395328-d26788732.bin.gz",
        // The net KataGo's own tests use, in its repository at tag v1.17.2.
        url: "https://raw.githubusercontent.com/lightvector/KataGo/v1.17.2/cpp/tests/models/g170-b6c96-s175395328-d26788732.bin.gz",
        bytes: 3_827_339,
        sha256: "f5d32604e3675c480c7c8f6aa579a1ea857135628a0afccc8fa56330fbacd38d",
        architecture: Architecture {
            blocks: 6,
            channels: 96,
            transformer: false,
        },
        model_version: 8,
        purpose: "small and fast (10 times b15c192's visits a second), weaker at equal time",
        visits: 200,
    },
    KnownNet {
        name: "b10c384h6nbttflrs",
        file: "b10c384h6nbttflrs.bin.gz",
        // Attached to KataGo's release v1.17.0.
        url: "https://github.com/lightvector/KataGo/releases/download/v1.17.0/b10c384h6nbttflrs.bin.gz",
        bytes: 38_245_488,
        sha256: "0ba27eced5180b3e3d0b898b280c541112989765e789d1eb6cd0d31b2b2c1229",
        architecture: Architecture {
            blocks: 10,
            channels: 384,
            transformer: true,
        },
        model_version: 15,
        purpose: "KataGo's small transformer, the net KaTrain installs; not yet matched against the others",
        visits: 8,
    },
];

/// The known net asked for by its short name, its file's name, or that name without
/// `.bin.gz`.
pub fn find(name: &str) -> Option<&'static KnownNet> {
    KNOWN.iter().find(|net| {
        net.name == name || net.file == name || net.file.strip_suffix(".bin.gz") == Some(name)
    })
}

/// The known net whose published file is named `file`.
pub fn by_file(file: &str) -> Option<&'static KnownNet> {
    KNOWN.iter().find(|net| net.file == file)
}

/// The net fetched when none is named.
pub fn default_net() -> &'static KnownNet {
    find(DEFAULT).expect("the default net is a known one")
}

/// How many blocks of each kind a trunk holds, those inside nested blocks included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockKinds {
    pub ordinary: usize,
    pub global_pooling: usize,
    pub nested_bottleneck: usize,
    pub attention: usize,
    pub feed_forward: usize,
}

impl BlockKinds {
    /// The kinds of a loaded trunk's blocks.
    fn of(blocks: &[Block]) -> BlockKinds {
        let mut kinds = BlockKinds::default();
        for block in blocks {
            match block {
                Block::Ordinary { .. } => kinds.ordinary += 1,
                Block::GlobalPooling { .. } => kinds.global_pooling += 1,
                Block::NestedBottleneck { blocks, .. } => {
                    let inner = BlockKinds::of(blocks);
                    kinds.nested_bottleneck += 1 + inner.nested_bottleneck;
                    kinds.ordinary += inner.ordinary;
                    kinds.global_pooling += inner.global_pooling;
                    kinds.attention += inner.attention;
                    kinds.feed_forward += inner.feed_forward;
                }
                Block::Attention(_) => kinds.attention += 1,
                Block::FeedForward(_) => kinds.feed_forward += 1,
            }
        }
        kinds
    }

    /// Counts `token` if it names a kind of block.
    fn count(&mut self, token: &[u8]) {
        match token {
            b"ordinary_block" => self.ordinary += 1,
            b"gpool_block" => self.global_pooling += 1,
            b"nested_bottleneck_block" => self.nested_bottleneck += 1,
            b"transformer_attention_block" => self.attention += 1,
            b"transformer_ffn_block" => self.feed_forward += 1,
            _ => {}
        }
    }
}

impl fmt::Display for BlockKinds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds = [
            (self.ordinary, "ordinary"),
            (self.global_pooling, "global pooling"),
            (self.nested_bottleneck, "nested bottleneck"),
            (self.attention, "transformer attention"),
            (self.feed_forward, "transformer feed-forward"),
        ];
        let named: Vec<String> = kinds
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, kind)| format!("{n} {kind}"))
            .collect();
        f.write_str(&named.join(", "))
    }
}

/// What a net file's header says, read without loading its weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub name: String,
    pub version: i64,
    pub architecture: Architecture,
    /// The trunk's normalisation (a version-15 field): 0 batch norm, 1 RMSNorm.
    pub trunk_norm: i64,
    pub blocks: BlockKinds,
}

/// The header's words are within this many bytes of the start.
const HEADER_BYTES: u64 = 4096;

/// The file at `path`, unpacked when `name` ends in `.gz`.
fn open(path: &Path, name: &str) -> Result<Box<dyn Read>, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let file = BufReader::new(file);
    Ok(if name.to_lowercase().ends_with(".gz") {
        Box::new(flate2::bufread::MultiGzDecoder::new(file).take(MAX_MODEL_BYTES))
    } else {
        Box::new(file.take(MAX_MODEL_BYTES))
    })
}

/// Reads the header of the net at `path` (named `name`, which says whether it is gzipped), and
/// the kinds of its blocks from the whole file.
pub fn read_header(path: &Path, name: &str) -> Result<Header, String> {
    let mut stream = open(path, name)?;
    let mut head = Vec::new();
    (&mut stream)
        .take(HEADER_BYTES)
        .read_to_end(&mut head)
        .map_err(|e| format!("bad gzip stream: {e}"))?;
    let words: Vec<&str> = head
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty())
        .take(48)
        .map(|w| std::str::from_utf8(w).unwrap_or(""))
        .collect();
    let not_a_net = || "its header is not a KataGo model's".to_string();
    let number = |i: usize| words.get(i).and_then(|w| w.parse::<i64>().ok());
    let name = words
        .first()
        .filter(|w| !w.is_empty())
        .ok_or_else(not_a_net)?;
    let version = number(1).ok_or_else(not_a_net)?;
    let mut at = 4;
    if version >= 13 {
        at += 7;
    }
    if version >= 15 {
        at += 8;
    }
    let size = |i: usize| {
        number(i)
            .filter(|&n| n > 0)
            .and_then(|n| usize::try_from(n).ok())
    };
    let (Some(blocks), Some(channels)) = (size(at + 1), size(at + 2)) else {
        return Err(not_a_net());
    };
    let trunk_norm = if version >= 15 {
        number(at + 7).unwrap_or(0)
    } else {
        0
    };
    let kinds = block_kinds(&head, &mut stream).map_err(|e| format!("bad gzip stream: {e}"))?;
    Ok(Header {
        name: name.to_string(),
        version,
        architecture: Architecture {
            blocks,
            channels,
            transformer: kinds.attention + kinds.feed_forward > 0,
        },
        trunk_norm,
        blocks: kinds,
    })
}

/// Counts the block kinds named by whole words in `head` and then the rest of `stream`.
fn block_kinds(head: &[u8], stream: &mut dyn Read) -> std::io::Result<BlockKinds> {
    const LONGEST: usize = 32;
    let mut kinds = BlockKinds::default();
    // The word being read; `None` inside one too long to name a kind.
    let mut word: Option<Vec<u8>> = Some(Vec::new());
    let mut scan = |bytes: &[u8]| {
        for &b in bytes {
            if b.is_ascii_whitespace() {
                if let Some(w) = &word {
                    kinds.count(w);
                }
                word = Some(Vec::new());
            } else if let Some(w) = &mut word {
                if w.len() < LONGEST {
                    w.push(b);
                } else {
                    word = None;
                }
            }
        }
    };
    scan(head);
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => scan(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(kinds)
}

/// The trunk of a loaded model.
pub fn architecture(model: &Model) -> Architecture {
    let kinds = BlockKinds::of(&model.trunk.blocks);
    Architecture {
        blocks: model.trunk.blocks.len(),
        channels: model.trunk.channels,
        transformer: kinds.attention + kinds.feed_forward > 0,
    }
}

/// A loaded model's trunk and heads, as lines of `label: value`.
pub fn describe(model: &Model) -> Vec<(&'static str, String)> {
    let policy = &model.policy;
    let value = &model.value;
    let optimistic = if policy.p2.out_channels > 1 {
        " (with the optimistic policy)"
    } else {
        ""
    };
    vec![
        ("name", model.name.clone()),
        ("model version", model.version.to_string()),
        ("trunk", architecture(model).to_string()),
        ("blocks", BlockKinds::of(&model.trunk.blocks).to_string()),
        (
            "policy head",
            format!(
                "{} channels, {} pooled, {} policy output{}{optimistic}",
                policy.p1.out_channels,
                policy.g1.conv.out_channels,
                policy.p2.out_channels,
                if policy.p2.out_channels == 1 { "" } else { "s" }
            ),
        ),
        (
            "value head",
            format!(
                "{} channels, {} hidden, {} score outputs, ownership",
                value.v1.conv.out_channels, value.v2.out_channels, value.sv3.out_channels
            ),
        ),
    ]
}

/// Loads the net at `path` as `Net::load` loads a file named `name`: a download's `.part`
/// file is checked before it takes its name.
pub fn load_as(path: &Path, name: &str) -> Result<Net, NetError> {
    let err = |problem| NetError {
        file: path.display().to_string(),
        problem,
    };
    let raw = std::fs::read(path).map_err(|e| err(Problem::Io(e.to_string())))?;
    Model::from_file_bytes(&raw, name)
        .map(Net::from_model)
        .map_err(err)
}

/// Evaluates the empty 19x19 board: an error when the answer is not finite or its
/// probabilities do not add up.
pub fn evaluates(net: &Net) -> Result<(), String> {
    let features = Features::from_game(&Game::new(19, Rules::chinese(7.5)));
    let out = net.evaluate(&features, 0, DEFAULT_OPTIMISM);
    let outcome = out.white_win + out.white_loss + out.no_result;
    let moves: f32 = out.policy.iter().filter(|p| !p.is_nan()).sum::<f32>() + out.policy_pass;
    let finite = [out.white_lead, out.white_score_selfplay, outcome, moves]
        .iter()
        .chain(&out.white_ownership)
        .all(|v| v.is_finite());
    if finite && (outcome - 1.0).abs() < 1e-3 && (moves - 1.0).abs() < 1e-3 {
        Ok(())
    } else {
        Err("its answer on the empty 19x19 board is not finite or its probabilities do not add up to 1".into())
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::synthetic;
    use super::*;
    use crate::ground::download::sha256;

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tengen-known-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn the_known_list_agrees_with_its_names() {
        assert_eq!(KNOWN[0].name, DEFAULT, "the default comes first");
        for net in KNOWN {
            assert!(net.url.starts_with("https://"), "{}", net.name);
            assert!(net.url.ends_with(&format!("/{}", net.file)), "{}", net.name);
            assert!(net.file.ends_with(".bin.gz"), "{}", net.name);
            assert_eq!(net.sha256.len(), 64, "{}", net.name);
            assert!(net.sha256.bytes().all(|b| b.is_ascii_hexdigit()));
            // "b18c384" in the name is 18 blocks of 384 channels.
            let shape = net.name.split(['-', 'n', 'h']).find(|w| w.starts_with('b'));
            let shape = shape.and_then(|w| w[1..].split_once('c')).unwrap();
            assert_eq!(shape.0.parse(), Ok(net.architecture.blocks), "{}", net.name);
            assert_eq!(
                shape.1.parse(),
                Ok(net.architecture.channels),
                "{}",
                net.name
            );
            assert_eq!(find(net.name).map(|n| n.file), Some(net.file));
            assert_eq!(find(net.file).map(|n| n.name), Some(net.name));
            assert_eq!(by_file(net.file).map(|n| n.name), Some(net.name));
        }
        assert!(find("g170").is_none());
    }

    /// Every known net in the test nets' directory (by its file's name or its short name):
    /// its size, sha256 and header as the list says. g170-b6c96 must be there.
    #[test]
    #[cfg_attr(
        not(test_nets),
        ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
    )]
    fn the_known_nets_in_hand_are_as_the_list_says() {
        let dir = Path::new(env!("TENGEN_TEST_NETS"));
        let mut checked = Vec::new();
        for net in KNOWN {
            let short = format!("{}.bin.gz", net.name);
            let Some(file) = [net.file, &short]
                .iter()
                .map(|name| dir.join(name))
                .find(|path| path.is_file())
            else {
                continue;
            };
            assert_eq!(
                std::fs::metadata(&file).unwrap().len(),
                net.bytes,
                "{}",
                net.name
            );
            assert_eq!(sha256(&file).unwrap(), net.sha256, "{}", net.name);
            let header = read_header(&file, net.file).unwrap();
            assert_eq!(header.architecture, net.architecture, "{}", net.name);
            assert_eq!(header.version, i64::from(net.model_version), "{}", net.name);
            checked.push(net.name);
        }
        assert!(checked.contains(&"g170-b6c96"), "{checked:?}");
        eprintln!("checked against the files: {checked:?}");
    }

    #[test]
    fn a_headers_words_and_blocks_are_read_for_every_version() {
        for version in 8..=15 {
            let bytes = synthetic::gzip(&synthetic::net(version, true, synthetic::seed(version)));
            let path = temp_file(&format!("v{version}.part"), &bytes);
            let header = read_header(&path, "net.bin.gz").unwrap();
            assert_eq!(header.name, format!("synthetic-v{version}"));
            assert_eq!(header.version, i64::from(version));
            assert_eq!(header.architecture.to_string(), "conv 3x24");
            let kinds = "2 ordinary, 2 global pooling, 1 nested bottleneck";
            assert_eq!(header.blocks.to_string(), kinds);
            let net = load_as(&path, "net.bin.gz").unwrap();
            let model = net.model();
            assert_eq!(architecture(model), header.architecture);
            let described = describe(model);
            assert_eq!(described[3], ("blocks", kinds.to_string()));
            evaluates(&net).unwrap();
            std::fs::remove_file(path).unwrap();
        }
        for version in 15..=17 {
            let seed = synthetic::transformer_seed(version);
            let bytes = synthetic::gzip(&synthetic::transformer_net(version, true, seed));
            let path = temp_file(&format!("t{version}.part"), &bytes);
            let header = read_header(&path, "net.bin.gz").unwrap();
            assert_eq!(header.architecture.to_string(), "transformer 4x24");
            let net = load_as(&path, "net.bin.gz").unwrap();
            assert_eq!(architecture(net.model()), header.architecture);
            let kinds = "1 ordinary, 1 global pooling, 1 nested bottleneck, \
                         3 transformer attention, 2 transformer feed-forward";
            assert_eq!(describe(net.model())[3], ("blocks", kinds.to_string()));
            evaluates(&net).unwrap();
            std::fs::remove_file(path).unwrap();
        }
    }

    #[test]
    fn a_transformer_is_named() {
        // KaTrain's b10c384h6nbttflrs begins so; its blocks are named further on.
        let text = "b10c384h6nbttflrs\n15\n22\n19\n20.0\n20.0\n20.0\n20.0\n40.0\n0.25\n\
                    150.0\n0\n0\n0\n0\n0\n0\n0\n0\ntrunk\n10\n384\n192\n144\n48\n48\n1\n0\n\
                    0\n0\n0\n0\nconv 3 3 22 384 1 1 @BIN@\x01\x02 \n\
                    nested_bottleneck_block\ntransformer_attention_block\ntransformer_ffn_block\n";
        let path = temp_file("transformer.part", &synthetic::gzip(text.as_bytes()));
        let header = read_header(&path, "t.bin.gz").unwrap();
        assert_eq!(header.architecture.to_string(), "transformer 10x384");
        assert_eq!(header.trunk_norm, 1);
        // Read past its header, the cut file ends inside its first layer.
        let e = load_as(&path, "t.bin.gz").expect_err("cut short");
        assert!(e.to_string().contains("truncated in layer conv"), "{e}");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn files_that_are_no_nets_say_so() {
        let garbage = temp_file("garbage.part", b"not gzip at all");
        assert!(
            read_header(&garbage, "g.bin.gz")
                .unwrap_err()
                .contains("gzip")
        );
        assert!(load_as(&garbage, "g.bin.gz").is_err());
        let words = temp_file("words.part", &synthetic::gzip(b"hello world\n"));
        assert!(
            read_header(&words, "w.bin.gz")
                .unwrap_err()
                .contains("not a KataGo")
        );
        for path in [garbage, words] {
            std::fs::remove_file(path).unwrap();
        }
    }
}
