use super::*;
use crate::game::Rules;

/// Positions of `katago-features-rules.txt`.
const POSITIONS_UNDER_RULES: usize = 320;

/// A position header of `tests/data/nets` (`position N size S komi K [rules R] [handicap V...]
/// moves (- | C V ...) [command kata-raw-nn [COLOR] ...]`, `R` a KataGo rule set, `chinese-kgs`
/// when absent): the game KataGo's GTP was given and the player the net was asked about.
fn game_of_header(header: &str) -> (usize, Game, Color) {
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
    (number, game, player)
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

/// Compares every position of a features file with ours; returns how many there were.
fn check_features_file(name: &str) -> usize {
    let path = format!("{}/tests/data/nets/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("the recorded features");
    let mut positions = 0;
    let mut failures = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let lines: Vec<&str> = block.lines().collect();
        let (number, game, player) = game_of_header(lines[0]);
        let features = Features::for_player(&game, player);
        let found = differences(&features, &lines[1..]);
        if !found.is_empty() {
            failures.push(format!("position {number}:\n  {}", found.join("\n  ")));
        }
        positions += 1;
    }
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

/// `katago-features-rules.txt`: 320 positions of random games (sizes 2 to 19, kos, passes,
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
