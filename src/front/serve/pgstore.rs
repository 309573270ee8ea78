//! The games in PostgreSQL, for several `tengen serve` processes sharing one set of games:
//! [`PgStore`], the [`Store`] trait on a pool of blocking connections (the `postgres` client
//! and `r2d2`). The server calls its store off the async threads already (SQLite blocks as
//! well), so the blocking client keeps one store interface for both.
//!
//! The address is a URL without a password (`postgres://USER@HOST:PORT/DB`); the password
//! comes from `PGPASSWORD` or the password file (`PGPASSFILE`, else `~/.pgpass`), as for
//! `psql`. Each statement runs under a `statement_timeout`, a connection is tested before
//! each use, and one that broke (the database restarted) is replaced: a call made while the
//! database is down fails with [`StoreErrorKind::Unavailable`], and the calls after it
//! succeed again once it is back.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::types::Type;
use postgres::{Client, GenericClient, IsolationLevel, NoTls};
use r2d2_postgres::PostgresConnectionManager;
use r2d2_postgres::r2d2::{HandleError, Pool, PooledConnection};

use super::store::{
    Ending, GAME_COLUMNS, GameRow, NewMoves, Result, SCHEMA_VERSION, Store, StoreError,
    StoreErrorKind, StoredGame, Undo, ended, holds, is_resignation, over_limit, stale, wrote,
};

/// The PostgreSQL schema's migrations, in order: migration `n` (from 1) brings version
/// `n - 1` to `n` (the same versions as the SQLite store's).
const MIGRATIONS: [&str; SCHEMA_VERSION] = [
    include_str!("migrations/postgres/0001_games.sql"),
    include_str!("migrations/postgres/0002_retries.sql"),
    include_str!("migrations/postgres/0003_ai_leases.sql"),
    include_str!("migrations/postgres/0004_request_counts.sql"),
    include_str!("migrations/postgres/0005_versions.sql"),
];

/// The longest [`Store::ping`] waits for a connection: a health check answers well within
/// a balancer's check timeout, even while the database is down.
const PING_TIMEOUT: Duration = Duration::from_secs(1);

/// The longest [`Store::count_request`] waits for a connection: a request is not held up
/// long by a count while the database is down (the server then counts in its memory).
const COUNT_TIMEOUT: Duration = Duration::from_millis(500);

/// Counts a request ([`Store::count_request`]): `$1` client, `$2` the most requests in two
/// seconds. The row of this second is added to, or made, only while it and the last
/// second's row (read first) hold fewer than `$2`; the answer is whether it was, and the
/// seconds until the next second.
const COUNT_REQUEST: &str = "
    WITH clock AS (
        SELECT extract(epoch FROM now())::float8 AS at,
               floor(extract(epoch FROM now()))::bigint AS second
    ), before AS (
        SELECT COALESCE((SELECT r.count FROM request_counts r, clock
                         WHERE r.client = $1 AND r.second = clock.second - 1), 0) AS count
    ), counted AS (
        INSERT INTO request_counts AS r (client, second, count)
        SELECT $1, clock.second, 1 FROM clock, before WHERE before.count < $2
        ON CONFLICT (client, second) DO UPDATE SET count = r.count + 1
            WHERE r.count + (SELECT count FROM before) < $2
        RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM counted), (SELECT 1.0 - (at - second) FROM clock)";

/// A move (or a move and the AI's reply) appended in one statement, so in one round trip and one
/// commit: game $1's row locked, and the moves $2 (numbers) / $3 (moves) inserted, the ending
/// ($5 result, $6 dead stones) and last use ($7) set and the version moved on from $8 only if
/// it is unfinished, at version $8 and holds $4 moves. Its one row (none: no such game) says
/// what it found. Two servers appending the same number at once: the `(key, number)` key
/// refuses the second.
const APPEND: &str = "
    WITH game AS (
        SELECT result, version,
               (SELECT COALESCE(MAX(number), 0) FROM moves WHERE key = $1) AS held
        FROM games WHERE key = $1 FOR UPDATE
    ), inserted AS (
        INSERT INTO moves (key, number, move)
        SELECT $1, n, m FROM game, unnest($2::integer[], $3::text[]) AS t(n, m)
        WHERE game.result IS NULL AND game.version = $8 AND game.held = $4
        RETURNING 1
    ), updated AS (
        UPDATE games SET result = $5, dead = $6, last_active = $7, version = $8 + 1
        FROM game
        WHERE games.key = $1 AND game.result IS NULL AND game.version = $8 AND game.held = $4
        RETURNING 1
    )
    SELECT result, version, held FROM game";

/// The advisory lock that migrations run under (any fixed number, the same for every
/// tengen): "tengen" in ASCII.
const MIGRATION_LOCK: i64 = 0x7465_6e67_656e;

/// The advisory lock that expiry runs under, so that one server expires at a time:
/// "expire" in ASCII.
const EXPIRY_LOCK: i64 = 0x6578_7069_7265;

/// The longest a migration (or the wait for another server's) may take.
const MIGRATION_TIMEOUT: Duration = Duration::from_secs(60);

/// How the pool and its connections behave.
#[derive(Clone, Debug)]
pub struct PgSettings {
    /// Connections held at most (and kept open).
    pub pool_size: u32,
    /// The longest one statement may run on the server (`statement_timeout`), and the
    /// longest a call waits for a free connection.
    pub statement_timeout: Duration,
    /// The longest a new connection may take to open.
    pub connect_timeout: Duration,
}

impl Default for PgSettings {
    fn default() -> PgSettings {
        PgSettings {
            pool_size: 16,
            statement_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
        }
    }
}

/// `url` with the password it holds, if any, replaced by `***` (for messages).
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}{}", &rest[authority_end..])
        }
        _ => url.to_string(),
    }
}

/// Whether `store` (the `--store` argument) names a PostgreSQL database rather than a file.
pub fn is_url(store: &str) -> bool {
    store.starts_with("postgres://") || store.starts_with("postgresql://")
}

/// The connection settings of `url`, which must not hold a password (a command line is
/// visible to every user of the machine).
pub fn parse_url(url: &str) -> Result<postgres::Config, String> {
    let config = postgres::Config::from_str(url).map_err(|e| format!("{}: {e}", redacted(url)))?;
    if config.get_password().is_some() {
        return Err(
            "the URL holds a password: give it in PGPASSWORD or ~/.pgpass instead".to_string(),
        );
    }
    if config.get_user().is_none() {
        return Err(format!("{url}: no user (postgres://USER@HOST:PORT/DB)"));
    }
    Ok(config)
}

/// The password for `config`'s connection: `PGPASSWORD` (`env_password`) if set, else the
/// first matching line of the password file `passfile` (ignored, with a warning, when others
/// than its owner may read it, as libpq does).
pub fn find_password(
    config: &postgres::Config,
    env_password: Option<String>,
    passfile: Option<&Path>,
) -> Option<String> {
    if let Some(password) = env_password.filter(|p| !p.is_empty()) {
        return Some(password);
    }
    let path = passfile?;
    let metadata = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o077 != 0 {
            log::warn!(
                "{}: readable by others than its owner (chmod 0600 it): not used",
                path.display()
            );
            return None;
        }
    }
    if !metadata.is_file() || metadata.len() > 1 << 20 {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(host)) => host.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default();
    let database = config.get_dbname().unwrap_or(user);
    pgpass_lookup(&text, &host, &port, database, user)
}

/// The default password file: `PGPASSFILE`, else `~/.pgpass`.
pub fn default_passfile() -> Option<PathBuf> {
    match std::env::var_os("PGPASSFILE") {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => dirs::home_dir().map(|home| home.join(".pgpass")),
    }
}

/// The password of the first line of a password file (`host:port:database:user:password`,
/// `*` matching anything, `\:` and `\\` escaped, `#` lines comments) that matches.
pub fn pgpass_lookup(
    text: &str,
    host: &str,
    port: &str,
    database: &str,
    user: &str,
) -> Option<String> {
    let wanted = [host, port, database, user];
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let fields = split_pgpass(line);
            if fields.len() != 5 {
                return None;
            }
            let matches = wanted
                .iter()
                .zip(&fields)
                .all(|(want, field)| field == "*" || field == want);
            matches.then(|| fields[4].clone())
        })
}

/// A password-file line's fields, unescaped.
fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => field.extend(chars.next()),
            ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
            _ => field.push(ch),
        }
    }
    fields.push(field);
    fields
}

/// The games in a PostgreSQL database, through a pool of connections.
pub struct PgStore {
    pool: Pool<PostgresConnectionManager<NoTls>>,
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        let kind = match e.code() {
            Some(code) if *code == SqlState::UNIQUE_VIOLATION => StoreErrorKind::Taken,
            Some(code) if *code == SqlState::FOREIGN_KEY_VIOLATION => StoreErrorKind::Missing,
            _ => StoreErrorKind::Unavailable,
        };
        StoreError {
            kind,
            message: format!("postgresql: {}", describe(&e)),
        }
    }
}

/// What went wrong: the database's own message, or the client's with its cause (`error
/// connecting to server: Connection refused`).
fn describe(e: &postgres::Error) -> String {
    match (e.as_db_error(), std::error::Error::source(e)) {
        (Some(db), _) => db.message().to_string(),
        (None, Some(cause)) => format!("{e}: {cause}"),
        (None, None) => e.to_string(),
    }
}

/// Logs the pool's failures to connect (made in its own threads), with their cause.
#[derive(Debug)]
struct LogConnectError;

impl HandleError<postgres::Error> for LogConnectError {
    fn handle_error(&self, error: postgres::Error) {
        log::error!("postgresql: {}", describe(&error));
    }
}

impl From<r2d2_postgres::r2d2::Error> for StoreError {
    fn from(e: r2d2_postgres::r2d2::Error) -> StoreError {
        StoreError::unavailable(format!("postgresql: no connection: {e}"))
    }
}

impl PgStore {
    /// Connects to `url` (see [`parse_url`]) with `password`, and brings its schema to
    /// [`SCHEMA_VERSION`] under an advisory lock, so that servers starting together migrate
    /// it once.
    pub fn open(url: &str, password: Option<String>, settings: &PgSettings) -> Result<PgStore> {
        let mut config = parse_url(url).map_err(StoreError::unavailable)?;
        if let Some(password) = password {
            config.password(password);
        }
        config
            .application_name("tengen serve")
            .connect_timeout(settings.connect_timeout)
            .options(&format!(
                "-c statement_timeout={}",
                settings.statement_timeout.as_millis().max(1)
            ));
        let manager = PostgresConnectionManager::new(config, NoTls);
        let pool = Pool::builder()
            .max_size(settings.pool_size.max(1))
            .min_idle(Some(1))
            .error_handler(Box::new(LogConnectError))
            .connection_timeout(settings.statement_timeout.max(settings.connect_timeout))
            .build_unchecked(manager);
        let store = PgStore { pool };
        let mut conn = store.conn()?;
        migrate(&mut conn)?;
        Ok(store)
    }

    fn conn(&self) -> Result<PooledConnection<PostgresConnectionManager<NoTls>>> {
        Ok(self.pool.get()?)
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<usize> {
        let mut conn = self.conn()?;
        let version: Option<i32> = conn
            .query_one("SELECT max(version) FROM tengen_schema", &[])?
            .get(0);
        Ok(version.map_or(0, |v| usize::try_from(v).unwrap_or(0)))
    }

    /// The games (with their moves) that `filter` (a `WHERE` clause) selects with `args`,
    /// read in one snapshot.
    fn select(
        &self,
        filter: &str,
        args: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<StoredGame>> {
        let mut conn = self.conn()?;
        let mut tx = conn
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let rows = tx.query(
            &format!("SELECT {GAME_COLUMNS} FROM games {filter} ORDER BY created, key"),
            args,
        )?;
        let mut games = rows
            .iter()
            .map(game_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        let keys: Vec<&str> = games.iter().map(|g| g.key.as_str()).collect();
        let moves = tx.query(
            "SELECT key, move FROM moves WHERE key = ANY($1) ORDER BY key, number",
            &[&keys],
        )?;
        let mut by_key: std::collections::HashMap<String, Vec<String>> =
            std::collections::HashMap::new();
        for row in &moves {
            by_key
                .entry(row.try_get(0)?)
                .or_default()
                .push(row.try_get(1)?);
        }
        tx.commit()?;
        for game in &mut games {
            game.moves = by_key.remove(&game.key).unwrap_or_default();
        }
        Ok(games)
    }
}

/// Brings the schema to [`SCHEMA_VERSION`] in one transaction under [`MIGRATION_LOCK`];
/// the version it had.
fn migrate(conn: &mut Client) -> Result<usize> {
    let mut tx = conn.transaction()?;
    tx.batch_execute(&format!(
        "SET LOCAL statement_timeout = {}",
        MIGRATION_TIMEOUT.as_millis()
    ))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS tengen_schema (
             version INTEGER PRIMARY KEY,
             applied TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )?;
    let version: Option<i32> = tx
        .query_one("SELECT max(version) FROM tengen_schema", &[])?
        .get(0);
    let version = version.map_or(0, |v| usize::try_from(v).unwrap_or(usize::MAX));
    if version > SCHEMA_VERSION {
        return Err(StoreError::unavailable(format!(
            "postgresql: the schema is version {version}, newer than this tengen's {SCHEMA_VERSION}: run a newer tengen"
        )));
    }
    for (n, migration) in MIGRATIONS.iter().enumerate().skip(version) {
        let number = n as i32 + 1;
        tx.batch_execute(migration)
            .map_err(|e| StoreError::unavailable(format!("postgresql: migration {number}: {e}")))?;
        tx.execute(
            "INSERT INTO tengen_schema (version) VALUES ($1)",
            &[&number],
        )?;
        log::info!("postgresql: schema migrated to version {number}");
    }
    tx.commit()?;
    Ok(version)
}

/// A PostgreSQL row of [`GAME_COLUMNS`] as a game without its moves.
fn game_from_row(row: &postgres::Row) -> Result<StoredGame> {
    let row = GameRow {
        key: row.try_get(0)?,
        client: row.try_get(1)?,
        size: i64::from(row.try_get::<_, i32>(2)?),
        level: row.try_get(3)?,
        color: row.try_get(4)?,
        komi: row.try_get(5)?,
        handicap: i64::from(row.try_get::<_, i32>(6)?),
        result: row.try_get(7)?,
        dead: row.try_get(8)?,
        last_active: row.try_get(9)?,
        request_id: row.try_get(10)?,
        undone_from: row.try_get::<_, Option<i32>>(11)?.map(i64::from),
        version: row.try_get(12)?,
    };
    Ok(row.into_game())
}

/// A number as the schema's `INTEGER`.
fn int(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| StoreError::unavailable(format!("{n} is out of range")))
}

/// Locks game `key`'s row until the transaction ends (so that one change of a game at a
/// time is made, whichever server makes it); its result (none while unfinished) and its
/// version, or [`StoreErrorKind::Missing`] if it is not there.
fn lock_game(tx: &mut impl GenericClient, key: &str) -> Result<(Option<String>, u64)> {
    match tx.query_typed_opt(
        "SELECT result, version FROM games WHERE key = $1 FOR UPDATE",
        &[(&key, Type::TEXT)],
    )? {
        Some(row) => Ok((row.try_get(0)?, version_of(row.try_get(1)?))),
        None => Err(StoreError::missing(key)),
    }
}

/// A version as the schema's `BIGINT` holds it.
fn version_of(stored: i64) -> u64 {
    u64::try_from(stored).unwrap_or(0)
}

/// A version as the schema's `BIGINT`.
fn bigint(version: u64) -> Result<i64> {
    i64::try_from(version)
        .map_err(|_| StoreError::unavailable(format!("{version} is out of range")))
}

/// Fails with [`StoreErrorKind::Taken`] unless `held`, game `key`'s version, is `version`.
fn at_version(key: &str, held: u64, version: u64) -> Result<()> {
    if held != version {
        return Err(stale(key, held, version));
    }
    Ok(())
}

/// Sets game `key`'s version to `version` (the one after the version it was locked at).
fn set_version(tx: &mut impl GenericClient, key: &str, version: u64) -> Result<()> {
    tx.execute_typed(
        "UPDATE games SET version = $2 WHERE key = $1",
        &[(&key, Type::TEXT), (&bigint(version)?, Type::INT8)],
    )?;
    Ok(())
}

/// Fails with [`StoreErrorKind::Taken`] unless game `key` has `count` moves.
fn check_count(tx: &mut impl GenericClient, key: &str, count: usize) -> Result<()> {
    let held: i32 = tx
        .query_typed_one(
            "SELECT COALESCE(MAX(number), 0) FROM moves WHERE key = $1",
            &[(&key, Type::TEXT)],
        )?
        .try_get(0)?;
    holds(key, held.into(), count)
}

/// Inserts `moves` numbered from `first`, in one statement.
fn insert_moves(
    tx: &mut impl GenericClient,
    key: &str,
    first: usize,
    moves: &[String],
) -> Result<()> {
    if moves.is_empty() {
        return Ok(());
    }
    let numbers = move_numbers(first, moves.len())?;
    tx.execute_typed(
        "INSERT INTO moves (key, number, move)
         SELECT $1, n, m FROM unnest($2::integer[], $3::text[]) AS t(n, m)",
        &[
            (&key, Type::TEXT),
            (&numbers, Type::INT4_ARRAY),
            (&moves, Type::TEXT_ARRAY),
        ],
    )?;
    Ok(())
}

/// The numbers of `count` moves from `first`, as the store keeps them.
fn move_numbers(first: usize, count: usize) -> Result<Vec<i32>> {
    (first..first + count).map(int).collect()
}

/// The columns an ending fills: its result (none while unfinished) and its dead stones,
/// space-separated.
fn ending_columns(ending: Option<&Ending>) -> (Option<&str>, String) {
    (
        ending.map(|e| e.result.as_str()),
        ending.map_or(String::new(), |e| e.dead.join(" ")),
    )
}

/// Sets the ending (none: unfinished) and the time of the last change; fails when the game
/// is not there.
fn set_ending(
    tx: &mut impl GenericClient,
    key: &str,
    ending: Option<&Ending>,
    now: u64,
) -> Result<()> {
    let (result, dead) = ending_columns(ending);
    let changed = tx.execute_typed(
        "UPDATE games SET result = $2, dead = $3, last_active = $4 WHERE key = $1",
        &[
            (&key, Type::TEXT),
            (&result, Type::TEXT),
            (&dead, Type::TEXT),
            (&(now as i64), Type::INT8),
        ],
    )?;
    wrote(key, changed)
}

impl Store for PgStore {
    fn lease(&self, key: &str, number: usize, holder: &str, ttl: Duration) -> Result<bool> {
        let millis = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let rows = self.conn()?.execute(
            "INSERT INTO ai_leases (key, number, holder, expires)
             VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
             ON CONFLICT (key) DO UPDATE SET number = excluded.number,
                 holder = excluded.holder, expires = excluded.expires
             WHERE ai_leases.expires < now() OR ai_leases.number <> excluded.number
                 OR ai_leases.holder = excluded.holder",
            &[&key, &int(number)?, &holder, &(millis as f64)],
        )?;
        Ok(rows == 1)
    }

    fn count_request(&self, client: &str, most: u32) -> Result<Option<Duration>> {
        let most = i32::try_from(most).unwrap_or(i32::MAX);
        let row = self
            .pool
            .get_timeout(COUNT_TIMEOUT)?
            .query_typed_one(COUNT_REQUEST, &[(&client, Type::TEXT), (&most, Type::INT4)])?;
        let admitted: bool = row.try_get(0)?;
        let wait: f64 = row.try_get(1)?;
        Ok((!admitted).then(|| Duration::from_secs_f64(wait.clamp(0.001, 1.0))))
    }

    fn ping(&self) -> Result<()> {
        self.pool
            .get_timeout(PING_TIMEOUT)?
            .simple_query("SELECT 1")?;
        Ok(())
    }

    fn load_all(&self) -> Result<Vec<StoredGame>> {
        self.select("", &[])
    }

    fn load(&self, key: &str) -> Result<Option<StoredGame>> {
        Ok(self.select("WHERE key = $1", &[&key])?.pop())
    }

    fn find_request(&self, client: &str, request_id: &str) -> Result<Option<StoredGame>> {
        Ok(self
            .select(
                "WHERE client = $1 AND request_id = $2",
                &[&client, &request_id],
            )?
            .pop())
    }

    fn count(&self) -> Result<usize> {
        let count: i64 = self
            .conn()?
            .query_one("SELECT count(*) FROM games", &[])?
            .get(0);
        Ok(usize::try_from(count).unwrap_or(0))
    }

    fn create_within(&self, game: &StoredGame, max_open: usize) -> Result<()> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction()?;
        if game.ending.is_none() {
            // One creation of this client's at a time, on every server, so that the count
            // below stays true until this one commits.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                &[&game.client],
            )?;
            let open: i64 = tx
                .query_one(
                    "SELECT count(*) FROM games WHERE client = $1 AND result IS NULL",
                    &[&game.client],
                )?
                .get(0);
            if usize::try_from(open).unwrap_or(usize::MAX) >= max_open {
                return Err(over_limit(&game.client, max_open));
            }
        }
        let undone_from = game.undone_from.map(int).transpose()?;
        tx.execute(
            "INSERT INTO games (key, client, size, level, color, komi, handicap, created,
                                last_active, request_id, undone_from, version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11)",
            &[
                &game.key,
                &game.client,
                &int(game.size)?,
                &game.level,
                &game.color.to_string(),
                &game.komi,
                &int(game.handicap)?,
                &(game.last_active as i64),
                &game.request_id,
                &undone_from,
                &bigint(game.version)?,
            ],
        )?;
        insert_moves(&mut tx, &game.key, 1, &game.moves)?;
        set_ending(&mut tx, &game.key, game.ending.as_ref(), game.last_active)?;
        tx.commit()?;
        Ok(())
    }

    fn version(&self, key: &str) -> Result<Option<u64>> {
        let row = self.conn()?.query_typed_opt(
            "SELECT version FROM games WHERE key = $1",
            &[(&key, Type::TEXT)],
        )?;
        row.map(|row| Ok(version_of(row.try_get(0)?))).transpose()
    }

    fn append(&self, key: &str, version: u64, moves: NewMoves, now: u64) -> Result<u64> {
        let count = moves.first.saturating_sub(1);
        let numbers = move_numbers(moves.first, moves.moves.len())?;
        let (result, dead) = ending_columns(moves.ending.as_ref());
        let found = self.conn()?.query_typed_opt(
            APPEND,
            &[
                (&key, Type::TEXT),
                (&numbers, Type::INT4_ARRAY),
                (&moves.moves, Type::TEXT_ARRAY),
                (&int(count)?, Type::INT4),
                (&result, Type::TEXT),
                (&dead, Type::TEXT),
                (&(now as i64), Type::INT8),
                (&bigint(version)?, Type::INT8),
            ],
        )?;
        let Some(found) = found else {
            return Err(StoreError::missing(key));
        };
        if let Some(result) = found.try_get::<_, Option<String>>(0)? {
            return Err(ended(key, &result));
        }
        at_version(key, version_of(found.try_get(1)?), version)?;
        holds(key, found.try_get::<_, i32>(2)?.into(), count)?;
        Ok(version + 1)
    }

    fn truncate(&self, key: &str, version: u64, undo: Undo, now: u64) -> Result<u64> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction()?;
        let (result, held) = lock_game(&mut tx, key)?;
        if let Some(result) = result.filter(|r| is_resignation(r)) {
            return Err(ended(key, &result));
        }
        at_version(key, held, version)?;
        check_count(&mut tx, key, undo.from.saturating_sub(1))?;
        tx.execute(
            "DELETE FROM moves WHERE key = $1 AND number > $2",
            &[&key, &int(undo.keep)?],
        )?;
        tx.execute(
            "UPDATE games SET undone_from = $2 WHERE key = $1",
            &[&key, &int(undo.from)?],
        )?;
        set_ending(&mut tx, key, None, now)?;
        set_version(&mut tx, key, version + 1)?;
        tx.commit()?;
        Ok(version + 1)
    }

    fn finish(&self, key: &str, version: u64, ending: &Ending, now: u64) -> Result<u64> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction()?;
        let (result, held) = lock_game(&mut tx, key)?;
        if let Some(result) = result {
            return Err(ended(key, &result));
        }
        at_version(key, held, version)?;
        set_ending(&mut tx, key, Some(ending), now)?;
        set_version(&mut tx, key, version + 1)?;
        tx.commit()?;
        Ok(version + 1)
    }

    fn touch(&self, key: &str, now: u64) -> Result<()> {
        let mut conn = self.conn()?;
        let changed = conn.execute(
            "UPDATE games SET last_active = $2 WHERE key = $1",
            &[&key, &(now as i64)],
        )?;
        wrote(key, changed)
    }

    fn delete(&self, key: &str) -> Result<()> {
        let mut conn = self.conn()?;
        conn.execute("DELETE FROM games WHERE key = $1", &[&key])?;
        Ok(())
    }

    fn expire(&self, before: u64, keep: &[String]) -> Result<Vec<String>> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction()?;
        // One server expires at a time; the others find the lock taken and skip this round.
        let ours: bool = tx
            .query_one("SELECT pg_try_advisory_xact_lock($1)", &[&EXPIRY_LOCK])?
            .get(0);
        if !ours {
            return Ok(Vec::new());
        }
        let rows = tx.query(
            "DELETE FROM games WHERE last_active < $1 AND NOT (key = ANY($2)) RETURNING key",
            &[&(before as i64), &keep],
        )?;
        let keys = rows
            .iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect::<Result<Vec<String>, _>>()?;
        // The request counts of the seconds that no longer count.
        tx.execute(
            "DELETE FROM request_counts WHERE second < floor(extract(epoch FROM now())) - 1",
            &[],
        )?;
        tx.commit()?;
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_file_matches_fields_and_wildcards_in_order() {
        let text = "# comment\n\
                    db.example:5432:games:alice:first\n\
                    *:5433:*:tengen:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            pgpass_lookup(text, "db.example", "5432", "games", "alice").as_deref(),
            Some("first")
        );
        assert_eq!(
            pgpass_lookup(text, "localhost", "5433", "x", "tengen").as_deref(),
            Some("pa:ss\\word")
        );
        assert_eq!(
            pgpass_lookup(text, "db.example", "5432", "other", "alice").as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup("a:b:c\n", "a", "b", "c", "d"), None);
    }

    #[test]
    fn a_url_with_a_password_or_without_a_user_is_refused() {
        assert!(parse_url("postgres://tengen@127.0.0.1:5432/games").is_ok());
        let refused = parse_url("postgres://tengen:secret@127.0.0.1/games").unwrap_err();
        assert!(refused.contains("PGPASSWORD"), "{refused}");
        assert!(!refused.contains("secret"), "{refused}");
        assert!(parse_url("postgres://127.0.0.1/games").is_err());
        assert!(parse_url("postgres://tengen@127.0.0.1:notaport/games").is_err());
        assert!(is_url("postgresql://a@b/c") && !is_url("games.sqlite"));
        assert_eq!(
            redacted("postgres://tengen:secret@db:5432/games"),
            "postgres://tengen:***@db:5432/games"
        );
        assert_eq!(
            redacted("postgres://tengen@db/games"),
            "postgres://tengen@db/games"
        );
    }

    #[test]
    fn the_environment_password_comes_first_and_an_open_file_is_ignored() {
        let config = parse_url("postgres://tengen@127.0.0.1:5432/games").unwrap();
        let dir = std::env::temp_dir().join(format!("tengen-pgpass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pgpass");
        std::fs::write(&file, "127.0.0.1:5432:games:tengen:fromfile\n").unwrap();
        assert_eq!(
            find_password(&config, Some("fromenv".into()), Some(&file)).as_deref(),
            Some("fromenv")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(find_password(&config, None, Some(&file)), None);
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(
            find_password(&config, None, Some(&file)).as_deref(),
            Some("fromfile")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
