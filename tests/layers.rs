//! The layering, proved: every path into the crate (`use crate::…`, `crate::x::y` in code) from
//! a module of `src/` must name a module of a lower layer or its own module. The table below is
//! the one statement of the layers; ARCHITECTURE.md draws it. A module missing from the table
//! fails the test, so a new module is placed on purpose.

use std::fs;
use std::path::{Path, PathBuf};

/// The folders of `src/`, one per floor: each holds modules of the layers below.
const FOLDERS: &[&str] = &["ground", "rules", "knowledge", "engine", "front"];

/// Each module of `src/` (a folder and a module in it) and its layer: a module may import only
/// modules of a lower layer (and itself). Same-layer modules stay independent of each other.
const LAYERS: &[(&str, u32)] = &[
    // The ground floor: input, finding programs and files on the machine, downloading.
    ("ground::lines", 0),
    ("ground::locate", 0),
    ("ground::download", 0),
    ("ground::error", 0),
    // Rules.
    ("rules::board", 1),
    ("rules::game", 2),
    ("rules::sgf", 3),
    // Reading, KataGo's networks, then patterns and their trainer.
    ("knowledge::tactics", 3),
    ("knowledge::net", 3),
    ("knowledge::patterns", 4),
    ("knowledge::train", 5),
    // Driving another engine, the search, the book on top of it and Go ranks, then the levels
    // and players.
    ("engine::gtp_client", 3),
    ("engine::search", 6),
    ("engine::book", 7),
    ("engine::rank", 7),
    ("engine::config", 8),
    ("engine::player", 9),
    // Front ends.
    ("front::gtp", 10),
    ("front::analysis_engine", 10),
    ("front::match_runner", 10),
    ("front::regress", 10),
    ("front::bench", 10),
    ("front::serve", 10),
    ("front::nets", 10),
];

/// The one door: a front end reaches the engine through `engine::player`, never the search
/// beneath it, but for `front::bench`, which measures the search itself.
const BEHIND_THE_DOOR: &str = "engine::search";
const MAY_OPEN_THE_SEARCH: &[&str] = &["front::bench"];

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

/// The modules (`folder::module`) that `code` reaches through `crate::`, with braces
/// expanded (`use crate::rules::{board::Board, game::Game}` names rules::board and rules::game).
fn modules_named(code: &str) -> Vec<String> {
    modules_under(code, "crate::")
}

/// The modules (`folder::module`) that `code` reaches through `root` (`crate::` in the
/// library, `tengen::` in the binary).
fn modules_under(code: &str, root: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(root) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + root.len()..];
        // `$crate::` and `my_crate::` are not this crate's root.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        for path in paths(rest, 2) {
            found.push(path.join("::"));
        }
    }
    found
}

/// The paths of at most `segments` names that the use tree at the start of `code` names.
fn paths(code: &str, segments: usize) -> Vec<Vec<String>> {
    let code = code.trim_start();
    if let Some(group) = code.strip_prefix('{') {
        let mut items = Vec::new();
        let (mut depth, mut item_start) = (0, 0);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    items.push(&group[item_start..i]);
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&group[item_start..i]);
                    item_start = i + 1;
                }
                _ => {}
            }
        }
        return items
            .into_iter()
            .flat_map(|item| paths(item, segments))
            .collect();
    }
    let name: String = code
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() {
        return Vec::new();
    }
    let after = code[name.len()..].trim_start();
    match after.strip_prefix("::") {
        Some(tail) if segments > 1 => {
            let mut inner = paths(tail, segments - 1);
            if inner.is_empty() {
                inner.push(Vec::new());
            }
            inner.iter_mut().for_each(|p| p.insert(0, name.clone()));
            inner
        }
        _ => vec![vec![name]],
    }
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
        if passes_the_door(module, &target) {
            found.push(format!(
                "{file}: the front end `{module}` uses `crate::{target}`: go through `engine::player`"
            ));
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

/// Whether `module`, a front end, reaches `target` past the player.
fn passes_the_door(module: &str, target: &str) -> bool {
    module.starts_with("front::")
        && !MAY_OPEN_THE_SEARCH.contains(&module)
        && target == BEHIND_THE_DOOR
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
        let parts: Vec<&str> = relative
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect();
        // The crate root, the binary and each folder's list of its modules sit above every
        // layer.
        let (folder, name) = match parts.as_slice() {
            [_] | [_, "mod.rs"] => continue,
            [folder, name, ..] => (*folder, name.trim_end_matches(".rs")),
            [] => unreachable!("a file has a name"),
        };
        assert!(
            FOLDERS.contains(&folder),
            "{}: a folder missing from FOLDERS",
            relative.display()
        );
        let module = format!("{folder}::{name}");
        modules_seen += 1;
        let text = fs::read_to_string(path).expect("a readable source file");
        problems.extend(violations(&module, &relative.display().to_string(), &text));
    }
    assert!(modules_seen > 50, "only {modules_seen} source files found");
    assert!(
        problems.is_empty(),
        "imports against the layers (tests/layers.rs holds the table):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_binary_reaches_the_engine_through_the_player() {
    let main = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs");
    let text = fs::read_to_string(&main).expect("src/main.rs");
    let named = modules_under(&code_only(&text), "tengen::");
    assert!(named.iter().any(|m| m == "engine::player"), "{named:?}");
    assert!(
        !named.iter().any(|m| m == BEHIND_THE_DOOR),
        "src/main.rs uses `tengen::{BEHIND_THE_DOOR}`: go through `engine::player`"
    );
}

#[test]
fn every_row_of_the_table_is_a_module_of_the_crate() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (module, _) in LAYERS {
        let path = module.replace("::", "/");
        let exists = src.join(format!("{path}.rs")).exists() || src.join(&path).is_dir();
        assert!(exists, "LAYERS names `{module}`, which src/ lacks");
        let folder = module.split("::").next().unwrap_or_default();
        assert!(
            FOLDERS.contains(&folder),
            "`{module}` is in no folder of FOLDERS"
        );
    }
}

#[test]
fn the_checker_sees_an_upward_import() {
    let upward = "use crate::rules::board::Board;\nuse crate::engine::search::Search;\n";
    assert_eq!(
        violations("rules::game", "rules/game/x.rs", upward),
        ["rules/game/x.rs: `rules::game` (layer 2) uses `crate::engine::search` (layer 6)"]
    );
    let grouped =
        "use crate::{\n    rules::board::{Board, Point},\n    engine::player::Player,\n};";
    assert_eq!(
        violations("engine::search", "engine/search/x.rs", grouped),
        ["engine/search/x.rs: `engine::search` (layer 6) uses `crate::engine::player` (layer 9)"]
    );
    let nested = "use crate::engine::{search::Search, player::{Player, levels}};";
    assert_eq!(
        violations("engine::book", "engine/book/x.rs", nested).len(),
        1
    );
    let inline = "fn f() { let g = crate::front::serve::start(); }";
    assert_eq!(
        violations("front::gtp", "front/gtp/x.rs", inline).len(),
        1,
        "sideways"
    );
    let unknown = violations("wonders", "wonders.rs", "");
    assert_eq!(unknown.len(), 1);
    let past_the_door = "use crate::engine::search::time_for_move;";
    assert_eq!(
        violations("front::gtp", "front/gtp/x.rs", past_the_door),
        [
            "front/gtp/x.rs: the front end `front::gtp` uses `crate::engine::search`: go through `engine::player`"
        ]
    );
    assert!(violations("front::bench", "front/bench.rs", past_the_door).is_empty());
    let folder_alone = violations("front::gtp", "front/gtp/x.rs", "use crate::engine;");
    assert_eq!(folder_alone.len(), 1, "a folder is not a module");
}

#[test]
fn comments_strings_and_other_crates_are_not_imports() {
    let src = "//! See [`crate::engine::player`].\n/* crate::front::serve */ fn f() { \
               let s = \"crate::front::gtp\"; let c = '\"'; my_crate::x(); $crate::y(); }\n\
               use crate::rules::board::Board;";
    assert!(violations("rules::game", "rules/game/x.rs", src).is_empty());
}
