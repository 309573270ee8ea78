//! Game records for training: finding the SGF files and walking their positions.

use std::path::{Path, PathBuf};

use crate::rules::board::{Board, Color, Move, Point};
use crate::rules::sgf::Record;

/// One position of a record: the board before a move, the mover, the two moves before it
/// (`None` for a pass or no move) and the move played.
pub struct Position<'a> {
    /// The board before the move.
    pub board: &'a Board,
    /// Who played it.
    pub to_move: Color,
    /// The move before it.
    pub last: Option<Point>,
    /// The move before that.
    pub last2: Option<Point>,
    /// The move played.
    pub played: Move,
}

/// The SGF files named by `paths`: a file stands for itself, a directory for the `.sgf` files
/// in it (not in its subdirectories), sorted by name. A path that does not exist is an error.
pub fn sgf_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|e| (path.clone(), e))?;
        if !metadata.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(|e| (path.clone(), e))? {
            let entry = entry.map_err(|e| (path.clone(), e))?;
            if is_sgf(&entry.path()) {
                found.push(entry.path());
            }
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

fn is_sgf(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
}

/// The number of random opening moves a root comment announces (`"4 random opening moves"`,
/// as the project's KataGo records say); 0 when it says nothing of the kind.
pub fn opening_moves(comment: Option<&str>) -> usize {
    let Some(comment) = comment else { return 0 };
    let words: Vec<&str> = comment.split_whitespace().collect();
    words
        .windows(3)
        .find(|w| w[1] == "random" && w[2].starts_with("opening"))
        .and_then(|w| w[0].parse().ok())
        .unwrap_or(0)
}

/// Calls `visit` on each position of `record` from move `skip` on (0-based).
pub fn for_each_position(record: &Record, skip: usize, mut visit: impl FnMut(&Position)) {
    let mut game = record.start.clone();
    let point = |i: Option<usize>| {
        i.and_then(|i| record.moves.get(i))
            .and_then(|&(_, mv)| mv.point())
    };
    for (i, &(c, mv)) in record.moves.iter().enumerate() {
        if i >= skip {
            visit(&Position {
                board: game.board(),
                to_move: c,
                last: point(i.checked_sub(1)),
                last2: point(i.checked_sub(2)),
                played: mv,
            });
        }
        if game.play(c, mv).is_err() {
            // The loader checked every move; a record that still fails ends here.
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_moves_come_from_the_comment() {
        assert_eq!(opening_moves(Some("4 random opening moves")), 4);
        assert_eq!(opening_moves(Some("Game 7: 6 random opening moves.")), 6);
        assert_eq!(opening_moves(Some("a nice game")), 0);
        assert_eq!(opening_moves(None), 0);
    }
}
