//! The game clock as GTP describes it: the time system (`time_settings`,
//! `kgs-time_settings`) and what `time_left` says remains for each colour.

use std::time::Duration;

use crate::board::Color;

/// Time held back from every move for pipe and network lag.
const SAFETY_RESERVE: Duration = Duration::from_millis(500);

/// Seconds of clock time from outside (a GTP time command, `tengen match --time`): a finite
/// number from 0 to [`Seconds::MAX`], so that no time sum, `Duration` or deadline built from it
/// can overflow.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Seconds(f64);

impl Seconds {
    /// The most clock time taken: one day (86,400 s), more than any game over GTP gives a side.
    pub const MAX: f64 = 86_400.0;

    /// `seconds`, when finite and from 0 to [`Seconds::MAX`].
    pub fn new(seconds: f64) -> Option<Seconds> {
        (seconds.is_finite() && (0.0..=Seconds::MAX).contains(&seconds)).then_some(Seconds(seconds))
    }

    /// `text` as seconds (`300`, `2.5`); `None` when it is no number or out of range.
    pub fn parse(text: &str) -> Option<Seconds> {
        Seconds::new(text.trim().parse().ok()?)
    }

    /// `text` as the seconds a `time_left` reports: as [`Seconds::parse`], but a negative
    /// number (older controllers send one when the clock ran out) is zero.
    pub fn parse_left(text: &str) -> Option<Seconds> {
        let seconds: f64 = text.trim().parse().ok()?;
        let ran_out = seconds.is_finite() && seconds < 0.0;
        Seconds::new(if ran_out { 0.0 } else { seconds })
    }

    /// The number of seconds.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// `seconds` as a `Duration`, whatever the number: NaN and negatives are zero, more than
/// [`Seconds::MAX`] is that.
fn duration(seconds: f64) -> Duration {
    if seconds.is_nan() {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(seconds.clamp(0.0, Seconds::MAX))
}

/// The time system of the game.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeSystem {
    /// No limit.
    None,
    /// `main` seconds for the whole game.
    Absolute {
        /// Seconds for the game.
        main: f64,
    },
    /// After main time, `stones` moves in each period of `period` seconds.
    Canadian {
        /// Main time in seconds.
        main: f64,
        /// Seconds per overtime period.
        period: f64,
        /// Moves per overtime period.
        stones: u32,
    },
    /// After main time, `periods` periods of `period` seconds, one move each.
    Byoyomi {
        /// Main time in seconds.
        main: f64,
        /// Seconds per period.
        period: f64,
        /// Number of periods.
        periods: u32,
    },
}

impl TimeSystem {
    /// The system `time_settings main byo_time byo_stones` describes: byo-yomi time with zero
    /// stones means no limit; no byo-yomi time means absolute time.
    pub fn from_time_settings(main: f64, period: f64, stones: u32) -> TimeSystem {
        if period > 0.0 && stones == 0 {
            TimeSystem::None
        } else if period <= 0.0 {
            TimeSystem::Absolute { main }
        } else {
            TimeSystem::Canadian {
                main,
                period,
                stones,
            }
        }
    }
}

/// What `time_left` reported for one colour.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Remaining {
    seconds: f64,
    /// Stones left in the period (Canadian) or periods left (byo-yomi); 0 in main time.
    count: u32,
}

/// The clock of both players.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Clock {
    system: TimeSystem,
    remaining: [Option<Remaining>; 2],
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            system: TimeSystem::None,
            remaining: [None; 2],
        }
    }
}

impl Clock {
    /// Sets the time system; both players start with its full time.
    pub fn set_system(&mut self, system: TimeSystem) {
        self.system = system;
        self.remaining = [None; 2];
    }

    /// Records `time_left color seconds count`; a value outside 0 to [`Seconds::MAX`] is
    /// clamped (NaN is 0).
    pub fn set_left(&mut self, c: Color, seconds: f64, count: u32) {
        let seconds = duration(seconds).as_secs_f64();
        self.remaining[c.index()] = Some(Remaining { seconds, count });
    }

    /// The time `c` may spend on its next move when about `moves_left` of its own moves
    /// remain, less the safety reserve; `None` when the clock sets no limit. Main time is
    /// spread over the moves left, scaled by `weight` (more in the middle game, less in the
    /// opening and endgame) but never more than a third of what remains; overtime periods are
    /// spent almost whole.
    pub fn move_budget(&self, c: Color, moves_left: u32, weight: f64) -> Option<Duration> {
        let moves_left = f64::from(moves_left.max(1));
        let weight = if weight.is_finite() {
            weight.clamp(0.1, 3.0)
        } else {
            1.0
        };
        let share = |main: f64| (main / moves_left * weight).min(main / 3.0);
        let left = self.remaining[c.index()];
        let seconds = match self.system {
            TimeSystem::None => return None,
            TimeSystem::Absolute { main } => share(left.map_or(main, |r| r.seconds)),
            TimeSystem::Canadian {
                main,
                period,
                stones,
            } => match left {
                Some(r) if r.count > 0 => r.seconds / f64::from(r.count),
                Some(r) => share(r.seconds) + period / f64::from(stones.max(1)),
                None => share(main) + period / f64::from(stones.max(1)),
            },
            TimeSystem::Byoyomi { main, period, .. } => match left {
                Some(r) if r.count > 0 => r.seconds.min(period),
                Some(r) => share(r.seconds) + period,
                None => share(main) + period,
            },
        };
        Some(duration(seconds).saturating_sub(SAFETY_RESERVE))
    }
}

impl Clock {
    /// The command that gives another GTP engine this time system: `time_settings`, or
    /// `kgs-time_settings byoyomi` when the system is Japanese byo-yomi and `kgs` says the
    /// engine lists that command (else byo-yomi is sent as Canadian periods of one stone).
    pub fn gtp_settings(&self, kgs: bool) -> String {
        let secs = |s: f64| s.round() as u64;
        match self.system {
            TimeSystem::None => "time_settings 0 1 0".to_string(),
            TimeSystem::Absolute { main } => format!("time_settings {} 0 0", secs(main)),
            TimeSystem::Canadian {
                main,
                period,
                stones,
            } => format!("time_settings {} {} {stones}", secs(main), secs(period)),
            TimeSystem::Byoyomi {
                main,
                period,
                periods,
            } if kgs => format!(
                "kgs-time_settings byoyomi {} {} {periods}",
                secs(main),
                secs(period)
            ),
            TimeSystem::Byoyomi { main, period, .. } => {
                format!("time_settings {} {} 1", secs(main), secs(period))
            }
        }
    }

    /// The `time_left` command for `c`, when a `time_left` has been received for it.
    pub fn gtp_time_left(&self, c: Color) -> Option<String> {
        let r = self.remaining[c.index()]?;
        let word = if c == Color::Black { "black" } else { "white" };
        Some(format!(
            "time_left {word} {} {}",
            r.seconds.floor() as u64,
            r.count
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_settings_forms() {
        assert_eq!(
            TimeSystem::from_time_settings(0.0, 1.0, 0),
            TimeSystem::None
        );
        assert_eq!(
            TimeSystem::from_time_settings(300.0, 0.0, 0),
            TimeSystem::Absolute { main: 300.0 }
        );
        assert!(matches!(
            TimeSystem::from_time_settings(60.0, 30.0, 5),
            TimeSystem::Canadian { .. }
        ));
    }

    #[test]
    fn seconds_are_finite_and_at_most_a_day() {
        assert_eq!(Seconds::parse("300").map(Seconds::get), Some(300.0));
        assert_eq!(Seconds::parse("86400").map(Seconds::get), Some(86_400.0));
        for bad in ["86400.5", "1e21", "1e300", "inf", "nan", "-1", "", "5s"] {
            assert_eq!(Seconds::parse(bad), None, "{bad}");
        }
        assert_eq!(Seconds::parse_left("-3").map(Seconds::get), Some(0.0));
        assert_eq!(Seconds::parse_left("1e308"), None);
        assert_eq!(Seconds::parse_left("-inf"), None);
    }

    #[test]
    fn no_number_the_clock_holds_makes_it_panic() {
        let wild = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            5e20,
            0.0,
        ];
        for &x in &wild {
            for system in [
                TimeSystem::Absolute { main: x },
                TimeSystem::Canadian {
                    main: x,
                    period: x,
                    stones: 0,
                },
                TimeSystem::Byoyomi {
                    main: x,
                    period: x,
                    periods: 1,
                },
            ] {
                let mut clock = Clock::default();
                clock.set_system(system);
                let budget = clock.move_budget(Color::Black, 10, x).unwrap();
                assert!(budget <= Duration::from_secs_f64(Seconds::MAX));
                for count in [0, 1] {
                    clock.set_left(Color::Black, x, count);
                    let budget = clock.move_budget(Color::Black, 10, 1.0).unwrap();
                    assert!(budget <= Duration::from_secs_f64(Seconds::MAX));
                }
                let _ = (clock.gtp_settings(true), clock.gtp_time_left(Color::Black));
            }
        }
    }

    #[test]
    fn budgets_follow_the_clock() {
        let mut clock = Clock::default();
        assert_eq!(clock.move_budget(Color::Black, 30, 1.0), None);
        clock.set_system(TimeSystem::Canadian {
            main: 0.0,
            period: 30.0,
            stones: 5,
        });
        clock.set_left(Color::Black, 20.0, 4);
        assert_eq!(
            clock.move_budget(Color::Black, 30, 1.0),
            Some(Duration::from_millis(4500))
        );
        clock.set_system(TimeSystem::Byoyomi {
            main: 0.0,
            period: 10.0,
            periods: 3,
        });
        clock.set_left(Color::White, 10.0, 2);
        assert_eq!(
            clock.move_budget(Color::White, 30, 1.0),
            Some(Duration::from_millis(9500))
        );
        clock.set_left(Color::White, -5.0, 0);
        assert_eq!(
            clock.move_budget(Color::White, 30, 1.0),
            Some(Duration::from_millis(9500))
        );
        clock.set_left(Color::White, f64::NAN, 1);
        assert_eq!(
            clock.move_budget(Color::White, 30, 1.0),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn main_time_goes_to_the_middle_game_and_never_runs_out() {
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Absolute { main: 60.0 });
        let opening = clock.move_budget(Color::Black, 40, 0.75).unwrap();
        let middle = clock.move_budget(Color::Black, 40, 1.75).unwrap();
        assert!(middle > opening);
        // Near the end of the clock a move takes at most a third of what is left, less the
        // reserve; with less than the reserve left, nothing.
        clock.set_left(Color::Black, 3.0, 0);
        assert!(clock.move_budget(Color::Black, 1, 3.0).unwrap() <= Duration::from_millis(500));
        clock.set_left(Color::Black, 0.2, 0);
        assert_eq!(
            clock.move_budget(Color::Black, 10, 1.0),
            Some(Duration::ZERO)
        );
        // Simulate a game: every budget spent in full never exceeds the clock.
        let mut left = 60.0;
        for moves_left in (1..=40).rev() {
            clock.set_left(Color::Black, left, 0);
            let spent = clock
                .move_budget(Color::Black, moves_left, 1.75)
                .unwrap()
                .as_secs_f64();
            left -= spent + 0.1; // plus lag smaller than the reserve
            assert!(left > 0.0, "ran out with {moves_left} moves left");
        }
    }

    #[test]
    fn settings_are_given_to_another_engine_in_gtp() {
        let mut clock = Clock::default();
        assert_eq!(clock.gtp_settings(false), "time_settings 0 1 0");
        clock.set_system(TimeSystem::from_time_settings(300.0, 30.0, 5));
        assert_eq!(clock.gtp_settings(true), "time_settings 300 30 5");
        assert_eq!(clock.gtp_time_left(Color::White), None);
        clock.set_left(Color::White, 12.7, 3);
        assert_eq!(
            clock.gtp_time_left(Color::White).as_deref(),
            Some("time_left white 12 3")
        );
        clock.set_system(TimeSystem::Byoyomi {
            main: 60.0,
            period: 10.0,
            periods: 5,
        });
        assert_eq!(
            clock.gtp_settings(true),
            "kgs-time_settings byoyomi 60 10 5"
        );
        assert_eq!(clock.gtp_settings(false), "time_settings 60 10 1");
    }
}
