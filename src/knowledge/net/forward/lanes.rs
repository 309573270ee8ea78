//! Elementwise kernels written so that the compiler turns them into vector instructions: eight
//! accumulators instead of one (a sum in order cannot be vectorized), and an exponential made of
//! adds, multiplies and bit shifts instead of a call to the C library's `expf`. The attention
//! blocks' softmax over every pair of points, and their SwiGLU, spend most of their time here.
//! Each public kernel runs a copy compiled for AVX2 where the processor has it (with
//! `TENGEN_SIMD=baseline` it never does), else the x86-64 baseline's; the two give the same
//! numbers.

use std::sync::OnceLock;

/// The lanes kept apart: two 128-bit or one 256-bit register.
const LANES: usize = 8;

/// e^x to within about 2 units in the last place (Cephes' `expf`: x = n ln 2 + r with
/// |r| <= ln 2 / 2, e^r by its degree-7 Taylor-like polynomial, 2^n put in the exponent's bits);
/// inputs are clamped to [-87.3, 88], where `f32` holds e^x as a normal number.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding 1.5 * 2^23 rounds to the nearest integer, which then lies in the low bits.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 88.0);
    let shifted = x * LOG2E + ROUND;
    let n_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    let n = shifted - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let e_r = p * r * r + r + 1.0;
    e_r * f32::from_bits(n_bits.wrapping_add(127) << 23)
}

/// Mish, `x * tanh(softplus(x))`, as `x * n / (n + 2)` with `n = e^x (e^x + 2)` (the same
/// function: tanh(ln(1 + e^x)) written out); above 20 it is `x`, as in KataGo's Eigen backend.
#[inline(always)]
pub fn mish(x: f32) -> f32 {
    let e = exp(x.min(20.0));
    let n = e * (e + 2.0);
    x * n / (n + 2.0)
}

/// SiLU, `x / (1 + e^-x)`.
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    x / (1.0 + exp(-x))
}

/// The sum of `f(v)` over `values`, in eight lanes.
#[inline(always)]
fn sum_by(values: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest: f32 = chunks.remainder().iter().map(|&v| f(v)).sum();
    for chunk in chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane += f(v);
        }
    }
    lanes.iter().sum::<f32>() + rest
}

#[inline(always)]
fn sum_of_squares_body(values: &[f32]) -> f32 {
    sum_by(values, |v| v * v)
}

/// Whether the kernels may use AVX2 and FMA: the processor has them, and `TENGEN_SIMD` is not
/// `baseline`.
pub(super) fn avx2() -> bool {
    static AVX2: OnceLock<bool> = OnceLock::new();
    *AVX2.get_or_init(|| {
        let asked = std::env::var("TENGEN_SIMD").map_or(true, |v| v != "baseline");
        #[cfg(target_arch = "x86_64")]
        {
            asked && is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = asked;
            false
        }
    })
}

/// Defines `pub fn $name` running `$body` (an `#[inline(always)]` function) compiled for AVX2
/// where [`avx2`] allows, else as compiled for the baseline.
macro_rules! dispatched {
    ($(#[$doc:meta])* $name:ident, $avx2:ident, $body:ident, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if $crate::knowledge::net::forward::lanes::avx2() {
                // SAFETY: the processor has AVX2 and FMA (checked by `avx2`).
                return unsafe { $avx2($($arg),*) };
            }
            $body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2($($arg: $ty),*) $(-> $ret)? {
            $body($($arg),*)
        }
    };
}
pub(super) use dispatched;

dispatched!(
    /// Turns `row` into its softmax: `e^(v - max) / sum`.
    softmax, softmax_avx2, softmax_body, (row: &mut [f32])
);
dispatched!(
    /// `a = silu(a) * b`, SwiGLU's gate.
    silu_times, silu_times_avx2, silu_times_body, (a: &mut [f32], b: &[f32])
);
dispatched!(
    /// The sum of the squares of `values`.
    sum_of_squares, sum_of_squares_avx2, sum_of_squares_body, (values: &[f32]) -> f32
);

#[inline(always)]
fn softmax_body(row: &mut [f32]) {
    let mut lanes = [f32::MIN; LANES];
    let chunks = row.chunks_exact(LANES);
    let mut max = chunks
        .remainder()
        .iter()
        .fold(f32::MIN, |m, &v| if v > m { v } else { m });
    for chunk in chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane = if v > *lane { v } else { *lane };
        }
    }
    for lane in lanes {
        max = max.max(lane);
    }
    for v in row.iter_mut() {
        *v = exp(*v - max);
    }
    let inv = 1.0 / sum_by(row, |v| v);
    for v in row.iter_mut() {
        *v *= inv;
    }
}

#[inline(always)]
fn silu_times_body(a: &mut [f32], b: &[f32]) {
    for (a, &b) in a.iter_mut().zip(b) {
        *a = silu(*a) * b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_a_few_units_in_the_last_place() {
        let mut worst = 0.0f64;
        for i in -8700..=8800 {
            let x = i as f32 * 0.01;
            let want = (x as f64).exp();
            let got = exp(x) as f64;
            worst = worst.max((got - want).abs() / want);
        }
        assert!(worst < 3e-7, "largest relative error {worst:e}");
        // Far outside the clamp, the ends: almost 0, and large but finite.
        assert!(exp(-1000.0) < 1e-37 && exp(-1000.0) >= 0.0);
        assert!(exp(1000.0).is_finite() && exp(1000.0) > 1e38);
    }

    /// The copy compiled for AVX2 (where this processor has it) and the baseline's give the
    /// same numbers: the compiler does not fuse a multiply and an add unasked.
    #[test]
    fn the_avx2_and_baseline_copies_agree() {
        let values: Vec<f32> = (0..1003).map(|i| (i as f32 * 0.731).sin() * 30.0).collect();
        let (mut fast, mut base) = (values.clone(), values.clone());
        softmax(&mut fast);
        softmax_body(&mut base);
        assert_eq!(fast, base);
        assert_eq!(sum_of_squares(&values), sum_of_squares_body(&values));
        let (mut fast, mut base) = (values.clone(), values.clone());
        silu_times(&mut fast, &values);
        silu_times_body(&mut base, &values);
        assert_eq!(fast, base);
    }

    #[test]
    fn mish_and_silu_are_their_definitions() {
        for i in -3000..=3000 {
            let x = i as f64 * 0.01;
            let mish = x * (x.exp().ln_1p()).tanh();
            let silu = x / (1.0 + (-x).exp());
            let near = |got: f32, want: f64| (got as f64 - want).abs() <= 1e-6 * (1.0 + want.abs());
            assert!(near(super::mish(x as f32), mish), "mish({x})");
            assert!(near(super::silu(x as f32), silu), "silu({x})");
        }
        assert_eq!(super::mish(100.0), 100.0);
        assert!(super::mish(-100.0).abs() < 1e-30);
    }

    #[test]
    fn softmax_and_sums_agree_with_their_definitions() {
        let values: Vec<f32> = (0..21).map(|i| (i as f32 * 0.37).sin() * 5.0).collect();
        let want: f32 = values.iter().map(|v| v * v).sum();
        assert!((sum_of_squares(&values) - want).abs() < 1e-5 * want);
        let mut row = values.clone();
        softmax(&mut row);
        let max = values.iter().cloned().fold(f32::MIN, f32::max);
        let total: f64 = values.iter().map(|&v| ((v - max) as f64).exp()).sum();
        for (&v, &p) in values.iter().zip(&row) {
            let want = ((v - max) as f64).exp() / total;
            assert!((p as f64 - want).abs() < 1e-6, "{p} against {want}");
        }
        let mut a = [1.0, -2.0];
        silu_times(&mut a, &[2.0, 3.0]);
        let silu = |x: f32| x / (1.0 + (-x).exp());
        assert!((a[0] - 2.0 * silu(1.0)).abs() < 1e-6 && (a[1] - 3.0 * silu(-2.0)).abs() < 1e-6);
    }
}
