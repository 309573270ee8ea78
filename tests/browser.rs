//! The page of `tengen serve` in a real browser: the real binary on loopback, Debian's
//! chromium driven headless through chromedriver (WebDriver) with fantoccini. The test opens
//! the page, starts a 9x9 game against `easy` from the form, and plays Black by clicking the
//! board (and Undo once, and Pass at the end) until the game is over; after every click it
//! checks that the board the page draws, the AI's reply and its last-move mark, the captures and
//! the status line agree with the server's state and with a local replay, and at the end that
//! the result and the dead stones shown are the server's. At move 5 it ticks Analysis and
//! checks the win-rate bar and the ownership squares against the server's analysis, and again
//! at the end.
//!
//! The same game is played once more through HAProxy (deploy/haproxy.cfg) in front of two
//! servers sharing one PostgreSQL, as a page served by several machines is; at move 15 the
//! server holding the game is killed with `kill -9` and started again, so that the page
//! plays on through a server that loads the game from the database.
//!
//! Needs `chromium` and `chromedriver` on PATH (`apt-get install chromium chromium-driver`),
//! and for the second test PostgreSQL and haproxy too; without them the tests are reported
//! ignored, unless TENGEN_REQUIRE_EXTERNAL=1 (then they fail).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::temp::TempDir;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use tengen::engine::player::sensible_moves;
use tengen::rules::board::{Color, Move, Point};
use tengen::rules::game::{Game, Rules};

const SIZE: usize = 9;
/// Black plays on the board up to this move number, then passes until the game ends.
const LAST_PLAYED_MOVE: usize = 40;
/// The longest the page may take to show the AI's reply (easy answers in milliseconds).
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// Coordinate letters, as the page draws them (no I).
const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// A child process in its own process group; the whole group is killed when dropped, so that
/// a failed test leaves no chromium behind chromedriver.
struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` in a new process group and waits (30 s at most) for a line of its stdout
/// or stderr containing `marker`; returns the child and what follows the marker on that line.
fn start(mut command: Command, marker: &'static str, what: &str) -> (Group, String) {
    use std::os::unix::process::CommandExt;
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {what}: {e}"));
    let (tx, rx) = mpsc::channel();
    let streams: [Box<dyn Read + Send>; 2] = [
        Box::new(child.stdout.take().unwrap()),
        Box::new(child.stderr.take().unwrap()),
    ];
    for stream in streams {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if let Some(at) = line.find(marker) {
                    let _ = tx.send(line[at + marker.len()..].trim().to_string());
                }
            }
        });
    }
    let child = Group(child);
    let found = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{what} did not print {marker:?} within 30 s"));
    (child, found)
}

/// `GET path` from the server: the JSON it answers.
fn get(address: &str, path: &str) -> Value {
    let mut stream = TcpStream::connect(address).expect("connect to tengen serve");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read the answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a header");
    assert!(head.starts_with("HTTP/1.1 200"), "GET {path}: {head}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {body}"))
}

fn vertex(mv: Move) -> String {
    match mv {
        Move::Play(p) => p.to_vertex(SIZE),
        Move::Pass => "pass".to_string(),
    }
}

/// The page's SVG coordinates of a vertex: column from the left, row from the top.
fn page_xy(vertex: &str) -> (usize, usize) {
    let column = LETTERS
        .iter()
        .position(|&c| c == vertex.as_bytes()[0])
        .unwrap();
    let number: usize = vertex[1..].parse().unwrap();
    (column, SIZE - number)
}

/// The board of `game`, rows top first, as the state writes it.
fn rows(game: &Game) -> Vec<String> {
    let board = game.board();
    (0..SIZE)
        .rev()
        .map(|row| {
            (0..SIZE)
                .map(|col| match board.color_at(Point::new(SIZE, col, row)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                })
                .collect()
        })
        .collect()
}

/// Reads, in one round trip, what the page shows.
const READ_PAGE: &str = r##"
const circles = [...document.querySelectorAll("#board circle")].map((c) => ({
  x: +c.getAttribute("cx"), y: +c.getAttribute("cy"), r: +c.getAttribute("r"),
  fill: c.getAttribute("fill"), dead: c.getAttribute("class") === "dead" }));
return {
  circles,
  crosses: document.querySelectorAll("#board path").length,
  status: document.getElementById("status").textContent,
  info: document.getElementById("info").textContent,
  error: document.getElementById("error").textContent,
  pass_disabled: document.getElementById("pass").disabled,
  sgf: document.getElementById("sgf").getAttribute("href"),
  saved: JSON.parse(localStorage.getItem("tengen.game") || "null"),
  winrate_shown: !document.getElementById("winrate").hidden,
  winrate_number: document.getElementById("winrate").dataset.number || "",
  winrate_width: document.getElementById("wr-black").style.width,
  winrate_text: document.getElementById("wr-text").textContent,
  owned: [...document.querySelectorAll("#board rect.own")].map((r) => ({
    x: +r.getAttribute("x") + 0.25, y: +r.getAttribute("y") + 0.25, fill: r.getAttribute("fill") })),
};
"##;

/// Counts, from now on, the clicks on the page (`window.tengenClicks`, counted as the click
/// reaches the document, before the board's own handler) and the requests it sends
/// (`window.tengenFetches`: every request of the page's goes through `fetch`).
const COUNT_CLICKS_AND_REQUESTS: &str = r##"
window.tengenClicks = 0;
window.tengenFetches = 0;
document.addEventListener("click", () => { window.tengenClicks += 1; }, true);
const fetch = window.fetch;
window.fetch = (...args) => { window.tengenFetches += 1; return fetch(...args); };
"##;

/// What the page shows.
struct Page {
    /// The stones drawn, rows top first (`.`, `X`, `O`).
    board: Vec<String>,
    /// The vertices of the stones drawn as dead, sorted.
    dead: Vec<String>,
    /// The red crosses drawn (one per dead stone).
    crosses: usize,
    /// Where the last-move mark is, if anywhere.
    mark: Option<String>,
    status: String,
    info: String,
    error: String,
    pass_disabled: bool,
    sgf: String,
    key: String,
    /// The analysis shown: the win-rate bar, the number of the position it is about, the
    /// black part's width and the bar's text; the ownership squares (vertex, black or not).
    winrate_shown: bool,
    winrate_number: String,
    winrate_width: String,
    winrate_text: String,
    owned: Vec<(String, bool)>,
}

async fn read_page(client: &Client) -> Page {
    let v = client
        .execute(READ_PAGE, vec![])
        .await
        .expect("read the page");
    let mut board = vec![vec!['.'; SIZE]; SIZE];
    let (mut dead, mut mark) = (Vec::new(), None);
    let name = |x: f64, y: f64| {
        let (x, y) = (x as usize, y as usize);
        format!("{}{}", LETTERS[x] as char, SIZE - y)
    };
    for c in v["circles"].as_array().unwrap() {
        let (x, y, r) = (
            c["x"].as_f64().unwrap(),
            c["y"].as_f64().unwrap(),
            c["r"].as_f64().unwrap(),
        );
        if r == 0.47 {
            board[y as usize][x as usize] = match c["fill"].as_str() {
                Some("#111") => 'X',
                Some("#fafafa") => 'O',
                other => panic!("a stone of colour {other:?}"),
            };
            if c["dead"].as_bool().unwrap() {
                dead.push(name(x, y));
            }
        } else if r == 0.18 {
            assert!(mark.is_none(), "two last-move marks");
            mark = Some(name(x, y));
        }
    }
    dead.sort();
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    Page {
        board: board.into_iter().map(String::from_iter).collect(),
        dead,
        crosses: v["crosses"].as_u64().unwrap() as usize,
        mark,
        status: text("status"),
        info: text("info"),
        error: text("error"),
        pass_disabled: v["pass_disabled"].as_bool().unwrap(),
        sgf: text("sgf"),
        key: v["saved"]["key"].as_str().unwrap_or_default().to_string(),
        winrate_shown: v["winrate_shown"].as_bool().unwrap(),
        winrate_number: text("winrate_number"),
        winrate_width: text("winrate_width"),
        winrate_text: text("winrate_text"),
        owned: v["owned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                let (x, y) = (o["x"].as_f64().unwrap(), o["y"].as_f64().unwrap());
                (name(x.round(), y.round()), o["fill"] == "#000")
            })
            .collect(),
    }
}

/// Waits until the page shows the analysis of the position before move `number`, then
/// checks it against the server's (the same question gets the same answer): the bar's share
/// and text, and one square per point the analysis gives to a side.
async fn check_analysis(client: &Client, address: &str, key: &str, number: usize) {
    let start = Instant::now();
    let page = loop {
        let page = read_page(client).await;
        if page.winrate_number == number.to_string() {
            break page;
        }
        assert!(
            page.winrate_shown,
            "the win-rate bar is hidden with Analysis on"
        );
        assert!(
            !page.winrate_text.starts_with("Analysis failed"),
            "{}",
            page.winrate_text
        );
        assert!(
            start.elapsed() < REPLY_TIMEOUT,
            "waiting for the analysis of move {number}: the bar shows {:?} for {:?}",
            page.winrate_text,
            page.winrate_number
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let analysis = get(address, &format!("/api/games/{key}/analysis"));
    assert_eq!(analysis["number"], number, "{analysis}");
    let black = analysis["black_winrate"].as_f64().unwrap();
    let width: f64 = page
        .winrate_width
        .strip_suffix('%')
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("the bar's width: {:?}", page.winrate_width));
    assert!((width - black * 100.0).abs() < 0.06, "{width}% for {black}");
    let percent = (black * 100.0).round();
    assert!(
        page.winrate_text
            .starts_with(&format!("Black {percent}% · White {}%", 100.0 - percent)),
        "{}",
        page.winrate_text
    );
    let mut expected: Vec<(String, bool)> = analysis["ownership"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            let o = o.as_f64().unwrap();
            let vertex = format!("{}{}", LETTERS[i % SIZE] as char, SIZE - i / SIZE);
            (o.abs() >= 0.15).then_some((vertex, o > 0.0))
        })
        .collect();
    let mut owned = page.owned.clone();
    expected.sort();
    owned.sort();
    assert_eq!(owned, expected, "the ownership squares");
}

/// Waits until the page's status line passes `done`; the page then.
async fn wait_for(client: &Client, what: &str, done: impl Fn(&str) -> bool) -> Page {
    let start = Instant::now();
    loop {
        let page = read_page(client).await;
        if done(&page.status) {
            return page;
        }
        assert!(
            page.error.is_empty(),
            "waiting for {what}, the page shows an error: {}",
            page.error
        );
        assert!(
            start.elapsed() < REPLY_TIMEOUT,
            "waiting for {what}: the status is still {:?}",
            page.status
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Checks that the page shows the server's state, which must be the local replay's.
fn check_page(page: &Page, state: &Value, mirror: &Game) {
    let played: Vec<String> = mirror.moves().iter().map(|&(_, m)| vertex(m)).collect();
    assert_eq!(state["moves"], json!(played), "the server's moves");
    assert_eq!(state["board"], json!(rows(mirror)), "the server's board");
    assert_eq!(page.board, rows(mirror), "the board drawn: {}", page.status);
    assert_eq!(page.error, "", "an error shown");
    let last = state["last_move"].as_str();
    let mark = last.filter(|&m| m != "pass" && m != "resign");
    assert_eq!(page.mark.as_deref(), mark, "the last-move mark");
    let captures = &state["captures"];
    assert!(
        page.info.contains(&format!(
            "captures: Black {}, White {}",
            captures["B"], captures["W"]
        )),
        "{}",
        page.info
    );
    if let Some(last) = last {
        assert!(
            page.info.ends_with(&format!("last move {last}")),
            "{}",
            page.info
        );
    }
    assert!(
        page.info.starts_with("9x9, easy, komi 7.5"),
        "{}",
        page.info
    );
}

async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("find {css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// Clicks the empty point `vertex` on the board.
async fn click_point(client: &Client, vertex: &str) {
    let (x, y) = page_xy(vertex);
    let css = format!(
        "#board rect[x=\"{}\"][y=\"{}\"][width=\"1\"]",
        x as f64 - 0.5,
        y as f64 - 0.5
    );
    click(client, &css).await;
}

/// The win-rate graph after the game (analysis on from move 5): a point per position
/// analysed; a click on the first shows the board after that many moves, as the server has
/// it, and "Back to the game" shows `board`, the game's last position, again.
async fn check_graph(client: &Client, address: &str, key: &str, board: &[String]) {
    let points = client
        .execute(
            "return [...document.querySelectorAll('#graph circle.pt')].map((c) => +c.dataset.moves);",
            vec![],
        )
        .await
        .expect("read the graph's points");
    let points: Vec<u64> = points
        .as_array()
        .expect("a list")
        .iter()
        .map(|p| p.as_u64().expect("a move count"))
        .collect();
    assert!(points.len() >= 3, "the graph's points: {points:?}");
    let first = points[0];
    assert_eq!(first, 4, "analysis went on at move 5: {points:?}");
    click(client, &format!("#graph circle[data-moves=\"{first}\"]")).await;
    let past = get(address, &format!("/api/games/{key}/board?moves={first}"));
    let expected: Vec<String> = past["board"]
        .as_array()
        .expect("the board's rows")
        .iter()
        .map(|row| row.as_str().expect("a row").to_string())
        .collect();
    let start = Instant::now();
    while read_page(client).await.board != expected {
        assert!(
            start.elapsed() < REPLY_TIMEOUT,
            "the board after {first} moves never showed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    click(client, "#back").await;
    assert_eq!(read_page(client).await.board, board, "back to the game");
}

/// The status line while it is Black's turn at move `number`.
fn your_move(number: usize) -> String {
    format!("Your move (Black), move {number}")
}

/// What happens to the servers before Black's move `number` of game `key`.
type BetweenMoves = Box<dyn FnMut(usize, &str) + Send>;

/// The game, played in the browser, with `between` called before each of Black's moves;
/// returns the number of clicks, the result and the number of dead stones.
async fn play(
    client: Client,
    address: String,
    mut between: BetweenMoves,
) -> (usize, String, usize) {
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("open the page");
    let opened = Instant::now();
    while client
        .find(Locator::Css("#levels option[value=\"easy\"]"))
        .await
        .is_err()
    {
        assert!(
            opened.elapsed() < REPLY_TIMEOUT,
            "the page never listed the levels"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let page = read_page(&client).await;
    assert_eq!(page.status, "Pick the settings and start a new game.");
    // The form's choices by their labels, as a person picks them.
    for (select, label) in [
        ("select[name=size]", "9"),
        ("#levels", "easy"),
        ("select[name=color]", "Black"),
        ("select[name=handicap]", "0"),
    ] {
        client
            .find(Locator::Css(select))
            .await
            .unwrap()
            .select_by_label(label)
            .await
            .unwrap_or_else(|e| panic!("choose {label} in {select}: {e}"));
    }
    // The opponents by rank come first, weakest first, then the other levels.
    let groups = client
        .execute(
            "return [...document.querySelectorAll('#levels optgroup')].map((g) => \
             [g.label, [...g.querySelectorAll('option')].map((o) => o.value)]);",
            vec![],
        )
        .await
        .expect("read the level groups");
    assert_eq!(groups[0][0], "Opponent by rank", "{groups}");
    assert_eq!(groups[0][1][0], "20k", "{groups}");
    assert_eq!(groups[0][1][9], "3d", "{groups}");
    assert_eq!(groups[1][0], "Levels", "{groups}");
    // The win-rate bar's letters are outlined, to read over black and over white.
    let shadow = client
        .execute(
            "return getComputedStyle(document.getElementById('wr-text')).textShadow;",
            vec![],
        )
        .await
        .expect("read the bar's text style");
    assert!(
        shadow.as_str().is_some_and(|s| s.contains("rgb(0, 0, 0)")),
        "{shadow}"
    );
    // Beside the level, what plays at it.
    let plays = client
        .find(Locator::Css("#plays"))
        .await
        .expect("what plays at the level")
        .text()
        .await
        .unwrap();
    assert_eq!(plays, "random moves");
    click(&client, "#new button").await;
    let page = wait_for(&client, "the new game", |s| s == your_move(1)).await;
    assert_eq!(page.board, vec![".".repeat(SIZE); SIZE]);
    assert!(!page.key.is_empty(), "the page keeps the game's key");
    assert_eq!(page.sgf, format!("/api/games/{}/sgf", page.key));
    let key = page.key;
    let state = get(&address, &format!("/api/games/{key}"));
    assert_eq!(
        (&state["level"], &state["size"], &state["color"]),
        (&json!("easy"), &json!(9), &json!("B"))
    );

    let mut mirror = Game::new(SIZE, Rules::chinese(7.5));
    let mut clicks = 1;
    let mut undone = false;
    let mut analysing = false;
    // A fixed choice of Black's moves, so that a failure can be replayed: the i-th sensible
    // point in board order, i stepping by a prime.
    let mut pick = 0usize;
    loop {
        let number = mirror.moves().len() + 1;
        between(number, &key);
        if number == 11 && !undone {
            // Undo takes back Black's move 9 and the reply to it.
            undone = true;
            click(&client, "#undo").await;
            clicks += 1;
            wait_for(&client, "the undo", |s| s == your_move(9)).await;
            let kept: Vec<(Color, Move)> = mirror.moves()[..8].to_vec();
            mirror = Game::new(SIZE, Rules::chinese(7.5));
            for (color, mv) in kept {
                mirror.play(color, mv).unwrap();
            }
            let state = get(&address, &format!("/api/games/{key}"));
            check_page(&read_page(&client).await, &state, &mirror);
            continue;
        }
        if number == 5 && !analysing {
            // Analysis on: the bar and the ownership squares appear, and stay on.
            analysing = true;
            let page = read_page(&client).await;
            assert!(
                !page.winrate_shown && page.owned.is_empty(),
                "analysis is off at first"
            );
            click(&client, "#analyse").await;
            clicks += 1;
            check_analysis(&client, &address, &key, number).await;
        }
        let choices = sensible_moves(&mirror, Color::Black);
        let mv = if number > LAST_PLAYED_MOVE || choices.is_empty() {
            click(&client, "#pass").await;
            Move::Pass
        } else {
            pick = (pick + 7) % choices.len();
            let mv = Move::Play(choices[pick]);
            click_point(&client, &vertex(mv)).await;
            mv
        };
        clicks += 1;
        mirror.play(Color::Black, mv).unwrap();
        let page = wait_for(&client, &format!("the reply to {}", vertex(mv)), |s| {
            s.starts_with("Game over") || s == your_move(number + 2)
        })
        .await;
        let state = get(&address, &format!("/api/games/{key}"));
        let moves = state["moves"].as_array().unwrap();
        if moves.len() > number {
            // The AI replied: White, legal, and the page marks it as the last move.
            assert_eq!(moves.len(), number + 1, "{state}");
            let reply = moves[number].as_str().unwrap();
            let reply = Move::parse(reply, SIZE).unwrap();
            mirror
                .play(Color::White, reply)
                .expect("the AI's reply is legal");
        }
        check_page(&page, &state, &mirror);
        if state["over"].as_bool().unwrap() {
            let result = state["result"].as_str().unwrap();
            assert_eq!(page.status, format!("Game over: {result}"));
            assert!(
                result == "0" || result.starts_with("B+") || result.starts_with("W+"),
                "{result}"
            );
            assert!(!result.ends_with("+R"), "nobody resigned: {result}");
            let two_passes = mirror
                .moves()
                .iter()
                .rev()
                .take(2)
                .all(|m| m.1 == Move::Pass);
            assert!(two_passes || mirror.moves().len() >= 4 * SIZE * SIZE);
            let mut dead: Vec<String> = state["dead"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            dead.sort();
            assert_eq!(page.dead, dead, "the dead stones drawn");
            assert_eq!(page.crosses, dead.len(), "one cross per dead stone");
            assert!(page.pass_disabled, "Pass is off once the game is over");
            check_analysis(&client, &address, &key, mirror.moves().len() + 1).await;
            // A click on an empty point after the end (there is always one: a full board
            // has no legal last stone) changes nothing: the page sends no request (it would
            // call fetch in the click's own handler, which has run by the time the script
            // after the click runs), and the game is as it was.
            let empty = mirror
                .board()
                .points()
                .find(|&p| mirror.board().color_at(p).is_none())
                .expect("an empty point");
            client
                .execute(COUNT_CLICKS_AND_REQUESTS, vec![])
                .await
                .expect("count the page's clicks and requests");
            click_point(&client, &empty.to_vertex(SIZE)).await;
            let counted = client
                .execute(
                    "return [window.tengenClicks, window.tengenFetches];",
                    vec![],
                )
                .await
                .expect("read the counts");
            assert_eq!(counted, json!([1, 0]), "[clicks, requests] after the end");
            let page = read_page(&client).await;
            assert_eq!(page.status, format!("Game over: {result}"));
            let after = get(&address, &format!("/api/games/{key}"));
            assert_eq!(after["moves"], state["moves"]);
            check_graph(&client, &address, &key, &page.board).await;
            return (clicks, result.to_string(), dead.len());
        }
        assert!(
            mirror.moves().len() < 4 * SIZE * SIZE,
            "the game did not end"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
#[cfg_attr(
    not(chromium_tests),
    ignore = "chromium or chromedriver not found: apt-get install chromium chromium-driver"
)]
async fn a_9x9_game_against_easy_played_by_clicking_in_chromium() {
    let began = Instant::now();
    let dir = TempDir::new("browser");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_tengen"));
    serve
        .args(["serve", "--bind", "127.0.0.1:0", "--store"])
        .arg(dir.path().join("games.sqlite"))
        .current_dir(dir.path());
    let (_server, address) = start(serve, "listening on http://", "tengen serve");
    play_in_chromium(dir.path(), address, Box::new(|_, _| {})).await;
    eprintln!(
        "browser test: {:.1} s in all",
        began.elapsed().as_secs_f64()
    );
}

#[test]
#[cfg_attr(
    not(all(chromium_tests, postgres_tests, haproxy_tests)),
    ignore = "chromium, chromedriver, PostgreSQL's initdb and pg_ctl, or haproxy not found: apt-get install chromium chromium-driver postgresql haproxy"
)]
fn the_game_played_in_chromium_through_haproxy_in_front_of_two_servers() {
    let began = Instant::now();
    let dir = TempDir::new("browser-balanced");
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let ports = common::free_ports::<2>();
    let mut servers: Vec<common::balancer::Server> = ports
        .iter()
        .map(|&port| common::balancer::Server::start(port, &url, &[]))
        .collect();
    let front = common::free_port();
    let haproxy = std::sync::Arc::new(common::balancer::Haproxy::start(front, &ports));
    // At move 15 the server that the game's key hashes to is killed with `kill -9`: the
    // page's next requests go to the other server, which loads the game from the database.
    // The killed one is started again once the other has answered one.
    let log = std::sync::Arc::clone(&haproxy);
    let game_key = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let played_key = std::sync::Arc::clone(&game_key);
    let (mut killed, mut restarted) = (None, false);
    let between: BetweenMoves = Box::new(move |number, key| {
        *played_key.lock().unwrap() = key.to_string();
        let game = format!("/api/games/{key}");
        let answered = |n: usize| log.served(&format!("tengen{n}"), &game) > 0;
        match killed {
            None if number >= 15 => {
                let held = (0..servers.len())
                    .find(|&n| answered(n))
                    .expect("a server answered the game's requests");
                servers[held].kill();
                killed = Some(held);
            }
            Some(held) if !restarted && (0..servers.len()).any(|n| n != held && answered(n)) => {
                servers[held] = common::balancer::Server::start(ports[held], &url, &[]);
                restarted = true;
            }
            _ => {}
        }
    });
    // The database's client blocks: the browser's runs in a runtime of its own.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(play_in_chromium(
            dir.path(),
            format!("127.0.0.1:{front}"),
            between,
        ));
    // The game's requests went through HAProxy to both servers: the one killed before,
    // the other after.
    let game = format!("/api/games/{}", game_key.lock().unwrap());
    for n in 0..ports.len() {
        assert!(
            haproxy.served(&format!("tengen{n}"), &game) > 0,
            "server {n} answered none of {game}'s requests"
        );
    }
    eprintln!(
        "browser test through HAProxy: {} requests, {:.1} s in all",
        haproxy.logged(),
        began.elapsed().as_secs_f64()
    );
}

/// Starts chromedriver and a headless chromium (its profile in `dir`), and plays the game
/// on the page at `address`, with `between` called before each of Black's moves.
async fn play_in_chromium(dir: &Path, address: String, between: BetweenMoves) {
    let (Some(chromium), Some(chromedriver)) = (
        option_env!("TENGEN_TEST_CHROMIUM"),
        option_env!("TENGEN_TEST_CHROMEDRIVER"),
    ) else {
        panic!(
            "chromium and chromedriver are required (TENGEN_REQUIRE_EXTERNAL=1) but not installed: \
             apt-get install chromium chromium-driver"
        );
    };
    let profile = dir.join("profile");
    std::fs::create_dir_all(&profile).unwrap();

    let mut driver = Command::new(chromedriver);
    driver.arg("--port=0").current_dir(dir);
    let (_driver, port) = start(driver, "started successfully on port ", "chromedriver");
    let port = port.trim_end_matches('.').to_string();
    assert!(
        port.parse::<u16>().is_ok_and(|p| p != 0),
        "chromedriver's port: {port}"
    );

    let capabilities = json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=800,1000",
                format!("--user-data-dir={}", profile.display()),
            ],
        }
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a chromium session through chromedriver");

    // The game runs in a task so that a failed check still ends the browser session.
    let outcome = tokio::spawn(play(client.clone(), address, between)).await;
    let _ = client.close().await;
    let (clicks, result, dead) = match outcome {
        Ok(done) => done,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    };
    eprintln!("browser test: {clicks} clicks, {result} with {dead} dead stones");
}
