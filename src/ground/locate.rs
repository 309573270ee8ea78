//! Finding programs and their files on this machine: a program on `PATH`, whether a command
//! can run here, KataGo's network and config, and tengen's own config and data directories. It
//! imports nothing from the crate, so any layer may ask it (the config for its built-in
//! engines, and `knowledge::net::found` for the network the levels play with).

use std::path::{Path, PathBuf};

/// The KataGo program's name, looked for on `PATH`.
pub const KATAGO: &str = "katago";

/// The directory on `PATH` that holds `program`, if any.
pub fn dir_on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).find(|dir| dir.join(program).is_file())
}

/// Whether a command can run here: its program exists (as a path, or on `PATH`), no
/// argument is empty (an unset `${VAR}`), and every argument that is a path exists.
pub fn is_present(command: &[String]) -> bool {
    let Some((program, args)) = command.split_first() else {
        return false;
    };
    let program_found = if program.contains('/') {
        Path::new(program).is_file()
    } else {
        dir_on_path(program).is_some()
    };
    program_found
        && args.iter().all(|arg| {
            !arg.is_empty()
                && (arg.starts_with('-') || !arg.contains('/') || Path::new(arg).exists())
        })
}

/// The files KataGo's `gtp` command needs, where found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KataGoFiles {
    /// The network: `$KATAGO_MODEL`, else a `*.bin.gz` or `*.txt.gz` beside the program.
    pub model: Option<String>,
    /// The config: `$KATAGO_CONFIG`, else `default_gtp.cfg`, `gtp_example.cfg` or another
    /// `*.cfg` beside the program.
    pub config: Option<String>,
}

/// KataGo's network and config on this machine (the program found on `PATH`).
pub fn katago_files() -> KataGoFiles {
    let dir = dir_on_path(KATAGO);
    let from_env = |var: &str| std::env::var(var).ok().filter(|v| !v.is_empty());
    KataGoFiles {
        model: from_env("KATAGO_MODEL").or_else(|| file_in(dir.as_deref()?, &[], is_network_file)),
        config: from_env("KATAGO_CONFIG").or_else(|| {
            let preferred = ["default_gtp.cfg", "gtp_example.cfg"];
            file_in(dir.as_deref()?, &preferred, |n| n.ends_with(".cfg"))
        }),
    }
}

/// Whether a file name is a KataGo network's.
pub fn is_network_file(name: &str) -> bool {
    name.ends_with(".bin.gz") || name.ends_with(".txt.gz")
}

/// tengen's directory in the platform's config directory (`$XDG_CONFIG_HOME/tengen` or
/// `~/.config/tengen` on Linux).
pub fn config_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|dir| dir.join("tengen"))
}

/// Where `tengen net get` keeps networks: `nets` in tengen's directory of the platform's data
/// directory (`$XDG_DATA_HOME/tengen/nets` or `~/.local/share/tengen/nets` on Linux).
pub fn nets_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("tengen").join("nets"))
}

/// The path of a file in `dir`: the first of `preferred` present, else the first by name
/// whose name `matches`.
fn file_in(dir: &Path, preferred: &[&str], matches: impl Fn(&str) -> bool) -> Option<String> {
    if let Some(name) = preferred.iter().find(|n| dir.join(n).is_file()) {
        return Some(dir.join(name).display().to_string());
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&matches))
        .collect();
    found.sort();
    found.first().map(|p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presence_needs_the_program_and_every_path_argument() {
        let command = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert!(is_present(&command(&["sh", "-c", "true"])));
        assert!(!is_present(&command(&["no-such-engine-anywhere", "gtp"])));
        assert!(!is_present(&command(&["/no/such/katago", "gtp"])));
        assert!(!is_present(&command(&["sh", "-model", ""])));
        assert!(!is_present(&command(&[
            "sh",
            "-model",
            "/no/such/net.bin.gz"
        ])));
        assert!(is_present(&command(&["sh", "-config", "/dev/null"])));
        assert!(!is_present(&[]));
    }

    #[test]
    fn a_file_in_a_directory_is_the_preferred_one_else_the_first_that_matches() {
        let dir = std::env::temp_dir().join(format!("tengen-locate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["b.cfg", "a.cfg", "net.bin.gz", "notes.txt"] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        let cfg = |n: &str| n.ends_with(".cfg");
        let path = |name: &str| Some(dir.join(name).display().to_string());
        assert_eq!(file_in(&dir, &[], cfg), path("a.cfg"));
        assert_eq!(file_in(&dir, &["gtp.cfg", "b.cfg"], cfg), path("b.cfg"));
        assert_eq!(file_in(&dir, &[], |n| n.ends_with(".txt.gz")), None);
        assert_eq!(file_in(&dir.join("missing"), &[], cfg), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
