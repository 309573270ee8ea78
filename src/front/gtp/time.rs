//! KataGo's GTP time commands, `kata-list_time_settings` and `kata-time_settings` (the kinds
//! and arguments of KataGo's gtp.cpp, Fischer among them), and `cputime`.

use super::protocol::GtpError;
use crate::rules::game::clock::{Seconds, TimeSystem};

/// The kinds `kata-time_settings` takes, as `kata-list_time_settings` answers.
pub const KINDS: &str = "none absolute byoyomi canadian fischer fischer-capped";

/// The most byo-yomi stones or periods taken, as in KataGo.
const MAX_COUNT: u32 = 1_000_000;

/// Parses `kata-time_settings KIND ARGS...`: `none`, `absolute MAIN`, `byoyomi MAIN PERIOD
/// PERIODS`, `canadian MAIN PERIOD STONES`, `fischer MAIN INCREMENT` or `fischer-capped MAIN
/// INCREMENT MAX_MAIN MAX_MOVE` (a negative cap: none). Times are seconds, fractions allowed,
/// 0 to a year ([`Seconds::MAX_CLOCK`]); as in KataGo, byo-yomi with no periods and Canadian with no stones are
/// absolute time, and Canadian with a period but no stones no limit. A wrong kind, count or
/// number is refused with what was expected.
pub fn parse_kata_time_settings(args: &[String]) -> Result<TimeSystem, GtpError> {
    let fail = |why: String| Err(GtpError::Argument(why));
    let Some((kind, rest)) = args.split_first() else {
        return fail(format!("expected a kind, one of: {KINDS}"));
    };
    let kind = kind.to_ascii_lowercase();
    let wanted = match kind.as_str() {
        "none" => "",
        "absolute" => "MAIN",
        "byoyomi" => "MAIN PERIOD PERIODS",
        "canadian" => "MAIN PERIOD STONES",
        "fischer" => "MAIN INCREMENT",
        "fischer-capped" => "MAIN INCREMENT MAX_MAIN MAX_MOVE",
        _ => return fail(format!("unknown kind `{kind}`: expected one of {KINDS}")),
    };
    if rest.len() != wanted.split_whitespace().count() {
        let args = if wanted.is_empty() {
            "no arguments".to_string()
        } else {
            wanted.to_string()
        };
        return fail(format!("kata-time_settings {kind} takes {args}"));
    }
    let time = |i: usize, what: &str| seconds(&rest[i], what);
    let system = match kind.as_str() {
        "absolute" => TimeSystem::Absolute {
            main: time(0, "main time")?,
        },
        "byoyomi" => {
            let (main, period) = (time(0, "main time")?, time(1, "period")?);
            match count(&rest[2], "periods")? {
                0 => TimeSystem::Absolute { main },
                periods => TimeSystem::Byoyomi {
                    main,
                    period,
                    periods,
                },
            }
        }
        "canadian" => {
            let (main, period) = (time(0, "main time")?, time(1, "period")?);
            TimeSystem::from_time_settings(main, period, count(&rest[2], "stones")?)
        }
        "fischer" => TimeSystem::Fischer {
            main: time(0, "main time")?,
            increment: time(1, "increment")?,
            max_main: None,
            max_move: None,
        },
        "fischer-capped" => {
            let main = time(0, "main time")?;
            let increment = time(1, "increment")?;
            let max_main = cap(&rest[2], "main time limit")?;
            let max_move = cap(&rest[3], "time per move limit")?;
            if max_main.is_some_and(|max| max < main) {
                return fail(format!(
                    "main time limit {} is below the main time {}",
                    rest[2], rest[0]
                ));
            }
            TimeSystem::Fischer {
                main,
                increment,
                max_main,
                max_move,
            }
        }
        _ => TimeSystem::None,
    };
    Ok(system)
}

/// A time argument: seconds from 0 to a year.
fn seconds(text: &str, what: &str) -> Result<f64, GtpError> {
    Seconds::parse_clock(text).map(Seconds::get).ok_or_else(|| {
        GtpError::Argument(format!(
            "{what} must be seconds from 0 to {}, got `{text}`",
            Seconds::MAX_CLOCK
        ))
    })
}

/// A cap: seconds from 0 to a year, or a negative number (down to minus a year) for none.
fn cap(text: &str, what: &str) -> Result<Option<f64>, GtpError> {
    match text.trim().parse::<f64>() {
        Ok(x) if (-Seconds::MAX_CLOCK..0.0).contains(&x) => Ok(None),
        _ => seconds(text, &format!("{what} (negative: none)")).map(Some),
    }
}

/// A count of byo-yomi stones or periods: 0 to [`MAX_COUNT`].
fn count(text: &str, what: &str) -> Result<u32, GtpError> {
    text.parse()
        .ok()
        .filter(|n| *n <= MAX_COUNT)
        .ok_or_else(|| {
            GtpError::Argument(format!(
                "{what} must be a whole number from 0 to {MAX_COUNT}, got `{text}`"
            ))
        })
}

/// The CPU time this process has used, user and system, in seconds (0 if the system does
/// not say).
pub fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole `rusage` into the pointer it is given, which points to
    // one; on failure the zeroed value stays.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<TimeSystem, GtpError> {
        parse_kata_time_settings(&crate::front::gtp::protocol::args_of(line))
    }

    #[test]
    fn every_kind_in_katagos_forms() {
        let fischer = |main, increment, max_main, max_move| TimeSystem::Fischer {
            main,
            increment,
            max_main,
            max_move,
        };
        let cases = [
            ("none", TimeSystem::None),
            ("absolute 600", TimeSystem::Absolute { main: 600.0 }),
            (
                "byoyomi 300 30 5",
                TimeSystem::Byoyomi {
                    main: 300.0,
                    period: 30.0,
                    periods: 5,
                },
            ),
            ("BYOYOMI 300 30 0", TimeSystem::Absolute { main: 300.0 }),
            (
                "canadian 300 60 10",
                TimeSystem::Canadian {
                    main: 300.0,
                    period: 60.0,
                    stones: 10,
                },
            ),
            ("canadian 300 60 0", TimeSystem::None),
            ("canadian 300 0 0", TimeSystem::Absolute { main: 300.0 }),
            ("fischer 120 2.5", fischer(120.0, 2.5, None, None)),
            // gtp2ogs's form.
            (
                "fischer-capped 600 10 1200 -1",
                fischer(600.0, 10.0, Some(1200.0), None),
            ),
            (
                "fischer-capped 60 5 -1 7.5",
                fischer(60.0, 5.0, None, Some(7.5)),
            ),
            (
                "fischer-capped 60 5 60 -86400",
                fischer(60.0, 5.0, Some(60.0), None),
            ),
            // OGS's correspondence clocks, as gtp2ogs sends them: days of main time, a day
            // a period or a move, a week at most in hand.
            (
                "byoyomi 604800 86400 5",
                TimeSystem::Byoyomi {
                    main: 604_800.0,
                    period: 86_400.0,
                    periods: 5,
                },
            ),
            (
                "fischer-capped 259200 86400 604800 -1",
                fischer(259_200.0, 86_400.0, Some(604_800.0), None),
            ),
        ];
        for (line, wanted) in cases {
            assert_eq!(parse(line), Ok(wanted), "{line}");
        }
    }

    #[test]
    fn bad_arguments_say_what_was_expected() {
        let cases = [
            ("", "expected a kind"),
            ("sudden-death 60", "unknown kind"),
            ("none 5", "takes no arguments"),
            ("absolute", "takes MAIN"),
            ("fischer 60", "takes MAIN INCREMENT"),
            (
                "fischer-capped 60 5 120",
                "takes MAIN INCREMENT MAX_MAIN MAX_MOVE",
            ),
            ("absolute -1", "main time must be seconds"),
            ("absolute 31536001", "main time must be seconds"),
            ("fischer 60 nan", "increment must be seconds"),
            ("byoyomi 60 inf 5", "period must be seconds"),
            ("byoyomi 60 30 -1", "periods must be a whole number"),
            ("canadian 60 30 1000001", "stones must be a whole number"),
            (
                "fischer-capped 60 5 30 -1",
                "main time limit 30 is below the main time 60",
            ),
            ("fischer-capped 60 5 -1 1e9", "time per move limit"),
            ("fischer-capped 60 5 -1e9 -1", "main time limit"),
        ];
        for (line, why) in cases {
            match parse(line) {
                Err(GtpError::Argument(text)) => assert!(text.contains(why), "{line}: {text}"),
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn cpu_time_grows_with_work() {
        let before = cpu_seconds();
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while cpu_seconds() - before < 0.01 && started.elapsed().as_secs() < 10 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        assert!(cpu_seconds() >= before + 0.01, "{before} {}", cpu_seconds());
    }
}
