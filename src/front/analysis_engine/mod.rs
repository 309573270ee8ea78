//! `tengen analysis`: KataGo's JSON analysis protocol (what KaTrain speaks), answered by
//! tengen's own search. One JSON object per line on stdin and stdout; queries are split into one
//! job per turn analysed, queued by priority (then arrival) and run by several workers at once,
//! each with its own search tree. Every job ends with exactly one `isDuringSearch: false` reply;
//! a terminated job that had not started replies `noResults: true`. A bad line gets an `error`
//! reply and the engine goes on.

pub mod query;

use std::collections::{BinaryHeap, HashMap};
use std::io::{self, BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use log::{info, warn};
use serde_json::{Value, json};

use crate::engine::player::{AnalysisRequest, Budget, Report};
use crate::engine::player::{
    MAX_PLAYOUTS, MAX_THREADS, Player, PlayerError, Update, move_priors, thread_count,
};
use crate::ground::lines::{read_bounded, without_newline};
use crate::knowledge::net::Net;
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::clock::Seconds;
use query::{Defaults, Job, QueryError};

/// How the analysis engine runs.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// Jobs analysed at once (`numAnalysisThreads`; 0: every core).
    pub workers: usize,
    /// Search threads per job (`numSearchThreads`; 0: every core).
    pub search_threads: usize,
    /// What queries start from.
    pub defaults: Defaults,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            workers: 2,
            search_threads: 1,
            defaults: Defaults::default(),
        }
    }
}

/// The longest input line read; a longer one gets an error reply (KaTrain's queries are a
/// few kilobytes).
pub const MAX_QUERY_BYTES: usize = 1 << 20;

/// The largest KataGo config file read (KataGo's own are about 30 KB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Makes a worker's player for the engine's options (its search threads).
pub type PlayerFactory<'a> = dyn Fn(&EngineOptions) -> Box<dyn Player> + Sync + 'a;

/// A queued job with its order.
struct Queued {
    priority: i64,
    seq: u64,
    job: Job,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Queued) -> bool {
        (self.priority, self.seq) == (other.priority, other.seq)
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Queued) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    /// Higher priority first, then earlier arrival.
    fn cmp(&self, other: &Queued) -> std::cmp::Ordering {
        self.priority
            .cmp(&other.priority)
            .then(other.seq.cmp(&self.seq))
    }
}

/// What the reader and the workers share.
struct Shared {
    queue: Mutex<State>,
    ready: Condvar,
    out: Mutex<Box<dyn Write + Send>>,
    /// The network the players search with, whose policy the replies' `policy` reports
    /// (without one, the playout search's move priors).
    net: Option<Arc<Net>>,
}

/// The queue and the running jobs.
#[derive(Default)]
struct State {
    pending: BinaryHeap<Queued>,
    /// Stop flags of running jobs by (id, turn).
    running: HashMap<(String, usize), Arc<AtomicBool>>,
    seq: u64,
    closed: bool,
}

impl Shared {
    /// Writes one JSON object as a line.
    fn send(&self, value: &Value) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if writeln!(out, "{value}").and_then(|()| out.flush()).is_err() {
            warn!("stdout closed");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Serves the protocol: reads queries from `input` until EOF, finishes the queued ones, and
/// writes every reply to `output`; `net` is the network `players` search with, if any.
pub fn serve(
    options: &EngineOptions,
    players: &PlayerFactory<'_>,
    net: Option<Arc<Net>>,
    input: impl BufRead,
    output: impl Write + Send + 'static,
) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(State::default()),
        ready: Condvar::new(),
        out: Mutex::new(Box::new(output)),
        net,
    });
    info!(
        "analysis engine: {} workers, {} search threads each",
        options.workers, options.search_threads
    );
    thread::scope(|scope| {
        for _ in 0..thread_count(options.workers) {
            let shared = Arc::clone(&shared);
            scope.spawn(move || work(&shared, options, players));
        }
        read_lines(input, |line| match line {
            Some(line) => {
                let text = String::from_utf8_lossy(line);
                if !text.trim().is_empty() {
                    handle_line(&shared, text.trim(), &options.defaults);
                }
            }
            None => shared.send(&json!({
                "error": format!("a query longer than {MAX_QUERY_BYTES} bytes")
            })),
        });
        shared.lock().closed = true;
        shared.ready.notify_all();
    });
}

/// Calls `each` with every line of `input` (without its newline) until EOF or a read error,
/// or with `None` for a line longer than [`MAX_QUERY_BYTES`], whose bytes are skipped, never
/// held.
fn read_lines(mut input: impl BufRead, mut each: impl FnMut(Option<&[u8]>)) {
    let mut line = Vec::new();
    // A newline and a carriage return over the limit are not the line's.
    while let Ok(Some(long)) = read_bounded(&mut input, &mut line, MAX_QUERY_BYTES + 2) {
        let text = without_newline(&line);
        each((!long && text.len() <= MAX_QUERY_BYTES).then_some(text));
    }
}

/// One input line: a query, or an action.
fn handle_line(shared: &Shared, line: &str, defaults: &Defaults) {
    let value: Value = match serde_json::from_str(line) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => return shared.send(&json!({"error": "a query must be a JSON object"})),
        Err(e) => return shared.send(&json!({"error": format!("could not parse json: {e}")})),
    };
    let Some(id) = value.get("id").and_then(id_text) else {
        return shared.send(&json!({"error": "missing or bad field", "field": "id"}));
    };
    match value.get("action").and_then(Value::as_str) {
        Some(action) => act(shared, action, &id, &value),
        None => match query::jobs(&id, &value, defaults) {
            Ok(jobs) => {
                for field in query::unused_fields(&value) {
                    shared.send(&json!({"warning": "unused field", "field": field, "id": id}));
                }
                let mut state = shared.lock();
                for job in jobs {
                    state.seq += 1;
                    let (priority, seq) = (job.priority, state.seq);
                    state.pending.push(Queued { priority, seq, job });
                }
                drop(state);
                shared.ready.notify_all();
            }
            Err(e) => shared.send(&error_reply(&e)),
        },
    }
}

/// An id as text: a string, or a number written out.
fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `{"error": …, "field": …, "id": …}`.
fn error_reply(e: &QueryError) -> Value {
    let mut reply = json!({"error": e.message});
    if let Some(field) = &e.field {
        reply["field"] = json!(field);
    }
    if let Some(id) = &e.id {
        reply["id"] = json!(id);
    }
    reply
}

/// The actions: `query_version`, `clear_cache`, `terminate`, `terminate_all`.
fn act(shared: &Shared, action: &str, id: &str, value: &Value) {
    match action {
        "query_version" => shared.send(&json!({
            "action": action, "id": id,
            "version": env!("CARGO_PKG_VERSION"), "git_hash": "tengen",
        })),
        "clear_cache" => shared.send(&json!({"action": action, "id": id})),
        "terminate" | "terminate_all" => {
            let target = value.get("terminateId").and_then(id_text);
            if action == "terminate" && target.is_none() {
                return shared.send(&json!({
                    "error": "missing or bad field", "field": "terminateId", "id": id
                }));
            }
            let turns: Option<Vec<usize>> = value
                .get("turnNumbers")
                .and_then(|t| serde_json::from_value(t.clone()).ok());
            let hit = |job_id: &str, turn: usize| {
                target.as_deref().is_none_or(|t| t == job_id)
                    && turns.as_ref().is_none_or(|ts| ts.contains(&turn))
            };
            let mut state = shared.lock();
            let (dropped, kept): (Vec<Queued>, Vec<Queued>) = std::mem::take(&mut state.pending)
                .into_iter()
                .partition(|q| hit(&q.job.id, q.job.turn));
            state.pending = kept.into_iter().collect();
            let stops: Vec<Arc<AtomicBool>> = state
                .running
                .iter()
                .filter(|((job_id, turn), _)| hit(job_id, *turn))
                .map(|(_, stop)| Arc::clone(stop))
                .collect();
            drop(state);
            let mut reply = json!({"action": action, "id": id});
            if let Some(target) = &target {
                reply["terminateId"] = json!(target);
            }
            // The acknowledgement goes out before any reply that this stop causes.
            shared.send(&reply);
            for stop in stops {
                stop.store(true, Ordering::Relaxed);
            }
            for q in dropped {
                shared.send(&json!({
                    "id": q.job.id, "turnNumber": q.job.turn,
                    "isDuringSearch": false, "noResults": true,
                }));
            }
        }
        other => shared.send(&json!({
            "error": format!("unknown action `{other}`"), "field": "action", "id": id
        })),
    }
}

/// A worker: takes the best job, analyses it, replies; until the input is closed and the queue
/// is empty. Its player (and the player's search trees) is made for its first job.
fn work(shared: &Shared, options: &EngineOptions, players: &PlayerFactory<'_>) {
    let mut player = None;
    loop {
        let (job, stop) = {
            let mut state = shared.lock();
            loop {
                if let Some(next) = state.pending.pop() {
                    let stop = Arc::new(AtomicBool::new(false));
                    state
                        .running
                        .insert((next.job.id.clone(), next.job.turn), Arc::clone(&stop));
                    break (next.job, stop);
                }
                if state.closed {
                    return;
                }
                state = shared
                    .ready
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let player = player.get_or_insert_with(|| players(options));
        analyse(shared, player.as_mut(), &job, stop);
        shared.lock().running.remove(&(job.id.clone(), job.turn));
    }
}

/// Runs one job, sending reports during the search when asked and the final one.
fn analyse(shared: &Shared, player: &mut dyn Player, job: &Job, stop: Arc<AtomicBool>) {
    let color = job.game.to_move();
    // The query's seconds are checked (at most a day): the conversions cannot fail.
    let seconds = |s: f64| Duration::try_from_secs_f64(s).unwrap_or(Duration::from_secs(3600));
    let interval = job.report_every.map_or(Duration::from_secs(3600), seconds);
    let request = AnalysisRequest {
        color,
        interval,
        allow: job.allow.clone(),
        avoid: job.avoid.clone(),
        ownership: job.ownership,
        moves_ownership: job.moves_ownership,
        budget: Budget {
            playouts: Some(job.max_visits),
            deadline: job
                .max_time
                .and_then(|s| Instant::now().checked_add(seconds(s))),
            stop: Some(stop),
            ..Budget::default()
        },
    };
    let mut replied = false;
    let mut progress = |update: Update<'_>| {
        if let Update::Report(report) = update
            && (report.last || job.report_every.is_some())
        {
            shared.send(&reply(job, color, report, shared.net.as_deref()));
            replied |= report.last;
        }
        true
    };
    match player.analyze(&job.game, &request, &mut progress) {
        Ok(()) | Err(PlayerError::CannotAnalyze) => {}
        Err(e) => log::warn!("analysis of {}: {e}", job.id),
    }
    if !replied {
        // Nothing to search (no legal move but the pass was filtered out).
        shared.send(&json!({
            "id": job.id, "turnNumber": job.turn, "isDuringSearch": false, "noResults": true,
        }));
    }
}

/// The JSON reply for `report` on `job`, its policy `net`'s if there is one.
fn reply(job: &Job, color: Color, report: &Report, net: Option<&Net>) -> Value {
    let size = job.game.size();
    let flip = job.perspective.flips(color);
    let rate = |w: f32| f64::from(if flip { 1.0 - w } else { w });
    let signed = |s: f32| f64::from(if flip { -s } else { s });
    let move_infos: Vec<Value> = report
        .moves
        .iter()
        .map(|m| {
            let mean = m.score.map_or(0.0, |s| s.mean);
            let mut info = json!({
                "move": m.mv.to_vertex(size),
                "visits": m.visits,
                "winrate": rate(m.winrate),
                "scoreLead": signed(mean),
                "scoreMean": signed(mean),
                "scoreSelfplay": signed(mean),
                "scoreStdev": m.score.map_or(0.0, |s| f64::from(s.stdev)),
                "prior": m.prior,
                "lcb": rate(m.winrate) - f64::from(m.winrate - m.lcb),
                "utility": signed(m.utility),
                "order": m.order,
                "pv": m.pv.iter().map(|mv| mv.to_vertex(size)).collect::<Vec<_>>(),
            });
            if let Some(ownership) = &m.ownership {
                let owned: Vec<f64> = ownership.iter().map(|&o| signed(o)).collect();
                info["ownership"] = json!(owned);
            }
            info
        })
        .collect();
    let root_mean = report.root.score.map_or(0.0, |s| s.mean);
    let mut value = json!({
        "id": job.id,
        "turnNumber": job.turn,
        "isDuringSearch": !report.last,
        "moveInfos": move_infos,
        "rootInfo": {
            "visits": report.root.visits,
            "winrate": rate(report.root.winrate),
            "scoreLead": signed(root_mean),
            "scoreMean": signed(root_mean),
            "scoreSelfplay": signed(root_mean),
            "scoreStdev": report.root.score.map_or(0.0, |s| f64::from(s.stdev)),
            "utility": signed(report.root.utility),
            "currentPlayer": color.letter(),
        },
    });
    if let Some(ownership) = &report.ownership {
        let owned: Vec<f64> = ownership.iter().map(|&o| signed(o)).collect();
        value["ownership"] = json!(owned);
    }
    if job.policy {
        value["policy"] = json!(policy(job, color, net));
    }
    value
}

/// The prior of every point row by row from the top left, then the pass, from `net` if there
/// is one; -1 where illegal.
fn policy(job: &Job, color: Color, net: Option<&Net>) -> Vec<f64> {
    let size = job.game.size();
    let mut out = vec![-1.0; size * size + 1];
    for (mv, prior) in move_priors(net, &job.game, color) {
        let slot = match mv {
            Move::Pass => size * size,
            Move::Play(p) => index(p, size),
        };
        out[slot] = f64::from(prior);
    }
    out
}

/// The row-major index from the top left of `p`.
fn index(p: Point, size: usize) -> usize {
    let (col, row) = p.coords(size);
    (size - 1 - row) * size + col
}

/// Reads KataGo-style settings (`key = value` lines of a config file, or `k=v,k=v` of
/// `-override-config`) into `options`; unknown keys and bad values (a thread count above
/// [`MAX_THREADS`] too) are logged and ignored.
pub fn apply_settings(options: &mut EngineOptions, text: &str, separator: char) {
    for item in text.split(separator) {
        let item = item.split('#').next().unwrap_or("").trim();
        let Some((key, value)) = item.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let threads = || match value.parse::<usize>() {
            Ok(n) if n <= MAX_THREADS => Some(n),
            _ => {
                warn!("{key} = {value}: not from 0 (every core) to {MAX_THREADS}; ignored");
                None
            }
        };
        match key {
            "numAnalysisThreads" => options.workers = threads().unwrap_or(options.workers),
            "numSearchThreads" | "numSearchThreadsPerAnalysisThread" => {
                options.search_threads = threads().unwrap_or(options.search_threads);
            }
            "maxVisits" => match value.parse().ok().and_then(query::checked_visits) {
                Some(n) => options.defaults.max_visits = n,
                None => warn!("{key} = {value}: not from 1 to {MAX_PLAYOUTS}; ignored"),
            },
            "maxTime" => match Seconds::parse(value).filter(|t| t.get() > 0.0) {
                Some(t) => options.defaults.max_time = Some(t.get()),
                None => warn!("{key} = {value}: not a time in seconds (at most a day); ignored"),
            },
            "reportAnalysisWinratesAs" => match query::Perspective::parse(value) {
                Some(p) => options.defaults.perspective = p,
                None => warn!("{key} = {value}: not BLACK, WHITE or SIDETOMOVE; ignored"),
            },
            _ => info!("setting {key} does not apply to tengen; ignored"),
        }
    }
}

/// Reads the settings of a KataGo config file: a regular file (a FIFO would block) of at most
/// [`MAX_CONFIG_BYTES`].
pub fn read_config(options: &mut EngineOptions, path: &std::path::Path) -> io::Result<()> {
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() || metadata.len() > MAX_CONFIG_BYTES {
        return Err(io::Error::other(format!(
            "not a regular file of at most {MAX_CONFIG_BYTES} bytes"
        )));
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_CONFIG_BYTES)
        .read_to_string(&mut text)?;
    apply_settings(options, &text, '\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_taken_from_0_to_the_one_cap_and_others_ignored() {
        let mut options = EngineOptions::default();
        apply_settings(
            &mut options,
            &format!("numAnalysisThreads=0,numSearchThreads={MAX_THREADS}"),
            ',',
        );
        assert_eq!((options.workers, options.search_threads), (0, MAX_THREADS));
        let too_many = MAX_THREADS + 1;
        apply_settings(
            &mut options,
            &format!("numAnalysisThreads={too_many},numSearchThreads=-1"),
            ',',
        );
        assert_eq!((options.workers, options.search_threads), (0, MAX_THREADS));
        assert!(thread_count(options.workers) >= 1);
        assert_eq!(thread_count(too_many), MAX_THREADS);
    }
}
