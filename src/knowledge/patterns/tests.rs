//! Tests of the pattern evaluator as a whole: features on hand-made positions and the table
//! file.

use crate::knowledge::patterns::*;
use crate::knowledge::tactics::tests::{LADDER, board_from_rows};
use crate::rules::board::{Board, Color, Point};

fn at(board: &Board, vertex: &str) -> Point {
    Point::parse(vertex, board.size()).expect("a vertex on the board")
}

fn black(board: &Board, vertex: &str) -> Features {
    extract(
        board,
        at(board, vertex),
        Color::Black,
        None,
        None,
        &mut Scratch::new(),
    )
}

/// White E5 has one liberty (E4); White E1 two (F1, E2) on the edge, next to Black D1.
const TACTICS: [&str; 9] = [
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . X . . . .",
    ". . . X O X . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . X O . . . .",
];

#[test]
fn capturing_values() {
    let board = board_from_rows(&TACTICS);
    assert_eq!(black(&board, "E4").capture, CAPTURE_ONE);
    let e4 = at(&board, "E4");
    let last = Some(at(&board, "E5"));
    assert_eq!(
        extract(&board, e4, Color::Black, last, None, &mut Scratch::new()).capture,
        CAPTURE_LAST
    );
    assert_eq!(black(&board, "A9").capture, 0);
    // White at E4 extends its string in atari to three liberties.
    let white = extract(&board, e4, Color::White, None, None, &mut Scratch::new());
    assert_eq!((white.capture, white.escape), (0, ESCAPE));
}

#[test]
fn atari_values_read_the_ladder() {
    // Without Black C2, White C3 has two liberties, C2 and D3, against Black B3, C4 and D2.
    let mut rows = LADDER;
    rows[7] = ". . . X . . . . .";
    let board = board_from_rows(&rows);
    // D3 drives White along the first line into the corner.
    assert_eq!(black(&board, "D3").atari, ATARI_LADDER);
    let board = board_from_rows(&TACTICS);
    // E2 chases White E1 along the first line into the corner.
    assert_eq!(black(&board, "E2").atari, ATARI_LADDER);
    // F1 leaves White E1 to extend to E2 with three liberties.
    assert_eq!(black(&board, "F1").atari, ATARI);
    assert_eq!(black(&board, "A9").atari, 0);
}

#[test]
fn self_atari_and_escape_values() {
    let board = board_from_rows(&[
        ". . . . .",
        ". . . . .",
        "O . . . .",
        "O O O O .",
        "X X X . .",
    ]);
    // D1 joins Black's string in atari but leaves it one liberty (E1): four stones.
    let d1 = black(&board, "D1");
    assert_eq!((d1.self_atari, d1.escape), (SELF_ATARI_BIG, ESCAPE_CAUGHT));
    let corner = board_from_rows(&[
        ". . . . .",
        ". . . . .",
        ". . . . .",
        "O . . . .",
        ". . . . .",
    ]);
    assert_eq!(black(&corner, "A1").self_atari, SELF_ATARI_SMALL);
    assert_eq!(black(&corner, "C3").self_atari, 0);
    assert_eq!(black(&corner, "C3").escape, 0);
    // White D3 extends C3 into a ladder up the diagonal; a white stone in its path breaks it.
    let mut rows = LADDER;
    let board = board_from_rows(&rows);
    let white = |b: &Board| {
        extract(
            b,
            at(b, "D3"),
            Color::White,
            None,
            None,
            &mut Scratch::new(),
        )
    };
    assert_eq!(white(&board).escape, ESCAPE_CAUGHT);
    rows[1] = ". . . . . . O . .";
    assert_eq!(white(&board_from_rows(&rows)).escape, ESCAPE);
}

#[test]
fn distance_and_edge_values() {
    assert_eq!(distance_value(1, 0), 1);
    assert_eq!(distance_value(1, 1), 2);
    assert_eq!(distance_value(2, 0), 3);
    assert_eq!(distance_value(0, 20), 16);
    let board = Board::new(9);
    let p = at(&board, "E5");
    let f = extract(
        &board,
        p,
        Color::Black,
        Some(at(&board, "E6")),
        Some(at(&board, "G6")),
        &mut Scratch::new(),
    );
    // G6 is (2, 1) away: d = 2 + 1 + 2 = 5.
    assert_eq!((f.last_distance, f.second_distance), (1, 4));
    assert_eq!(f.edge, 5);
    assert_eq!(black(&board, "A1").edge, 1);
    assert_eq!(black(&board, "C7").edge, 3);
    assert_eq!(
        (black(&board, "C7").last_distance, Features::pass().edge),
        (0, 0)
    );
}

#[test]
fn a_shape_and_its_rotation_share_a_class() {
    let board = board_from_rows(&[
        ". . . . .",
        ". . . . .",
        ". . . X .",
        ". . . O .",
        ". . . . .",
    ]);
    let turned = board_from_rows(&[
        ". . . . .",
        ". . . . .",
        ". . . . .",
        ". O X . .",
        ". . . . .",
    ]);
    let c3 = at(&board, "C3");
    let c3_turned = at(&turned, "C3");
    let class = |b: &Board, p| class_of(raw_code(b, p, Color::Black));
    assert_eq!(class(&board, c3), class(&turned, c3_turned));
    // Colours are relative to the mover: for White the same shape is another class.
    assert_ne!(
        class(&board, c3),
        class_of(raw_code(&board, c3, Color::White))
    );
}

#[test]
fn the_builtin_table_loads_and_prefers_what_players_prefer() {
    let table = PatternTable::builtin();
    assert!(table.header().iter().any(|l| l.contains("held-out")));
    assert!(table.group(Group::Pattern).len() == class_count() + 1);
    let gamma = |g: Group, v: u8| table.group(g)[usize::from(v)];
    // Learned, not written by hand: these hold for any sensible teacher.
    assert!(gamma(Group::LastDistance, 1) > gamma(Group::LastDistance, 16));
    assert!(gamma(Group::SelfAtari, SELF_ATARI_BIG) < gamma(Group::SelfAtari, 0));
    assert!(gamma(Group::Escape, ESCAPE) > gamma(Group::Escape, ESCAPE_CAUGHT));
    // The table file names the classes it keeps by their canonical codes.
    let kept = table
        .group(Group::Pattern)
        .iter()
        .filter(|&&g| g != table.rare())
        .count();
    assert!(kept > 100, "{kept} pattern classes");
}

#[test]
fn a_malformed_table_is_a_one_line_error() {
    let bad = "# header\ncapture 1 2.5\ncapture 1 nonsense\n";
    let err = PatternTable::parse(bad, "t.txt").unwrap_err();
    assert!(matches!(
        err,
        TableError::Line(_, 3, LineError::BadGamma(ref g)) if g == "nonsense"
    ));
    let text = err.to_string();
    assert!(text.starts_with("t.txt line 3"), "{text}");
    assert!(!text.contains('\n'));
    for (line, want) in [
        ("capture 1", LineError::Fields(2)),
        ("colour 1 1", LineError::UnknownGroup("colour".into())),
        ("capture 9 1", LineError::BadValue("9".into())),
        ("pattern 1a 1", LineError::BadValue("1a".into())),
        ("edge 1 -1", LineError::BadGamma("-1".into())),
    ] {
        match PatternTable::parse(line, "t") {
            Err(TableError::Line(_, 1, got)) => assert_eq!(got, want, "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
    let missing = std::path::Path::new("/nonexistent/gammas.txt");
    assert!(matches!(
        PatternTable::load(missing),
        Err(TableError::Read(..))
    ));
}

#[test]
fn a_table_survives_save_and_load() {
    let mut table = PatternTable::uniform();
    table.set_rare(0.5);
    table.set(Group::Capture, usize::from(CAPTURE_ONE), 7.25);
    table.set(Group::Pattern, usize::from(pass_class()), 0.125);
    let board = Board::new(9);
    let shape = black(&board, "A1").pattern;
    table.set(Group::Pattern, usize::from(shape), 3.5);
    table.set_header(vec!["made by a test".into()]);
    let path = std::env::temp_dir().join(format!("tengen-gammas-{}.txt", std::process::id()));
    table.save(&path).expect("writable temp dir");
    let loaded = PatternTable::load(&path);
    let _ = std::fs::remove_file(&path);
    let loaded = loaded.expect("the saved table loads");
    assert_eq!(loaded, table);
    assert_eq!(loaded.group(Group::Pattern)[usize::from(shape)], 3.5);
    assert_eq!(loaded.gamma(&black(&board, "E5")), 0.5);
}

/// A spatial code with no symmetry of its own: an own stone north, an opponent stone two
/// to the east.
pub(crate) fn lopsided() -> u64 {
    let mut cells = [shape::EMPTY; spatial::POINTS];
    let field = |o| spatial::OFFSETS.iter().position(|&q| q == o).unwrap();
    cells[field((0, 1))] = shape::OWN;
    cells[field((2, 0))] = shape::OPPONENT;
    spatial::canonical(spatial::pack(&cells))
}

#[test]
fn spatial_lines_load_save_and_reject_bad_codes() {
    let code = lopsided();
    let text = format!("spatial rare 0.5\nspatial pass 0.25\nspatial {code:#x} 4\n");
    let table = PatternTable::parse(&text, "t").expect("valid spatial lines");
    assert_eq!(table.spatial_gamma(code), 4.0);
    assert_eq!(table.spatial_gamma(spatial::PASS), 0.25);
    assert_eq!(table.spatial_gamma(spatial::canonical(3)), 0.5);
    assert_eq!(PatternTable::parse(&table.to_text(), "t").unwrap(), table);
    // The board's own features find the code: a move on an empty board is code 0.
    let board = Board::new(9);
    assert_eq!(black(&board, "E5").spatial, 0);
    assert_eq!(Features::pass().spatial, spatial::PASS);
    // A code that is not the smallest of its class, or has bits beyond the neighbourhood.
    let turned = spatial::symmetries_of(code)
        .into_iter()
        .find(|&c| c != code)
        .unwrap();
    let too_wide = 1u64 << (2 * spatial::POINTS);
    for bad in [
        format!("{turned:#x}"),
        format!("{too_wide:#x}"),
        "12".into(),
    ] {
        match PatternTable::parse(&format!("spatial {bad} 1"), "t") {
            Err(TableError::Line(_, 1, LineError::BadValue(v))) => assert_eq!(v, bad),
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert!(matches!(
        PatternTable::parse("spatial rare 1\nspatial rare 2", "t"),
        Err(TableError::Line(_, 2, LineError::Duplicate))
    ));
}
