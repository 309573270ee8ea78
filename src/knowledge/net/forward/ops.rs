//! The elementwise and pooling layers of the forward pass, on NHWC buffers (`[point][channel]`
//! per board), computed as KataGo's Eigen backend computes them.

use super::lanes::{self, dispatched};
use crate::knowledge::net::model::{Activation, NormAct};

/// The activation of one value. Mish is linear above 20, as the Eigen backend writes it; the
/// exponentials are [`lanes::exp`]'s.
#[inline(always)]
pub fn activate(act: Activation, x: f32) -> f32 {
    match act {
        Activation::Identity => x,
        Activation::Relu => relu(x),
        Activation::Mish => lanes::mish(x),
        Activation::Silu => lanes::silu(x),
    }
}

#[inline(always)]
fn relu(x: f32) -> f32 {
    if x > 0.0 { x } else { 0.0 }
}

/// `$body` with `$f` bound to `act`'s function, so that each loop is compiled, and vectorized,
/// for one activation.
macro_rules! with_activation {
    ($act:expr, |$f:ident| $body:expr) => {
        match $act {
            Activation::Identity => {
                let $f = |x: f32| x;
                $body
            }
            Activation::Relu => {
                let $f = relu;
                $body
            }
            Activation::Mish => {
                let $f = lanes::mish;
                $body
            }
            Activation::Silu => {
                let $f = lanes::silu;
                $body
            }
        }
    };
}

dispatched!(
    /// `dst = act(src * scale + bias)` per channel.
    norm_act, norm_act_avx2, norm_act_body, (src: &[f32], norm: &NormAct, dst: &mut [f32])
);
dispatched!(
    /// `buf = act(buf + bias)` per channel.
    bias_act, bias_act_avx2, bias_act_body, (buf: &mut [f32], bias: &[f32], act: Activation)
);

#[inline(always)]
fn norm_act_body(src: &[f32], norm: &NormAct, dst: &mut [f32]) {
    let c = norm.scale.len();
    with_activation!(norm.act, |f| {
        for (s, d) in src.chunks_exact(c).zip(dst.chunks_exact_mut(c)) {
            for (((d, s), scale), bias) in d.iter_mut().zip(s).zip(&norm.scale).zip(&norm.bias) {
                *d = f(s * scale + bias);
            }
        }
    })
}

#[inline(always)]
fn bias_act_body(buf: &mut [f32], bias: &[f32], act: Activation) {
    let c = bias.len();
    with_activation!(act, |f| {
        for row in buf.chunks_exact_mut(c) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v = f(*v + b);
            }
        }
    })
}

/// `buf += per_board[board]` on every point of each board (`area` points of `c` channels).
pub fn add_per_board(buf: &mut [f32], per_board: &[f32], area: usize, c: usize) {
    for (board, bias) in buf
        .chunks_exact_mut(area * c)
        .zip(per_board.chunks_exact(c))
    {
        for row in board.chunks_exact_mut(c) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v += b;
            }
        }
    }
}

/// Per channel of one board of `area` points: the mean into `out[..c]`, and the mean scaled
/// by `(sqrt(area) - 14) / 10` into `out[c..2 * c]`.
fn means(board: &[f32], area: usize, c: usize, out: &mut [f32]) {
    let div = area as f32;
    let sqrt_div = div.sqrt();
    out[..c].fill(0.0);
    for row in board.chunks_exact(c) {
        for (s, v) in out.iter_mut().zip(row) {
            *s += v;
        }
    }
    for i in 0..c {
        let mean = out[i] / div;
        out[i] = mean;
        out[c + i] = mean * (sqrt_div - 14.0) * 0.1;
    }
}

/// KataGo's global pooling of each board: per channel the mean, the mean scaled by
/// `(sqrt(area) - 14) / 10`, and the max (over -1 and the points, as the Eigen backend starts
/// its max at -1). `out` gets `3 * c` values per board.
pub fn pool(buf: &[f32], boards: usize, area: usize, c: usize, out: &mut [f32]) {
    for b in 0..boards {
        let board = &buf[b * area * c..(b + 1) * area * c];
        let o = &mut out[b * 3 * c..(b + 1) * 3 * c];
        means(board, area, c, o);
        let max = &mut o[2 * c..];
        max.fill(-1.0);
        for row in board.chunks_exact(c) {
            for (m, v) in max.iter_mut().zip(row) {
                *m = m.max(*v);
            }
        }
    }
}

/// The value head's pooling: per channel the mean, the mean scaled by `(sqrt(area) - 14) / 10`
/// and by `((sqrt(area) - 14)^2 / 100 - 0.1)`.
pub fn pool_value(buf: &[f32], boards: usize, area: usize, c: usize, out: &mut [f32]) {
    let from_14 = (area as f32).sqrt() - 14.0;
    let scale = from_14 * from_14 * 0.01 - 0.1;
    for b in 0..boards {
        let board = &buf[b * area * c..(b + 1) * area * c];
        let o = &mut out[b * 3 * c..(b + 1) * 3 * c];
        means(board, area, c, o);
        for i in 0..c {
            o[2 * c + i] = o[i] * scale;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-6 * (1.0 + b.abs())
    }

    #[test]
    fn activations_match_their_formulas() {
        assert_eq!(activate(Activation::Identity, -2.5), -2.5);
        assert_eq!(activate(Activation::Relu, -2.5), 0.0);
        assert_eq!(activate(Activation::Relu, 2.5), 2.5);
        // mish(1) = tanh(ln(1 + e)) = 0.865098...; mish(-1) = -tanh(ln(1 + 1/e)) = -0.303401...
        assert!(close(activate(Activation::Mish, 1.0), 0.865_098_4));
        assert!(close(activate(Activation::Mish, -1.0), -0.303_401_4));
        // Above 20 softplus is linear: mish(30) = 30 * tanh(30) = 30.
        assert!(close(activate(Activation::Mish, 30.0), 30.0));
        // silu(1) = 1 / (1 + 1/e) = 0.731058...; silu(-2) = -2 / (1 + e^2) = -0.238405...
        assert!(close(activate(Activation::Silu, 1.0), 0.731_058_6));
        assert!(close(activate(Activation::Silu, -2.0), -0.238_405_8));
    }

    #[test]
    fn norm_act_scales_shifts_and_activates_per_channel() {
        let norm = NormAct {
            scale: vec![2.0, -1.0],
            bias: vec![1.0, 0.5],
            act: Activation::Relu,
        };
        let src = [1.0, 1.0, -3.0, -3.0];
        let mut dst = [0.0; 4];
        norm_act(&src, &norm, &mut dst);
        assert_eq!(dst, [3.0, 0.0, 0.0, 3.5]);
        let mut buf = [1.0, 2.0, 3.0, 4.0];
        bias_act(&mut buf, &[-2.0, 0.0], Activation::Identity);
        assert_eq!(buf, [-1.0, 2.0, 1.0, 4.0]);
        let mut boards = [0.0; 8];
        add_per_board(&mut boards, &[1.0, 2.0, 3.0, 4.0], 2, 2);
        assert_eq!(boards, [1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
    }

    #[test]
    fn pooling_gives_means_scaled_by_board_size_and_max() {
        // A 2x2 board (sqrt(area) = 2, so (sqrt - 14) / 10 = -1.2), two channels.
        let buf = [1.0, -3.0, 2.0, -2.0, 3.0, -5.0, 6.0, -2.0];
        let mut out = [0.0; 6];
        pool(&buf, 1, 4, 2, &mut out);
        // Means 3 and -3; max of channel 1 is -1 (the floor), not -2.
        let expected = [3.0, -3.0, -3.6, 3.6, 6.0, -1.0];
        for (o, e) in out.iter().zip(expected) {
            assert!(close(*o, e), "{out:?}");
        }
        pool_value(&buf, 1, 4, 2, &mut out);
        // (sqrt - 14)^2 / 100 - 0.1 = 1.34.
        let expected = [3.0, -3.0, -3.6, 3.6, 4.02, -4.02];
        for (o, e) in out.iter().zip(expected) {
            assert!(close(*o, e), "{out:?}");
        }
        // 19x19: (19 - 14) / 10 = 0.5, 0.25 - 0.1 = 0.15; two boards pooled apart.
        let mut two = vec![1.0; 361];
        two.extend(vec![2.0; 361]);
        let mut out = [0.0; 6];
        pool_value(&two, 2, 361, 1, &mut out);
        let expected = [1.0, 0.5, 0.15, 2.0, 1.0, 0.3];
        for (o, e) in out.iter().zip(expected) {
            assert!(close(*o, e), "{out:?}");
        }
    }
}
