//! A PostgreSQL cluster of a test's own: `initdb` in a temporary directory, `pg_ctl` on a
//! free loopback port, password authentication for the user `tengen`; stopped, started
//! again (a connection-loss test) and removed when dropped. Run as root, the programs run as
//! the `postgres` user (PostgreSQL refuses root), as Debian's `postgresql` package makes it.
//!
//! Tests that use it carry `#[cfg_attr(not(postgres_tests), ignore = "...")]`: build.rs
//! sets the cfg when it finds `initdb` and `pg_ctl`, or when TENGEN_REQUIRE_EXTERNAL=1 asks
//! for it, and then a missing program fails the test here.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The cluster's superuser, and the user the stores connect as.
pub const USER: &str = "tengen";

/// Its password (the tests pass it in PGPASSWORD or to `PgStore::open`).
pub const PASSWORD: &str = "test-only-password";

/// The directory of `initdb` and `pg_ctl`, as build.rs found it.
pub fn bin() -> PathBuf {
    match option_env!("TENGEN_TEST_PG_BIN") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("initdb").is_file(),
                "{} (where build.rs found initdb) is gone: touch build.rs",
                dir.display()
            );
            dir
        }
        None => panic!(
            "PostgreSQL is required (TENGEN_REQUIRE_EXTERNAL=1) but initdb and pg_ctl are not installed"
        ),
    }
}

/// A running cluster of one test.
pub struct Cluster {
    bin: PathBuf,
    /// Holds `data/` (the cluster), the log and the socket.
    dir: PathBuf,
    port: u16,
    /// The uid and gid the programs run as (`postgres`'s when run as root).
    owner: Option<(u32, u32)>,
}

static CLUSTERS: AtomicUsize = AtomicUsize::new(0);

impl Cluster {
    /// Makes and starts a new cluster.
    pub fn start() -> Cluster {
        let bin = bin();
        let n = CLUSTERS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("tengen-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // SAFETY: geteuid has no preconditions.
        let owner = (unsafe { libc::geteuid() } == 0).then(postgres_ids);
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).unwrap();
        }
        let pwfile = dir.join("pwfile");
        std::fs::write(&pwfile, format!("{PASSWORD}\n")).unwrap();
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid)).unwrap();
        }
        let mut cluster = Cluster {
            bin,
            dir,
            port: 0,
            owner,
        };
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                USER.as_ref(),
                "-A".as_ref(),
                "scram-sha-256".as_ref(),
                "--pwfile".as_ref(),
                pwfile.as_os_str(),
                "-N".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--locale=C".as_ref(),
            ],
        );
        // A port free now may be taken before the server binds it: try a few.
        for _ in 0..5 {
            cluster.port = super::free_port();
            if cluster.try_start() {
                return cluster;
            }
        }
        panic!("the cluster did not start: {}", cluster.log());
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `postgres://tengen@127.0.0.1:PORT/DB`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{database}", self.port)
    }

    /// A new empty database; its URL.
    pub fn database(&self, name: &str) -> String {
        let mut client = self.client("postgres");
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        self.url(name)
    }

    /// A client connected to `database` as the superuser.
    pub fn client(&self, database: &str) -> postgres::Client {
        postgres::Config::new()
            .host("127.0.0.1")
            .port(self.port)
            .user(USER)
            .password(PASSWORD)
            .dbname(database)
            .connect(postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to {database}: {e}"))
    }

    /// Stops the server at once (`-m immediate`: as if it crashed; connections are cut).
    pub fn stop(&self) {
        self.stop_in("immediate");
    }

    /// Stops the server as an operator restarting it does (`-m fast`: open transactions
    /// rolled back, connections closed, a clean shutdown).
    pub fn stop_fast(&self) {
        self.stop_in("fast");
    }

    fn stop_in(&self, mode: &str) {
        let data = self.data();
        self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                mode.as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
    }

    /// Starts it again on the same port after [`Cluster::stop`].
    pub fn restart(&self) {
        assert!(
            self.try_start(),
            "the cluster did not restart: {}",
            self.log()
        );
    }

    fn try_start(&self) -> bool {
        let data = self.data();
        let log = self.dir.join("log");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        self.output(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "-t".as_ref(),
                "60".as_ref(),
                "start".as_ref(),
            ],
        )
        .status
        .success()
    }

    /// The server's log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    fn output(&self, program: &str, args: &[&std::ffi::OsStr]) -> Output {
        let mut command = Command::new(self.bin.join(program));
        command.args(args).current_dir(&self.dir);
        if let Some((uid, gid)) = self.owner {
            use std::os::unix::process::CommandExt;
            command.uid(uid).gid(gid).env("HOME", &self.dir);
        }
        command
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
    }

    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) {
        let output = self.output(program, args);
        assert!(
            output.status.success(),
            "{program} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self.output(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "stop".as_ref(),
            ],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The uid and gid of the `postgres` user, from /etc/passwd.
fn postgres_ids() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.len() > 3 && fields[0] == "postgres")
                .then(|| (fields[2].parse().ok(), fields[3].parse().ok()))
                .and_then(|ids| Some((ids.0?, ids.1?)))
        })
        .expect("run as root, the tests need the `postgres` user (apt-get install postgresql)")
}
