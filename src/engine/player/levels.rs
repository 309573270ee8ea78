//! The players of engines.toml's levels: a checked [`LevelConfig`] made into a player, an
//! external level into its chain of fallbacks, and a level that cannot analyse given the
//! [`ANALYST_LEVEL`]'s player to analyse for it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::external::ExternalEngine;
use super::fallback::FallbackPlayer;
use super::heuristic::HeuristicPlayer;
use super::random::RandomPlayer;
use super::ranked::RankPlayer;
use super::search::SearchPlayer;
use super::{Player, WithAnalyst};
use crate::engine::config::{ANALYST_LEVEL, Config, ExternalLevel, LevelConfig};
use crate::engine::search::SearchSettings;
use crate::knowledge::net::Net;

/// How long an external engine may think about one move when its level does not say.
const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_millis(10_000);

/// Where a search level's network comes from.
#[derive(Clone)]
pub enum NetSource {
    /// The caller loaded it once to share it (`None`: none was asked for, or it failed to
    /// load): the level plays with this and loads nothing.
    Loaded(Option<Arc<Net>>),
    /// The level's own `net = "FILE"`, loaded when its player is made.
    Level,
}

/// The player of `level`, analysing with the `mcts` level's player (the built-in one unless
/// the file redefines it) where it cannot itself; a search or rank level (and the analyst)
/// takes its net from `net`.
pub fn player(config: &Config, level: &LevelConfig, net: NetSource) -> Box<dyn Player> {
    let analyst_config = config.clone();
    let analyst_net = net.clone();
    Box::new(WithAnalyst::new(
        build_with_net(config, level, net),
        Box::new(move || match analyst_config.levels.get(ANALYST_LEVEL) {
            Some(analyst) => build_with_net(&analyst_config, analyst, analyst_net.clone()),
            None => Box::new(SearchPlayer::playouts(SearchSettings::default())),
        }),
    ))
}

/// A fresh player for `level` alone (a search level with the net its `net = "FILE"` names);
/// `config` resolves external engines and fallback levels.
pub fn build(config: &Config, level: &LevelConfig) -> Box<dyn Player> {
    build_with_net(config, level, NetSource::Level)
}

/// A fresh player for `level`, a search level searching with the net `net` gives, if any.
fn build_with_net(config: &Config, level: &LevelConfig, net: NetSource) -> Box<dyn Player> {
    match level {
        &LevelConfig::Random { seed } => Box::new(RandomPlayer::new(seed)),
        &LevelConfig::Heuristic { seed } => Box::new(HeuristicPlayer::new(seed)),
        LevelConfig::Rank {
            rank,
            net: file,
            seed,
        } => {
            let net = match net {
                NetSource::Loaded(net) => net,
                NetSource::Level => file.as_ref().and_then(|f| load_net(&config.expand_path(f))),
            };
            Box::new(RankPlayer::new(*rank, net, *seed))
        }
        LevelConfig::Mcts {
            settings,
            net: file,
            ..
        } => {
            let net = match net {
                NetSource::Loaded(net) => net,
                NetSource::Level => file.as_ref().and_then(|f| load_net(&config.expand_path(f))),
            };
            match net {
                Some(net) => Box::new(SearchPlayer::with_net(net, settings.clone())),
                None => Box::new(SearchPlayer::playouts(settings.clone())),
            }
        }
        LevelConfig::External(external) => {
            let effective = level.effective(config);
            if !std::ptr::eq(effective, level) {
                log::info!(
                    "engine {} is not present: its level plays as its fallback",
                    external.engine
                );
                return without_engine(config, external, effective, net);
            }
            Box::new(chain(config, external))
        }
    }
}

/// The network file `level` names (`net = "FILE"` on the search or rank level that really
/// plays), expanded.
pub fn net_file(config: &Config, level: &LevelConfig) -> Option<PathBuf> {
    match level.effective(config) {
        LevelConfig::Mcts {
            net: Some(file), ..
        }
        | LevelConfig::Rank {
            net: Some(file), ..
        } => Some(config.expand_path(file)),
        _ => None,
    }
}

/// The networks this process holds, by file: every player that names a file while another
/// holds its net shares those weights (the workers of `tengen serve` and `tengen analysis`).
static LOADED: Mutex<Vec<(PathBuf, Weak<Net>)>> = Mutex::new(Vec::new());

/// The network in `file`, shared with every player that holds it already, else loaded; a
/// file that cannot be read is one error line naming it and the problem, and the level plays
/// without a net.
pub fn load_net(file: &Path) -> Option<Arc<Net>> {
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    loaded.retain(|(_, net)| net.strong_count() > 0);
    if let Some(net) = loaded
        .iter()
        .find(|(held, _)| held == file)
        .and_then(|(_, net)| net.upgrade())
    {
        return Some(net);
    }
    match Net::load(file) {
        Ok(net) => {
            log::info!("loaded network {}", file.display());
            let net = Arc::new(net);
            loaded.push((file.to_path_buf(), Arc::downgrade(&net)));
            Some(net)
        }
        Err(e) => {
            log::error!("{e}: playing without a network");
            None
        }
    }
}

/// An external level whose engine is not present: `effective`, the level it plays as (its
/// own net's search or its first fallback, made with `net`), then the fallbacks after it, so
/// that a move the first cannot make in the time left (a big net's evaluation on a short
/// clock) is still made.
fn without_engine(
    config: &Config,
    external: &ExternalLevel,
    effective: &LevelConfig,
    net: NetSource,
) -> Box<dyn Player> {
    let first = build_with_net(config, effective, net);
    let levels: Vec<&LevelConfig> = config
        .own_net(external)
        .into_iter()
        .chain(
            external
                .fallback
                .iter()
                .filter_map(|name| config.levels.get(name)),
        )
        .collect();
    let after = match levels.iter().position(|l| std::ptr::eq(*l, effective)) {
        Some(at) => &levels[at + 1..],
        None => &[][..],
    };
    if after.is_empty() {
        return first;
    }
    // No other program is in the chain: only the clock bounds a move, as it bounds the
    // level played alone (a search of fixed visits runs them all).
    let mut players = vec![first];
    players.extend(after.iter().map(|level| build(config, level)));
    Box::new(FallbackPlayer::new(players, None))
}

/// An external level's engine, then its own net's search and its fallback levels (the medium
/// level's player when it names none), within one move timeout.
fn chain(config: &Config, external: &ExternalLevel) -> FallbackPlayer {
    let ExternalLevel {
        engine,
        fallback,
        move_timeout_ms,
        avoid_early_pass,
        only_if_present: _,
        net: _,
    } = external;
    let command = config
        .engines
        .get(engine)
        .map(|e| config.expand_command(&e.command));
    let timeout = move_timeout_ms.map_or(DEFAULT_MOVE_TIMEOUT, Duration::from_millis);
    let engine = ExternalEngine::new(engine, command, timeout)
        .with_avoid_early_pass(avoid_early_pass.unwrap_or(true));
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(engine)];
    players.extend(
        config
            .own_net(external)
            .into_iter()
            .chain(fallback.iter().filter_map(|name| config.levels.get(name)))
            .map(|level| build(config, level)),
    );
    if players.len() == 1 {
        players.push(Box::new(HeuristicPlayer::new(None)));
    }
    FallbackPlayer::new(players, Some(timeout))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::engine::player::{AnalysisRequest, Budget, PlayerError, Update};
    use crate::rules::board::Color;
    use crate::rules::game::Game;

    /// How many reports `player` makes analysing the empty 9x9 board for 50 playouts.
    fn reports(player: &mut dyn Player) -> Result<usize, PlayerError> {
        let budget = Budget {
            playouts: Some(50),
            ..Budget::default()
        };
        let request = AnalysisRequest::new(Color::Black, Duration::from_secs(3600), budget);
        let mut count = 0;
        let mut progress = |update: Update<'_>| {
            count += usize::from(matches!(update, Update::Report(_)));
            true
        };
        player.analyze(&Game::new(9, Default::default()), &request, &mut progress)?;
        Ok(count)
    }

    #[test]
    fn a_level_that_cannot_analyse_is_analysed_for_by_the_mcts_level() {
        let text = "[levels.mcts]\nplayer = \"mcts\"\nplayouts = 50\nthreads = 1\n";
        let config = Config::from_text(text, Path::new("engines.toml")).unwrap();
        let easy = config.level("easy").unwrap();
        assert!(matches!(
            reports(build(&config, easy).as_mut()),
            Err(PlayerError::CannotAnalyze)
        ));
        let analysed = reports(player(&config, easy, NetSource::Level).as_mut()).unwrap();
        assert!(analysed >= 1, "{analysed} reports");
    }

    #[test]
    #[cfg_attr(
        not(test_nets),
        ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
    )]
    fn players_naming_one_file_share_its_net_while_one_holds_it() {
        let file = Path::new(env!("TENGEN_TEST_NETS")).join("g170-b6c96.bin.gz");
        let loads = || {
            load_net(&file).unwrap_or_else(|| {
                panic!(
                    "{} does not load (TENGEN_TEST_NETS names the nets' directory)",
                    file.display()
                )
            })
        };
        let first = loads();
        let second = loads();
        assert!(Arc::ptr_eq(&first, &second));
        let weak = Arc::downgrade(&first);
        drop((first, second));
        assert!(weak.upgrade().is_none(), "freed when no player holds it");
        assert!(load_net(&file).is_some());
        assert!(load_net(Path::new("/no/such/net.bin.gz")).is_none());
    }
}
