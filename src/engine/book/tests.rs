use std::collections::HashSet;

use super::*;

fn p(vertex: &str, size: usize) -> Point {
    Point::parse(vertex, size).unwrap()
}

/// A game of `size` (Chinese rules, `komi`) after `moves` played alternately, Black first.
fn game_after(size: usize, komi: f64, moves: &[&str]) -> Game {
    let mut game = Game::new(size, Rules::chinese(komi));
    for v in moves {
        let mv = Move::parse(v, size).unwrap();
        game.play(game.to_move(), mv).unwrap();
    }
    game
}

/// `game`'s position turned by symmetry `t`, the same colours to move.
fn transformed(game: &Game, t: u8) -> Game {
    let size = game.size();
    let mut out = Game::new(size, *game.rules());
    for &(color, mv) in game.moves() {
        let mv = match mv {
            Move::Play(q) => {
                let (x, y) = transform(t, size, q.coords(size));
                Move::Play(Point::new(size, x, y))
            }
            Move::Pass => Move::Pass,
        };
        out.play(color, mv).unwrap();
    }
    out
}

/// No symmetry maps it onto itself.
const ASYMMETRIC: &[&str] = &["C3", "D7", "F4", "G3"];

#[test]
fn the_eight_symmetries_are_distinct_and_undone() {
    for size in [9, 19] {
        let q = p("C2", size).coords(size);
        let images: HashSet<(usize, usize)> = (0..8).map(|t| transform(t, size, q)).collect();
        assert_eq!(images.len(), 8);
        for t in 0..8 {
            for row in 0..size {
                for col in 0..size {
                    let there = transform(t, size, (col, row));
                    assert_eq!(untransform(t, size, there), (col, row));
                }
            }
        }
    }
}

#[test]
fn a_position_and_its_eight_transforms_have_one_key() {
    let game = game_after(9, 7.0, ASYMMETRIC);
    let canonical = Canonical::of(game.board(), Color::Black);
    let mut boards = HashSet::new();
    for t in 0..8 {
        let turned = transformed(&game, t);
        boards.insert(turned.board().hash());
        assert_eq!(
            Canonical::of(turned.board(), Color::Black).key,
            canonical.key
        );
    }
    // The position really has eight different orientations.
    assert_eq!(boards.len(), 8);
    // The colour to move and the stones are part of the key.
    assert_ne!(Canonical::of(game.board(), Color::White).key, canonical.key);
    let other = game_after(9, 7.0, &["C3", "D7", "F4", "G4"]);
    assert_ne!(
        Canonical::of(other.board(), Color::Black).key,
        canonical.key
    );
}

#[test]
fn a_stored_move_maps_back_onto_every_orientation() {
    let game = game_after(9, 7.0, ASYMMETRIC);
    let canonical = Canonical::of(game.board(), Color::White);
    let mut book = Book::new(9, 7.0, "chinese").unwrap();
    // White's book move is E3 in the game's orientation, stored in the canonical one.
    let e3 = p("E3", 9);
    book.insert(
        &canonical,
        Entry {
            to_move: Color::White,
            moves: vec![BookMove {
                point: canonical.to_canonical(e3),
                weight: 5,
            }],
            line: String::new(),
        },
    );
    for t in 0..8 {
        let turned = transformed(&game, t);
        let (x, y) = transform(t, 9, e3.coords(9));
        let expected = Move::Play(Point::new(9, x, y));
        assert_eq!(
            book.moves(&turned, Color::White),
            vec![(expected, 5)],
            "t={t}"
        );
    }
    // Black to move in the same stones is another position.
    assert!(book.moves(&game, Color::Black).is_empty());
}

#[test]
fn a_symmetric_position_maps_moves_to_an_equivalent_point() {
    // After the tengen, every symmetry keeps the board: whatever orientation is
    // canonical, the 3-4 point stored comes back as one of the eight 3-4 points.
    let game = game_after(9, 7.0, &["E5"]);
    let canonical = Canonical::of(game.board(), Color::White);
    let mut book = Book::new(9, 7.0, "chinese").unwrap();
    book.insert(
        &canonical,
        Entry {
            to_move: Color::White,
            moves: vec![BookMove {
                point: p("C4", 9),
                weight: 1,
            }],
            line: String::new(),
        },
    );
    let three_four: HashSet<Point> = ["C4", "D3", "F3", "G4", "G6", "F7", "D7", "C6"]
        .iter()
        .map(|v| p(v, 9))
        .collect();
    let found = book.moves(&game, Color::White);
    assert_eq!(found.len(), 1);
    assert!(three_four.contains(&found[0].0.point().unwrap()));
}

fn sample_book() -> Book {
    let mut book = Book::new(9, 7.0, "chinese").unwrap();
    for (moves, to) in [(&[][..], "E5"), (&["E5"][..], "C4"), (ASYMMETRIC, "E5")] {
        let game = game_after(9, 7.0, moves);
        let color = game.to_move();
        let canonical = Canonical::of(game.board(), color);
        book.insert(
            &canonical,
            Entry {
                to_move: color,
                moves: vec![
                    BookMove {
                        point: canonical.to_canonical(p(to, 9)),
                        weight: 30,
                    },
                    BookMove {
                        point: canonical.to_canonical(p("B2", 9)),
                        weight: 7,
                    },
                ],
                line: String::new(),
            },
        );
    }
    book
}

#[test]
fn a_book_reads_back_what_it_writes() {
    let book = sample_book();
    let text = book.to_text();
    assert_eq!(Book::parse(&text).unwrap(), book);
    let dir = std::env::temp_dir().join(format!("tengen-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("book.txt");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(Book::load(&path).unwrap(), book);
    std::fs::remove_dir_all(&dir).unwrap();
    // The line that reached an entry is a comment: it does not change what is read.
    let mut with_lines = book.clone();
    for entry in with_lines.entries.values_mut() {
        entry.line = "E5 C3".to_string();
    }
    assert!(with_lines.to_text().contains("# E5 C3"));
    assert_eq!(Book::parse(&with_lines.to_text()).unwrap(), book);
}

#[test]
fn a_malformed_book_is_an_error_naming_its_line() {
    let header = "tengen-book 1\nsize 9\nkomi 7\nrules chinese\n";
    let cases: &[(&str, &str)] = &[
        ("", "ends before"),
        ("# only a comment\n", "ends before"),
        ("not a book\n", "line 1: expected `tengen-book"),
        ("tengen-book 2\n", "version"),
        (
            "tengen-book 1\nsize 30\nkomi 7\nrules chinese\n",
            "line 4: size",
        ),
        ("tengen-book 1\nsize nine\n", "line 2: size"),
        ("tengen-book 1\nsize 9\nkomi lots\n", "line 3: komi"),
        (
            "tengen-book 1\nsize 9\nkomi inf\nrules chinese\n",
            "bad komi",
        ),
        (
            "tengen-book 1\nsize 9\nkomi 7\nrules martian\n",
            "unknown rules",
        ),
        ("tengen-book 1\nkomi 7\n", "line 2: expected `size"),
        ("0123 B E5 1\n", "line 5: key"),
        ("0123456789abcdeg B E5 1\n", "not hex"),
        ("0123456789abcdef X E5 1\n", "colour"),
        ("0123456789abcdef B\n", "pairs"),
        ("0123456789abcdef B E5\n", "pairs"),
        ("0123456789abcdef B K1 1\n", "off the board"),
        ("0123456789abcdef B E5 0\n", "weight"),
        ("0123456789abcdef B E5 -3\n", "weight"),
        ("0123456789abcdef B E5 99999999999\n", "weight"),
        (
            "0123456789abcdef B E5 1\n0123456789ABCDEF W C3 1\n",
            "line 6: key 0123456789abcdef repeated",
        ),
    ];
    for (body, expected) in cases {
        // Cases that start with their own header (or none) are taken as they are.
        let whole = ["tengen-book", "#", "not"]
            .iter()
            .any(|start| body.starts_with(start));
        let text = if whole || body.is_empty() {
            body.to_string()
        } else {
            format!("{header}{body}")
        };
        let error = Book::parse(&text).expect_err(&text).to_string();
        assert!(error.contains(expected), "{text:?}: {error}");
    }
    let many: String = (0..=MAX_MOVES).map(|_| " E5 1").collect();
    let error = Book::parse(&format!("{header}0123456789abcdef B{many}\n")).unwrap_err();
    assert!(error.to_string().contains("more than 16 moves"), "{error}");
    let missing = Book::load(Path::new("no/such/book.txt")).unwrap_err();
    assert!(missing.to_string().contains("cannot read"), "{missing}");
}

#[test]
fn a_book_is_used_only_with_its_size_komi_and_scoring() {
    let book = sample_book();
    let empty = |size, rules| Game::new(size, rules);
    assert_eq!(
        book.moves(&empty(9, Rules::chinese(7.0)), Color::Black)
            .len(),
        2
    );
    // AGA and Tromp-Taylor count area too.
    assert!(book.fits(9, &Rules::named("aga", 7.0).unwrap()));
    assert!(book.fits(9, &Rules::tromp_taylor(7.0)));
    assert!(
        book.moves(&empty(9, Rules::chinese(6.5)), Color::Black)
            .is_empty()
    );
    assert!(
        book.moves(&empty(9, Rules::japanese(7.0)), Color::Black)
            .is_empty()
    );
    assert!(
        book.moves(&empty(11, Rules::chinese(7.0)), Color::Black)
            .is_empty()
    );
}

#[test]
fn book_moves_the_board_forbids_are_left_out() {
    let mut book = Book::new(9, 7.0, "chinese").unwrap();
    let game = game_after(9, 7.0, &["E5"]);
    let canonical = Canonical::of(game.board(), Color::White);
    book.insert(
        &canonical,
        Entry {
            to_move: Color::White,
            moves: vec![
                BookMove {
                    point: canonical.to_canonical(p("E5", 9)),
                    weight: 100,
                },
                BookMove {
                    point: canonical.to_canonical(p("E5", 9)),
                    weight: 1,
                },
            ],
            line: String::new(),
        },
    );
    assert!(book.moves(&game, Color::White).is_empty());
    let mut opening = Opening::new(Some(1));
    // The shipped book never holds this position with an occupied move; either way the
    // chooser answers a legal move or none.
    if let Some(mv) = opening.choose(&game, Color::White) {
        assert!(game.legality(Color::White, mv).is_ok());
    }
}

#[test]
fn weighted_picks_follow_the_weights_and_the_seed() {
    let moves = [(Move::Play(p("E5", 9)), 3), (Move::Play(p("C3", 9)), 1)];
    let draw = |seed| {
        let mut rng = SmallRng::seed_from_u64(seed);
        (0..400)
            .map(|_| pick(&moves, &mut rng).unwrap())
            .collect::<Vec<_>>()
    };
    let picks = draw(7);
    assert_eq!(picks, draw(7));
    let e5 = picks.iter().filter(|&&m| m == moves[0].0).count();
    assert!((240..360).contains(&e5), "{e5} of 400");
    assert_eq!(pick(&[], &mut SmallRng::seed_from_u64(1)), None);
}

#[test]
fn the_shipped_books_read_and_hold_legal_moves() {
    assert_eq!(builtin().len(), SHIPPED.len());
    for book in builtin() {
        assert!(
            !book.is_empty(),
            "{}x{} book is empty",
            book.size(),
            book.size()
        );
        let rules = Rules::named(book.rules(), book.komi()).unwrap();
        assert!(builtin_for(book.size(), &rules).is_some());
        let empty = Game::new(book.size(), rules);
        assert!(!book.moves(&empty, Color::Black).is_empty());
    }
    assert!(builtin_for(9, &Rules::chinese(7.0)).is_some());
    assert!(builtin_for(9, &Rules::chinese(6.5)).is_none());
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a book build of many searches: release only"
)]
fn a_small_build_follows_the_best_moves_and_goes_on_from_a_book() {
    let a1 = Move::Play(p("A1", 5));
    let options = BuildOptions {
        size: 5,
        komi: 7.0,
        rules: "chinese".to_string(),
        depth: 2,
        playouts: 300,
        width: 2,
        min_share: 0.0,
        follow: vec![a1],
        max_positions: 100,
        threads: 1,
        seed: 3,
        engine: None,
    };
    let mut lines = 0;
    let book = build(&options, None, &mut |_, _| lines += 1).unwrap();
    // The empty board, one position after each kept first move, and one after A1.
    assert!((3..=4).contains(&book.len()), "{}", book.len());
    assert_eq!(lines, book.len());
    let empty = Game::new(5, Rules::chinese(7.0));
    let first = book.moves(&empty, Color::Black);
    assert!(!first.is_empty() && first.len() <= 2);
    // A1 is followed, not recommended.
    assert!(first.iter().all(|&(mv, _)| mv != a1), "{first:?}");
    for mv in first.iter().map(|&(mv, _)| mv).chain([a1]) {
        let mut next = empty.clone();
        next.play(Color::Black, mv).unwrap();
        assert!(!book.moves(&next, Color::White).is_empty(), "{mv:?}");
    }
    assert_eq!(Book::parse(&book.to_text()).unwrap().len(), book.len());
    // Going on from the book searches nothing new: the same book, even with another seed.
    let again = BuildOptions {
        seed: 4,
        ..options.clone()
    };
    let resumed = build(&again, Some(book.clone()), &mut |_, _| {}).unwrap();
    assert_eq!(resumed, book);
    // A book for another komi cannot be gone on from.
    let other = Book::new(5, 6.5, "chinese").unwrap();
    assert!(build(&options, Some(other), &mut |_, _| {}).is_err());
}
