//! Go ranks, 30 kyu to 5 dan, and how a player of a rank is modelled: how many of the legal
//! moves it weighs (the more, the stronger), when it plays the obvious move anyway, and when it
//! resigns. The numbers are KaTrain's calibrated-rank formulas (fitted to human games with
//! KataGo's policy), rewritten here; the rank levels' player is `player::ranked`.

use std::fmt;
use std::str::FromStr;

/// A rank: kyu grades count down from 30 to 1, then dan grades up from 1 to 5; a stronger
/// rank is the greater. Held as one number, `kyu`: 30 for 30k, 1 for 1k, 0 for 1d, -4 for 5d
/// (KaTrain's `kyu_rank`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rank {
    /// Grades below 1 dan, negative above it.
    kyu: i32,
}

/// The weakest rank taken.
pub const WEAKEST_KYU: i32 = 30;
/// The strongest rank taken: 5 dan.
pub const STRONGEST_DAN: i32 = 5;

/// The known net (`tengen net get g170-b6c96`) the rank levels are calibrated with: its policy
/// is the model of human moves, and a 19x19 move takes it well under 50 ms.
pub const CALIBRATED_NET: &str = "g170-b6c96";

/// How many grades above its name a rank weighs its moves as, in KaTrain's formula: with
/// g170-b6c96, the formula's ranks played about four grades weaker than their names against
/// GNU Go 3.8 level 10 (about 8k, the estimate KaTrain's calibration started from).
pub const GRADES_ABOVE_FORMULA: i32 = 4;

/// The ranks of the built-in rank levels, weakest first.
pub const BUILTIN_RANKS: [&str; 10] = [
    "20k", "15k", "12k", "10k", "8k", "6k", "4k", "2k", "1d", "3d",
];

impl Rank {
    /// The rank `kyu` grades below 1 dan (negative: above).
    fn from_kyu(kyu: i32) -> Rank {
        Rank { kyu }
    }

    /// How many of the `legal` moves (passes and own eyes left out) on a board of `points`
    /// points a player of this rank weighs before playing the best of them: KaTrain's
    /// calibrated count for the rank [`GRADES_ABOVE_FORMULA`] grades up.
    /// On an empty 19x19 board: 20 at 20k, 68 at 10k, 149 at 1d.
    pub fn moves_weighed(self, points: usize, legal: usize) -> usize {
        if points == 0 || legal == 0 {
            return 1;
        }
        let kyu = f64::from(self.kyu - GRADES_ABOVE_FORMULA);
        let points = points as f64;
        let share = legal as f64 / points;
        // The average policy rank of the move played, fitted on human games, and its
        // correction for how full the board is.
        let played_rank = 0.063015 + 0.7624 * points / 10f64.powf(1.9482 - 0.05737 * kyu);
        let fill = 3.002 * share * share - share - 0.034889 * kyu - 0.5097;
        let corrected =
            (0.3931 + 0.6559 * share * (-fill * fill).exp() - 0.01093 * kyu) * played_rank;
        let weighed = points * share / (1.31165 * (corrected + 1.0) - 0.082653);
        (weighed.round() as usize).clamp(1, legal)
    }

    /// Above which policy the top move is played whatever the draw, on a board where `legal`
    /// of `points` points are open: 80% on an empty board, falling to 40% on a full one.
    pub fn obvious_move(points: usize, legal: usize) -> f32 {
        let filled = points.saturating_sub(legal) as f32 / points.max(1) as f32;
        0.8 * (1.0 - 0.5 * filled)
    }

    /// Above which summed policy of the two top moves the top one is played whatever the
    /// draw: 85% from 8k up, more below (a weaker player misses more of the obvious).
    pub fn obvious_pair(self) -> f32 {
        0.85 + 0.02 * (self.kyu - 8).max(0) as f32
    }

    /// The first move number at which a player of this rank may resign a game on a board of
    /// `points` points: two thirds of the board's points (240 on 19x19, 54 on 9x9), late
    /// enough that a person would have seen the game out that far.
    pub fn may_resign_from(points: usize) -> usize {
        points * 2 / 3
    }

    /// How many points behind a player of this rank resigns (past
    /// [`Rank::may_resign_from`], and only when also below [`RESIGN_WIN_RATE`]): 20 points
    /// from 1 dan up, a point more for each kyu grade (40 at 20k), as weaker players play on
    /// further behind. On a board of `points` points, scaled from 19x19's 361.
    pub fn resigns_behind(self, points: usize) -> f32 {
        let at_19 = 20.0 + self.kyu.max(0) as f32;
        at_19 * points as f32 / 361.0
    }
}

/// The win rate below which a rank level may resign (with the lead of
/// [`Rank::resigns_behind`]).
pub const RESIGN_WIN_RATE: f32 = 0.03;

impl Ord for Rank {
    fn cmp(&self, other: &Rank) -> std::cmp::Ordering {
        other.kyu.cmp(&self.kyu)
    }
}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Rank) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kyu > 0 {
            write!(f, "{}k", self.kyu)
        } else {
            write!(f, "{}d", 1 - self.kyu)
        }
    }
}

impl FromStr for Rank {
    type Err = String;

    /// `7k`, `7kyu`, `2d`, `2dan` (any case): from 30k to 5d.
    fn from_str(text: &str) -> Result<Rank, String> {
        let lower = text.trim().to_ascii_lowercase();
        let digits = lower.chars().take_while(char::is_ascii_digit).count();
        let (number, grade) = lower.split_at(digits);
        let bad = || {
            format!(
                "must be a rank from {WEAKEST_KYU}k to {STRONGEST_DAN}d (such as 7k or 2d), not {text:?}"
            )
        };
        let number: i32 = number.parse().map_err(|_| bad())?;
        match grade {
            "k" | "kyu" if (1..=WEAKEST_KYU).contains(&number) => Ok(Rank::from_kyu(number)),
            "d" | "dan" if (1..=STRONGEST_DAN).contains(&number) => Ok(Rank::from_kyu(1 - number)),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(text: &str) -> Rank {
        text.parse().expect(text)
    }

    #[test]
    fn ranks_read_and_print_from_30k_to_5d() {
        for text in ["30k", "7k", "1k", "1d", "3d", "5d"] {
            assert_eq!(rank(text).to_string(), text);
        }
        assert_eq!(rank(" 7KYU "), rank("7k"));
        assert_eq!(rank("2dan"), rank("2d"));
        for bad in [
            "25d", "0k", "31k", "0d", "6d", "k", "7", "7p", "-1k", "1.5k", "", "1d1",
        ] {
            let err = bad.parse::<Rank>().unwrap_err();
            assert!(err.contains("rank from 30k to 5d"), "{bad}: {err}");
        }
        assert!(rank("1d") > rank("1k") && rank("1k") > rank("2k") && rank("5d") > rank("4d"));
    }

    #[test]
    fn a_stronger_rank_weighs_more_moves() {
        // On an empty 19x19 board, as KaTrain's formula gives them four grades up (16k,
        // 6k, 4d, 26k).
        assert_eq!(rank("20k").moves_weighed(361, 361), 20);
        assert_eq!(rank("10k").moves_weighed(361, 361), 68);
        assert_eq!(rank("1d").moves_weighed(361, 361), 149);
        assert_eq!(rank("30k").moves_weighed(361, 361), 5);
        for (points, legal) in [(361, 361), (361, 200), (361, 40), (81, 81), (81, 30)] {
            let mut last = 0;
            for text in ["30k", "20k", "12k", "8k", "4k", "1k", "1d", "3d", "5d"] {
                let n = rank(text).moves_weighed(points, legal);
                assert!(
                    n >= last && n >= 1 && n <= legal,
                    "{text} {points} {legal}: {n}"
                );
                last = n;
            }
        }
        assert_eq!(rank("5d").moves_weighed(361, 0), 1);
    }

    #[test]
    fn the_obvious_move_and_resignation_thresholds() {
        assert_eq!(Rank::obvious_move(361, 361), 0.8);
        assert!((Rank::obvious_move(361, 0) - 0.4).abs() < 1e-6);
        assert_eq!(rank("8k").obvious_pair(), 0.85);
        assert!((rank("20k").obvious_pair() - 1.09).abs() < 1e-6);
        assert_eq!(Rank::may_resign_from(361), 240);
        assert_eq!(rank("1d").resigns_behind(361), 20.0);
        assert_eq!(rank("20k").resigns_behind(361), 40.0);
        assert!(rank("3d").resigns_behind(81) < rank("3d").resigns_behind(361));
    }
}
