//! Where `tengen serve` keeps its games so that a restart loses none: one small trait,
//! [`Store`], and its SQLite implementation. A game is its settings plus its move list; the
//! server rebuilds the position by replaying the moves, so nothing else needs storing.
//!
//! Another store (a PostgreSQL shared by several servers, docs/SERVE.md) implements the same
//! trait; every call is synchronous and made off the async threads.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, params};

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

/// A store that failed; the server answers 503 and changes nothing.
#[derive(Debug)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

/// The games' durable home. Each call is one transaction: when it returns `Ok` the change
/// survives the process being killed.
pub trait Store: Send + Sync {
    /// Every game held, with its moves.
    fn load_all(&self) -> Result<Vec<StoredGame>, StoreError>;
    /// Adds a new game (its `moves` and `ending` too).
    fn create(&self, game: &StoredGame) -> Result<(), StoreError>;
    /// Appends `moves` (and their ending). Fails, storing nothing, when the game is gone or a
    /// number is taken.
    fn append(&self, key: &str, moves: NewMoves, now: u64) -> Result<(), StoreError>;
    /// Keeps the first `len` moves only and clears the ending (undo).
    fn truncate(&self, key: &str, len: usize, now: u64) -> Result<(), StoreError>;
    /// Records the ending of a game that ended without a move (a resignation).
    fn finish(&self, key: &str, ending: &Ending, now: u64) -> Result<(), StoreError>;
    /// Notes that the game was used at `now`.
    fn touch(&self, key: &str, now: u64) -> Result<(), StoreError>;
    /// Removes a game; removing one that is not there is no error.
    fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Removes the games last active before `before`; their keys.
    fn expire(&self, before: u64) -> Result<Vec<String>, StoreError>;
}

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
type Write = Box<dyn FnOnce(&Connection) -> Result<(), StoreError> + Send>;

/// Where the group's committer leaves a write's result.
type Outcome = Mutex<Option<Result<(), StoreError>>>;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    size INTEGER NOT NULL,
    level TEXT NOT NULL,
    color TEXT NOT NULL,
    komi REAL NOT NULL,
    handicap INTEGER NOT NULL,
    result TEXT,
    dead TEXT NOT NULL DEFAULT '',
    created INTEGER NOT NULL,
    last_active INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    key TEXT NOT NULL REFERENCES games(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    move TEXT NOT NULL,
    PRIMARY KEY (key, number)
) WITHOUT ROWID;
";

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`; `:memory:` keeps it in memory.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn =
            Connection::open(path).map_err(|e| StoreError(format!("{}: {e}", path.display())))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // journal_mode answers with a row, so it is queried, not executed.
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
        conn.execute_batch(SCHEMA)
            .map_err(|e| StoreError(format!("{}: {e}", path.display())))?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            waiting: Mutex::new(Vec::new()),
        })
    }

    /// Runs `write` in a transaction and commits it, with the writes that queued meanwhile;
    /// returns once it is on disk.
    fn write(
        &self,
        write: impl FnOnce(&Connection) -> Result<(), StoreError> + Send + 'static,
    ) -> Result<(), StoreError> {
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
                    *lock(outcome) = Some(Err(StoreError(e.0.clone())));
                }
            }
        }
        lock(&outcome)
            .take()
            .unwrap_or_else(|| Err(StoreError("the write was lost".to_string())))
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Vec<(Write, Arc<Outcome>)>> {
        lock(&self.waiting)
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        lock(&self.conn)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding one of the store's locks cannot leave a transaction half done
    // (it rolls back on drop), so a poisoned lock is still good.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `writes` in one transaction, each in a savepoint (one that fails is rolled back
/// alone), and commits: each write's result, or the error that lost them all.
fn commit_group(
    conn: &mut Connection,
    writes: Vec<Write>,
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut tx = conn.transaction()?;
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

fn insert_moves(
    tx: &Connection,
    key: &str,
    first: usize,
    moves: &[String],
) -> Result<(), StoreError> {
    let mut insert =
        tx.prepare_cached("INSERT INTO moves (key, number, move) VALUES (?1, ?2, ?3)")?;
    for (i, mv) in moves.iter().enumerate() {
        insert.execute(params![key, (first + i) as i64, mv])?;
    }
    Ok(())
}

fn set_ending(
    tx: &Connection,
    key: &str,
    ending: Option<&Ending>,
    now: u64,
) -> Result<usize, StoreError> {
    Ok(tx.execute(
        "UPDATE games SET result = ?2, dead = ?3, last_active = ?4 WHERE key = ?1",
        params![
            key,
            ending.map(|e| e.result.as_str()),
            ending.map_or(String::new(), |e| e.dead.join(" ")),
            now as i64
        ],
    )?)
}

impl Store for SqliteStore {
    fn load_all(&self) -> Result<Vec<StoredGame>, StoreError> {
        let conn = self.conn();
        let mut games = conn.prepare(
            "SELECT key, client, size, level, color, komi, handicap, result, dead, last_active
             FROM games ORDER BY created, key",
        )?;
        let mut moves = conn.prepare("SELECT move FROM moves WHERE key = ?1 ORDER BY number")?;
        let rows = games.query_map([], |r| {
            let color: String = r.get(4)?;
            let result: Option<String> = r.get(7)?;
            let dead: String = r.get(8)?;
            Ok(StoredGame {
                key: r.get(0)?,
                client: r.get(1)?,
                size: r.get::<_, i64>(2)? as usize,
                level: r.get(3)?,
                color: color.chars().next().unwrap_or('B'),
                komi: r.get(5)?,
                handicap: r.get::<_, i64>(6)? as usize,
                moves: Vec::new(),
                ending: result.map(|result| Ending {
                    result,
                    dead: dead.split_whitespace().map(str::to_string).collect(),
                }),
                last_active: r.get::<_, i64>(9)? as u64,
            })
        })?;
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

    fn create(&self, game: &StoredGame) -> Result<(), StoreError> {
        let game = game.clone();
        self.write(move |tx| {
            tx.execute(
                "INSERT INTO games (key, client, size, level, color, komi, handicap, created, last_active)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                params![
                    game.key,
                    game.client,
                    game.size as i64,
                    game.level,
                    game.color.to_string(),
                    game.komi,
                    game.handicap as i64,
                    game.last_active as i64
                ],
            )?;
            insert_moves(tx, &game.key, 1, &game.moves)?;
            set_ending(tx, &game.key, game.ending.as_ref(), game.last_active)?;
            Ok(())
        })
    }

    fn append(&self, key: &str, moves: NewMoves, now: u64) -> Result<(), StoreError> {
        let key = key.to_string();
        self.write(move |tx| {
            insert_moves(tx, &key, moves.first, &moves.moves)?;
            if set_ending(tx, &key, moves.ending.as_ref(), now)? == 0 {
                return Err(StoreError(format!("no game {key}")));
            }
            Ok(())
        })
    }

    fn truncate(&self, key: &str, len: usize, now: u64) -> Result<(), StoreError> {
        let key = key.to_string();
        self.write(move |tx| {
            tx.execute(
                "DELETE FROM moves WHERE key = ?1 AND number > ?2",
                params![key, len as i64],
            )?;
            if set_ending(tx, &key, None, now)? == 0 {
                return Err(StoreError(format!("no game {key}")));
            }
            Ok(())
        })
    }

    fn finish(&self, key: &str, ending: &Ending, now: u64) -> Result<(), StoreError> {
        let (key, ending) = (key.to_string(), ending.clone());
        self.write(move |tx| {
            if set_ending(tx, &key, Some(&ending), now)? == 0 {
                return Err(StoreError(format!("no game {key}")));
            }
            Ok(())
        })
    }

    fn touch(&self, key: &str, now: u64) -> Result<(), StoreError> {
        let key = key.to_string();
        self.write(move |tx| {
            tx.execute(
                "UPDATE games SET last_active = ?2 WHERE key = ?1",
                params![key, now as i64],
            )?;
            Ok(())
        })
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let key = key.to_string();
        self.write(move |tx| {
            tx.execute("DELETE FROM games WHERE key = ?1", params![key])?;
            Ok(())
        })
    }

    fn expire(&self, before: u64) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let keys: Vec<String> = tx
            .prepare("SELECT key FROM games WHERE last_active < ?1")?
            .query_map([before as i64], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        tx.execute("DELETE FROM games WHERE last_active < ?1", [before as i64])?;
        tx.commit()?;
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        store
            .append("a", new_moves(2, &["E5", "pass"]), 150)
            .unwrap();
        // A number already taken stores nothing.
        assert!(store.append("a", new_moves(3, &["F6"]), 150).is_err());
        // Nor does a game that is not there.
        assert!(store.append("zz", new_moves(1, &["F6"]), 150).is_err());
        let ending = Ending {
            result: "W+R".to_string(),
            dead: vec!["D4".to_string()],
        };
        store.finish("b", &ending, 160).unwrap();
        let all = store.load_all().unwrap();
        assert_eq!(all[0].moves, ["D4", "E5", "pass"]);
        assert_eq!(all[0].last_active, 150);
        assert_eq!(all[1].ending.as_ref(), Some(&ending));
        store.truncate("a", 1, 170).unwrap();
        assert_eq!(store.load_all().unwrap()[0].moves, ["D4"]);
        assert_eq!(store.expire(165).unwrap(), ["b"]);
        store.delete("a").unwrap();
        assert!(store.load_all().unwrap().is_empty());
    }

    #[test]
    fn concurrent_writes_commit_together_and_a_failed_one_alone_changes_nothing() {
        let dir = std::env::temp_dir().join(format!("tengen-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Arc::new(SqliteStore::open(&dir.join("games.sqlite")).unwrap());
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    let key = format!("g{t}");
                    store.create(&game(&key, &[])).unwrap();
                    for n in 1..=30 {
                        store
                            .append(&key, new_moves(n, &[&format!("m{n}")]), 100)
                            .unwrap();
                        // A number already taken fails, in whatever group it lands.
                        assert!(store.append(&key, new_moves(n, &["x"]), 100).is_err());
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
}
