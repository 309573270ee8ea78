//! A new user's path, driving the real binary from a directory without engines.toml, with
//! `HOME` and `XDG_CONFIG_HOME` in temporary directories: built-in levels (`expert` and `hard`
//! included), the user's config found from anywhere, `tengen config` and `config init`,
//! completions and the manual page.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh home with a working directory inside it.
struct Home {
    root: PathBuf,
}

impl Home {
    fn new(name: &str) -> Home {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("new-user-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("work")).unwrap();
        Home { root }
    }

    fn config_dir(&self) -> PathBuf {
        self.root.join(".config")
    }

    /// tengen's nets directory in this home (where `tengen net get` puts nets).
    fn nets_dir(&self) -> PathBuf {
        self.root.join(".local/share/tengen/nets")
    }

    fn user_file(&self) -> PathBuf {
        self.config_dir().join("tengen/engines.toml")
    }

    /// Runs tengen with `args` in the working directory, `input` on stdin; exit code,
    /// stdout, stderr.
    fn run(
        &self,
        args: &[&str],
        input: &str,
        env: &[(&str, &str)],
    ) -> (Option<i32>, String, String) {
        let mut command = Command::new(common::tengen_path());
        command
            .args(args)
            .current_dir(self.root.join("work"))
            .env("HOME", &self.root)
            .env("XDG_CONFIG_HOME", self.config_dir())
            .env("XDG_DATA_HOME", self.root.join(".local/share"))
            .env_remove("TENGEN_CONFIG")
            .env_remove("KATAGO_MODEL")
            .env_remove("KATAGO_CONFIG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// The vertex `genmove` answered in a GTP transcript of `boardsize 9`, `genmove b`, `quit`.
fn genmove_answer(stdout: &str) -> &str {
    let responses: Vec<&str> = stdout.split("\n\n").collect();
    responses[1].trim_start_matches("= ")
}

#[test]
fn expert_and_hard_play_from_any_directory_without_katago() {
    let home = Home::new("expert");
    for level in ["expert", "hard"] {
        let (code, stdout, stderr) = home.run(
            &["--level", level],
            "boardsize 9\ngenmove b\nquit\n",
            &[("PATH", "/usr/bin:/bin")],
        );
        assert_eq!(code, Some(0), "{level}: {stderr}");
        let vertex = genmove_answer(&stdout);
        assert!(
            vertex.len() >= 2 && vertex != "PASS" && vertex != "resign",
            "{level}: {stdout}"
        );
    }
    // The default level, hard, answers a 19x19 genmove without a clock, and says once that
    // it plays without a net.
    let (code, stdout, stderr) = home.run(
        &[],
        "boardsize 19\ngenmove b\nquit\n",
        &[("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let vertex = genmove_answer(&stdout);
    assert!(vertex.len() >= 2 && vertex != "PASS", "{stdout}");
    assert_eq!(stderr.matches("without a network").count(), 1, "{stderr}");
    let (code, stdout, _) = home.run(&["config"], "", &[("PATH", "/usr/bin:/bin")]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("built-in levels"), "{stdout}");
    for level in ["easy", "medium", "mcts", "net", "hard", "expert"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(level) && l.ends_with("built-in")),
            "{level}: {stdout}"
        );
    }
    assert!(stdout.contains("default level: hard"), "{stdout}");
    assert!(stdout.contains("plays as net (mcts)"), "{stdout}");
    // Without a net, hard and expert say so, with the command that gets one.
    for level in ["hard", "expert"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!(
                "level {level} plays tengen's search without a network"
            )) && l.ends_with("`tengen net get` fetches one")),
            "{level}: {stdout}"
        );
    }
}

#[test]
fn the_users_config_is_found_from_any_directory_and_tengen_config_overrides_it() {
    let home = Home::new("user-config");
    std::fs::create_dir_all(home.user_file().parent().unwrap()).unwrap();
    std::fs::write(
        home.user_file(),
        "default_level = \"quick\"\n[levels.quick]\nplayer = \"mcts\"\nplayouts = 50\nthreads = 1\n",
    )
    .unwrap();
    let (code, stdout, stderr) = home.run(&["config"], "", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let user_file = home.user_file().display().to_string();
    assert!(stdout.contains(&format!("config: {user_file}")), "{stdout}");
    assert!(stdout.contains("default level: quick"), "{stdout}");
    assert!(
        stdout.lines().any(|l| l.starts_with("quick")
            && l.contains("50 playouts")
            && l.ends_with(&user_file)),
        "{stdout}"
    );
    let (code, stdout, _) = home.run(&[], "boardsize 9\ngenmove b\nquit\n", &[]);
    assert_eq!(code, Some(0));
    assert!(genmove_answer(&stdout).len() >= 2, "{stdout}");
    // $TENGEN_CONFIG comes first; a missing one is an error, not a silent default.
    let other = home.root.join("other.toml");
    std::fs::write(&other, "default_level = \"easy\"\n").unwrap();
    let (_, stdout, _) = home.run(
        &["config"],
        "",
        &[("TENGEN_CONFIG", other.to_str().unwrap())],
    );
    assert!(stdout.contains("default level: easy"), "{stdout}");
    let (code, _, stderr) = home.run(&["config"], "", &[("TENGEN_CONFIG", "/no/such/file.toml")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("/no/such/file.toml"), "{stderr}");
}

#[test]
fn config_init_writes_the_commented_file_once() {
    let home = Home::new("init");
    let (code, stdout, stderr) = home.run(&["config", "init"], "", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(&home.user_file().display().to_string()),
        "{stdout}"
    );
    let written = std::fs::read_to_string(home.user_file()).unwrap();
    assert_eq!(
        written,
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/engines.toml")).unwrap()
    );
    std::fs::write(home.user_file(), "default_level = \"easy\"\n").unwrap();
    let (code, _, stderr) = home.run(&["config", "init"], "", &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not overwritten"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(home.user_file()).unwrap(),
        "default_level = \"easy\"\n"
    );
}

#[test]
fn a_user_config_with_only_engines_katago_makes_hard_play_through_it() {
    let home = Home::new("katago-engine");
    std::fs::create_dir_all(home.user_file().parent().unwrap()).unwrap();
    let fake = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake-engine.sh");
    std::fs::write(
        home.user_file(),
        format!("[engines.katago]\ncommand = [\"sh\", \"{fake}\", \"analyze\"]\n"),
    )
    .unwrap();
    let (code, stdout, stderr) = home.run(
        &["--level", "hard"],
        "boardsize 9\ngenmove b\nversion\nquit\n",
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    // The fake engine passes, and names itself after its mode.
    assert_eq!(genmove_answer(&stdout), "PASS", "{stdout}");
    assert!(stdout.contains("analyze"), "{stdout}");
}

/// A stand-in `katago` in a directory of `home` that records its arguments in the file
/// returned and speaks GTP as the fake engine, with a net and a config beside it; the
/// directory and that file.
fn fake_katago(home: &Home) -> (PathBuf, PathBuf) {
    let bin = home.root.join("katago-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake-engine.sh");
    let args_file = home.root.join("katago-args");
    std::fs::write(
        bin.join("katago"),
        format!(
            "#!/bin/sh\necho \"$@\" > {}\nexec sh {fake} analyze\n",
            args_file.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["+x", bin.join("katago").to_str().unwrap()])
        .status()
        .unwrap();
    std::fs::write(bin.join("b6c96.bin.gz"), "net").unwrap();
    std::fs::write(bin.join("default_gtp.cfg"), "cfg").unwrap();
    (bin, args_file)
}

#[test]
fn katago_on_path_with_its_net_and_config_beside_it_is_what_expert_plays() {
    let home = Home::new("katago-found");
    let (bin, args_file) = fake_katago(&home);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let (code, stdout, stderr) = home.run(
        &["--level", "expert"],
        "boardsize 9\ngenmove b\nversion\nquit\n",
        &[("PATH", &path)],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(genmove_answer(&stdout), "PASS", "{stdout}");
    assert!(stdout.contains("analyze"), "the child's version: {stdout}");
    let args = std::fs::read_to_string(&args_file).unwrap();
    assert_eq!(
        args.trim(),
        format!(
            "gtp -model {} -config {}",
            bin.join("b6c96.bin.gz").display(),
            bin.join("default_gtp.cfg").display()
        )
    );
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn hard_plays_katago_else_the_net_found_here_else_mcts() {
    let home = Home::new("hard-chain");
    let nets = home.config_dir().join("tengen");
    std::fs::create_dir_all(&nets).unwrap();
    let net = nets.join("b6c96.bin.gz");
    let real_net = common::nets::net(common::nets::G170);
    std::os::unix::fs::symlink(real_net, &net).unwrap();
    let session = "boardsize 9\ngenmove b\nkata-raw-nn 0\nversion\nquit\n";
    let no_katago = [("PATH", "/usr/bin:/bin")];
    // The raw net answers only where the level searches with a net.
    let has_net = |stdout: &str| stdout.contains("= symmetry 0\nwhiteWin");
    let plays_a_vertex = |stdout: &str| {
        let vertex = genmove_answer(stdout);
        vertex.len() >= 2 && vertex != "PASS" && vertex != "resign"
    };

    // No KataGo, a net in tengen's config directory: hard and expert search with it, and
    // the default level is hard.
    for level in ["hard", "expert"] {
        let (code, stdout, stderr) = home.run(&["--level", level], session, &no_katago);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(plays_a_vertex(&stdout), "{level}: {stdout}");
        assert!(has_net(&stdout), "{level} has no net: {stdout}");
    }
    let (_, config, _) = home.run(&["config"], "", &no_katago);
    let line = |level: &str| line_of(&config, level);
    assert!(line("hard").contains("plays as net"), "{config}");
    assert!(line("expert").contains("plays as net"), "{config}");
    assert!(
        line("net").contains(&format!("search with net {}, 200 visits", net.display())),
        "{config}"
    );
    assert!(
        config.contains(&format!(
            "network: {} (tengen's config directory)",
            net.display()
        )),
        "{config}"
    );
    assert!(!config.contains("without a network"), "{config}");
    let (_, stdout, stderr) = home.run(&[], session, &no_katago);
    assert!(has_net(&stdout), "the default level: {stdout} {stderr}");
    // tengen analysis without -model searches with it too; with -level mcts, without.
    let loaded = format!("loaded network {}", net.display());
    let info = [no_katago[0], ("RUST_LOG", "info")];
    let (code, _, stderr) = home.run(&["analysis"], "", &info);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains(&loaded), "{stderr}");
    let (_, _, stderr) = home.run(&["analysis", "-level", "mcts"], "", &info);
    assert!(!stderr.contains("loaded network"), "{stderr}");

    // A net in tengen's nets directory comes before one in the config directory; a known
    // one before others.
    std::fs::create_dir_all(home.nets_dir()).unwrap();
    let mine = home.nets_dir().join("mine.bin.gz");
    let known = home
        .nets_dir()
        .join("g170-b6c96-s175395328-d26788732.bin.gz");
    for link in [&mine, &known] {
        std::os::unix::fs::symlink(common::nets::net(common::nets::G170), link).unwrap();
    }
    let (_, config, _) = home.run(&["config"], "", &no_katago);
    assert!(
        config.contains(&format!(
            "network: {} (tengen's nets directory)",
            known.display()
        )),
        "{config}"
    );
    // hard's own net comes first.
    std::fs::create_dir_all(home.user_file().parent().unwrap()).unwrap();
    let own = format!(
        "[levels.hard]\nplayer = \"external\"\nengine = \"katago\"\nfallback = [\"mcts\"]\n\
         only_if_present = true\nnet = \"{}\"\n",
        mine.display()
    );
    std::fs::write(home.user_file(), &own).unwrap();
    let (_, config, _) = home.run(&["config"], "", &no_katago);
    assert!(
        line_of(&config, "hard").contains(&format!(
            "plays as its own net (search with net {}, 200 visits)",
            mine.display()
        )),
        "{config}"
    );
    // An old engines.toml whose hard falls back to mcts alone cuts the chain: said so.
    std::fs::write(
        home.user_file(),
        own.lines().take(5).collect::<Vec<_>>().join("\n"),
    )
    .unwrap();
    let (_, config, _) = home.run(&["config"], "", &no_katago);
    assert!(
        config.contains("level hard plays tengen's search without a network: its fallbacks in")
            && config.contains("add \"net\" first to its fallback"),
        "{config}"
    );
    let (_, stdout, stderr) = home.run(&["--level", "hard"], session, &no_katago);
    assert!(!has_net(&stdout), "{stdout}");
    assert_eq!(
        stderr.matches("without a network").count(),
        1,
        "said once: {stderr}"
    );
    for file in [home.user_file(), mine, known] {
        std::fs::remove_file(file).unwrap();
    }
    // mcts never loads a net unless told to.
    let (_, stdout, _) = home.run(&["--level", "mcts"], session, &no_katago);
    assert!(!has_net(&stdout) && plays_a_vertex(&stdout), "{stdout}");

    // KataGo present: it plays, and tengen loads no net.
    let (bin, _) = fake_katago(&home);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let (code, stdout, stderr) = home.run(&["--level", "hard"], session, &[("PATH", &path)]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        genmove_answer(&stdout),
        "PASS",
        "the fake KataGo passes: {stdout}"
    );
    assert!(stdout.contains("analyze") && !has_net(&stdout), "{stdout}");

    // A corrupt net: one error line naming it, and hard plays mcts.
    std::fs::remove_file(&net).unwrap();
    std::fs::write(&net, b"\x1f\x8b not a network").unwrap();
    let (code, stdout, stderr) = home.run(&["--level", "hard"], session, &no_katago);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(plays_a_vertex(&stdout) && !has_net(&stdout), "{stdout}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("ERROR")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(&net.display().to_string()), "{stderr}");

    // No net anywhere: hard is the net level without a net, which is mcts, and says so.
    std::fs::remove_file(&net).unwrap();
    let (code, stdout, stderr) = home.run(&["--level", "hard"], session, &no_katago);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(plays_a_vertex(&stdout) && !has_net(&stdout), "{stdout}");
    assert!(stderr.contains("`tengen net get` fetches one"), "{stderr}");
    let (_, config, _) = home.run(&["config"], "", &no_katago);
    assert!(
        config.contains("plays as net (mcts)") && line_of(&config, "net").contains("mcts"),
        "{config}"
    );
}

/// The line of `tengen config`'s report about `level`.
fn line_of(config: &str, level: &str) -> String {
    let found = config.lines().find(|l| l.starts_with(&format!("{level} ")));
    found.unwrap_or_default().to_string()
}

#[test]
fn gtp2ogs_board_sizes_and_match_help_defaults() {
    let home = Home::new("sizes-help");
    let (code, stdout, _) = home.run(&[], "boardsize 19 13\nboardsize 13 13\nquit\n", &[]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout, "? unacceptable size\n\n= \n\n= \n\n");
    let (code, stdout, _) = home.run(&["match", "--help"], "", &[]);
    assert_eq!(code, Some(0));
    for default in [
        "--games <N>",
        "[default: 2]",
        "[default: 9]",
        "[default: 7]",
        "[default: 60]",
        "--opening-moves <N>",
        "[default: 6]",
    ] {
        assert!(stdout.contains(default), "{default}: {stdout}");
    }
}

#[test]
fn completions_and_the_manual_page_come_from_the_command_line_definition() {
    let home = Home::new("completions");
    let (code, stdout, _) = home.run(&["completions", "bash"], "", &[]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("_tengen()") && stdout.contains("--level"),
        "{stdout}"
    );
    let (code, stdout, _) = home.run(&["man"], "", &[]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains(".TH tengen 1") && stdout.contains("serve"),
        "{stdout}"
    );
}

#[test]
fn reports_to_a_reader_that_closed_the_pipe_end_cleanly() {
    let home = Home::new("closed-pipe");
    for args in [
        &["config"][..],
        &["completions", "bash"],
        &["man"],
        &["book", "show"],
    ] {
        let run = |stdout: Stdio| {
            Command::new(common::tengen_path())
                .args(args)
                .current_dir(home.root.join("work"))
                .env("HOME", &home.root)
                .env("XDG_CONFIG_HOME", home.config_dir())
                .stdin(Stdio::null())
                .stdout(stdout)
                .stderr(Stdio::piped())
                .output()
                .unwrap()
        };
        // It has something to write...
        let read = run(Stdio::piped());
        assert!(
            read.status.success() && !read.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&read.stderr)
        );
        // ... into a pipe whose reader is gone before tengen starts, as `tengen config |
        // head -0` may leave it: its first write meets the broken pipe, whatever its speed.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = run(Stdio::from(writer));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
