//! `tengen analysis` answering the query shapes KaTrain sends (katrain/core/engine.py), over
//! real pipes, with every field KaTrain reads checked.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::{Gtp, nets, tengen_path};
use serde_json::{Value, json};

/// The analysis engine as KaTrain starts KataGo.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(overrides: &str) -> Engine {
        Engine::with_model("kata1.bin.gz", overrides)
    }

    /// The engine started with `-model model`.
    fn with_model(model: &str, overrides: &str) -> Engine {
        let mut child = Command::new(common::tengen_path())
            .args(["analysis", "-model", model, "-config", "/dev/null"])
            .args(["-override-config", overrides])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tengen analysis");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, query: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{query}").unwrap();
        stdin.flush().unwrap();
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the engine closed stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Closes stdin; the engine finishes what is queued and exits 0.
    fn finish(mut self) -> Vec<Value> {
        self.stdin = None;
        let mut rest = Vec::new();
        for line in (&mut self.stdout).lines() {
            rest.push(serde_json::from_str(&line.unwrap()).unwrap());
        }
        assert!(self.child.wait().unwrap().success());
        rest
    }
}

/// A query as KaTrain writes it.
fn katrain_query(id: &str, moves: Value, turns: Value, visits: u64) -> Value {
    json!({
        "id": id, "rules": "japanese", "priority": 0, "analyzeTurns": turns,
        "maxVisits": visits, "komi": 6.5, "boardXSize": 9, "boardYSize": 9,
        "includeOwnership": true, "includeMovesOwnership": false, "includePolicy": true,
        "initialStones": [["B", "C7"]], "initialPlayer": "W", "moves": moves,
        "overrideSettings": {"reportAnalysisWinratesAs": "BLACK", "wideRootNoise": 0.04, "maxTime": 8.0}
    })
}

/// Checks every field KaTrain reads.
fn check_katrain_fields(reply: &Value) {
    let root = &reply["rootInfo"];
    assert!(root["visits"].as_u64().unwrap() > 0, "{reply}");
    for key in ["winrate", "scoreLead"] {
        assert!(root[key].is_f64(), "rootInfo.{key}: {reply}");
    }
    let infos = reply["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty());
    for (order, info) in infos.iter().enumerate() {
        assert_eq!(info["order"], order);
        assert!(info["move"].is_string() && info["visits"].as_u64().unwrap() > 0);
        let winrate = info["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&winrate), "{info}");
        assert!(info["scoreLead"].is_f64() && info["prior"].is_f64());
        assert_eq!(info["pv"][0], info["move"]);
    }
    assert_eq!(reply["ownership"].as_array().unwrap().len(), 81);
    let policy = reply["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 82);
    // C7 holds a stone: illegal.
    assert_eq!(policy[2 * 9 + 2], -1.0);
    let sum: f64 = policy
        .iter()
        .filter_map(Value::as_f64)
        .filter(|p| *p >= 0.0)
        .sum();
    assert!((sum - 1.0).abs() < 1e-3, "policy sums to {sum}");
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
#[cfg_attr(
    all(test_nets, debug_assertions),
    ignore = "slow in debug: run with --release"
)]
fn a_model_makes_the_nets_search_answer_with_its_policy_and_ownership() {
    let net = nets::net(nets::G170);
    let mut engine = Engine::with_model(net.to_str().unwrap(), "numAnalysisThreads=1");
    let query_visits = |id: &str, moves: Value, visits: u64| {
        json!({
            "id": id, "rules": "chinese", "komi": 7, "boardXSize": 9, "boardYSize": 9,
            "moves": moves, "maxVisits": visits, "includePolicy": true, "includeOwnership": true,
        })
    };
    let query = |id: &str, moves: Value| query_visits(id, moves, 60);
    engine.send(&query("empty", json!([])));
    let reply = engine.read();
    // The policy is the net's: E5's on the empty board is 0.243434 and the pass's 0.000339
    // in kata-raw-nn's answer (tests/data/nets/g170-b6c96.kata-raw-nn.txt, symmetry 0).
    let policy = reply["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 82);
    let e5 = policy[4 * 9 + 4].as_f64().unwrap();
    assert!((e5 - 0.243434).abs() < 1e-5, "{reply}");
    assert!(
        (policy[81].as_f64().unwrap() - 0.000339).abs() < 1e-5,
        "{reply}"
    );
    // And the search's priors are the net's (under a random one of the eight symmetries, so
    // near the policy's; which move 60 visits rank first varies with it).
    let infos = reply["moveInfos"].as_array().unwrap();
    let e5_info = infos.iter().find(|info| info["move"] == "E5");
    let e5_prior = e5_info.and_then(|info| info["prior"].as_f64());
    assert!(
        e5_prior.is_some_and(|prior| (prior - e5).abs() < 0.03),
        "{reply}"
    );
    assert_eq!(reply["rootInfo"]["visits"].as_u64(), Some(60), "{reply}");

    // Ownership from the net, from Black's view (the default reportAnalysisWinratesAs), as
    // kata-raw-nn gives it for the same position: one visit is the net's evaluation of the
    // root under one of its symmetries (which move it by 0.05 at most here, a playout by
    // 0.6 or more); 60 visits average it with the tree's.
    let mut gtp = Gtp::spawn(tengen_path(), &["gtp", "--net", net.to_str().unwrap()]);
    for command in ["boardsize 9", "kgs-rules chinese", "komi 7"] {
        gtp.ok(command);
    }
    for (color, vertex) in [("b", "C7"), ("w", "G3"), ("b", "D6")] {
        gtp.ok(&format!("play {color} {vertex}"));
    }
    let raw = nets::raw_ownership_for_black(&mut gtp);
    gtp.quit();
    let stones = json!([["B", "C7"], ["W", "G3"], ["B", "D6"]]);
    for (visits, bound) in [(1, 0.1), (60, 0.25)] {
        engine.send(&query_visits("stones", stones.clone(), visits));
        let reply = engine.read();
        let ownership: Vec<f64> = reply["ownership"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_f64().unwrap())
            .collect();
        let what = format!("{visits} visits");
        nets::assert_near_raw_ownership(&ownership, &raw, bound, &what);
    }
    assert!(engine.finish().is_empty());
}

#[test]
fn katrain_queries_get_one_final_reply_per_turn() {
    let mut engine = Engine::start("homeDataDir=/tmp,numAnalysisThreads=2");
    engine.send(&katrain_query(
        "QUERY:1",
        json!([["W", "E5"], ["B", "D4"]]),
        json!([0, 1, 2]),
        60,
    ));
    let mut turns = Vec::new();
    for _ in 0..3 {
        let reply = engine.read();
        assert_eq!(reply["id"], "QUERY:1");
        assert_eq!(reply["isDuringSearch"], false);
        check_katrain_fields(&reply);
        let turn = reply["turnNumber"].as_u64().unwrap();
        let player = if turn.is_multiple_of(2) { "W" } else { "B" };
        assert_eq!(reply["rootInfo"]["currentPlayer"], player);
        turns.push(turn);
    }
    turns.sort();
    assert_eq!(turns, [0, 1, 2]);
    // Ownership per move, as KaTrain asks for it when ownership is on.
    let mut per_move = katrain_query("QUERY:m", json!([["W", "E5"]]), json!([1]), 400);
    per_move["includeMovesOwnership"] = json!(true);
    per_move["_kt_continuous"] = json!(false);
    engine.send(&per_move);
    // KaTrain's own key is not KataGo's: a warning first, then the answer.
    let warning = engine.read();
    assert_eq!(warning["warning"], "unused field");
    assert_eq!(
        (warning["field"].as_str(), warning["id"].as_str()),
        (Some("_kt_continuous"), Some("QUERY:m"))
    );
    let reply = engine.read();
    let first = &reply["moveInfos"][0];
    let owned = first["ownership"].as_array().expect("ownership per move");
    assert_eq!(owned.len(), 81);
    assert!(
        owned
            .iter()
            .all(|o| o.as_f64().is_some_and(|o| (-1.0..=1.0).contains(&o)))
    );
    // White's stone on E5 (row 5 from the top, column 5) is more often White's than Black's
    // at the end: negative from Black's side.
    assert!(owned[4 * 9 + 4].as_f64().unwrap() < 0.0, "{first}");
    // Errors name the field and the id, and the engine goes on.
    engine.send_raw("{not json");
    assert!(engine.read()["error"].as_str().unwrap().contains("json"));
    engine.send(
        &json!({"id": "bad", "rules": "chinese", "boardXSize": 9, "boardYSize": 9,
        "moves": [["B", "E5"], ["W", "E5"]]}),
    );
    let error = engine.read();
    assert_eq!(
        (error["id"].as_str(), error["field"].as_str()),
        (Some("bad"), Some("moves"))
    );
    assert!(error["error"].as_str().unwrap().contains("Illegal move"));
    engine.send(&json!({"id": "v", "action": "query_version"}));
    assert_eq!(engine.read()["action"], "query_version");
    assert!(engine.finish().is_empty());
}

#[test]
fn pondering_reports_during_search_until_terminated() {
    let mut engine = Engine::start("numAnalysisThreads=1");
    let mut ponder = katrain_query("QUERY:2", json!([]), json!([0]), 10_000_000);
    ponder["reportDuringSearchEvery"] = json!(0.05);
    // It searches until terminated, however slow the machine.
    ponder["overrideSettings"]["maxTime"] = json!(3600.0);
    engine.send(&ponder);
    for _ in 0..3 {
        let reply = engine.read();
        assert_eq!(reply["isDuringSearch"], true, "{reply}");
        check_katrain_fields(&reply);
    }
    // While the single worker ponders, queue a low and a high priority query.
    let mut low = katrain_query("low", json!([]), json!([0]), 20);
    low["priority"] = json!(-5);
    let mut high = katrain_query("high", json!([]), json!([0]), 20);
    high["priority"] = json!(10);
    engine.send(&low);
    engine.send(&high);
    engine.send(&json!({"id": "stop", "action": "terminate", "terminateId": "QUERY:2"}));
    let mut finals = Vec::new();
    let mut acknowledged = false;
    while finals.len() < 3 {
        let reply = engine.read();
        if reply["action"] == "terminate" {
            acknowledged = true;
            continue;
        }
        if reply["isDuringSearch"] == false {
            // The acknowledgement comes before the terminated search's final reply.
            assert!(acknowledged, "{reply}");
            finals.push(reply["id"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(finals, ["QUERY:2", "high", "low"]);
    // A query terminated before it starts says so.
    let mut engine2 = Engine::start("numAnalysisThreads=1");
    let mut long = katrain_query("long", json!([]), json!([0]), 10_000_000);
    long["reportDuringSearchEvery"] = json!(0.05);
    engine2.send(&long);
    engine2.read();
    engine2.send(&katrain_query("queued", json!([]), json!([0]), 20));
    engine2.send(&json!({"id": "t", "action": "terminate", "terminateId": "queued"}));
    engine2.send(&json!({"id": "t2", "action": "terminate_all"}));
    let rest = engine2.finish();
    let no_results = rest
        .iter()
        .find(|r| r["id"] == "queued")
        .expect("a reply for the queued query");
    assert_eq!(no_results["noResults"], true);
    assert_eq!(no_results["isDuringSearch"], false);
    let long_final = rest
        .iter()
        .filter(|r| r["id"] == "long" && r["isDuringSearch"] == false)
        .count();
    assert_eq!(long_final, 1);
    drop(engine);
}
