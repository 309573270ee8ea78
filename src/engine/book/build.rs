//! `tengen book build`: a book from deep searches of tengen's own search or of KataGo's
//! analysis engine, breadth first from the empty board along the best few moves of each
//! position.

use std::collections::{HashSet, VecDeque};
use std::time::Instant;

use super::katago::AnalysisEngine;
use super::{Book, BookError, BookMove, Canonical, Entry, MAX_WEIGHT};
use crate::engine::search::{Budget, Search, SearchSettings};
use crate::rules::board::Move;
use crate::rules::game::{Game, Rules};

/// What `tengen book build` makes.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Board size.
    pub size: usize,
    /// Komi.
    pub komi: f64,
    /// The rules' name (`chinese`, `japanese`, ...).
    pub rules: String,
    /// Plies covered: positions after up to `depth - 1` moves get an entry.
    pub depth: usize,
    /// Playouts searched per position (KataGo's visits with `engine`).
    pub playouts: u64,
    /// The most moves kept per position.
    pub width: usize,
    /// A move is kept when its visits are at least this share of the best move's.
    pub min_share: f64,
    /// First moves followed besides the book's own, so that the book also answers the
    /// opponent's usual openings (one of each symmetry is enough).
    pub follow: Vec<Move>,
    /// The most positions searched (breadth first, so the shallow plies are complete).
    pub max_positions: usize,
    /// Search threads.
    pub threads: usize,
    /// The search's seed.
    pub seed: u64,
    /// The command line of KataGo's analysis engine to search with instead of tengen's own
    /// search (`threads` and `seed` are then the engine's own business).
    pub engine: Option<String>,
}

/// What searches the book's positions.
enum Searcher {
    Own(Box<Search>),
    KataGo(AnalysisEngine),
}

impl Searcher {
    /// The root moves of `game` for the player to move, most visited first, with their
    /// visits.
    fn candidates(&mut self, game: &Game) -> Result<Vec<(Move, u32)>, BookError> {
        match self {
            Searcher::Own(search) => {
                search.choose(game, game.to_move(), &Budget::default());
                Ok(search
                    .root_report()
                    .moves
                    .iter()
                    .map(|m| (m.mv, m.visits))
                    .collect())
            }
            Searcher::KataGo(engine) => engine.candidates(game),
        }
    }
}

/// Builds the book `options` describe, going on from `start` when given (a book built
/// with the same size, komi and rules: its positions are followed without a new search);
/// `progress` hears the book so far and one line after each position.
pub fn build(
    options: &BuildOptions,
    start: Option<Book>,
    progress: &mut dyn FnMut(&Book, &str),
) -> Result<Book, BookError> {
    let fresh = Book::new(options.size, options.komi, &options.rules)?;
    let (mut book, previous) = match start {
        Some(start) => {
            if (start.size, start.komi, &start.rules) != (fresh.size, fresh.komi, &fresh.rules) {
                return Err(BookError(format!(
                    "the book to go on from is for {}x{}, komi {}, {} rules, not these",
                    start.size, start.size, start.komi, start.rules
                )));
            }
            (fresh, start)
        }
        None => (fresh.clone(), fresh),
    };
    let rules = Rules::named(&options.rules, book.komi())
        .ok_or_else(|| BookError(format!("unknown rules `{}`", options.rules)))?;
    let mut searcher = match &options.engine {
        Some(command) => Searcher::KataGo(AnalysisEngine::start(
            command,
            options.size,
            book.komi(),
            &options.rules,
            options.playouts,
        )?),
        None => Searcher::Own(Box::new(Search::new(SearchSettings {
            playouts: Some(options.playouts),
            threads: options.threads,
            seed: Some(options.seed),
            resign_threshold: 0.0,
            early_stop: false,
            ..SearchSettings::default()
        }))),
    };
    let started = Instant::now();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([(Game::new(options.size, rules), Vec::<String>::new())]);
    while let Some((game, line)) = queue.pop_front() {
        let color = game.to_move();
        let canonical = Canonical::of(game.board(), color);
        if line.len() >= options.depth || !seen.insert(canonical.key) {
            continue;
        }
        if seen.len() > options.max_positions {
            break;
        }
        let candidates: Vec<(Move, u32)> = match previous.entry(&canonical) {
            Some(entry) if entry.to_move == color => entry
                .moves
                .iter()
                .map(|m| (Move::Play(canonical.to_game(m.point)), m.weight))
                .collect(),
            _ => {
                let moves = searcher.candidates(&game)?;
                let best_visits = moves.first().map_or(0, |&(_, visits)| visits);
                moves
                    .into_iter()
                    .take_while(|&(_, visits)| {
                        f64::from(visits) >= options.min_share * f64::from(best_visits)
                    })
                    .map(|(mv, visits)| (mv, visits.clamp(1, MAX_WEIGHT)))
                    .collect()
            }
        };
        let mut kept: Vec<(Move, u32, u64)> = Vec::new();
        for (mv, weight) in candidates {
            if kept.len() >= options.width {
                break;
            }
            let Move::Play(p) = mv else { continue };
            let mut child = game.clone();
            if child.play(color, mv).is_err() {
                continue;
            }
            // A move the board's symmetry makes equal to one kept already adds nothing.
            let child_key = Canonical::of(child.board(), color.opponent()).key;
            if kept.iter().any(|&(_, _, k)| k == child_key) {
                continue;
            }
            kept.push((Move::Play(p), weight, child_key));
            let mut child_line = line.clone();
            child_line.push(mv.to_vertex(options.size));
            queue.push_back((child, child_line));
        }
        if line.is_empty() {
            for &mv in &options.follow {
                let mut child = game.clone();
                if child.play(color, mv).is_ok() {
                    queue.push_back((child, vec![mv.to_vertex(options.size)]));
                }
            }
        }
        let shown = |moves: &[(Move, u32, u64)]| {
            moves
                .iter()
                .map(|(mv, w, _)| format!("{} {w}", mv.to_vertex(options.size)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let report = format!(
            "{:>4} positions, {:>6.0} s: {} {} -> {}",
            seen.len(),
            started.elapsed().as_secs_f64(),
            if line.is_empty() {
                "(empty)".to_string()
            } else {
                line.join(" ")
            },
            color.letter(),
            shown(&kept)
        );
        if !kept.is_empty() {
            let moves = kept
                .iter()
                .filter_map(|&(mv, weight, _)| {
                    mv.point().map(|p| BookMove {
                        point: canonical.to_canonical(p),
                        weight,
                    })
                })
                .collect();
            book.insert(
                &canonical,
                Entry {
                    to_move: color,
                    moves,
                    line: if line.is_empty() {
                        "(empty board)".to_string()
                    } else {
                        line.join(" ")
                    },
                },
            );
        }
        progress(&book, &report);
    }
    Ok(book)
}
