//! The matrix product that the forward pass rests on, through `gemm`: the heads' dense layers
//! call it, and so does every way of convolving.

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
}
