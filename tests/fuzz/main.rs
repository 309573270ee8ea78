//! The fuzz targets of `harness.rs` in `cargo test`: every committed corpus input (seeds and
//! the inputs of past findings, `fuzz/corpus/<target>/`, and the model target's generated
//! seeds), then a short structured run of each
//! target with proptest — inputs built from each format's grammar, and byte-level mutations
//! of the corpus. The long coverage-guided runs use AFL++ on the same functions (`fuzz/`,
//! docs/FUZZING.md). `FUZZ_CASES=N` sets the cases per property (default 1000).

mod harness;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};

/// Panics anywhere in the process, the GTP reader thread included (whose panic nothing
/// joins): every property checks the count stayed at 0.
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            default(info);
        }));
    });
}

/// Runs `target` on `data`; fails if it panicked in any thread.
fn run(target: fn(&[u8]), data: &[u8]) -> Result<(), TestCaseError> {
    count_panics();
    let before = PANICS.load(Ordering::SeqCst);
    target(data);
    prop_assert_eq!(PANICS.load(Ordering::SeqCst), before, "a panic");
    Ok(())
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        // A failure prints its input; the corpus, not a side file, keeps regressions.
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    }
}

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target)
}

/// The inputs committed for `target` (a target may have none), sorted by name, then the
/// generated seeds.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(corpus_dir(target)) {
        Ok(entries) => entries.map(|e| e.expect("a corpus entry").path()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("the corpus folder of {target}: {e}"),
    };
    paths.sort();
    let mut inputs: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("a corpus file"))
        .collect();
    if target == "model" {
        inputs.extend(harness::model_seeds().into_iter().map(|(_, bytes)| bytes));
    }
    inputs
}

fn corpus_cached(target: &'static str) -> &'static [Vec<u8>] {
    static CACHE: OnceLock<std::collections::BTreeMap<&'static str, Vec<Vec<u8>>>> =
        OnceLock::new();
    &CACHE.get_or_init(|| {
        ["gtp", "sgf", "config", "query", "model"]
            .into_iter()
            .map(|t| (t, corpus(t)))
            .collect()
    })[target]
}

/// One byte-level edit of a corpus input, as a mutating fuzzer makes them.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    /// Copies a span of the input elsewhere (repeats a node, a line, a table).
    Splice(usize, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop_oneof![
        Just(b"[".to_vec()),
        Just(b"]".to_vec()),
        Just(b"(".to_vec()),
        Just(b")".to_vec()),
        Just(b";".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"{".to_vec()),
        Just(b"1e300".to_vec()),
        Just(b"-1".to_vec()),
        Just(b"nan".to_vec()),
        Just(b"18446744073709551616".to_vec()),
        Just("é\u{0}\u{7f}".as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 1..8),
    ];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<usize>(), interesting).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 1..16usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<usize>(), 1..64usize, any::<usize>()).prop_map(|(i, n, j)| Edit::Splice(i, n, j)),
    ]
}

fn apply(mut data: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = data.len();
        match e {
            Edit::Flip(i, b) if len > 0 => data[i % len] ^= b | 1,
            Edit::Flip(..) => {}
            Edit::Insert(i, bytes) => {
                let at = i % (len + 1);
                data.splice(at..at, bytes.iter().copied());
            }
            Edit::Delete(i, n) if len > 0 => {
                let at = i % len;
                data.drain(at..(at + n).min(len));
            }
            Edit::Delete(..) => {}
            Edit::Splice(i, n, j) if len > 0 => {
                let from = i % len;
                let span = data[from..(from + n).min(len)].to_vec();
                let at = j % (len + 1);
                data.splice(at..at, span);
            }
            Edit::Splice(..) => {}
        }
    }
    data
}

/// A corpus input of `target` with a few edits.
fn mutated(target: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let seeds = corpus_cached(target);
    (0..seeds.len(), proptest::collection::vec(edit(), 1..6))
        .prop_map(move |(i, edits)| apply(seeds[i].clone(), &edits))
}

fn pick(items: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::sample::select(items).prop_map(str::to_string)
}

/// A number as text: small, huge, negative, fractional, or not finite.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..30).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        pick(&[
            "1e300",
            "-0",
            "0.5",
            "nan",
            "inf",
            "-inf",
            "86400",
            "86401",
            "1e21",
            "4294967296"
        ]),
    ]
}

const GTP_COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "kgs-genmove_cleanup",
    "undo",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "final_score",
    "final_status_list",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "kgs-rules",
    "kata-get-rules",
    "kata-set-rules",
    "kata-set-rule",
    "kata-list-params",
    "kata-get-param",
    "kata-set-param",
    "kgs-game_over",
    "gogui-interrupt",
    "loadsgf",
    "printsgf",
    "showboard",
    "lz-analyze",
    "kata-analyze",
    "gogui-analyze_commands",
    "tengen-ownership",
    "tengen-visits",
    "tengen-pv",
    "tengen-winrate",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "# interrupt",
    "nonsense",
];

fn gtp_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => pick(&[
            "b", "w", "black", "WHITE", "pass", "resign", "A1", "E5", "T19", "Z25", "I9", "J9",
            "a0", "9", "19", "25", "26", "1", "2", "absolute", "byoyomi", "canadian", "none",
            "chinese", "japanese", "new_zealand", "tromp-taylor", "alive", "dead", "seki",
            "interval", "minmoves", "maxmoves", "avoid", "allow", "ownership", "true",
            "pvVisits", "gtp-scripts/sgf/ko.sgf", "tests/data/sgf", "/dev/null",
            "ko", "SIMPLE", "scoring", "TERRITORY", "suicide", r#"{"ko":"SITUATIONAL"}"#, "{",
            "maxVisits", "leaf_batch", "book",
        ]),
        2 => number(),
        1 => "[ -~]{0,6}",
    ]
}

/// A GTP session: lines of a known command (sometimes with an id) and arguments.
fn gtp_session() -> impl Strategy<Value = Vec<u8>> {
    let line = (
        proptest::option::of(0u32..1000),
        pick(GTP_COMMANDS),
        proptest::collection::vec(gtp_arg(), 0..5),
    )
        .prop_map(|(id, name, args)| {
            let id = id.map_or(String::new(), |n| format!("{n} "));
            format!("{id}{name} {}", args.join(" "))
        });
    proptest::collection::vec(line, 1..harness::MAX_GTP_LINES)
        .prop_map(|lines| (lines.join("\n") + "\n").into_bytes())
}

/// An SGF collection: nodes of Go properties, with variations.
fn sgf_collection() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        4 => "[a-u]{2}",
        1 => Just(String::new()),
        1 => Just("tt".to_string()),
        1 => number(),
        1 => "[ -~]{0,8}",
        1 => "[a-e]{2}:[a-e]{2}",
    ];
    let prop = (
        pick(&[
            "B", "W", "AB", "AW", "AE", "PL", "SZ", "KM", "HA", "C", "RE", "GM", "FF", "MN", "XX",
        ]),
        proptest::collection::vec(value, 1..4),
    )
        .prop_map(|(id, values)| format!("{id}[{}]", values.join("][")));
    let node =
        proptest::collection::vec(prop, 0..4).prop_map(|props| format!(";{}", props.concat()));
    let leaf =
        proptest::collection::vec(node, 1..8).prop_map(|nodes| format!("({})", nodes.concat()));
    let tree = leaf.prop_recursive(3, 24, 3, |inner| {
        (
            proptest::collection::vec(";B[cc]", 1..3),
            proptest::collection::vec(inner, 1..3),
        )
            .prop_map(|(nodes, subtrees)| format!("({}{})", nodes.concat(), subtrees.concat()))
    });
    (
        prop_oneof![Just("SZ[9]"), Just("SZ[19]"), Just("SZ[5]"), Just("")],
        proptest::collection::vec(tree, 1..3),
    )
        .prop_map(|(size, trees)| {
            let mut text = trees.concat();
            if let Some(i) = text.find(';') {
                text.insert_str(i + 1, size);
            }
            text.into_bytes()
        })
}

/// An engines.toml: level tables with known and unknown keys, engines, a default level.
fn engines_toml() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        number(),
        pick(&[
            "true",
            "false",
            "\"mcts\"",
            "\"random\"",
            "\"external\"",
            "\"heuristic\"",
            "\"gnugo\"",
            "[\"mcts\", \"easy\"]",
            "[]",
            "[\"a\"]",
            "\"\"",
            "{}"
        ]),
    ];
    let key = pick(&[
        "player",
        "seed",
        "playouts",
        "threads",
        "max_nodes",
        "resign_threshold",
        "exploration",
        "rave_equivalence",
        "rave_early_weight",
        "expand_after",
        "handicap_komi",
        "book",
        "leaf_batch",
        "engine",
        "fallback",
        "move_timeout_ms",
        "avoid_early_pass",
        "only_if_present",
        "bogus",
    ]);
    let level = (
        pick(&["easy", "medium", "mcts", "hard", "x", "gnugo"]),
        pick(&["mcts", "random", "heuristic", "external", "other"]),
        proptest::collection::vec((key, value), 0..5),
    )
        .prop_map(|(name, player, keys)| {
            let keys: String = keys.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
            format!("[levels.{name}]\nplayer = \"{player}\"\n{keys}")
        });
    let engine = (
        pick(&["gnugo", "katago", "x"]),
        proptest::collection::vec(
            pick(&[
                "gnugo",
                "${HOME}",
                "${UNSET_FUZZ}",
                "~/x",
                "./y",
                "",
                "$",
                "${",
            ]),
            0..4,
        ),
    )
        .prop_map(|(name, words)| {
            let words: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
            format!("[engines.{name}]\ncommand = [{}]\n", words.join(", "))
        });
    (
        proptest::option::of(pick(&["easy", "mcts", "x", "gnugo"])),
        proptest::collection::vec(level, 0..4),
        proptest::collection::vec(engine, 0..2),
    )
        .prop_map(|(default, levels, engines)| {
            let default = default.map_or(String::new(), |d| format!("default_level = \"{d}\"\n"));
            format!("{default}{}{}", levels.concat(), engines.concat()).into_bytes()
        })
}

/// An analysis query: an object of known and unknown fields with values of any JSON type.
fn analysis_query() -> impl Strategy<Value = Vec<u8>> {
    use serde_json::{Value, json};
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        (0u32..30).prop_map(|n| json!(n)),
        pick(&[
            "B",
            "W",
            "D4",
            "pass",
            "A1",
            "T19",
            "Z26",
            "japanese",
            "chinese",
            "tromp-taylor",
            "SIDETOMOVE",
            ""
        ])
        .prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    pick(&["player", "moves", "untilDepth", "maxTime", "ko", "scoring"]),
                    inner
                ),
                0..3
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    });
    // Every field tengen reads, one KataGo field it ignores, and a made-up one.
    let fields: Vec<&'static str> = tengen::front::analysis_engine::query::READ_FIELDS
        .iter()
        .copied()
        .chain(["action", "bogus"])
        .collect();
    let field = proptest::sample::select(fields).prop_map(str::to_string);
    let sizes = prop_oneof![
        Just(json!(9)),
        Just(json!(19)),
        any::<u8>().prop_map(|n| json!(n))
    ];
    (
        sizes,
        proptest::collection::vec((field, value), 0..8),
        proptest::collection::vec(("[BW]", "[A-HJ-T][1-9]"), 0..12),
    )
        .prop_map(|(size, fields, moves)| {
            let mut query = json!({"id": "p", "rules": "chinese", "boardXSize": size,
                "boardYSize": size, "moves": moves});
            for (k, v) in fields {
                query[k] = v;
            }
            query.to_string().into_bytes()
        })
}

/// The start of a model file: a name, a version, the input counts and numbers and words as a
/// header and blocks hold them (block kinds, counts that may be huge), gzipped or not, then
/// arbitrary bytes.
fn model_header() -> impl Strategy<Value = Vec<u8>> {
    let word = prop_oneof![
        3 => number(),
        2 => pick(&[
            "22", "19", "1", "0", "384", "ordinary_block", "gpool_block",
            "nested_bottleneck_block", "transformer_attention_block", "transformer_ffn_block",
            "trunk", "conv", "bn", "act", "matmul", "bias", "@BIN@", "ACTIVATION_RELU",
            "ACTIVATION_MISH",
        ]),
        1 => "[ -~]{0,6}",
    ];
    (
        pick(&["m", "b6c96", "b10c384h6nbttflrs"]),
        8i64..=17,
        proptest::collection::vec(word, 0..60),
        proptest::collection::vec(any::<u8>(), 0..64),
        any::<bool>(),
    )
        .prop_map(|(name, version, words, tail, gzip)| {
            let mut text =
                format!("{name}\n{version}\n22\n19\n{}\n", words.join("\n")).into_bytes();
            text.extend(tail);
            if !gzip {
                return text;
            }
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut encoder, &text).expect("gzip into memory");
            encoder.finish().expect("gzip into memory")
        })
}

fn replay_corpus(target: &str, run_one: fn(&[u8])) {
    let inputs = corpus(target);
    assert!(!inputs.is_empty(), "no corpus for {target}");
    for input in inputs {
        run(run_one, &input).unwrap();
    }
}

#[test]
fn corpus_gtp() {
    harness::warm_up();
    replay_corpus("gtp", harness::gtp_session);
}

#[test]
fn corpus_sgf() {
    replay_corpus("sgf", harness::sgf_text);
}

#[test]
fn corpus_config() {
    replay_corpus("config", harness::engines_toml);
}

#[test]
fn corpus_query() {
    replay_corpus("query", harness::analysis_query);
}

#[test]
fn corpus_model() {
    replay_corpus("model", harness::model_file);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn gtp_sessions(input in gtp_session()) {
        run(harness::gtp_session, &input)?;
    }

    #[test]
    fn gtp_mutated(input in mutated("gtp")) {
        run(harness::gtp_session, &input)?;
    }

    #[test]
    fn sgf_collections(input in sgf_collection()) {
        run(harness::sgf_text, &input)?;
    }

    #[test]
    fn sgf_mutated(input in mutated("sgf")) {
        run(harness::sgf_text, &input)?;
    }

    #[test]
    fn config_files(input in engines_toml()) {
        run(harness::engines_toml, &input)?;
    }

    #[test]
    fn config_mutated(input in mutated("config")) {
        run(harness::engines_toml, &input)?;
    }

    #[test]
    fn analysis_queries(input in analysis_query()) {
        run(harness::analysis_query, &input)?;
    }

    #[test]
    fn query_mutated(input in mutated("query")) {
        run(harness::analysis_query, &input)?;
    }

    #[test]
    fn model_mutated(input in mutated("model")) {
        run(harness::model_file, &input)?;
    }

    #[test]
    fn model_headers(input in model_header()) {
        run(harness::model_file, &input)?;
    }
}
