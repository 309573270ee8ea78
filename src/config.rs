//! `engines.toml`: the levels and the players behind them. A user's file layers over the
//! built-in defaults, so `easy` and `medium` exist unless the file redefines them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::player::Player;
use crate::player::heuristic::HeuristicPlayer;
use crate::player::mcts::{MctsPlayer, MctsSettings};
use crate::player::random::RandomPlayer;

/// The file looked for in the working directory when no `--config` is given.
pub const DEFAULT_FILE: &str = "engines.toml";

/// The level played when neither the file nor the command line names one.
const BUILTIN_DEFAULT_LEVEL: &str = "medium";

/// What plays at a level.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "player", rename_all = "lowercase", deny_unknown_fields)]
pub enum LevelConfig {
    /// Uniformly random legal moves that don't fill own eyes (the easy level).
    Random {
        /// Fixed seed for reproducible games; random when absent.
        seed: Option<u64>,
    },
    /// The one-ply heuristic evaluator (the medium level).
    Heuristic {
        /// Fixed seed for reproducible games; random when absent.
        seed: Option<u64>,
    },
    /// tengen's own Monte Carlo tree search (the `mcts` level, and `hard` without KataGo).
    Mcts {
        /// Playouts per move; absent: the clock decides, or 10,000 without a clock.
        playouts: Option<u64>,
        /// Search threads; 0 or absent: every core.
        threads: Option<usize>,
        /// Tree capacity in nodes (about 40 bytes each); when full, the search goes on in the
        /// tree it has without expanding it.
        max_nodes: Option<usize>,
        /// Resign when the best move's win rate is below this (0: never).
        resign_threshold: Option<f32>,
        /// Fixed seed (reproducible with one thread); random when absent.
        seed: Option<u64>,
        /// UCB exploration constant (default 0.1).
        exploration: Option<f32>,
        /// Playouts at which a move's own and its RAVE statistics weigh the same (1000).
        rave_equivalence: Option<f32>,
        /// Visits before a tree node is expanded (8).
        expand_after: Option<u32>,
    },
}

impl LevelConfig {
    /// A fresh player for this level.
    pub fn build(&self) -> Box<dyn Player> {
        match *self {
            LevelConfig::Random { seed } => Box::new(RandomPlayer::new(seed)),
            LevelConfig::Heuristic { seed } => Box::new(HeuristicPlayer::new(seed)),
            LevelConfig::Mcts {
                playouts,
                threads,
                max_nodes,
                resign_threshold,
                seed,
                exploration,
                rave_equivalence,
                expand_after,
            } => {
                let defaults = MctsSettings::default();
                Box::new(MctsPlayer::new(MctsSettings {
                    playouts,
                    threads: threads.unwrap_or(defaults.threads),
                    max_nodes: max_nodes.unwrap_or(defaults.max_nodes),
                    resign_threshold: resign_threshold
                        .unwrap_or(defaults.resign_threshold)
                        .clamp(0.0, 1.0),
                    seed,
                    exploration: exploration.unwrap_or(defaults.exploration),
                    rave_equivalence: rave_equivalence.unwrap_or(defaults.rave_equivalence),
                    expand_after: expand_after.unwrap_or(defaults.expand_after),
                }))
            }
        }
    }

    /// This level with the command line's `--playouts` and `--threads` in force (they apply to
    /// search levels only; other players have neither).
    pub fn with_overrides(&self, playouts: Option<u64>, threads: Option<usize>) -> LevelConfig {
        let mut level = self.clone();
        if let LevelConfig::Mcts {
            playouts: p,
            threads: t,
            ..
        } = &mut level
        {
            *p = playouts.or(*p);
            *t = threads.or(*t);
        }
        level
    }

    /// The built-in MCTS level.
    fn builtin_mcts() -> LevelConfig {
        LevelConfig::Mcts {
            playouts: None,
            threads: None,
            max_nodes: None,
            resign_threshold: None,
            seed: None,
            exploration: None,
            rave_equivalence: None,
            expand_after: None,
        }
    }
}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    default_level: Option<String>,
    #[serde(default)]
    levels: BTreeMap<String, LevelConfig>,
}

/// The levels in force: the built-in ones with the user's file over them.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the user's file came from, if one was read.
    pub source: Option<PathBuf>,
    /// The level used when none is named.
    pub default_level: String,
    /// Every level by name.
    pub levels: BTreeMap<String, LevelConfig>,
}

/// A configuration that cannot be used; `Display` is the one line the user reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Default for Config {
    fn default() -> Config {
        let levels = BTreeMap::from([
            ("easy".to_string(), LevelConfig::Random { seed: None }),
            ("medium".to_string(), LevelConfig::Heuristic { seed: None }),
            ("mcts".to_string(), LevelConfig::builtin_mcts()),
            ("hard".to_string(), LevelConfig::builtin_mcts()),
        ]);
        Config {
            source: None,
            default_level: BUILTIN_DEFAULT_LEVEL.to_string(),
            levels,
        }
    }
}

impl Config {
    /// Loads `explicit` if given (it must exist), else `engines.toml` in the working
    /// directory if present, else the built-in defaults.
    pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        match explicit {
            Some(path) => Config::from_file(path),
            None if Path::new(DEFAULT_FILE).is_file() => Config::from_file(Path::new(DEFAULT_FILE)),
            None => Ok(Config::default()),
        }
    }

    /// Reads and layers one file over the defaults.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("{}: cannot read: {e}", path.display())))?;
        Config::from_text(&text, path)
    }

    /// Parses `text` (named `path` in messages) and layers it over the defaults.
    pub fn from_text(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let name = path.display();
        let deserializer = toml::de::Deserializer::parse(text)
            .map_err(|e| ConfigError(format!("{name}: {}", one_line(&e, text))))?;
        let file: ConfigFile = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let key = e.path().to_string();
            ConfigError(format!("{name}: {key}: {}", one_line(e.inner(), text)))
        })?;
        let mut config = Config {
            source: Some(path.to_path_buf()),
            ..Config::default()
        };
        config.levels.extend(file.levels);
        if let Some(level) = file.default_level {
            config.default_level = level;
        }
        if !config.levels.contains_key(&config.default_level) {
            return Err(ConfigError(format!(
                "{name}: default_level: no level named `{}` (levels: {})",
                config.default_level,
                config.level_names()
            )));
        }
        Ok(config)
    }

    /// The level called `name`.
    pub fn level(&self, name: &str) -> Result<&LevelConfig, ConfigError> {
        self.levels.get(name).ok_or_else(|| {
            let from = self
                .source
                .as_ref()
                .map_or("built-in levels".to_string(), |p| p.display().to_string());
            ConfigError(format!(
                "{from}: levels: no level named `{name}` (levels: {})",
                self.level_names()
            ))
        })
    }

    fn level_names(&self) -> String {
        self.levels.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

/// A toml error as one line: its message and, where known, the line it points at.
fn one_line(e: &toml::de::Error, text: &str) -> String {
    let message = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("{message} (line {line})")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_text(text, Path::new("engines.toml"))
    }

    #[test]
    fn defaults_need_no_file() {
        let c = Config::default();
        assert_eq!(c.default_level, "medium");
        assert!(c.level("easy").is_ok() && c.level("medium").is_ok());
    }

    #[test]
    fn a_file_layers_over_the_defaults() {
        let c = parse("default_level = \"fast\"\n[levels.fast]\nplayer = \"random\"\nseed = 3\n")
            .unwrap();
        assert_eq!(c.default_level, "fast");
        assert_eq!(
            c.level("fast").unwrap(),
            &LevelConfig::Random { seed: Some(3) }
        );
        assert!(c.level("medium").is_ok());
    }

    #[test]
    fn errors_name_the_file_the_key_and_the_problem() {
        let mut errors = Vec::new();
        let mut check = |text: &str, wanted: &[&str]| {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with("engines.toml: "), "{e}");
            for w in wanted {
                assert!(e.contains(w), "`{w}` missing from: {e}");
            }
            errors.push(e);
        };
        check(
            "[levels.x]\nplayer = \"telepathy\"\n",
            &["levels.x", "telepathy"],
        );
        check(
            "[levels.x]\nplayer = \"random\"\nsede = 1\n",
            &["levels.x", "sede"],
        );
        check("default_level = \"nope\"\n", &["default_level", "nope"]);
        check("[levels\n", &["line 1"]);
        let e = Config::default()
            .level("grandmaster")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("grandmaster") && e.contains("easy, hard, mcts, medium"),
            "{e}"
        );
        errors.push(e);
        for e in errors {
            assert!(!e.contains('\n'), "not one line: {e}");
        }
    }
}
