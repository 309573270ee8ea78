//! 3x3 pattern codes and their classes under the eight symmetries of the square.
//!
//! The raw code of an empty point is the board's own incremental code
//! ([`Board::pattern3`]) made relative to the player to move, plus atari flags. Bits 0..16
//! hold the eight neighbours, two bits each, in [`PATTERN_OFFSETS`] order from the low bits
//! (NW, N, NE, W, E, SW, S, SE, with N the neighbour at `row + 1`, towards the top of the board
//! as GTP draws it): 0 empty, 1 a stone of the player to move, 2 an opponent stone, 3 off the
//! board. For Black to move that is exactly the board's [`crate::rules::board::Cell`] value; for
//! White, 1 and 2 are swapped. Bits 16..20 are the atari flags of N, W, E and S: set when that
//! neighbour is a stone whose string has exactly one liberty. Raw codes therefore lie below
//! [`RAW_CODES`] = 2^20.
//!
//! Rotating or mirroring the board does not change a shape, so every raw code belongs to a
//! class: the codes reachable from it by the eight symmetries. Classes are numbered densely
//! from 0 in the order of their smallest member (the canonical code), so the numbering is the
//! same in every build. Atari flags on a neighbour that holds no stone mean nothing and are
//! ignored.

use std::sync::OnceLock;

use crate::rules::board::{Board, Color, PATTERN_OFFSETS, Point};

/// Number of raw codes: 8 neighbours of 2 bits and 4 atari flags.
pub const RAW_CODES: usize = 1 << 20;

/// A neighbour cell: empty.
pub const EMPTY: u8 = 0;
/// A neighbour cell: a stone of the player to move.
pub const OWN: u8 = 1;
/// A neighbour cell: an opponent stone.
pub const OPPONENT: u8 = 2;
/// A neighbour cell: off the board.
pub const OFF_BOARD: u8 = 3;

/// The fields (indices into [`PATTERN_OFFSETS`]) of the orthogonal neighbours N, W, E, S, in
/// the order of their atari flags.
const ORTHOGONAL: [usize; 4] = [1, 3, 4, 6];

/// The raw code of the empty point `p` for `to_move`: O(1) (one load of the board's code and
/// at most four liberty checks), cheap enough for a playout.
#[inline]
pub fn raw_code(board: &Board, p: Point, to_move: Color) -> u32 {
    let cells = relative(board.pattern3(p), to_move);
    let mut code = u32::from(cells);
    // Board::neighbors gives S, W, E, N.
    let [s, w, e, n] = board.neighbors(p);
    for (flag, (q, field)) in [n, w, e, s].into_iter().zip(ORTHOGONAL).enumerate() {
        let cell = (cells >> (2 * field)) & 3;
        if (cell == u16::from(OWN) || cell == u16::from(OPPONENT)) && board.in_atari(q) {
            code |= 1 << (16 + flag);
        }
    }
    code
}

/// The board's 3x3 code `code` with colours relative to `to_move`: its stones are
/// [`OWN`], the other colour's [`OPPONENT`].
#[inline]
pub fn relative(code: u16, to_move: Color) -> u16 {
    match to_move {
        Color::Black => code,
        Color::White => swap_colours(code),
    }
}

/// A 3x3 code with the colours of its stones swapped (1 and 2 exchanged in every field).
#[inline]
fn swap_colours(code: u16) -> u16 {
    let low = code & 0x5555;
    let high = (code >> 1) & 0x5555;
    (low << 1) | high
}

/// The raw code of a point whose neighbours in [`PATTERN_OFFSETS`] order hold `cells` (each
/// one of [`EMPTY`], [`OWN`], [`OPPONENT`], [`OFF_BOARD`]; higher bits are ignored) and whose
/// orthogonal neighbours N, W, E, S are strings in atari where `atari` says so: the packing
/// [`raw_code`] reads off a board, for callers that keep their own arrays.
#[inline]
pub fn code3x3(cells: [u8; 8], atari: [bool; 4]) -> u32 {
    let mut code = 0;
    for (i, &cell) in cells.iter().enumerate() {
        code |= u32::from(cell & 3) << (2 * i);
    }
    for (i, &flag) in atari.iter().enumerate() {
        code |= u32::from(flag) << (16 + i);
    }
    code
}

/// The class of the raw code `raw` (its bits above 20 are ignored): equal for codes that are
/// rotations or reflections of each other, below [`class_count`].
#[inline]
pub fn class_of(raw: u32) -> u16 {
    classes().class[raw as usize & (RAW_CODES - 1)]
}

/// Number of pattern classes.
pub fn class_count() -> usize {
    classes().canonical.len()
}

/// The canonical (smallest) raw code of class `class` (below [`class_count`]).
pub fn canonical_code(class: u16) -> u32 {
    classes().canonical[usize::from(class)]
}

/// The class table, built on first use.
struct Classes {
    /// Raw code → class.
    class: Vec<u16>,
    /// Class → its canonical code.
    canonical: Vec<u32>,
}

fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(build)
}

/// Numbers the classes in one ascending pass: a code's canonical form and its normalised form
/// are never larger than the code itself, so their classes are known when it is reached.
fn build() -> Classes {
    let mut class = vec![0u16; RAW_CODES];
    let mut canonical = Vec::new();
    for raw in 0..RAW_CODES as u32 {
        let normal = normalize(raw);
        let smallest = symmetries(normal).into_iter().min().unwrap_or(normal);
        class[raw as usize] = if smallest == raw {
            let id = u16::try_from(canonical.len()).expect("fewer than 2^16 classes");
            canonical.push(raw);
            id
        } else {
            class[smallest as usize]
        };
    }
    Classes { class, canonical }
}

/// `raw` without the atari flags of neighbours that hold no stone.
fn normalize(raw: u32) -> u32 {
    let mut code = raw & 0xffff;
    for (flag, field) in ORTHOGONAL.into_iter().enumerate() {
        let cell = (raw >> (2 * field)) & 3;
        if cell == u32::from(OWN) || cell == u32::from(OPPONENT) {
            code |= raw & (1 << (16 + flag));
        }
    }
    code
}

/// Where each of `offsets` goes under each of the eight symmetries of the square (the
/// identity, the quarter, half and three-quarter turns clockwise, then four mirrors):
/// `fields[s][i]` is the index in `offsets` of the image of `offsets[i]`. `offsets` must be
/// closed under the symmetries.
pub(super) fn symmetry_fields<const N: usize>(offsets: &[(isize, isize); N]) -> [[usize; N]; 8] {
    // The symmetries as matrices `[a, b, c, d]` taking `(x, y)` to `(a x + b y, c x + d y)`.
    const MATRICES: [[isize; 4]; 8] = [
        [1, 0, 0, 1],
        [0, 1, -1, 0],
        [-1, 0, 0, -1],
        [0, -1, 1, 0],
        [-1, 0, 0, 1],
        [1, 0, 0, -1],
        [0, 1, 1, 0],
        [0, -1, -1, 0],
    ];
    MATRICES.map(|[a, b, c, d]| {
        offsets.map(|(x, y)| {
            let image = (a * x + b * y, c * x + d * y);
            offsets
                .iter()
                .position(|&o| o == image)
                .expect("the offsets are closed under the symmetries")
        })
    })
}

/// The code with field `i` moved to field `to[i]`; atari flags follow their neighbours.
fn permute(code: u32, to: &[usize; 8]) -> u32 {
    let mut out = 0;
    for (i, &j) in to.iter().enumerate() {
        out |= ((code >> (2 * i)) & 3) << (2 * j);
    }
    for (flag, field) in ORTHOGONAL.into_iter().enumerate() {
        if let Some(image) = ORTHOGONAL.iter().position(|&f| f == to[field]) {
            out |= ((code >> (16 + flag)) & 1) << (16 + image);
        }
    }
    out
}

/// The eight images of `code` under the rotations and reflections of the square, in
/// [`symmetry_fields`] order (itself first).
pub fn symmetries(code: u32) -> [u32; 8] {
    static FIELDS: OnceLock<[[usize; 8]; 8]> = OnceLock::new();
    let fields = FIELDS.get_or_init(|| symmetry_fields(&PATTERN_OFFSETS));
    std::array::from_fn(|s| permute(code, &fields[s]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An asymmetric shape: own NW and S, opponent NE and SW, off board W and SE, N in atari.
    fn sample() -> u32 {
        code3x3(
            [
                OWN, OPPONENT, OPPONENT, OFF_BOARD, EMPTY, OPPONENT, OWN, OFF_BOARD,
            ],
            [true, false, false, false],
        )
    }

    #[test]
    fn the_code_packs_cells_then_atari_flags() {
        assert_eq!(code3x3([0; 8], [false; 4]), 0);
        assert_eq!(code3x3([OWN, 0, 0, 0, 0, 0, 0, 0], [false; 4]), 1);
        assert_eq!(
            code3x3([0, 0, 0, 0, 0, 0, 0, OFF_BOARD], [false; 4]),
            3 << 14
        );
        assert_eq!(code3x3([0; 8], [false, false, false, true]), 1 << 19);
        assert!(code3x3([3; 8], [true; 4]) < RAW_CODES as u32);
    }

    #[test]
    fn swapping_colours_exchanges_own_and_opponent_only() {
        let code = code3x3([OWN, OPPONENT, EMPTY, OFF_BOARD, OWN, 0, 0, 0], [false; 4]);
        let swapped = code3x3(
            [OPPONENT, OWN, EMPTY, OFF_BOARD, OPPONENT, 0, 0, 0],
            [false; 4],
        );
        assert_eq!(u32::from(swap_colours(code as u16)), swapped);
        assert_eq!(swap_colours(swap_colours(0xabcd)), 0xabcd);
    }

    #[test]
    fn all_eight_symmetries_share_one_class() {
        let images = symmetries(sample());
        let mut distinct = images.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            8,
            "the sample shape has no symmetry of its own"
        );
        for image in images {
            assert_eq!(class_of(image), class_of(sample()));
        }
        assert_eq!(canonical_code(class_of(sample())), distinct[0]);
    }

    #[test]
    fn a_quarter_turn_moves_north_to_east() {
        // Own stone N (in atari), opponent NE; turned: own E (in atari), opponent SE.
        let north = code3x3(
            [0, OWN, OPPONENT, 0, 0, 0, 0, 0],
            [true, false, false, false],
        );
        let east = code3x3(
            [0, 0, 0, 0, OWN, 0, 0, OPPONENT],
            [false, false, true, false],
        );
        assert_eq!(symmetries(north)[1], east);
        assert_eq!(class_of(north), class_of(east));
    }

    #[test]
    fn different_shapes_and_colours_differ() {
        let own = code3x3([0, OWN, 0, 0, 0, 0, 0, 0], [false; 4]);
        let opp = code3x3([0, OPPONENT, 0, 0, 0, 0, 0, 0], [false; 4]);
        let diagonal = code3x3([OWN, 0, 0, 0, 0, 0, 0, 0], [false; 4]);
        let in_atari = code3x3([0, OWN, 0, 0, 0, 0, 0, 0], [true, false, false, false]);
        let classes = [own, opp, diagonal, in_atari, 0].map(class_of);
        for (i, a) in classes.iter().enumerate() {
            for b in &classes[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn atari_flags_on_empty_or_off_board_neighbours_are_ignored() {
        let plain = code3x3([0, EMPTY, 0, OFF_BOARD, 0, 0, 0, 0], [false; 4]);
        let flagged = code3x3(
            [0, EMPTY, 0, OFF_BOARD, 0, 0, 0, 0],
            [true, true, false, false],
        );
        assert_eq!(class_of(plain), class_of(flagged));
    }

    #[test]
    fn classes_are_dense_and_canonical_codes_map_back() {
        let n = class_count();
        assert!(n > 1000 && n < usize::from(u16::MAX), "{n} classes");
        for class in [0, 1, n / 2, n - 1] {
            let class = class as u16;
            assert_eq!(class_of(canonical_code(class)), class);
        }
    }
}
