//! The JSON API under `/api/` (docs/SERVE.md describes it for clients): the games held in
//! memory, one lock per game so that its moves (and its AI's moves) happen one at a time, and
//! a handler per route. Every accepted move is in the store before its response is sent;
//! any error leaves the game as it was.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::ai::{Ai, AnalysisLimits};
use super::game::{NewGame, Refusal, ServedGame, board_rows, move_text};
use super::limit::RateLimit;
use super::store::{Ending, NewMoves, Store, StoreError, StoreErrorKind, StoredGame, Undo};
use crate::engine::player::Answer;
use crate::rules::board::Move;
use crate::rules::sgf::{self, RecordInfo};

/// An error answer: a status and a JSON body with at least `error`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: serde_json::Map<String, Value>,
    /// Sent as `Retry-After` (whole seconds, rounded up).
    retry_after: Option<Duration>,
    /// The game held here may be stale, and the request is judged again on the store's
    /// copy: the store refused a write because another request had stored first, or the
    /// request was refused (a 409, an illegal move) on the copy held here, which another
    /// server may have changed since in the store.
    stale: bool,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        let mut body = serde_json::Map::new();
        body.insert("error".to_string(), Value::String(message.into()));
        ApiError {
            status,
            body,
            retry_after: None,
            stale: false,
        }
    }

    fn with(mut self, name: &str, value: impl Into<Value>) -> ApiError {
        self.body.insert(name.to_string(), value.into());
        self
    }

    /// The answer for a key the server does not hold: the client should resend its game.
    fn unknown_game() -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no game with this key (finished and expired, deleted, or lost): POST /api/games with its moves to go on",
        )
        .with("resync", true)
    }

    /// The answer for a store that failed: 503 with `Retry-After` when it is unavailable
    /// (the call failed changed nothing; one before it in the request may have: the client's
    /// move stored, the AI's reply not), the resync 404 when the game is gone from it, and a 409 (the
    /// game changed meanwhile) when another request stored first.
    fn store(e: StoreError) -> ApiError {
        match e.kind {
            StoreErrorKind::Unavailable => {
                log::error!("store: {e}");
                let mut error = ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the game store failed: send the same request again (a move already stored is not played twice)",
                );
                error.retry_after = Some(STORE_RETRY_AFTER);
                error
            }
            StoreErrorKind::Missing => ApiError::unknown_game(),
            StoreErrorKind::Limit => {
                ApiError::new(StatusCode::TOO_MANY_REQUESTS, e.message).with("field", "client")
            }
            StoreErrorKind::Taken => {
                log::info!("store: {e}");
                ApiError::conflict(
                    "another request changed the game first: read its state and go on from there",
                )
            }
        }
    }

    /// A 429 for a client over its request rate, with the wait until its next request.
    fn too_fast(client: &str, rate: u32, wait: Duration) -> ApiError {
        let mut error = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("client: `{client}` makes more than {rate} requests a second: slow down"),
        )
        .with("field", "client")
        .with("retry_after_ms", wait.as_millis().max(1) as u64);
        error.retry_after = Some(wait);
        error
    }

    /// A 409: the request does not fit the game's state (as held here: stale).
    fn conflict(message: impl Into<String>) -> ApiError {
        let mut error = ApiError::new(StatusCode::CONFLICT, message);
        error.stale = true;
        error
    }

    /// A 404 for a path that is no route.
    pub fn no_route() -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "no such path (see docs/SERVE.md)")
    }

    /// A 405 for a route asked with the wrong method.
    pub fn wrong_method() -> ApiError {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "this path does not take that method (see docs/SERVE.md)",
        )
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
        let message = match &r.field {
            Some(field) => format!("{field}: {}", r.message),
            None => r.message,
        };
        let error = ApiError::new(status, message);
        match r.field {
            Some(field) => error.with("field", field),
            None => error,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(Value::Object(self.body))).into_response();
        if let Some(wait) = self.retry_after {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
        }
        response
    }
}

/// How long a client is told to wait after the store failed.
const STORE_RETRY_AFTER: Duration = Duration::from_secs(1);

/// Reads a JSON body into `T`, naming the field at fault when it cannot.
fn parse<T: DeserializeOwned>(body: Body) -> Result<T, ApiError> {
    let bytes = body.map_err(|r| ApiError::new(r.status(), r.body_text()))?;
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().to_string();
        // Unknown and missing fields are reported at their parent: take the name from the
        // message.
        let named = ["unknown field `", "missing field `"]
            .iter()
            .find_map(|prefix| message.strip_prefix(prefix))
            .and_then(|rest| rest.split('`').next());
        let field = match (path.as_str(), named) {
            (".", Some(name)) => Some(name.to_string()),
            (".", None) => None,
            (_, Some(name)) if !path.ends_with(name) => Some(format!("{path}.{name}")),
            _ => Some(path),
        };
        body_error(field, &message)
    })?;
    de.end().map_err(|e| body_error(None, &e.to_string()))?;
    Ok(value)
}

/// A 400 for a body that is not the JSON asked for, naming the field at fault if one is.
fn body_error(field: Option<String>, message: &str) -> ApiError {
    match field {
        Some(f) => {
            ApiError::new(StatusCode::BAD_REQUEST, format!("{f}: {message}")).with("field", f)
        }
        None => ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the body is not the JSON asked for: {message}"),
        ),
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A new unguessable key: 128 random bits from the operating system's generator, in hex.
fn new_key() -> String {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `key` could be a key: 32 lowercase hex digits, as [`new_key`] makes them (or
/// a test's shorter ones), so that no other path costs a store query.
fn is_key(key: &str) -> bool {
    (1..=64).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_hexdigit())
}

/// One game held in memory.
pub struct Entry {
    key: String,
    client: String,
    /// The client's id of the request that created the game.
    request_id: Option<String>,
    /// The game itself; held across a move and the AI's answer, so moves come one at a time.
    slot: tokio::sync::Mutex<Slot>,
    /// The game as last changed, for reads that should not wait for a search.
    view: Mutex<Arc<ServedGame>>,
    /// Set when the game is deleted or expires; a search that ends after it stores nothing.
    closed: AtomicBool,
    last_active: AtomicU64,
    /// When this server last wrote the game's last use to the store (seconds since 1970; 0:
    /// not yet).
    store_touched: AtomicU64,
    /// Held while the game is analysed (one analysis at a time), with the last analysis.
    analysis: tokio::sync::Mutex<Option<CachedAnalysis>>,
    /// Stops the analysis under way: set when the game changes.
    analysis_stop: Mutex<Arc<AtomicBool>>,
}

/// An analysis answered, kept for the same request about the same position.
struct CachedAnalysis {
    moves: Vec<(crate::rules::board::Color, Move)>,
    limits: AnalysisLimits,
    answer: Value,
}

struct Slot {
    game: ServedGame,
    /// The pooled player that answered last.
    player: Option<u64>,
}

impl Entry {
    fn new(game: ServedGame, last_active: u64) -> Entry {
        Entry {
            key: game.key.clone(),
            client: game.client.clone(),
            request_id: game.request_id.clone(),
            view: Mutex::new(Arc::new(game.clone())),
            slot: tokio::sync::Mutex::new(Slot { game, player: None }),
            closed: AtomicBool::new(false),
            last_active: AtomicU64::new(last_active),
            store_touched: AtomicU64::new(0),
            analysis: tokio::sync::Mutex::new(None),
            analysis_stop: Mutex::new(Arc::new(AtomicBool::new(false))),
        }
    }

    fn view(&self) -> Arc<ServedGame> {
        Arc::clone(&self.view.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn publish(&self, game: &ServedGame) {
        *self.view.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(game.clone());
        // The position analysed is gone: free its worker.
        self.analysis_stop
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .store(true, Ordering::Relaxed);
    }

    /// `mutex` (one of this entry's) locked, unless the game was deleted or expired while
    /// waiting for it: then the 404 that tells the client to resync.
    async fn lock<'a, T>(
        &self,
        mutex: &'a tokio::sync::Mutex<T>,
    ) -> Result<tokio::sync::MutexGuard<'a, T>, ApiError> {
        let guard = mutex.lock().await;
        if self.closed.load(Ordering::Relaxed) {
            return Err(ApiError::unknown_game());
        }
        Ok(guard)
    }

    /// `error`, unless the game was deleted or expired meanwhile (its store row is gone, so
    /// the store refused the move): then the 404 that tells the client to resync. A game the
    /// store no longer has (another server deleted it) is closed here too.
    fn gone_or(&self, error: ApiError) -> ApiError {
        if error.status == StatusCode::NOT_FOUND {
            self.closed.store(true, Ordering::Relaxed);
        }
        if self.closed.load(Ordering::Relaxed) {
            ApiError::unknown_game()
        } else {
            error
        }
    }

    fn touch(&self) {
        self.last_active.store(now(), Ordering::Relaxed);
    }
}

/// The server's shared state.
pub struct Server {
    games: Mutex<HashMap<String, Arc<Entry>>>,
    store: Arc<dyn Store>,
    ai: Ai,
    levels: Vec<String>,
    max_games_per_client: usize,
    requests: RateLimit,
    idle_timeout: Duration,
    /// This process's name in the AI's leases (random).
    holder: String,
}

impl Server {
    /// A server over `store` with no game loaded yet.
    pub fn new(
        store: Arc<dyn Store>,
        ai: Ai,
        max_games_per_client: usize,
        requests: RateLimit,
        idle_timeout: Duration,
    ) -> Server {
        Server {
            games: Mutex::new(HashMap::new()),
            store,
            levels: ai.levels(),
            ai,
            max_games_per_client,
            requests,
            idle_timeout,
            holder: new_key(),
        }
    }

    /// How long a lease on an AI move lasts: past `--move-time` by [`LEASE_MARGIN`].
    fn lease_ttl(&self) -> Duration {
        self.ai.move_time() + LEASE_MARGIN
    }

    /// Takes the lease on computing the AI's next move in `slot`'s game, so that a reply is
    /// computed once across servers: while another server's lease is live, waits (at most
    /// two leases' time) for the reply it stores, and returns it (`slot` reloaded with it);
    /// takes the lease over once it has expired. None when this server is to compute the
    /// reply. The quick levels take no lease: their reply costs less, and the store keeps one.
    async fn claim_ai_move(
        &self,
        entry: &Entry,
        slot: &mut Slot,
    ) -> Result<Option<String>, ApiError> {
        if self.ai.is_quick(&slot.game.level) {
            return Ok(None);
        }
        let number = slot.game.next_number();
        let ttl = self.lease_ttl();
        let deadline = Instant::now() + 2 * ttl;
        loop {
            let (key, holder) = (entry.key.clone(), self.holder.clone());
            if self
                .blocking_store(move |s| s.lease(&key, number, &holder, ttl))
                .await?
            {
                return Ok(None);
            }
            if Instant::now() > deadline {
                let mut error = ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "another server is still computing the AI's reply: try again",
                );
                error.retry_after = Some(STORE_RETRY_AFTER);
                return Err(error);
            }
            tokio::time::sleep(LEASE_POLL).await;
            self.reload(entry, slot).await?;
            let game = &slot.game;
            if game.next_number() == number && game.ai_to_move() {
                continue;
            }
            return match game.game.moves().get(number - 1) {
                Some(&(color, reply)) if color != game.human => {
                    Ok(Some(move_text(reply, game.game.size())))
                }
                None if game.ai_resigned() => Ok(Some("resign".to_string())),
                _ => Err(ApiError::store(StoreError::taken(
                    "the game changed while another server computed the AI's move",
                ))),
            };
        }
    }

    /// Counts a request of `client` against its rate, in the store when servers share it
    /// (in this process while the store cannot count): a 429 when it is over.
    async fn admit(&self, client: &str) -> Result<(), ApiError> {
        let now = Instant::now();
        let too_fast = |wait| ApiError::too_fast(client, self.requests.rate(), wait);
        if self.requests.counts_in_store(now) {
            let (store, name) = (Arc::clone(&self.store), client.to_string());
            let most = self.requests.most_in_store();
            let counted =
                tokio::task::spawn_blocking(move || store.count_request(&name, most)).await;
            match counted {
                Ok(Ok(None)) => return Ok(()),
                Ok(Ok(Some(wait))) => return Err(too_fast(wait)),
                Ok(Err(e)) => log::warn!("store: requests counted here for a second: {e}"),
                Err(e) => log::warn!("store: requests counted here for a second: {e}"),
            }
            self.requests.store_failed(now);
        }
        self.requests.admit(client, now).map_err(too_fast)
    }

    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Entry>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops the stored games idle for longer than the timeout; how many are left. The
    /// others are loaded when first asked for.
    pub fn restore(&self) -> Result<usize, StoreError> {
        let cutoff = now().saturating_sub(self.idle_timeout.as_secs());
        let expired = self.store.expire(cutoff, &[])?;
        if !expired.is_empty() {
            log::info!("{} idle games expired", expired.len());
        }
        self.store.count()
    }

    /// The game `stored` holds, its moves replayed; at the default level if its own is no
    /// longer in the config; none (logged) if it does not replay.
    fn replay(&self, mut stored: StoredGame) -> Option<ServedGame> {
        if !self.levels.contains(&stored.level) {
            log::warn!(
                "game {}: no level `{}` any more; it plays at `{}`",
                stored.key,
                stored.level,
                self.ai.default_level()
            );
            stored.level = self.ai.default_level().to_string();
        }
        ServedGame::from_stored(&stored, &self.levels)
            .map_err(|r| {
                log::warn!(
                    "game {}: cannot be replayed ({}); skipped",
                    stored.key,
                    r.message
                );
            })
            .ok()
    }

    /// The game `key` as the store holds it, replayed; none when the store has no such game
    /// (or it does not replay).
    async fn load(&self, key: &str) -> Result<Option<ServedGame>, ApiError> {
        let key = key.to_string();
        let stored = self.blocking_store(move |s| s.load(&key)).await?;
        Ok(stored.and_then(|stored| self.replay(stored)))
    }

    /// Holds `game` in memory (unless another request did meanwhile); its entry.
    fn hold(&self, game: ServedGame) -> Arc<Entry> {
        let key = game.key.clone();
        let entry = Arc::new(Entry::new(game, now()));
        Arc::clone(self.games().entry(key).or_insert(entry))
    }

    /// Replaces the game held in `slot` with the store's copy: after another server (or a
    /// request before a restart) changed it. The resync 404 when the store no longer has it.
    async fn reload(&self, entry: &Entry, slot: &mut Slot) -> Result<(), ApiError> {
        match self.load(&entry.key).await? {
            Some(game) => {
                slot.game = game;
                entry.publish(&slot.game);
                Ok(())
            }
            None => {
                entry.closed.store(true, Ordering::Relaxed);
                self.games().remove(&entry.key);
                Err(ApiError::unknown_game())
            }
        }
    }

    /// The game as the store holds it, for a read: the copy held here while it is at the
    /// store's version (or while the store cannot say: the copy answers meanwhile), else the
    /// store's, replayed, which replaces the copy unless a request is changing the game here
    /// at this moment. The resync 404 when the store no longer has the game.
    async fn current(&self, entry: &Entry) -> Result<Arc<ServedGame>, ApiError> {
        let held = entry.view();
        let key = entry.key.clone();
        let version = match self.blocking_store(move |s| s.version(&key)).await {
            Ok(version) => version,
            Err(e) if e.status == StatusCode::SERVICE_UNAVAILABLE => return Ok(held),
            Err(e) => return Err(e),
        };
        if version == Some(held.version) {
            return Ok(held);
        }
        match entry.slot.try_lock() {
            Ok(mut slot) => {
                self.reload(entry, &mut slot).await?;
                Ok(entry.view())
            }
            Err(_) => match self.load(&entry.key).await? {
                Some(game) => Ok(Arc::new(game)),
                None => Err(entry.gone_or(ApiError::unknown_game())),
            },
        }
    }

    /// Makes `write` on `slot`'s game. The game is reloaded first when the request's number
    /// is not its next move's (a retry, a client that is wrong, or a copy held here older
    /// than the store's, which the answer must not show), and `write` is made again on the
    /// store's game when the store refused it as stale (another server moved since).
    async fn write(&self, entry: &Entry, slot: &mut Slot, write: Write<'_>) -> Reply {
        if write.number() != slot.game.next_number() as u64 {
            self.reload(entry, slot).await?;
        }
        match write.apply(self, entry, slot).await {
            Err(e) if e.stale => {
                self.reload(entry, slot).await?;
                write.apply(self, entry, slot).await
            }
            answer => answer,
        }
    }

    /// Forgets the games idle for longer than the timeout: drops the copies idle here (not
    /// one whose move is being made), and removes from the store the games idle there but
    /// those used here since (reads do not write the store).
    pub async fn expire_idle(self: &Arc<Self>) {
        let cutoff = now().saturating_sub(self.idle_timeout.as_secs());
        let (dropped, used): (Vec<Arc<Entry>>, Vec<String>) = {
            let mut games = self.games();
            let idle: Vec<String> = games
                .values()
                .filter(|e| {
                    e.last_active.load(Ordering::Relaxed) < cutoff && e.slot.try_lock().is_ok()
                })
                .map(|e| e.key.clone())
                .collect();
            let dropped = idle.iter().filter_map(|k| games.remove(k)).collect();
            (dropped, games.keys().cloned().collect())
        };
        match self.blocking_store(move |s| s.expire(cutoff, &used)).await {
            Ok(expired) => {
                for entry in dropped.iter().filter(|e| expired.contains(&e.key)) {
                    entry.closed.store(true, Ordering::Relaxed);
                }
                if !expired.is_empty() {
                    log::info!("{} idle games expired", expired.len());
                }
            }
            Err(e) => log::error!("expiring idle games: {e:?}"),
        }
    }

    async fn blocking_store<T: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let store = Arc::clone(&self.store);
        match tokio::task::spawn_blocking(move || f(store.as_ref())).await {
            Ok(result) => result.map_err(ApiError::store),
            Err(e) => Err(ApiError::store(StoreError::unavailable(e.to_string()))),
        }
    }

    /// The game `key`, loaded from the store if it is not held here (another server made
    /// it), with its client's request counted.
    async fn entry(&self, key: &str) -> Result<Arc<Entry>, ApiError> {
        let held = {
            let mut games = self.games();
            // A copy found gone from the store is dropped, and the game looked for again.
            if games
                .get(key)
                .is_some_and(|e| e.closed.load(Ordering::Relaxed))
            {
                games.remove(key);
            }
            games.get(key).cloned()
        };
        let entry = match held {
            Some(entry) => entry,
            None if is_key(key) => self
                .load(key)
                .await?
                .map(|game| self.hold(game))
                .ok_or_else(ApiError::unknown_game)?,
            None => return Err(ApiError::unknown_game()),
        };
        self.admit(&entry.client).await?;
        self.keep_alive(&entry).await?;
        entry.touch();
        Ok(entry)
    }

    /// Notes in the store that `entry`'s game is in use here, at most every quarter of the
    /// idle timeout, so that no server expires a game that is only read on another (reads
    /// change nothing else in the store). A game the store no longer has (another server
    /// expired or deleted it) is dropped here too: the resync 404. While the store is down,
    /// the copy held answers.
    async fn keep_alive(&self, entry: &Entry) -> Result<(), ApiError> {
        let at = now();
        let every = (self.idle_timeout.as_secs() / 4).max(1);
        if at.saturating_sub(entry.store_touched.load(Ordering::Relaxed)) < every {
            return Ok(());
        }
        let key = entry.key.clone();
        let touched = self.blocking_store(move |s| s.touch(&key, at)).await;
        entry.store_touched.store(at, Ordering::Relaxed);
        match touched {
            Err(e) if e.status == StatusCode::NOT_FOUND => {
                entry.closed.store(true, Ordering::Relaxed);
                self.games().remove(&entry.key);
                Err(e)
            }
            _ => Ok(()),
        }
    }

    /// Stores the moves from index `from` on (and the ending, if any) of `game`, made on
    /// its version; `game` takes the store's new version.
    async fn store_moves(&self, game: &mut ServedGame, from: usize) -> Result<(), ApiError> {
        let (key, version) = (game.key.clone(), game.version);
        let moves = NewMoves {
            first: from + 1,
            moves: game.move_texts(from),
            ending: game.ending.clone(),
        };
        game.version = self
            .blocking_store(move |s| s.append(&key, version, moves, now()))
            .await?;
        Ok(())
    }

    /// Stores `ending`, a resignation, as the end of `game`, which takes it and the store's
    /// new version.
    async fn store_resignation(
        &self,
        entry: &Entry,
        game: &mut ServedGame,
        ending: Ending,
    ) -> Result<(), ApiError> {
        let (key, version, stored) = (game.key.clone(), game.version, ending.clone());
        game.version = self
            .blocking_store(move |s| s.finish(&key, version, &stored, now()))
            .await
            .map_err(|e| entry.gone_or(e))?;
        game.ending = Some(ending);
        Ok(())
    }

    /// The AI's move in `slot`'s game, stored; its text (`D4`, `pass`, `resign`).
    async fn ai_turn(
        &self,
        entry: &Entry,
        slot: &mut Slot,
        received: Instant,
    ) -> Result<String, ApiError> {
        if let Some(stored) = self.claim_ai_move(entry, slot).await? {
            return Ok(stored);
        }
        let game = &mut slot.game;
        let color = game.game.to_move();
        log::info!(
            "game {}: the AI's move {} at {}",
            game.key,
            game.next_number(),
            game.level
        );
        let reply = self
            .ai
            .genmove(&game.game, &game.level, slot.player, received)
            .await;
        slot.player = reply.player;
        if entry.closed.load(Ordering::Relaxed) {
            return Err(ApiError::unknown_game());
        }
        let before = game.clone();
        let text = match reply.answer {
            Answer::Resign => {
                self.store_resignation(entry, game, ServedGame::resignation(color))
                    .await?;
                "resign".to_string()
            }
            Answer::Move(mv) => {
                let from = game.game.moves().len();
                // The AI's move was checked legal against this very position.
                game.game.play(color, mv).map_err(|e| {
                    ApiError::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!("the AI's move was illegal: {e}"),
                    )
                })?;
                if game.needs_scoring() {
                    game.ending = Some(self.ai.score(&game.game).await);
                }
                if let Err(e) = self.store_moves(game, from).await {
                    *game = before;
                    return Err(entry.gone_or(e));
                }
                move_text(mv, game.game.size())
            }
        };
        entry.publish(game);
        Ok(text)
    }
}

/// The state of `game`, with the AI's `reply` if it moved.
fn state_json(game: &ServedGame, reply: Option<String>) -> Json<super::game::State> {
    let mut state = game.state();
    state.reply = reply;
    Json(state)
}

type Shared = State<Arc<Server>>;
/// The game key in a request's path, or why it could not be read.
type GameKey = Result<Path<String>, PathRejection>;
/// A request's body, or why it could not be read.
type Body = Result<Bytes, BytesRejection>;
/// A handler's answer.
type Reply = Result<Response, ApiError>;

fn key_of(path: GameKey) -> Result<String, ApiError> {
    path.map(|Path(key)| key)
        .map_err(|_| ApiError::unknown_game())
}

/// `GET /api/levels`: the levels a game may be played at, the default, what plays at each
/// (`plays`: which engine, which net), and the rank levels weakest first (`ranks`).
pub async fn levels(State(server): Shared) -> Response {
    let plays: serde_json::Map<String, serde_json::Value> = server
        .ai
        .plays()
        .into_iter()
        .map(|(level, plays)| (level, plays.into()))
        .collect();
    Json(json!({
        "levels": server.levels,
        "default": server.ai.default_level(),
        "plays": plays,
        "ranks": server.ai.ranks(),
    }))
    .into_response()
}

/// How much longer than `--move-time` a lease on computing an AI move lasts (the reply's
/// scoring and storing, a busy machine).
const LEASE_MARGIN: Duration = Duration::from_secs(5);

/// How often a server waiting on another's lease looks for the stored reply.
const LEASE_POLL: Duration = Duration::from_millis(100);

/// The longest `GET /healthz` waits for the store's answer.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// `GET /healthz`: `200` while the process serves, whatever the store's state, so that a
/// database outage does not take every server out of a balancer's pool at once; the body
/// says whether the store answers (`"store": "ok"`, or `"unreachable"` with `error`).
pub async fn healthz(State(server): Shared) -> Response {
    let store = Arc::clone(&server.store);
    let probe = tokio::task::spawn_blocking(move || store.ping());
    let error = match tokio::time::timeout(HEALTH_TIMEOUT, probe).await {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(e))) => Some(e.message),
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => Some(format!("no answer within {} s", HEALTH_TIMEOUT.as_secs())),
    };
    let body = match error {
        None => json!({"serving": true, "store": "ok"}),
        Some(error) => json!({"serving": true, "store": "unreachable", "error": error}),
    };
    ([(header::CACHE_CONTROL, "no-store")], Json(body)).into_response()
}

/// `POST /api/games`: a new game, or a lost one restored from its moves; with a
/// `request_id` the client used before, the game that request created.
pub async fn create(State(server): Shared, body: Body) -> Reply {
    let request: NewGame = parse(body)?;
    let mut game = ServedGame::create(new_key(), request, &server.levels)?;
    // Counted once the client's name is checked (1 to 128 bytes of printable text).
    server.admit(&game.client).await?;
    if let Some(created) = server.created_by(&game).await? {
        return Ok(created);
    }
    if game.needs_scoring() {
        game.ending = Some(server.ai.score(&game.game).await);
    }
    let entry = Arc::new(Entry::new(game.clone(), now()));
    entry.store_touched.store(now(), Ordering::Relaxed);
    server.games().insert(game.key.clone(), Arc::clone(&entry));
    // The store counts the client's unfinished games (on every server sharing it).
    let stored: StoredGame = game.to_stored(now());
    let max_open = server.max_games_per_client;
    if let Err(e) = server
        .blocking_store(move |s| s.create_within(&stored, max_open))
        .await
    {
        server.games().remove(&game.key);
        // The same request, sent again, was stored first (by another server, or another
        // connection of the client's).
        if e.stale
            && let Some(created) = server.created_by(&game).await?
        {
            return Ok(created);
        }
        return Err(e);
    }
    Ok((StatusCode::CREATED, state_json(&game, None)).into_response())
}

impl Server {
    /// The answer to a creation sent again: the game that `request`'s client made with
    /// its `request_id` (held here or in the store), as the first answer showed it but with
    /// the moves since; a 409 if that game has other settings; none if there is no such
    /// game (or no `request_id`).
    async fn created_by(&self, request: &ServedGame) -> Result<Option<Response>, ApiError> {
        let Some(id) = request.request_id.clone() else {
            return Ok(None);
        };
        let held = self
            .games()
            .values()
            .find(|e| e.client == request.client && e.request_id.as_deref() == Some(&id))
            .cloned();
        let entry = match held {
            Some(entry) => entry,
            None => {
                let client = request.client.clone();
                let found = self
                    .blocking_store(move |s| s.find_request(&client, &id))
                    .await?;
                match found.and_then(|stored| self.replay(stored)) {
                    Some(game) => self.hold(game),
                    None => return Ok(None),
                }
            }
        };
        let game = self.current(&entry).await?;
        if !game.has_settings_of(request) {
            return Err(ApiError::conflict(
                "request_id: this client made another game with this request id",
            )
            .with("field", "request_id"));
        }
        Ok(Some(
            (StatusCode::CREATED, state_json(&game, None)).into_response(),
        ))
    }
}

/// `GET /api/games/{key}`.
pub async fn state(State(server): Shared, path: GameKey) -> Reply {
    let entry = server.entry(&key_of(path)?).await?;
    let game = server.current(&entry).await?;
    Ok(state_json(&game, None).into_response())
}

/// `GET /api/games/{key}/board?moves=N`: the board after the game's first N moves (0: before
/// the first; the page's look back from its win-rate graph) and the last of them.
pub async fn board(State(server): Shared, path: GameKey, RawQuery(query): RawQuery) -> Reply {
    let entry = server.entry(&key_of(path)?).await?;
    let game = server.current(&entry).await?;
    let played = game.game.moves().len();
    let value = query
        .as_deref()
        .and_then(|q| q.strip_prefix("moves="))
        .unwrap_or("");
    let moves = value
        .parse::<usize>()
        .ok()
        .filter(|n| *n <= played)
        .ok_or_else(|| {
            body_error(
                Some("moves".to_string()),
                &format!(
                    "`moves` must be a whole number from 0 to {played}, not `{}`",
                    value.chars().take(20).collect::<String>()
                ),
            )
        })?;
    let mut past = game.game.clone();
    while past.moves().len() > moves {
        if past.undo().is_err() {
            break;
        }
    }
    let size = past.size();
    let last = past.moves().last().map(|&(_, mv)| move_text(mv, size));
    Ok(
        Json(json!({"moves": moves, "board": board_rows(past.board()), "last_move": last}))
            .into_response(),
    )
}

/// `GET /api/games/{key}/sgf`.
pub async fn sgf(State(server): Shared, path: GameKey) -> Reply {
    let entry = server.entry(&key_of(path)?).await?;
    let game = server.current(&entry).await?;
    let ai = format!("tengen {} ({})", env!("CARGO_PKG_VERSION"), game.level);
    let (black, white) = match game.human {
        crate::rules::board::Color::Black => (game.client.as_str(), ai.as_str()),
        crate::rules::board::Color::White => (ai.as_str(), game.client.as_str()),
    };
    let result = game.ending.as_ref().map_or("", |e| e.result.as_str());
    let record = sgf::write_record(
        &game.game,
        &RecordInfo {
            black,
            white,
            date: &sgf::today(),
            result,
            rules: "Chinese",
            comment: "",
        },
    );
    let name = format!(
        "attachment; filename=\"tengen-{}.sgf\"",
        &game.key[..8.min(game.key.len())]
    );
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-go-sgf".to_string()),
            (header::CONTENT_DISPOSITION, name),
        ],
        record,
    )
        .into_response())
}

/// `DELETE /api/games/{key}`.
pub async fn delete(State(server): Shared, path: GameKey) -> Reply {
    let key = key_of(path)?;
    let entry = server
        .games()
        .remove(&key)
        .ok_or_else(ApiError::unknown_game)?;
    entry.closed.store(true, Ordering::Relaxed);
    server.blocking_store(move |s| s.delete(&key)).await?;
    Ok(Json(json!({"deleted": entry.key})).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    #[serde(rename = "move")]
    mv: String,
    number: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NumberRequest {
    number: u64,
}

/// Refuses a request whose `number` is not the next move's, or a game that is over.
fn check_number(game: &ServedGame, number: u64) -> Result<(), ApiError> {
    if let Some(ending) = &game.ending {
        return Err(
            ApiError::conflict(format!("the game is over ({})", ending.result))
                .with("result", ending.result.clone()),
        );
    }
    check_next_number(game, number)
}

/// Refuses a request whose `number` is not the next move's.
fn check_next_number(game: &ServedGame, number: u64) -> Result<(), ApiError> {
    let expected = game.next_number();
    if number != expected as u64 {
        return Err(ApiError::conflict(format!(
            "number: the next move is number {expected}, not {number}"
        ))
        .with("field", "number")
        .with("expected", expected));
    }
    Ok(())
}

/// `POST /api/games/{key}/moves` `{move, number}`: the client's move, then the AI's reply.
/// The same move sent again after it was stored gets the same answer (with the state as it
/// is now).
pub async fn play(State(server): Shared, path: GameKey, body: Body) -> Reply {
    let received = Instant::now();
    let entry = server.entry(&key_of(path)?).await?;
    let request: MoveRequest = parse(body)?;
    let mut slot = entry.lock(&entry.slot).await?;
    let write = Write::Move(&request, received);
    server.write(&entry, &mut slot, write).await
}

/// A request that changes a game, numbered as the state's `number` it was sent with.
#[derive(Copy, Clone)]
enum Write<'a> {
    /// The client's move, received at that instant.
    Move(&'a MoveRequest, Instant),
    /// The AI's move, asked at that instant.
    Genmove(u64, Instant),
    /// Taking back the client's last move.
    Undo(u64),
}

impl Write<'_> {
    /// The state's `number` the request was sent with.
    fn number(self) -> u64 {
        match self {
            Write::Move(request, _) => request.number,
            Write::Genmove(number, _) | Write::Undo(number) => number,
        }
    }

    /// Makes the change on the game held in `slot`.
    async fn apply(self, server: &Server, entry: &Entry, slot: &mut Slot) -> Reply {
        match self {
            Write::Move(request, received) => play_in(server, entry, slot, request, received).await,
            Write::Genmove(number, received) => {
                genmove_in(server, entry, slot, number, received).await
            }
            Write::Undo(number) => undo_in(server, entry, slot, number).await,
        }
    }
}

/// [`play`] on the game held in `slot`.
async fn play_in(
    server: &Server,
    entry: &Entry,
    slot: &mut Slot,
    request: &MoveRequest,
    received: Instant,
) -> Reply {
    if let Some(answer) = resent_move(server, entry, slot, request, received).await? {
        return Ok(answer);
    }
    let game = &mut slot.game;
    check_number(game, request.number)?;
    if game.ai_to_move() {
        return Err(ApiError::conflict(format!(
            "it is the AI's turn: POST /api/games/{}/genmove with number {}",
            game.key,
            game.next_number()
        ))
        .with("expected", game.next_number()));
    }
    let size = game.game.size();
    let color = game.game.to_move();
    if request.mv.eq_ignore_ascii_case("resign") {
        server
            .store_resignation(entry, game, ServedGame::resignation(color))
            .await?;
        entry.publish(game);
        return Ok(state_json(game, None).into_response());
    }
    let mv = Move::parse(&request.mv, size).map_err(|e| {
        Refusal::bad(
            "move",
            format!(
                "{e}: `{}` (a vertex such as D4, `pass` or `resign`)",
                request.mv.chars().take(10).collect::<String>()
            ),
        )
    })?;
    let before = game.clone();
    if let Err(e) = game.game.play(color, mv) {
        let reason = match e {
            crate::rules::game::IllegalMove::Occupied => "occupied",
            crate::rules::game::IllegalMove::Ko => "ko",
            crate::rules::game::IllegalMove::Superko => "superko",
            crate::rules::game::IllegalMove::Suicide => "suicide",
        };
        let mut illegal = ApiError::from(Refusal::illegal(
            "move",
            format!("{} is illegal: {e}", move_text(mv, size)),
        ))
        .with("reason", reason);
        // Illegal perhaps only in a copy that another server's moves left behind: checked
        // again once on the store's.
        illegal.stale = true;
        return Err(illegal);
    }
    if game.needs_scoring() {
        game.ending = Some(server.ai.score(&game.game).await);
    }
    if let Err(e) = server.store_moves(game, before.game.moves().len()).await {
        *game = before;
        return Err(entry.gone_or(e));
    }
    entry.publish(game);
    let reply = if game.ai_to_move() {
        Some(server.ai_turn(entry, slot, received).await?)
    } else {
        None
    };
    Ok(state_json(&slot.game, reply).into_response())
}

/// The answer to a move request sent again after its move was stored (its answer lost on
/// the way, say): the state and the AI's stored reply, or the AI's reply made now if the
/// server stopped before making it. None if `request` is not such a move.
async fn resent_move(
    server: &Server,
    entry: &Entry,
    slot: &mut Slot,
    request: &MoveRequest,
    received: Instant,
) -> Result<Option<Response>, ApiError> {
    let game = &slot.game;
    let size = game.game.size();
    let next = game.next_number() as u64;
    if request.mv.eq_ignore_ascii_case("resign") {
        let resent = game.client_resigned() && request.number == next;
        return Ok(resent.then(|| state_json(game, None).into_response()));
    }
    if request.number == 0 || request.number >= next {
        return Ok(None);
    }
    let Ok(mv) = Move::parse(&request.mv, size) else {
        return Ok(None);
    };
    // number is from 1 to the moves played.
    let index = request.number as usize - 1;
    let moves = game.game.moves();
    if moves[index] != (game.human, mv) {
        return Ok(None);
    }
    let reply = match moves.get(index + 1) {
        Some(&(color, reply)) if color != game.human => Some(move_text(reply, size)),
        Some(_) => None,
        None if game.ai_resigned() => Some("resign".to_string()),
        None if game.ai_to_move() => Some(server.ai_turn(entry, slot, received).await?),
        None => None,
    };
    Ok(Some(state_json(&slot.game, reply).into_response()))
}

/// `POST /api/games/{key}/genmove` `{number}`: the AI moves (when it is its turn). Sent
/// again after the AI's move was stored, the same answer.
pub async fn genmove(State(server): Shared, path: GameKey, body: Body) -> Reply {
    let received = Instant::now();
    let entry = server.entry(&key_of(path)?).await?;
    let request: NumberRequest = parse(body)?;
    let mut slot = entry.lock(&entry.slot).await?;
    let write = Write::Genmove(request.number, received);
    server.write(&entry, &mut slot, write).await
}

/// [`genmove`] on the game held in `slot`.
async fn genmove_in(
    server: &Server,
    entry: &Entry,
    slot: &mut Slot,
    number: u64,
    received: Instant,
) -> Reply {
    let game = &slot.game;
    let next = game.next_number() as u64;
    if (1..next).contains(&number) {
        // number is from 1 to the moves played.
        let (color, mv) = game.game.moves()[number as usize - 1];
        if color != game.human {
            let reply = move_text(mv, game.game.size());
            return Ok(state_json(game, Some(reply)).into_response());
        }
    }
    if number == next && game.ai_resigned() {
        return Ok(state_json(game, Some("resign".to_string())).into_response());
    }
    check_number(game, number)?;
    if !game.ai_to_move() {
        return Err(
            ApiError::conflict("it is your turn: POST your move to /moves")
                .with("expected", game.next_number()),
        );
    }
    let reply = server.ai_turn(entry, slot, received).await?;
    Ok(state_json(&slot.game, Some(reply)).into_response())
}

/// `POST /api/games/{key}/undo` `{number}`: takes back the client's last move and the AI's
/// reply to it, so that it is the client's turn again; `number` is the state's `number`
/// (the next move's), so that an undo sent twice takes back one move only (the second
/// answers the state).
pub async fn undo(State(server): Shared, path: GameKey, body: Body) -> Reply {
    let entry = server.entry(&key_of(path)?).await?;
    let request: NumberRequest = parse(body)?;
    let mut slot = entry.lock(&entry.slot).await?;
    let write = Write::Undo(request.number);
    server.write(&entry, &mut slot, write).await
}

/// [`undo`] on the game held in `slot`.
async fn undo_in(server: &Server, entry: &Entry, slot: &mut Slot, number: u64) -> Reply {
    let game = &mut slot.game;
    if number != game.next_number() as u64 && game.undone_from.is_some_and(|n| n as u64 == number) {
        return Ok(state_json(game, None).into_response());
    }
    check_next_number(game, number)?;
    if game
        .ending
        .as_ref()
        .is_some_and(|e| e.result.ends_with("+R"))
    {
        return Err(ApiError::conflict(
            "the game ended by resignation: nothing to undo",
        ));
    }
    let Some(keep) = game
        .game
        .moves()
        .iter()
        .rposition(|&(c, _)| c == game.human)
    else {
        return Err(ApiError::conflict("you have no move to take back"));
    };
    let (key, version) = (game.key.clone(), game.version);
    let from = game.next_number();
    game.version = server
        .blocking_store(move |s| s.truncate(&key, version, Undo { keep, from }, now()))
        .await
        .map_err(|e| entry.gone_or(e))?;
    while game.game.moves().len() > keep {
        // There are moves left to take back, so undo succeeds.
        let _ = game.game.undo();
    }
    game.ending = None;
    game.undone_from = Some(from);
    entry.publish(game);
    Ok(state_json(game, None).into_response())
}

/// The analysis limits a request may ask for, and the defaults.
pub const ANALYSIS_PLAYOUTS: std::ops::RangeInclusive<u64> = 1..=100_000;
/// The playouts of an analysis when the request names none.
pub const DEFAULT_ANALYSIS_PLAYOUTS: u64 = 1_500;
/// The time (ms) an analysis may take at most.
pub const ANALYSIS_MS: std::ops::RangeInclusive<u64> = 1..=10_000;
/// The time (ms) of an analysis when the request names none.
pub const DEFAULT_ANALYSIS_MS: u64 = 500;
/// The root moves an analysis lists at most.
pub const ANALYSIS_MOVES: usize = 5;

/// The query of `GET /api/games/{key}/analysis`: `playouts` and `max_ms`, both optional.
fn analysis_limits(query: Option<&str>) -> Result<AnalysisLimits, ApiError> {
    let mut playouts = DEFAULT_ANALYSIS_PLAYOUTS;
    let mut max_ms = DEFAULT_ANALYSIS_MS;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (target, range) = match name {
            "playouts" => (&mut playouts, ANALYSIS_PLAYOUTS),
            "max_ms" => (&mut max_ms, ANALYSIS_MS),
            _ => {
                let shown: String = name.chars().take(20).collect();
                return Err(body_error(
                    Some(shown.clone()),
                    &format!("unknown query parameter `{shown}`: expected `playouts` or `max_ms`"),
                ));
            }
        };
        *target = value
            .parse::<u64>()
            .ok()
            .filter(|v| range.contains(v))
            .ok_or_else(|| {
                body_error(
                    Some(name.to_string()),
                    &format!(
                        "`{}` is not a whole number from {} to {}",
                        value.chars().take(20).collect::<String>(),
                        range.start(),
                        range.end()
                    ),
                )
            })?;
    }
    Ok(AnalysisLimits {
        playouts,
        time: Duration::from_millis(max_ms),
    })
}

/// A share or an ownership from the search as JSON: three decimals, in `[-1, 1]`.
fn share(value: f32) -> Value {
    let value = if value.is_finite() {
        value.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    json!((f64::from(value) * 1000.0).round() / 1000.0)
}

/// A margin as JSON: one decimal, or null when unknown.
fn margin(value: Option<f32>) -> Value {
    match value.filter(|v| v.is_finite()) {
        Some(v) => json!((f64::from(v) * 10.0).round() / 10.0),
        None => Value::Null,
    }
}

/// The answer of `GET /api/games/{key}/analysis` for `game` from `report` (made for the
/// player to move), turned to Black's side.
fn analysis_json(
    game: &ServedGame,
    report: &crate::engine::player::Report,
    limits: AnalysisLimits,
) -> Value {
    let size = game.game.size();
    let black = game.game.to_move() == crate::rules::board::Color::Black;
    let for_black = |rate: f32| if black { rate } else { 1.0 - rate };
    let lead = |score: Option<crate::engine::player::ScoreStats>| {
        score.map(|s| if black { s.mean } else { -s.mean })
    };
    let sign = if black { 1.0 } else { -1.0 };
    let ownership: Vec<Value> = match &report.ownership {
        Some(owned) if owned.len() == size * size => {
            owned.iter().map(|&o| share(sign * o)).collect()
        }
        _ => vec![json!(0.0); size * size],
    };
    let moves: Vec<Value> = report
        .moves
        .iter()
        .take(ANALYSIS_MOVES)
        .map(|m| {
            json!({
                "move": move_text(m.mv, size),
                "visits": m.visits,
                "black_winrate": share(for_black(m.winrate)),
                "black_lead": margin(lead(m.score)),
                "pv": m.pv.iter().map(|&mv| move_text(mv, size)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "key": game.key,
        "number": game.next_number(),
        "to_move": game.game.to_move().letter().to_string(),
        "level": game.level,
        "playouts": report.root.visits,
        "max_playouts": limits.playouts,
        "max_ms": limits.time.as_millis() as u64,
        "black_winrate": share(for_black(report.root.winrate)),
        "black_lead": margin(lead(report.root.score)),
        "ownership": ownership,
        "moves": moves,
    })
}

/// `GET /api/games/{key}/analysis?playouts=N&max_ms=M`: the level's view of the position:
/// Black's win rate and lead, who owns each point, the best moves. One analysis at a time
/// per game, on a worker; the same question about the same position is answered from the
/// last analysis.
pub async fn analysis(State(server): Shared, path: GameKey, RawQuery(query): RawQuery) -> Reply {
    let entry = server.entry(&key_of(path)?).await?;
    let limits = analysis_limits(query.as_deref())?;
    let mut cached = entry.lock(&entry.analysis).await?;
    // The store's copy is read before this analysis's stop flag is in place, so that
    // taking it in here does not stop the analysis.
    let stored = server.current(&entry).await?;
    let stop = Arc::new(AtomicBool::new(false));
    *entry
        .analysis_stop
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Arc::clone(&stop);
    // The copy held is read again after the stop flag is in place: a move made here since
    // is in it, and one made from now on stops this analysis.
    let held = entry.view();
    let game = if held.version > stored.version {
        held
    } else {
        stored
    };
    if let Some(last) = cached.as_ref()
        && last.limits == limits
        && last.moves == game.game.moves()
    {
        return Ok(Json(last.answer.clone()).into_response());
    }
    let report = server
        .ai
        .analyze(&game.game, &game.level, limits, Arc::clone(&stop))
        .await
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the analysis found nothing to report: try again",
            )
        })?;
    let answer = analysis_json(&game, &report, limits);
    if !stop.load(Ordering::Relaxed) {
        *cached = Some(CachedAnalysis {
            moves: game.game.moves().to_vec(),
            limits,
            answer: answer.clone(),
        });
    }
    Ok(Json(answer).into_response())
}
