//! The game clock as GTP describes it: the time system (`time_settings`,
//! `kgs-time_settings`) and what `time_left` says remains for each colour.

use std::time::Duration;

use crate::board::Color;

/// Time held back from every move for pipe and network lag.
const SAFETY_RESERVE: Duration = Duration::from_millis(500);

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

    /// Records `time_left color seconds count`; negative or absurd values are clamped.
    pub fn set_left(&mut self, c: Color, seconds: f64, count: u32) {
        let seconds = if seconds.is_finite() {
            seconds.clamp(0.0, 1e9)
        } else {
            0.0
        };
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
        Some(Duration::from_secs_f64(seconds.max(0.0)).saturating_sub(SAFETY_RESERVE))
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
