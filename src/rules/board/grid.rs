//! Per-cell arrays whose indexing cannot branch: the board's hot loops index them with cell
//! numbers the board itself produced, so a bounds check would never fire, yet it costs a
//! compare and a branch on every access. A power-of-two length lets a mask do the job instead.

use std::ops::{Index, IndexMut};

use super::MAX_CELLS;

/// The length of a [`Grid`]: the padded board's cell count rounded up to a power of two.
pub const GRID_CELLS: usize = MAX_CELLS.next_power_of_two();

/// One `T` per cell of the padded board. Indices are reduced modulo [`GRID_CELLS`], which
/// changes none below [`MAX_CELLS`]; debug builds assert that no other index arrives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Grid<T>([T; GRID_CELLS]);

impl<T: Copy> Grid<T> {
    /// A grid holding `value` in every cell.
    pub const fn filled(value: T) -> Grid<T> {
        Grid([value; GRID_CELLS])
    }

    /// Copies the first `used` cells of `src`.
    #[inline]
    pub fn copy_prefix(&mut self, src: &Grid<T>, used: usize) {
        self.0[..used].copy_from_slice(&src.0[..used]);
    }

    /// Exchanges the values of cells `i` and `j`.
    #[inline]
    pub fn swap(&mut self, i: usize, j: usize) {
        let t = self[i];
        self[i] = self[j];
        self[j] = t;
    }
}

impl<T> Index<usize> for Grid<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < MAX_CELLS, "cell {i} outside the board");
        &self.0[i & (GRID_CELLS - 1)]
    }
}

impl<T> IndexMut<usize> for Grid<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < MAX_CELLS, "cell {i} outside the board");
        &mut self.0[i & (GRID_CELLS - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_every_cell_and_copies_a_prefix() {
        let mut a = Grid::filled(0u16);
        for i in 0..MAX_CELLS {
            a[i] = i as u16;
        }
        let mut b = Grid::filled(7u16);
        b.copy_prefix(&a, 10);
        assert_eq!(
            (0..MAX_CELLS).map(|i| a[i] as usize).sum::<usize>(),
            MAX_CELLS * (MAX_CELLS - 1) / 2
        );
        assert_eq!(b[9], 9);
        assert_eq!(b[10], 7);
    }
}
