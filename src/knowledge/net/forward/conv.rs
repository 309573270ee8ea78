//! The matrix work of the forward pass: convolutions on NHWC boards and plain matrix products,
//! both through `gemm`. Everything else in the pass is elementwise; a faster kernel (Winograd,
//! fused activations) replaces these two functions without touching the rest.

use super::winograd;
use crate::knowledge::net::model::Conv;

/// `out (+)= a * b` for row-major `a` (`m x k`), `b` (`k x n`) and `out` (`m x n`): added to
/// `out` when `accumulate`, written over it otherwise.
pub fn matmul(
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    m: usize,
    k: usize,
    n: usize,
    accumulate: bool,
) {
    assert!(a.len() >= m * k && b.len() >= k * n && out.len() >= m * n);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            out[..m * n].fill(0.0);
        }
        return;
    }
    // SAFETY: the three matrices lie within their slices (asserted above) with the strides
    // given: row-major, unit column stride; `out` does not alias `a` or `b` (a `&mut`).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

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

    #[test]
    fn matmul_multiplies_and_accumulates() {
        // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [5.0, 6.0, 7.0, 8.0];
        let mut out = [100.0; 4];
        matmul(&a, &b, &mut out, 2, 2, 2, false);
        assert_eq!(out, [19.0, 22.0, 43.0, 50.0]);
        matmul(&a, &b, &mut out, 2, 2, 2, true);
        assert_eq!(out, [38.0, 44.0, 86.0, 100.0]);
        // A row vector times a 2x3 matrix.
        let mut row = [0.0; 3];
        matmul(
            &[1.0, -1.0],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            &mut row,
            1,
            2,
            3,
            false,
        );
        assert_eq!(row, [-3.0, -3.0, -3.0]);
    }

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
}
