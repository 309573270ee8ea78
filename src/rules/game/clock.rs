//! The game clock as GTP describes it: the time system (`time_settings`,
//! `kgs-time_settings`, `kata-time_settings`) and what `time_left` says remains for each colour.

use std::time::Duration;

use crate::rules::board::Color;

/// Time held back by default from what a move may take, for pipe, GUI and network lag
/// (engines.toml's `lag_reserve_ms` sets it).
pub const DEFAULT_LAG_RESERVE: Duration = Duration::from_millis(250);

/// The most a move may take beyond its target, as a multiple of the target, when the search
/// finds the position unclear.
const MAX_EXTENSION: f64 = 3.0;

/// Main time held back for each move still to come: the least even a quick move costs.
const PER_MOVE_OVERHEAD: f64 = 0.02;

/// The most one move thinks, whatever the clock gives: five minutes. Live games seldom give a
/// move more; a correspondence clock (days of main time, a day-long byo-yomi) always does, and
/// a move there thinks this long, not for days (as KataGo's `maxTime` caps a move).
pub const MAX_THINK: Duration = Duration::from_secs(300);

/// Seconds from outside (a GTP time command, a think time, `tengen match --time`): a finite
/// number from 0 to [`Seconds::MAX_CLOCK`], so that no time sum, `Duration` or deadline built
/// from it can overflow.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Seconds(f64);

impl Seconds {
    /// The most a time other than a game clock takes (a think time, a timeout, a match's
    /// clock): one day (86,400 s).
    pub const MAX: f64 = 86_400.0;

    /// The most a game clock from a controller takes (`time_settings`, `kgs-time_settings`,
    /// `kata-time_settings`, `time_left`): a year (365 days), more than a correspondence game
    /// on OGS gives a side (gtp2ogs sends its days of main time and a day-long byo-yomi as
    /// they are).
    pub const MAX_CLOCK: f64 = 365.0 * 86_400.0;

    /// `seconds`, when finite and from 0 to [`Seconds::MAX`].
    pub fn new(seconds: f64) -> Option<Seconds> {
        Seconds::within(seconds, Seconds::MAX)
    }

    /// `seconds`, when finite and from 0 to `max`.
    fn within(seconds: f64, max: f64) -> Option<Seconds> {
        (seconds.is_finite() && (0.0..=max).contains(&seconds)).then_some(Seconds(seconds))
    }

    /// `text` as seconds (`300`, `2.5`); `None` when it is no number or out of range (more
    /// than [`Seconds::MAX`]).
    pub fn parse(text: &str) -> Option<Seconds> {
        Seconds::new(text.trim().parse().ok()?)
    }

    /// `text` as the seconds of a game clock's setting: as [`Seconds::parse`], up to
    /// [`Seconds::MAX_CLOCK`].
    pub fn parse_clock(text: &str) -> Option<Seconds> {
        Seconds::within(text.trim().parse().ok()?, Seconds::MAX_CLOCK)
    }

    /// `text` as the seconds a `time_left` reports: as [`Seconds::parse_clock`], but a
    /// negative number (older controllers send one when the clock ran out) is zero.
    pub fn parse_left(text: &str) -> Option<Seconds> {
        let seconds: f64 = text.trim().parse().ok()?;
        let ran_out = seconds.is_finite() && seconds < 0.0;
        Seconds::within(if ran_out { 0.0 } else { seconds }, Seconds::MAX_CLOCK)
    }

    /// The number of seconds.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// `seconds` as a `Duration`, whatever the number: NaN and negatives are zero, more than
/// [`Seconds::MAX_CLOCK`] is that.
fn duration(seconds: f64) -> Duration {
    if seconds.is_nan() {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(seconds.clamp(0.0, Seconds::MAX_CLOCK))
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
    /// Fischer: `main` seconds, and `increment` more after each move; the time in hand never
    /// grows past `max_main`, and no move may take more than `max_move`.
    Fischer {
        /// Seconds at the start.
        main: f64,
        /// Seconds added after each move.
        increment: f64,
        /// The most time a player may hold; `None`: no cap.
        max_main: Option<f64>,
        /// The most one move may take; `None`: no cap.
        max_move: Option<f64>,
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

/// What remains on one colour's clock: from `time_left`, or counted by the engine itself.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Remaining {
    seconds: f64,
    /// Stones left in the period (Canadian) or periods left (byo-yomi); 0 in main time.
    count: u32,
}

/// How long one move may think, counted from when its command was read: `target` is what it
/// should spend, `max` the most it may spend when the position is unclear. `max` is within
/// what the clock allows, less the lag reserve, and neither is more than [`MAX_THINK`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MoveTime {
    /// The time to spend on a move whose best answer is clear.
    pub target: Duration,
    /// The most the move may take.
    pub max: Duration,
}

impl MoveTime {
    /// `target` and `max` seconds (`max` at least `target`), each at most [`MAX_THINK`].
    fn capped(target: f64, max: f64) -> MoveTime {
        let target = duration(target).min(MAX_THINK);
        MoveTime {
            target,
            max: duration(max).clamp(target, MAX_THINK),
        }
    }
}

/// The clock of both players.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Clock {
    system: TimeSystem,
    remaining: [Option<Remaining>; 2],
    /// Held back from every move for lag.
    lag_reserve: Duration,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            system: TimeSystem::None,
            remaining: [None; 2],
            lag_reserve: DEFAULT_LAG_RESERVE,
        }
    }
}

impl Clock {
    /// A clock without a limit that holds `lag_reserve` back from every move.
    pub fn with_lag_reserve(lag_reserve: Duration) -> Clock {
        Clock {
            lag_reserve,
            ..Clock::default()
        }
    }

    /// Sets the time system; both players start with its full time.
    pub fn set_system(&mut self, system: TimeSystem) {
        self.system = system;
        self.restart();
    }

    /// The time system.
    pub fn system(&self) -> TimeSystem {
        self.system
    }

    /// What `c` has left, in seconds and stones or periods (0 in main time), when a
    /// `time_left` for it has been recorded (or a move charged since).
    pub fn recorded_left(&self, c: Color) -> Option<(f64, u32)> {
        self.remaining[c.index()].map(|r| (r.seconds, r.count))
    }

    /// Whether the time system limits the game.
    pub fn is_limited(&self) -> bool {
        self.system != TimeSystem::None
    }

    /// A new game: both players have the system's full time again.
    pub fn restart(&mut self) {
        self.remaining = [None; 2];
    }

    /// Records `time_left color seconds count`; a value outside 0 to [`Seconds::MAX_CLOCK`]
    /// is clamped (NaN is 0).
    pub fn set_left(&mut self, c: Color, seconds: f64, count: u32) {
        let seconds = duration(seconds).as_secs_f64();
        self.remaining[c.index()] = Some(Remaining { seconds, count });
    }

    /// What `c` has left: the last `time_left`, or the system's full time.
    fn left(&self, c: Color) -> Remaining {
        self.remaining[c.index()].unwrap_or(Remaining {
            seconds: match self.system {
                TimeSystem::None => 0.0,
                TimeSystem::Absolute { main }
                | TimeSystem::Canadian { main, .. }
                | TimeSystem::Byoyomi { main, .. }
                | TimeSystem::Fischer { main, .. } => main,
            },
            count: 0,
        })
    }

    /// Takes `elapsed` off `c`'s clock as a controller would after `c`'s move, so that the
    /// clock stays right when the controller sends no `time_left` (the next one replaces it).
    pub fn charge(&mut self, c: Color, elapsed: Duration) {
        let mut left = self.left(c);
        let mut used = elapsed.as_secs_f64();
        if left.count == 0 {
            let from_main = used.min(left.seconds);
            left.seconds -= from_main;
            used -= from_main;
        }
        match self.system {
            TimeSystem::None => return,
            TimeSystem::Absolute { .. } => {}
            TimeSystem::Fischer {
                increment,
                max_main,
                ..
            } => {
                // Time in hand is main time: a count from `time_left` means nothing here.
                let seconds = (left.seconds - used).max(0.0) + increment;
                left = Remaining {
                    seconds: max_main.map_or(seconds, |cap| seconds.min(cap)),
                    count: 0,
                };
            }
            TimeSystem::Canadian { period, stones, .. } => {
                if left.count == 0 && (left.seconds > 0.0 || used == 0.0) {
                    // Still in main time.
                } else {
                    if left.count == 0 {
                        left = Remaining {
                            seconds: period,
                            count: stones.max(1),
                        };
                    }
                    left.seconds = (left.seconds - used).max(0.0);
                    left.count -= 1;
                    if left.count == 0 {
                        left = Remaining {
                            seconds: period,
                            count: stones.max(1),
                        };
                    }
                }
            }
            TimeSystem::Byoyomi {
                period, periods, ..
            } => {
                if left.count == 0 && (left.seconds > 0.0 || used == 0.0) {
                    // Still in main time.
                } else {
                    let mut count = if left.count == 0 { periods } else { left.count };
                    // Each whole period overrun costs a period; the last one never goes.
                    let overrun = if period > 0.0 {
                        (used / period).floor()
                    } else {
                        0.0
                    };
                    count = count.saturating_sub(overrun as u32).max(1);
                    left = Remaining {
                        seconds: period,
                        count,
                    };
                }
            }
        }
        self.remaining[c.index()] = Some(left);
    }

    /// The time `c` may spend on its next move when about `moves_left` of its own moves
    /// remain; `None` when the clock sets no limit.
    ///
    /// Main time, less the lag reserve and a little for each move to come
    /// ([`PER_MOVE_OVERHEAD`]), is spread over the moves left and scaled by `weight`
    /// (more in the middle game), never more than a third of it for one move; a move may go
    /// on to [`MAX_EXTENSION`] times that, or a quarter of what is left. In main time an
    /// overtime period adds what one move may use of it. In overtime a byo-yomi period is
    /// spent whole and a Canadian period evenly over its stones, each less the lag reserve.
    /// Under Fischer the time in hand is spread the same way and the increment added, never
    /// more than is in hand less the reserve (see [`Fischer::move_time`]).
    ///
    /// No move thinks more than [`MAX_THINK`]. On a correspondence clock (gtp2ogs sends OGS's
    /// days of main time and a day-long byo-yomi as they are) every move's share of main time
    /// is above it, so each move thinks [`MAX_THINK`] and the day-long period is never
    /// reached; once in it, a move still thinks [`MAX_THINK`], not the day.
    pub fn move_time(&self, c: Color, moves_left: f64, weight: f64) -> Option<MoveTime> {
        let moves_left = if moves_left.is_finite() {
            moves_left.max(1.0)
        } else {
            1.0
        };
        let weight = if weight.is_finite() {
            weight.clamp(0.1, 3.0)
        } else {
            1.0
        };
        let reserve = self.lag_reserve.as_secs_f64();
        let left = self.left(c);
        // What one move may take of an overtime period, after main time.
        let overtime = match self.system {
            TimeSystem::None => return None,
            TimeSystem::Absolute { .. } => 0.0,
            TimeSystem::Fischer {
                increment,
                max_main,
                max_move,
                ..
            } => {
                let fischer = Fischer {
                    increment,
                    max_main,
                    max_move,
                };
                return Some(fischer.move_time(left.seconds, reserve, moves_left, weight));
            }
            TimeSystem::Canadian { period, stones, .. } => period / f64::from(stones.max(1)),
            TimeSystem::Byoyomi { period, .. } => period,
        };
        let (target, max) = match self.system {
            TimeSystem::Canadian { .. } if left.count > 0 => {
                let usable = (left.seconds - reserve).max(0.0);
                let per_stone = usable / f64::from(left.count);
                let others = f64::from(left.count - 1) * per_stone / 2.0;
                (per_stone, (2.0 * per_stone).min(usable - others))
            }
            TimeSystem::Byoyomi { period, .. } if left.count > 0 => {
                let usable = (left.seconds.min(period) - reserve).max(0.0);
                (usable, usable)
            }
            _ => {
                let held_back = reserve + PER_MOVE_OVERHEAD * moves_left;
                let usable = (left.seconds - held_back).max(0.0);
                let share = (usable / moves_left * weight).min(usable / 3.0);
                let longest = (MAX_EXTENSION * share).min(usable / 4.0).max(share);
                let overtime = (overtime - reserve).max(0.0);
                (share + overtime, longest + overtime)
            }
        };
        Some(MoveTime::capped(target, max))
    }
}

/// The rules of a Fischer clock that decide one move's time.
struct Fischer {
    /// Seconds added after each move.
    increment: f64,
    /// The most time in hand; `None`: no cap.
    max_main: Option<f64>,
    /// The most one move may take; `None`: no cap.
    max_move: Option<f64>,
}

impl Fischer {
    /// The time for a move with `in_hand` seconds on the clock: `in_hand`, less the lag
    /// `reserve` and what the moves to come cannot get back from their increments
    /// ([`PER_MOVE_OVERHEAD`] beyond the increment), spread over `moves_left` and scaled by
    /// `weight` as main time is, plus the increment; never more than `in_hand` less the
    /// reserve, nor than `max_move` less the reserve. (Time in hand over the cap, which only a
    /// controller's `time_left` can report, counts as the cap.)
    fn move_time(&self, in_hand: f64, reserve: f64, moves_left: f64, weight: f64) -> MoveTime {
        let increment = self.increment;
        let in_hand = self.max_main.map_or(in_hand, |cap| in_hand.min(cap));
        let mut usable = (in_hand - reserve).max(0.0);
        if let Some(cap) = self.max_move {
            usable = usable.min((cap - reserve).max(0.0));
        }
        let held_back = reserve + (PER_MOVE_OVERHEAD - increment).max(0.0) * moves_left;
        let bank = (in_hand - held_back).max(0.0);
        let share = (bank / moves_left * weight).min(bank / 3.0);
        let longest = (MAX_EXTENSION * share).min(bank / 4.0).max(share);
        let target = (share + increment).min(usable);
        let max = (longest + increment).min(usable);
        MoveTime::capped(target, max)
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

    /// A game clock's settings go to a year: a correspondence game's days are taken.
    #[test]
    fn clock_settings_are_finite_and_at_most_a_year() {
        let week = 7.0 * 86_400.0;
        for (text, seconds) in [("604800", week), ("31536000", Seconds::MAX_CLOCK)] {
            assert_eq!(Seconds::parse_clock(text).map(Seconds::get), Some(seconds));
            assert_eq!(Seconds::parse_left(text).map(Seconds::get), Some(seconds));
        }
        for bad in ["31536000.5", "1e21", "inf", "nan", "-1", "5d"] {
            assert_eq!(Seconds::parse_clock(bad), None, "{bad}");
        }
        assert_eq!(Seconds::parse_left("31536001"), None);
        assert_eq!(Seconds::parse("604800"), None);
    }

    /// OGS's correspondence byo-yomi (a week, then five periods of a day) and Fischer (three
    /// days, a day a move, at most a week): every move thinks [`MAX_THINK`], in main time and
    /// in the day-long period; a live clock is not cut.
    #[test]
    fn a_correspondence_clock_thinks_max_think_a_move() {
        let day = 86_400.0;
        let think = MoveTime {
            target: MAX_THINK,
            max: MAX_THINK,
        };
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Byoyomi {
            main: 7.0 * day,
            period: day,
            periods: 5,
        });
        for (seconds, periods) in [(7.0 * day, 0), (2.0 * day, 0), (day, 5), (day, 1)] {
            clock.set_left(Color::Black, seconds, periods);
            for (moves_left, weight) in [(150.0, 0.75), (20.0, 3.0), (1.0, 1.0)] {
                assert_eq!(
                    clock.move_time(Color::Black, moves_left, weight),
                    Some(think),
                    "{seconds} s, {periods} periods, {moves_left} moves"
                );
            }
        }
        let fischer = fischer(3.0 * day, day, Some(7.0 * day), None);
        assert_eq!(fischer.move_time(Color::White, 150.0, 1.0), Some(think));
        // Two hours of main time for 135 moves: 53 s a move, 159 s at most, as before.
        let mut live = Clock::default();
        live.set_system(TimeSystem::Absolute { main: 7200.0 });
        let t = live.move_time(Color::Black, 135.0, 1.0).unwrap();
        assert!(t.target > Duration::from_secs(50) && t.max > Duration::from_secs(150));
        assert!(t.max < MAX_THINK, "{t:?}");
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
                TimeSystem::Fischer {
                    main: x,
                    increment: x,
                    max_main: Some(x),
                    max_move: Some(x),
                },
                TimeSystem::Fischer {
                    main: x,
                    increment: x,
                    max_main: None,
                    max_move: None,
                },
            ] {
                let mut clock = Clock::default();
                clock.set_system(system);
                let t = clock.move_time(Color::Black, x, x).unwrap();
                assert!(t.target <= t.max && t.max <= Duration::from_secs_f64(Seconds::MAX));
                clock.charge(Color::Black, Duration::from_secs_f64(Seconds::MAX));
                for count in [0, 1] {
                    clock.set_left(Color::Black, x, count);
                    let t = clock.move_time(Color::Black, 10.0, 1.0).unwrap();
                    assert!(t.target <= t.max && t.max <= Duration::from_secs_f64(Seconds::MAX));
                    clock.charge(Color::Black, Duration::from_secs(1));
                }
            }
        }
    }

    #[test]
    fn budgets_follow_the_clock() {
        let target = |clock: &Clock, c| clock.move_time(c, 30.0, 1.0).map(|t| t.target);
        let mut clock = Clock::default();
        assert_eq!(target(&clock, Color::Black), None);
        clock.set_system(TimeSystem::Canadian {
            main: 0.0,
            period: 30.0,
            stones: 5,
        });
        // 20 s for 4 stones: 19.75 s after the reserve, a quarter each, and at most twice
        // that when unclear, leaving the other three stones half their share.
        clock.set_left(Color::Black, 20.0, 4);
        let t = clock.move_time(Color::Black, 30.0, 1.0).unwrap();
        assert_eq!(t.target, Duration::from_secs_f64(19.75 / 4.0));
        assert_eq!(t.max, Duration::from_secs_f64(19.75 / 2.0));
        clock.set_left(Color::Black, 3.0, 1);
        let t = clock.move_time(Color::Black, 30.0, 1.0).unwrap();
        assert_eq!(
            (t.target, t.max),
            (Duration::from_millis(2750), Duration::from_millis(2750))
        );
        // A byo-yomi period is spent whole, less the reserve.
        let byoyomi = TimeSystem::Byoyomi {
            main: 0.0,
            period: 10.0,
            periods: 3,
        };
        clock.set_system(byoyomi);
        clock.set_left(Color::White, 10.0, 2);
        let t = clock.move_time(Color::White, 30.0, 1.0).unwrap();
        assert_eq!(
            (t.target, t.max),
            (Duration::from_millis(9750), Duration::from_millis(9750))
        );
        clock.set_left(Color::White, -5.0, 0);
        assert_eq!(
            target(&clock, Color::White),
            Some(Duration::from_millis(9750))
        );
        clock.set_left(Color::White, f64::NAN, 1);
        assert_eq!(target(&clock, Color::White), Some(Duration::ZERO));
        // The reserve is the user's.
        let mut clock = Clock::with_lag_reserve(Duration::from_millis(1000));
        clock.set_system(byoyomi);
        clock.set_left(Color::White, 10.0, 2);
        assert_eq!(target(&clock, Color::White), Some(Duration::from_secs(9)));
    }

    #[test]
    fn main_time_goes_to_the_middle_game_and_never_runs_out() {
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Absolute { main: 60.0 });
        let opening = clock.move_time(Color::Black, 40.0, 0.75).unwrap();
        let middle = clock.move_time(Color::Black, 40.0, 1.75).unwrap();
        assert!(middle.target > opening.target);
        assert!(opening.max >= 2 * opening.target);
        // Near the end of the clock a move takes at most a third of what is left after the
        // reserve, and when unclear a quarter; with less than the reserve left, nothing.
        clock.set_left(Color::Black, 3.27, 0);
        let t = clock.move_time(Color::Black, 1.0, 3.0).unwrap();
        assert_eq!(t.target, Duration::from_secs(1));
        assert_eq!(t.max, Duration::from_secs(1));
        clock.set_left(Color::Black, 0.2, 0);
        let t = clock.move_time(Color::Black, 10.0, 1.0).unwrap();
        assert_eq!((t.target, t.max), (Duration::ZERO, Duration::ZERO));
        // Simulate games: every move spending its longest time never runs the clock out.
        for weight in [0.75, 1.75, 3.0] {
            let mut left = 60.0;
            for moves_left in (1..=60).rev() {
                clock.set_left(Color::Black, left, 0);
                let t = clock
                    .move_time(Color::Black, moves_left as f64, weight)
                    .unwrap();
                // Plus lag: within the reserve, and less than a quick move's overhead.
                left -= t.max.as_secs_f64() + 0.015;
                assert!(left > 0.0, "ran out with {moves_left} moves left");
            }
        }
    }

    fn fischer(main: f64, increment: f64, max_main: Option<f64>, max_move: Option<f64>) -> Clock {
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Fischer {
            main,
            increment,
            max_main,
            max_move,
        });
        clock
    }

    /// A Fischer move gets the time in hand over the moves to come, as main time, plus the
    /// increment, and never more than is in hand less the reserve.
    #[test]
    fn a_fischer_move_gets_its_share_and_the_increment_within_the_time_in_hand() {
        let secs = Duration::from_secs_f64;
        // 60 s in hand, 5 s a move, 30 moves to come: (60 - 0.25) / 30 + 5, and when unclear
        // three times the share (under a quarter of the bank) + 5.
        let mut clock = fischer(60.0, 5.0, None, None);
        let t = clock.move_time(Color::Black, 30.0, 1.0).unwrap();
        assert_eq!(t.target, secs(59.75 / 30.0 + 5.0));
        assert_eq!(t.max, secs(3.0 * 59.75 / 30.0 + 5.0));
        // The increment is on top of what main time alone would give.
        let mut absolute = Clock::default();
        absolute.set_system(TimeSystem::Absolute { main: 60.0 });
        let alone = absolute.move_time(Color::Black, 30.0, 1.0).unwrap();
        assert!(t.target > alone.target + secs(4.9));
        // 3 s in hand with 5 s to come after the move: at most the 3 s less the reserve.
        clock.set_left(Color::Black, 3.0, 0);
        let t = clock.move_time(Color::Black, 30.0, 3.0).unwrap();
        assert_eq!((t.target, t.max), (secs(2.75), secs(2.75)));
        // A count from `time_left` means nothing under Fischer.
        clock.set_left(Color::Black, 3.0, 4);
        assert_eq!(clock.move_time(Color::Black, 30.0, 3.0), Some(t));
        // The cap on a move, less the reserve, binds; time in hand over the cap counts as
        // the cap.
        let capped = fischer(60.0, 5.0, Some(60.0), Some(4.0));
        let t = capped.move_time(Color::Black, 30.0, 1.0).unwrap();
        assert_eq!((t.target, t.max), (secs(3.75), secs(3.75)));
        let mut capped = fischer(20.0, 0.0, Some(20.0), None);
        let within = capped.move_time(Color::Black, 10.0, 1.0);
        capped.set_left(Color::Black, 500.0, 0);
        assert_eq!(capped.move_time(Color::Black, 10.0, 1.0), within);
        // Without an increment it is sudden death, a little held back for each move to come.
        let t = fischer(60.0, 0.0, None, None)
            .move_time(Color::Black, 30.0, 1.0)
            .unwrap();
        assert_eq!(t.target, alone.target);
    }

    /// Simulated Fischer games where every move takes its longest time plus 15 ms of lag
    /// (within the reserve): the clock never runs out, and a move never has more than is in
    /// hand less the reserve.
    #[test]
    fn a_fischer_clock_never_runs_out() {
        for (main, increment, max_main) in [
            (60.0, 5.0, None),
            (10.0, 1.0, Some(15.0)),
            (3.0, 0.5, None),
            (1.0, 0.02, None),
            (0.5, 2.0, Some(2.0)),
            (30.0, 0.0, None),
        ] {
            let mut clock = fischer(main, increment, max_main, None);
            let mut left: f64 = main;
            // Lag beyond the increment is paid from the time in hand: such a game lasts the
            // moves foreseen, others go on far longer.
            let moves = if increment >= 0.015 { 200 } else { 60 };
            for move_number in 0..moves {
                let moves_left = (60.0 - f64::from(move_number)).max(1.0);
                for weight in [3.0, 0.75] {
                    let t = clock.move_time(Color::White, moves_left, weight).unwrap();
                    assert!(t.max.as_secs_f64() <= (left - 0.25).max(0.0) + 1e-9);
                }
                let t = clock.move_time(Color::White, moves_left, 3.0).unwrap();
                let used = t.max + Duration::from_millis(15);
                left -= used.as_secs_f64();
                assert!(
                    left > 0.0,
                    "{main}+{increment}: ran out at move {move_number}"
                );
                left = max_main.map_or(left + increment, |cap: f64| (left + increment).min(cap));
                clock.charge(Color::White, used);
                let (seconds, count) = clock.recorded_left(Color::White).unwrap();
                assert!(
                    (seconds - left).abs() < 1e-9 && count == 0,
                    "{seconds} {left}"
                );
            }
        }
    }

    #[test]
    fn the_clock_counts_its_own_moves_without_time_left() {
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Absolute { main: 10.0 });
        assert_eq!(clock.recorded_left(Color::Black), None);
        clock.charge(Color::Black, Duration::from_secs(4));
        assert_eq!(clock.left(Color::Black).seconds, 6.0);
        assert_eq!(clock.left(Color::White).seconds, 10.0);
        clock.charge(Color::Black, Duration::from_secs(9));
        assert_eq!(clock.recorded_left(Color::Black), Some((0.0, 0)));
        let canadian = TimeSystem::Canadian {
            main: 5.0,
            period: 10.0,
            stones: 2,
        };
        let byoyomi = TimeSystem::Byoyomi {
            main: 5.0,
            period: 10.0,
            periods: 3,
        };
        // Each system's moves in turn: seconds taken, then seconds and count left.
        let games = [
            // Canadian: main time runs into the period, whose last stone starts a new one.
            (canadian, [(7, (8.0, 1)), (3, (10.0, 2))]),
            // Byo-yomi: a period within its time is kept; an overrun costs one.
            (byoyomi, [(12, (10.0, 3)), (11, (10.0, 2))]),
        ];
        for (system, moves) in games {
            clock.set_system(system);
            for (taken, (seconds, count)) in moves {
                clock.charge(Color::White, Duration::from_secs(taken));
                assert_eq!(
                    clock.left(Color::White),
                    Remaining { seconds, count },
                    "{system:?} after {taken} s"
                );
            }
        }
        // time_left replaces the count; a new game restores the full time.
        clock.set_left(Color::White, 4.0, 1);
        assert_eq!(clock.recorded_left(Color::White), Some((4.0, 1)));
        clock.restart();
        assert_eq!(clock.recorded_left(Color::White), None);
        assert_eq!(
            clock.left(Color::White),
            Remaining {
                seconds: 5.0,
                count: 0
            }
        );
    }
}
