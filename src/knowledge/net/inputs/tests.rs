use super::*;
use crate::rules::game::Rules;

/// Positions of `katago-features-rules.txt`.
const POSITIONS_UNDER_RULES: usize = 360;

/// A position header of `tests/data/nets` (`position N size S komi K [rules R] [params C H P S]
/// [handicap V...] moves (- | C V ...) [command kata-raw-nn [COLOR] ...]`, `R` a KataGo rule set,
/// `chinese-kgs` when absent; `params`: conservative pass at the root, passing hacks (0 or 1),
/// playout doubling advantage, pass-alive under suicide rules (-1 for the rules' own)): the game
/// KataGo's GTP was given, the player the net was asked about and the evaluator's options.
fn game_of_header(header: &str) -> (usize, Game, Color, InputOptions) {
    let words: Vec<&str> = header.split_whitespace().collect();
    let field = |name: &str| words.iter().position(|w| *w == name);
    let number: usize = words[1].parse().expect("position number");
    let size: usize = words[field("size").expect("size") + 1]
        .parse()
        .expect("size");
    let komi: f64 = words[field("komi").expect("komi") + 1]
        .parse()
        .expect("komi");
    let rules = field("rules").map_or("chinese", |r| match words[r + 1] {
        "chinese-kgs" => "chinese",
        other => other,
    });
    let mut game = Game::new(size, Rules::named(rules, komi).expect("rules"));
    let moves_at = field("moves").expect("moves");
    let command_at = field("command").unwrap_or(words.len());
    if let Some(h) = field("handicap") {
        let points: Vec<Point> = words[h + 1..moves_at]
            .iter()
            .map(|v| Point::parse(v, size).expect("vertex"))
            .collect();
        game.set_handicap(&points).expect("handicap");
    }
    let moves = &words[moves_at + 1..command_at];
    if moves != ["-"] {
        for pair in moves.chunks(2) {
            let color: Color = pair[0].parse().expect("colour");
            let mv = Move::parse(pair[1], size).expect("move");
            game.play(color, mv).expect("a legal move");
        }
    }
    let player = words
        .get(command_at + 2)
        .and_then(|w| w.parse::<Color>().ok())
        .unwrap_or(game.to_move());
    let options = field("params").map_or(InputOptions::default(), |p| InputOptions {
        conservative_pass_at_root: words[p + 1] == "1",
        passing_hacks: words[p + 2] == "1",
        playout_doubling_advantage: words[p + 3].parse().expect("playout doubling"),
        pass_alive_as_if_suicide_legal: words[p + 4] == "1",
    });
    (number, game, player, options)
}

/// Differences between our features and KataGo's record of one position.
fn differences(features: &Features, record: &[&str]) -> Vec<String> {
    let size = features.size;
    let area = size * size;
    let mut found = Vec::new();
    for line in record {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("plane") => {
                let plane: usize = words.next().and_then(|w| w.parse().ok()).expect("plane");
                let mut expected = vec![0.0f32; area];
                for point in words {
                    let (xy, value) = point.split_once('=').unwrap_or((point, "1"));
                    let (x, y) = xy.split_once(',').expect("x,y");
                    let (x, y): (usize, usize) = (x.parse().expect("x"), y.parse().expect("y"));
                    expected[y * size + x] = value.parse().expect("value");
                }
                let ours = &features.spatial[plane * area..(plane + 1) * area];
                let wrong: Vec<String> = (0..area)
                    .filter(|&i| ours[i] != expected[i])
                    .map(|i| format!("{},{}: {} not {}", i % size, i / size, ours[i], expected[i]))
                    .collect();
                if !wrong.is_empty() {
                    found.push(format!("plane {plane}: {}", wrong.join("; ")));
                }
            }
            Some("global") => {
                for (i, w) in words.enumerate() {
                    let expected: f32 = w.parse().expect("global");
                    if features.global[i] != expected {
                        found.push(format!("global {i}: {} not {expected}", features.global[i]));
                    }
                }
            }
            Some("illegal") => {
                let mut expected = vec![true; area];
                for point in words {
                    let (x, y) = point.split_once(',').expect("x,y");
                    let (x, y): (usize, usize) = (x.parse().expect("x"), y.parse().expect("y"));
                    expected[y * size + x] = false;
                }
                if features.legal != expected {
                    let wrong: Vec<String> = (0..area)
                        .filter(|&i| features.legal[i] != expected[i])
                        .map(|i| format!("{},{}", i % size, i / size))
                        .collect();
                    found.push(format!("legal differs at {}", wrong.join(" ")));
                }
            }
            _ => {}
        }
    }
    found
}

/// Reads the record `name` of `tests/data/nets` and calls `check` with each position's header
/// (read by [`game_of_header`]) and the lines under it; returns how many positions there were.
fn each_position(
    name: &str,
    mut check: impl FnMut((usize, Game, Color, InputOptions), &[&str]),
) -> usize {
    let path = format!("{}/tests/data/nets/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("the record");
    let mut positions = 0;
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let lines: Vec<&str> = block.lines().collect();
        check(game_of_header(lines[0]), &lines[1..]);
        positions += 1;
    }
    positions
}

/// Compares every position of a features file with ours; returns how many there were.
fn check_features_file(name: &str) -> usize {
    let mut failures = Vec::new();
    let positions = each_position(name, |(number, game, player, options), lines| {
        let features = NetPosition::from_game(&game).features(player, &options);
        let found = differences(&features, lines);
        if !found.is_empty() {
            failures.push(format!("position {number}:\n  {}", found.join("\n  ")));
        }
    });
    assert!(
        failures.is_empty(),
        "{} of {positions} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    positions
}

#[test]
fn features_match_katago_on_every_recorded_position() {
    assert_eq!(check_features_file("g170-b6c96.features.txt"), 271);
}

/// `katago-features-rules.txt`: 360 positions of random games (sizes 2 to 19, kos, passes,
/// multi-stone suicide under Tromp-Taylor, handicap stones, a colour moving twice, the colour not
/// to move asked about) under `chinese-kgs`, `japanese`, `aga` and `tromp-taylor`, with KataGo's
/// `fillRowV7` features in the format of `g170-b6c96.features.txt` plus a line `illegal x,y ...`
/// of the points where KataGo's `BoardHistory::isLegal` refuses the player's move; made by the
/// same kind of harness linked to KataGo's objects, with the header's `rules` fed to
/// `Rules::parseRulesWithoutKomi`.
#[test]
fn features_and_legal_moves_match_katago_under_every_rule_set() {
    assert_eq!(
        check_features_file("katago-features-rules.txt"),
        POSITIONS_UNDER_RULES
    );
}

/// A game of `size` under `rules` (a name of `Rules::named`) with `moves` (`"B A3 W pass ..."`)
/// played after `handicap` stones.
fn game(size: usize, rules: &str, komi: f64, handicap: &str, moves: &str) -> Game {
    let mut game = Game::new(size, Rules::named(rules, komi).expect("rules"));
    if !handicap.is_empty() {
        let points: Vec<Point> = handicap
            .split_whitespace()
            .map(|v| Point::parse(v, size).expect("vertex"))
            .collect();
        game.set_handicap(&points).expect("handicap");
    }
    let words: Vec<&str> = moves.split_whitespace().collect();
    for pair in words.chunks(2) {
        let color: Color = pair[0].parse().expect("colour");
        game.play(color, Move::parse(pair[1], size).expect("move"))
            .expect("a legal move");
    }
    game
}

/// The points of `plane` that are set, as KataGo's `x,y` (y = 0 the top row), in its order.
fn on(features: &Features, plane: usize) -> Vec<(usize, usize)> {
    let size = features.size;
    let area = size * size;
    (0..area)
        .filter(|&i| features.spatial[plane * area + i] != 0.0)
        .map(|i| (i % size, i / size))
        .collect()
}

/// GTP vertices as KataGo's `x,y`, in KataGo's order.
fn at(size: usize, vertices: &str) -> Vec<(usize, usize)> {
    let mut points: Vec<(usize, usize)> = vertices
        .split_whitespace()
        .map(|v| {
            let (col, row) = Point::parse(v, size).expect("vertex").coords(size);
            (col, size - 1 - row)
        })
        .collect();
    points.sort_by_key(|&(x, y)| (y, x));
    points
}

/// Whether the player to move may play at `vertex`.
fn legal_at(features: &Features, vertex: &str) -> bool {
    let size = features.size;
    let (col, row) = Point::parse(vertex, size).expect("vertex").coords(size);
    features.legal[(size - 1 - row) * size + col]
}

const KO_TAKEN: &str = "B A3 W B3 B B4 W C4 B B2 W C2 B E5 W D3 B C3";

#[test]
fn a_ko_just_taken_bans_the_retake() {
    let features = Features::from_game(&game(5, "chinese", 7.5, "", KO_TAKEN));
    assert_eq!(on(&features, 6), at(5, "B3"));
    assert!(!legal_at(&features, "B3"));
    assert!(legal_at(&features, "A5"));
    assert_eq!(on(&features, 9), at(5, "C3"));
    assert_eq!(on(&features, 10), at(5, "D3"));
    // The capturing stone is in atari; White (to move) owns C4, D3, C2.
    assert_eq!(on(&features, 3), at(5, "C3"));
    assert_eq!(on(&features, 1), at(5, "C4 D3 C2"));
    assert_eq!(features.global[5], 7.5 / 20.0);
}

#[test]
fn the_colour_not_to_move_sees_no_ko_and_no_history() {
    let features = NetPosition::from_game(&game(5, "chinese", 7.5, "", KO_TAKEN))
        .features(Color::Black, &InputOptions::default());
    assert!(on(&features, 6).is_empty());
    assert!(legal_at(&features, "B3"));
    for plane in 9..=13 {
        assert!(on(&features, plane).is_empty(), "plane {plane}");
    }
    assert_eq!(on(&features, 1), at(5, "E5 B4 A3 C3 B2"));
    assert_eq!(features.global[5], -7.5 / 20.0);
    assert_eq!(features.global[18], -0.5);
}

#[test]
fn positional_superko_bans_a_move_that_repeats_a_position() {
    // On 2x2, Black at B2 would recreate the position after Black's B1 (B2 is no ko point).
    let features = Features::from_game(&game(
        2,
        "chinese",
        0.0,
        "",
        "B B2 W A1 B B1 W A2 B B2 W B1",
    ));
    assert_eq!(on(&features, 6), at(2, "B2"));
    assert!(features.legal.iter().all(|&l| !l));
    // Under simple ko nothing is banned.
    let japanese = Features::from_game(&game(
        2,
        "japanese",
        0.0,
        "",
        "B B2 W A1 B B1 W A2 B B2 W B1",
    ));
    assert!(on(&japanese, 6).is_empty());
    assert!(legal_at(&japanese, "B2"));
}

#[test]
fn a_working_ladder_marks_the_stone_and_the_move_that_starts_it() {
    // White C3 with two liberties: Black C4 chases it up to the top right; D3 lets it out.
    let features = Features::from_game(&game(
        9,
        "chinese",
        7.0,
        "",
        "B B3 W C3 B C2 W A9 B D2 W J1",
    ));
    assert!(on(&features, 14).contains(&at(9, "C3")[0]));
    assert!(on(&features, 17).contains(&at(9, "C4")[0]));
    assert!(!on(&features, 17).contains(&at(9, "D3")[0]));
    // One move ago (before J1) it was already there; two moves ago (before D2) it was not.
    assert!(on(&features, 15).contains(&at(9, "C3")[0]));
    assert!(!on(&features, 16).contains(&at(9, "C3")[0]));
}

#[test]
fn a_ladder_breaker_stops_the_ladder() {
    let features = Features::from_game(&game(
        9,
        "chinese",
        7.0,
        "",
        "B B3 W C3 B C2 W A9 B D2 W G6",
    ));
    assert!(!on(&features, 14).contains(&at(9, "C3")[0]));
    assert!(!on(&features, 17).contains(&at(9, "C4")[0]));
    // One move ago the breaker was not there yet.
    assert!(on(&features, 15).contains(&at(9, "C3")[0]));
}

#[test]
fn a_pass_alive_group_owns_its_eyes_and_dead_stones_only_their_points() {
    // Black's wall with eyes A5, C5, E5 is pass-alive; White's stones below are not, and the
    // empty row between them belongs to nobody.
    let moves = "B A4 W C2 B B4 W B1 B C4 W D1 B D4 W A2 B E4 W E2 B B5 W C1 B D5";
    let features = Features::from_game(&game(5, "chinese", 7.5, "", moves));
    assert_eq!(on(&features, 19), at(5, "A5 B5 C5 D5 E5 A4 B4 C4 D4 E4"));
    assert_eq!(on(&features, 18), at(5, "A2 C2 E2 A1 B1 C1 D1 E1"));
}

#[test]
fn the_last_five_moves_include_passes() {
    let features = Features::from_game(&game(9, "chinese", 7.0, "", "B E5 W pass B D4 W C3"));
    assert_eq!(on(&features, 9), at(9, "C3"));
    assert_eq!(on(&features, 10), at(9, "D4"));
    assert!(on(&features, 11).is_empty());
    assert_eq!(on(&features, 12), at(9, "E5"));
    assert_eq!(&features.global[..5], &[0.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!(features.global[14], 0.0);
}

#[test]
fn a_pass_that_would_end_the_game_hides_history_under_friendly_pass_rules_only() {
    let chinese = Features::from_game(&game(9, "chinese", 7.0, "", "B E5 W pass"));
    assert!((9..=13).all(|plane| on(&chinese, plane).is_empty()));
    assert_eq!(&chinese.global[..5], &[0.0; 5]);
    assert_eq!(chinese.global[14], 0.0);
    let tromp_taylor = Features::from_game(&game(9, "tromp-taylor", 7.0, "", "B E5 W pass"));
    assert_eq!(on(&tromp_taylor, 10), at(9, "E5"));
    assert_eq!(tromp_taylor.global[0], 1.0);
    assert_eq!(tromp_taylor.global[14], 1.0);
    assert_eq!(tromp_taylor.global[8], 1.0);
}

#[test]
fn white_is_given_komi_for_handicap_stones_by_the_rules() {
    // Chinese: komi plus one point a stone; AGA: one point less; Japanese: none, but territory
    // scoring counts the stones on the board, which comes to the same here.
    let chinese = Features::from_game(&game(9, "chinese", 0.5, "C3 G7", ""));
    assert_eq!(chinese.global[5], 2.5 / 20.0);
    assert_eq!(on(&chinese, 2), at(9, "G7 C3"));
    let aga = Features::from_game(&game(9, "aga", 0.5, "C3 G7", ""));
    assert_eq!(aga.global[5], 1.5 / 20.0);
    assert_eq!(&aga.global[6..8], &[1.0, -0.5]);
    let japanese = Features::from_game(&game(9, "japanese", 0.5, "C3 G7", ""));
    assert_eq!(japanese.global[5], 2.5 / 20.0);
    assert_eq!(&japanese.global[6..11], &[0.0, 0.0, 0.0, 1.0, 1.0]);
    assert!(on(&japanese, 19).is_empty());
}

#[test]
fn black_moves_in_a_row_at_the_start_count_as_handicap_on_19x19() {
    let features = Features::from_game(&game(19, "chinese", 0.5, "", "B D4 B Q16 B Q4 W D16"));
    assert_eq!(features.global[5], -3.5 / 20.0);
    // Black's second move cleared the history: the moves before Q16's are not shown.
    assert_eq!(on(&features, 9), at(19, "D16"));
    assert_eq!(on(&features, 10), at(19, "Q4"));
    assert!(on(&features, 11).is_empty());
    assert_eq!(features.global[18], -0.5);
}

#[test]
fn a_2x2_board_has_every_feature_at_its_size() {
    let features = Features::from_game(&game(2, "chinese", 0.0, "", "B A1"));
    assert_eq!(features.spatial.len(), SPATIAL_FEATURES * 4);
    assert_eq!(on(&features, 0).len(), 4);
    assert_eq!(on(&features, 2), at(2, "A1"));
    assert_eq!(on(&features, 4), at(2, "A1"));
    assert_eq!(on(&features, 19).len(), 4);
    assert_eq!(features.legal, vec![true, true, false, true]);
    assert_eq!(features.global[5], 0.0);
}

/// Checks our legal points against the `NAN`s of KataGo's first policy in each answer of a
/// `kata-raw-nn` file; returns how many positions there were.
fn check_legal_against_policy(name: &str) -> usize {
    let mut failures = Vec::new();
    let positions = each_position(name, |(number, game, player, _), lines| {
        let features = NetPosition::from_game(&game).features(player, &InputOptions::default());
        let policy = lines.iter().position(|l| *l == "policy").expect("policy");
        let katago_legal: Vec<bool> = lines[policy + 1..=policy + features.size]
            .iter()
            .flat_map(|row| row.split_whitespace().map(|v| v != "NAN"))
            .collect();
        if features.legal != katago_legal {
            failures.push(number);
        }
    });
    assert!(
        failures.is_empty(),
        "legal points differ in positions {failures:?}"
    );
    positions
}

#[test]
fn legal_points_are_where_katago_gives_a_policy() {
    assert_eq!(
        check_legal_against_policy("g170-b6c96.kata-raw-nn.txt"),
        186
    );
    assert_eq!(
        check_legal_against_policy("g170-b6c96.extra.kata-raw-nn.txt"),
        85
    );
}

#[test]
fn a_single_stone_suicide_is_refused_as_katago_refuses_it() {
    let mut position =
        NetPosition::from_game(&game(3, "tromp-taylor", 7.5, "", "B C3 W B1 B C2 W A2"));
    let a1 = Point::parse("A1", 3).expect("vertex");
    position.play(Color::Black, Move::Play(a1));
    assert_eq!(position.to_move(), Color::Black);
    let features = position.features(Color::Black, &InputOptions::default());
    assert_eq!(on(&features, 9), at(3, "A2"));
    assert_eq!(on(&features, 10), at(3, "C2"));
    assert!(!legal_at(&features, "A1"));
}
