//! The match's time control (`--time MAIN+BYO/STONES`, Canadian byo-yomi, or
//! `--time MAIN+INCf[,MAX]`, Fischer) and each engine's clock under it.

use std::time::Duration;

use crate::rules::game::clock::{Seconds, TimeSystem};

/// A match's time control.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// Main time, then `stones` moves in every byo-yomi period of `period` (no stones:
    /// sudden death).
    Canadian {
        /// Main time in seconds.
        main: f64,
        /// Byo-yomi period in seconds (0: none, sudden death).
        period: f64,
        /// Stones to play in each period (0 when there is no byo-yomi).
        stones: u32,
    },
    /// Main time, and `increment` more after each move, never more than `max_main` in hand.
    Fischer {
        /// Main time in seconds.
        main: f64,
        /// Seconds added after each move.
        increment: f64,
        /// The most time an engine may hold; `None`: no cap.
        max_main: Option<f64>,
    },
}

impl TimeControl {
    /// Parses `MAIN`, `MAIN+BYO/STONES` (Canadian byo-yomi, e.g. `60+10/5`, `0+5/1`) or
    /// `MAIN+INCf` (Fischer: `INC` seconds added after each move, e.g. `60+5f`) with an
    /// optional cap on the time held, `MAIN+INCf,MAX` (`60+5f,120`); seconds, fractions
    /// allowed, at most a day ([`Seconds::MAX`]).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad = || {
            format!(
                "--time wants MAIN, MAIN+BYO/STONES or MAIN+INCf[,MAX] in seconds, got `{text}`"
            )
        };
        let seconds = |s: &str| Seconds::parse(s).map(Seconds::get);
        let Some((main, rest)) = text.split_once('+') else {
            let main = seconds(text).ok_or_else(bad)?;
            if main == 0.0 {
                return Err(format!("--time `{text}` gives no time at all"));
            }
            return Ok(TimeControl::Canadian {
                main,
                period: 0.0,
                stones: 0,
            });
        };
        let main = seconds(main).ok_or_else(bad)?;
        let (increment, max_main) = match rest.split_once(',') {
            Some((increment, max)) => (increment, Some(max)),
            None => (rest, None),
        };
        if let Some(increment) = increment.trim().strip_suffix('f') {
            let increment = seconds(increment).ok_or_else(bad)?;
            let max_main = max_main
                .map(|max| seconds(max).ok_or_else(bad))
                .transpose()?;
            if main == 0.0 {
                return Err(format!(
                    "--time `{text}` gives no time for the first move (the increment comes after it)"
                ));
            }
            if max_main.is_some_and(|max| max < main) {
                return Err(format!(
                    "--time `{text}` caps the time held below the main time"
                ));
            }
            return Ok(TimeControl::Fischer {
                main,
                increment,
                max_main,
            });
        }
        if max_main.is_some() {
            return Err(bad());
        }
        let (period, stones) = rest.split_once('/').ok_or_else(bad)?;
        let stones: u32 = stones.trim().parse().map_err(|_| bad())?;
        let period = seconds(period).ok_or_else(bad)?;
        if (period > 0.0) != (stones > 0) {
            return Err(bad());
        }
        if main == 0.0 && stones == 0 {
            return Err(format!("--time `{text}` gives no time at all"));
        }
        Ok(TimeControl::Canadian {
            main,
            period,
            stones,
        })
    }

    /// As a clock's time system: absolute time without byo-yomi, else Canadian; Fischer as
    /// such, with no cap on a move.
    pub fn system(&self) -> TimeSystem {
        match *self {
            TimeControl::Canadian {
                main, stones: 0, ..
            } => TimeSystem::Absolute { main },
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => TimeSystem::Canadian {
                main,
                period,
                stones,
            },
            TimeControl::Fischer {
                main,
                increment,
                max_main,
            } => TimeSystem::Fischer {
                main,
                increment,
                max_main,
                max_move: None,
            },
        }
    }

    /// Main time in seconds.
    fn main(&self) -> f64 {
        match *self {
            TimeControl::Canadian { main, .. } | TimeControl::Fischer { main, .. } => main,
        }
    }
}

/// How far an engine's moves may run past its clock, all of a game's overruns together,
/// before it loses on time: the pipes and a loaded machine's scheduling are not its thinking.
const GRACE_SECONDS: f64 = 1.0;

/// One engine's clock in one game.
#[derive(Copy, Clone, Debug)]
pub struct MatchClock {
    control: TimeControl,
    /// Main time left (under Fischer, the time in hand), seconds.
    main_left: f64,
    /// Time left in the current period, seconds (meaningful once main time is spent).
    period_left: f64,
    /// Stones still to play in the current period.
    stones_left: u32,
    /// What is left of the game's grace ([`GRACE_SECONDS`]), seconds.
    grace_left: f64,
}

impl MatchClock {
    /// A fresh clock.
    pub fn new(control: TimeControl) -> MatchClock {
        let (period, stones) = match control {
            TimeControl::Canadian { period, stones, .. } => (period, stones),
            TimeControl::Fischer { .. } => (0.0, 0),
        };
        MatchClock {
            control,
            main_left: control.main(),
            period_left: period,
            stones_left: stones,
            grace_left: GRACE_SECONDS,
        }
    }

    /// What `time_left` reports: seconds and stones (0 stones while in main time, and always
    /// under Fischer).
    pub fn time_left(&self) -> (f64, u32) {
        if self.main_left > 0.0 || matches!(self.control, TimeControl::Fischer { .. }) {
            (self.main_left, 0)
        } else {
            (self.period_left, self.stones_left)
        }
    }

    /// The most this move may take before it is lost on time: its clock's time and what is
    /// left of the grace.
    pub fn limit(&self) -> Duration {
        Duration::from_secs_f64(self.available_seconds() + self.grace_left)
    }

    /// The clock's time for this move, seconds.
    fn available_seconds(&self) -> f64 {
        let byo = match self.control {
            TimeControl::Canadian { stones, .. } if stones > 0 => self.period_left,
            _ => 0.0,
        };
        self.main_left + byo
    }

    /// Charges a move that took `elapsed` (and under Fischer adds the increment); false when
    /// that ran past the clock by more than is left of the grace. An overrun within it uses
    /// that much of the grace, and the move is charged the time there was.
    pub fn spend(&mut self, elapsed: Duration) -> bool {
        let available = self.available_seconds();
        let elapsed = elapsed.as_secs_f64();
        let overrun = (elapsed - available).max(0.0);
        if overrun > self.grace_left {
            return false;
        }
        self.grace_left -= overrun;
        let mut used = elapsed.min(available);
        match self.control {
            TimeControl::Fischer {
                increment,
                max_main,
                ..
            } => {
                let in_hand = (self.main_left - used).max(0.0) + increment;
                self.main_left = max_main.map_or(in_hand, |max| in_hand.min(max));
            }
            TimeControl::Canadian { period, stones, .. } => {
                if self.main_left > 0.0 {
                    let from_main = used.min(self.main_left);
                    self.main_left -= from_main;
                    used -= from_main;
                    if used == 0.0 {
                        return true;
                    }
                }
                // Past main time a move counts a stone of the period (without periods, no
                // time was left past main time, so nothing is charged).
                if stones > 0 {
                    self.period_left = (self.period_left - used).max(0.0);
                    self.stones_left -= 1;
                    if self.stones_left == 0 {
                        self.period_left = period;
                        self.stones_left = stones;
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_absolute_canadian_and_fischer_time() {
        let t = TimeControl::parse("60+10/5").unwrap();
        let canadian = TimeSystem::Canadian {
            main: 60.0,
            period: 10.0,
            stones: 5,
        };
        assert_eq!(t.system(), canadian);
        let t = TimeControl::parse("300").unwrap();
        assert_eq!(t.system(), TimeSystem::Absolute { main: 300.0 });
        assert!(TimeControl::parse("0+5/1").is_ok());
        let fischer = |main, increment, max_main| TimeSystem::Fischer {
            main,
            increment,
            max_main,
            max_move: None,
        };
        let t = TimeControl::parse("60+5f").unwrap();
        assert_eq!(t.system(), fischer(60.0, 5.0, None));
        let t = TimeControl::parse("2.5+0.5f,4").unwrap();
        assert_eq!(t.system(), fischer(2.5, 0.5, Some(4.0)));
        assert!(TimeControl::parse("60+0f").is_ok());
        for bad in [
            "",
            "x",
            "60+10",
            "60+10/0",
            "60+0/5",
            "0",
            "-5",
            "60+10/x",
            "1e99",
            "0+5f",
            "60+5f,30",
            "60+5f,",
            "60+-5f",
            "60+5ff",
            "60+5/1,90",
            "60+f",
            "60+5f,1e99",
        ] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    /// A Fischer clock loses on time only when a move takes more than is in hand and what is
    /// left of the grace; the increment comes after the move, up to the cap.
    #[test]
    fn fischer_adds_the_increment_after_each_move_up_to_the_cap() {
        let mut clock = MatchClock::new(TimeControl::parse("10+2f,11").unwrap());
        assert_eq!(clock.limit(), Duration::from_secs(11));
        assert!(clock.spend(Duration::from_secs(4)));
        assert_eq!(clock.time_left(), (8.0, 0));
        assert!(clock.spend(Duration::ZERO));
        assert_eq!(clock.time_left(), (10.0, 0));
        assert!(clock.spend(Duration::ZERO));
        assert_eq!(clock.time_left(), (11.0, 0));
        assert!(clock.spend(Duration::from_secs(11)));
        assert_eq!(clock.time_left(), (2.0, 0));
        // Half a second over: charged the two seconds there were, half the grace used.
        assert!(clock.spend(Duration::from_millis(2500)));
        assert_eq!(clock.time_left(), (2.0, 0));
        assert_eq!(clock.limit(), Duration::from_millis(2500));
        assert!(!clock.spend(Duration::from_millis(2600)));
    }

    #[test]
    fn main_time_runs_into_byo_yomi_periods() {
        let mut clock = MatchClock::new(TimeControl::parse("10+5/2").unwrap());
        assert!(clock.spend(Duration::from_secs(8)));
        assert_eq!(clock.time_left(), (2.0, 0));
        assert_eq!(clock.limit(), Duration::from_secs(8));
        // 2 s of main time, then 2 s of the first period.
        assert!(clock.spend(Duration::from_secs(4)));
        assert_eq!(clock.time_left(), (3.0, 1));
        // The period's second stone resets it.
        assert!(clock.spend(Duration::from_secs(3)));
        assert_eq!(clock.time_left(), (5.0, 2));
        // Within the grace, a period is used up, not more.
        assert!(clock.spend(Duration::from_millis(5500)));
        assert_eq!(clock.time_left(), (0.0, 1));
        assert!(clock.spend(Duration::ZERO));
        assert_eq!(clock.time_left(), (5.0, 2));
        assert!(!clock.spend(Duration::from_millis(5600)));
    }

    #[test]
    fn sudden_death_ends_with_main_time() {
        let mut clock = MatchClock::new(TimeControl::parse("5").unwrap());
        assert!(clock.spend(Duration::from_secs(5)));
        // The grace is the game's, not each move's.
        assert!(clock.spend(Duration::from_millis(600)));
        assert!(clock.spend(Duration::from_millis(400)));
        assert!(!clock.spend(Duration::from_millis(1)));
    }
}
