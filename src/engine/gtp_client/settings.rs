//! The GTP text that tells another engine the game's settings: its time system, the time a
//! colour has left, and its rules.

use std::collections::HashSet;

use crate::rules::board::Color;
use crate::rules::game::clock::{Seconds, TimeSystem};
use crate::rules::game::{KoRule, Rules, Scoring};

/// The time commands an engine takes beyond `time_settings` and `time_left`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeCommands {
    /// `kgs-time_settings`: Japanese byo-yomi is sent as such.
    pub kgs: bool,
    /// `kata-time_settings` with `fischer-capped`: a Fischer clock is sent as such.
    pub kata_fischer: bool,
}

impl TimeCommands {
    /// What an engine listing `commands` takes (KataGo lists `kata-time_settings` with every
    /// kind it knows).
    pub fn listed(commands: &HashSet<String>) -> TimeCommands {
        TimeCommands {
            kgs: commands.contains("kgs-time_settings"),
            kata_fischer: commands.contains("kata-time_settings"),
        }
    }
}

/// Seconds as `kata-time_settings` and `time_left` take a fraction: floored to a tenth.
fn tenths(seconds: f64) -> String {
    let tenths = (seconds.clamp(0.0, Seconds::MAX_CLOCK) * 10.0).floor() / 10.0;
    format!("{tenths}")
}

/// The command that gives an engine taking `takes` the time system `system`: `time_settings`;
/// `kgs-time_settings byoyomi` for Japanese byo-yomi when it takes that (else byo-yomi is sent
/// as Canadian periods of one stone); `kata-time_settings fischer-capped` for Fischer when it
/// takes that, else, as gtp2ogs sends it, Canadian periods of one stone as long as the
/// increment after main time less the increment. Whole seconds are rounded, except in
/// `kata-time_settings`.
pub fn time_settings(system: TimeSystem, takes: TimeCommands) -> String {
    let secs = |s: f64| s.round() as u64;
    match system {
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
        } if takes.kgs => format!(
            "kgs-time_settings byoyomi {} {} {periods}",
            secs(main),
            secs(period)
        ),
        TimeSystem::Byoyomi { main, period, .. } => {
            format!("time_settings {} {} 1", secs(main), secs(period))
        }
        TimeSystem::Fischer {
            main,
            increment,
            max_main,
            max_move,
        } if takes.kata_fischer => {
            let cap = |c: Option<f64>| c.map_or_else(|| "-1".to_string(), tenths);
            format!(
                "kata-time_settings fischer-capped {} {} {} {}",
                tenths(main),
                tenths(increment),
                cap(max_main),
                cap(max_move)
            )
        }
        TimeSystem::Fischer {
            main, increment, ..
        } if secs(increment) == 0 => format!("time_settings {} 0 0", secs(main)),
        TimeSystem::Fischer {
            main, increment, ..
        } => format!(
            "time_settings {} {} 1",
            secs(main).saturating_sub(secs(increment)),
            secs(increment)
        ),
    }
}

/// `time_left` for `c` with `seconds` and `count` stones or periods left (0 in main time),
/// to an engine given `system` as [`time_settings`] gives it to one taking `takes`: whole
/// seconds, rounded down but never to 0 while time is left (`time_left c 0 0` says the time
/// is up, and Pachi 12.90 aborts on it), except a tenth for `kata-time_settings`; a Fischer
/// clock sent as Canadian periods is in main time while it holds more than the increment, as
/// gtp2ogs reports it.
pub fn time_left(
    system: TimeSystem,
    takes: TimeCommands,
    c: Color,
    seconds: f64,
    count: u32,
) -> String {
    let whole = |s: f64| {
        let s = s.clamp(0.0, Seconds::MAX_CLOCK);
        if s > 0.0 {
            s.floor().max(1.0) as u64
        } else {
            0
        }
    };
    match system {
        TimeSystem::Fischer { .. } if takes.kata_fischer => {
            format!("time_left {c} {} 0", tenths(seconds))
        }
        TimeSystem::Fischer { increment, .. } if increment.round() > 0.0 => {
            let main = seconds - increment.round();
            if main > 0.0 {
                format!("time_left {c} {} 0", whole(main))
            } else {
                format!("time_left {c} {} 1", whole(seconds))
            }
        }
        TimeSystem::Fischer { .. } => format!("time_left {c} {} 0", whole(seconds)),
        _ => format!("time_left {c} {} {count}", whole(seconds)),
    }
}

/// The command that gives an engine listing `commands` the rules: `kata-set-rules` or
/// `kgs-rules`, whichever it lists; `None` when it lists neither (it plays its own rules).
pub fn rules(rules: &Rules, commands: &HashSet<String>) -> Option<String> {
    let name = match (rules.scoring, rules.ko, rules.suicide_allowed) {
        (_, _, true) => "new_zealand",
        (Scoring::Territory, _, _) => "japanese",
        (Scoring::Area, KoRule::SituationalSuperko, _) => "aga",
        (Scoring::Area, _, _) => "chinese",
    };
    if commands.contains("kata-set-rules") {
        let kata = if name == "new_zealand" {
            "tromp-taylor"
        } else {
            name
        };
        Some(format!("kata-set-rules {kata}"))
    } else if commands.contains("kgs-rules") {
        Some(format!("kgs-rules {name}"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_time_system_has_its_gtp_form() {
        let byoyomi = TimeSystem::Byoyomi {
            main: 60.0,
            period: 10.0,
            periods: 5,
        };
        let kgs = TimeCommands {
            kgs: true,
            kata_fischer: false,
        };
        let plain = TimeCommands::default();
        let cases = [
            (TimeSystem::None, kgs, "time_settings 0 1 0"),
            (
                TimeSystem::Absolute { main: 299.6 },
                kgs,
                "time_settings 300 0 0",
            ),
            (
                TimeSystem::from_time_settings(300.0, 30.0, 5),
                kgs,
                "time_settings 300 30 5",
            ),
            (byoyomi, kgs, "kgs-time_settings byoyomi 60 10 5"),
            (byoyomi, plain, "time_settings 60 10 1"),
        ];
        for (system, takes, wanted) in cases {
            assert_eq!(time_settings(system, takes), wanted, "{system:?} {takes:?}");
        }
        let left = |seconds, count| time_left(byoyomi, plain, Color::White, seconds, count);
        assert_eq!(left(12.7, 3), "time_left white 12 3");
        assert_eq!(left(0.0, 0), "time_left white 0 0");
        assert_eq!(left(0.4, 0), "time_left white 1 0");
        // A correspondence clock goes on as it is: days of main time, a day a period.
        let week = TimeSystem::Byoyomi {
            main: 604_800.0,
            period: 86_400.0,
            periods: 5,
        };
        assert_eq!(
            time_settings(week, kgs),
            "kgs-time_settings byoyomi 604800 86400 5"
        );
        assert_eq!(left(200_000.4, 0), "time_left white 200000 0");
        // Numbers no clock holds give commands, not a panic.
        for wild in [f64::NAN, f64::INFINITY, -1e300] {
            let system = TimeSystem::Byoyomi {
                main: wild,
                period: wild,
                periods: 1,
            };
            assert!(time_settings(system, kgs).starts_with("kgs-time_settings"));
            assert!(left(wild, 1).starts_with("time_left white"));
            let fischer = TimeSystem::Fischer {
                main: wild,
                increment: wild,
                max_main: Some(wild),
                max_move: None,
            };
            for takes in [
                kgs,
                TimeCommands::listed(&HashSet::from(["kata-time_settings".into()])),
            ] {
                assert!(time_settings(fischer, takes).contains("time_settings "));
                assert!(
                    time_left(fischer, takes, Color::Black, wild, 1).starts_with("time_left black")
                );
            }
        }
    }

    /// Fischer goes to an engine that lists `kata-time_settings` as gtp2ogs sends it
    /// (`fischer-capped`, -1 for no cap, with its time in main time); to any other as Canadian
    /// periods of one stone as long as the increment, which it is in while it holds no more
    /// than the increment.
    #[test]
    fn fischer_is_sent_as_kata_time_settings_or_as_gtp2ogs_emulates_it() {
        let kata = TimeCommands::listed(&HashSet::from([
            "kata-time_settings".to_string(),
            "kgs-time_settings".to_string(),
        ]));
        assert!(kata.kata_fischer && kata.kgs);
        let plain = TimeCommands::default();
        let fischer = TimeSystem::Fischer {
            main: 300.0,
            increment: 2.5,
            max_main: Some(600.0),
            max_move: None,
        };
        assert_eq!(
            time_settings(fischer, kata),
            "kata-time_settings fischer-capped 300 2.5 600 -1"
        );
        assert_eq!(
            time_left(fischer, kata, Color::Black, 17.96, 0),
            "time_left black 17.9 0"
        );
        // 2.5 s rounds to 3 s periods; 297 s of main time.
        assert_eq!(time_settings(fischer, plain), "time_settings 297 3 1");
        assert_eq!(
            time_left(fischer, plain, Color::White, 17.9, 0),
            "time_left white 14 0"
        );
        assert_eq!(
            time_left(fischer, plain, Color::White, 2.9, 0),
            "time_left white 2 1"
        );
        // Without an increment it is sudden death.
        let no_increment = TimeSystem::Fischer {
            main: 60.0,
            increment: 0.2,
            max_main: None,
            max_move: Some(5.0),
        };
        assert_eq!(time_settings(no_increment, plain), "time_settings 60 0 0");
        assert_eq!(
            time_left(no_increment, plain, Color::White, 0.0, 0),
            "time_left white 0 0"
        );
        assert_eq!(
            time_settings(no_increment, kata),
            "kata-time_settings fischer-capped 60 0.2 -1 5"
        );
    }

    #[test]
    fn rules_go_by_the_command_the_engine_lists() {
        let listing = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        let kata = listing(&["kata-set-rules", "kgs-rules"]);
        let kgs = listing(&["kgs-rules"]);
        let cases = [
            (Rules::japanese(6.5), &kata, Some("kata-set-rules japanese")),
            (
                Rules::tromp_taylor(7.5),
                &kata,
                Some("kata-set-rules tromp-taylor"),
            ),
            (
                Rules::tromp_taylor(7.5),
                &kgs,
                Some("kgs-rules new_zealand"),
            ),
            (Rules::chinese(7.5), &kgs, Some("kgs-rules chinese")),
            (Rules::chinese(7.5), &HashSet::new(), None),
        ];
        for (given, commands, wanted) in cases {
            assert_eq!(rules(&given, commands).as_deref(), wanted, "{given:?}");
        }
    }
}
