//! The gamma table: one gamma per value of each feature group, with its text file format.
//!
//! The file is plain text, one `GROUP VALUE GAMMA` line per entry; `#` starts a comment line
//! and blank lines are ignored. GROUP is a [`Group::name`]; VALUE is the value's number, except
//! in the `pattern` group where it is the canonical 3x3 code in hex (`0x1a2b`), `pass`, or
//! `rare` (the gamma of every class the file does not list). GAMMA is a positive number.
//! Values a file leaves out have gamma 1 (pattern classes: the `rare` gamma). The spatial
//! patterns ([`crate::knowledge::patterns::spatial`]) take `spatial` lines in the same form: a canonical
//! code in hex, `pass` or `rare` (the gamma of every code the file does not list).

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::knowledge::patterns::features::{Features, GROUPS, Group, pass_class};
use crate::knowledge::patterns::shape;
use crate::knowledge::patterns::spatial;

/// The table learned from the project's game records, embedded in the binary.
const BUILTIN: &str = include_str!("gammas.txt");

/// Gammas of every feature value: plain vectors indexed by value, for hot loops.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternTable {
    gammas: [Vec<f32>; GROUPS],
    /// The gamma of pattern classes the table does not list.
    rare: f32,
    /// Gammas of the spatial patterns the table lists, by canonical code.
    spatial: HashMap<u64, f32>,
    /// The gamma of spatial patterns the table does not list.
    spatial_rare: f32,
    /// Comment lines written at the top of the file (without `# `).
    header: Vec<String>,
}

/// Why a table file cannot be read or written.
#[derive(Debug)]
pub enum TableError {
    /// The file cannot be read.
    Read(PathBuf, std::io::Error),
    /// The file cannot be written.
    Write(PathBuf, std::io::Error),
    /// A line is malformed: where (file name), its number from 1, what is wrong.
    Line(String, usize, LineError),
}

/// What is wrong with one line of a table file.
#[derive(Debug, PartialEq)]
pub enum LineError {
    /// Not three fields.
    Fields(usize),
    /// No such group.
    UnknownGroup(String),
    /// The value cannot be read or is out of range for its group.
    BadValue(String),
    /// The gamma is not a positive finite number.
    BadGamma(String),
    /// The value was given before.
    Duplicate,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Read(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            TableError::Write(path, e) => write!(f, "cannot write {}: {e}", path.display()),
            TableError::Line(origin, line, e) => write!(f, "{origin} line {line}: {e}"),
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Fields(n) => write!(f, "expected `GROUP VALUE GAMMA`, found {n} fields"),
            LineError::UnknownGroup(g) => {
                let names: Vec<&str> = Group::ALL.iter().map(|g| g.name()).collect();
                write!(
                    f,
                    "unknown group `{g}` (groups: {}, spatial)",
                    names.join(", ")
                )
            }
            LineError::BadValue(v) => write!(f, "bad or out-of-range value `{v}`"),
            LineError::BadGamma(g) => write!(f, "gamma `{g}` is not a positive number"),
            LineError::Duplicate => write!(f, "this value was given before"),
        }
    }
}

impl std::error::Error for TableError {}

/// What a parsed line sets: a value of a group (`None`: the rare pattern classes) or a
/// spatial pattern (`None`: the rare ones).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Group(Group, Option<usize>),
    Spatial(Option<u64>),
}

/// A parsed line: what it sets and the gamma.
type Entry = (Key, f32);

impl PatternTable {
    /// A table where every gamma is 1: every move alike.
    pub fn uniform() -> PatternTable {
        PatternTable {
            gammas: Group::ALL.map(|g| vec![1.0; g.values()]),
            rare: 1.0,
            spatial: HashMap::new(),
            spatial_rare: 1.0,
            header: Vec::new(),
        }
    }

    /// The table embedded in the binary (`src/knowledge/patterns/gammas.txt`), parsed once.
    pub fn builtin() -> &'static PatternTable {
        static TABLE: OnceLock<PatternTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            PatternTable::parse(BUILTIN, "built-in gammas.txt")
                .expect("the built-in table is checked by the tests")
        })
    }

    /// Reads a table file.
    pub fn load(path: &Path) -> Result<PatternTable, TableError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| TableError::Read(path.to_owned(), e))?;
        PatternTable::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a table file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<PatternTable, TableError> {
        let mut entries = Vec::new();
        let mut header = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if let Some(comment) = line.strip_prefix('#') {
                header.push(comment.trim().to_string());
                continue;
            }
            if line.is_empty() {
                continue;
            }
            let entry = parse_line(line)
                .and_then(|e| {
                    if seen.insert(e.0) {
                        Ok(e)
                    } else {
                        Err(LineError::Duplicate)
                    }
                })
                .map_err(|e| TableError::Line(origin.to_string(), n + 1, e))?;
            entries.push(entry);
        }
        let mut table = PatternTable::uniform();
        table.header = header;
        // The rare gamma first: it fills the classes the other lines do not name.
        for &(key, gamma) in &entries {
            if key == Key::Group(Group::Pattern, None) {
                table.set_rare(gamma);
            }
        }
        for (key, gamma) in entries {
            match key {
                Key::Group(group, Some(value)) => table.set(group, value, gamma),
                Key::Group(_, None) => {}
                Key::Spatial(Some(code)) => table.set_spatial(code, gamma),
                Key::Spatial(None) => table.spatial_rare = gamma,
            }
        }
        Ok(table)
    }

    /// Writes the table file.
    pub fn save(&self, path: &Path) -> Result<(), TableError> {
        std::fs::write(path, self.to_text()).map_err(|e| TableError::Write(path.to_owned(), e))
    }

    /// The table as the text of a file.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "pattern rare {}", self.rare);
        for g in Group::ALL {
            for (value, &gamma) in self.gammas[g.index()].iter().enumerate() {
                if g != Group::Pattern {
                    let _ = writeln!(out, "{} {value} {gamma}", g.name());
                } else if value == usize::from(pass_class()) {
                    let _ = writeln!(out, "pattern pass {gamma}");
                } else if gamma != self.rare {
                    let code = shape::canonical_code(value as u16);
                    let _ = writeln!(out, "pattern {code:#07x} {gamma}");
                }
            }
        }
        let _ = writeln!(out, "spatial rare {}", self.spatial_rare);
        let mut codes: Vec<_> = self.spatial.iter().collect();
        codes.sort_unstable_by_key(|(code, _)| **code);
        for (&code, gamma) in codes {
            if code == spatial::PASS {
                let _ = writeln!(out, "spatial pass {gamma}");
            } else {
                let _ = writeln!(out, "spatial {code:#08x} {gamma}");
            }
        }
        out
    }

    /// The strength of a move: the product of its values' gammas.
    #[inline]
    pub fn gamma(&self, f: &Features) -> f32 {
        let g = &self.gammas;
        g[Group::Pattern as usize][usize::from(f.pattern)]
            * g[Group::Capture as usize][usize::from(f.capture)]
            * g[Group::Atari as usize][usize::from(f.atari)]
            * g[Group::Escape as usize][usize::from(f.escape)]
            * g[Group::SelfAtari as usize][usize::from(f.self_atari)]
            * g[Group::LastDistance as usize][usize::from(f.last_distance)]
            * g[Group::SecondDistance as usize][usize::from(f.second_distance)]
            * g[Group::Edge as usize][usize::from(f.edge)]
            * self.spatial_gamma(f.spatial)
    }

    /// The gamma of the spatial pattern `code` (a canonical code or [`spatial::PASS`]).
    #[inline]
    pub fn spatial_gamma(&self, code: u64) -> f32 {
        self.spatial
            .get(&code)
            .copied()
            .unwrap_or(self.spatial_rare)
    }

    /// Number of spatial patterns with their own gamma.
    pub fn spatial_count(&self) -> usize {
        self.spatial.len()
    }

    /// Sets the gamma of the spatial pattern `code` (canonical, or [`spatial::PASS`]).
    pub fn set_spatial(&mut self, code: u64, gamma: f32) {
        self.spatial.insert(code, gamma);
    }

    /// Sets the gamma of the spatial patterns the table does not list.
    pub fn set_spatial_rare(&mut self, gamma: f32) {
        self.spatial_rare = gamma;
    }

    /// The gammas of group `g`, indexed by value.
    #[inline]
    pub fn group(&self, g: Group) -> &[f32] {
        &self.gammas[g.index()]
    }

    /// The gamma of pattern classes the table does not list.
    pub fn rare(&self) -> f32 {
        self.rare
    }

    /// Sets the gamma of `value` in group `g` (`value < g.values()`).
    pub fn set(&mut self, g: Group, value: usize, gamma: f32) {
        self.gammas[g.index()][value] = gamma;
    }

    /// Sets the rare gamma and gives it to every pattern class but the pass.
    pub fn set_rare(&mut self, gamma: f32) {
        self.rare = gamma;
        let pass = usize::from(pass_class());
        for (class, g) in self.gammas[Group::Pattern.index()].iter_mut().enumerate() {
            if class != pass {
                *g = gamma;
            }
        }
    }

    /// The comment lines at the top of the file.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Replaces the comment lines at the top of the file.
    pub fn set_header(&mut self, lines: Vec<String>) {
        self.header = lines;
    }
}

/// Parses one `GROUP VALUE GAMMA` line.
fn parse_line(line: &str) -> Result<Entry, LineError> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let &[group, value, gamma] = fields.as_slice() else {
        return Err(LineError::Fields(fields.len()));
    };
    let bad_value = || LineError::BadValue(value.to_string());
    let gamma = gamma
        .parse::<f32>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| LineError::BadGamma(gamma.to_string()))?;
    if group == "spatial" {
        let code = match value {
            "rare" => None,
            "pass" => Some(spatial::PASS),
            code => Some(
                parse_hex(code)
                    .filter(|&c| c >> (2 * spatial::POINTS) == 0 && spatial::canonical(c) == c)
                    .ok_or_else(bad_value)?,
            ),
        };
        return Ok((Key::Spatial(code), gamma));
    }
    let g = Group::from_name(group).ok_or_else(|| LineError::UnknownGroup(group.to_string()))?;
    let value = match (g, value) {
        (Group::Pattern, "rare") => None,
        (Group::Pattern, "pass") => Some(usize::from(pass_class())),
        (Group::Pattern, code) => {
            let raw = parse_hex(code)
                .filter(|&raw| raw < shape::RAW_CODES as u64)
                .ok_or_else(bad_value)?;
            Some(usize::from(shape::class_of(raw as u32)))
        }
        (g, v) => Some(
            v.parse::<usize>()
                .ok()
                .filter(|&v| v < g.values())
                .ok_or_else(bad_value)?,
        ),
    };
    Ok((Key::Group(g, value), gamma))
}

/// A code written as `0x` and hex digits.
fn parse_hex(text: &str) -> Option<u64> {
    u64::from_str_radix(text.strip_prefix("0x")?, 16).ok()
}
