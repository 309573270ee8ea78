//! The match's time control (`--time MAIN+BYO/STONES`, Canadian byo-yomi) and each engine's
//! clock under it.

use std::time::Duration;

use serde::Serialize;

use crate::game::clock::{Seconds, TimeSystem};

/// Main time, then `stones` moves in every byo-yomi period of `period`.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct TimeControl {
    /// Main time in seconds.
    pub main: f64,
    /// Byo-yomi period in seconds (0: none, sudden death).
    pub period: f64,
    /// Stones to play in each period (0 when there is no byo-yomi).
    pub stones: u32,
}

impl TimeControl {
    /// Parses `MAIN`, `MAIN+BYO/STONES` (seconds as GTP's time commands take them, at most a
    /// day: see [`Seconds`]; e.g. `60+10/5`, `0+5/1`).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("--time wants MAIN or MAIN+BYO/STONES in seconds, got `{text}`");
        let seconds = |s: &str| Seconds::parse(s).map(Seconds::get);
        let (main, period, stones) = match text.split_once('+') {
            None => (seconds(text).ok_or_else(bad)?, 0.0, 0),
            Some((main, byo)) => {
                let (period, stones) = byo.split_once('/').ok_or_else(bad)?;
                let stones: u32 = stones.trim().parse().map_err(|_| bad())?;
                let period = seconds(period).ok_or_else(bad)?;
                if (period > 0.0) != (stones > 0) {
                    return Err(bad());
                }
                (seconds(main).ok_or_else(bad)?, period, stones)
            }
        };
        if main == 0.0 && stones == 0 {
            return Err(format!("--time `{text}` gives no time at all"));
        }
        Ok(TimeControl {
            main,
            period,
            stones,
        })
    }

    /// As a clock's time system: absolute time without byo-yomi, else Canadian.
    pub fn system(&self) -> TimeSystem {
        if self.stones == 0 {
            TimeSystem::Absolute { main: self.main }
        } else {
            TimeSystem::Canadian {
                main: self.main,
                period: self.period,
                stones: self.stones,
            }
        }
    }
}

/// One engine's clock in one game.
#[derive(Copy, Clone, Debug)]
pub struct MatchClock {
    control: TimeControl,
    /// Main time left, seconds.
    main_left: f64,
    /// Time left in the current period, seconds (meaningful once main time is spent).
    period_left: f64,
    /// Stones still to play in the current period.
    stones_left: u32,
}

impl MatchClock {
    /// A fresh clock.
    pub fn new(control: TimeControl) -> MatchClock {
        MatchClock {
            control,
            main_left: control.main,
            period_left: control.period,
            stones_left: control.stones,
        }
    }

    /// What `time_left` reports: seconds and stones (0 stones while in main time).
    pub fn time_left(&self) -> (u64, u32) {
        if self.main_left > 0.0 {
            (self.main_left as u64, 0)
        } else {
            (self.period_left as u64, self.stones_left)
        }
    }

    /// The most this move may take.
    pub fn available(&self) -> Duration {
        let byo = if self.control.stones > 0 {
            self.period_left
        } else {
            0.0
        };
        Duration::from_secs_f64(self.main_left + byo)
    }

    /// Charges a move that took `elapsed`; false when that ran past the time available.
    pub fn spend(&mut self, elapsed: Duration) -> bool {
        let mut used = elapsed.as_secs_f64();
        if self.main_left > 0.0 {
            let from_main = used.min(self.main_left);
            self.main_left -= from_main;
            used -= from_main;
            if used == 0.0 {
                return true;
            }
        }
        if self.control.stones == 0 || used > self.period_left {
            return false;
        }
        self.period_left -= used;
        self.stones_left -= 1;
        if self.stones_left == 0 {
            self.period_left = self.control.period;
            self.stones_left = self.control.stones;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_absolute_and_canadian_time() {
        let t = TimeControl::parse("60+10/5").unwrap();
        assert_eq!((t.main, t.period, t.stones), (60.0, 10.0, 5));
        assert_eq!(
            t.system(),
            TimeSystem::Canadian {
                main: 60.0,
                period: 10.0,
                stones: 5
            }
        );
        let t = TimeControl::parse("300").unwrap();
        assert_eq!((t.main, t.period, t.stones), (300.0, 0.0, 0));
        assert_eq!(t.system(), TimeSystem::Absolute { main: 300.0 });
        assert!(TimeControl::parse("0+5/1").is_ok());
        for bad in [
            "", "x", "60+10", "60+10/0", "60+0/5", "0", "-5", "60+10/x", "1e99",
        ] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn main_time_runs_into_byo_yomi_periods() {
        let mut clock = MatchClock::new(TimeControl::parse("10+5/2").unwrap());
        assert!(clock.spend(Duration::from_secs(8)));
        assert_eq!(clock.time_left(), (2, 0));
        assert_eq!(clock.available(), Duration::from_secs(7));
        // 2 s of main time, then 2 s of the first period.
        assert!(clock.spend(Duration::from_secs(4)));
        assert_eq!(clock.time_left(), (3, 1));
        // The period's second stone resets it.
        assert!(clock.spend(Duration::from_secs(3)));
        assert_eq!(clock.time_left(), (5, 2));
        assert!(!clock.spend(Duration::from_secs(6)));
    }

    #[test]
    fn sudden_death_ends_with_main_time() {
        let mut clock = MatchClock::new(TimeControl::parse("5").unwrap());
        assert!(clock.spend(Duration::from_secs(5)));
        assert!(!clock.spend(Duration::from_millis(1)));
    }
}
