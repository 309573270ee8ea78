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

/// Where a matrix lies in its slice: element `(r, c)` at `r * row_step + c * col_step`.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub rows: usize,
    pub cols: usize,
    pub row_step: usize,
    pub col_step: usize,
}

impl Layout {
    /// A row-major `rows x cols` matrix whose rows lie `row_step` apart.
    pub fn rows(rows: usize, cols: usize, row_step: usize) -> Layout {
        Layout {
            rows,
            cols,
            row_step,
            col_step: 1,
        }
    }

    /// The slice length the matrix needs.
    fn span(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.rows - 1) * self.row_step + (self.cols - 1) * self.col_step + 1
        }
    }
}

/// `out = scale * a * b` for matrices laid out in their slices as `al`, `bl` and `ol` say (a
/// head of attention reads its columns out of all heads' rows, and writes its own).
pub fn matmul_laid_out(
    a: &[f32],
    al: Layout,
    b: &[f32],
    bl: Layout,
    out: &mut [f32],
    ol: Layout,
    scale: f32,
) {
    assert!(al.cols == bl.rows && ol.rows == al.rows && ol.cols == bl.cols);
    assert!(a.len() >= al.span() && b.len() >= bl.span() && out.len() >= ol.span());
    if ol.rows == 0 || ol.cols == 0 {
        return;
    }
    // SAFETY: every element the layouts address lies within its slice (asserted above); `out`
    // does not alias `a` or `b` (a `&mut`). Distinct elements of `out` have distinct
    // addresses when its steps do not overlap, which the callers' layouts keep.
    unsafe {
        gemm::gemm(
            ol.rows,
            ol.cols,
            al.cols,
            out.as_mut_ptr(),
            ol.col_step as isize,
            ol.row_step as isize,
            false,
            a.as_ptr(),
            al.col_step as isize,
            al.row_step as isize,
            b.as_ptr(),
            bl.col_step as isize,
            bl.row_step as isize,
            0.0,
            scale,
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

    #[test]
    fn laid_out_matmul_reads_and_writes_strided_matrices() {
        // a = [1 2; 3 4] as columns 1-2 of rows 3 wide; b = [5 6; 7 8] stored transposed.
        let a = [9.0, 1.0, 2.0, 9.0, 3.0, 4.0];
        let b = [5.0, 7.0, 6.0, 8.0];
        let mut out = [0.0; 6];
        matmul_laid_out(
            &a[1..],
            Layout::rows(2, 2, 3),
            &b,
            Layout {
                rows: 2,
                cols: 2,
                row_step: 1,
                col_step: 2,
            },
            &mut out,
            Layout::rows(2, 2, 3),
            0.5,
        );
        assert_eq!(out, [9.5, 11.0, 0.0, 21.5, 25.0, 0.0]);
    }
}
