//! Where `tengen serve` keeps its games so that a restart loses none: one small trait,
//! [`Store`], with two implementations: [`SqliteStore`] (one file, the default) and
//! [`super::pgstore::PgStore`] (a PostgreSQL that several servers share). A game is its
//! settings plus its move list; the server rebuilds the position by replaying the moves, so
//! nothing else needs storing. Every call is synchronous and made off the async threads.
//!
//! Both schemas are versioned: the migrations live in `src/front/serve/migrations/` (one directory
//! per store), numbered from 1, and a store is brought to the newest version when it is
//! opened, under a lock, so that servers starting together migrate it once. A SQLite file
//! written before versions existed is version 0.

use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

/// A game as stored: what `POST /api/games` was given, the moves since and how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// The game's key (its capability).
    pub key: String,
    /// The client that opened it.
    pub client: String,
    /// The board size.
    pub size: usize,
    /// The AI's level.
    pub level: String,
    /// The client's colour, `B` or `W`.
    pub color: char,
    /// Komi.
    pub komi: f64,
    /// Handicap stones (fixed placement).
    pub handicap: usize,
    /// The moves in order, as GTP vertices or `pass`.
    pub moves: Vec<String>,
    /// How the game ended, when it has.
    pub ending: Option<Ending>,
    /// Seconds since the Unix epoch of the last change or request.
    pub last_active: u64,
    /// The client's id of the request that created the game, if it gave one.
    pub request_id: Option<String>,
    /// The `number` of the last undo (the next move's number when it was asked), if any.
    pub undone_from: Option<usize>,
    /// One more with each change of its moves or ending: a change made on a copy whose
    /// version is not the store's is refused.
    pub version: u64,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    /// `B+R`, `W+3.5`, `0`.
    pub result: String,
    /// The stones the scorer found dead (vertices).
    pub dead: Vec<String>,
}

/// Moves to add to a stored game.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMoves {
    /// The number of the first (counting from 1).
    pub first: usize,
    /// The moves, as GTP vertices or `pass`.
    pub moves: Vec<String>,
    /// The ending, if they end the game.
    pub ending: Option<Ending>,
}

/// An undo to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    /// How many moves stay.
    pub keep: usize,
    /// The number the undo was asked with (the next move's then).
    pub from: usize,
}

/// Why a store call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreErrorKind {
    /// The store could not be reached or failed (disk full, connection lost, timeout): the
    /// server answers 503 and changes nothing.
    Unavailable,
    /// A move number, a key or a request id is taken (another request stored it first).
    Taken,
    /// The game is not in the store (deleted or expired).
    Missing,
    /// The client already holds the most unfinished games allowed.
    Limit,
}

/// A store call that failed, and why.
#[derive(Clone, Debug)]
pub struct StoreError {
    /// What kind of failure.
    pub kind: StoreErrorKind,
    /// What happened, for the log.
    pub message: String,
}

impl StoreError {
    /// A failure of the store itself.
    pub fn unavailable(message: impl Into<String>) -> StoreError {
        StoreError {
            kind: StoreErrorKind::Unavailable,
            message: message.into(),
        }
    }

    /// A write refused because what it adds is taken.
    pub fn taken(message: impl Into<String>) -> StoreError {
        StoreError {
            kind: StoreErrorKind::Taken,
            message: message.into(),
        }
    }

    /// A write to a game the store does not hold.
    pub fn missing(key: &str) -> StoreError {
        StoreError {
            kind: StoreErrorKind::Missing,
            message: format!("no game {key}"),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// What a store's calls return.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Fails with [`StoreErrorKind::Taken`] unless `held`, the moves game `key` holds, is `count`.
pub fn holds(key: &str, held: i64, count: usize) -> Result<()> {
    if held != count as i64 {
        return Err(StoreError::taken(format!(
            "game {key} has {held} moves, not {count}: another server changed it"
        )));
    }
    Ok(())
}

/// Succeeds when a write to game `key` changed some row (`rows` > 0); else the game is not there.
pub fn wrote(key: &str, rows: u64) -> Result<()> {
    if rows == 0 {
        return Err(StoreError::missing(key));
    }
    Ok(())
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        let kind = match e.sqlite_error() {
            Some(code) if code.code == ErrorCode::ConstraintViolation => match code.extended_code {
                rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY => StoreErrorKind::Missing,
                _ => StoreErrorKind::Taken,
            },
            _ => StoreErrorKind::Unavailable,
        };
        StoreError {
            kind,
            message: e.to_string(),
        }
    }
}

/// The games' durable home. Each call is one transaction: when it returns `Ok` the change
/// survives the process being killed. A change of a game's moves or ending names the version
/// of the copy it was made on, and is refused when the store holds another (servers sharing
/// the store each hold copies).
pub trait Store: Send + Sync {
    /// Every game held, with its moves.
    fn load_all(&self) -> Result<Vec<StoredGame>>;
    /// The game `key`, if held.
    fn load(&self, key: &str) -> Result<Option<StoredGame>>;
    /// The game that `client` created with the request id `request_id`, if held.
    fn find_request(&self, client: &str, request_id: &str) -> Result<Option<StoredGame>>;
    /// Adds a new game (its `moves` and `ending` too). Fails with [`StoreErrorKind::Taken`]
    /// when its key, or its client's request id, is taken, and with
    /// [`StoreErrorKind::Limit`] when it is unfinished and its client already has `max_open`
    /// unfinished games: counted in the same transaction, one creation of a client's at a
    /// time, so that the limit holds for servers sharing the store.
    fn create_within(&self, game: &StoredGame, max_open: usize) -> Result<()>;
    /// Adds a new game, as [`Store::create_within`] with no limit.
    fn create(&self, game: &StoredGame) -> Result<()> {
        self.create_within(game, usize::MAX)
    }
    /// How many games it holds.
    fn count(&self) -> Result<usize>;
    /// The version of game `key` ([`StoredGame::version`]), if held.
    fn version(&self, key: &str) -> Result<Option<u64>>;
    /// Appends `moves` (and their ending) to the game at `version`; its new version. Fails,
    /// storing nothing, when the game is gone ([`StoreErrorKind::Missing`]), or has ended, or
    /// is at another version, or the first is not the next move, a number taken or left out
    /// ([`StoreErrorKind::Taken`]: another server changed the game).
    fn append(&self, key: &str, version: u64, moves: NewMoves, now: u64) -> Result<u64>;
    /// Keeps the first `undo.keep` moves only of the game at `version`, clears the ending and
    /// notes `undo.from` as its `undone_from`; its new version. Fails with
    /// [`StoreErrorKind::Taken`], changing nothing, unless the game is at `version`, has
    /// `undo.from - 1` moves and did not end by resignation (another server changed it).
    fn truncate(&self, key: &str, version: u64, undo: Undo, now: u64) -> Result<u64>;
    /// Records the ending of the game at `version` that ended without a move (a
    /// resignation); its new version. Fails with [`StoreErrorKind::Taken`] when it has ended
    /// already or is at another version (another server changed it).
    fn finish(&self, key: &str, version: u64, ending: &Ending, now: u64) -> Result<u64>;
    /// Notes that the game was used at `now`; fails with [`StoreErrorKind::Missing`] when
    /// it is not there.
    fn touch(&self, key: &str, now: u64) -> Result<()>;
    /// Removes a game; removing one that is not there is no error.
    fn delete(&self, key: &str) -> Result<()>;
    /// Removes the games last active before `before` but those in `keep` (used since, but
    /// only read); their keys.
    fn expire(&self, before: u64, keep: &[String]) -> Result<Vec<String>>;
    /// Whether the store answers: one trivial query.
    fn ping(&self) -> Result<()>;
    /// Claims for `holder` the computing of the AI's move `number` in game `key`, for `ttl`
    /// by the store's clock: true when `holder` has it (no lease, an expired one, one for
    /// another move, or its own), false while another holder's lease for that move is live.
    fn lease(&self, key: &str, number: usize, holder: &str, ttl: Duration) -> Result<bool>;
    /// Counts a request of `client` toward the request rate that the servers sharing the
    /// store hold together: admitted (`None`) while the client's requests admitted in this
    /// second and the one before, by the store's clock, are fewer than `most`; else refused,
    /// uncounted, with the wait until the next second. A store that one server has to itself
    /// (SQLite) counts nothing and admits every request: that server counts in its memory.
    fn count_request(&self, client: &str, most: u32) -> Result<Option<Duration>> {
        let _ = (client, most);
        Ok(None)
    }
}

/// The refusal of a client's game past `max_open` unfinished ones.
pub fn over_limit(client: &str, max_open: usize) -> StoreError {
    StoreError {
        kind: StoreErrorKind::Limit,
        message: format!(
            "client: `{client}` already has {max_open} unfinished games, the most allowed: finish or DELETE one first"
        ),
    }
}

/// The refusal of a change to game `key`, which ended (`result`) meanwhile.
pub fn ended(key: &str, result: &str) -> StoreError {
    StoreError::taken(format!(
        "game {key} is over ({result}) in the store: another server ended it"
    ))
}

/// The refusal of a change to game `key` made on a copy at `version`, which the store holds
/// at `held` (another server changed it since).
pub fn stale(key: &str, held: u64, version: u64) -> StoreError {
    StoreError::taken(format!(
        "game {key} is at version {held} in the store, not {version}: another server changed it"
    ))
}

/// Whether `result` is a resignation's (`B+R`, `W+R`), which no undo takes back.
pub fn is_resignation(result: &str) -> bool {
    result.ends_with("+R")
}

/// Takes a lease ([`Store::lease`]): `?1` key, `?2` number, `?3` holder, `?4` seconds; one
/// row changed when granted. SQLite's clock in seconds since 1970 is `julianday` rebased.
const LEASE_SQLITE: &str = "INSERT INTO ai_leases (key, number, holder, expires)
     VALUES (?1, ?2, ?3, (julianday('now') - 2440587.5) * 86400.0 + ?4)
     ON CONFLICT (key) DO UPDATE SET number = excluded.number, holder = excluded.holder,
         expires = excluded.expires
     WHERE ai_leases.expires < (julianday('now') - 2440587.5) * 86400.0
         OR ai_leases.number <> excluded.number OR ai_leases.holder = excluded.holder";

/// The SQLite schema's migrations, in order: migration `n` (from 1) brings version `n - 1`
/// to `n`.
const SQLITE_MIGRATIONS: [&str; 5] = [
    include_str!("migrations/sqlite/0001_games.sql"),
    include_str!("migrations/sqlite/0002_retries.sql"),
    include_str!("migrations/sqlite/0003_ai_leases.sql"),
    include_str!("migrations/sqlite/0004_request_counts.sql"),
    include_str!("migrations/sqlite/0005_versions.sql"),
];

/// The schema version this build writes (both stores have the same versions).
pub const SCHEMA_VERSION: usize = SQLITE_MIGRATIONS.len();

/// How long opening a file or a write waits for another connection's lock.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// SQLite in one file, in WAL mode with `synchronous = FULL`: a commit is on disk when it
/// returns, so neither `kill -9` nor a power cut loses an acknowledged move.
///
/// Writes that arrive while another commits are committed together (group commit): each in
/// a savepoint of its own, so one that fails changes nothing and the others still count, then
/// one commit, one wait for the disk, for all. Each call still returns only once its change is
/// on disk.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    waiting: Mutex<Vec<(Write, Arc<Outcome>)>>,
}

/// One write, run inside a savepoint of the group's transaction.
type Write = Box<dyn FnOnce(&Connection) -> Result<()> + Send>;

/// Where the group's committer leaves a write's result.
type Outcome = Mutex<Option<Result<()>>>;

/// The columns of `games` that [`GameRow`] holds, in its order (both stores).
pub(super) const GAME_COLUMNS: &str = "key, client, size, level, color, komi, handicap, result, dead, last_active, request_id, undone_from, version";

/// A row of [`GAME_COLUMNS`] as either store reads it (its integers widened to 64 bits).
pub(super) struct GameRow {
    pub key: String,
    pub client: String,
    pub size: i64,
    pub level: String,
    pub color: String,
    pub komi: f64,
    pub handicap: i64,
    pub result: Option<String>,
    pub dead: String,
    pub last_active: i64,
    pub request_id: Option<String>,
    pub undone_from: Option<i64>,
    pub version: i64,
}

impl GameRow {
    /// The game the row describes, without its moves.
    pub(super) fn into_game(self) -> StoredGame {
        StoredGame {
            key: self.key,
            client: self.client,
            size: usize::try_from(self.size).unwrap_or(0),
            level: self.level,
            color: self.color.chars().next().unwrap_or('B'),
            komi: self.komi,
            handicap: usize::try_from(self.handicap).unwrap_or(usize::MAX),
            moves: Vec::new(),
            ending: self.result.map(|result| Ending {
                result,
                dead: self.dead.split_whitespace().map(str::to_string).collect(),
            }),
            last_active: u64::try_from(self.last_active).unwrap_or(0),
            request_id: self.request_id,
            undone_from: self.undone_from.and_then(|n| usize::try_from(n).ok()),
            version: u64::try_from(self.version).unwrap_or(0),
        }
    }
}

/// Brings the schema of `conn`'s database to [`SCHEMA_VERSION`], in one transaction that
/// holds SQLite's write lock from its start, so that of several processes opening the file
/// at once, one migrates and the others find it done. Its version before.
fn migrate_sqlite(conn: &mut Connection) -> Result<usize> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > SCHEMA_VERSION {
        return Err(StoreError::unavailable(format!(
            "its schema is version {version}, newer than this tengen's {SCHEMA_VERSION}: run a newer tengen"
        )));
    }
    for (n, migration) in SQLITE_MIGRATIONS.iter().enumerate().skip(version) {
        tx.execute_batch(migration)
            .map_err(|e| StoreError::unavailable(format!("migration {}: {e}", n + 1)))?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION as i64)?;
    tx.commit()?;
    Ok(version)
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, migrated to [`SCHEMA_VERSION`];
    /// `:memory:` keeps it in memory.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        let at = |e: StoreError| StoreError {
            message: format!("{}: {}", path.display(), e.message),
            ..e
        };
        let mut conn = Connection::open(path)
            .map_err(|e| StoreError::unavailable(format!("{}: {e}", path.display())))?;
        conn.busy_timeout(BUSY_WAIT)?;
        // journal_mode answers with a row, so it is queried, not executed. Switching a file
        // that another connection is writing (another server opening it too) fails at once
        // rather than wait in the busy handler, which could deadlock there: it is tried again.
        let started = Instant::now();
        let _mode: String = loop {
            match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
                Err(e)
                    if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                        && started.elapsed() < BUSY_WAIT =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                answer => break answer.map_err(|e| at(e.into()))?,
            }
        };
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
        migrate_sqlite(&mut conn).map_err(at)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            waiting: Mutex::new(Vec::new()),
        })
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<usize> {
        let version: i64 = self
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        Ok(usize::try_from(version).unwrap_or(0))
    }

    /// Runs `write` in a transaction and commits it, with the writes that queued meanwhile;
    /// returns once it is on disk.
    fn write(&self, write: impl FnOnce(&Connection) -> Result<()> + Send + 'static) -> Result<()> {
        let outcome: Arc<Outcome> = Arc::new(Mutex::new(None));
        self.queue().push((Box::new(write), Arc::clone(&outcome)));
        let mut conn = self.conn();
        // The writer before us may have committed ours with its own.
        if let Some(done) = lock(&outcome).take() {
            return done;
        }
        let group = std::mem::take(&mut *self.queue());
        let (writes, outcomes): (Vec<Write>, Vec<Arc<Outcome>>) = group.into_iter().unzip();
        match commit_group(&mut conn, writes) {
            Ok(results) => {
                for (outcome, result) in outcomes.iter().zip(results) {
                    *lock(outcome) = Some(result);
                }
            }
            Err(e) => {
                for outcome in &outcomes {
                    *lock(outcome) = Some(Err(e.clone()));
                }
            }
        }
        lock(&outcome)
            .take()
            .unwrap_or_else(|| Err(StoreError::unavailable("the write was lost")))
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Vec<(Write, Arc<Outcome>)>> {
        lock(&self.waiting)
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        lock(&self.conn)
    }

    /// The games (with their moves) that `filter` (a `WHERE` clause) selects with `args`.
    fn select(&self, filter: &str, args: impl rusqlite::Params) -> Result<Vec<StoredGame>> {
        let conn = self.conn();
        let mut games = conn.prepare(&format!(
            "SELECT {GAME_COLUMNS} FROM games {filter} ORDER BY created, key"
        ))?;
        let mut moves =
            conn.prepare_cached("SELECT move FROM moves WHERE key = ?1 ORDER BY number")?;
        let rows = games.query_map(args, sqlite_game)?;
        let mut out = Vec::new();
        for row in rows {
            let mut game = row?;
            game.moves = moves
                .query_map([&game.key], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            out.push(game);
        }
        Ok(out)
    }
}

/// A SQLite row of [`GAME_COLUMNS`] as a game without its moves.
fn sqlite_game(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredGame> {
    let row = GameRow {
        key: r.get(0)?,
        client: r.get(1)?,
        size: r.get(2)?,
        level: r.get(3)?,
        color: r.get(4)?,
        komi: r.get(5)?,
        handicap: r.get(6)?,
        result: r.get(7)?,
        dead: r.get(8)?,
        last_active: r.get(9)?,
        request_id: r.get(10)?,
        undone_from: r.get(11)?,
        version: r.get(12)?,
    };
    Ok(row.into_game())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding one of the store's locks cannot leave a transaction half done
    // (it rolls back on drop), so a poisoned lock is still good.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `writes` in one transaction, each in a savepoint (one that fails is rolled back
/// alone), and commits: each write's result, or the error that lost them all. The
/// transaction takes the write lock as it begins (`BEGIN IMMEDIATE`): the writes read
/// first, and a read transaction of WAL mode that another connection (a server sharing the
/// file) writes past cannot become a write one; it would fail at once, `SQLITE_BUSY`,
/// without waiting for the lock.
fn commit_group(conn: &mut Connection, writes: Vec<Write>) -> Result<Vec<Result<()>>, StoreError> {
    let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut results = Vec::with_capacity(writes.len());
    for write in writes {
        let savepoint = tx.savepoint()?;
        let result = write(&savepoint);
        if result.is_ok() {
            savepoint.commit()?;
        }
        results.push(result);
    }
    tx.commit()?;
    Ok(results)
}

/// The result of game `key` (none while unfinished); [`StoreErrorKind::Missing`] when it
/// is not there.
fn result_of(tx: &Connection, key: &str) -> Result<Option<String>> {
    tx.query_row("SELECT result FROM games WHERE key = ?1", [key], |r| {
        r.get(0)
    })
    .optional()?
    .ok_or_else(|| StoreError::missing(key))
}

/// Moves game `key` from `version` to the next; fails with [`StoreErrorKind::Taken`] when
/// it is at another version, and with [`StoreErrorKind::Missing`] when it is not there.
fn advance(tx: &Connection, key: &str, version: u64) -> Result<u64> {
    let held: i64 = tx
        .query_row("SELECT version FROM games WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .optional()?
        .ok_or_else(|| StoreError::missing(key))?;
    let held = u64::try_from(held).unwrap_or(0);
    if held != version {
        return Err(stale(key, held, version));
    }
    tx.execute(
        "UPDATE games SET version = ?2 WHERE key = ?1",
        params![key, (version + 1) as i64],
    )?;
    Ok(version + 1)
}

/// Fails with [`StoreErrorKind::Taken`] unless game `key` has `count` moves.
fn check_count(tx: &Connection, key: &str, count: usize) -> Result<()> {
    let held: i64 = tx.query_row(
        "SELECT COALESCE(MAX(number), 0) FROM moves WHERE key = ?1",
        [key],
        |r| r.get(0),
    )?;
    holds(key, held, count)
}

fn insert_moves(tx: &Connection, key: &str, first: usize, moves: &[String]) -> Result<()> {
    let mut insert =
        tx.prepare_cached("INSERT INTO moves (key, number, move) VALUES (?1, ?2, ?3)")?;
    for (i, mv) in moves.iter().enumerate() {
        insert.execute(params![key, (first + i) as i64, mv])?;
    }
    Ok(())
}

/// Sets the ending (none: unfinished) and the time of the last change; fails when the game
/// is not there.
fn set_ending(tx: &Connection, key: &str, ending: Option<&Ending>, now: u64) -> Result<()> {
    let changed = tx.execute(
        "UPDATE games SET result = ?2, dead = ?3, last_active = ?4 WHERE key = ?1",
        params![
            key,
            ending.map(|e| e.result.as_str()),
            ending.map_or(String::new(), |e| e.dead.join(" ")),
            now as i64
        ],
    )?;
    wrote(key, changed as u64)
}

impl Store for SqliteStore {
    fn lease(&self, key: &str, number: usize, holder: &str, ttl: Duration) -> Result<bool> {
        let (key, holder) = (key.to_string(), holder.to_string());
        let taken = Arc::new(AtomicBool::new(false));
        let granted = Arc::clone(&taken);
        self.write(move |tx| {
            let rows = tx.execute(
                LEASE_SQLITE,
                params![key, number as i64, holder, ttl.as_secs_f64()],
            )?;
            granted.store(rows == 1, Ordering::Relaxed);
            Ok(())
        })?;
        Ok(taken.load(Ordering::Relaxed))
    }

    fn ping(&self) -> Result<()> {
        self.conn().query_row("SELECT 1", [], |_| Ok(()))?;
        Ok(())
    }

    fn load_all(&self) -> Result<Vec<StoredGame>> {
        self.select("", [])
    }

    fn load(&self, key: &str) -> Result<Option<StoredGame>> {
        Ok(self.select("WHERE key = ?1", [key])?.pop())
    }

    fn find_request(&self, client: &str, request_id: &str) -> Result<Option<StoredGame>> {
        Ok(self
            .select(
                "WHERE client = ?1 AND request_id = ?2",
                [client, request_id],
            )?
            .pop())
    }

    fn count(&self) -> Result<usize> {
        let count: i64 = self
            .conn()
            .query_row("SELECT count(*) FROM games", [], |r| r.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    fn create_within(&self, game: &StoredGame, max_open: usize) -> Result<()> {
        let game = game.clone();
        self.write(move |tx| {
            if game.ending.is_none() {
                let open: i64 = tx.query_row(
                    "SELECT count(*) FROM games WHERE client = ?1 AND result IS NULL",
                    [&game.client],
                    |r| r.get(0),
                )?;
                if usize::try_from(open).unwrap_or(usize::MAX) >= max_open {
                    return Err(over_limit(&game.client, max_open));
                }
            }
            tx.execute(
                "INSERT INTO games (key, client, size, level, color, komi, handicap, created,
                                    last_active, request_id, undone_from, version)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10, ?11)",
                params![
                    game.key,
                    game.client,
                    game.size as i64,
                    game.level,
                    game.color.to_string(),
                    game.komi,
                    game.handicap as i64,
                    game.last_active as i64,
                    game.request_id,
                    game.undone_from.map(|n| n as i64),
                    game.version as i64,
                ],
            )?;
            insert_moves(tx, &game.key, 1, &game.moves)?;
            set_ending(tx, &game.key, game.ending.as_ref(), game.last_active)
        })
    }

    fn version(&self, key: &str) -> Result<Option<u64>> {
        let version: Option<i64> = self
            .conn()
            .query_row("SELECT version FROM games WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(version.map(|v| u64::try_from(v).unwrap_or(0)))
    }

    fn append(&self, key: &str, version: u64, moves: NewMoves, now: u64) -> Result<u64> {
        let key = key.to_string();
        self.write(move |tx| {
            if let Some(result) = result_of(tx, &key)? {
                return Err(ended(&key, &result));
            }
            advance(tx, &key, version)?;
            check_count(tx, &key, moves.first.saturating_sub(1))?;
            insert_moves(tx, &key, moves.first, &moves.moves)?;
            set_ending(tx, &key, moves.ending.as_ref(), now)
        })?;
        Ok(version + 1)
    }

    fn truncate(&self, key: &str, version: u64, undo: Undo, now: u64) -> Result<u64> {
        let key = key.to_string();
        self.write(move |tx| {
            if let Some(result) = result_of(tx, &key)?.filter(|r| is_resignation(r)) {
                return Err(ended(&key, &result));
            }
            advance(tx, &key, version)?;
            check_count(tx, &key, undo.from.saturating_sub(1))?;
            tx.execute(
                "DELETE FROM moves WHERE key = ?1 AND number > ?2",
                params![key, undo.keep as i64],
            )?;
            tx.execute(
                "UPDATE games SET undone_from = ?2 WHERE key = ?1",
                params![key, undo.from as i64],
            )?;
            set_ending(tx, &key, None, now)
        })?;
        Ok(version + 1)
    }

    fn finish(&self, key: &str, version: u64, ending: &Ending, now: u64) -> Result<u64> {
        let (key, ending) = (key.to_string(), ending.clone());
        self.write(move |tx| {
            if let Some(result) = result_of(tx, &key)? {
                return Err(ended(&key, &result));
            }
            advance(tx, &key, version)?;
            set_ending(tx, &key, Some(&ending), now)
        })?;
        Ok(version + 1)
    }

    fn touch(&self, key: &str, now: u64) -> Result<()> {
        let key = key.to_string();
        self.write(move |tx| {
            let changed = tx.execute(
                "UPDATE games SET last_active = ?2 WHERE key = ?1",
                params![key, now as i64],
            )?;
            wrote(&key, changed as u64)
        })
    }

    fn delete(&self, key: &str) -> Result<()> {
        let key = key.to_string();
        self.write(move |tx| {
            tx.execute("DELETE FROM games WHERE key = ?1", params![key])?;
            Ok(())
        })
    }

    fn expire(&self, before: u64, keep: &[String]) -> Result<Vec<String>> {
        let mut conn = self.conn();
        // It reads before it deletes: the write lock first, as for every write.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let keys: Vec<String> = tx
            .prepare("SELECT key FROM games WHERE last_active < ?1")?
            .query_map([before as i64], |r| r.get(0))?
            .filter(|key| !matches!(key, Ok(key) if keep.contains(key)))
            .collect::<Result<_, _>>()?;
        {
            let mut delete = tx.prepare("DELETE FROM games WHERE key = ?1")?;
            for key in &keys {
                delete.execute([key])?;
            }
        }
        tx.commit()?;
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty directory under the system's temporary one, named `name` and the process id.
    fn empty_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn game(key: &str, moves: &[&str]) -> StoredGame {
        StoredGame {
            key: key.to_string(),
            client: "c".to_string(),
            size: 9,
            level: "easy".to_string(),
            color: 'B',
            komi: 7.5,
            handicap: 0,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ending: None,
            last_active: 100,
            request_id: None,
            undone_from: None,
            version: 0,
        }
    }

    /// `moves` numbered from `first`, ending nothing.
    fn new_moves(first: usize, moves: &[&str]) -> NewMoves {
        NewMoves {
            first,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ending: None,
        }
    }

    #[test]
    fn moves_endings_undo_and_expiry_round_trip() {
        let store = SqliteStore::open(Path::new(":memory:")).unwrap();
        store.create(&game("a", &["D4"])).unwrap();
        store.create(&game("b", &[])).unwrap();
        let version = store
            .append("a", 0, new_moves(2, &["E5", "pass"]), 150)
            .unwrap();
        assert_eq!(version, 1);
        // A number already taken stores nothing.
        assert!(store.append("a", 1, new_moves(3, &["F6"]), 150).is_err());
        // Nor does a game that is not there.
        assert!(store.append("zz", 0, new_moves(1, &["F6"]), 150).is_err());
        let ending = Ending {
            result: "W+R".to_string(),
            dead: vec!["D4".to_string()],
        };
        assert_eq!(store.finish("b", 0, &ending, 160).unwrap(), 1);
        let all = store.load_all().unwrap();
        assert_eq!(all[0].moves, ["D4", "E5", "pass"]);
        assert_eq!(all[0].last_active, 150);
        assert_eq!(all[1].ending.as_ref(), Some(&ending));
        assert_eq!(
            store
                .truncate("a", 1, Undo { keep: 1, from: 4 }, 170)
                .unwrap(),
            2
        );
        assert_eq!(store.load_all().unwrap()[0].moves, ["D4"]);
        let a = store.load("a").unwrap().unwrap();
        assert_eq!((a.undone_from, a.version), (Some(4), 2));
        assert_eq!(store.version("a").unwrap(), Some(2));
        assert_eq!(store.version("zz").unwrap(), None);
        assert_eq!(store.expire(165, &[]).unwrap(), ["b"]);
        store.delete("a").unwrap();
        assert!(store.load_all().unwrap().is_empty());
    }

    #[test]
    fn an_ended_game_takes_no_move_nor_resignation_and_a_resigned_one_no_undo() {
        let store = SqliteStore::open(Path::new(":memory:")).unwrap();
        store.create(&game("a", &["D4", "E5"])).unwrap();
        let resigned = Ending {
            result: "W+R".to_string(),
            dead: Vec::new(),
        };
        store.finish("a", 0, &resigned, 150).unwrap();
        for refused in [
            store.append("a", 1, new_moves(3, &["F6"]), 160),
            store.finish("a", 1, &resigned, 160),
            store.truncate("a", 1, Undo { keep: 0, from: 3 }, 160),
        ] {
            assert_eq!(refused.unwrap_err().kind, StoreErrorKind::Taken);
        }
        let a = store.load("a").unwrap().unwrap();
        assert_eq!((a.moves.len(), a.ending), (2, Some(resigned)));
        // A game ended by its moves may be undone.
        let passes = Ending {
            result: "B+0.5".to_string(),
            dead: Vec::new(),
        };
        store
            .create(&StoredGame {
                ending: Some(passes),
                ..game("b", &["pass", "pass"])
            })
            .unwrap();
        store
            .truncate("b", 0, Undo { keep: 0, from: 3 }, 160)
            .unwrap();
        store.touch("b", 170).unwrap();
        assert_eq!(
            store.touch("zz", 170).unwrap_err().kind,
            StoreErrorKind::Missing
        );
    }

    #[test]
    fn concurrent_writes_commit_together_and_a_failed_one_alone_changes_nothing() {
        let dir = empty_dir("tengen-store");
        let store = Arc::new(SqliteStore::open(&dir.join("games.sqlite")).unwrap());
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    let key = format!("g{t}");
                    store.create(&game(&key, &[])).unwrap();
                    for n in 1..=30 {
                        let version = n as u64 - 1;
                        store
                            .append(&key, version, new_moves(n, &[&format!("m{n}")]), 100)
                            .unwrap();
                        // A number already taken fails, in whatever group it lands.
                        let taken = store.append(&key, version + 1, new_moves(n, &["x"]), 100);
                        assert!(taken.is_err());
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let all = store.load_all().unwrap();
        assert_eq!(all.len(), 8);
        for game in all {
            let expected: Vec<String> = (1..=30).map(|n| format!("m{n}")).collect();
            assert_eq!(game.moves, expected, "{}", game.key);
        }
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The schema every tengen wrote before schema versions existed (version 0).
    const VERSION_0: &str = "
        CREATE TABLE games (
            key TEXT PRIMARY KEY, client TEXT NOT NULL, size INTEGER NOT NULL,
            level TEXT NOT NULL, color TEXT NOT NULL, komi REAL NOT NULL,
            handicap INTEGER NOT NULL, result TEXT, dead TEXT NOT NULL DEFAULT '',
            created INTEGER NOT NULL, last_active INTEGER NOT NULL);
        CREATE TABLE moves (
            key TEXT NOT NULL REFERENCES games(key) ON DELETE CASCADE,
            number INTEGER NOT NULL, move TEXT NOT NULL,
            PRIMARY KEY (key, number)) WITHOUT ROWID;
        INSERT INTO games VALUES ('old', 'c', 9, 'easy', 'B', 7.5, 0, NULL, '', 50, 60);
        INSERT INTO moves VALUES ('old', 1, 'E5'), ('old', 2, 'D4');
    ";

    #[test]
    fn a_file_without_a_version_is_migrated_and_keeps_its_games() {
        let dir = empty_dir("tengen-store-v0");
        let path = dir.join("games.sqlite");
        Connection::open(&path)
            .unwrap()
            .execute_batch(VERSION_0)
            .unwrap();
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let old = store.load("old").unwrap().unwrap();
        assert_eq!(old.moves, ["E5", "D4"]);
        assert_eq!((old.last_active, old.request_id), (60, None));
        // The new columns work, and reopening migrates nothing twice.
        store
            .create(&StoredGame {
                request_id: Some("r1".into()),
                ..game("new", &[])
            })
            .unwrap();
        drop(store);
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.find_request("c", "r1").unwrap().unwrap().key, "new");
        drop(store);
        // A file from a newer tengen is refused, not damaged.
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", 99)
            .unwrap();
        let newer = SqliteStore::open(&path).err().unwrap();
        assert!(newer.message.contains("newer"), "{newer}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_another_connection_is_writing_opens_once_it_is_done() {
        let dir = empty_dir("tengen-store-busy");
        let path = dir.join("games.sqlite");
        // A file in rollback mode whose writer holds its reserved lock for a moment: SQLite
        // answers the switch to WAL at once with "database is locked", without waiting.
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("CREATE TABLE other (x); BEGIN IMMEDIATE; INSERT INTO other VALUES (1);")
            .unwrap();
        let done = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            writer.execute_batch("COMMIT").unwrap();
        });
        let store = SqliteStore::open(&path);
        done.join().unwrap();
        assert_eq!(store.unwrap().schema_version().unwrap(), SCHEMA_VERSION);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn three_servers_opening_a_new_file_at_once_migrate_it_once() {
        let dir = empty_dir("tengen-store-3");
        let path = dir.join("games.sqlite");
        let barrier = Arc::new(std::sync::Barrier::new(3));
        let opened: Vec<_> = (0..3)
            .map(|_| {
                let (path, barrier) = (path.clone(), Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    SqliteStore::open(&path).map(|_| ())
                })
            })
            .collect();
        for thread in opened {
            // Migration 2 adds columns: run twice, it would fail.
            thread.join().unwrap().unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
