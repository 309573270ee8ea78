//! Zobrist keys for incremental position hashing, generated at compile time.

use super::point::MAX_CELLS;

/// splitmix64: a fixed, well-mixed sequence, so hashes (and every other fixed key table and
/// seeded generator of tengen) are the same in every run.
pub const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn keys() -> [[u64; MAX_CELLS]; 2] {
    let mut table = [[0u64; MAX_CELLS]; 2];
    let mut i = 0;
    while i < MAX_CELLS {
        table[0][i] = splitmix((2 * i) as u64 * 0x1000_0000_01B3);
        table[1][i] = splitmix((2 * i + 1) as u64 * 0x1000_0000_01B3);
        i += 1;
    }
    table
}

/// `KEYS[color][cell]`: the key xor-ed into the hash when a stone of `color` is on `cell`.
pub static KEYS: [[u64; MAX_CELLS]; 2] = keys();
