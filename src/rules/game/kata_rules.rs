//! KataGo's rules (`cpp/game/rules.h`) beside tengen's: which of KataGo's rules each of
//! tengen's rule sets is played as (what the net is told and `kata-get-rules` answers), and
//! KataGo's rule texts read into tengen's (`kata-set-rules`, `kata-set-rule`, an analysis
//! query's `rules`): a name, or a JSON object of KataGo's fields.

use serde_json::Value;

use super::{HandicapBonus, KoRule, Rules, Scoring, checked_komi};

/// KataGo's rules (`cpp/game/rules.h`) as far as tengen's rule sets reach them: no button and
/// no group tax but under territory scoring's seki tax.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct KataRules {
    pub ko: KoRule,
    pub scoring: Scoring,
    /// Territory scoring taxes points in seki (`TAX_SEKI`); area scoring taxes nothing.
    pub tax_seki: bool,
    pub multi_stone_suicide_legal: bool,
    pub handicap_bonus: HandicapBonus,
    /// A pass that ends the game while dead stones remain is not taken as ending it.
    pub friendly_pass_ok: bool,
    pub komi: f32,
}

impl KataRules {
    /// The KataGo rules each of tengen's rule sets is fed as, the ones `kgs-rules` selects in
    /// KataGo's GTP:
    ///
    /// | tengen (`Rules::named`)                     | KataGo         | ko          | suicide | handicap bonus | friendly pass |
    /// |---------------------------------------------|----------------|-------------|---------|----------------|---------------|
    /// | `chinese` (area, positional, no suicide)     | `chinese-kgs`  | positional  | no      | N              | yes           |
    /// | `aga` (area, situational, no suicide)        | `aga`          | situational | no      | N-1            | yes           |
    /// | `japanese`, `korean` (territory, simple ko)  | `japanese`     | simple      | no      | 0 (seki tax)   | no            |
    /// | `tromp-taylor`, `new_zealand` (area, positional, suicide) | `tromp-taylor` | positional | yes | 0       | no            |
    ///
    /// Any other combination keeps its ko rule, scoring and suicide, with the handicap bonus
    /// and friendly pass of the row above that shares its scoring and suicide (area without
    /// suicide: N, or N-1 under situational superko).
    pub fn from_rules(rules: &Rules) -> KataRules {
        let area = rules.scoring == Scoring::Area;
        let handicap_bonus = rules.handicap_bonus();
        KataRules {
            ko: rules.ko,
            scoring: rules.scoring,
            tax_seki: !area,
            multi_stone_suicide_legal: rules.suicide_allowed,
            handicap_bonus,
            friendly_pass_ok: area && !rules.suicide_allowed,
            komi: rules.komi as f32,
        }
    }
}

impl KataRules {
    /// KataGo's JSON form without the komi, its fields in the order `kata-get-rules` gives them.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"hasButton\":false,\"ko\":\"{}\",\"scoring\":\"{}\",\"suicide\":{},\"tax\":\"{}\",\"whiteHandicapBonus\":\"{}\",\"friendlyPassOk\":{}}}",
            match self.ko {
                KoRule::Simple => "SIMPLE",
                KoRule::PositionalSuperko => "POSITIONAL",
                KoRule::SituationalSuperko => "SITUATIONAL",
            },
            match self.scoring {
                Scoring::Area => "AREA",
                Scoring::Territory => "TERRITORY",
            },
            self.multi_stone_suicide_legal,
            if self.tax_seki { "SEKI" } else { "NONE" },
            match self.handicap_bonus {
                HandicapBonus::Zero => "0",
                HandicapBonus::N => "N",
                HandicapBonus::NMinusOne => "N-1",
            },
            self.friendly_pass_ok,
        )
    }
}

crate::ground::error::message_error!(
    /// Why a rule text was refused.
    RulesError
);

fn refuse(why: impl Into<String>) -> RulesError {
    RulesError(why.into())
}

/// The rules a `kata-set-rules` text names, the komi kept: one of [`Rules::named`]'s names, or
/// a JSON object of KataGo's fields (see [`set_field`]) over Tromp-Taylor, as KataGo reads it.
pub fn parse(text: &str, komi: f64) -> Result<Rules, RulesError> {
    let text = text.trim();
    if text.starts_with('{') {
        let value: Value =
            serde_json::from_str(text).map_err(|e| refuse(format!("not JSON rules: {e}")))?;
        from_value(&value, Some(komi), false)
    } else {
        Rules::named(text, komi).ok_or_else(|| refuse(format!("unknown rules {text:?}")))
    }
}

/// The rules an analysis query's `rules` gives: a name or a JSON object (which may hold the
/// `komi` where `komi_allowed`). The komi is `komi` if given, else the object's, else
/// KataGo's default for the scoring (6.5 under territory, 7.5 under area).
pub fn from_value(
    value: &Value,
    komi: Option<f64>,
    komi_allowed: bool,
) -> Result<Rules, RulesError> {
    let default_komi = |rules: &Rules| match rules.scoring {
        Scoring::Territory => 6.5,
        Scoring::Area => 7.5,
    };
    match value {
        Value::String(name) => {
            let rules =
                Rules::named(name, 0.0).ok_or_else(|| refuse(format!("unknown rules {name:?}")))?;
            Ok(Rules {
                komi: komi.unwrap_or(default_komi(&rules)),
                ..rules
            })
        }
        Value::Object(fields) => {
            let mut rules = Rules::tromp_taylor(0.0);
            let mut own_komi = None;
            for (key, field) in fields {
                if key == "komi" && komi_allowed {
                    own_komi = Some(
                        field
                            .as_f64()
                            .and_then(checked_komi)
                            .ok_or_else(|| refuse("komi must be a number"))?,
                    );
                    continue;
                }
                let text = match field {
                    Value::String(text) => text.clone(),
                    Value::Bool(flag) => flag.to_string(),
                    _ => return Err(refuse(format!("rules field {key}: a string or a boolean"))),
                };
                rules = set_field(&rules, key, &text)?;
            }
            Ok(Rules {
                komi: komi.or(own_komi).unwrap_or(default_komi(&rules)),
                ..rules
            })
        }
        _ => Err(refuse("rules must be a name or a JSON object")),
    }
}

/// `rules` with KataGo's field `key` set to `value` (`kata-set-rule`): `ko` (`SIMPLE`,
/// `POSITIONAL`, `SITUATIONAL`), `scoring` or `score` (`AREA`, `TERRITORY`) and `suicide`
/// (`true`, `false`) are played as given. KataGo's other fields are checked and accepted but
/// tengen's rule set decides them, as [`KataRules::from_rules`] says: `tax` (`NONE`, `SEKI`,
/// `ALL`), `hasButton`, `whiteHandicapBonus` (`0`, `N-1`, `N`), `friendlyPassOk`.
pub fn set_field(rules: &Rules, key: &str, value: &str) -> Result<Rules, RulesError> {
    let upper = value.trim().to_ascii_uppercase();
    let flag = || match upper.as_str() {
        "TRUE" | "1" => Ok(true),
        "FALSE" | "0" => Ok(false),
        _ => Err(refuse(format!(
            "rules field {key}: true or false, not {value:?}"
        ))),
    };
    let one_of = |allowed: &[&str]| {
        if allowed.contains(&upper.as_str()) {
            Ok(())
        } else {
            Err(refuse(format!(
                "rules field {key}: one of {}, not {value:?}",
                allowed.join(", ")
            )))
        }
    };
    let mut rules = *rules;
    match key {
        "ko" => {
            one_of(&["SIMPLE", "POSITIONAL", "SITUATIONAL"])?;
            rules.ko = match upper.as_str() {
                "SIMPLE" => KoRule::Simple,
                "POSITIONAL" => KoRule::PositionalSuperko,
                _ => KoRule::SituationalSuperko,
            };
        }
        "scoring" | "score" => {
            one_of(&["AREA", "TERRITORY"])?;
            rules.scoring = if upper == "AREA" {
                Scoring::Area
            } else {
                Scoring::Territory
            };
        }
        "suicide" => rules.suicide_allowed = flag()?,
        "tax" => one_of(&["NONE", "SEKI", "ALL"])?,
        "whiteHandicapBonus" => one_of(&["0", "N-1", "N"])?,
        "hasButton" | "friendlyPassOk" => {
            flag()?;
        }
        _ => return Err(refuse(format!("unknown rules field {key:?}"))),
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn played(rules: &Rules) -> String {
        KataRules::from_rules(rules).to_json()
    }

    #[test]
    fn each_rule_set_reads_back_as_katago_writes_it() {
        assert_eq!(
            played(&Rules::chinese(7.5)),
            r#"{"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N","friendlyPassOk":true}"#
        );
        assert_eq!(
            played(&Rules::japanese(6.5)),
            r#"{"hasButton":false,"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI","whiteHandicapBonus":"0","friendlyPassOk":false}"#
        );
        // What one rule set writes, the parser reads back to the same rules.
        for name in ["chinese", "aga", "japanese", "tromp-taylor"] {
            let rules = Rules::named(name, 5.5).unwrap();
            assert_eq!(parse(&played(&rules), 5.5), Ok(rules), "{name}");
        }
    }

    #[test]
    fn names_and_objects_are_read_as_katago_reads_them() {
        assert_eq!(parse(" Japanese ", 0.5), Ok(Rules::japanese(0.5)));
        assert_eq!(parse("chinese-ogs", 7.0), Ok(Rules::chinese(7.0)));
        // An object starts from Tromp-Taylor.
        let situational = parse(r#"{"ko": "situational"}"#, 7.5).unwrap();
        assert_eq!(
            situational,
            Rules {
                ko: KoRule::SituationalSuperko,
                ..Rules::tromp_taylor(7.5)
            }
        );
        assert_eq!(
            parse(
                r#"{"scoring":"TERRITORY","suicide":false,"ko":"SIMPLE"}"#,
                6.5
            ),
            Ok(Rules::japanese(6.5))
        );
        // KataGo's fields that tengen's rule set decides are checked all the same.
        assert!(parse(r#"{"tax":"SEKI","hasButton":false}"#, 7.5).is_ok());
        for bad in [
            "go-by-feel",
            "{",
            "[]",
            r#"{"ko":"SPIGHTY"}"#,
            r#"{"suicide":"maybe"}"#,
            r#"{"suicide":3}"#,
            r#"{"tax":"SOME"}"#,
            r#"{"whiteHandicapBonus":"N+1"}"#,
            r#"{"komi":6.5}"#,
            r#"{"colour":"black"}"#,
        ] {
            assert!(parse(bad, 7.5).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_query_gives_the_komi_or_takes_the_default_for_the_scoring() {
        let japanese = from_value(&json!("japanese"), None, true).unwrap();
        assert_eq!(japanese, Rules::japanese(6.5));
        let object = from_value(
            &json!({"scoring": "TERRITORY", "ko": "SIMPLE"}),
            Some(0.5),
            true,
        );
        assert_eq!(object.map(|r| (r.komi, r.ko)), Ok((0.5, KoRule::Simple)));
        let own = from_value(&json!({"komi": 3.5}), None, true).unwrap();
        assert_eq!(own.komi, 3.5);
        assert!(from_value(&json!({"komi": 1e9}), None, true).is_err());
        assert!(from_value(&json!(7), None, true).is_err());
    }

    #[test]
    fn one_field_changes_and_the_rest_stay() {
        let chinese = Rules::chinese(7.5);
        let simple = set_field(&chinese, "ko", "simple").unwrap();
        assert_eq!(
            simple,
            Rules {
                ko: KoRule::Simple,
                ..chinese
            }
        );
        assert_eq!(
            set_field(&chinese, "suicide", "1").map(|r| r.suicide_allowed),
            Ok(true)
        );
        assert_eq!(
            set_field(&chinese, "score", "territory").map(|r| r.scoring),
            Ok(Scoring::Territory)
        );
        assert_eq!(set_field(&chinese, "friendlyPassOk", "false"), Ok(chinese));
        assert!(set_field(&chinese, "ko", "").is_err());
        assert!(set_field(&chinese, "Ko", "SIMPLE").is_err());
    }
}
