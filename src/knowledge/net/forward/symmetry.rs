//! KataGo's eight symmetries of the board (`SymmetryHelpers` in `nninputs.cpp`): bit 0 flips
//! the rows (y), bit 1 the columns (x), bit 2 transposes after the flips. The inputs are moved
//! by the symmetry; the policy and ownership come back through its inverse.

/// Where point `p` (`y * size + x`) of the board lands under `symmetry` (0-7).
pub fn transform(symmetry: usize, size: usize, p: usize) -> usize {
    let (mut y, mut x) = (p / size, p % size);
    if symmetry & 1 != 0 {
        y = size - 1 - y;
    }
    if symmetry & 2 != 0 {
        x = size - 1 - x;
    }
    if symmetry & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    y * size + x
}

/// The planes of `src` (plane-major, `channels` planes of `size * size`) moved by `symmetry`
/// into `dst` in NHWC order: `dst[transform(p) * channels + c] = src[c * area + p]`.
pub fn inputs_to_nhwc(src: &[f32], channels: usize, size: usize, symmetry: usize, dst: &mut [f32]) {
    let area = size * size;
    for p in 0..area {
        let q = transform(symmetry, size, p);
        for c in 0..channels {
            dst[q * channels + c] = src[c * area + p];
        }
    }
}

/// One output plane in the net's orientation brought back to the board's:
/// `dst[p] = src[transform(p) * stride + offset]`.
pub fn output_back(
    src: &[f32],
    stride: usize,
    offset: usize,
    size: usize,
    symmetry: usize,
    dst: &mut [f32],
) {
    for (p, d) in dst.iter_mut().enumerate().take(size * size) {
        *d = src[transform(symmetry, size, p) * stride + offset];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// KataGo's `SymmetryHelpers::invert`: 5 and 6 are each other's inverse, the rest their own.
    fn inverse(symmetry: usize) -> usize {
        match symmetry {
            5 => 6,
            6 => 5,
            s => s,
        }
    }

    #[test]
    fn symmetries_move_a_corner_point_as_katago_does() {
        // Point (y=0, x=1) on a 3x3 board under each symmetry, from getSymLoc's definition
        // (flip y, flip x, then transpose).
        let expected = [
            (0, 1),
            (2, 1),
            (0, 1),
            (2, 1),
            (1, 0),
            (1, 2),
            (1, 0),
            (1, 2),
        ];
        for (s, &(y, x)) in expected.iter().enumerate() {
            assert_eq!(transform(s, 3, 1), y * 3 + x, "symmetry {s}");
        }
        // Point (y=0, x=0) goes to each corner in turn.
        let corners: Vec<usize> = (0..8).map(|s| transform(s, 3, 0)).collect();
        assert_eq!(corners, [0, 6, 2, 8, 0, 2, 6, 8]);
    }

    #[test]
    fn each_symmetry_is_a_permutation_undone_by_its_inverse() {
        for size in [1, 2, 5, 9, 19] {
            for s in 0..8 {
                let mut seen = vec![false; size * size];
                for p in 0..size * size {
                    let q = transform(s, size, p);
                    assert!(!seen[q]);
                    seen[q] = true;
                    assert_eq!(
                        transform(inverse(s), size, q),
                        p,
                        "size {size} symmetry {s}"
                    );
                }
            }
        }
    }

    #[test]
    fn outputs_come_back_to_the_inputs_place() {
        // A plane holding each point's index, moved in and brought back, is unchanged.
        let size = 4;
        let plane: Vec<f32> = (0..16).map(|v| v as f32).collect();
        for s in 0..8 {
            let mut nhwc = vec![0.0; 16];
            inputs_to_nhwc(&plane, 1, size, s, &mut nhwc);
            let mut back = vec![0.0; 16];
            output_back(&nhwc, 1, 0, size, s, &mut back);
            assert_eq!(back, plane, "symmetry {s}");
        }
        // Channels interleave in NHWC: two planes, symmetry 0.
        let two: Vec<f32> = (0..8).map(|v| v as f32).collect();
        let mut nhwc = vec![0.0; 8];
        inputs_to_nhwc(&two, 2, 2, 0, &mut nhwc);
        assert_eq!(nhwc, [0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
    }
}
