//! The transformer layers of the forward pass, computed as KataGo's Eigen backend computes them
//! (`TransformerAttentionBlock`, `TransformerFFNBlock`, `RMSNormLayer`), on NHWC buffers. The
//! board is evaluated at its own size, so every point is on it and no mask is needed.

use super::lanes::{silu_times, softmax, sum_of_squares};
use super::matmul::{Layout, matmul, matmul_laid_out};
use super::ops::activate;
use super::sized;
use crate::knowledge::net::model::{Attention, FeedForward, RmsNorm, TipRmsNorm};

/// Working memory of the transformer blocks, grown to the largest batch seen and reused.
#[derive(Default)]
pub struct Buffers {
    /// The stream after a block's RMSNorm.
    normed: Vec<f32>,
    /// Queries, keys and values, `[point][head * dim]`; the feed-forward block's hidden layer
    /// and gate in the first two.
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    /// One head's attention weights on one board, `[query point][key point]`.
    scores: Vec<f32>,
    /// The heads' outputs side by side, `[point][head * v_dim]`.
    heads: Vec<f32>,
    /// RoPE's cosines and sines for one block, `[key/value head][pair][point]`.
    cos: Vec<f32>,
    sin: Vec<f32>,
}

/// `dst = src / rms(src) * weight` at each point, the root mean square over its channels.
fn rms_norm(src: &[f32], norm: &RmsNorm, dst: &mut [f32]) {
    let c = norm.weight.len();
    for (s, d) in src.chunks_exact(c).zip(dst.chunks_exact_mut(c)) {
        let inv = 1.0 / (sum_of_squares(s) / c as f32 + norm.epsilon).sqrt();
        for ((d, s), w) in d.iter_mut().zip(s).zip(&norm.weight) {
            *d = s * inv * w;
        }
    }
}

/// The trunk's final RMSNorm: `dst = act(src / rms * gamma + beta)`, the root mean square over
/// each point's channels, or over the whole board's when `spatial`.
pub fn tip_rms_norm(src: &[f32], tip: &TipRmsNorm, area: usize, dst: &mut [f32]) {
    let c = tip.gamma.len();
    let scale_row = |s: &[f32], d: &mut [f32], inv: f32| {
        for i in 0..c {
            d[i] = activate(tip.act, s[i] * inv * tip.gamma[i] + tip.beta[i]);
        }
    };
    if tip.spatial {
        for (s, d) in src
            .chunks_exact(area * c)
            .zip(dst.chunks_exact_mut(area * c))
        {
            let inv = 1.0 / (sum_of_squares(s) / (area * c) as f32 + tip.epsilon).sqrt();
            for (s, d) in s.chunks_exact(c).zip(d.chunks_exact_mut(c)) {
                scale_row(s, d, inv);
            }
        }
    } else {
        for (s, d) in src.chunks_exact(c).zip(dst.chunks_exact_mut(c)) {
            scale_row(
                s,
                d,
                1.0 / (sum_of_squares(s) / c as f32 + tip.epsilon).sqrt(),
            );
        }
    }
}

/// Fills `buf.cos` and `buf.sin` with the block's RoPE angles on a `size x size` board. The
/// angle `x * fx + y * fy` is taken apart as `x * fx` and `y * fy`, so that only `4 * size`
/// sines and cosines are computed per pair rather than one of each per point.
fn rope_tables(a: &Attention, size: usize, buf: &mut Buffers) {
    let Some(rope) = &a.rope else { return };
    let pairs = a.q_dim / 2;
    let area = size * size;
    let len = a.kv_heads * pairs * area;
    let cos = sized(&mut buf.cos, len);
    let sin = sized(&mut buf.sin, len);
    let mut along = vec![(0.0f32, 0.0f32); 2 * size];
    for h in 0..a.kv_heads {
        for p in 0..pairs {
            let (fx, fy) = rope.frequencies(h, p, pairs);
            for i in 0..size {
                let (sx, cx) = (i as f32 * fx).sin_cos();
                let (sy, cy) = (i as f32 * fy).sin_cos();
                along[i] = (cx, sx);
                along[size + i] = (cy, sy);
            }
            let base = (h * pairs + p) * area;
            for y in 0..size {
                let (cy, sy) = along[size + y];
                for x in 0..size {
                    let (cx, sx) = along[x];
                    cos[base + y * size + x] = cx * cy - sx * sy;
                    sin[base + y * size + x] = sx * cy + cx * sy;
                }
            }
        }
    }
}

/// Turns each channel pair of `heads` heads of `dim` channels at every point by its angle
/// (head `h` takes the angles of key/value head `h * kv_heads / heads`).
fn rotate(data: &mut [f32], heads: usize, kv_heads: usize, dim: usize, area: usize, buf: &Buffers) {
    let pairs = dim / 2;
    for (point, row) in data.chunks_exact_mut(heads * dim).enumerate() {
        let point = point % area;
        for (h, head) in row.chunks_exact_mut(dim).enumerate() {
            let kv = h * kv_heads / heads;
            for (p, pair) in head.chunks_exact_mut(2).enumerate() {
                let t = (kv * pairs + p) * area + point;
                let (cos, sin) = (buf.cos[t], buf.sin[t]);
                let (x0, x1) = (pair[0], pair[1]);
                pair[0] = x0 * cos - x1 * sin;
                pair[1] = x0 * sin + x1 * cos;
            }
        }
    }
}

/// `stream += attention(rms_norm(stream))` over `boards` boards of `size x size` points.
pub fn attention(stream: &mut [f32], a: &Attention, boards: usize, size: usize, buf: &mut Buffers) {
    let area = size * size;
    let points = boards * area;
    let c = a.q.in_channels;
    let (qw, kw, vw) = (
        a.heads * a.q_dim,
        a.kv_heads * a.q_dim,
        a.kv_heads * a.v_dim,
    );
    let normed = sized(&mut buf.normed, points * c);
    rms_norm(stream, &a.norm, normed);
    let q = sized(&mut buf.q, points * qw);
    matmul(normed, &a.q.weights, q, points, c, qw, false);
    let k = sized(&mut buf.k, points * kw);
    matmul(normed, &a.k.weights, k, points, c, kw, false);
    let v = sized(&mut buf.v, points * vw);
    matmul(normed, &a.v.weights, v, points, c, vw, false);
    if a.rope.is_some() {
        rope_tables(a, size, buf);
        let mut q = std::mem::take(&mut buf.q);
        let mut k = std::mem::take(&mut buf.k);
        rotate(
            &mut q[..points * qw],
            a.heads,
            a.kv_heads,
            a.q_dim,
            area,
            buf,
        );
        rotate(
            &mut k[..points * kw],
            a.kv_heads,
            a.kv_heads,
            a.q_dim,
            area,
            buf,
        );
        buf.q = q;
        buf.k = k;
    }

    let scale = 1.0 / (a.q_dim as f32).sqrt();
    let group = a.heads / a.kv_heads;
    let hw = a.heads * a.v_dim;
    let scores = sized(&mut buf.scores, area * area);
    let heads = sized(&mut buf.heads, points * hw);
    for b in 0..boards {
        let (q, k, v) = (
            &buf.q[b * area * qw..],
            &buf.k[b * area * kw..],
            &buf.v[b * area * vw..],
        );
        let out = &mut heads[b * area * hw..(b + 1) * area * hw];
        for h in 0..a.heads {
            let kv = h / group;
            // scores = scale * Q_h K_kv^T: the keys read column-wise out of their rows.
            matmul_laid_out(
                &q[h * a.q_dim..],
                Layout::rows(area, a.q_dim, qw),
                &k[kv * a.q_dim..],
                Layout {
                    rows: a.q_dim,
                    cols: area,
                    row_step: 1,
                    col_step: kw,
                },
                scores,
                Layout::rows(area, area, area),
                scale,
            );
            scores.chunks_exact_mut(area).for_each(softmax);
            // The head's output = weights * V_kv, into its columns of every point's row.
            matmul_laid_out(
                scores,
                Layout::rows(area, area, area),
                &v[kv * a.v_dim..],
                Layout::rows(area, a.v_dim, vw),
                &mut out[h * a.v_dim..],
                Layout::rows(area, a.v_dim, hw),
                1.0,
            );
        }
    }
    matmul(heads, &a.out.weights, stream, points, hw, c, true);
}

/// `stream += linear2(silu(linear1(x)) * gate(x))`, `x` the stream's RMSNorm.
pub fn feed_forward(stream: &mut [f32], f: &FeedForward, points: usize, buf: &mut Buffers) {
    let c = f.linear1.in_channels;
    let hidden = f.linear1.out_channels;
    let normed = sized(&mut buf.normed, points * c);
    rms_norm(stream, &f.norm, normed);
    let h = sized(&mut buf.q, points * hidden);
    matmul(normed, &f.linear1.weights, h, points, c, hidden, false);
    let gate = sized(&mut buf.k, points * hidden);
    matmul(normed, &f.gate.weights, gate, points, c, hidden, false);
    silu_times(h, gate);
    matmul(h, &f.linear2.weights, stream, points, hidden, c, true);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::net::model::{Activation, MatMul, Rope};

    fn identity(n: usize) -> MatMul {
        let mut weights = vec![0.0; n * n];
        (0..n).for_each(|i| weights[i * n + i] = 1.0);
        MatMul {
            in_channels: n,
            out_channels: n,
            weights,
        }
    }

    fn unit_norm(c: usize) -> RmsNorm {
        RmsNorm {
            weight: vec![1.0; c],
            epsilon: 1e-6,
        }
    }

    /// One head of two channels, identity projections.
    fn one_head(rope: Option<Rope>) -> Attention {
        Attention {
            norm: unit_norm(2),
            heads: 1,
            kv_heads: 1,
            q_dim: 2,
            v_dim: 2,
            q: identity(2),
            k: identity(2),
            v: identity(2),
            out: identity(2),
            rope,
        }
    }

    #[test]
    fn rms_norm_divides_each_point_by_its_root_mean_square() {
        let norm = RmsNorm {
            weight: vec![1.0, 2.0],
            epsilon: 0.0,
        };
        // Point 1: (3, 4), rms = sqrt(12.5); point 2: (1, 1), rms 1.
        let mut out = [0.0; 4];
        rms_norm(&[3.0, 4.0, 1.0, 1.0], &norm, &mut out);
        let r = 12.5f32.sqrt();
        let want = [3.0 / r, 8.0 / r, 1.0, 2.0];
        for (o, w) in out.iter().zip(want) {
            assert!((o - w).abs() < 1e-6, "{out:?}");
        }
    }

    #[test]
    fn the_spatial_tip_norm_takes_one_root_mean_square_over_the_board() {
        let tip = TipRmsNorm {
            gamma: vec![1.0],
            beta: vec![0.5],
            epsilon: 0.0,
            spatial: true,
            act: Activation::Identity,
        };
        // One channel, a 2x2 board of 1, 1, 1, 7: rms = sqrt(52 / 4) for every point.
        let mut out = [0.0; 4];
        tip_rms_norm(&[1.0, 1.0, 1.0, 7.0], &tip, 4, &mut out);
        let r = 13.0f32.sqrt();
        assert!((out[0] - (1.0 / r + 0.5)).abs() < 1e-6 && (out[3] - (7.0 / r + 0.5)).abs() < 1e-6);
    }

    /// One head of two channels, identity projections, without RoPE: each point's output is
    /// the softmax-weighted mean of every point's normed value.
    #[test]
    fn attention_adds_the_softmax_weighted_values() {
        let a = one_head(None);
        // A 2x2 board: points (1, 0), (0, 1), (1, 0), (0, 1).
        let stream = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0];
        let mut got = stream;
        attention(&mut got, &a, 1, 2, &mut Buffers::default());
        // Normed points are (sqrt2, 0) and (0, sqrt2), two of each. Scores q.k / sqrt(2):
        // sqrt2 with its like, 0 with the other.
        let s = 2f32.sqrt();
        let (like, other) = (s.exp(), 1.0);
        let w = like / (2.0 * like + 2.0 * other);
        let wo = other / (2.0 * like + 2.0 * other);
        let main = 2.0 * w * s;
        let cross = 2.0 * wo * s;
        let want = [
            1.0 + main,
            cross,
            cross,
            1.0 + main,
            1.0 + main,
            cross,
            cross,
            1.0 + main,
        ];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-5, "{got:?} against {want:?}");
        }
    }

    /// RoPE turns a point's query by its angle: with frequencies (fx, fy) = (0.5, 0.25), the
    /// point (1, 1) of a 2x2 board turns by 0.75.
    #[test]
    fn rope_turns_each_pair_by_its_points_angle() {
        let a = one_head(Some(Rope::Learned(vec![0.5, 0.25])));
        let mut buf = Buffers::default();
        rope_tables(&a, 2, &mut buf);
        let mut data = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        rotate(&mut data, 1, 1, 2, 4, &buf);
        for (point, angle) in [0.0f32, 0.5, 0.25, 0.75].iter().enumerate() {
            let (s, c) = angle.sin_cos();
            assert!((data[2 * point] - c).abs() < 1e-6, "{data:?}");
            assert!((data[2 * point + 1] - s).abs() < 1e-6, "{data:?}");
        }
        // Fixed frequencies: the first pair (of two) turns with the row, the second with
        // the column.
        let fixed = Rope::Fixed { theta: 100.0 };
        assert_eq!(fixed.frequencies(0, 0, 2), (0.0, 1.0));
        assert_eq!(fixed.frequencies(0, 1, 2), (1.0, 0.0));
        let (fx, fy) = fixed.frequencies(0, 1, 4);
        assert!(fx == 0.0 && (fy - 0.1).abs() < 1e-7, "{fx} {fy}");
        let (fx, fy) = fixed.frequencies(0, 3, 4);
        assert!((fx - 0.1).abs() < 1e-7 && fy == 0.0, "{fx} {fy}");
    }

    #[test]
    fn feed_forward_adds_the_gated_hidden_layer() {
        let f = FeedForward {
            norm: unit_norm(1),
            linear1: MatMul {
                in_channels: 1,
                out_channels: 2,
                weights: vec![1.0, 2.0],
            },
            gate: MatMul {
                in_channels: 1,
                out_channels: 2,
                weights: vec![3.0, -1.0],
            },
            linear2: MatMul {
                in_channels: 2,
                out_channels: 1,
                weights: vec![1.0, 1.0],
            },
        };
        // One point, one channel of 2: normed to 1 (epsilon aside).
        let mut stream = [2.0];
        feed_forward(&mut stream, &f, 1, &mut Buffers::default());
        let silu = |x: f32| x / (1.0 + (-x).exp());
        let want = 2.0 + silu(1.0) * 3.0 - silu(2.0);
        assert!(
            (stream[0] - want).abs() < 1e-5,
            "{} against {want}",
            stream[0]
        );
    }
}
