//! `tengen serve`: play tengen in a browser, and a game server that many clients share.
//!
//! One process: an HTTP server (axum on tokio) with the page at `/` ([`PAGE`], built into the
//! binary) and a JSON API under `/api/` ([`api`]); games kept in a [`store`] (a SQLite file,
//! or a PostgreSQL that several servers share: [`pgstore`]) so that a restart loses no
//! acknowledged move; the levels' players run on a bounded worker pool
//! ([`ai`]), so a long search never holds up another game's reply. docs/SERVE.md is the
//! user's guide.

pub mod ai;
pub mod api;
pub mod game;
pub mod limit;
pub mod pgstore;
pub mod store;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::{get, post};

use crate::engine::config::Config;
use ai::Ai;
use api::{ApiError, Server};
use limit::RateLimit;
use pgstore::{PgSettings, PgStore};
use store::{SqliteStore, Store, StoreError};

/// The page: board, new-game form and the little script that drives the API.
pub const PAGE: &str = include_str!("page.html");

/// The largest request body accepted, in bytes (a 25x25 game of 2,500 moves fits).
pub const MAX_BODY: usize = 64 * 1024;

/// How `tengen serve` runs.
pub struct ServeOptions {
    /// Where to listen, `host:port` (port 0: any free one).
    pub bind: String,
    /// Where the games are kept.
    pub store: StoreAt,
    /// The levels.
    pub config: Config,
    /// Searches run at once.
    pub workers: usize,
    /// Unfinished games one client may hold.
    pub max_games_per_client: usize,
    /// Requests a second one client may make on average.
    pub requests_per_client: u32,
    /// A game untouched this long is forgotten.
    pub idle_timeout: Duration,
    /// The longest the AI may take for a move, from its request's arrival.
    pub move_time: Duration,
}

/// Where the games are kept: `--store`.
#[derive(Clone, Debug)]
pub enum StoreAt {
    /// A SQLite file.
    File(PathBuf),
    /// A PostgreSQL database: its URL (no password in it) and the pool's settings.
    Postgres {
        /// `postgres://USER@HOST:PORT/DB`.
        url: String,
        /// Pool size and timeouts.
        settings: PgSettings,
    },
}

impl StoreAt {
    /// `--store`'s argument: a `postgres://` (or `postgresql://`) URL, else a file.
    pub fn parse(text: &str, settings: PgSettings) -> StoreAt {
        if pgstore::is_url(text) {
            StoreAt::Postgres {
                url: text.to_string(),
                settings,
            }
        } else {
            StoreAt::File(PathBuf::from(text))
        }
    }

    /// Opens the store (migrating its schema to this build's): for PostgreSQL with the
    /// password from `PGPASSWORD` or the password file.
    pub fn open(&self) -> Result<Arc<dyn Store>, StoreError> {
        Ok(match self {
            StoreAt::File(path) => Arc::new(SqliteStore::open(path)?),
            StoreAt::Postgres { url, settings } => {
                let config = pgstore::parse_url(url).map_err(StoreError::unavailable)?;
                let password = pgstore::find_password(
                    &config,
                    std::env::var("PGPASSWORD").ok(),
                    pgstore::default_passfile().as_deref(),
                );
                Arc::new(PgStore::open(url, password, settings)?)
            }
        })
    }
}

impl std::fmt::Display for StoreAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreAt::File(path) => write!(f, "{}", path.display()),
            StoreAt::Postgres { url, .. } => f.write_str(&pgstore::redacted(url)),
        }
    }
}

/// `tengen serve migrate`: copies every game of the SQLite file `from` into `to`, which
/// keeps the ones it already holds (so a second run copies nothing twice). The games copied
/// and the games already there.
pub fn migrate(from: &std::path::Path, to: &StoreAt) -> Result<(usize, usize), StoreError> {
    let source = SqliteStore::open(from)?;
    let target = to.open()?;
    let (mut copied, mut present) = (0, 0);
    for game in source.load_all()? {
        match target.create(&game) {
            Ok(()) => copied += 1,
            Err(e) if e.kind == store::StoreErrorKind::Taken => present += 1,
            Err(e) => return Err(e),
        }
    }
    Ok((copied, present))
}

/// A duration as `90s`, `30m`, `2h`, `1h30m` or plain seconds (`45`); for `--idle-timeout`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("`{text}` is not a duration such as 30m, 90s, 2h or 1h30m");
    let text = text.trim();
    if text.is_empty() {
        return Err(bad());
    }
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    for ch in text.chars() {
        if ch.is_ascii_digit() {
            number.push(ch);
            continue;
        }
        let unit = match ch {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(unit)
            .and_then(|s| total.checked_add(s))
            .ok_or_else(bad)?;
        number.clear();
    }
    if !number.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// The routes: the page, the API, and JSON errors for everything else.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/healthz", get(api::healthz))
        .route("/api/levels", get(api::levels))
        .route("/api/games", post(api::create))
        .route("/api/games/{key}", get(api::state).delete(api::delete))
        .route("/api/games/{key}/moves", post(api::play))
        .route("/api/games/{key}/genmove", post(api::genmove))
        .route("/api/games/{key}/undo", post(api::undo))
        .route("/api/games/{key}/sgf", get(api::sgf))
        .route("/api/games/{key}/board", get(api::board))
        .route("/api/games/{key}/analysis", get(api::analysis))
        .fallback(|| async { ApiError::no_route() })
        .method_not_allowed_fallback(|| async { ApiError::wrong_method() })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(server)
}

async fn page() -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-cache")], Html(PAGE))
}

/// Runs the server until SIGINT or SIGTERM. Prints `tengen serve: listening on
/// http://ADDRESS` on stderr once it accepts connections (tests read the port from it).
///
/// The store is opened and the games restored before the async runtime starts: the store's
/// calls block, and inside the runtime they are made on its blocking threads only.
pub fn run(options: ServeOptions) -> Result<(), Box<dyn std::error::Error>> {
    let store = options
        .store
        .open()
        .map_err(|e| format!("--store {}: {e}", options.store))?;
    let ai = Ai::new(options.config, options.workers, options.move_time);
    // Servers sharing a PostgreSQL count each client's requests in it.
    let requests = match options.store {
        StoreAt::File(_) => RateLimit::new(options.requests_per_client),
        StoreAt::Postgres { .. } => RateLimit::in_store(options.requests_per_client),
    };
    let server = Arc::new(Server::new(
        store,
        ai,
        options.max_games_per_client,
        requests,
        options.idle_timeout,
    ));
    let restored = server
        .restore()
        .map_err(|e| format!("--store {}: {e}", options.store))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let started = Started {
        bind: options.bind,
        store: options.store.to_string(),
        restored,
        workers: options.workers,
        idle_timeout: options.idle_timeout,
    };
    runtime.block_on(serve(server, started))
}

/// What [`serve`] needs besides the server.
struct Started {
    bind: String,
    store: String,
    restored: usize,
    workers: usize,
    idle_timeout: Duration,
}

async fn serve(server: Arc<Server>, options: Started) -> Result<(), Box<dyn std::error::Error>> {
    let restored = options.restored;
    let listener = tokio::net::TcpListener::bind(&options.bind)
        .await
        .map_err(|e| format!("--bind {}: {e}", options.bind))?;
    let address: SocketAddr = listener.local_addr()?;
    eprintln!(
        "tengen serve: {restored} game{} restored from {}; {} workers",
        if restored == 1 { "" } else { "s" },
        options.store,
        options.workers
    );
    eprintln!("tengen serve: listening on http://{address}");
    let sweeper = Arc::clone(&server);
    let every = (options.idle_timeout / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            sweeper.expire_idle().await;
        }
    });
    axum::serve(listener, router(server))
        .with_graceful_shutdown(shutdown())
        .await?;
    Ok(())
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
    eprintln!("tengen serve: stopping");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        for bad in ["", "m", "30x", "5m3", "-5s", "99999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
