//! The one scorer: dead stones from the ownership seen over many playouts that keep seki
//! alive, overruled where Benson's algorithm proves strings pass-alive (and the opponent's
//! stones inside their vital regions dead), then area or territory counting.
//! `final_score`, `final_status_list`, cleanup and the match referee all use it.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

use super::benson::PassAlive;
use super::regions::Regions;
use super::{Game, Scoring};
use crate::rules::board::playout::{NoSelfAtari, area_owner, play_out};
use crate::rules::board::{Board, Color, MAX_CELLS, Move, Point};

/// The most playouts the scorer runs by default (fewer when the stones settle early).
pub const DEFAULT_PLAYOUTS: usize = 1000;

/// Playouts per parallel batch; each batch has its own generator.
const BATCH: usize = 50;

/// Batches per round: the playouts stop after a round that leaves every stone settled.
const ROUND: usize = 4;

/// The share of playouts beyond which a stone counts as settled (kept, or lost, in at least
/// this share), so that more playouts would not change its verdict.
const SETTLED_SHARE: f64 = 0.9;

/// What the scorer decided about a stone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StoneStatus {
    /// Lives.
    Alive,
    /// Will be captured: counted for the opponent.
    Dead,
    /// Lives without two eyes, sharing liberties with the opponent.
    Seki,
}

impl StoneStatus {
    /// The word `final_status_list` uses.
    pub fn name(self) -> &'static str {
        match self {
            StoneStatus::Alive => "alive",
            StoneStatus::Dead => "dead",
            StoneStatus::Seki => "seki",
        }
    }
}

/// The share of playouts in which a string must keep its stones (or lose them) for its
/// status to count as clear: Pachi judges groups at two thirds.
const CLEAR_SHARE: f64 = 0.7;

/// Life and death of every stone of a position, and the score it implies.
pub struct Assessment {
    size: usize,
    status: Vec<Option<StoneStatus>>,
    /// Whether Benson's algorithm or a clear majority of the playouts (see [`CLEAR_SHARE`])
    /// settles every string.
    clear: bool,
    /// Black's lead including komi (negative: White leads).
    score: f64,
}

impl Assessment {
    /// Judges the current position of `game` with `playouts` playouts (deterministic for a
    /// given position).
    pub fn of(game: &Game, playouts: usize) -> Assessment {
        let board = game.board();
        let ownership = Ownership::sample(board, game.to_move(), playouts);
        let mut status = vec![None; MAX_CELLS];
        let mut unclear = vec![false; MAX_CELLS];
        for p in board.points() {
            let Some(c) = board.color_at(p) else { continue };
            // A string lives or dies as a whole: judge it by its stones' average.
            let head = board.string_head(p);
            if head != p {
                continue;
            }
            let stones: Vec<Point> = board.string_stones(p).collect();
            let kept: u32 = stones
                .iter()
                .map(|s| ownership.owned[c.index()][s.index()])
                .sum();
            let share = f64::from(kept) / f64::from(ownership.playouts * stones.len() as u32);
            let is_unclear = share > 1.0 - CLEAR_SHARE && share < CLEAR_SHARE;
            let verdict = if 2 * kept < ownership.playouts * stones.len() as u32 {
                StoneStatus::Dead
            } else if ownership.shares_liberties(board, p) {
                StoneStatus::Seki
            } else {
                StoneStatus::Alive
            };
            for s in stones {
                status[s.index()] = Some(verdict);
                unclear[s.index()] = is_unclear;
            }
        }
        // What Benson's algorithm proves overrides what the playouts suggest.
        for c in Color::ALL {
            let proof = PassAlive::of(board, c);
            for p in board.points() {
                match board.color_at(p) {
                    Some(o) if o == c && proof.is_alive(p) => {
                        status[p.index()] = Some(StoneStatus::Alive);
                        unclear[p.index()] = false;
                    }
                    Some(o) if o != c && proof.is_enclosed(p) => {
                        status[p.index()] = Some(StoneStatus::Dead);
                        unclear[p.index()] = false;
                    }
                    _ => {}
                }
            }
        }
        let score = count(game, &status);
        Assessment {
            size: board.size(),
            status,
            clear: !unclear.contains(&true),
            score,
        }
    }

    /// Whether the status of every stone is clear: proved by Benson's algorithm or agreed by
    /// a clear majority of the playouts.
    pub fn is_clear(&self) -> bool {
        self.clear
    }

    /// The last liberty of each string of `board` (the board assessed) that is in atari and
    /// not dead: a move there still changes the game.
    pub fn living_atari_liberties<'a>(
        &'a self,
        board: &'a Board,
    ) -> impl Iterator<Item = Point> + 'a {
        board
            .points()
            .filter(|&p| {
                board.color_at(p).is_some()
                    && board.string_head(p) == p
                    && self.status(p) != Some(StoneStatus::Dead)
            })
            .filter_map(|p| board.atari_liberty(p))
    }

    /// The status of the stone on `p` (`None` for an empty point).
    pub fn status(&self, p: Point) -> Option<StoneStatus> {
        self.status[p.index()]
    }

    /// Every stone with status `s`, bottom row first.
    pub fn stones_with(&self, s: StoneStatus) -> Vec<Point> {
        let size = self.size;
        (0..size)
            .flat_map(|row| (0..size).map(move |col| Point::new(size, col, row)))
            .filter(|p| self.status(*p) == Some(s))
            .collect()
    }

    /// Black's lead including komi.
    pub fn score(&self) -> f64 {
        self.score
    }

    /// The result as GTP and SGF write it: `B+2.5`, `W+31`, `0`.
    pub fn result(&self) -> String {
        format_result(self.score)
    }
}

/// `B+x`, `W+x` or `0` for a lead of `score` points for Black.
pub fn format_result(score: f64) -> String {
    if score > 0.0 {
        format!("B+{score}")
    } else if score < 0.0 {
        format!("W+{}", -score)
    } else {
        "0".to_string()
    }
}

/// How often each point ended up owned by each colour.
struct Ownership {
    playouts: u32,
    owned: [Vec<u32>; 2],
    /// Playouts in which the point ended empty and owned by nobody (dame, seki liberties).
    neutral: Vec<u32>,
}

impl Ownership {
    /// Up to `playouts` playouts from `board`, in rounds of [`ROUND`] batches, stopped after
    /// the first round that leaves every stone settled: a finished game's stones all are
    /// after one round. Each batch is seeded by the position and its number, so the result
    /// depends on neither the threads nor the order they ran in.
    fn sample(board: &Board, to_move: Color, playouts: usize) -> Ownership {
        let batches = playouts.div_ceil(BATCH).max(1);
        let seed = board.hash();
        let mut own = Ownership::empty();
        for first in (0..batches).step_by(ROUND) {
            let round = (first..batches.min(first + ROUND))
                .into_par_iter()
                .map(|batch| Ownership::batch(board, to_move, seed, batch))
                .reduce(Ownership::empty, Ownership::merge);
            own = own.merge(round);
            if own.settles(board) {
                break;
            }
        }
        own
    }

    /// [`BATCH`] playouts from `board` with the generator of batch number `batch`.
    fn batch(board: &Board, to_move: Color, seed: u64, batch: usize) -> Ownership {
        let mut rng = SmallRng::seed_from_u64(seed ^ (batch as u64).wrapping_mul(0x9E37_79B9));
        let mut own = Ownership::empty();
        let mut b = board.clone();
        for _ in 0..BATCH {
            b.copy_from(board);
            play_out(&mut b, to_move, None, &mut NoSelfAtari, &mut rng, |_, _| {});
            own.playouts += 1;
            for p in b.points() {
                match area_owner(&b, p) {
                    Some(c) => own.owned[c.index()][p.index()] += 1,
                    None => own.neutral[p.index()] += 1,
                }
            }
        }
        own
    }

    /// Whether every stone of `board` was kept, or lost, in at least [`SETTLED_SHARE`] of
    /// the playouts.
    fn settles(&self, board: &Board) -> bool {
        let playouts = f64::from(self.playouts);
        board.points().all(|p| {
            board.color_at(p).is_none_or(|c| {
                let kept = f64::from(self.owned[c.index()][p.index()]) / playouts;
                kept >= SETTLED_SHARE || kept <= 1.0 - SETTLED_SHARE
            })
        })
    }

    fn empty() -> Ownership {
        Ownership {
            playouts: 0,
            owned: [vec![0; MAX_CELLS], vec![0; MAX_CELLS]],
            neutral: vec![0; MAX_CELLS],
        }
    }

    fn merge(mut self, other: Ownership) -> Ownership {
        self.playouts += other.playouts;
        for (a, b) in self.owned.iter_mut().zip(&other.owned) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        self.neutral
            .iter_mut()
            .zip(&other.neutral)
            .for_each(|(x, y)| *x += y);
        self
    }

    /// Whether the living string on `p` keeps a liberty that stays neutral in most playouts:
    /// a liberty shared with the opponent that neither side can fill.
    fn shares_liberties(&self, board: &Board, p: Point) -> bool {
        let mut libs = [p; 64];
        let n = board.string_liberties(p, &mut libs);
        libs[..n]
            .iter()
            .any(|q| 2 * self.neutral[q.index()] > self.playouts)
    }
}

/// Black's lead (komi included) with the dead stones in `status` taken off the board.
fn count(game: &Game, status: &[Option<StoneStatus>]) -> f64 {
    let board = game.board();
    let counted = Counted::of(board, |p| {
        board
            .color_at(p)
            .filter(|_| status[p.index()] != Some(StoneStatus::Dead))
    });
    counted.lead(game)
}

/// Black's lead (komi included) on `game`'s board as it stands, every stone alive, counted
/// by its rules (by area, or by territory and prisoners): the count of a game that ends
/// without dead stones, as two passes end one in a search's tree.
pub fn lead_as_it_stands(game: &Game) -> f64 {
    let board = game.board();
    Counted::of(board, |p| board.color_at(p)).lead(game)
}

/// What each colour has on a board, indexed by colour: its area (living stones and the
/// regions they alone enclose), its territory (those regions) and the dead stones in it.
struct Counted {
    area: [i64; 2],
    territory: [i64; 2],
    dead_taken: [i64; 2],
}

impl Counted {
    /// The count of `board`, where `alive` gives the colour of each living stone.
    fn of(board: &Board, alive: impl Fn(Point) -> Option<Color>) -> Counted {
        let mut counted = Counted {
            area: [0; 2],
            territory: [0; 2],
            dead_taken: [0; 2],
        };
        for p in board.points() {
            if let Some(c) = alive(p) {
                counted.area[c.index()] += 1;
            }
        }
        // The regions of empty points and dead stones that living stones of one colour enclose.
        for region in Regions::bounded_by(board, |p| alive(p).is_some()).iter() {
            let Some(owner) = region.owner() else {
                continue;
            };
            counted.area[owner.index()] += region.size() as i64;
            counted.territory[owner.index()] += region.size() as i64;
            let dead = region
                .points
                .iter()
                .filter(|q| board.color_at(**q).is_some())
                .count();
            counted.dead_taken[owner.index()] += dead as i64;
        }
        counted
    }

    /// Black's lead in `game` (komi included) by its rules' scoring.
    fn lead(&self, game: &Game) -> f64 {
        let lead = match game.rules().scoring {
            Scoring::Area => self.area[Color::Black.index()] - self.area[Color::White.index()],
            Scoring::Territory => {
                let points = |c: Color| {
                    self.territory[c.index()]
                        + self.dead_taken[c.index()]
                        + game.board().captures(c) as i64
                };
                points(Color::Black) - points(Color::White)
            }
        };
        lead as f64 - game.scoring_komi()
    }
}

/// A legal move for `color` on a liberty of an opponent string the scorer finds dead: what
/// `kgs-genmove_cleanup` plays instead of a pass, so that dead stones are taken off before
/// the game is scored.
pub fn capture_of_dead_stones(game: &Game, color: Color) -> Option<Point> {
    let board = game.board();
    let assessment = Assessment::of(game, DEFAULT_PLAYOUTS);
    let mut liberties = [Point::new(2, 0, 0); 8];
    assessment
        .stones_with(StoneStatus::Dead)
        .into_iter()
        .filter(|&p| board.color_at(p) == Some(color.opponent()))
        .find_map(|p| {
            let n = board.string_liberties(p, &mut liberties);
            liberties[..n]
                .iter()
                .copied()
                .find(|&q| game.legality(color, Move::Play(q)).is_ok())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::game::Rules;

    /// A finished game: every string settled, no dead stones.
    const SETTLED: [&str; 5] = [
        ". X O . .",
        "X X O . .",
        ". X O . .",
        "X X O O O",
        ". X O . .",
    ];

    /// Two lone stones side by side on an open board: either may end up captured.
    const OPEN: [&str; 5] = [
        ". . . . .",
        ". . . . .",
        ". . X O .",
        ". . . . .",
        ". . . . .",
    ];

    #[test]
    fn area_and_territory_on_a_settled_board() {
        let game = Game::from_rows(&SETTLED, Rules::chinese(0.5));
        let a = Assessment::of(&game, 200);
        assert!(a.stones_with(StoneStatus::Dead).is_empty());
        // Black: 7 stones + 3 points = 10; White: 7 stones + 8 points = 15.
        assert_eq!(a.score(), 10.0 - 15.0 - 0.5);
        assert_eq!(a.result(), "W+5.5");
        let game = Game::from_rows(&SETTLED, Rules::japanese(0.5));
        assert_eq!(Assessment::of(&game, 200).score(), 3.0 - 8.0 - 0.5);
    }

    #[test]
    fn white_is_compensated_for_handicap_stones_as_the_rules_say() {
        use crate::rules::game::fixed_handicap_points;
        // Two stones on 9x9, then both pass: every point is Black's; komi 0.5.
        let cases = [
            (Rules::chinese(0.5), 81.0 - 2.0 - 0.5),
            (
                Rules::named("aga", 0.5).expect("AGA rules"),
                81.0 - 1.0 - 0.5,
            ),
            (Rules::tromp_taylor(0.5), 81.0 - 0.5),
            (Rules::japanese(0.5), 79.0 - 0.5),
        ];
        for (rules, lead) in cases {
            let mut game = Game::new(9, rules);
            let points = fixed_handicap_points(9, 2).expect("two stones fit");
            game.set_handicap(&points).expect("an empty board");
            assert_eq!(Assessment::of(&game, 50).score(), lead, "{rules:?}");
        }
    }

    #[test]
    fn a_board_as_it_stands_is_counted_by_its_rules_with_komi() {
        let rows = ["...XO...."; 9];
        // Black 4 columns, White 5: by area White by 9 + 7.5; by territory (3 columns
        // against 4) White by 9 + 6.5.
        let game = Game::from_rows(&rows, Rules::chinese(7.5));
        assert_eq!(lead_as_it_stands(&game), -9.0 - 7.5);
        let game = Game::from_rows(&rows, Rules::japanese(6.5));
        assert_eq!(lead_as_it_stands(&game), -9.0 - 6.5);
        // Prisoners count by territory only: White takes the Black stone in the centre and
        // holds the whole board, by area 81 points, by territory 77 and a prisoner.
        let centre = [
            ".........",
            ".........",
            ".........",
            "....O....",
            "...OXO...",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        for (rules, lead) in [(Rules::chinese(0.0), -81.0), (Rules::japanese(0.0), -78.0)] {
            let mut game = Game::from_rows(&centre, rules);
            let last = [3, 5]
                .map(|row| Point::new(9, 4, row))
                .into_iter()
                .find(|&p| game.board().color_at(p).is_none())
                .expect("one side open");
            game.play(Color::White, Move::Play(last)).unwrap();
            assert_eq!(game.board().captures(Color::White), 1);
            assert_eq!(lead_as_it_stands(&game), lead, "{rules:?}");
        }
    }

    /// A board assessed under Chinese rules, and what the assessment must say of it.
    struct Judged {
        name: &'static str,
        rows: &'static [&'static str],
        komi: f64,
        playouts: usize,
        /// Stones, by vertex, that are alive, in seki and dead.
        alive: &'static [&'static str],
        seki: &'static [&'static str],
        dead: &'static [&'static str],
        /// Whether `dead` names every dead stone.
        no_other_dead: bool,
        result: Option<&'static str>,
    }

    const JUDGED: [Judged; 6] = [
        Judged {
            name: "a lone stone in territory is dead",
            rows: &[
                ". . X O . . .",
                ". . X O . . .",
                ". . X O . X .",
                ". X X O . . .",
                ". X O O . . .",
                ". X O . . . .",
                ". X O . . . .",
            ],
            komi: 0.0,
            playouts: 400,
            alive: &["C7"],
            seki: &[],
            dead: &["F5"],
            no_other_dead: true,
            // Black: 8 stones + A1-A7, B5-B7 = 18; White: 8 stones + 23 points (F5 included).
            result: Some("W+13"),
        },
        Judged {
            // Black's wall has the eye A1 and the region C1-D1 with a white stone on C1:
            // Benson's algorithm proves the wall alive and C1 dead, whatever a few playouts
            // say.
            name: "pass-alive strings live and stones in their eyes die",
            rows: &[
                ". . . . . . .",
                ". . . . . . .",
                ". . . . . . .",
                ". . . . . . .",
                "O O O O O O .",
                "X X X X X O .",
                ". X O . X O .",
            ],
            komi: 0.0,
            playouts: 1,
            alive: &["A2", "B1", "E1", "E2"],
            seki: &[],
            dead: &["C1"],
            no_other_dead: false,
            result: None,
        },
        Judged {
            // Black C9-C8-C7-D7 and White E9-E8-E7 have no eye and share D9 and D8: whoever
            // fills one of them is captured, so both live in seki.
            name: "seki is kept alive",
            rows: &[
                ". O X . O X . . .",
                ". O X . O X . . .",
                ". O X X O X . . .",
                ". O O O X X . . .",
                ". . . O X . . . .",
                ". . . O X . . . .",
                ". . . O X . . . .",
                ". . . O X . . . .",
                ". . . O X . . . .",
            ],
            komi: 0.0,
            playouts: 400,
            alive: &["D1"],
            seki: &["C9", "E9"],
            dead: &[],
            no_other_dead: true,
            result: None,
        },
        Judged {
            // The end of a game against GNU Go. Bottom left: Black A2 and B1 share B2 with
            // White's big group, whose only eye is A4, and keep A1 as their own eye: seki
            // (Black filling B2 would give White A1 and the corner). Top left: White's corner
            // shares A8 and B9 with Black A9 but it is a false seki: Black's throw-in at A8
            // leaves White a two-point eye after the capture, and Black kills it. GNU Go
            // counts B+3 too.
            name: "a small string's seki survives beside a false one",
            rows: &[
                "X . O O X O . . .",
                ". O O X X O . . .",
                "O O X X X O O . .",
                "X X X X X O . O .",
                "O O X . X X O O .",
                ". O X . X . X O O",
                "O O O X X X . X X",
                "X . O X O X X . .",
                ". X O O O O O X .",
            ],
            komi: 7.0,
            playouts: DEFAULT_PLAYOUTS,
            alive: &["A9"],
            seki: &["A2", "B1"],
            dead: &["C9"],
            no_other_dead: false,
            result: Some("B+3"),
        },
        Judged {
            // From a medium vs GNU Go game: the black group at the top left has only the eye
            // A9-A8; White throws in and captures it. GNU Go scores W+38; so must we.
            name: "a group with one two-point eye is dead",
            rows: &[
                ". X O O . . . . .",
                ". X X O O O . . .",
                "X X X X X O . . .",
                "O O O O O O O O O",
                ". O X X X X X X O",
                ". . O X . X . X X",
                ". O O X X . X X .",
                ". X O O O X . . .",
                "X . O . O O X . .",
            ],
            komi: 7.0,
            playouts: DEFAULT_PLAYOUTS,
            alive: &[],
            seki: &[],
            dead: &["B9"],
            no_other_dead: false,
            result: Some("W+38"),
        },
        Judged {
            // From a medium vs GNU Go game: Black's group on the right has the eye space
            // J9-J8-J7 with White on the vital point J8. White kills it by filling J7 (a
            // two-stone throw-in that seki-preserving playouts must still allow). GNU Go: the
            // group is dead.
            name: "a straight three eye with a stone inside is dead",
            rows: &[
                ". . X O O O O X .",
                "X X X X O O X X O",
                "O O X . X O X X .",
                "O X . X X O O X X",
                "O X X X O O . O O",
                "O X X X O O O X .",
                "O O O O O X O O O",
                ". X X O X X X O X",
                "X . . O . . X O .",
            ],
            komi: 7.0,
            playouts: DEFAULT_PLAYOUTS,
            alive: &[],
            seki: &[],
            dead: &["H8"],
            no_other_dead: false,
            result: None,
        },
    ];

    #[test]
    fn stones_are_judged_alive_dead_or_in_seki() {
        for case in &JUDGED {
            let name = case.name;
            let game = Game::from_rows(case.rows, Rules::chinese(case.komi));
            let a = Assessment::of(&game, case.playouts);
            let p = |v| Point::parse(v, case.rows.len()).unwrap();
            for (status, stones) in [
                (StoneStatus::Alive, case.alive),
                (StoneStatus::Seki, case.seki),
                (StoneStatus::Dead, case.dead),
            ] {
                for &v in stones {
                    assert_eq!(a.status(p(v)), Some(status), "{name}: {v}");
                }
            }
            if case.no_other_dead {
                let dead: Vec<Point> = case.dead.iter().map(|&v| p(v)).collect();
                assert_eq!(a.stones_with(StoneStatus::Dead), dead, "{name}");
            }
            if let Some(result) = case.result {
                assert_eq!(a.result(), result, "{name}");
            }
        }
    }

    #[test]
    fn clear_only_when_the_playouts_agree_on_every_string() {
        assert!(Assessment::of(&Game::from_rows(&SETTLED, Rules::chinese(0.5)), 400).is_clear());
        assert!(!Assessment::of(&Game::from_rows(&OPEN, Rules::chinese(0.5)), 400).is_clear());
    }

    #[test]
    fn the_playouts_stop_once_every_stone_is_settled() {
        let played = |rows: &[&str]| {
            let game = Game::from_rows(rows, Rules::chinese(0.5));
            Ownership::sample(game.board(), game.to_move(), 1000).playouts as usize
        };
        // A finished game: one round settles it.
        assert_eq!(played(&SETTLED), ROUND * BATCH);
        // Two lone stones on an open board stay unsettled: all the playouts run.
        assert_eq!(played(&OPEN), 1000);
    }

    #[test]
    fn result_format() {
        assert_eq!(format_result(2.5), "B+2.5");
        assert_eq!(format_result(-31.0), "W+31");
        assert_eq!(format_result(0.0), "0");
    }
}
