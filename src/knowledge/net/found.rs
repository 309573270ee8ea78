//! The network this machine offers tengen's own search when no level names one, and where it
//! was found: `$KATAGO_MODEL`, else a net beside the `katago` program, else the first net in
//! tengen's nets directory (where `tengen net get` puts them: the known nets in the known
//! list's order, then other files newest first), else one in tengen's config directory.
//! Only names are read, so asking costs a few directory listings; a known net that this build
//! cannot read (a transformer) is passed over.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::known::{self, KNOWN};
use crate::ground::locate;

/// Where a net was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whence {
    /// The environment variable `KATAGO_MODEL`.
    KatagoModel,
    /// Beside the `katago` program on `PATH`.
    BesideKatago,
    /// tengen's nets directory ([`locate::nets_dir`]).
    NetsDir,
    /// tengen's config directory ([`locate::config_dir`]).
    ConfigDir,
}

impl fmt::Display for Whence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Whence::KatagoModel => "$KATAGO_MODEL",
            Whence::BesideKatago => "beside katago",
            Whence::NetsDir => "tengen's nets directory",
            Whence::ConfigDir => "tengen's config directory",
        })
    }
}

/// A network file found on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundNet {
    pub path: PathBuf,
    pub whence: Whence,
}

/// The first net of the chain, if any.
pub fn found_net() -> Option<FoundNet> {
    found_in_chain(Some, first_in)
}

/// The known net `name` (by its published file's name) where [`found_net`] looks, in the same
/// order: `$KATAGO_MODEL` when it is that file, else the file beside katago, in tengen's nets
/// directory or in its config directory.
pub fn found_known(name: &str) -> Option<FoundNet> {
    let net = known::find(name)?;
    found_in_chain(
        |path| {
            path.file_name()
                .is_some_and(|n| n == net.file)
                .then_some(path)
        },
        |dir| Some(dir.join(net.file)).filter(|path| path.is_file()),
    )
}

/// The chain's first find: `$KATAGO_MODEL` where `model` takes it, else what `in_dir` finds
/// beside katago, in tengen's nets directory, then in its config directory.
fn found_in_chain(
    model: impl Fn(PathBuf) -> Option<PathBuf>,
    in_dir: impl Fn(&Path) -> Option<PathBuf>,
) -> Option<FoundNet> {
    let from_env = std::env::var_os("KATAGO_MODEL")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .and_then(&model);
    if let Some(path) = from_env {
        return Some(FoundNet {
            path,
            whence: Whence::KatagoModel,
        });
    }
    [
        (locate::dir_on_path(locate::KATAGO), Whence::BesideKatago),
        (locate::nets_dir(), Whence::NetsDir),
        (locate::config_dir(), Whence::ConfigDir),
    ]
    .into_iter()
    .find_map(|(dir, whence)| {
        let path = in_dir(&dir?)?;
        Some(FoundNet { path, whence })
    })
}

/// Where [`found_net`] looks, in its order, as a user reads it.
pub fn places() -> String {
    let dir = |dir: Option<PathBuf>, what: &str| {
        dir.map_or(format!("{what} (unknown here)"), |d| {
            d.display().to_string()
        })
    };
    format!(
        "$KATAGO_MODEL, beside katago, {}, {}",
        dir(locate::nets_dir(), "tengen's nets directory"),
        dir(locate::config_dir(), "tengen's config directory")
    )
}

/// The visits a move of tengen's search makes with the net at `path` when no clock or
/// `--playouts` bounds it, so that a 19x19 move takes 2 s or less on one thread: the known
/// list's figure, else the smallest known net's scaled by the file's size (a net's weights,
/// and so its work per position, grow with it), from one to that net's own (a file smaller
/// than the smallest net is likely no net, and a search without one counts playouts).
pub fn visits(path: &Path) -> u64 {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some(net) = known::by_file(name) {
        return net.visits;
    }
    let smallest = KNOWN
        .iter()
        .min_by_key(|net| net.bytes)
        .expect("the known list is not empty");
    let bytes = std::fs::metadata(path).map_or(smallest.bytes, |m| m.len().max(1));
    (smallest.visits * smallest.bytes / bytes).clamp(1, smallest.visits)
}

/// The first net in `dir` by [`in_order`].
fn first_in(dir: &Path) -> Option<PathBuf> {
    in_order(dir).into_iter().next()
}

/// The nets in `dir`, in the order the levels take them: the known
/// nets as the known list orders them (the strongest per second on a CPU first), then the
/// others, newest first (by name when of one age).
pub fn in_order(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut nets: Vec<(usize, std::cmp::Reverse<SystemTime>, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_name()?.to_str()?;
            if !locate::is_network_file(name) || !path.is_file() {
                return None;
            }
            let rank = KNOWN
                .iter()
                .position(|net| net.file == name)
                .unwrap_or(KNOWN.len());
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            Some((rank, std::cmp::Reverse(modified), path))
        })
        .collect();
    nets.sort();
    nets.into_iter().map(|(_, _, path)| path).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_nets_come_first_in_the_known_order_then_the_newest() {
        let dir = std::env::temp_dir().join(format!("tengen-found-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, age_s: u64| {
            let path = dir.join(name);
            std::fs::write(&path, "").unwrap();
            let when = SystemTime::now() - Duration::from_secs(age_s);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        let first = KNOWN[0].file;
        let second = KNOWN[1].file;
        write("old-own.bin.gz", 500);
        write(second, 400);
        write("new-own.txt.gz", 10);
        write(first, 300);
        let last = KNOWN[KNOWN.len() - 1].file;
        write(last, 1);
        write("notes.txt", 0);
        write("half.bin.gz.part", 0);
        let names: Vec<String> = in_order(&dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [first, second, last, "new-own.txt.gz", "old-own.bin.gz"]
        );
        assert_eq!(first_in(&dir), Some(dir.join(first)));
        assert!(in_order(&dir.join("missing")).is_empty());
        // The visits: a known net's own, else the smallest's scaled by the file's size.
        assert_eq!(visits(&dir.join(second)), KNOWN[1].visits);
        let smallest = KNOWN.iter().min_by_key(|net| net.bytes).unwrap();
        // Sparse files: only their length is read.
        let sized = |name: &str, times: u64| {
            let file = std::fs::File::create(dir.join(name)).unwrap();
            file.set_len(smallest.bytes * times).unwrap();
            visits(&dir.join(name))
        };
        assert_eq!(sized("big.bin.gz", 5), smallest.visits / 5);
        assert_eq!(sized("huge.bin.gz", 1000), 1);
        assert_eq!(
            visits(&dir.join("notes.txt")),
            smallest.visits,
            "an empty file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
