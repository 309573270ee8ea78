//! `engines.toml`: the levels and the engines behind them, read and checked (players are made
//! from them by [`crate::engine::player::levels`]). A user's file layers over the built-in defaults,
//! so `easy` and `medium` exist unless the file redefines them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::engine::rank::{BUILTIN_RANKS, CALIBRATED_NET, Rank};
use crate::engine::search::SearchSettings;
use crate::ground::locate::{self, KATAGO, is_present};
use crate::knowledge::net::found::{self, FoundNet};
use crate::knowledge::net::known;
use crate::rules::game::clock::DEFAULT_LAG_RESERVE;

/// The file looked for in the working directory when no `--config` is given.
pub const DEFAULT_FILE: &str = "engines.toml";

/// The environment variable naming the config file (after `--config`).
pub const CONFIG_VAR: &str = "TENGEN_CONFIG";

/// The level whose player analyses for levels that cannot.
pub const ANALYST_LEVEL: &str = "mcts";

/// The built-in level of tengen's search with the network found on this machine
/// ([`found::found_net`]), the `mcts` level where none is: `hard` and `expert` play it when
/// KataGo is absent.
pub const NET_LEVEL: &str = "net";

/// The largest `lag_reserve_ms` taken: a minute.
const MAX_LAG_RESERVE_MS: u64 = 60_000;

/// The level played when neither the file nor the command line names one.
const BUILTIN_DEFAULT_LEVEL: &str = "hard";

/// What plays at a level: a `[levels.NAME]` table, whose `player` key names the variant and
/// whose other keys are the variant's (read by [`LevelConfig::from_table`]).
#[derive(Debug, Clone, PartialEq)]
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
    /// tengen's own search: Monte Carlo playouts, or PUCT guided by a network when it has one
    /// (the `mcts` and `net` levels, and `hard` without KataGo).
    Mcts {
        settings: SearchSettings,
        /// The KataGo network file the level loads (`net = "FILE"`), as written: see
        /// [`Config::expand_path`].
        net: Option<String>,
        /// Whether `tengen gtp` follows each searched move with a chat line for observers on
        /// OGS, which gtp2ogs passes on (`ogs_chat = true`; default off).
        ogs_chat: bool,
    },
    /// Another GTP engine run as a child process, with tengen's own levels as fallback.
    External(ExternalLevel),
    /// A player of a rank, from a net's policy and no search (the levels `20k` to `3d`).
    Rank {
        rank: Rank,
        /// The network whose policy it plays from (`net = "FILE"`, as written); without
        /// one, the learned patterns' priors.
        net: Option<String>,
        /// Fixed seed for reproducible games; random when absent.
        seed: Option<u64>,
    },
}

/// The `player` of a level.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum PlayerKind {
    Random,
    Heuristic,
    Mcts,
    External,
    Rank,
}

/// The keys of a `rank` level.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RankKeys {
    rank: String,
    net: Option<String>,
    seed: Option<u64>,
}

/// The keys of a `random` or `heuristic` level.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Seeded {
    seed: Option<u64>,
}

/// A level played by another GTP engine (KataGo, GNU Go, Leela Zero) run as a child process,
/// with tengen's own levels as fallback when it is missing, slow, crashes or answers nonsense.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalLevel {
    /// The `[engines.NAME]` that plays.
    pub engine: String,
    /// Levels that answer instead, in order (the first one that has time for it).
    #[serde(default)]
    pub fallback: Vec<String>,
    /// How long the engine may think about one move (default 10,000 ms; 1 ms to a day).
    pub move_timeout_ms: Option<u64>,
    /// Whether a pass answering a pass is reconsidered while dame or ataris are left
    /// (default on).
    pub avoid_early_pass: Option<bool>,
    /// When the engine is not present at start-up (its program not found, an argument
    /// empty or a path in it missing), the level simply is its first fallback, with no
    /// child and no warnings (default off).
    pub only_if_present: Option<bool>,
    /// A network file: while the engine is not present, the level is tengen's search with
    /// this net (the [`NET_LEVEL`]'s settings), before its fallbacks.
    pub net: Option<String>,
}

/// The most `move_timeout_ms`: a day, the longest think time tengen takes from outside.
const MAX_MOVE_TIMEOUT_MS: u64 = 86_400_000;

/// An external engine: `[engines.NAME]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// The program and its arguments; `${VAR}` and a leading `~` expand, and relative paths
    /// are relative to the config file.
    pub command: Vec<String>,
}

impl LevelConfig {
    /// What plays at this level, in a few words (for `tengen config`).
    pub fn describe(&self, config: &Config) -> String {
        let kind = self.kind(config);
        let effective = self.effective(config);
        if std::ptr::eq(effective, self) {
            return kind;
        }
        let name = config
            .levels
            .iter()
            .find(|(_, level)| std::ptr::eq(*level, effective))
            .map_or("its own net", |(name, _)| name.as_str());
        let plays = effective.kind(config);
        format!("{kind}: not present here, plays as {name} ({plays})")
    }

    /// What this level is, its fallbacks not followed.
    fn kind(&self, config: &Config) -> String {
        match self {
            LevelConfig::Random { .. } => "random moves".to_string(),
            LevelConfig::Heuristic { .. } => "one-ply heuristic".to_string(),
            LevelConfig::Mcts {
                settings,
                net,
                ogs_chat,
            } => {
                let chat = if *ogs_chat { ", OGS chat" } else { "" };
                match net {
                    None => {
                        let playouts = settings
                            .playouts
                            .map_or(String::new(), |n| format!(", {n} playouts"));
                        format!("mcts{playouts}{chat}")
                    }
                    Some(file) => {
                        let visits = settings
                            .playouts
                            .map_or(String::new(), |n| format!(", {n} visits"));
                        let file = config.expand_path(file);
                        let missing = if file.is_file() {
                            ""
                        } else {
                            ": file missing, plays as mcts"
                        };
                        let file = file.display();
                        format!("search with net {file}{visits}{chat}{missing}")
                    }
                }
            }
            LevelConfig::Rank { rank, net, .. } => {
                let policy = match net {
                    Some(file) => {
                        let path = config.expand_path(file);
                        let name = path
                            .file_name()
                            .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
                        if !path.is_file() {
                            format!("net {name}: file missing, plays from the patterns")
                        } else if known::find(CALIBRATED_NET).is_some_and(|k| k.file == name) {
                            format!("net {name}")
                        } else {
                            format!("net {name}, uncalibrated: calibrated with {CALIBRATED_NET}")
                        }
                    }
                    None => format!(
                        "the patterns' policy, uncalibrated: calibrated with {CALIBRATED_NET} \
                         (`tengen net get {CALIBRATED_NET}`)"
                    ),
                };
                let between = if BUILTIN_RANKS.contains(&rank.to_string().as_str()) {
                    ""
                } else {
                    ", between the built-in ranks by the formula"
                };
                format!("rank {rank}, {policy}{between}")
            }
            LevelConfig::External(external) => {
                let fallback = external.fallback.join(", ");
                let net = external
                    .net
                    .as_ref()
                    .map_or(String::new(), |file| format!(", net {file}"));
                format!("engine {} (fallback {fallback}{net})", external.engine)
            }
        }
    }

    /// The level that really plays: an external level whose engine is not present here and
    /// that is marked `only_if_present`, or whose engine's command names an unset variable,
    /// is the search with its own net, else its first fallback (followed as far as it goes);
    /// any other level is itself.
    pub fn effective<'a>(&'a self, config: &'a Config) -> &'a LevelConfig {
        let mut level = self;
        // Config loading rejects cycles; the bound only guards against a config built by hand.
        for _ in 0..config.levels.len() {
            let LevelConfig::External(external) = level else {
                break;
            };
            let engine = &external.engine;
            if external.only_if_present != Some(true) && !config.unset.contains_key(engine) {
                break;
            }
            let present = config
                .engines
                .get(engine)
                .is_some_and(|e| is_present(&config.expand_command(&e.command)));
            let first = config.own_net(external).or_else(|| {
                let first = external.fallback.first()?;
                config.levels.get(first)
            });
            match first {
                Some(first) if !present => level = first,
                _ => break,
            }
        }
        level
    }

    /// The level a `[levels.NAME]` table describes, its values checked; on failure, the key at
    /// fault (a path under the table, empty for the table itself) and what is wrong.
    fn from_table(mut table: toml::Table) -> Result<LevelConfig, (String, String)> {
        fn read<T: serde::de::DeserializeOwned>(table: toml::Table) -> Result<T, (String, String)> {
            serde_path_to_error::deserialize(table).map_err(|e| {
                let key = e.path().to_string();
                let key = if key == "." { String::new() } else { key };
                (key, e.inner().message().trim().replace('\n', " "))
            })
        }
        let kind: PlayerKind = match table.remove("player") {
            Some(player) => player
                .try_into()
                .map_err(|e: toml::de::Error| ("player".to_string(), e.message().to_string()))?,
            None => return Err((String::new(), "missing field `player`".to_string())),
        };
        let bad = |key: &str, why: String| Err((key.to_string(), why));
        match kind {
            PlayerKind::Random => read(table).map(|Seeded { seed }| LevelConfig::Random { seed }),
            PlayerKind::Heuristic => {
                read(table).map(|Seeded { seed }| LevelConfig::Heuristic { seed })
            }
            PlayerKind::Mcts => {
                let net = match table.remove("net") {
                    Some(toml::Value::String(file)) if !file.is_empty() => Some(file),
                    Some(_) => return bad("net", "must be the path of a network file".into()),
                    None => None,
                };
                let ogs_chat = match table.remove("ogs_chat") {
                    Some(toml::Value::Boolean(on)) => on,
                    Some(_) => return bad("ogs_chat", "must be true or false".into()),
                    None => false,
                };
                let settings: SearchSettings = read(table)?;
                match settings.validate() {
                    Ok(()) => Ok(LevelConfig::Mcts {
                        settings,
                        net,
                        ogs_chat,
                    }),
                    Err((key, why)) => bad(key, why),
                }
            }
            PlayerKind::Rank => {
                let RankKeys { rank, net, seed } = read(table)?;
                let rank = rank.parse().map_err(|why| ("rank".to_string(), why))?;
                if net.as_deref() == Some("") {
                    return bad("net", "must be the path of a network file".into());
                }
                Ok(LevelConfig::Rank { rank, net, seed })
            }
            PlayerKind::External => {
                let level: ExternalLevel = read(table)?;
                match level.move_timeout_ms {
                    Some(ms) if !(1..=MAX_MOVE_TIMEOUT_MS).contains(&ms) => bad(
                        "move_timeout_ms",
                        format!("must be from 1 to {MAX_MOVE_TIMEOUT_MS} (a day), not {ms}"),
                    ),
                    _ if level.net.as_deref() == Some("") => {
                        bad("net", "must be the path of a network file".into())
                    }
                    _ => Ok(LevelConfig::External(level)),
                }
            }
        }
    }

    /// This level with the command line's `--playouts`, `--threads` and `--ponder` in force
    /// (they apply to search levels only; other players have none of them).
    pub fn with_overrides(&self, overrides: SearchOverrides) -> LevelConfig {
        let mut level = self.clone();
        if let LevelConfig::Mcts { settings, .. } = &mut level {
            settings.playouts = overrides.playouts.or(settings.playouts);
            settings.threads = overrides.threads.unwrap_or(settings.threads);
            settings.ponder = overrides.ponder.unwrap_or(settings.ponder);
        }
        level
    }

    /// The [`NET_LEVEL`]'s search with the net in `file` (as written; `path` where it is),
    /// at [`found::visits`] a move when no clock or `--playouts` bounds it.
    fn net_level(file: String, path: &Path) -> LevelConfig {
        LevelConfig::Mcts {
            settings: SearchSettings {
                playouts: Some(found::visits(path)),
                ..SearchSettings::default()
            },
            net: Some(file),
            ogs_chat: false,
        }
    }

    /// The built-in MCTS level.
    fn builtin_mcts() -> LevelConfig {
        LevelConfig::Mcts {
            settings: SearchSettings::default(),
            net: None,
            ogs_chat: false,
        }
    }

    /// Whether the level that really plays ([`LevelConfig::effective`]) writes a chat line
    /// for OGS's observers after each searched move (`ogs_chat = true` on a search level).
    pub fn ogs_chat(&self, config: &Config) -> bool {
        matches!(
            self.effective(config),
            LevelConfig::Mcts { ogs_chat: true, .. }
        )
    }
}

/// What the command line sets for every search level, over engines.toml (`None`: the
/// level's own).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SearchOverrides {
    /// `--playouts`.
    pub playouts: Option<u64>,
    /// `--threads`.
    pub threads: Option<usize>,
    /// `--ponder` / `--no-ponder`.
    pub ponder: Option<bool>,
}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    default_level: Option<String>,
    lag_reserve_ms: Option<u64>,
    /// Each level's table, read by [`LevelConfig::from_table`].
    #[serde(default)]
    levels: BTreeMap<String, toml::Table>,
    #[serde(default)]
    engines: BTreeMap<String, EngineConfig>,
}

/// The levels in force: the built-in ones with the user's file over them.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the user's file came from, if one was read.
    pub source: Option<PathBuf>,
    /// The level used when none is named.
    pub default_level: String,
    /// Time held back from every move under a clock for pipe, GUI and network lag.
    pub lag_reserve: Duration,
    /// Every level by name.
    pub levels: BTreeMap<String, LevelConfig>,
    /// External engines by name.
    pub engines: BTreeMap<String, EngineConfig>,
    /// The network found on this machine ([`found::found_net`]), which the built-in
    /// [`NET_LEVEL`] plays with.
    pub found_net: Option<FoundNet>,
    /// The network the rank levels play from: the one they are calibrated with
    /// ([`CALIBRATED_NET`]) where found, else [`Config::found_net`].
    pub rank_net: Option<FoundNet>,
    /// The search level each external level's own `net = "FILE"` makes, by that file as
    /// written.
    own_nets: BTreeMap<String, LevelConfig>,
    /// The engines whose command names an unset `${VAR}` (when the file was read), with the
    /// line that says so.
    unset: BTreeMap<String, ConfigError>,
    /// The levels the file defines (the others are built in).
    from_file: BTreeSet<String>,
}

crate::ground::error::message_error!(
    /// A configuration that cannot be used; `Display` is the one line the user reads.
    ConfigError
);

impl Default for Config {
    /// The built-in levels, with the network found on this machine, if any.
    fn default() -> Config {
        Config::builtin(found::found_net(), found::found_known(CALIBRATED_NET))
    }
}

impl Config {
    /// The built-in levels: `hard` and `expert` play KataGo, else the [`NET_LEVEL`]: tengen's
    /// search with `network`, or without a net (as `mcts`) when there is none; the rank levels
    /// play from `rank_net`'s policy (the net they are calibrated with), else `network`'s,
    /// else the patterns'.
    fn builtin(network: Option<FoundNet>, rank_net: Option<FoundNet>) -> Config {
        let katago = |fallback: &[&str], move_timeout_ms| {
            LevelConfig::External(ExternalLevel {
                engine: KATAGO.to_string(),
                fallback: fallback.iter().map(|f| f.to_string()).collect(),
                move_timeout_ms,
                avoid_early_pass: None,
                only_if_present: Some(true),
                net: None,
            })
        };
        // Expert falls back along hard's chain, then to medium.
        let hard_chain: &[&str] = &[NET_LEVEL, "mcts"];
        let net_level = match &network {
            Some(found) => LevelConfig::net_level(found.path.display().to_string(), &found.path),
            None => LevelConfig::builtin_mcts(),
        };
        let rank_net = rank_net.or_else(|| network.clone());
        let rank_file = rank_net.as_ref().map(|f| f.path.display().to_string());
        let rank_levels = BUILTIN_RANKS.iter().map(|rank| {
            let level = LevelConfig::Rank {
                rank: rank.parse().expect("a built-in rank"),
                net: rank_file.clone(),
                seed: None,
            };
            (rank.to_string(), level)
        });
        let mut levels = BTreeMap::from([
            ("easy".to_string(), LevelConfig::Random { seed: None }),
            ("medium".to_string(), LevelConfig::Heuristic { seed: None }),
            ("mcts".to_string(), LevelConfig::builtin_mcts()),
            ("hard".to_string(), katago(hard_chain, None)),
            (
                "expert".to_string(),
                katago(&[hard_chain, &["medium"]].concat(), Some(10_000)),
            ),
            (NET_LEVEL.to_string(), net_level),
        ]);
        levels.extend(rank_levels);
        let engines = BTreeMap::from([(
            KATAGO.to_string(),
            EngineConfig {
                command: katago_command(),
            },
        )]);
        Config {
            source: None,
            default_level: BUILTIN_DEFAULT_LEVEL.to_string(),
            lag_reserve: DEFAULT_LAG_RESERVE,
            levels,
            engines,
            found_net: network,
            rank_net,
            own_nets: BTreeMap::new(),
            unset: BTreeMap::new(),
            from_file: BTreeSet::new(),
        }
    }

    /// Loads the first of: `explicit` (it must exist), `$TENGEN_CONFIG` (it must exist when
    /// set), `engines.toml` in the working directory, the user's `tengen/engines.toml` in the
    /// platform's config directory (`$XDG_CONFIG_HOME` or `~/.config` on Linux); with none, the
    /// built-in levels.
    pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        match Config::find(explicit) {
            Some(path) => Config::from_file(&path),
            None => Ok(Config::default()),
        }
    }

    /// The file [`Config::load`] reads, if any.
    pub fn find(explicit: Option<&Path>) -> Option<PathBuf> {
        if let Some(path) = explicit {
            return Some(path.to_path_buf());
        }
        if let Some(path) = std::env::var_os(CONFIG_VAR).filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(path));
        }
        [Some(PathBuf::from(DEFAULT_FILE)), user_file()]
            .into_iter()
            .flatten()
            .find(|path| path.is_file())
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
        // One line naming the key and where it is written.
        let error = |key: &str, why: &str| {
            let why = why.trim().replace('\n', " ");
            ConfigError(match line_of(text, key) {
                Some(line) => format!("{name}: {key}: {why} (line {line})"),
                None => format!("{name}: {key}: {why}"),
            })
        };
        let file: ConfigFile = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let key = e.path().to_string();
            ConfigError(format!("{name}: {key}: {}", one_line(e.inner(), text)))
        })?;
        let mut config = Config {
            source: Some(path.to_path_buf()),
            ..Config::default()
        };
        for (level, table) in file.levels {
            let parsed = LevelConfig::from_table(table).map_err(|(key, why)| {
                let key = match key.as_str() {
                    "" => format!("levels.{level}"),
                    key => format!("levels.{level}.{key}"),
                };
                error(&key, &why)
            })?;
            if let LevelConfig::External(ExternalLevel {
                net: Some(file), ..
            }) = &parsed
            {
                let own = LevelConfig::net_level(file.clone(), &config.expand_path(file));
                config.own_nets.insert(file.clone(), own);
            }
            config.from_file.insert(level.clone());
            config.levels.insert(level, parsed);
        }
        config.engines.extend(file.engines);
        config
            .check_external_levels()
            .map_err(|(key, why)| error(&key, &why))?;
        config.unset = config
            .unset_variables()
            .into_iter()
            .map(|(engine, (key, why))| (engine, error(&key, &why)))
            .collect();
        if let Some(level) = file.default_level {
            config.default_level = level;
        }
        if let Some(ms) = file.lag_reserve_ms {
            if ms > MAX_LAG_RESERVE_MS {
                let why = format!("must be from 0 to {MAX_LAG_RESERVE_MS}, not {ms}");
                return Err(error("lag_reserve_ms", &why));
            }
            config.lag_reserve = Duration::from_millis(ms);
        }
        if !config.levels.contains_key(&config.default_level) {
            let why = format!(
                "no level named `{}` (levels: {})",
                config.default_level,
                config.level_names()
            );
            return Err(error("default_level", &why));
        }
        Ok(config)
    }

    /// These levels with `--playouts` and `--threads` applied to every search level, fallbacks
    /// included.
    pub fn with_search_overrides(mut self, overrides: SearchOverrides) -> Config {
        for level in self.levels.values_mut().chain(self.own_nets.values_mut()) {
            *level = level.with_overrides(overrides);
        }
        self
    }

    /// These levels with one for the rank `name` (`7k`, `2d`: [`Rank`]) when no level has
    /// that name, made as the built-in rank levels are, so that `--level 7k` plays any rank.
    pub fn with_rank_level(mut self, name: &str) -> Config {
        if let (false, Ok(rank)) = (self.levels.contains_key(name), name.parse::<Rank>()) {
            let net = self.rank_net.as_ref().map(|f| f.path.display().to_string());
            let level = LevelConfig::Rank {
                rank,
                net,
                seed: None,
            };
            self.levels.insert(name.to_string(), level);
        }
        self
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

    /// Every external level names an engine that exists, fallback levels that exist, and no
    /// chain of fallbacks leads back to a level already in it; every engine has a command. On
    /// failure, the key at fault and what is wrong.
    fn check_external_levels(&self) -> Result<(), (String, String)> {
        for (level, config) in &self.levels {
            let LevelConfig::External(ExternalLevel {
                engine, fallback, ..
            }) = config
            else {
                continue;
            };
            if !self.engines.contains_key(engine) {
                return Err((
                    format!("levels.{level}.engine"),
                    format!("no engine named `{engine}` (add [engines.{engine}] with a command)"),
                ));
            }
            if let Some(missing) = fallback.iter().find(|f| !self.levels.contains_key(*f)) {
                return Err((
                    format!("levels.{level}.fallback"),
                    format!(
                        "no level named `{missing}` (levels: {})",
                        self.level_names()
                    ),
                ));
            }
            self.check_no_cycle(&mut vec![level.as_str()])
                .map_err(|chain| {
                    (
                        format!("levels.{level}.fallback"),
                        format!(
                            "the chain {} leads back to a level already in it",
                            chain.join(" -> ")
                        ),
                    )
                })?;
        }
        for (engine, config) in &self.engines {
            if config
                .command
                .first()
                .is_none_or(|program| program.trim().is_empty())
            {
                return Err((
                    format!("engines.{engine}.command"),
                    "empty (give the program and its arguments)".to_string(),
                ));
            }
        }
        Ok(())
    }

    /// The engines whose command names a `${VAR}` that is not set (or empty) here: the key and
    /// the problem, by engine.
    fn unset_variables(&self) -> BTreeMap<String, (String, String)> {
        let mut unset = BTreeMap::new();
        for (engine, config) in &self.engines {
            let mut missing = Vec::new();
            for arg in &config.command {
                expand_vars(arg, |var| {
                    let value = std::env::var(var).ok().filter(|v| !v.is_empty());
                    if value.is_none() && !missing.contains(&var.to_string()) {
                        missing.push(var.to_string());
                    }
                    value
                });
            }
            if !missing.is_empty() {
                let vars: Vec<String> = missing.iter().map(|v| format!("${{{v}}}")).collect();
                unset.insert(
                    engine.clone(),
                    (
                        format!("engines.{engine}.command"),
                        format!(
                            "{} not set (a level with only_if_present = true takes that as not present)",
                            match vars.as_slice() {
                                [one] => format!("{one} is"),
                                many => format!("{} are", many.join(", ")),
                            }
                        ),
                    ),
                );
            }
        }
        unset
    }

    /// One line for each engine that `level` may play through (itself and its fallbacks)
    /// whose command names an unset variable: such a level plays as its fallback, and the user
    /// should know why. A level marked `only_if_present` is simply not present then, silently.
    pub fn unset_variables_for(&self, level: &str) -> Vec<String> {
        let mut todo = vec![level];
        let mut seen = Vec::new();
        let mut lines = Vec::new();
        while let Some(name) = todo.pop() {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let Some(LevelConfig::External(external)) = self.levels.get(name) else {
                continue;
            };
            if external.only_if_present != Some(true)
                && let Some(e) = self.unset.get(&external.engine)
            {
                lines.push(format!("{e}: level {name} plays as its fallback"));
            }
            todo.extend(external.fallback.iter().map(String::as_str));
        }
        lines
    }

    /// The network tengen's own search plays with in `hard`'s chain, KataGo skipped: `hard`'s
    /// own `net`, else the [`NET_LEVEL`]'s; expanded.
    pub fn search_net(&self) -> Option<PathBuf> {
        let own = match self.levels.get("hard") {
            Some(LevelConfig::External(hard)) => self.own_net(hard),
            _ => None,
        };
        match own.or_else(|| self.levels.get(NET_LEVEL))? {
            LevelConfig::Mcts {
                net: Some(file), ..
            } => Some(self.expand_path(file)),
            _ => None,
        }
    }

    /// The search with an external level's own `net = "FILE"`, if it names one.
    pub fn own_net(&self, external: &ExternalLevel) -> Option<&LevelConfig> {
        self.own_nets.get(external.net.as_ref()?)
    }

    /// The line that says `level` plays tengen's search without a network, and what fixes
    /// that: an external level (as `hard` and `expert` are) while its engine is absent, or the
    /// built-in `net` level where no net was found; `None` for any other level, or when it
    /// plays its engine or a net.
    pub fn missing_net(&self, level: &str) -> Option<String> {
        let config = self.levels.get(level)?;
        let wants_net = matches!(config, LevelConfig::External(_))
            || (level == NET_LEVEL && !self.from_file.contains(level));
        let LevelConfig::Mcts { net: None, .. } = config.effective(self) else {
            return None;
        };
        if !wants_net {
            return None;
        }
        Some(match &self.found_net {
            Some(found) if level != NET_LEVEL => format!(
                "level {level} plays tengen's search without a network: its fallbacks in {} skip \
                 the `{NET_LEVEL}` level, which has {} ({}); add \"{NET_LEVEL}\" first to its fallback",
                self.origin(level),
                found.path.display(),
                found.whence
            ),
            _ => format!(
                "level {level} plays tengen's search without a network (KataGo is not here, and \
                 no net is in {}): `tengen net get` fetches one",
                found::places()
            ),
        })
    }

    /// Where `level` comes from: the file read, or `built-in`.
    pub fn origin(&self, level: &str) -> String {
        match &self.source {
            Some(path) if self.from_file.contains(level) => path.display().to_string(),
            _ => "built-in".to_string(),
        }
    }

    /// Follows every fallback from the last level of `chain`; the looping chain on failure.
    fn check_no_cycle<'a>(&'a self, chain: &mut Vec<&'a str>) -> Result<(), Vec<String>> {
        let Some(LevelConfig::External(ExternalLevel { fallback, .. })) =
            chain.last().and_then(|level| self.levels.get(*level))
        else {
            return Ok(());
        };
        for next in fallback {
            if chain.contains(&next.as_str()) {
                let mut looped: Vec<String> = chain.iter().map(|s| s.to_string()).collect();
                looped.push(next.clone());
                return Err(looped);
            }
            chain.push(next);
            self.check_no_cycle(chain)?;
            chain.pop();
        }
        Ok(())
    }

    /// An engine's command with `${VAR}` and a leading `~` expanded and relative paths (any
    /// argument with a `/` that is not absolute) taken from the config file's directory.
    pub fn expand_command(&self, command: &[String]) -> Vec<String> {
        let base = self.directory();
        command
            .iter()
            .map(|arg| {
                let arg = expand_home(&expand_vars(arg, |var| std::env::var(var).ok()));
                match &base {
                    Some(base)
                        if arg.contains('/')
                            && !arg.starts_with('-')
                            && Path::new(&arg).is_relative() =>
                    {
                        base.join(&arg).display().to_string()
                    }
                    _ => arg,
                }
            })
            .collect()
    }

    /// A file named in the config (a level's `net`) with `${VAR}` and a leading `~` expanded,
    /// a relative path taken from the config file's directory.
    pub fn expand_path(&self, file: &str) -> PathBuf {
        let path = PathBuf::from(expand_home(&expand_vars(file, |var| {
            std::env::var(var).ok()
        })));
        match self.directory() {
            Some(base) if path.is_relative() => base.join(path),
            _ => path,
        }
    }

    /// The directory of the config file read, if one was.
    fn directory(&self) -> Option<PathBuf> {
        self.source
            .as_ref()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
    }

    /// The levels in the order they are listed: by name, the rank levels last, weakest first.
    pub fn listed(&self) -> Vec<(&String, &LevelConfig)> {
        let mut levels: Vec<(&String, &LevelConfig)> = self.levels.iter().collect();
        levels.sort_by_key(|(_, level)| match level {
            LevelConfig::Rank { rank, .. } => Some(*rank),
            _ => None,
        });
        levels
    }

    /// The levels' names as [`Config::listed`] orders them, for a message.
    fn level_names(&self) -> String {
        let names: Vec<&str> = self
            .listed()
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        names.join(", ")
    }
}

/// The user's config file: `engines.toml` in tengen's directory of the platform's config
/// directory.
pub fn user_file() -> Option<PathBuf> {
    locate::config_dir().map(|dir| dir.join(DEFAULT_FILE))
}

/// The built-in `katago` engine's command: `katago gtp -model M -config C`, with the files
/// [`locate::katago_files`] finds; what is not found stays a `${VAR}`, so the levels that use
/// it know KataGo is not present.
fn katago_command() -> Vec<String> {
    let files = locate::katago_files();
    let model = files.model.unwrap_or_else(|| "${KATAGO_MODEL}".to_string());
    let config = files
        .config
        .unwrap_or_else(|| "${KATAGO_CONFIG}".to_string());
    [KATAGO, "gtp", "-model", &model, "-config", &config]
        .map(String::from)
        .to_vec()
}

/// `text` with a leading `~/` replaced by the home directory.
fn expand_home(text: &str) -> String {
    match (text.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest).display().to_string(),
        _ => text.to_string(),
    }
}

/// `text` with every `${VAR}` replaced by `lookup(VAR)` (empty when `None`).
fn expand_vars(text: &str, mut lookup: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let var = &rest[start + 2..start + len];
        match lookup(var) {
            Some(value) => out.push_str(&value),
            None => log::debug!("${{{var}}} is not set: it expands to nothing"),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The line where the dotted `key` (`levels.fast.playouts`) is written in `text`: that of its
/// deepest part present (a table's header for a key missing from it).
fn line_of(text: &str, key: &str) -> Option<usize> {
    let document = toml::de::DeTable::parse(text).ok()?;
    let mut table = document.get_ref();
    let mut start = None;
    for part in key.split('.') {
        // A path to an array element (`command[1]`) stops at the array.
        let part = part.split('[').next().unwrap_or(part);
        let Some((k, value)) = table.get_key_value(part) else {
            break;
        };
        start = Some(k.span().start);
        match value.get_ref() {
            toml::de::DeValue::Table(inner) => table = inner,
            _ => break,
        }
    }
    start.map(|at| text[..at.min(text.len())].matches('\n').count() + 1)
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
        assert_eq!(c.default_level, "hard");
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
    fn the_lag_reserve_is_a_top_level_key_in_range() {
        assert_eq!(Config::default().lag_reserve, DEFAULT_LAG_RESERVE);
        let c = parse("lag_reserve_ms = 1500\n").unwrap();
        assert_eq!(c.lag_reserve, Duration::from_millis(1500));
        let e = parse("# lag\nlag_reserve_ms = 60001\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lag_reserve_ms: must be from 0 to 60000") && e.contains("(line 2)"),
            "{e}"
        );
        assert!(parse("lag_reserve_ms = -1\n").is_err());
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
        let e = Config::builtin(None, None)
            .level("grandmaster")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("grandmaster") && e.contains("easy, expert, hard, mcts, medium"),
            "{e}"
        );
        errors.push(e);
        for e in errors {
            assert!(!e.contains('\n'), "not one line: {e}");
        }
    }

    #[test]
    fn values_are_checked_and_reported_at_their_line() {
        for (text, key, line) in [
            (
                "# levels\n[levels.x]\nplayer = \"mcts\"\n\nplayouts = -5\n",
                "levels.x.playouts:",
                5,
            ),
            (
                "[levels]\nx = { player = \"mcts\", threads = 5000 }\n",
                "levels.x.threads: must be from 0 to 1024",
                2,
            ),
            (
                "[levels.x]\nplayer = \"mcts\"\nexploration = nan\n",
                "levels.x.exploration",
                3,
            ),
            (
                "[levels.x]\nseed = 1\n",
                "levels.x: missing field `player`",
                1,
            ),
            (
                "[levels.x]\nplayer = \"rank\"\nrank = \"25d\"\n",
                "levels.x.rank: must be a rank from 30k to 5d",
                3,
            ),
            (
                "[levels.x]\nplayer = \"rank\"\nrank = \"0k\"\n",
                "levels.x.rank: must be a rank from 30k to 5d",
                3,
            ),
            (
                "[levels.x]\nplayer = \"rank\"\nrank = 7\n",
                "levels.x.rank",
                3,
            ),
            (
                "[levels.x]\nplayer = \"rank\"\nrank = \"7k\"\nplayouts = 5\n",
                "levels.x.playouts: unknown field `playouts`",
                4,
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(
                e.contains(key) && e.ends_with(&format!("(line {line})")),
                "{e}"
            );
        }
        let ok = parse(
            "[levels.x]\nplayer = \"mcts\"\nplayouts = 1000000000\nthreads = 1024\nresign_threshold = 0.5\n",
        );
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn rank_levels_are_built_in_read_from_the_file_and_made_for_any_rank() {
        let builtin = Config::builtin(None, None);
        // Listed after the other levels, weakest first.
        let unknown = builtin.level("grandmaster").unwrap_err().to_string();
        assert!(
            unknown.contains("mcts, medium, net, 20k, 15k, 12k,"),
            "{unknown}"
        );
        assert!(unknown.ends_with("1d, 3d)"), "{unknown}");
        for rank in BUILTIN_RANKS {
            let level = builtin.level(rank).expect(rank);
            let described = level.describe(&builtin);
            assert!(
                described.starts_with(&format!("rank {rank}, the patterns' policy, uncalibrated")),
                "{described}"
            );
        }
        let config =
            parse("[levels.club]\nplayer = \"rank\"\nrank = \"7kyu\"\nseed = 3\n").unwrap();
        assert_eq!(
            config.level("club").unwrap(),
            &LevelConfig::Rank {
                rank: "7k".parse().unwrap(),
                net: None,
                seed: Some(3),
            }
        );
        assert!(
            config
                .level("club")
                .unwrap()
                .describe(&config)
                .ends_with("between the built-in ranks by the formula")
        );
        // `--level 4d`: any rank is a level; a name that is no rank is still refused.
        let config = config.with_rank_level("4d").with_rank_level("25d");
        assert!(matches!(config.level("4d"), Ok(LevelConfig::Rank { .. })));
        assert!(config.level("25d").is_err());
        // A level of the file keeps its own meaning even when named like a rank.
        let own = parse("[levels.5k]\nplayer = \"random\"\n")
            .unwrap()
            .with_rank_level("5k");
        assert!(matches!(own.level("5k"), Ok(LevelConfig::Random { .. })));
    }

    #[test]
    fn unset_variables_make_a_level_its_fallback_with_a_line_that_says_so() {
        let text = "[engines.k]\ncommand = [\"sh\", \"${TENGEN_TEST_SURELY_UNSET}\"]\n\
                    [levels.x]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"easy\"]\n\
                    [levels.y]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"easy\"]\n\
                    only_if_present = true\n\
                    [levels.z]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"x\"]\n\
                    only_if_present = true\n";
        let config = parse(text).unwrap();
        let lines = config.unset_variables_for("x");
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains("engines.k.command: ${TENGEN_TEST_SURELY_UNSET} is not set")
                && lines[0].contains("(line 2)")
                && lines[0].contains("level x plays as its fallback"),
            "{lines:?}"
        );
        let easy = config.level("easy").unwrap();
        assert_eq!(config.level("x").unwrap().effective(&config), easy);
        // Under only_if_present the engine is just not present: no line.
        assert!(config.unset_variables_for("y").is_empty());
        assert_eq!(config.level("y").unwrap().effective(&config), easy);
        assert_eq!(
            config.unset_variables_for("z").len(),
            1,
            "z falls back to x"
        );
    }

    #[test]
    fn built_in_hard_and_expert_play_katago_when_present_else_the_net_level() {
        let found = FoundNet {
            path: PathBuf::from("/nets/b6.bin.gz"),
            whence: found::Whence::NetsDir,
        };
        for network in [None, Some(found)] {
            let config = Config::builtin(network.clone(), None);
            assert_eq!(config.default_level, "hard");
            for (level, last) in [("hard", "mcts"), ("expert", "medium")] {
                let LevelConfig::External(external) = config.level(level).unwrap() else {
                    panic!("{level} is not external");
                };
                assert_eq!(external.engine, KATAGO);
                assert_eq!(external.fallback.first().unwrap(), NET_LEVEL, "{level}");
                assert_eq!(external.fallback.last().unwrap(), last, "{level}");
            }
            let net = config.level(NET_LEVEL).unwrap();
            match &network {
                Some(found) => assert_eq!(
                    net,
                    &LevelConfig::Mcts {
                        settings: SearchSettings {
                            playouts: Some(found::visits(&found.path)),
                            ..SearchSettings::default()
                        },
                        net: Some(found.path.display().to_string()),
                        ogs_chat: false,
                    }
                ),
                None => assert_eq!(net, config.level("mcts").unwrap()),
            }
            let katago = &config.engines[KATAGO].command;
            if !is_present(&config.expand_command(katago)) {
                assert_eq!(config.level("hard").unwrap().effective(&config), net);
                assert_eq!(config.level("expert").unwrap().effective(&config), net);
                let missing = config.missing_net("hard");
                match &network {
                    Some(_) => assert_eq!(missing, None),
                    None => {
                        let line = missing.expect("a line saying hard has no net");
                        assert!(line.contains("`tengen net get` fetches one"), "{line}");
                    }
                }
            }
            assert_eq!(config.missing_net("mcts"), None);
            // The net level itself says so too, where it has no net.
            assert_eq!(config.missing_net("net").is_some(), network.is_none());
        }
        // A user's file that only defines [engines.katago] is what hard and expert play.
        let file = parse("[engines.katago]\ncommand = [\"sh\"]\n").unwrap();
        let hard = file.level("hard").unwrap();
        assert!(std::ptr::eq(hard.effective(&file), hard));
        assert_eq!(file.origin("hard"), "built-in");
    }

    #[test]
    fn external_levels_are_checked_when_the_file_is_read() {
        let engine = "[engines.k]\ncommand = [\"katago\", \"gtp\"]\n";
        let ok = parse(&format!(
            "{engine}[levels.expert]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"mcts\", \"medium\"]\n"
        ))
        .unwrap();
        assert!(matches!(
            ok.level("expert").unwrap(),
            LevelConfig::External(ExternalLevel {
                avoid_early_pass: None,
                only_if_present: None,
                ..
            })
        ));
        let off = parse(&format!(
            "{engine}[levels.x]\nplayer = \"external\"\nengine = \"k\"\navoid_early_pass = false\n"
        ))
        .unwrap();
        assert!(matches!(
            off.level("x").unwrap(),
            LevelConfig::External(ExternalLevel {
                avoid_early_pass: Some(false),
                only_if_present: None,
                ..
            })
        ));
        let error = |text: &str| parse(text).unwrap_err().to_string();
        let e = error("[levels.x]\nplayer = \"external\"\nengine = \"nope\"\n");
        assert!(e.contains("levels.x.engine") && e.contains("nope"), "{e}");
        let e = error(&format!(
            "{engine}[levels.x]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"ghost\"]\n"
        ));
        assert!(
            e.contains("levels.x.fallback") && e.contains("ghost"),
            "{e}"
        );
        let e = error(&format!(
            "{engine}[levels.a]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"b\"]\n\
             [levels.b]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"a\"]\n"
        ));
        assert!(
            e.contains("a -> b -> a") || e.contains("b -> a -> b"),
            "{e}"
        );
        let e = error("[engines.k]\ncommand = []\n");
        assert!(e.contains("engines.k.command"), "{e}");
    }

    #[test]
    fn commands_expand_variables_home_and_relative_paths() {
        let config = Config::from_text("", Path::new("/etc/tengen/engines.toml")).unwrap();
        let home = std::env::var("HOME").unwrap_or_default();
        let command: Vec<String> = [
            "katago",
            "-model",
            "${TENGEN_TEST_SURELY_UNSET}net.bin.gz",
            "-config",
            "cfg/gtp.cfg",
            "~/x",
            "/abs/path",
        ]
        .map(String::from)
        .to_vec();
        let expanded = config.expand_command(&command);
        assert_eq!(expanded[0], "katago");
        assert_eq!(expanded[2], "net.bin.gz");
        assert_eq!(expanded[4], "/etc/tengen/cfg/gtp.cfg");
        if !home.is_empty() {
            assert_eq!(expanded[5], format!("{home}/x"));
        }
        assert_eq!(expanded[6], "/abs/path");
        assert_eq!(expand_vars("a${B", |_| None), "a${B");
    }

    #[test]
    fn a_search_levels_net_is_read_and_expanded() {
        let text = "[levels.strong]\nplayer = \"mcts\"\nnet = \"nets/b6.bin.gz\"\n\
                    [levels.home]\nplayer = \"mcts\"\nnet = \"~/b6.bin.gz\"\n\
                    [levels.var]\nplayer = \"mcts\"\nnet = \"${HOME}/b6.bin.gz\"\n";
        let config = Config::from_text(text, Path::new("/etc/tengen/engines.toml")).unwrap();
        let net = |name: &str| match config.level(name).unwrap() {
            LevelConfig::Mcts { net: Some(net), .. } => config.expand_path(net),
            other => panic!("{other:?}"),
        };
        assert_eq!(net("strong"), Path::new("/etc/tengen/nets/b6.bin.gz"));
        if let Ok(home) = std::env::var("HOME") {
            assert_eq!(net("home"), Path::new(&home).join("b6.bin.gz"));
            assert_eq!(net("var"), Path::new(&home).join("b6.bin.gz"));
        }
        assert!(
            config.level("strong").unwrap().describe(&config).contains(
                "search with net /etc/tengen/nets/b6.bin.gz: file missing, plays as mcts"
            )
        );
        for bad in ["net = 3", "net = \"\""] {
            let text = format!("[levels.x]\nplayer = \"mcts\"\n{bad}\n");
            let err = parse(&text).unwrap_err().to_string();
            assert!(err.contains("levels.x.net"), "{bad}: {err}");
        }
    }

    #[test]
    fn ogs_chat_is_read_per_search_level_and_off_by_default() {
        let text = "[engines.k]\ncommand = [\"/no/such/katago\", \"gtp\"]\n\
                    [levels.chatty]\nplayer = \"mcts\"\nogs_chat = true\n\
                    [levels.quiet]\nplayer = \"mcts\"\n\
                    [levels.hard]\nplayer = \"external\"\nengine = \"k\"\n\
                    fallback = [\"chatty\"]\nonly_if_present = true\n";
        let config = parse(text).unwrap();
        let chat = |name: &str| config.level(name).unwrap().ogs_chat(&config);
        assert!(chat("chatty"));
        assert!(!chat("quiet"));
        assert!(!chat("mcts"));
        // A level that plays as its fallback chats as the fallback does.
        assert!(chat("hard"));
        let err = parse("[levels.x]\nplayer = \"mcts\"\nogs_chat = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("levels.x.ogs_chat"), "{err}");
        // Only search levels have the key.
        assert!(parse("[levels.x]\nplayer = \"random\"\nogs_chat = true\n").is_err());
    }

    #[test]
    fn a_level_only_if_present_is_its_fallback_without_the_engine() {
        let text = "[engines.k]\ncommand = [\"/no/such/katago\", \"gtp\"]\n\
                    [levels.hard]\nplayer = \"external\"\nengine = \"k\"\n\
                    fallback = [\"mcts\"]\nonly_if_present = true\n";
        let config = parse(text).unwrap().with_search_overrides(SearchOverrides {
            playouts: Some(77),
            threads: Some(1),
            ponder: None,
        });
        let hard = config.level("hard").unwrap();
        assert!(std::ptr::eq(
            hard.effective(&config),
            config.level("mcts").unwrap()
        ));
        let present = text.replace("/no/such/katago", "sh");
        let config_present = parse(&present).unwrap();
        let hard_present = config_present.level("hard").unwrap();
        assert!(std::ptr::eq(
            hard_present.effective(&config_present),
            hard_present
        ));
        assert_eq!(
            hard.effective(&config),
            &LevelConfig::Mcts {
                settings: SearchSettings {
                    playouts: Some(77),
                    threads: 1,
                    ..SearchSettings::default()
                },
                net: None,
                ogs_chat: false,
            }
        );
    }

    #[test]
    fn an_external_levels_own_net_plays_before_its_fallbacks_while_the_engine_is_absent() {
        let text = "[engines.k]\ncommand = [\"/no/such/katago\", \"gtp\"]\n\
                    [levels.hard]\nplayer = \"external\"\nengine = \"k\"\n\
                    fallback = [\"mcts\"]\nonly_if_present = true\nnet = \"nets/mine.bin.gz\"\n";
        let config = parse(text).unwrap().with_search_overrides(SearchOverrides {
            playouts: Some(50),
            ..SearchOverrides::default()
        });
        let hard = config.level("hard").unwrap();
        let LevelConfig::Mcts { settings, net, .. } = hard.effective(&config) else {
            panic!("hard plays {:?}", hard.effective(&config));
        };
        assert_eq!(net.as_deref(), Some("nets/mine.bin.gz"));
        assert_eq!(
            settings.playouts,
            Some(50),
            "the command line's --playouts holds"
        );
        assert_eq!(config.missing_net("hard"), None);
        assert!(
            hard.describe(&config).ends_with("plays as its own net (search with net nets/mine.bin.gz, 50 visits: file missing, plays as mcts)"),
            "{}",
            hard.describe(&config)
        );
        // Without it, a file whose hard falls back to mcts alone plays without a net, and
        // says what fixes that.
        let cut = parse(&text.replace("net = \"nets/mine.bin.gz\"\n", "")).unwrap();
        let line = cut.missing_net("hard").expect("a line");
        assert!(
            line.starts_with("level hard plays tengen's search without a network"),
            "{line}"
        );
        let bad = parse(&text.replace("\"nets/mine.bin.gz\"", "3"))
            .unwrap_err()
            .to_string();
        assert!(bad.contains("levels.hard.net"), "{bad}");
        let empty = parse(&text.replace("nets/mine.bin.gz", ""))
            .unwrap_err()
            .to_string();
        assert!(
            empty.contains("levels.hard.net: must be the path"),
            "{empty}"
        );
    }
}
