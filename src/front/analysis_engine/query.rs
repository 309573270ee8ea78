//! Queries of KataGo's JSON analysis protocol: parsing, checking, and the positions to analyse.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::engine::player::MAX_PLAYOUTS;
use crate::rules::board::{Color, MAX_SIZE, MIN_SIZE, Move, Point};
use crate::rules::game::clock::Seconds;
use crate::rules::game::{Game, MAX_KOMI, checked_komi, kata_rules};

/// The most moves a query may hold (a long 25x25 game has about 1,000).
pub const MAX_MOVES: usize = 2_000;
/// The most turns one query may ask to analyse: each is a job holding its own game.
pub const MAX_TURNS: usize = 1_000;
/// The shortest interval between reports during a search, in seconds (`lz-analyze`'s too).
pub const MIN_REPORT_EVERY: f64 = 0.01;
/// What a field of seconds must be.
const SECONDS: &str = "a number of seconds from 0 to 86400 (a day)";
/// What a field of seconds above 0 must be.
const POSITIVE_SECONDS: &str = "a number of seconds above 0, at most 86400 (a day)";

/// `visits` when it is a playout count the search takes: from 1 to [`MAX_PLAYOUTS`].
pub fn checked_visits(visits: u64) -> Option<u64> {
    (1..=MAX_PLAYOUTS).contains(&visits).then_some(visits)
}

/// A line that is not a usable query: the message, the field at fault and the query's id.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    /// What is wrong.
    pub message: String,
    /// The field at fault, if one is.
    pub field: Option<String>,
    /// The query's id, if it has one.
    pub id: Option<String>,
}

impl QueryError {
    fn new(message: impl Into<String>, field: &str, id: &str) -> QueryError {
        QueryError {
            message: message.into(),
            field: Some(field.to_string()),
            id: Some(id.to_string()),
        }
    }
}

/// Whose point of view win rates, scores and ownership are reported from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Perspective {
    /// Black's.
    Black,
    /// White's.
    White,
    /// The player to move's.
    SideToMove,
}

impl Perspective {
    /// `BLACK`, `WHITE` or `SIDETOMOVE` (any case).
    pub fn parse(text: &str) -> Option<Perspective> {
        match text.to_ascii_uppercase().as_str() {
            "BLACK" => Some(Perspective::Black),
            "WHITE" => Some(Perspective::White),
            "SIDETOMOVE" => Some(Perspective::SideToMove),
            _ => None,
        }
    }

    /// Whether values computed for `to_move` must be flipped.
    pub fn flips(self, to_move: Color) -> bool {
        match self {
            Perspective::Black => to_move == Color::White,
            Perspective::White => to_move == Color::Black,
            Perspective::SideToMove => false,
        }
    }
}

/// One position of a query to analyse.
pub struct Job {
    /// The query's id.
    pub id: String,
    /// The turn analysed (moves played before it).
    pub turn: usize,
    /// The position.
    pub game: Game,
    /// Playouts to run.
    pub max_visits: u64,
    /// Seconds the search may take at most (more than 0, at most a day).
    pub max_time: Option<f64>,
    /// Seconds between reports during the search (from [`MIN_REPORT_EVERY`] to a day).
    pub report_every: Option<f64>,
    /// Include ownership.
    pub ownership: bool,
    /// Include ownership per move.
    pub moves_ownership: bool,
    /// Include the policy.
    pub policy: bool,
    /// Report from this point of view.
    pub perspective: Perspective,
    /// Only these moves at the root (empty: all).
    pub allow: Vec<Move>,
    /// Never these moves at the root.
    pub avoid: Vec<Move>,
    /// Higher runs first.
    pub priority: i64,
}

/// Settings every query starts from (the config and `-override-config`).
#[derive(Clone, Debug, PartialEq)]
pub struct Defaults {
    /// `maxVisits`.
    pub max_visits: u64,
    /// `maxTime`, seconds.
    pub max_time: Option<f64>,
    /// `reportAnalysisWinratesAs`.
    pub perspective: Perspective,
}

impl Default for Defaults {
    fn default() -> Defaults {
        Defaults {
            max_visits: 500,
            max_time: None,
            perspective: Perspective::Black,
        }
    }
}

/// A query as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawQuery {
    moves: Option<Vec<(String, String)>>,
    initial_stones: Option<Vec<(String, String)>>,
    initial_player: Option<String>,
    rules: Option<Value>,
    komi: Option<f64>,
    board_x_size: Option<usize>,
    board_y_size: Option<usize>,
    analyze_turns: Option<Vec<usize>>,
    max_visits: Option<u64>,
    #[serde(default)]
    include_ownership: bool,
    #[serde(default)]
    include_moves_ownership: bool,
    #[serde(default = "yes")]
    include_policy: bool,
    avoid_moves: Option<Vec<MoveFilter>>,
    allow_moves: Option<Vec<MoveFilter>>,
    report_during_search_every: Option<f64>,
    priority: Option<i64>,
    override_settings: Option<Map<String, Value>>,
}

fn yes() -> bool {
    true
}

/// An `avoidMoves` / `allowMoves` entry.
#[derive(Deserialize)]
struct MoveFilter {
    player: String,
    moves: Vec<String>,
}

/// The positions `query` (with id `id`) asks to analyse.
pub fn jobs(id: &str, query: &Value, defaults: &Defaults) -> Result<Vec<Job>, QueryError> {
    let raw: RawQuery = serde_path_to_error::deserialize(query).map_err(|e| {
        let field = match e.path().to_string() {
            path if path == "." => "query".to_string(),
            path => path,
        };
        QueryError::new(format!("bad value: {}", e.inner()), &field, id)
    })?;
    if raw.moves.as_ref().is_some_and(|m| m.len() > MAX_MOVES) {
        return Err(QueryError::new(
            format!("more than {MAX_MOVES} moves"),
            "moves",
            id,
        ));
    }
    if raw
        .analyze_turns
        .as_ref()
        .is_some_and(|t| t.len() > MAX_TURNS)
    {
        return Err(QueryError::new(
            format!("more than {MAX_TURNS} turns"),
            "analyzeTurns",
            id,
        ));
    }
    let size = match (raw.board_x_size, raw.board_y_size) {
        (Some(x), Some(y)) if x != y => {
            return Err(QueryError::new("only square boards", "boardYSize", id));
        }
        (Some(x), Some(_)) if !(MIN_SIZE..=MAX_SIZE).contains(&x) => {
            return Err(QueryError::new(
                "board size must be 2 to 25",
                "boardXSize",
                id,
            ));
        }
        (Some(x), Some(_)) => x,
        (None, _) => return Err(QueryError::new("required field", "boardXSize", id)),
        (_, None) => return Err(QueryError::new("required field", "boardYSize", id)),
    };
    let komi = raw
        .komi
        .map(|k| {
            checked_komi(k).ok_or_else(|| {
                QueryError::new(
                    format!("a number from -{MAX_KOMI} to {MAX_KOMI}"),
                    "komi",
                    id,
                )
            })
        })
        .transpose()?;
    let rules = match &raw.rules {
        None => return Err(QueryError::new("required field", "rules", id)),
        Some(value) => kata_rules::from_value(value, komi, true)
            .map_err(|e| QueryError::new(e.to_string(), "rules", id))?,
    };
    let Some(moves) = &raw.moves else {
        return Err(QueryError::new("required field", "moves", id));
    };
    let color = |text: &str, field: &str| {
        text.parse::<Color>()
            .map_err(|_| QueryError::new(format!("bad player `{text}`"), field, id))
    };
    let vertex = |text: &str, field: &str| {
        Move::parse(text, size)
            .map_err(|_| QueryError::new(format!("bad move `{text}`"), field, id))
    };
    let mut start = Game::new(size, rules);
    if let Some(stones) = &raw.initial_stones {
        let mut setup: Vec<(Point, Option<Color>)> = Vec::new();
        for (player, v) in stones {
            let c = color(player, "initialStones")?;
            let Move::Play(p) = vertex(v, "initialStones")? else {
                return Err(QueryError::new("a pass is no stone", "initialStones", id));
            };
            setup.push((p, Some(c)));
        }
        start
            .setup(&setup)
            .map_err(|_| QueryError::new("stones on one point", "initialStones", id))?;
    }
    let first = match &raw.initial_player {
        Some(player) => Some(color(player, "initialPlayer")?),
        None => moves
            .first()
            .map(|(player, _)| color(player, "moves"))
            .transpose()?,
    };
    if let Some(first) = first {
        start.set_first_to_move(first);
    }
    let mut sequence = Vec::with_capacity(moves.len());
    for (player, v) in moves {
        sequence.push((color(player, "moves")?, vertex(v, "moves")?));
    }
    let turns = raw
        .analyze_turns
        .clone()
        .unwrap_or_else(|| vec![moves.len()]);
    if let Some(&bad) = turns.iter().find(|&&t| t > moves.len()) {
        return Err(QueryError::new(
            format!("turn {bad} is past the last move"),
            "analyzeTurns",
            id,
        ));
    }
    let overrides = raw.override_settings.clone().unwrap_or_default();
    let perspective = match overrides.get("reportAnalysisWinratesAs") {
        Some(Value::String(text)) => Perspective::parse(text).ok_or_else(|| {
            QueryError::new("BLACK, WHITE or SIDETOMOVE", "reportAnalysisWinratesAs", id)
        })?,
        _ => defaults.perspective,
    };
    let max_time = match overrides.get("maxTime") {
        None => defaults.max_time,
        Some(value) => Some(
            value
                .as_f64()
                .and_then(Seconds::new)
                .filter(|t| t.get() > 0.0)
                .ok_or_else(|| QueryError::new(POSITIVE_SECONDS, "maxTime", id))?
                .get(),
        ),
    };
    let visits = |value: Option<u64>, field: &str| {
        value
            .map(|v| {
                checked_visits(v)
                    .ok_or_else(|| QueryError::new(format!("from 1 to {MAX_PLAYOUTS}"), field, id))
            })
            .transpose()
    };
    let override_visits = match overrides.get("maxVisits") {
        None => None,
        Some(value) => Some(value.as_u64().ok_or_else(|| {
            QueryError::new(format!("from 1 to {MAX_PLAYOUTS}"), "maxVisits", id)
        })?),
    };
    let max_visits = visits(raw.max_visits, "maxVisits")?
        .or(visits(override_visits, "overrideSettings.maxVisits")?)
        .unwrap_or(defaults.max_visits);
    let report_every = match raw.report_during_search_every {
        None => None,
        Some(every) => match Seconds::new(every) {
            Some(every) if every.get() == 0.0 => None,
            Some(every) => Some(every.get().max(MIN_REPORT_EVERY)),
            None => {
                return Err(QueryError::new(SECONDS, "reportDuringSearchEvery", id));
            }
        },
    };
    let filter =
        |list: &Option<Vec<MoveFilter>>, field: &str| -> Result<Vec<(Color, Move)>, QueryError> {
            let mut out = Vec::new();
            for entry in list.iter().flatten() {
                let c = color(&entry.player, field)?;
                for v in &entry.moves {
                    out.push((c, vertex(v, field)?));
                }
            }
            Ok(out)
        };
    let avoid = filter(&raw.avoid_moves, "avoidMoves")?;
    let allow = filter(&raw.allow_moves, "allowMoves")?;
    let mut game = start;
    let mut jobs = Vec::new();
    for turn in 0..=moves.len() {
        if turns.contains(&turn) {
            let to_move = game.to_move();
            let only = |list: &[(Color, Move)]| {
                list.iter()
                    .filter(|(c, _)| *c == to_move)
                    .map(|&(_, mv)| mv)
                    .collect()
            };
            jobs.push(Job {
                id: id.to_string(),
                turn,
                game: game.clone(),
                max_visits,
                max_time,
                report_every,
                ownership: raw.include_ownership,
                moves_ownership: raw.include_moves_ownership,
                policy: raw.include_policy,
                perspective,
                allow: only(&allow),
                avoid: only(&avoid),
                priority: raw.priority.unwrap_or(0),
            });
        }
        let Some(&(c, mv)) = sequence.get(turn) else {
            break;
        };
        game.play(c, mv).map_err(|why| {
            QueryError::new(
                format!("Illegal move {}: {} {why}", turn + 1, mv.to_vertex(size)),
                "moves",
                id,
            )
        })?;
    }
    Ok(jobs)
}

/// The query fields tengen reads (KataGo's names); others are reported as unused.
pub const READ_FIELDS: &[&str] = &[
    "id",
    "moves",
    "initialStones",
    "initialPlayer",
    "rules",
    "komi",
    "boardXSize",
    "boardYSize",
    "analyzeTurns",
    "maxVisits",
    "includeOwnership",
    "includeMovesOwnership",
    "includePolicy",
    "avoidMoves",
    "allowMoves",
    "reportDuringSearchEvery",
    "priority",
    "overrideSettings",
];

/// The fields of a query tengen does not read (KataGo's other keys, typos), as KataGo warns
/// about them.
pub fn unused_fields(query: &Value) -> Vec<String> {
    query
        .as_object()
        .map(|fields| {
            fields
                .keys()
                .filter(|k| !READ_FIELDS.contains(&k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::game::Scoring;
    use serde_json::json;

    #[test]
    fn a_katrain_query_gives_one_job_per_turn() {
        let query = json!({
            "id": "QUERY:1", "rules": "japanese", "priority": 5, "analyzeTurns": [0, 2],
            "maxVisits": 50, "komi": 6.5, "boardXSize": 9, "boardYSize": 9,
            "includeOwnership": true, "includePolicy": true,
            "initialStones": [["B", "C3"]], "initialPlayer": "W",
            "moves": [["W", "E5"], ["B", "D4"]],
            "overrideSettings": {"reportAnalysisWinratesAs": "BLACK", "maxTime": 8.0}
        });
        let jobs = jobs("QUERY:1", &query, &Defaults::default()).unwrap();
        assert_eq!(jobs.len(), 2);
        assert!(unused_fields(&query).is_empty());
        assert_eq!(
            unused_fields(&json!({"id": "x", "_kt_continuous": false})),
            ["_kt_continuous"]
        );
        assert_eq!((jobs[0].turn, jobs[1].turn), (0, 2));
        assert_eq!(jobs[0].game.to_move(), Color::White);
        assert_eq!(jobs[1].game.moves().len(), 2);
        assert_eq!(jobs[1].game.board().empty_count(), 78);
        assert_eq!((jobs[0].max_visits, jobs[0].max_time), (50, Some(8.0)));
        assert_eq!(jobs[0].game.rules().scoring, Scoring::Territory);
        assert_eq!(jobs[0].priority, 5);
        assert!(jobs[0].ownership && jobs[0].policy);
    }

    #[test]
    fn bad_queries_name_the_field() {
        let base = json!({"rules": "chinese", "boardXSize": 9, "boardYSize": 9, "moves": []});
        let with = |key: &str, value: Value| {
            let mut q = base.clone();
            q[key] = value;
            jobs("q", &q, &Defaults::default())
                .err()
                .and_then(|e| e.field)
        };
        assert_eq!(with("boardYSize", json!(13)).as_deref(), Some("boardYSize"));
        assert_eq!(with("rules", json!("go-by-feel")).as_deref(), Some("rules"));
        assert_eq!(
            with("moves", json!([["B", "E5"], ["W", "E5"]])).as_deref(),
            Some("moves")
        );
        assert_eq!(
            with("moves", json!([["X", "E5"]])).as_deref(),
            Some("moves")
        );
        assert_eq!(
            with("analyzeTurns", json!([3])).as_deref(),
            Some("analyzeTurns")
        );
        assert_eq!(
            with("maxVisits", json!("many")).as_deref(),
            Some("maxVisits")
        );
        for (key, value) in [
            ("maxVisits", json!(0)),
            ("maxVisits", json!(MAX_PLAYOUTS + 1)),
            ("komi", json!(1e308)),
            ("reportDuringSearchEvery", json!(1e300)),
            ("reportDuringSearchEvery", json!(-0.5)),
            ("moves", json!(vec![["B", "pass"]; MAX_MOVES + 1])),
            ("analyzeTurns", json!(vec![0; MAX_TURNS + 1])),
        ] {
            assert_eq!(with(key, value.clone()).as_deref(), Some(key), "{value}");
        }
        let mut slow = base.clone();
        slow["overrideSettings"] = json!({"maxTime": 0});
        assert_eq!(
            jobs("q", &slow, &Defaults::default())
                .err()
                .and_then(|e| e.field)
                .as_deref(),
            Some("maxTime")
        );
        let mut fast = base.clone();
        fast["reportDuringSearchEvery"] = json!(1e-9);
        let job = &jobs("q", &fast, &Defaults::default()).unwrap()[0];
        assert_eq!(job.report_every, Some(MIN_REPORT_EVERY));
        let mut no_rules = base.clone();
        no_rules.as_object_mut().unwrap().remove("rules");
        assert!(jobs("q", &no_rules, &Defaults::default()).is_err());
    }
}
