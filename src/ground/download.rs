//! Downloading one file over HTTP or HTTPS into `FILE.part` beside its final name, resumed by a
//! later call where the server allows ranges, and given its name only once the caller has
//! checked it ([`finish`]). The proxy comes from the environment (`HTTPS_PROXY`, `ALL_PROXY`,
//! `HTTP_PROXY`, with `NO_PROXY`). It imports nothing from the crate.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How a download may go.
#[derive(Clone, Debug)]
pub struct Options {
    /// The longest wait to connect (name lookup, TCP, TLS, proxy).
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes of the answer.
    pub read_timeout: Duration,
    /// The most bytes the file may have.
    pub max_bytes: u64,
}

/// Told how a transfer goes, to show it.
pub trait Progress {
    /// The transfer starts with `from` bytes already on disk, of `total` when it is announced.
    fn start(&mut self, from: u64, total: Option<u64>);
    /// `bytes` more arrived.
    fn advance(&mut self, bytes: u64);
    /// The transfer ended, whole or not.
    fn finish(&mut self);
}

/// A finished transfer: the `.part` file holds the whole body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The file's length.
    pub bytes: u64,
    /// The bytes that an earlier call had fetched (0 when it started from zero).
    pub resumed_from: u64,
}

/// The file a download of `target` writes: `target` with `.part` added.
pub fn part_path(target: &Path) -> PathBuf {
    with_suffix(target, ".part")
}

/// Where the URL and validator (ETag or Last-Modified) of `target`'s `.part` file are kept.
fn validator_path(target: &Path) -> PathBuf {
    with_suffix(target, ".part.validator")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Gives the whole, checked `.part` file of `target` its name.
pub fn finish(target: &Path) -> io::Result<()> {
    fs::rename(part_path(target), target)?;
    remove_if_present(&validator_path(target))
}

/// Removes `target`'s `.part` file and its validator: what they hold is not worth resuming.
pub fn discard(target: &Path) -> io::Result<()> {
    remove_if_present(&part_path(target))?;
    remove_if_present(&validator_path(target))
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Downloads `url` into `target`'s `.part` file, going on from where an earlier call for the
/// same URL stopped when the server still has the same file (`Range` with `If-Range`); a
/// server that answers with the whole file (`200`) starts it again from zero. An interrupted
/// transfer leaves the `.part` file to resume; every error is one line.
pub fn fetch(
    url: &str,
    target: &Path,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Fetched, String> {
    let part = part_path(target);
    let agent = agent(options);
    let mut resume = resumable(&part, &validator_path(target), url);
    loop {
        let mut request = agent.get(url);
        if let Some((from, validator)) = &resume {
            request = request
                .header("Range", format!("bytes={from}-"))
                .header("If-Range", validator.as_str());
        }
        let response = request.call().map_err(|e| request_error(&e, options))?;
        let status = response.status();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let (from, total) = match (status.as_u16(), &resume) {
            (206, Some((from, _))) => match content_range(header("content-range").as_deref()) {
                Some((start, total)) if start == *from => (start, total),
                // Not the range asked for: the whole file again, once.
                _ => {
                    discard(target).map_err(|e| write_error(&e, &part))?;
                    resume = None;
                    continue;
                }
            },
            (200, _) => (0, header("content-length").and_then(|v| v.parse().ok())),
            // The part may be longer than the file is now: the whole file again, once.
            (416, Some(_)) => {
                discard(target).map_err(|e| write_error(&e, &part))?;
                resume = None;
                continue;
            }
            _ => {
                let reason = status.canonical_reason().unwrap_or("");
                return Err(format!("the server answered {} {reason}", status.as_u16()));
            }
        };
        if let Some(total) = total.filter(|&t| t > options.max_bytes) {
            return Err(format!(
                "the server announces {total} bytes, more than the {} a net may have",
                options.max_bytes
            ));
        }
        let mut file = if from == 0 {
            let validator = strong_validator(header("etag"), header("last-modified"));
            let file = File::create(&part).map_err(|e| write_error(&e, &part))?;
            keep_validator(target, url, validator.as_deref())
                .map_err(|e| write_error(&e, &validator_path(target)))?;
            file
        } else {
            OpenOptions::new()
                .append(true)
                .open(&part)
                .map_err(|e| write_error(&e, &part))?
        };
        progress.start(from, total);
        let mut body = response.into_body().into_reader();
        let copied = transfer(&mut body, &mut file, from, total, options, &part, progress);
        progress.finish();
        let bytes = copied?;
        file.sync_all().map_err(|e| write_error(&e, &part))?;
        return Ok(Fetched {
            bytes,
            resumed_from: from,
        });
    }
}

/// An agent with the timeouts of `options`, following up to 10 redirects (more is an error),
/// leaving the body as it is sent (no `Accept-Encoding`), taking every status as an answer.
fn agent(options: &Options) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_resolve(Some(options.connect_timeout))
        .timeout_connect(Some(options.connect_timeout))
        .timeout_per_read(Some(options.read_timeout))
        .user_agent(concat!("tengen/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

/// The offset and validator to resume `part` from: its length, when the validator kept beside
/// it names the same URL.
fn resumable(part: &Path, validator_file: &Path, url: &str) -> Option<(u64, String)> {
    let length = fs::metadata(part).ok()?.len();
    let kept = fs::read_to_string(validator_file).ok()?;
    let (kept_url, validator) = kept.trim_end().split_once('\n')?;
    (length > 0 && kept_url == url && !validator.is_empty())
        .then(|| (length, validator.to_string()))
}

/// The validator `If-Range` may carry: a strong ETag, else Last-Modified.
fn strong_validator(etag: Option<String>, last_modified: Option<String>) -> Option<String> {
    etag.filter(|tag| tag.starts_with('"')).or(last_modified)
}

/// Keeps the URL and validator of a transfer starting from zero beside its `.part` file; with
/// no validator, none is kept and a later call starts from zero again.
fn keep_validator(target: &Path, url: &str, validator: Option<&str>) -> io::Result<()> {
    let path = validator_path(target);
    match validator.filter(|v| !v.contains(['\n', '\r'])) {
        Some(validator) => fs::write(path, format!("{url}\n{validator}\n")),
        None => remove_if_present(&path),
    }
}

/// The first byte and the total length of `Content-Range: bytes FIRST-LAST/TOTAL`.
fn content_range(value: Option<&str>) -> Option<(u64, Option<u64>)> {
    let range = value?.trim().strip_prefix("bytes ")?;
    let (span, total) = range.split_once('/')?;
    let (first, last) = span.split_once('-')?;
    let (first, last): (u64, u64) = (first.parse().ok()?, last.parse().ok()?);
    let total = match total {
        "*" => last.checked_add(1)?,
        total => total.parse().ok()?,
    };
    Some((first, Some(total)))
}

/// Copies `body` to `sink` after the `done` bytes already there, refusing more than `total`
/// (or `options.max_bytes`), and fails when the body ends short of `total`.
fn transfer(
    body: &mut dyn Read,
    sink: &mut dyn Write,
    mut done: u64,
    total: Option<u64>,
    options: &Options,
    part: &Path,
    progress: &mut dyn Progress,
) -> Result<u64, String> {
    let limit = total.unwrap_or(options.max_bytes);
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let n = match body.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(&e, done, total, options)),
        };
        if done + n as u64 > limit {
            return Err(match total {
                Some(total) => format!("the server sent more than the {total} bytes it announced"),
                None => format!("the body is longer than the {limit} bytes a net may have"),
            });
        }
        sink.write_all(&buffer[..n])
            .map_err(|e| write_error(&e, part))?;
        done += n as u64;
        progress.advance(n as u64);
    }
    sink.flush().map_err(|e| write_error(&e, part))?;
    match total {
        Some(total) if done < total => Err(format!(
            "the body ended after {done} of the {total} bytes announced; {}",
            RESUME_HINT
        )),
        _ => Ok(done),
    }
}

/// What to do after an interrupted transfer.
const RESUME_HINT: &str = "the same command again goes on from there";

/// One line for a request that got no answer.
fn request_error(e: &ureq::Error, options: &Options) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == io::ErrorKind::ConnectionRefused => {
            "cannot connect: the connection was refused".to_string()
        }
        ureq::Error::Io(io) if io.kind() == io::ErrorKind::UnexpectedEof => {
            "the server closed the connection without an answer".to_string()
        }
        ureq::Error::Io(io) => one_line(&io.to_string()),
        ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => format!(
            "cannot connect within {} s",
            options.connect_timeout.as_secs_f64()
        ),
        ureq::Error::Timeout(_) => {
            format!("no answer within {} s", options.read_timeout.as_secs_f64())
        }
        ureq::Error::HostNotFound => "the host is not found (no network, or a wrong name?)".into(),
        ureq::Error::TooManyRedirects => "more than 10 redirects (a redirect loop?)".into(),
        e => one_line(&e.to_string()),
    }
}

/// One line for a body that could not be read after `done` bytes.
fn read_error(e: &io::Error, done: u64, total: Option<u64>, options: &Options) -> String {
    let so_far = match total {
        Some(total) => format!("after {done} of the {total} bytes"),
        None => format!("after {done} bytes"),
    };
    // ureq's own errors come wrapped in an io::Error.
    let timed_out = matches!(
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>()),
        Some(ureq::Error::Timeout(_))
    );
    let why = if timed_out || e.kind() == io::ErrorKind::TimedOut {
        format!("no data for {} s", options.read_timeout.as_secs_f64())
    } else if e.kind() == io::ErrorKind::UnexpectedEof {
        "the connection closed".to_string()
    } else {
        one_line(&e.to_string())
    };
    format!("{why} {so_far}; {RESUME_HINT}")
}

/// One line for a failed write to `path`.
fn write_error(e: &io::Error, path: &Path) -> String {
    let why = if e.kind() == io::ErrorKind::StorageFull {
        format!("the disk is full ({e})")
    } else {
        e.to_string()
    };
    one_line(&format!("writing {}: {why}", path.display()))
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// The sha256 of a file, in lowercase hex.
pub fn sha256(path: &Path) -> io::Result<String> {
    use sha2::Digest;
    let mut file = File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Silent;

    impl Progress for Silent {
        fn start(&mut self, _: u64, _: Option<u64>) {}
        fn advance(&mut self, _: u64) {}
        fn finish(&mut self) {}
    }

    /// A disk that is full after `room` bytes.
    struct FullDisk {
        room: usize,
        written: Vec<u8>,
    }

    impl Write for FullDisk {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            if self.written.len() + data.len() > self.room {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            self.written.extend_from_slice(data);
            Ok(data.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn options() -> Options {
        Options {
            connect_timeout: Duration::from_secs(1),
            read_timeout: Duration::from_secs(1),
            max_bytes: 1 << 20,
        }
    }

    fn copy(
        body: &[u8],
        sink: &mut dyn Write,
        done: u64,
        total: Option<u64>,
    ) -> Result<u64, String> {
        let part = Path::new("nets/x.bin.gz.part");
        transfer(
            &mut &body[..],
            sink,
            done,
            total,
            &options(),
            part,
            &mut Silent,
        )
    }

    #[test]
    fn a_full_disk_is_one_line_naming_the_file() {
        let body = vec![7u8; 200_000];
        let mut disk = FullDisk {
            room: 100_000,
            written: Vec::new(),
        };
        let e = copy(&body, &mut disk, 0, Some(200_000)).unwrap_err();
        assert!(
            e.starts_with("writing nets/x.bin.gz.part: the disk is full"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn a_body_is_copied_whole_and_neither_short_nor_long() {
        let mut sink = Vec::new();
        assert_eq!(copy(b"abcdef", &mut sink, 4, Some(10)), Ok(10));
        assert_eq!(sink, b"abcdef");
        let short = copy(b"abc", &mut Vec::new(), 0, Some(10)).unwrap_err();
        assert!(short.contains("ended after 3 of the 10 bytes"), "{short}");
        let long = copy(b"abcdefghijk", &mut Vec::new(), 0, Some(10)).unwrap_err();
        assert!(long.contains("more than the 10 bytes"), "{long}");
        let unannounced = vec![0u8; (1 << 20) + 1];
        let e = copy(&unannounced, &mut Vec::new(), 0, None).unwrap_err();
        assert!(e.contains("longer than the 1048576 bytes"), "{e}");
    }

    #[test]
    fn content_ranges_are_read() {
        assert_eq!(
            content_range(Some("bytes 100-199/200")),
            Some((100, Some(200)))
        );
        assert_eq!(content_range(Some("bytes 5-9/*")), Some((5, Some(10))));
        assert_eq!(content_range(Some("bytes */200")), None);
        assert_eq!(content_range(Some("items 1-2/3")), None);
        assert_eq!(content_range(None), None);
    }

    #[test]
    fn only_a_strong_etag_or_a_date_validates_a_range() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(strong_validator(s("\"abc\""), s("date")), s("\"abc\""));
        assert_eq!(strong_validator(s("W/\"abc\""), s("date")), s("date"));
        assert_eq!(strong_validator(s("W/\"abc\""), None), None);
    }

    #[test]
    fn sha256_of_a_file() {
        let path = std::env::temp_dir().join(format!("tengen-sha-{}", std::process::id()));
        fs::write(&path, b"abc").unwrap();
        let sum = sha256(&path).unwrap();
        fs::remove_file(&path).unwrap();
        assert_eq!(
            sum,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
