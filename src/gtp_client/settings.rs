//! The GTP text that tells another engine the game's settings: its time system, the time a
//! colour has left, and its rules.

use std::collections::HashSet;

use crate::board::Color;
use crate::game::clock::TimeSystem;
use crate::game::{KoRule, Rules, Scoring};

/// The command that gives an engine `system`: `time_settings`, or `kgs-time_settings
/// byoyomi` when the system is Japanese byo-yomi and `kgs` says the engine lists that command
/// (else byo-yomi is sent as Canadian periods of one stone). Seconds are rounded.
pub fn time_settings(system: TimeSystem, kgs: bool) -> String {
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

/// `time_left` for `c` with `seconds` (whole seconds, rounded down) and `count` stones or
/// periods left (0 in main time).
pub fn time_left(c: Color, seconds: f64, count: u32) -> String {
    format!("time_left {c} {} {count}", seconds.floor() as u64)
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
        let cases = [
            (TimeSystem::None, true, "time_settings 0 1 0"),
            (
                TimeSystem::Absolute { main: 299.6 },
                true,
                "time_settings 300 0 0",
            ),
            (
                TimeSystem::from_time_settings(300.0, 30.0, 5),
                true,
                "time_settings 300 30 5",
            ),
            (byoyomi, true, "kgs-time_settings byoyomi 60 10 5"),
            (byoyomi, false, "time_settings 60 10 1"),
        ];
        for (system, kgs, wanted) in cases {
            assert_eq!(time_settings(system, kgs), wanted, "{system:?} {kgs}");
        }
        assert_eq!(time_left(Color::White, 12.7, 3), "time_left white 12 3");
        assert_eq!(time_left(Color::Black, 0.0, 0), "time_left black 0 0");
        // Numbers no clock holds give commands, not a panic.
        for wild in [f64::NAN, f64::INFINITY, -1e300] {
            let system = TimeSystem::Byoyomi {
                main: wild,
                period: wild,
                periods: 1,
            };
            assert!(time_settings(system, true).starts_with("kgs-time_settings"));
            assert!(time_left(Color::Black, wild, 1).starts_with("time_left black"));
        }
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
