//! Last good reply with forgetting (Baier and Drake, 2010): after every playout, each move of
//! the winner is remembered as the reply to the move before it, and each move of the loser
//! that is the remembered reply is forgotten. The playouts then answer a move with its
//! remembered reply when nothing more urgent is at hand, so that replies that won in this
//! position's playouts are tried again. Each search thread keeps its own table: no sharing,
//! so no cache lines bouncing between cores.

use crate::rules::board::{Color, MAX_CELLS, Point};

/// No reply remembered (cell 0 is border, never a move).
const NONE: u16 = 0;

/// The replies of each colour, by the cell of the move they answer.
pub struct ReplyTable {
    reply: [[u16; MAX_CELLS]; 2],
}

impl ReplyTable {
    /// A table with nothing remembered, on the heap (it is a few kilobytes).
    pub fn new() -> Box<ReplyTable> {
        Box::new(ReplyTable {
            reply: [[NONE; MAX_CELLS]; 2],
        })
    }

    /// The reply `c` last won with after the opponent's move on `previous`.
    #[inline]
    pub fn get(&self, c: Color, previous: Point) -> Option<Point> {
        let r = self.reply[c.index()][previous.index()];
        (r != NONE).then(|| Point::from_index(usize::from(r)))
    }

    /// Learns from one playout: `moves` are its stones in order (a pass shows as two stones of
    /// one colour in a row, and breaks the chain), `winner` is who won it (`None` for a jigo,
    /// which teaches nothing).
    pub fn learn(&mut self, moves: &[(Point, Color)], winner: Option<Color>) {
        let Some(winner) = winner else {
            return;
        };
        for pair in moves.windows(2) {
            let [(previous, prev_color), (p, c)] = [pair[0], pair[1]];
            if prev_color == c {
                continue;
            }
            let slot = &mut self.reply[c.index()][previous.index()];
            let mv = p.index() as u16;
            if c == winner {
                *slot = mv;
            } else if *slot == mv {
                *slot = NONE;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(v: &str) -> Point {
        Point::parse(v, 9).expect("a test vertex")
    }

    #[test]
    fn the_winner_s_replies_are_kept_and_the_loser_s_forgotten() {
        let mut table = ReplyTable::new();
        let (b, w) = (Color::Black, Color::White);
        let game = [(pt("E5"), b), (pt("C3"), w), (pt("G7"), b), (pt("D4"), w)];
        table.learn(&game, Some(w));
        assert_eq!(table.get(w, pt("E5")), Some(pt("C3")));
        assert_eq!(table.get(w, pt("G7")), Some(pt("D4")));
        // The loser's replies were not learned.
        assert_eq!(table.get(b, pt("C3")), None);
        // A jigo teaches nothing.
        table.learn(&[(pt("E5"), b), (pt("F5"), w)], None);
        assert_eq!(table.get(w, pt("E5")), Some(pt("C3")));
        // White loses with C3 after E5: forgotten; its D4 after G7 stays (not played).
        table.learn(&[(pt("E5"), b), (pt("C3"), w)], Some(b));
        assert_eq!(table.get(w, pt("E5")), None);
        assert_eq!(table.get(w, pt("G7")), Some(pt("D4")));
        // A losing move that is not the remembered reply forgets nothing.
        table.learn(&[(pt("G7"), b), (pt("A1"), w)], Some(b));
        assert_eq!(table.get(w, pt("G7")), Some(pt("D4")));
    }

    #[test]
    fn a_pass_breaks_the_chain() {
        let mut table = ReplyTable::new();
        let (b, w) = (Color::Black, Color::White);
        // White passed between B's E5 and B's C3: C3 answers no white move.
        table.learn(&[(pt("D4"), w), (pt("E5"), b), (pt("C3"), b)], Some(b));
        assert_eq!(table.get(b, pt("E5")), None);
        assert_eq!(table.get(b, pt("D4")), Some(pt("E5")));
    }
}
