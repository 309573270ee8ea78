//! 3x3 pattern codes and their classes under the eight symmetries of the square.
//!
//! The raw code of an empty point describes its eight neighbours relative to the player to
//! move, two bits each, in the fixed order N, E, S, W, NE, SE, SW, NW, where N is the
//! neighbour at `row + 1` (towards the top of the board as GTP draws it, row 1 at the bottom)
//! and E the one at `col + 1`: neighbour `i` sits in bits `2i..2i+2` with 0 empty, 1 a stone of
//! the player to move, 2 an opponent stone, 3 off the board. Bits 16..20 are the atari flags
//! of N, E, S and W: set when that neighbour is a stone whose string has exactly one liberty.
//! Raw codes therefore lie below [`RAW_CODES`] = 2^20.
//!
//! Rotating or mirroring the board does not change a shape, so every raw code belongs to a
//! class: the codes reachable from it by the eight symmetries. Classes are numbered densely
//! from 0 in the order of their smallest member (the canonical code), so the numbering is the
//! same in every build. Atari flags on a neighbour that holds no stone mean nothing and are
//! ignored.

use std::sync::OnceLock;

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

/// The raw code of a point whose neighbours N, E, S, W, NE, SE, SW, NW hold `cells` (each one
/// of [`EMPTY`], [`OWN`], [`OPPONENT`], [`OFF_BOARD`]; higher bits are ignored) and whose
/// orthogonal neighbours N, E, S, W are strings in atari where `atari` says so.
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
    for i in 0..4 {
        let cell = (raw >> (2 * i)) & 3;
        if cell == u32::from(OWN) || cell == u32::from(OPPONENT) {
            code |= raw & (1 << (16 + i));
        }
    }
    code
}

/// Where each neighbour position goes under a quarter turn clockwise (N→E→S→W, NE→SE→SW→NW).
const ROTATE: [usize; 8] = [1, 2, 3, 0, 5, 6, 7, 4];
/// Where each neighbour position goes under the mirror that swaps E and W.
const MIRROR: [usize; 8] = [0, 3, 2, 1, 7, 6, 5, 4];

/// The code with neighbour `i` moved to position `to[i]` (atari flags follow N, E, S, W).
fn permute(code: u32, to: &[usize; 8]) -> u32 {
    let mut out = 0;
    for (i, &j) in to.iter().enumerate() {
        out |= ((code >> (2 * i)) & 3) << (2 * j);
        if i < 4 {
            out |= ((code >> (16 + i)) & 1) << (16 + j);
        }
    }
    out
}

/// The eight images of `code` under the rotations and reflections of the square.
pub fn symmetries(code: u32) -> [u32; 8] {
    let mut out = [0; 8];
    let mut c = code;
    for k in 0..4 {
        out[2 * k] = c;
        out[2 * k + 1] = permute(c, &MIRROR);
        c = permute(c, &ROTATE);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// N own, NE opponent in... (cells only), W off board: an asymmetric corner-ish shape.
    fn sample() -> u32 {
        code3x3(
            [
                OWN, EMPTY, OPPONENT, OFF_BOARD, EMPTY, OWN, OPPONENT, OFF_BOARD,
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
        let north = code3x3(
            [OWN, 0, 0, 0, OPPONENT, 0, 0, 0],
            [true, false, false, false],
        );
        let east = code3x3(
            [0, OWN, 0, 0, 0, OPPONENT, 0, 0],
            [false, true, false, false],
        );
        assert_eq!(permute(north, &ROTATE), east);
        assert_eq!(symmetries(north)[2], east);
    }

    #[test]
    fn different_shapes_and_colours_differ() {
        let own = code3x3([OWN, 0, 0, 0, 0, 0, 0, 0], [false; 4]);
        let opp = code3x3([OPPONENT, 0, 0, 0, 0, 0, 0, 0], [false; 4]);
        let diagonal = code3x3([0, 0, 0, 0, OWN, 0, 0, 0], [false; 4]);
        let in_atari = code3x3([OWN, 0, 0, 0, 0, 0, 0, 0], [true, false, false, false]);
        let classes = [own, opp, diagonal, in_atari, 0].map(class_of);
        for (i, a) in classes.iter().enumerate() {
            for b in &classes[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn atari_flags_on_empty_or_off_board_neighbours_are_ignored() {
        let plain = code3x3([EMPTY, OFF_BOARD, 0, 0, 0, 0, 0, 0], [false; 4]);
        let flagged = code3x3(
            [EMPTY, OFF_BOARD, 0, 0, 0, 0, 0, 0],
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
