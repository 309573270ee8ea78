//! 3x3 convolutions by Winograd's F(4x4, 3x3) (Lavin and Gray's matrices, as KataGo's Eigen
//! backend uses them): each 4x4 block of outputs from a 6x6 tile of inputs with 36
//! multiplications per input-output channel pair instead of 144, as 36 matrix products.

use super::matmul::matmul;

/// Outputs per tile side.
const OUT: usize = 4;
/// Inputs per tile side.
const TILE: usize = 6;
/// Points of a tile: the number of matrix products.
const POINTS: usize = TILE * TILE;

/// `G`, 6x3: the kernel transform.
const G: [[f64; 3]; 6] = [
    [0.25, 0.0, 0.0],
    [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
    [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
    [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
    [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
    [0.0, 0.0, 1.0],
];

/// A 3x3 kernel, weights `[ky][kx][in][out]`, as the 36 matrices `[point][in][out]` of
/// `G g G^T`.
pub fn transform_kernel(weights: &[f32], in_channels: usize, out_channels: usize) -> Vec<f32> {
    let pair = in_channels * out_channels;
    let mut out = vec![0.0f32; POINTS * pair];
    for io in 0..pair {
        let g = |ky: usize, kx: usize| weights[(ky * 3 + kx) * pair + io] as f64;
        // G g (6x3), then (G g) G^T (6x6).
        let mut gg = [[0.0f64; 3]; TILE];
        for (i, row) in gg.iter_mut().enumerate() {
            for (kx, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|ky| G[i][ky] * g(ky, kx)).sum();
            }
        }
        for i in 0..TILE {
            for j in 0..TILE {
                let u: f64 = (0..3).map(|kx| gg[i][kx] * G[j][kx]).sum();
                out[(i * TILE + j) * pair + io] = u as f32;
            }
        }
    }
    out
}

/// `B^T d` of six values (one column or row of a tile), for `c` channels at once.
#[inline]
fn input_1d(d: [&[f32]; 6], t: [&mut [f32]; 6]) {
    let [t0, t1, t2, t3, t4, t5] = t;
    for c in 0..t0.len() {
        let (d0, d1, d2, d3, d4, d5) = (d[0][c], d[1][c], d[2][c], d[3][c], d[4][c], d[5][c]);
        t0[c] = 4.0 * d0 - 5.0 * d2 + d4;
        t1[c] = -4.0 * d1 - 4.0 * d2 + d3 + d4;
        t2[c] = 4.0 * d1 - 4.0 * d2 - d3 + d4;
        t3[c] = -2.0 * d1 - d2 + 2.0 * d3 + d4;
        t4[c] = 2.0 * d1 - d2 - 2.0 * d3 + d4;
        t5[c] = 4.0 * d1 - 5.0 * d3 + d5;
    }
}

/// `A^T m` of six values, for `c` channels at once.
#[inline]
fn output_1d(m: [&[f32]; 6], o: [&mut [f32]; 4]) {
    let [o0, o1, o2, o3] = o;
    for c in 0..o0.len() {
        let (m0, m1, m2, m3, m4, m5) = (m[0][c], m[1][c], m[2][c], m[3][c], m[4][c], m[5][c]);
        o0[c] = m0 + m1 + m2 + m3 + m4;
        o1[c] = m1 - m2 + 2.0 * m3 - 2.0 * m4;
        o2[c] = m1 + m2 + 4.0 * m3 + 4.0 * m4;
        o3[c] = m1 - m2 + 8.0 * m3 - 8.0 * m4 + m5;
    }
}

/// Six disjoint `len`-long pieces of `buf` starting at `offsets` (strictly increasing).
fn six(buf: &mut [f32], offsets: [usize; 6], len: usize) -> [&mut [f32]; 6] {
    let (a, rest) = buf[offsets[0]..].split_at_mut(offsets[1] - offsets[0]);
    let (b, rest) = rest.split_at_mut(offsets[2] - offsets[1]);
    let (c, rest) = rest.split_at_mut(offsets[3] - offsets[2]);
    let (d, rest) = rest.split_at_mut(offsets[4] - offsets[3]);
    let (e, f) = rest.split_at_mut(offsets[5] - offsets[4]);
    [
        &mut a[..len],
        &mut b[..len],
        &mut c[..len],
        &mut d[..len],
        &mut e[..len],
        &mut f[..len],
    ]
}

/// A same-padded 3x3 convolution of `batch` NHWC boards of `size x size` with a kernel from
/// [`transform_kernel`]; `out` gets (or, when `accumulate`, adds) the result. `scratch` holds
/// the transformed tiles.
#[allow(clippy::too_many_arguments)]
pub fn conv3x3(
    input: &[f32],
    batch: usize,
    size: usize,
    transformed: &[f32],
    ic: usize,
    oc: usize,
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut Vec<f32>,
) {
    let side = size.div_ceil(OUT);
    let tiles = batch * side * side;
    let v_len = POINTS * tiles * ic;
    let m_len = POINTS * tiles * oc;
    if scratch.len() < v_len + m_len + 2 * POINTS * ic.max(oc) {
        scratch.resize(v_len + m_len + 2 * POINTS * ic.max(oc), 0.0);
    }
    let (v, rest) = scratch.split_at_mut(v_len);
    let (m, rest) = rest.split_at_mut(m_len);
    let (tile_buf, half) = rest.split_at_mut(POINTS * ic.max(oc));
    let n = size as isize;
    // Input transform: V[point][tile][in] = (B^T d B)[point].
    for b in 0..batch {
        let board = &input[b * size * size * ic..(b + 1) * size * size * ic];
        for ty in 0..side {
            for tx in 0..side {
                let tile = (b * side + ty) * side + tx;
                // d, the 6x6 inputs of this tile (zero off the board), [i][j][in].
                let d = &mut tile_buf[..POINTS * ic];
                for i in 0..TILE {
                    let y = (ty * OUT + i) as isize - 1;
                    for j in 0..TILE {
                        let x = (tx * OUT + j) as isize - 1;
                        let dst = &mut d[(i * TILE + j) * ic..(i * TILE + j + 1) * ic];
                        if y < 0 || y >= n || x < 0 || x >= n {
                            dst.fill(0.0);
                        } else {
                            let src = (y * n + x) as usize * ic;
                            dst.copy_from_slice(&board[src..src + ic]);
                        }
                    }
                }
                // B^T d: over each column j, into `half` as [i][j][in].
                let bd = &mut half[..POINTS * ic];
                for j in 0..TILE {
                    let col = |i: usize| (i * TILE + j) * ic;
                    let src: [&[f32]; 6] = std::array::from_fn(|i| &d[col(i)..col(i) + ic]);
                    input_1d(src, six(bd, std::array::from_fn(col), ic));
                }
                // (B^T d) B: over each row i, straight into V.
                for i in 0..TILE {
                    let row = |j: usize| (i * TILE + j) * ic;
                    let src: [&[f32]; 6] = std::array::from_fn(|j| &bd[row(j)..row(j) + ic]);
                    let at = |j: usize| ((i * TILE + j) * tiles + tile) * ic;
                    input_1d(src, six(v, std::array::from_fn(at), ic));
                }
            }
        }
    }
    // The 36 products: M[point] = V[point] U[point].
    for p in 0..POINTS {
        matmul(
            &v[p * tiles * ic..(p + 1) * tiles * ic],
            &transformed[p * ic * oc..(p + 1) * ic * oc],
            &mut m[p * tiles * oc..(p + 1) * tiles * oc],
            tiles,
            ic,
            oc,
            false,
        );
    }
    // Output transform: Y = A^T M A, the 4x4 outputs of each tile, kept where on the board.
    for b in 0..batch {
        for ty in 0..side {
            for tx in 0..side {
                let tile = (b * side + ty) * side + tx;
                // A^T M over each column j: [a][j][out] in `tile_buf` (rows 4 and 5 unused).
                let am = &mut tile_buf[..POINTS * oc];
                for j in 0..TILE {
                    let src: [&[f32]; 6] = std::array::from_fn(|i| {
                        let at = ((i * TILE + j) * tiles + tile) * oc;
                        &m[at..at + oc]
                    });
                    let [o0, o1, o2, o3, ..] =
                        six(am, std::array::from_fn(|a| (a * TILE + j) * oc), oc);
                    output_1d(src, [o0, o1, o2, o3]);
                }
                // (A^T M) A over each row a: the outputs (a, 0..4) in `half`.
                for a in 0..OUT {
                    let y = ty * OUT + a;
                    if y >= size {
                        break;
                    }
                    let src: [&[f32]; 6] = std::array::from_fn(|j| {
                        let at = (a * TILE + j) * oc;
                        &am[at..at + oc]
                    });
                    let row = &mut half[..POINTS * oc];
                    let [o0, o1, o2, o3, ..] = six(row, std::array::from_fn(|k| k * TILE * oc), oc);
                    output_1d(src, [o0, o1, o2, o3]);
                    for k in 0..OUT {
                        let x = tx * OUT + k;
                        if x >= size {
                            break;
                        }
                        let dst_at = ((b * size + y) * size + x) * oc;
                        let dst = &mut out[dst_at..dst_at + oc];
                        let val = &row[k * TILE * oc..k * TILE * oc + oc];
                        if accumulate {
                            for (d, v) in dst.iter_mut().zip(val) {
                                *d += v;
                            }
                        } else {
                            dst.copy_from_slice(val);
                        }
                    }
                }
            }
        }
    }
}
