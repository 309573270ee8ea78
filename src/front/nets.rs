//! `tengen net`: KataGo's networks on this machine. `get` fetches one into tengen's nets
//! directory and checks it before it takes its name, `list` shows the known nets and those
//! here, `info` says what a file is and whether this build reads it.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, HumanDuration, ProgressBar, ProgressStyle};

use crate::ground::download::{self, Progress};
use crate::ground::locate;
use crate::knowledge::net::Net;
use crate::knowledge::net::found;
use crate::knowledge::net::known::{self, KnownNet};
use crate::knowledge::net::model::Model;

/// The most bytes a net fetched from an address tengen does not know may have.
const MAX_UNKNOWN_BYTES: u64 = 2 << 30;

/// What `tengen net get` was asked for.
#[derive(Clone, Debug)]
pub struct GetOptions {
    /// A known net's name, or an http(s) address; `None`: the default net.
    pub net: Option<String>,
    /// The directory to keep it in instead of the nets directory.
    pub to: Option<PathBuf>,
    /// The sha256 the file must have (a known net's own when not given).
    pub sha256: Option<String>,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
}

/// The nets directory, or why there is none.
fn nets_dir() -> Result<PathBuf, String> {
    locate::nets_dir().ok_or_else(|| "no data directory is known here (is HOME set?)".into())
}

/// What to fetch: the address, the file's name, and the known net it is, if any.
fn resolve(asked: Option<&str>) -> Result<(String, String, Option<&'static KnownNet>), String> {
    let known = match asked {
        None => known::default_net(),
        Some(url) if url.contains("://") => {
            let file = file_name(url)?;
            return Ok((url.to_string(), file.clone(), known::by_file(&file)));
        }
        Some(name) => known::find(name).ok_or_else(|| {
            format!("no known net is named {name} (`tengen net list` shows them; or give its URL)")
        })?,
    };
    Ok((known.url.to_string(), known.file.to_string(), Some(known)))
}

/// The file name at the end of `url`'s path, if it is one a net may have.
fn file_name(url: &str) -> Result<String, String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next().unwrap_or("");
    if name.is_empty()
        || name.starts_with('.')
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return Err(format!(
            "{url}: its path does not end in a file name (letters, digits, '.', '_', '-')"
        ));
    }
    if !locate::is_network_file(name) {
        return Err(format!(
            "{url}: {name} is not a net's name (*.bin.gz or *.txt.gz; a .zip must be unpacked first)"
        ));
    }
    Ok(name.to_string())
}

/// Fetches a net into the nets directory (or `--to`), checks it, and gives it its name: the
/// path it has then. An error is one line.
pub fn get(options: &GetOptions) -> Result<PathBuf, String> {
    let (url, file, known) = resolve(options.net.as_deref())?;
    let sha256 = match &options.sha256 {
        Some(sum) if sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Some(sum.to_lowercase())
        }
        Some(sum) => return Err(format!("--sha256 {sum}: not 64 hex digits")),
        None => known.map(|net| net.sha256.to_string()),
    };
    let dir = match &options.to {
        Some(dir) => dir.clone(),
        None => nets_dir()?,
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot make the nets directory {}: {e}", dir.display()))?;
    let target = dir.join(&file);
    let expected = Expected {
        bytes: known.map(|net| net.bytes),
        sha256: sha256.as_deref(),
    };
    if target.exists() {
        match check(&target, &file, &expected) {
            Ok(what) => {
                eprintln!("{} is here already: {what}", target.display());
                return Ok(target);
            }
            Err(why) => eprintln!("{} is here but {why}: fetching it again", target.display()),
        }
    }
    let download = download::Options {
        connect_timeout: options.connect_timeout,
        read_timeout: options.read_timeout,
        max_bytes: known.map_or(MAX_UNKNOWN_BYTES, |net| net.bytes),
    };
    let mut progress = Shown::new(&file);
    download::fetch(&url, &target, &download, &mut progress).map_err(|e| format!("{url}: {e}"))?;
    let part = download::part_path(&target);
    match check(&part, &file, &expected) {
        Ok(what) => {
            download::finish(&target)
                .map_err(|e| format!("cannot name {}: {e}", target.display()))?;
            eprintln!("{}: {what}", target.display());
            Ok(target)
        }
        Err(why) => {
            let gone = match download::discard(&target) {
                Ok(()) => "it is deleted".to_string(),
                Err(e) => format!("deleting {} failed: {e}", part.display()),
            };
            Err(format!("{url}: {why}; {gone}"))
        }
    }
}

/// What a fetched file must be, as far as it is known.
struct Expected<'a> {
    bytes: Option<u64>,
    sha256: Option<&'a str>,
}

/// Checks the file at `path` that is to be named `name`: its size and sha256 where known, then
/// that it loads and evaluates the empty board. What it is, or why it fails, in a few words.
fn check(path: &Path, name: &str, expected: &Expected) -> Result<String, String> {
    let bytes = std::fs::metadata(path)
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    if let Some(want) = expected.bytes.filter(|&want| want != bytes) {
        return Err(format!("has {bytes} bytes, not the {want} published"));
    }
    let mut verified = "";
    if let Some(want) = expected.sha256 {
        let sum = download::sha256(path).map_err(|e| format!("cannot be read: {e}"))?;
        if sum != want {
            return Err(format!("its sha256 is {sum}, not {want}"));
        }
        verified = ", sha256 as expected";
    }
    let net = known::load_as(path, name).map_err(|e| match known::read_header(path, name) {
        Ok(header) => format!(
            "it is a {} net ({}), which this build cannot read: {}",
            header.architecture, header.name, e.problem
        ),
        Err(_) => format!("it is not a net this build reads: {}", e.problem),
    })?;
    known::evaluates(&net)?;
    let model = net.model();
    Ok(format!(
        "{}, model version {}{verified}, evaluates the empty board",
        known::architecture(model),
        model.version
    ))
}

/// Progress on stderr: a bar on a terminal, else a line every few seconds.
struct Shown {
    file: String,
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
    from: u64,
    done: u64,
    total: Option<u64>,
}

/// How often a plain progress line is written.
const LINE_EVERY: Duration = Duration::from_secs(5);

impl Shown {
    fn new(file: &str) -> Shown {
        Shown {
            file: file.to_string(),
            bar: None,
            started: Instant::now(),
            last_line: Instant::now(),
            from: 0,
            done: 0,
            total: None,
        }
    }

    /// Bytes so far, rate and time left, for a plain line.
    fn line(&self) -> String {
        let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = (self.done - self.from) as f64 / seconds;
        match self.total {
            Some(total) => {
                let left = (total.saturating_sub(self.done)) as f64 / rate.max(1.0);
                format!(
                    "{}: {} of {} ({}/s, {} left)",
                    self.file,
                    HumanBytes(self.done),
                    HumanBytes(total),
                    HumanBytes(rate as u64),
                    HumanDuration(Duration::from_secs_f64(left.min(1e7)))
                )
            }
            None => format!(
                "{}: {} ({}/s)",
                self.file,
                HumanBytes(self.done),
                HumanBytes(rate as u64)
            ),
        }
    }
}

impl Progress for Shown {
    fn start(&mut self, from: u64, total: Option<u64>) {
        (self.from, self.done, self.total) = (from, from, total);
        self.started = Instant::now();
        self.last_line = self.started;
        let resumed = if from > 0 {
            format!(", going on after {}", HumanBytes(from))
        } else {
            String::new()
        };
        if !io::stderr().is_terminal() {
            let of = total.map_or(String::new(), |t| format!(" ({})", HumanBytes(t)));
            eprintln!("fetching {}{of}{resumed}", self.file);
            return;
        }
        let (bar, template) = match total {
            Some(total) => (
                ProgressBar::new(total),
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, {eta} left",
            ),
            None => (ProgressBar::new_spinner(), "{msg} {bytes} {bytes_per_sec}"),
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(format!("{}{resumed}", self.file));
        bar.set_position(from);
        bar.reset_eta();
        self.bar = Some(bar);
    }

    fn advance(&mut self, bytes: u64) {
        self.done += bytes;
        match &self.bar {
            Some(bar) => bar.inc(bytes),
            None if self.last_line.elapsed() >= LINE_EVERY => {
                self.last_line = Instant::now();
                eprintln!("{}", self.line());
            }
            None => {}
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.done > self.from {
            eprintln!(
                "{}: {} fetched in {}",
                self.file,
                HumanBytes(self.done - self.from),
                HumanDuration(self.started.elapsed())
            );
        }
    }
}

/// Writes the known nets, then the nets in the nets directory (and the one the levels would
/// find elsewhere), each with whether it loads.
pub fn list(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Known nets (`tengen net get NAME`; without a name, {}):",
        known::DEFAULT
    )?;
    for net in known::KNOWN {
        writeln!(
            out,
            "  {:<18} {:>10}  {:<19} model version {:<3} {}",
            net.name,
            HumanBytes(net.bytes).to_string(),
            net.architecture.to_string(),
            net.model_version,
            net.purpose
        )?;
    }
    let dir = nets_dir();
    match &dir {
        Ok(dir) => writeln!(out, "Nets here ({}):", dir.display())?,
        Err(why) => writeln!(out, "Nets here: {why}")?,
    }
    let mut files: Vec<PathBuf> = dir
        .as_ref()
        .ok()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    files.sort();
    let mut shown = 0;
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if locate::is_network_file(name) {
            writeln!(out, "  {}  {}", path.display(), loads(path))?;
        } else if let Some(net) = name.strip_suffix(".part") {
            let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
            writeln!(
                out,
                "  {}  a partial download ({}): `tengen net get` goes on with {net}",
                path.display(),
                HumanBytes(bytes)
            )?;
        } else {
            continue;
        }
        shown += 1;
    }
    if shown == 0 {
        writeln!(out, "  none")?;
    }
    match found::found_net() {
        Some(found) => {
            writeln!(out, "The levels play with ({}):", found.whence)?;
            writeln!(out, "  {}  {}", found.path.display(), loads(&found.path))?;
            writeln!(
                out,
                "  the `net` level, and `hard` and `expert` while KataGo is not here"
            )?;
        }
        None => writeln!(
            out,
            "The levels play with: no net (looked in {})",
            found::places()
        )?,
    }
    Ok(())
}

/// Whether the net at `path` loads, and what it is.
fn loads(path: &Path) -> String {
    match Model::load(path) {
        Ok(model) => {
            let known = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(known::by_file)
                .map_or(String::new(), |net| format!(" ({})", net.name));
            format!(
                "loads: {}, model version {}{known}",
                known::architecture(&model),
                model.version
            )
        }
        Err(e) => format!("does not load: {}", e.problem),
    }
}

/// Writes what the file at `path` is: its header, size, sha256, and whether this build reads
/// it. `Ok(Err(why))` when it does not.
pub fn info(path: &Path, out: &mut dyn Write) -> Result<Result<(), String>, String> {
    let shown = path.display();
    let bytes = std::fs::metadata(path)
        .map_err(|e| format!("{shown}: {e}"))?
        .len();
    let sum = download::sha256(path).map_err(|e| format!("{shown}: {e}"))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let mut lines: Vec<(&str, String)> = vec![
        ("file", shown.to_string()),
        ("bytes", bytes.to_string()),
        ("sha256", sum.clone()),
    ];
    let known = known::KNOWN.iter().find(|net| net.sha256 == sum);
    lines.push((
        "known as",
        known.map_or("none of the known nets".into(), |net| {
            format!("{} ({})", net.name, net.file)
        }),
    ));
    let readable = match Net::load(path) {
        Ok(net) => {
            lines.extend(known::describe(net.model()));
            known::evaluates(&net)
        }
        Err(e) => {
            match known::read_header(path, name) {
                Ok(header) => {
                    lines.push(("name", header.name));
                    lines.push(("model version", header.version.to_string()));
                    lines.push(("trunk", header.architecture.to_string()));
                    lines.push(("blocks", header.blocks.to_string()));
                    if header.trunk_norm == 1 {
                        lines.push(("trunk norm", "RMSNorm".into()));
                    }
                }
                Err(why) => lines.push(("header", why)),
            }
            Err(e.problem.to_string())
        }
    };
    lines.push((
        "this build",
        match &readable {
            Ok(()) => "reads it and evaluates the empty board".to_string(),
            Err(why) => format!("cannot read it: {why}"),
        },
    ));
    let write = |out: &mut dyn Write| -> io::Result<()> {
        for (label, value) in &lines {
            writeln!(out, "{:<14} {value}", format!("{label}:"))?;
        }
        Ok(())
    };
    match write(out) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(readable),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_must_end_in_a_nets_file_name() {
        assert_eq!(
            file_name("https://host/a/b/net-1.bin.gz?x=1").as_deref(),
            Ok("net-1.bin.gz")
        );
        assert_eq!(
            file_name("http://host/n.txt.gz#f").as_deref(),
            Ok("n.txt.gz")
        );
        for bad in [
            "https://host/",
            "https://host/net.zip",
            "https://host/../.bin.gz",
            "https://host/a%20b.bin.gz",
        ] {
            let e = file_name(bad).unwrap_err();
            assert!(e.starts_with(bad), "{e}");
        }
    }

    #[test]
    fn names_and_addresses_resolve() {
        let (url, file, net) = resolve(None).unwrap();
        assert_eq!(net.map(|n| n.name), Some(known::DEFAULT));
        assert!(url.ends_with(&file));
        let (_, _, net) = resolve(Some("kata1-b18c384nbt")).unwrap();
        assert_eq!(net.map(|n| n.bytes), Some(97_898_094));
        let mirror = "http://127.0.0.1:1/g170-b6c96-s175395328-d26788732.bin.gz";
        let (_, _, net) = resolve(Some(mirror)).unwrap();
        assert_eq!(
            net.map(|n| n.name),
            Some("g170-b6c96"),
            "checked as the known file"
        );
        assert!(resolve(Some("b99")).unwrap_err().contains("no known net"));
    }
}
