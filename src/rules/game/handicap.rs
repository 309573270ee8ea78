//! Handicap placement: the GTP spec's fixed layouts and a free placement for any count.

use std::fmt;

use crate::rules::board::Point;

/// A handicap count the layout cannot provide.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HandicapError;

impl fmt::Display for HandicapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid number of stones")
    }
}

impl std::error::Error for HandicapError {}

/// The most stones `fixed_handicap` places on a board of `size`: none below 7x7, 4 on 7x7 and
/// even sizes, 9 on odd sizes from 9x9 (as the GTP spec and GNU Go have it).
pub fn max_fixed_handicap(size: usize) -> usize {
    match size {
        0..7 => 0,
        7 => 4,
        s if s % 2 == 0 => 4,
        _ => 9,
    }
}

/// The GTP spec's fixed handicap layout of `n` stones on a board of `size`.
pub fn fixed_handicap_points(size: usize, n: usize) -> Result<Vec<Point>, HandicapError> {
    if n < 2 || n > max_fixed_handicap(size) {
        return Err(HandicapError);
    }
    let line = if size >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (line, size - 1 - line, size / 2);
    let at = |col, row| Point::new(size, col, row);
    let corners = [at(lo, lo), at(hi, hi), at(lo, hi), at(hi, lo)];
    let sides = [at(lo, mid), at(hi, mid), at(mid, lo), at(mid, hi)];
    let mut points: Vec<Point> = corners.iter().take(n.min(4)).copied().collect();
    let side_count = match n {
        6 | 7 => 2,
        8 | 9 => 4,
        _ => 0,
    };
    points.extend(&sides[..side_count]);
    if n % 2 == 1 && n >= 5 {
        points.push(at(mid, mid));
    }
    Ok(points)
}

/// `n` handicap stones spread over a board of `size` (2 ≤ n < size²): the fixed layout where
/// it has `n` stones, else that layout grown by the points farthest from every stone, keeping
/// off the first lines while room remains.
pub fn free_handicap_points(size: usize, n: usize) -> Result<Vec<Point>, HandicapError> {
    if n < 2 || n >= size * size {
        return Err(HandicapError);
    }
    if n <= max_fixed_handicap(size) {
        return fixed_handicap_points(size, n);
    }
    let mut chosen = fixed_handicap_points(size, max_fixed_handicap(size)).unwrap_or_default();
    let line = if size >= 13 { 3 } else { 2 };
    let center = (size as i64 - 1) * 2; // twice the centre coordinate, to stay integral
    while chosen.len() < n {
        let best = (0..size)
            .flat_map(|row| (0..size).map(move |col| (col, row)))
            .map(|(col, row)| (col, row, Point::new(size, col, row)))
            .filter(|(_, _, p)| !chosen.contains(p))
            .max_by_key(|&(col, row, _)| {
                let edge = col.min(row).min(size - 1 - col).min(size - 1 - row);
                let spread = chosen
                    .iter()
                    .map(|q| {
                        let (qc, qr) = q.coords(size);
                        let (dc, dr) = (col as i64 - qc as i64, row as i64 - qr as i64);
                        dc * dc + dr * dr
                    })
                    .min()
                    .unwrap_or(i64::MAX);
                let (cc, cr) = (2 * col as i64 - center / 2, 2 * row as i64 - center / 2);
                (edge >= line.min(size / 2), spread, -(cc * cc + cr * cr))
            });
        match best {
            Some((_, _, p)) => chosen.push(p),
            None => return Err(HandicapError),
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertices(size: usize, points: &[Point]) -> Vec<String> {
        let mut v: Vec<String> = points.iter().map(|p| p.to_vertex(size)).collect();
        v.sort();
        v
    }

    fn sorted(list: &str) -> Vec<String> {
        let mut v: Vec<String> = list.split_whitespace().map(String::from).collect();
        v.sort();
        v
    }

    #[test]
    fn fixed_layouts_match_gnu_go() {
        // Answers of `gnugo --mode gtp` 3.8, the GTP reference implementation.
        let cases = [
            (19, 2, "Q16 D4"),
            (19, 3, "D16 Q16 D4"),
            (19, 4, "D16 Q16 D4 Q4"),
            (19, 5, "D16 Q16 K10 D4 Q4"),
            (19, 6, "D16 Q16 D10 Q10 D4 Q4"),
            (19, 7, "D16 Q16 D10 K10 Q10 D4 Q4"),
            (19, 8, "D16 K16 Q16 D10 Q10 D4 K4 Q4"),
            (19, 9, "D16 K16 Q16 D10 K10 Q10 D4 K4 Q4"),
            (7, 4, "C5 E5 C3 E3"),
            (8, 4, "C6 F6 C3 F3"),
            (9, 5, "C7 G7 E5 C3 G3"),
            (9, 9, "C7 E7 G7 C5 E5 G5 C3 E3 G3"),
            (10, 4, "C8 H8 C3 H3"),
            (13, 9, "D10 G10 K10 D7 G7 K7 D4 G4 K4"),
        ];
        for (size, n, expected) in cases {
            let points = fixed_handicap_points(size, n).unwrap();
            assert_eq!(
                vertices(size, &points),
                sorted(expected),
                "{size}x{size} {n}"
            );
        }
    }

    #[test]
    fn fixed_refuses_what_the_spec_does_not_define() {
        assert_eq!(fixed_handicap_points(19, 1), Err(HandicapError));
        assert_eq!(fixed_handicap_points(19, 10), Err(HandicapError));
        assert_eq!(fixed_handicap_points(7, 5), Err(HandicapError));
        assert_eq!(fixed_handicap_points(10, 5), Err(HandicapError));
        assert_eq!(fixed_handicap_points(6, 2), Err(HandicapError));
    }

    #[test]
    fn free_placement_gives_exactly_n_distinct_points() {
        for size in [2, 3, 5, 9, 13, 19] {
            for n in [2, 3, 5, 9, 10, 13, size * size - 1] {
                if n >= size * size {
                    continue;
                }
                let points = free_handicap_points(size, n).unwrap();
                assert_eq!(points.len(), n, "{size} {n}");
                let mut v = vertices(size, &points);
                v.dedup();
                assert_eq!(v.len(), n, "{size} {n}: repeated point");
            }
            assert!(free_handicap_points(size, size * size).is_err());
            assert!(free_handicap_points(size, 1).is_err());
        }
    }
}
