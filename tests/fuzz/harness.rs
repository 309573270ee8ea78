//! The five fuzz targets, each a function of arbitrary bytes that must not panic and must
//! finish in bounded time. Shared by the proptest driver (`tests/fuzz/main.rs`, run by
//! `cargo test`) and the coverage-guided AFL++ binaries (`fuzz/src/bin/*.rs`), which include
//! this file. See docs/FUZZING.md.

use std::io::Cursor;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use tengen::engine::config::{Config, SearchOverrides};
use tengen::engine::player::{SearchSettings, levels};
use tengen::front::analysis_engine::{self, EngineOptions, query};
use tengen::front::gtp::engine::{Kind, kind_of};
use tengen::front::gtp::{self, Engine, protocol};
use tengen::knowledge::net::model::{Model, synthetic};
use tengen::knowledge::net::{DEFAULT_OPTIMISM, Features, Net};
use tengen::rules::board::{MAX_SIZE, MIN_SIZE};
use tengen::rules::game::{Game, Rules};
use tengen::rules::sgf::{self, RecordInfo};

/// The most bytes of one input a target reads: GTP sessions and configs longer than this add
/// nothing a fuzzer can find, and keep each run short.
pub const MAX_INPUT: usize = 1 << 14;
/// The most command lines of one GTP session.
pub const MAX_GTP_LINES: usize = 24;
/// The largest board on which a fuzzed session scores (`final_score`, `final_status_list`):
/// their 1,000 playouts on all cores take ~5 ms on 4x4, ~80 ms on 9x9, 2 s on 19x19 and 8 s
/// on 25x25 (release build; an instrumented one is about ten times slower), which would make
/// scoring inputs "hangs" and the fuzzer crawl.
pub const MAX_SCORED_SIZE: usize = 4;
/// The most scoring commands of one session.
pub const MAX_SCORINGS: usize = 1;
/// The most bytes of an SGF or analysis query input (below the real limits, 4 MiB and
/// 1 MiB, which the unit tests cover; past a few kB a fuzzer only slows down).
pub const MAX_TEXT: usize = 1 << 16;

/// The levels a fuzzed GTP session plays with: `random` (cheap, and the real binary's
/// `WithAnalyst` wrapping), its analyst the `mcts` level on one thread with the smallest tree.
const GTP_CONFIG: &str = r#"
default_level = "easy"
[levels.easy]
player = "random"
seed = 7
[levels.mcts]
player = "mcts"
threads = 1
max_nodes = 1000
playouts = 64
seed = 7
"#;

fn gtp_config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        Config::from_text(GTP_CONFIG, Path::new("fuzz.toml")).expect("the fuzz config loads")
    })
}

/// Builds the search's tables (a moment's work, once per process) so that the first analysis
/// of a fuzzing process is not reported as a hang. AFL++ forks after this, so it must start no
/// thread pool (the scorer's would be lost in the fork).
pub fn warm_up() {
    tengen::engine::search::warm_up();
}

/// GTP: a whole engine (the `random` level wrapped as `tengen gtp --level easy` has it) is fed
/// the input's first [`MAX_GTP_LINES`] lines as one session through [`gtp::serve`]. After each
/// thinking command (`genmove`, GoGui's search views) a `# interrupt` line is added, as GoGui
/// sends it, so that a 2-second view search stops at once; an analysis stream is closed by the
/// next line or at the end of input, as in a real session. Scoring commands are left out while
/// the board may be larger than [`MAX_SCORED_SIZE`] (the size is followed through `boardsize`;
/// after a `loadsgf` it is taken as 19), and past the first [`MAX_SCORINGS`]; so is a
/// `printsgf` that names a file to write.
pub fn gtp_session(data: &[u8]) {
    gtp_session_scoring(data, MAX_SCORINGS);
}

/// [`gtp_session`] with at most `scorings` scoring commands. The AFL++ binary passes 0: even
/// on 4x4 an instrumented scoring takes ~30 ms, and AFL++ spent most of a run on such inputs.
pub fn gtp_session_scoring(data: &[u8], max_scorings: usize) {
    let data = &data[..data.len().min(MAX_INPUT)];
    let mut session = Vec::with_capacity(data.len() + 64);
    let mut size = 19;
    let mut scorings = 0;
    for line in data.split(|&b| b == b'\n').take(MAX_GTP_LINES) {
        let text = String::from_utf8_lossy(line);
        let command = protocol::preprocess(&text).map(|l| protocol::parse(&l));
        let (name, args) = match &command {
            Some(c) => (c.name.as_str(), c.args.as_slice()),
            None => ("", &[][..]),
        };
        match (name, args) {
            ("boardsize", [n]) => {
                if let Ok(n) = n.parse::<usize>()
                    && (MIN_SIZE..=MAX_SIZE).contains(&n)
                {
                    size = n;
                }
            }
            ("loadsgf", _) => size = 19,
            // `printsgf FILE` writes a file: only the answer form is fuzzed.
            ("printsgf", [_, ..]) => continue,
            // `kata-set-param` can give the analyst a billion playouts or a thousand threads,
            // which the session's bounds are there to prevent: only its refusals are fuzzed.
            ("kata-set-param", [name, value, ..])
                if SearchSettings::default().with_param(name, value).is_ok() =>
            {
                continue;
            }
            ("final_score" | "final_status_list", _) => {
                if size > MAX_SCORED_SIZE || scorings >= max_scorings {
                    continue;
                }
                scorings += 1;
            }
            _ => {}
        }
        session.extend_from_slice(line);
        session.push(b'\n');
        if kind_of(name) == Some(Kind::Interruptible) {
            session.extend_from_slice(b"# interrupt\n");
        }
    }
    let config = gtp_config();
    let level = config.level("easy").expect("the easy level");
    let engine = Engine::new(levels::player(config, level, levels::NetSource::Level));
    gtp::serve(engine, Cursor::new(session), std::io::sink()).expect("writing to a sink");
}

/// The most bytes of a model file the model target reads: enough for the corpus's small
/// synthetic nets whole.
pub const MAX_MODEL: usize = 1 << 18;

/// The model target's seeds, made here rather than kept in the repository (no net is): a
/// synthetic convolutional net of the oldest and newest model versions gzipped, one of a
/// middle version not, one in the text format, and the transformer nets of versions 15 and 17
/// (one in the text format).
pub fn model_seeds() -> Vec<(String, Vec<u8>)> {
    let net = |version, binary| synthetic::net(version, binary, synthetic::seed(version));
    let transformer = |version, binary| {
        synthetic::transformer_net(version, binary, synthetic::transformer_seed(version))
    };
    vec![
        (
            "synthetic-transformer-v17.bin.gz".into(),
            synthetic::gzip(&transformer(17, true)),
        ),
        (
            "synthetic-transformer-v15.txt.gz".into(),
            synthetic::gzip(&transformer(15, false)),
        ),
        ("synthetic-v8.bin.gz".into(), synthetic::gzip(&net(8, true))),
        ("synthetic-v11.bin".into(), net(11, true)),
        (
            "synthetic-v15.bin.gz".into(),
            synthetic::gzip(&net(15, true)),
        ),
        (
            "synthetic-v15.txt.gz".into(),
            synthetic::gzip(&net(15, false)),
        ),
    ]
}

/// A model file: the bytes read as a file of each name the loader tells apart (gzipped or
/// not, binary or text, a bare `.gz` tried both ways). A model that loads evaluates a 5x5
/// board (its weights are arbitrary, so the numbers may be too).
pub fn model_file(data: &[u8]) {
    let data = &data[..data.len().min(MAX_MODEL)];
    for name in ["net.bin.gz", "net.txt.gz", "net.gz", "net.bin", "net.txt"] {
        let Ok(model) = Model::from_file_bytes(data, name) else {
            continue;
        };
        let features = Features::from_game(&Game::new(5, Rules::default()));
        let _ = Net::from_model(model).evaluate(&features, 0, DEFAULT_OPTIMISM);
    }
}

/// SGF: the text (invalid UTF-8 replaced, as `loadsgf` reads a file) is loaded as a game, at
/// a move number, as a record, and for its result and comment. A game that loads is written
/// back as a match record, which must load again to the same moves and position.
pub fn sgf_text(data: &[u8]) {
    let data = &data[..data.len().min(MAX_TEXT)];
    let text = String::from_utf8_lossy(data);
    let rules = Rules::default();
    let _ = sgf::result_and_comment(&text);
    let _ = sgf::load_record(&text, rules);
    let Ok(game) = sgf::load_game(&text, None, rules) else {
        return;
    };
    let moves = game.moves().len();
    let _ = sgf::load_game(&text, Some(moves / 2 + 1), rules);
    let info = RecordInfo {
        black: "b]\\",
        white: "w",
        date: "2026-01-01",
        result: "0",
        rules: "chinese",
        comment: "fuzz",
    };
    let written = sgf::write_record(&game, &info);
    let again = sgf::load_game(&written, None, rules)
        .unwrap_or_else(|e| panic!("a written record does not load: {e}\n{written}"));
    assert_eq!(again.moves(), game.moves(), "moves differ:\n{written}");
    assert_eq!(
        again.board().hash(),
        game.board().hash(),
        "positions differ:\n{written}"
    );
    assert_eq!(again.rules().komi, game.rules().komi, "komi differs");
}

/// engines.toml: the text is loaded as a config file; an error is one line, and every level
/// of a config that loads resolves (variables checked, `only_if_present` followed) without
/// starting anything.
pub fn engines_toml(data: &[u8]) {
    let data = &data[..data.len().min(MAX_INPUT)];
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = match Config::from_text(text, Path::new("engines.toml")) {
        Ok(config) => config,
        Err(e) => {
            let message = e.to_string();
            assert!(
                !message.contains('\n'),
                "a config error of several lines: {message}"
            );
            return;
        }
    };
    let _ = config.level(&config.default_level);
    for (name, level) in &config.levels {
        let _ = config.level(name);
        let _ = level.effective(&config);
        let _ = level.with_overrides(SearchOverrides {
            playouts: Some(1),
            threads: Some(1),
            ponder: Some(true),
        });
    }
    for engine in config.engines.values() {
        let _ = config.expand_command(&engine.command);
    }
}

/// The analysis query parser: a JSON line is read as `tengen analysis` reads it (an object
/// with an `id`) into its jobs and unused fields; text that is no JSON is read as KataGo
/// settings, as a config file and as `-override-config`.
pub fn analysis_query(data: &[u8]) {
    let data = &data[..data.len().min(MAX_TEXT)];
    let text = String::from_utf8_lossy(data);
    match serde_json::from_str::<Value>(&text) {
        Ok(value) => {
            let id = match value.get("id") {
                Some(Value::String(id)) => id.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => "fuzz".to_string(),
            };
            let defaults = query::Defaults::default();
            if let Ok(jobs) = query::jobs(&id, &value, &defaults) {
                assert!(jobs.len() <= query::MAX_TURNS, "{} jobs", jobs.len());
            }
            let _ = query::unused_fields(&value);
        }
        Err(_) => {
            let mut options = EngineOptions::default();
            analysis_engine::apply_settings(&mut options, &text, '\n');
            analysis_engine::apply_settings(&mut options, &text, ',');
        }
    }
}
