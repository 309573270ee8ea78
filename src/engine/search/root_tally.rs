//! What the playouts of one search saw beyond wins and losses: the final score after each root
//! move (mean and spread) and who ended up owning each point. Analyses ask for it; a genmove
//! asks for the scores alone, and only where it needs a lead (White giving a handicap).

use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU64, Ordering};

use super::report::ScoreStats;
use super::tree::NodeMove;
use crate::rules::board::playout::area_owner;
use crate::rules::board::{Board, Color, MAX_CELLS, Point};

/// Score sums per root move (indexed by [`NodeMove`]), for the root, and ownership sums.
pub struct RootTally {
    /// Per first move: playouts, sum of Black's margins, sum of their squares.
    count: Vec<AtomicU64>,
    sum: Vec<AtomicI64>,
    squares: Vec<AtomicI64>,
    /// Per point: playouts that ended with it Black's minus those with it White's (empty
    /// when only scores are kept).
    ownership: Vec<AtomicI64>,
    playouts: AtomicU64,
    /// The same per root move (row `first * MAX_CELLS`), when asked for.
    moves_ownership: Option<Vec<AtomicI32>>,
}

impl Default for RootTally {
    fn default() -> RootTally {
        RootTally {
            ownership: zeros(MAX_CELLS),
            ..RootTally::scores_only()
        }
    }
}

/// `n` counters at zero.
fn zeros(n: usize) -> Vec<AtomicI64> {
    (0..n).map(|_| AtomicI64::new(0)).collect()
}

/// One thread's ownership counts, added to the shared [`RootTally`] in one go: per-point
/// atomic additions from every thread after every playout would contend.
pub struct OwnershipBuffer {
    owned: Vec<i64>,
    playouts: u64,
}

impl Default for OwnershipBuffer {
    fn default() -> OwnershipBuffer {
        OwnershipBuffer {
            owned: vec![0; MAX_CELLS],
            playouts: 0,
        }
    }
}

impl OwnershipBuffer {
    /// Counts who owns each point of the played-out `board`.
    pub fn add(&mut self, board: &Board) {
        for p in board.points() {
            self.owned[p.index()] += match area_owner(board, p) {
                Some(Color::Black) => 1,
                Some(Color::White) => -1,
                None => 0,
            };
        }
        self.playouts += 1;
    }
}

impl RootTally {
    /// A tally of the scores alone, without who owns what.
    pub fn scores_only() -> RootTally {
        RootTally {
            count: (0..MAX_CELLS).map(|_| AtomicU64::new(0)).collect(),
            sum: zeros(MAX_CELLS),
            squares: zeros(MAX_CELLS),
            ownership: Vec::new(),
            playouts: AtomicU64::new(0),
            moves_ownership: None,
        }
    }

    /// Whether final owners are counted.
    pub fn keeps_ownership(&self) -> bool {
        !self.ownership.is_empty()
    }

    /// A tally that also keeps ownership per root move (about 2 MB).
    pub fn with_moves_ownership() -> RootTally {
        RootTally {
            moves_ownership: Some(
                (0..MAX_CELLS * MAX_CELLS)
                    .map(|_| AtomicI32::new(0))
                    .collect(),
            ),
            ..RootTally::default()
        }
    }

    /// Whether ownership per root move is kept.
    pub fn keeps_moves_ownership(&self) -> bool {
        self.moves_ownership.is_some()
    }

    /// Adds the owners of the played-out `board` to the row of the root move `first`.
    pub fn record_move_owners(&self, first: NodeMove, board: &Board) {
        let Some(rows) = &self.moves_ownership else {
            return;
        };
        let row = &rows[usize::from(first) * MAX_CELLS..][..MAX_CELLS];
        for p in board.points() {
            let owner = match area_owner(board, p) {
                Some(Color::Black) => 1,
                Some(Color::White) => -1,
                None => continue,
            };
            row[p.index()].fetch_add(owner, Ordering::Relaxed);
        }
    }

    /// How much `p` belongs to Black after the root move `first`, from -1 to 1; `None` when
    /// per-move ownership is not kept.
    pub fn move_ownership(&self, first: NodeMove, p: Point) -> Option<f32> {
        let rows = self.moves_ownership.as_ref()?;
        let n = self.count[usize::from(first)]
            .load(Ordering::Relaxed)
            .max(1) as f32;
        Some(rows[usize::from(first) * MAX_CELLS + p.index()].load(Ordering::Relaxed) as f32 / n)
    }

    /// Adds a playout that began with `first` (the root move taken) and ended with Black
    /// ahead by `margin` (komi included; negative: White ahead). Its final owners go to a
    /// thread's own [`OwnershipBuffer`] first.
    pub fn record_score(&self, first: NodeMove, margin: f32) {
        // Margins are whole or half points: keep them in half points.
        let half_points = (2.0 * margin).round() as i64;
        let i = usize::from(first);
        self.count[i].fetch_add(1, Ordering::Relaxed);
        self.sum[i].fetch_add(half_points, Ordering::Relaxed);
        self.squares[i].fetch_add(half_points * half_points, Ordering::Relaxed);
    }

    /// Adds a thread's ownership counts (and empties its buffer).
    pub fn flush(&self, buffer: &mut OwnershipBuffer) {
        for (sum, owned) in self.ownership.iter().zip(&mut buffer.owned) {
            if *owned != 0 {
                sum.fetch_add(std::mem::take(owned), Ordering::Relaxed);
            }
        }
        self.playouts
            .fetch_add(std::mem::take(&mut buffer.playouts), Ordering::Relaxed);
    }

    /// The score after the root move `first`, `None` before any playout took it.
    pub fn after(&self, first: NodeMove) -> Option<ScoreStats> {
        let i = usize::from(first);
        stats(
            self.count[i].load(Ordering::Relaxed),
            self.sum[i].load(Ordering::Relaxed),
            self.squares[i].load(Ordering::Relaxed),
        )
    }

    /// The score over every playout.
    pub fn overall(&self) -> Option<ScoreStats> {
        let total = |v: &[AtomicI64]| v.iter().map(|x| x.load(Ordering::Relaxed)).sum();
        stats(
            self.count.iter().map(|n| n.load(Ordering::Relaxed)).sum(),
            total(&self.sum),
            total(&self.squares),
        )
    }

    /// How much `p` belongs to Black: from -1 (White's in every playout) to 1; 0 when
    /// ownership is not kept.
    pub fn ownership(&self, p: Point) -> f32 {
        let n = self.playouts.load(Ordering::Relaxed).max(1) as f32;
        self.ownership
            .get(p.index())
            .map_or(0.0, |owned| owned.load(Ordering::Relaxed) as f32 / n)
    }
}

/// Mean and deviation from sums of half points.
fn stats(n: u64, sum: i64, squares: i64) -> Option<ScoreStats> {
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let mean = sum as f64 / n;
    let variance = (squares as f64 / n - mean * mean).max(0.0);
    Some(ScoreStats {
        mean: (mean / 2.0) as f32,
        stdev: (variance.sqrt() / 2.0) as f32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_ownership_add_up() {
        let tally = RootTally::default();
        let mut board = Board::new(3);
        board.play(Point::new(3, 1, 1), Color::Black);
        let mut buffer = OwnershipBuffer::default();
        for (first, margin, final_board) in [
            (5, 9.5, &board),
            (5, 2.5, &board),
            (0, -7.0, &Board::new(3)),
        ] {
            tally.record_score(first, margin);
            buffer.add(final_board);
        }
        tally.flush(&mut buffer);
        let after = tally.after(5).unwrap();
        assert_eq!(after.mean, 6.0);
        assert!((after.stdev - 3.5).abs() < 1e-6);
        assert_eq!(tally.after(7), None);
        assert!((tally.overall().unwrap().mean - 5.0 / 3.0).abs() < 1e-6);
        // The point below the stone is Black's in two playouts of three (the empty board owns
        // nothing).
        assert!((tally.ownership(Point::new(3, 1, 0)) - 2.0 / 3.0).abs() < 1e-6);
        // Scores alone: the same means, no owners.
        let scores = RootTally::scores_only();
        assert!(!scores.keeps_ownership() && tally.keeps_ownership());
        for (first, margin) in [(5, 9.5), (5, 2.5), (0, -7.0)] {
            scores.record_score(first, margin);
        }
        assert_eq!(scores.overall(), tally.overall());
        assert_eq!(scores.ownership(Point::new(3, 1, 0)), 0.0);
    }
}
