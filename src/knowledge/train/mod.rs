//! `tengen train-patterns`: learn a gamma table from game records and report how well it
//! predicts the moves of held-out games.

mod mm;
mod records;

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::knowledge::patterns::{Features, PatternTable, Scratch, TableError, extract};
use crate::rules::board::{Board, Color, Move};
use crate::rules::game::Rules;
use crate::rules::sgf;
use mm::{Dataset, MmOptions};
use records::Position;

/// What `tengen train-patterns` was asked to do.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// SGF files and directories of them.
    pub records: Vec<PathBuf>,
    /// Where to write the table.
    pub output: PathBuf,
    /// Every `holdout`-th file (in order) is kept out of training and predicted instead.
    pub holdout: usize,
    /// The most MM sweeps.
    pub iterations: usize,
    /// Pattern classes seen fewer times among the candidates share the rare gamma.
    pub min_count: usize,
    /// Candidates kept per training position: the move played and a random sample of the
    /// other legal moves (a fair sample keeps the model's likelihood unbiased).
    pub max_candidates: usize,
}

/// Why training failed.
#[derive(Debug)]
pub enum TrainError {
    /// A record path does not exist, or a directory of records cannot be listed.
    Records(PathBuf, io::Error),
    /// No record could be loaded for training.
    NoTrainingGames,
    /// An option is out of range (its name and what it must be).
    BadOption(&'static str, &'static str),
    /// The table cannot be written.
    Table(TableError),
    /// The report cannot be written.
    Output(io::Error),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Records(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            TrainError::NoTrainingGames => {
                write!(
                    f,
                    "no SGF game could be loaded for training (check RECORDS)"
                )
            }
            TrainError::BadOption(name, must) => write!(f, "{name} must be {must}"),
            TrainError::Table(e) => write!(f, "{e}"),
            TrainError::Output(e) => write!(f, "cannot write the report: {e}"),
        }
    }
}

impl std::error::Error for TrainError {}

/// Prediction counts for one board size.
#[derive(Copy, Clone, Debug, Default)]
struct Tally {
    games: usize,
    positions: usize,
    /// Positions where the move played ranked within the top 1, 5 and 10.
    top: [usize; 3],
}

const TOPS: [usize; 3] = [1, 5, 10];

/// Trains, writes the table to `options.output`, and writes the held-out prediction rates to
/// `out`; progress goes to stderr.
pub fn run(options: &TrainOptions, out: &mut dyn Write) -> Result<(), TrainError> {
    if options.holdout < 2 {
        return Err(TrainError::BadOption("--holdout", "2 or more"));
    }
    if options.max_candidates < 2 {
        return Err(TrainError::BadOption("--max-candidates", "2 or more"));
    }
    let started = Instant::now();
    let files = records::sgf_files(&options.records).map_err(|(p, e)| TrainError::Records(p, e))?;
    let (held_out, training): (Vec<_>, Vec<_>) = files
        .iter()
        .enumerate()
        .partition(|(i, _)| i % options.holdout == options.holdout - 1);
    eprintln!(
        "{} files: {} for training, {} held out",
        files.len(),
        training.len(),
        held_out.len()
    );
    let per_game: Vec<(usize, Dataset)> = training
        .par_iter()
        .filter_map(|&(i, path)| {
            let record = load(path)?;
            let size = record.start.size();
            Some((
                size,
                game_dataset(&record, i as u64, options.max_candidates),
            ))
        })
        .collect();
    if per_game.is_empty() {
        return Err(TrainError::NoTrainingGames);
    }
    let mut games = BTreeMap::new();
    let mut data = Dataset::new();
    for (size, d) in &per_game {
        *games.entry(*size).or_insert(0) += 1;
        data.append(d);
    }
    drop(per_game);
    let loaded = started.elapsed().as_secs_f64();
    eprintln!(
        "{} positions, {} candidates extracted in {loaded:.1} s",
        data.positions(),
        data.candidates()
    );
    let mm_options = MmOptions {
        iterations: options.iterations,
        min_count: options.min_count,
        tolerance: 1e-5,
    };
    let (mut table, report) = mm::train(&data, &mm_options, |i, ll| {
        eprintln!("MM sweep {i}: log-likelihood per position {ll:.5}");
    });
    let trained = started.elapsed().as_secs_f64();
    eprintln!(
        "MM: {} sweeps, {} pattern classes and {} spatial patterns kept, {:.1} s",
        report.iterations,
        report.patterns_kept,
        report.spatial_kept,
        trained - loaded
    );
    let tallies = predict(&held_out, &table);
    let mut header = vec![
        "tengen move-pattern gammas: `GROUP VALUE GAMMA` (see src/knowledge/patterns/table.rs),"
            .into(),
        format!(
            "learned by `tengen train-patterns` (Coulom 2007 MM) on {}.",
            crate::rules::sgf::today()
        ),
        format!("records: {}", join(&options.records)),
        format!(
            "training games: {} ({}); every {}th file held out; random opening moves skipped",
            games.values().sum::<usize>(),
            sizes(&games),
            options.holdout
        ),
        format!(
            "{} positions, {} candidates (at most {} a position); {} sweeps, min-count {}, \
             {} pattern classes, {} spatial patterns; log-likelihood {:.4} a position; \
             {trained:.0} s",
            data.positions(),
            data.candidates(),
            options.max_candidates,
            report.iterations,
            options.min_count,
            report.patterns_kept,
            report.spatial_kept,
            report.log_likelihood
        ),
    ];
    header.extend(tallies.iter().map(|(&size, t)| rates(size, t)));
    table.set_header(header);
    table.save(&options.output).map_err(TrainError::Table)?;
    eprintln!(
        "wrote {} ({:.1} s in all)",
        options.output.display(),
        started.elapsed().as_secs_f64()
    );
    for (&size, t) in &tallies {
        writeln!(out, "{}", rates(size, t)).map_err(TrainError::Output)?;
    }
    Ok(())
}

/// Loads a record, or says on stderr why it is skipped.
fn load(path: &Path) -> Option<sgf::Record> {
    let text = match sgf::read_file(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("skipping {}: {e}", path.display());
            return None;
        }
    };
    match sgf::load_record(&text, Rules::chinese(7.5)) {
        Ok(record) => Some(record),
        Err(e) => {
            eprintln!("skipping {}: {e}", path.display());
            None
        }
    }
}

/// The legal moves of `c` on `board` (simple ko and suicide; superko is not checked), pass last.
fn legal_moves(board: &Board, c: Color) -> impl Iterator<Item = Move> + '_ {
    board
        .empty_points()
        .filter(move |&p| board.legality(p, c).is_ok())
        .map(Move::Play)
        .chain(std::iter::once(Move::Pass))
}

/// The features of `mv` in `pos`; `scratch` is for the ladder reader.
fn features(pos: &Position, mv: Move, scratch: &mut Scratch) -> Features {
    match mv {
        Move::Play(p) => extract(pos.board, p, pos.to_move, pos.last, pos.last2, scratch),
        Move::Pass => Features::pass(),
    }
}

/// The training positions of one game, after its random opening moves: the move played and at
/// most `max - 1` other legal moves drawn at random (seeded by `seed`).
fn game_dataset(record: &sgf::Record, seed: u64, max: usize) -> Dataset {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut scratch = Scratch::new();
    let mut data = Dataset::new();
    let mut moves = Vec::new();
    let mut candidates = Vec::new();
    let skip = records::opening_moves(record.comment.as_deref());
    records::for_each_position(record, skip, |pos| {
        moves.clear();
        moves.push(pos.played);
        moves.extend(legal_moves(pos.board, pos.to_move).filter(|&m| m != pos.played));
        // A partial Fisher-Yates shuffle draws the sample after the move played.
        let keep = moves.len().min(max);
        for k in 1..keep {
            let pick = rng.random_range(k..moves.len());
            moves.swap(k, pick);
        }
        candidates.clear();
        candidates.extend(
            moves[..keep]
                .iter()
                .map(|&m| features(pos, m, &mut scratch)),
        );
        data.push(&candidates, 0);
    });
    data
}

/// Ranks the move played among all legal moves in every held-out position, by board size.
fn predict(files: &[(usize, &PathBuf)], table: &PatternTable) -> BTreeMap<usize, Tally> {
    let per_game: Vec<(usize, Tally)> = files
        .par_iter()
        .filter_map(|&(_, path)| {
            let record = load(path)?;
            let mut scratch = Scratch::new();
            let mut tally = Tally {
                games: 1,
                ..Tally::default()
            };
            let skip = records::opening_moves(record.comment.as_deref());
            records::for_each_position(&record, skip, |pos| {
                let played = table.gamma(&features(pos, pos.played, &mut scratch));
                // Ties count against the move played.
                let better = legal_moves(pos.board, pos.to_move)
                    .filter(|&m| {
                        m != pos.played && table.gamma(&features(pos, m, &mut scratch)) >= played
                    })
                    .count();
                tally.positions += 1;
                for (hits, top) in tally.top.iter_mut().zip(TOPS) {
                    *hits += usize::from(better < top);
                }
            });
            Some((record.start.size(), tally))
        })
        .collect();
    let mut tallies: BTreeMap<usize, Tally> = BTreeMap::new();
    for (size, t) in per_game {
        let sum = tallies.entry(size).or_default();
        sum.games += t.games;
        sum.positions += t.positions;
        for k in 0..TOPS.len() {
            sum.top[k] += t.top[k];
        }
    }
    tallies
}

/// One line of prediction rates.
fn rates(size: usize, t: &Tally) -> String {
    let pct = |hits: usize| 100.0 * hits as f64 / t.positions.max(1) as f64;
    format!(
        "held-out {size}x{size}: {} games, {} positions: top-1 {:.1}%, top-5 {:.1}%, top-10 {:.1}%",
        t.games,
        t.positions,
        pct(t.top[0]),
        pct(t.top[1]),
        pct(t.top[2])
    )
}

fn join(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(" ")
}

fn sizes(games: &BTreeMap<usize, usize>) -> String {
    let parts: Vec<String> = games
        .iter()
        .map(|(size, n)| format!("{n} {size}x{size}"))
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests;
