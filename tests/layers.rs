//! The layering, proved: every path into the crate (`use crate::…`, `crate::x::y` in code) from
//! a module of `src/` must name a module of a lower layer or its own module. The table below is
//! the one statement of the layers; ARCHITECTURE.md draws it. A module missing from the table
//! fails the test, so a new module is placed on purpose.

use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its layer: a module may import only modules of a lower
/// layer (and itself). Same-layer modules stay independent of each other.
const LAYERS: &[(&str, u32)] = &[
    // Input, and finding programs and files on the machine.
    ("lines", 0),
    ("locate", 0),
    // Rules.
    ("board", 1),
    ("game", 2),
    ("sgf", 3),
    ("gtp_client", 3),
    // Reading, then knowledge.
    ("tactics", 3),
    // KataGo's networks: model files, input features, the forward pass.
    ("net", 3),
    ("patterns", 4),
    ("train", 5),
    // Search, the book on top of it.
    ("search", 6),
    ("book", 7),
    // Players: engines.toml's levels, checked, then the players built from them.
    ("config", 8),
    ("player", 9),
    // Front ends.
    ("gtp", 10),
    ("analysis_engine", 10),
    ("match_runner", 10),
    ("regress", 10),
    ("bench", 10),
    ("serve", 10),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// The source with comments and string and character literals blanked out, so that a doc link
/// (`[crate::game]`) or a string does not count as an import.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'"' {
            // A raw string r"…"/r#"…"# is blanked as far as its first quote closes it, which
            // is enough here: no raw string of this crate holds a quote followed by `crate::`.
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A character literal ('x', '\n', '\''); a lifetime ('a) is left as it is.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            // Copy one whole UTF-8 character.
            let len = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&src[i..i + len]);
            i += len;
        }
    }
    out
}

/// The top-level modules that `code` reaches through `crate::`, with braces expanded
/// (`use crate::{board::Board, game::Game}` names board and game).
fn modules_named(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` and `my_crate::` are not this crate's root.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest_trimmed = rest.trim_start();
        if let Some(group) = rest_trimmed.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            let mut name = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if depth == 1 && item_start {
                    if c.is_alphanumeric() || c == '_' {
                        name.push(c);
                    } else if !name.is_empty() {
                        found.push(std::mem::take(&mut name));
                        item_start = false;
                    }
                }
            }
            if !name.is_empty() {
                found.push(name);
            }
        } else {
            let name: String = rest_trimmed
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

/// Every upward or sideways path in one file of `module`, as messages.
fn violations(module: &str, file: &str, src: &str) -> Vec<String> {
    let Some(own) = layer(module) else {
        return vec![format!("{file}: module `{module}` has no row in LAYERS")];
    };
    let mut found = Vec::new();
    for target in modules_named(&code_only(src)) {
        if target == module || target == "self" || target == "super" {
            continue;
        }
        match layer(&target) {
            Some(l) if l < own => {}
            Some(l) => found.push(format!(
                "{file}: `{module}` (layer {own}) uses `crate::{target}` (layer {l})"
            )),
            None => found.push(format!(
                "{file}: uses `crate::{target}`, which has no row in LAYERS"
            )),
        }
    }
    found.sort();
    found.dedup();
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_import_runs_upward_or_sideways() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    let mut modules_seen = 0;
    for path in &files {
        let relative = path.strip_prefix(&src).expect("a file below src/");
        let first = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("a file name");
        let module = first.trim_end_matches(".rs");
        // The crate root and the binary sit above every layer.
        if module == "lib" || module == "main" {
            continue;
        }
        modules_seen += 1;
        let text = fs::read_to_string(path).expect("a readable source file");
        problems.extend(violations(module, &relative.display().to_string(), &text));
    }
    assert!(modules_seen > 50, "only {modules_seen} source files found");
    assert!(
        problems.is_empty(),
        "imports against the layers (tests/layers.rs holds the table):\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_row_of_the_table_is_a_module_of_the_crate() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (module, _) in LAYERS {
        let exists = src.join(format!("{module}.rs")).exists() || src.join(module).is_dir();
        assert!(exists, "LAYERS names `{module}`, which src/ lacks");
    }
}

#[test]
fn the_checker_sees_an_upward_import() {
    let upward = "use crate::board::Board;\nuse crate::search::Search;\n";
    assert_eq!(
        violations("game", "game/x.rs", upward),
        ["game/x.rs: `game` (layer 2) uses `crate::search` (layer 6)"]
    );
    let grouped = "use crate::{\n    board::{Board, Point},\n    player::Player,\n};";
    assert_eq!(
        violations("search", "search/x.rs", grouped),
        ["search/x.rs: `search` (layer 6) uses `crate::player` (layer 9)"]
    );
    let inline = "fn f() { let g = crate::serve::start(); }";
    assert_eq!(violations("gtp", "gtp/x.rs", inline).len(), 1, "sideways");
    let unknown = violations("wonders", "wonders.rs", "");
    assert_eq!(unknown.len(), 1);
}

#[test]
fn comments_strings_and_other_crates_are_not_imports() {
    let src = "//! See [`crate::player`].\n/* crate::serve */ fn f() { \
               let s = \"crate::gtp\"; let c = '\"'; my_crate::x(); $crate::y(); }\n\
               use crate::board::Board;";
    assert!(violations("game", "game/x.rs", src).is_empty());
}
