//! `tengen serve`'s stores, the same checks on each: SQLite in a temporary file, and
//! PostgreSQL in a cluster of the test's own (tests/common/pg.rs): moves, numbers taken,
//! endings, undo, request ids, expiry, changes made on an old copy refused by the game's
//! version; two SQLite stores on one file writing at once; the PostgreSQL schema migrated
//! once by three servers starting together; a store that loses its database and gets it
//! back; and `tengen serve migrate`, which copies a SQLite store into PostgreSQL.

mod common;

use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use common::pg::{self, Cluster};
use common::temp::TempDir;
use tengen::front::serve::pgstore::{PgSettings, PgStore};
use tengen::front::serve::store::{
    Ending, NewMoves, SCHEMA_VERSION, SqliteStore, Store, StoreErrorKind, StoredGame, Undo,
};

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

fn new_moves(first: usize, moves: &[&str]) -> NewMoves {
    NewMoves {
        first,
        moves: moves.iter().map(|m| m.to_string()).collect(),
        ending: None,
    }
}

/// The checks every store passes.
fn keeps_games(store: &dyn Store) {
    store.create(&game("a", &["D4"])).unwrap();
    store
        .create(&StoredGame {
            request_id: Some("req-1".into()),
            komi: 6.5,
            ..game("b", &[])
        })
        .unwrap();
    // A key taken, or a request id the client used already, is refused as taken.
    let taken = store.create(&game("a", &[])).unwrap_err();
    assert_eq!(taken.kind, StoreErrorKind::Taken, "{taken}");
    let taken = store
        .create(&StoredGame {
            request_id: Some("req-1".into()),
            ..game("c", &[])
        })
        .unwrap_err();
    assert_eq!(taken.kind, StoreErrorKind::Taken, "{taken}");
    // Another client may use the same request id.
    store
        .create(&StoredGame {
            client: "d".into(),
            request_id: Some("req-1".into()),
            ..game("d", &[])
        })
        .unwrap();
    let version = store
        .append("a", 0, new_moves(2, &["E5", "pass"]), 150)
        .unwrap();
    assert_eq!(version, 1);
    // A number already taken stores nothing, not even the moves before it.
    let taken = store
        .append("a", 1, new_moves(3, &["F6", "G7"]), 150)
        .unwrap_err();
    assert_eq!(taken.kind, StoreErrorKind::Taken, "{taken}");
    // So does one that leaves a number out.
    let gap = store
        .append("a", 1, new_moves(5, &["F6"]), 150)
        .unwrap_err();
    assert_eq!(gap.kind, StoreErrorKind::Taken, "{gap}");
    let missing = store
        .append("zz", 0, new_moves(1, &["F6"]), 150)
        .unwrap_err();
    assert_eq!(missing.kind, StoreErrorKind::Missing, "{missing}");
    let a = store.load("a").unwrap().unwrap();
    assert_eq!(a.moves, ["D4", "E5", "pass"]);
    assert_eq!(a.last_active, 150);
    assert_eq!(store.load("zz").unwrap(), None);
    let found = store.find_request("c", "req-1").unwrap().unwrap();
    assert_eq!((found.key.as_str(), found.komi), ("b", 6.5));
    assert_eq!(store.find_request("c", "req-2").unwrap(), None);
    let ending = Ending {
        result: "W+R".to_string(),
        dead: vec!["D4".to_string(), "E5".to_string()],
    };
    assert_eq!(store.finish("b", 0, &ending, 160).unwrap(), 1);
    assert_eq!(
        store.finish("zz", 0, &ending, 160).unwrap_err().kind,
        StoreErrorKind::Missing
    );
    let all = store.load_all().unwrap();
    assert_eq!(
        all.iter().map(|g| g.key.as_str()).collect::<Vec<_>>(),
        ["a", "b", "d"]
    );
    assert_eq!(all[1].ending.as_ref(), Some(&ending));
    // An undo asked of another position than the store's changes nothing.
    let stale = store
        .truncate("a", 1, Undo { keep: 1, from: 3 }, 170)
        .unwrap_err();
    assert_eq!(stale.kind, StoreErrorKind::Taken, "{stale}");
    assert_eq!(
        store
            .truncate("a", 1, Undo { keep: 1, from: 4 }, 170)
            .unwrap(),
        2
    );
    let a = store.load("a").unwrap().unwrap();
    assert_eq!((a.moves.len(), a.undone_from, a.version), (1, Some(4), 2));
    // A game whose moves end it, restored whole.
    let ended = StoredGame {
        ending: Some(Ending {
            result: "B+0.5".into(),
            dead: Vec::new(),
        }),
        last_active: 200,
        ..game("e", &["pass", "pass"])
    };
    store.create(&ended).unwrap();
    assert_eq!(store.load("e").unwrap().as_ref(), Some(&ended));
    // Kept: a game used since (only read, so the store did not see it), and one changed
    // after the time asked.
    let expired = store.expire(165, &["d".to_string()]).unwrap();
    assert_eq!(expired, ["b"]);
    assert_eq!(store.expire(165, &[]).unwrap(), ["d"]);
    // The limit counts the client's unfinished games ("a"), not its finished ones ("e").
    let limit = store.create_within(&game("f", &[]), 1).unwrap_err();
    assert_eq!(limit.kind, StoreErrorKind::Limit, "{limit}");
    let finished = StoredGame {
        key: "g".into(),
        ..ended.clone()
    };
    store.create_within(&finished, 1).unwrap();
    store.create_within(&game("f", &[]), 2).unwrap();
    assert_eq!(store.count().unwrap(), 4);
    store.delete("f").unwrap();
    store.delete("g").unwrap();
    store.delete("a").unwrap();
    store.delete("a").unwrap();
    assert_eq!(store.load_all().unwrap(), [ended]);
}

/// A change made on a copy older than the store's is refused and changes nothing, though
/// its move numbers fit: one server undoes two moves and plays two others, then another
/// server, whose copy is of before the undo, sends its change.
fn refuses_changes_made_on_an_old_copy(store: &dyn Store) {
    store.create(&game("v", &["D4", "E5", "F6", "G7"])).unwrap();
    assert_eq!(store.version("v").unwrap(), Some(0));
    assert_eq!(
        store
            .truncate("v", 0, Undo { keep: 2, from: 5 }, 200)
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .append("v", 1, new_moves(3, &["C3", "C4"]), 200)
            .unwrap(),
        2
    );
    let resigned = Ending {
        result: "W+R".into(),
        dead: Vec::new(),
    };
    for refused in [
        store.append("v", 0, new_moves(5, &["H8"]), 210),
        store.truncate("v", 0, Undo { keep: 2, from: 5 }, 210),
        store.finish("v", 0, &resigned, 210),
    ] {
        let refused = refused.unwrap_err();
        assert_eq!(refused.kind, StoreErrorKind::Taken, "{refused}");
        assert!(refused.message.contains("version 2"), "{refused}");
    }
    let v = store.load("v").unwrap().unwrap();
    assert_eq!(
        (v.moves, v.ending, v.version, v.last_active),
        (
            ["D4", "E5", "C3", "C4"].map(String::from).to_vec(),
            None,
            2,
            200
        )
    );
    // On the store's version they go through, each to the next version.
    assert_eq!(store.append("v", 2, new_moves(5, &["H8"]), 220).unwrap(), 3);
    assert_eq!(store.finish("v", 3, &resigned, 230).unwrap(), 4);
    assert_eq!(store.version("v").unwrap(), Some(4));
    assert_eq!(store.version("zz").unwrap(), None);
    store.delete("v").unwrap();
}

/// The AI's lease on a move: one holder at a time while it lasts, the holder again, a lease
/// on another move, one taken over once expired, and gone with its game.
fn leases(store: &dyn Store) {
    let long = std::time::Duration::from_secs(60);
    store.create(&game("l", &["E5"])).unwrap();
    assert!(store.lease("l", 2, "one", long).unwrap());
    assert!(!store.lease("l", 2, "two", long).unwrap());
    assert!(store.lease("l", 2, "one", long).unwrap());
    assert!(store.lease("l", 4, "two", long).unwrap());
    assert!(!store.lease("l", 4, "one", long).unwrap());
    assert!(
        store
            .lease("l", 6, "one", std::time::Duration::ZERO)
            .unwrap()
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(store.lease("l", 6, "two", long).unwrap());
    store.delete("l").unwrap();
    assert_eq!(
        store.lease("l", 6, "one", long).unwrap_err().kind,
        StoreErrorKind::Missing
    );
}

#[test]
fn the_sqlite_store_keeps_games() {
    let dir = TempDir::new("store-sqlite");
    let store = SqliteStore::open(&dir.path().join("games.sqlite")).unwrap();
    keeps_games(&store);
    refuses_changes_made_on_an_old_copy(&store);
    leases(&store);
}

#[test]
fn two_sqlite_stores_on_one_file_change_games_at_once_without_a_busy_error() {
    // Two servers sharing the file: each change reads the game first, then writes. A read
    // transaction that the other connection commits past cannot take the write lock (WAL
    // mode answers SQLITE_BUSY at once, unwaited), so each takes the lock as it begins.
    let dir = TempDir::new("store-shared");
    let path = dir.path().join("games.sqlite");
    let stores = [0, 1].map(|_| SqliteStore::open(&path).unwrap());
    std::thread::scope(|scope| {
        for (n, store) in stores.iter().enumerate() {
            let key = format!("s{n}");
            store.create(&game(&key, &[])).unwrap();
            scope.spawn(move || {
                for version in 0..200 {
                    let number = version as usize + 1;
                    let moves = new_moves(number, &["pass"]);
                    store
                        .append(&key, version, moves, 100)
                        .unwrap_or_else(|e| panic!("{key}, move {number}: {e}"));
                }
            });
        }
    });
    for store in &stores {
        assert_eq!(store.version("s0").unwrap(), Some(200));
        assert_eq!(store.load("s1").unwrap().unwrap().moves.len(), 200);
    }
}

fn settings() -> PgSettings {
    PgSettings {
        pool_size: 4,
        statement_timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
    }
}

fn pg_store(url: &str) -> PgStore {
    PgStore::open(url, Some(pg::PASSWORD.to_string()), &settings())
        .unwrap_or_else(|e| panic!("{url}: {e}"))
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn the_postgres_store_keeps_games() {
    let cluster = Cluster::start();
    let store = pg_store(&cluster.database("games"));
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    keeps_games(&store);
    refuses_changes_made_on_an_old_copy(&store);
    leases(&store);
    // A wrong password is an error, not a panic.
    let refused = PgStore::open(&cluster.url("games"), Some("wrong".into()), &settings())
        .err()
        .unwrap();
    assert_eq!(refused.kind, StoreErrorKind::Unavailable);
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn three_servers_starting_together_migrate_the_schema_once() {
    let cluster = Cluster::start();
    let url = cluster.database("fresh");
    let barrier = Arc::new(Barrier::new(3));
    let servers: Vec<_> = (0..3)
        .map(|_| {
            let (url, barrier) = (url.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                PgStore::open(&url, Some(pg::PASSWORD.to_string()), &settings()).map(|_| ())
            })
        })
        .collect();
    for server in servers {
        // A migration run twice fails (its CREATE TABLE finds the table).
        server.join().unwrap().unwrap();
    }
    let mut client = cluster.client("fresh");
    let versions: Vec<i32> = client
        .query("SELECT version FROM tengen_schema ORDER BY version", &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION as i32).collect::<Vec<_>>());
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn a_lost_database_is_an_error_until_it_is_back_then_the_pool_reconnects() {
    let cluster = Cluster::start();
    let store = pg_store(&cluster.database("games"));
    store.create(&game("a", &["D4"])).unwrap();
    cluster.stop();
    let started = Instant::now();
    let lost = store
        .append("a", 0, new_moves(2, &["E5"]), 110)
        .unwrap_err();
    assert_eq!(lost.kind, StoreErrorKind::Unavailable, "{lost}");
    assert!(store.load("a").is_err());
    // Bounded by the connect and statement timeouts (2 s and 5 s here), not hung.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    cluster.restart();
    // The broken connections are dropped and new ones made: the first call after works.
    store.append("a", 0, new_moves(2, &["E5"]), 120).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().moves, ["D4", "E5"]);
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn serve_migrate_copies_a_sqlite_store_into_postgres_once() {
    let dir = TempDir::new("store-migrate");
    let file = dir.path().join("games.sqlite");
    {
        let sqlite = SqliteStore::open(&file).unwrap();
        sqlite.create(&game("a", &["D4", "E5"])).unwrap();
        sqlite
            .create(&StoredGame {
                request_id: Some("r".into()),
                ending: Some(Ending {
                    result: "W+R".into(),
                    dead: Vec::new(),
                }),
                ..game("b", &["pass"])
            })
            .unwrap();
    }
    let cluster = Cluster::start();
    let url = cluster.database("games");
    let migrate = || {
        Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["serve", "migrate", "--from"])
            .arg(&file)
            .args(["--to", &url])
            .env("PGPASSWORD", pg::PASSWORD)
            .output()
            .unwrap()
    };
    let first = migrate();
    let said = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(first.status.success(), "{said}");
    assert!(said.contains("2 games copied"), "{said}");
    let second = migrate();
    let said = String::from_utf8_lossy(&second.stderr).to_string();
    assert!(
        said.contains("0 games copied") && said.contains("2 were there"),
        "{said}"
    );
    let copied = pg_store(&url).load_all().unwrap();
    let original = SqliteStore::open(&file).unwrap().load_all().unwrap();
    assert_eq!(copied, original);
    // A password in the URL is refused, and not echoed.
    let with_password = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["serve", "migrate", "--from"])
        .arg(&file)
        .args(["--to", &url.replace("tengen@", "tengen:hunter2@")])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&with_password.stderr).to_string();
    assert!(!with_password.status.success());
    assert!(
        said.contains("PGPASSWORD") && !said.contains("hunter2"),
        "{said}"
    );
}
