//! Same-padded convolutions on NHWC boards: 1x1 as one matrix product, 3x3 by Winograd's
//! transform where there are tiles enough to pay for it, any other kernel unrolled into a matrix
//! product.

use super::matmul::matmul;
use super::winograd;
use crate::knowledge::net::model::Conv;

/// A same-padded convolution of `batch` boards of `size x size`, NHWC: `input` holds
/// `batch * size * size * conv.in_channels` values, `out` gets `... * conv.out_channels` (added
/// to it when `accumulate`). Points off the board read as zero. `unrolled` is scratch space.
pub fn conv2d(
    input: &[f32],
    batch: usize,
    size: usize,
    conv: &Conv,
    out: &mut [f32],
    accumulate: bool,
    unrolled: &mut Vec<f32>,
) {
    let (k, ic, oc) = (conv.ksize, conv.in_channels, conv.out_channels);
    let area = size * size;
    let rows = batch * area;
    assert!(input.len() >= rows * ic && out.len() >= rows * oc);
    if k == 1 {
        matmul(input, &conv.weights, out, rows, ic, oc, accumulate);
        return;
    }
    let tiles = batch * size.div_ceil(4) * size.div_ceil(4);
    if k == 3 && !conv.transformed.is_empty() && tiles >= WINOGRAD_MIN_TILES {
        winograd::conv3x3(
            input,
            batch,
            size,
            &conv.transformed,
            ic,
            oc,
            out,
            accumulate,
            unrolled,
        );
        return;
    }
    let cols = k * k * ic;
    // Boards are unrolled a few at a time, so that the unrolled input stays in the L2 cache
    // (a 19x19 board of 96 channels under a 3x3 kernel is 1.2 MB).
    let chunk = (UNROLLED_BYTES / (area * cols * 4)).clamp(1, batch.max(1));
    let radius = (k / 2) as isize;
    let n = size as isize;
    for first in (0..batch).step_by(chunk) {
        let boards = chunk.min(batch - first);
        unrolled.clear();
        unrolled.resize(boards * area * cols, 0.0);
        for b in 0..boards {
            let board = &input[(first + b) * area * ic..(first + b + 1) * area * ic];
            for y in 0..n {
                for x in 0..n {
                    let row = (b * area) + (y * n + x) as usize;
                    let dst = &mut unrolled[row * cols..(row + 1) * cols];
                    for ky in 0..k as isize {
                        let sy = y + ky - radius;
                        if sy < 0 || sy >= n {
                            continue;
                        }
                        for kx in 0..k as isize {
                            let sx = x + kx - radius;
                            if sx < 0 || sx >= n {
                                continue;
                            }
                            let src = (sy * n + sx) as usize * ic;
                            let at = (ky as usize * k + kx as usize) * ic;
                            dst[at..at + ic].copy_from_slice(&board[src..src + ic]);
                        }
                    }
                }
            }
        }
        let out_rows = &mut out[first * area * oc..(first + boards) * area * oc];
        matmul(
            unrolled,
            &conv.weights,
            out_rows,
            boards * area,
            cols,
            oc,
            accumulate,
        );
    }
}

/// The fewest 4x4 output tiles (over the batch) for which a 3x3 conv goes through Winograd's
/// transform. Measured on b6c96: one 19x19 board (25 tiles) gains about 30%, one 13x13 (16)
/// breaks even, one 9x9 (9) loses half its speed (36 matrix products of 9 rows each).
const WINOGRAD_MIN_TILES: usize = 25;

/// How large the unrolled input of one matrix product may grow before boards are split.
const UNROLLED_BYTES: usize = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3x3 kernel on a 3x3 board, one channel in and two out, against sums done by hand.
    #[test]
    fn conv3x3_pads_with_zeros() {
        // Input 1..9 row by row.
        let input: Vec<f32> = (1..=9).map(|v| v as f32).collect();
        // Output channel 0: the sum of the 3x3 neighbourhood; channel 1: the point above.
        let mut weights = vec![0.0; 9 * 2];
        for tap in 0..9 {
            weights[tap * 2] = 1.0;
        }
        // Tap (ky=0, kx=1), the second of the nine, reads the point above.
        let above_tap = 1;
        weights[above_tap * 2 + 1] = 1.0;
        let conv = Conv {
            ksize: 3,
            in_channels: 1,
            out_channels: 2,
            weights,
            transformed: Vec::new(),
        };
        let mut out = vec![0.0; 18];
        conv2d(&input, 1, 3, &conv, &mut out, false, &mut Vec::new());
        let sums: Vec<f32> = out.iter().step_by(2).copied().collect();
        let above: Vec<f32> = out.iter().skip(1).step_by(2).copied().collect();
        assert_eq!(sums, [12.0, 21.0, 16.0, 27.0, 45.0, 33.0, 24.0, 39.0, 28.0]);
        assert_eq!(above, [0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    /// Two input channels, a batch of two boards, accumulation onto what is there.
    #[test]
    fn conv_mixes_channels_per_board() {
        // Board 0: channel 0 is 1 everywhere, channel 1 is 2; board 1: 3 and 4. 2x2 boards.
        let mut input = Vec::new();
        for (c0, c1) in [(1.0, 2.0), (3.0, 4.0)] {
            for _ in 0..4 {
                input.extend([c0, c1]);
            }
        }
        // 1x1: out = 10*c0 + c1.
        let conv = Conv {
            ksize: 1,
            in_channels: 2,
            out_channels: 1,
            weights: vec![10.0, 1.0],
            transformed: Vec::new(),
        };
        let mut out = vec![0.5; 8];
        conv2d(&input, 2, 2, &conv, &mut out, true, &mut Vec::new());
        assert_eq!(out, [12.5, 12.5, 12.5, 12.5, 34.5, 34.5, 34.5, 34.5]);
        // 3x3 with only the centre-right tap set: each point reads its right neighbour.
        let mut weights = vec![0.0; 9 * 2];
        let right_tap = 3 + 2;
        weights[right_tap * 2] = 1.0;
        let conv = Conv {
            ksize: 3,
            in_channels: 2,
            out_channels: 1,
            weights,
            transformed: Vec::new(),
        };
        conv2d(&input, 2, 2, &conv, &mut out, false, &mut Vec::new());
        assert_eq!(out, [1.0, 0.0, 1.0, 0.0, 3.0, 0.0, 3.0, 0.0]);
    }

    /// Winograd's 3x3 against the direct convolution on random boards of every size from 1 to 19 (tiles cut
    /// by the edge included), batches of one and three, written and accumulated.
    #[test]
    fn winograd_matches_the_direct_convolution() {
        let mut state = 0x1234_5678_u64;
        let mut rand = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let (ic, oc) = (5, 3);
        let weights: Vec<f32> = (0..9 * ic * oc).map(|_| rand()).collect();
        let transformed = winograd::transform_kernel(&weights, ic, oc);
        let conv = Conv {
            ksize: 3,
            in_channels: ic,
            out_channels: oc,
            weights,
            transformed: Vec::new(),
        };
        for size in 1..=19 {
            for batch in [1, 3] {
                let input: Vec<f32> = (0..batch * size * size * ic).map(|_| rand()).collect();
                let start: Vec<f32> = (0..batch * size * size * oc).map(|_| rand()).collect();
                for accumulate in [false, true] {
                    let mut direct = start.clone();
                    conv2d(
                        &input,
                        batch,
                        size,
                        &conv,
                        &mut direct,
                        accumulate,
                        &mut Vec::new(),
                    );
                    let mut fast = start.clone();
                    winograd::conv3x3(
                        &input,
                        batch,
                        size,
                        &transformed,
                        ic,
                        oc,
                        &mut fast,
                        accumulate,
                        &mut Vec::new(),
                    );
                    for (d, f) in direct.iter().zip(&fast) {
                        assert!((d - f).abs() < 1e-4, "size {size}: {d} vs {f}");
                    }
                }
            }
        }
    }
}
