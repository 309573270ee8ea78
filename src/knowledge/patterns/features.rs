//! Move features: the values a candidate move takes in each feature group.
//!
//! Every candidate (an empty point, or a pass) has exactly one value in each [`Group`]; its
//! strength is the product of the gammas of its values (Coulom's "team"). Value 0 of every
//! group but the pattern and edge groups means "none".

use crate::knowledge::patterns::shape;
use crate::knowledge::patterns::spatial;
use crate::knowledge::tactics::{self, Scratch};
use crate::rules::board::{Board, Color, Point};

/// Number of feature groups.
pub const GROUPS: usize = 8;

/// A feature group: one value per candidate move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// The 3x3 shape around the point: its class (see [`shape`]), or [`pass_class`] for a pass.
    Pattern,
    /// 0 none, [`CAPTURE_ONE`], [`CAPTURE_MANY`], [`CAPTURE_LAST`], [`CAPTURE_SAVES`].
    Capture,
    /// 0 none, [`ATARI`], [`ATARI_LADDER`].
    Atari,
    /// 0 none, [`ESCAPE_CAUGHT`], [`ESCAPE`].
    Escape,
    /// 0 none, [`SELF_ATARI_SMALL`], [`SELF_ATARI_BIG`].
    SelfAtari,
    /// The distance to the last move (see [`distance_value`]); 0 when it was a pass or none.
    LastDistance,
    /// The distance to the move before the last (the mover's own previous move), as above.
    SecondDistance,
    /// The line the point is on: 1 to 4, 5 for the fifth line or higher; 0 for a pass.
    Edge,
}

impl Group {
    /// Every group, in the order of the table file.
    pub const ALL: [Group; GROUPS] = [
        Group::Pattern,
        Group::Capture,
        Group::Atari,
        Group::Escape,
        Group::SelfAtari,
        Group::LastDistance,
        Group::SecondDistance,
        Group::Edge,
    ];

    /// The group's name in the table file.
    pub fn name(self) -> &'static str {
        match self {
            Group::Pattern => "pattern",
            Group::Capture => "capture",
            Group::Atari => "atari",
            Group::Escape => "escape",
            Group::SelfAtari => "self-atari",
            Group::LastDistance => "distance-last",
            Group::SecondDistance => "distance-second",
            Group::Edge => "edge",
        }
    }

    /// The group named `name` in the table file.
    pub fn from_name(name: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.name() == name)
    }

    /// Number of values of the group: values are `0..values()`.
    pub fn values(self) -> usize {
        match self {
            Group::Pattern => shape::class_count() + 1,
            Group::Capture => 5,
            Group::Atari | Group::Escape | Group::SelfAtari => 3,
            Group::LastDistance | Group::SecondDistance => DISTANCE_VALUES,
            Group::Edge => 6,
        }
    }

    /// Index of the group in [`Group::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Captures one stone.
pub const CAPTURE_ONE: u8 = 1;
/// Captures two stones or more.
pub const CAPTURE_MANY: u8 = 2;
/// Captures the string of the last move.
pub const CAPTURE_LAST: u8 = 3;
/// Captures a string next to an own string in atari (saving it).
pub const CAPTURE_SAVES: u8 = 4;
/// Ataris an opponent string.
pub const ATARI: u8 = 1;
/// Ataris an opponent string that then cannot escape a ladder (see [`tactics::ladder_atari`]).
pub const ATARI_LADDER: u8 = 2;
/// Extends an own string in atari that stays caught: one liberty, or two that a ladder takes.
pub const ESCAPE_CAUGHT: u8 = 1;
/// Extends an own string in atari out of danger: three liberties, or two no ladder takes.
pub const ESCAPE: u8 = 2;
/// Leaves its own string of one to three stones with a single liberty.
pub const SELF_ATARI_SMALL: u8 = 1;
/// Leaves its own string of four stones or more with a single liberty.
pub const SELF_ATARI_BIG: u8 = 2;
/// Values of the distance groups: none, then the distances 2 to 16, then 17 or more.
const DISTANCE_VALUES: usize = 17;

/// The value of the feature groups for one candidate move, and its spatial pattern. Small and
/// `Copy`, so a playout or a tree can keep one per point.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features {
    /// [`Group::Pattern`].
    pub pattern: u16,
    /// [`Group::Capture`].
    pub capture: u8,
    /// [`Group::Atari`].
    pub atari: u8,
    /// [`Group::Escape`].
    pub escape: u8,
    /// [`Group::SelfAtari`].
    pub self_atari: u8,
    /// [`Group::LastDistance`].
    pub last_distance: u8,
    /// [`Group::SecondDistance`].
    pub second_distance: u8,
    /// [`Group::Edge`].
    pub edge: u8,
    /// The canonical code of the wider neighbourhood ([`spatial::code`]), or
    /// [`spatial::PASS`]. Not a [`Group`]: its values are the codes the table lists.
    pub spatial: u64,
}

impl Features {
    /// The features of a pass: the pass pattern value, "none" everywhere else.
    pub fn pass() -> Features {
        Features {
            pattern: pass_class(),
            spatial: spatial::PASS,
            ..Features::default()
        }
    }

    /// The value in group `g`.
    #[inline]
    pub fn value(&self, g: Group) -> usize {
        match g {
            Group::Pattern => usize::from(self.pattern),
            Group::Capture => usize::from(self.capture),
            Group::Atari => usize::from(self.atari),
            Group::Escape => usize::from(self.escape),
            Group::SelfAtari => usize::from(self.self_atari),
            Group::LastDistance => usize::from(self.last_distance),
            Group::SecondDistance => usize::from(self.second_distance),
            Group::Edge => usize::from(self.edge),
        }
    }

    /// The values of every group, in the order of [`Group::ALL`].
    #[inline]
    pub fn values(&self) -> [usize; GROUPS] {
        Group::ALL.map(|g| self.value(g))
    }
}

/// The pattern value of a pass: one past the last 3x3 class.
pub fn pass_class() -> u16 {
    // class_count() < u16::MAX, checked when the classes are built.
    shape::class_count() as u16
}

/// The value of distance-group for a move at `(dx, dy)` from the earlier move: Coulom's
/// `d = |dx| + |dy| + max(|dx|, |dy|)`, so 2 for a neighbour, 3 for a diagonal, 4 for a
/// one-space jump; values 1 to 15 for d = 2 to 16, 16 for d ≥ 17.
pub fn distance_value(dx: usize, dy: usize) -> u8 {
    let d = dx + dy + dx.max(dy);
    (d.clamp(2, 17) - 1) as u8
}

/// The features of `to_move` playing on the empty point `p` (which should be legal), after
/// the last move `last` and the one before it `last2` (`None` for a pass or no move);
/// `scratch` holds the boards the ladder reader needs.
pub fn extract(
    board: &Board,
    p: Point,
    to_move: Color,
    last: Option<Point>,
    last2: Option<Point>,
    scratch: &mut Scratch,
) -> Features {
    let size = board.size();
    let (col, row) = p.coords(size);
    let line = col.min(row).min(size - 1 - col).min(size - 1 - row) + 1;
    let distance = |q: Option<Point>| {
        q.map_or(0, |q| {
            let (qc, qr) = q.coords(size);
            distance_value(col.abs_diff(qc), row.abs_diff(qr))
        })
    };
    let self_atari = match board.self_atari_size(p, to_move) {
        None => 0,
        Some(1..=3) => SELF_ATARI_SMALL,
        Some(_) => SELF_ATARI_BIG,
    };
    let tactics = Tactics::new(board, p, to_move);
    Features {
        pattern: shape::class_of(shape::raw_code(board, p, to_move)),
        capture: tactics.capture(last),
        atari: tactics.atari(scratch),
        escape: tactics.escape(scratch),
        self_atari,
        last_distance: distance(last),
        second_distance: distance(last2),
        edge: line.min(5) as u8,
        spatial: spatial::code(board, p, to_move),
    }
}

/// The distinct strings next to a candidate move.
struct Tactics<'a> {
    board: &'a Board,
    p: Point,
    to_move: Color,
    /// One stone of each distinct neighbouring string.
    strings: [Option<Point>; 4],
}

impl<'a> Tactics<'a> {
    fn new(board: &'a Board, p: Point, to_move: Color) -> Tactics<'a> {
        let mut strings = [None; 4];
        let mut heads = [None; 4];
        for (k, n) in board.neighbors(p).into_iter().enumerate() {
            if board.color_at(n).is_some() {
                let head = Some(board.string_head(n));
                if !heads.contains(&head) {
                    heads[k] = head;
                    strings[k] = Some(n);
                }
            }
        }
        Tactics {
            board,
            p,
            to_move,
            strings,
        }
    }

    /// Neighbouring strings of `c`.
    fn strings_of(&self, c: Color) -> impl Iterator<Item = Point> + '_ {
        self.strings
            .into_iter()
            .flatten()
            .filter(move |&s| self.board.color_at(s) == Some(c))
    }

    fn capture(&self, last: Option<Point>) -> u8 {
        let board = self.board;
        let mut stones = 0;
        let mut value = 0;
        for s in self
            .strings_of(self.to_move.opponent())
            .filter(|&s| board.in_atari(s))
        {
            stones += board.string_size(s);
            let takes_last = last.is_some_and(|l| {
                board.color_at(l).is_some() && board.string_head(l) == board.string_head(s)
            });
            let saves = board.string_stones(s).any(|t| {
                board
                    .neighbors(t)
                    .iter()
                    .any(|&n| board.color_at(n) == Some(self.to_move) && board.in_atari(n))
            });
            value = value.max(if saves {
                CAPTURE_SAVES
            } else if takes_last {
                CAPTURE_LAST
            } else {
                0
            });
        }
        match (value, stones) {
            (0, 0) => 0,
            (0, 1) => CAPTURE_ONE,
            (0, _) => CAPTURE_MANY,
            (v, _) => v,
        }
    }

    fn atari(&self, scratch: &mut Scratch) -> u8 {
        let mut value = 0;
        for s in self.strings_of(self.to_move.opponent()) {
            if self.board.liberties(s) == 2 {
                if tactics::is_ladder_atari(self.board, s, self.p, self.to_move, scratch) {
                    return ATARI_LADDER;
                }
                value = ATARI;
            }
        }
        value
    }

    fn escape(&self, scratch: &mut Scratch) -> u8 {
        let mut value = 0;
        for s in self.strings_of(self.to_move) {
            if self.board.in_atari(s) {
                if tactics::escapes(self.board, self.p, self.to_move, scratch) {
                    return ESCAPE;
                }
                value = ESCAPE_CAUGHT;
            }
        }
        value
    }
}
