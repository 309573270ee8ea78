use super::*;
use proptest::prelude::*;

fn pt(board: &Board, v: &str) -> Point {
    Point::parse(v, board.size()).unwrap()
}

/// Plays alternating moves given as vertices, Black first.
fn board_with(size: usize, moves: &[&str]) -> Board {
    let mut board = Board::new(size);
    for (i, v) in moves.iter().enumerate() {
        let c = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let p = pt(&board, v);
        assert_eq!(board.legality(p, c), Ok(()), "{v}");
        board.play(p, c);
        board.check_invariants();
    }
    board
}

#[test]
fn liberties_merge_and_capture() {
    let mut board = board_with(9, &["E5", "E6", "D5", "F5"]);
    let e5 = pt(&board, "E5");
    assert_eq!(board.string_size(e5), 2);
    assert_eq!(board.liberties(e5), 4);
    // White surrounds the two stones: C5, D4, E4, D6.
    for v in ["C5", "D4", "E4"] {
        board.play(pt(&board, v), Color::White);
        board.check_invariants();
    }
    assert_eq!(board.liberties(e5), 1);
    let captured = board.play(pt(&board, "D6"), Color::White);
    assert_eq!(captured, 2);
    assert_eq!(board.captures(Color::White), 2);
    assert_eq!(board.color_at(e5), None);
    board.check_invariants();
}

#[test]
fn simple_ko_forbids_immediate_retake_only() {
    // Black C3 sits in White's mouth (C2 C4 D3); White takes it at B3, inside A3 B2 B4.
    let mut board = board_with(5, &["B2", "C2", "A3", "D3", "B4", "C4", "C3"]);
    let b3 = pt(&board, "B3");
    assert_eq!(board.legality(b3, Color::White), Ok(()));
    assert_eq!(board.play(b3, Color::White), 1);
    let c3 = pt(&board, "C3");
    assert_eq!(board.ko(), Some((c3, Color::Black)));
    assert_eq!(board.legality(c3, Color::Black), Err(BoardIllegal::Ko));
    // After a move elsewhere the ko may be retaken.
    board.play(pt(&board, "E5"), Color::Black);
    board.play(pt(&board, "E1"), Color::White);
    assert_eq!(board.legality(c3, Color::Black), Ok(()));
    assert_eq!(board.play(c3, Color::Black), 1);
    board.check_invariants();
}

#[test]
fn suicide_detected_and_removed_when_played() {
    let board = board_with(5, &["B1", "E5", "A2"]);
    let a1 = pt(&board, "A1");
    assert_eq!(board.legality(a1, Color::White), Err(BoardIllegal::Suicide));
    assert!(board.legality(a1, Color::Black).is_ok());
    // Multi-stone suicide when the rules allow it: the whole string goes.
    let mut board = board_with(4, &["A2", "A1", "B2", "D4"]);
    // White A1 has one liberty, B1; once Black holds C1, White B1 kills both white stones.
    let b1 = pt(&board, "B1");
    board.play(pt(&board, "C1"), Color::Black);
    assert_eq!(board.legality(b1, Color::White), Err(BoardIllegal::Suicide));
    let before = board.hash_after(b1, Color::White);
    board.play(b1, Color::White);
    assert_eq!(board.color_at(a1), None);
    assert_eq!(board.color_at(b1), None);
    assert_eq!(board.captures(Color::Black), 2);
    assert_eq!(board.hash(), before);
    board.check_invariants();
}

#[test]
fn eyes_true_and_false() {
    let board = board_with(9, &["A2", "J9", "B1", "J8", "B2", "J7"]);
    assert!(board.is_eye(pt(&board, "A1"), Color::Black));
    assert!(!board.is_eye(pt(&board, "A1"), Color::White));
    // A false eye in the middle: two opponent diagonals.
    let board = board_with(9, &["D5", "D4", "F5", "F4", "E4", "F6", "E6", "A1"]);
    let e5 = pt(&board, "E5");
    assert!(!board.is_eye(e5, Color::Black));
}

#[test]
fn hash_after_matches_play() {
    let board = board_with(5, &["B2", "C2", "A3", "D3", "B4", "C4", "C3"]);
    let b3 = pt(&board, "B3");
    let predicted = board.hash_after(b3, Color::White);
    let mut after = board.clone();
    after.play(b3, Color::White);
    assert_eq!(after.hash(), predicted);
}

#[test]
fn self_atari_sizes() {
    let board = board_with(5, &["A2", "B3", "B2", "C2", "E5", "B1"]);
    // Black A1 joins A2-B2 (libs A3 and A1); after A1 only A3 remains: self-atari of 3.
    assert_eq!(
        board.self_atari_size(pt(&board, "A1"), Color::Black),
        Some(3)
    );
    // Capturing a big string is not a self-atari even when only one liberty is visible
    // before the capture: White A1 takes the three black stones A2 B2 B1.
    let board = board_with(4, &["A2", "A3", "B2", "B3", "B1", "C2", "D4", "C1"]);
    let a1 = pt(&board, "A1");
    assert_eq!(board.legality(a1, Color::White), Ok(()));
    assert_eq!(board.self_atari_size(a1, Color::White), None);
    let board = board_with(5, &["A2", "B3", "B2", "C2", "E5", "B1"]);
    // A move in the open is never self-atari.
    assert_eq!(board.self_atari_size(pt(&board, "D3"), Color::Black), None);
}

#[test]
fn bad_self_ataris() {
    // Black A2 and B1 keep A1 as their eye and share B2 with White's wall.
    let board = Board::with_stones(5, &["A2", "B1"], &["A3", "B3", "C3", "C2", "C1"]);
    // B2 joins them into a string whose one liberty is that eye: White would take all.
    assert_eq!(
        board.self_atari_size(pt(&board, "B2"), Color::Black),
        Some(3)
    );
    assert!(board.is_bad_self_atari(pt(&board, "B2"), Color::Black, 3));
    // A1 (an eye, never played by the playouts anyway) would leave B2, which White touches.
    assert_eq!(
        board.self_atari_size(pt(&board, "A1"), Color::Black),
        Some(3)
    );
    assert!(!board.is_bad_self_atari(pt(&board, "A1"), Color::Black, 3));
    // Unless the throw-in is too big.
    assert!(board.is_bad_self_atari(pt(&board, "A1"), Color::Black, 2));
    // No self-atari at all.
    assert!(!board.is_bad_self_atari(pt(&board, "D4"), Color::Black, 0));
}

#[test]
fn string_liberties_lists_distinct_points() {
    let board = board_with(9, &["E5", "A1", "E6"]);
    let mut buf = [Point::from_index(0); 16];
    let n = board.string_liberties(pt(&board, "E5"), &mut buf);
    assert_eq!(n, 6);
    assert_eq!(n, board.liberties(pt(&board, "E6")));
}

/// The eye test written out from the cells, for comparison with the 3x3-code one.
fn slow_eye(board: &Board, p: Point, c: Color) -> bool {
    let sides = board.neighbors(p).map(|n| board.cell(n));
    if !sides
        .iter()
        .all(|&s| s == Cell::from(c) || s == Cell::Border)
    {
        return false;
    }
    let on_edge = sides.contains(&Cell::Border);
    let false_corners = board
        .diagonals(p)
        .iter()
        .filter(|&&d| board.cell(d) == Cell::from(c.opponent()))
        .count();
    false_corners < if on_edge { 1 } else { 2 }
}

proptest! {
    // Fewer games in a debug build, where the board's debug_asserts run but each game is slow.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 8 } else { 64 }))]
    #[test]
    fn random_games_keep_invariants(size in 2usize..=13, seed in any::<u64>(), allow_suicide in any::<bool>()) {
        use rand::{SeedableRng, RngExt, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut board = Board::new(size);
        let mut c = Color::Black;
        for _ in 0..(size * size * 2) {
            let empties: Vec<Point> = board.empty_points().collect();
            if empties.is_empty() { break; }
            for &q in &empties {
                for color in Color::ALL {
                    let eye = slow_eye(&board, q, color);
                    prop_assert_eq!(board.is_eye(q, color), eye);
                    prop_assert_eq!(
                        board.is_sensible(q, color),
                        !eye && board.legality(q, color).is_ok()
                    );
                    if board.legality(q, color).is_ok() {
                        let mut after = board.clone();
                        let captured = after.play(q, color);
                        let actual = after.liberties(q);
                        for cap in [2, 3, 8] {
                            let predicted = board.liberties_after(q, color, cap);
                            if captured == 0 {
                                prop_assert_eq!(predicted, actual.min(cap));
                            } else {
                                // One point per captured string, at least.
                                prop_assert!(predicted <= actual.min(cap));
                            }
                        }
                    }
                }
            }
            let p = empties[rng.random_range(0..empties.len())];
            match board.legality(p, c) {
                Ok(()) => { let h = board.hash_after(p, c); board.play(p, c); prop_assert_eq!(board.hash(), h); }
                Err(BoardIllegal::Suicide) if allow_suicide => {
                    let h = board.hash_after(p, c); board.play(p, c); prop_assert_eq!(board.hash(), h);
                }
                Err(_) => board.pass(),
            }
            board.check_invariants();
            for q in board.points().filter(|&q| board.color_at(q).is_some()) {
                let all = board.liberties(q);
                for len in [1, 2, 3, 5, 8, 9, 16] {
                    let mut buf = vec![q; len];
                    let n = board.string_liberties(q, &mut buf);
                    prop_assert_eq!(n, all.min(len));
                    for (k, &lib) in buf[..n].iter().enumerate() {
                        prop_assert_eq!(board.cell(lib), Cell::Empty);
                        prop_assert!(board.neighbors(lib).iter().any(|&s| board.color_at(s).is_some()
                            && board.string_head(s) == board.string_head(q)));
                        prop_assert!(!buf[..k].contains(&lib));
                    }
                }
            }
            c = c.opponent();
        }
    }
}

#[test]
fn atari_liberty_names_the_last_liberty() {
    // A white stone on E5 with black on D5, F5 and E4: its last liberty is E6, whose pseudo-
    // liberty count is one; a two-stone string touching one point twice is also in atari.
    let board = board_with(9, &["D5", "E5", "F5", "A9", "E4"]);
    let e5 = pt(&board, "E5");
    assert!(board.in_atari(e5));
    assert_eq!(board.atari_liberty(e5), Some(pt(&board, "E6")));
    assert!(!board.in_atari(pt(&board, "D5")));
    assert_eq!(board.atari_liberty(pt(&board, "D5")), None);
    // An L of black A1, B1, A2 whose only liberty B2 touches two of its stones (pseudo-
    // liberty count two, one real liberty).
    let mut board = Board::new(5);
    for v in ["A1", "B1", "A2"] {
        board.play(pt(&board, v), Color::Black);
    }
    for v in ["C1", "C2", "B3", "A3"] {
        board.play(pt(&board, v), Color::White);
    }
    board.check_invariants();
    let a1 = pt(&board, "A1");
    assert_eq!(board.liberties(a1), 1);
    assert!(board.in_atari(a1));
    assert_eq!(board.atari_liberty(a1), Some(pt(&board, "B2")));
}

#[test]
fn copy_from_any_size_gives_an_equal_board() {
    let big = board_with(19, &["D4", "Q16", "D5", "Q15", "K10", "C3"]);
    let small = board_with(9, &["E5", "E6", "D5", "F5"]);
    for (target, src) in [(big.clone(), &small), (small.clone(), &big)] {
        let mut copy = target;
        copy.copy_from(src);
        copy.check_invariants();
        assert_eq!(copy.size(), src.size());
        assert_eq!(copy.hash(), src.hash());
        assert!(src.points().all(|p| copy.cell(p) == src.cell(p)
            && copy.is_eye(p, Color::Black) == src.is_eye(p, Color::Black)));
        // Both boards go on identically.
        let mut original = src.clone();
        for v in ["A1", "B2", "C1"] {
            let p = pt(src, v);
            assert_eq!(copy.play(p, Color::White), original.play(p, Color::White));
        }
        copy.check_invariants();
        assert_eq!(copy.hash(), original.hash());
    }
}

#[test]
fn bits_lists_set_bits_lowest_first() {
    assert_eq!(bits(0).count(), 0);
    assert_eq!(bits(0b1011).collect::<Vec<_>>(), [0, 1, 3]);
    assert_eq!(bits(1 << 31).collect::<Vec<_>>(), [31]);
}

#[test]
fn a_stone_may_repeat_only_within_a_small_string_and_region() {
    let mut board = Board::new(9);
    // Black walls off A1-B2 (four points) with A3, B3, C2, C1.
    for v in ["A3", "B3", "C2", "C1"] {
        board.play(pt(&board, v), Color::Black);
    }
    board.play(pt(&board, "A1"), Color::White);
    // A1 and the three points left next to it: four, within 4 but not within 3.
    assert!(board.may_repeat_within(pt(&board, "A1"), 11));
    assert!(board.may_repeat_within(pt(&board, "A1"), 4));
    assert!(!board.may_repeat_within(pt(&board, "A1"), 3));
    // A stone in the open borders the rest of the board.
    board.play(pt(&board, "E5"), Color::Black);
    assert!(!board.may_repeat_within(pt(&board, "E5"), 11));
    // The wall's string (C2, C1) borders the open board too.
    assert!(!board.may_repeat_within(pt(&board, "C2"), 11));
}
