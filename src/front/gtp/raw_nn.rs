//! `kata-raw-nn [COLOR] (0-7|all) [OPTIMISM]`: the net's raw answer for the position, as
//! KataGo's GTP prints it, line for line.

use std::fmt::Write;

use super::protocol::GtpError;
use crate::knowledge::net::NetOutput;
use crate::rules::board::Color;

/// Symmetries of the square board.
const SYMMETRIES: usize = 8;

/// What `kata-raw-nn` asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct RawNnArgs {
    /// The player to evaluate for (`None`: the one to move).
    pub color: Option<Color>,
    /// The symmetries to evaluate under, one after the other.
    pub symmetries: Vec<usize>,
    /// The policy optimism (`None`: the default).
    pub optimism: Option<f32>,
}

/// Parses the arguments as KataGo does: an optional leading colour, a required symmetry
/// (`all` or 0-7), an optional trailing optimism in [0, 1], nothing more.
pub fn parse(args: &[String]) -> Result<RawNnArgs, GtpError> {
    const EXPECTED: &str = "for kata-raw-nn (expected an optional color, a symmetry 'all' or \
                            index [0-7], and an optional optimism [0-1])";
    let fail = |why: String| GtpError::Argument(format!("{why} {EXPECTED}"));
    let mut rest = args;
    let mut color = None;
    if let Some((first, tail)) = rest.split_first()
        && let Ok(c) = first.parse::<Color>()
    {
        color = Some(c);
        rest = tail;
    }
    let Some((symmetry, mut rest)) = rest.split_first() else {
        return Err(fail(
            "Expected a symmetry argument 'all' or index [0-7]".into(),
        ));
    };
    let symmetries = match symmetry.to_ascii_lowercase().as_str() {
        "all" => (0..SYMMETRIES).collect(),
        s => match s.parse::<usize>() {
            Ok(n) if n < SYMMETRIES => vec![n],
            _ => {
                return Err(fail(format!(
                    "Expected a symmetry argument 'all' or index [0-7] but got '{symmetry}'"
                )));
            }
        },
    };
    let mut optimism = None;
    if let Some((text, tail)) = rest.split_first() {
        match text.parse::<f32>() {
            Ok(x) if (0.0..=1.0).contains(&x) => optimism = Some(x),
            _ => {
                return Err(fail(format!(
                    "Expected an optimism value in [0,1] but got '{text}'"
                )));
            }
        }
        rest = tail;
    }
    if let Some(extra) = rest.first() {
        return Err(fail(format!("Unexpected extra argument '{extra}'")));
    }
    Ok(RawNnArgs {
        color,
        symmetries,
        optimism,
    })
}

/// One symmetry's answer in KataGo's words and number formats: six decimals for win and
/// loss, three for the scores, `%8.6f` policy rows with `NAN` on illegal points, `%9.7f`
/// ownership rows.
pub fn format(out: &NetOutput) -> String {
    let mut text = String::new();
    let size = out.size;
    // Writing to a String cannot fail.
    let _ = writeln!(text, "symmetry {}", out.symmetry);
    for (name, value) in [
        ("whiteWin", out.white_win),
        ("whiteLoss", out.white_loss),
        ("noResult", out.no_result),
    ] {
        let _ = writeln!(text, "{name} {value:.6}");
    }
    for (name, value) in [
        ("whiteLead", out.white_lead),
        ("whiteScoreSelfplay", out.white_score_selfplay),
        ("whiteScoreSelfplaySq", out.white_score_selfplay_sq),
        ("varTimeLeft", out.var_time_left),
        ("shorttermWinlossError", out.shortterm_winloss_error),
        ("shorttermScoreError", out.shortterm_score_error),
    ] {
        let _ = writeln!(text, "{name} {value:.3}");
    }
    let probability = |p: f32| {
        if p.is_nan() {
            "    NAN ".to_string()
        } else {
            format!("{p:8.6} ")
        }
    };
    text.push_str("policy\n");
    for row in out.policy.chunks(size) {
        let line: String = row.iter().map(|&p| probability(p)).collect();
        let _ = writeln!(text, "{line}");
    }
    let _ = writeln!(text, "policyPass {}", probability(out.policy_pass));
    text.push_str("whiteOwnership\n");
    for row in out.white_ownership.chunks(size) {
        let line: String = row.iter().map(|o| format!("{o:9.7} ")).collect();
        let _ = writeln!(text, "{line}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::gtp::protocol::args_of as args;

    #[test]
    fn arguments_follow_katago() {
        let parsed = parse(&args("0")).unwrap();
        assert_eq!(
            (parsed.color, parsed.symmetries, parsed.optimism),
            (None, vec![0], None)
        );
        let parsed = parse(&args("W all 0.5")).unwrap();
        assert_eq!(parsed.color, Some(Color::White));
        assert_eq!(parsed.symmetries, (0..8).collect::<Vec<_>>());
        assert_eq!(parsed.optimism, Some(0.5));
        assert_eq!(parse(&args("black 7")).unwrap().color, Some(Color::Black));
        for bad in [
            "", "b", "8", "-1", "x", "0 1.5", "0 nan", "0 0.2 1", "all b",
        ] {
            let err = parse(&args(bad)).unwrap_err();
            assert!(
                err.to_string().contains("for kata-raw-nn"),
                "{bad:?}: {err}"
            );
        }
    }

    #[test]
    fn output_is_katagos_format() {
        let out = NetOutput {
            size: 2,
            symmetry: 3,
            white_win: 0.25,
            white_loss: 0.75,
            no_result: 0.0,
            white_lead: -1.5,
            white_score_selfplay: -1.25,
            white_score_selfplay_sq: 10.0,
            var_time_left: -1.0,
            shortterm_winloss_error: -1.0,
            shortterm_score_error: -1.0,
            policy: vec![0.5, f32::NAN, 0.25, 0.125],
            policy_pass: 0.125,
            white_ownership: vec![0.5, -0.25, 1.0, -1.0],
        };
        let expected = "symmetry 3\nwhiteWin 0.250000\nwhiteLoss 0.750000\nnoResult 0.000000\n\
            whiteLead -1.500\nwhiteScoreSelfplay -1.250\nwhiteScoreSelfplaySq 10.000\n\
            varTimeLeft -1.000\nshorttermWinlossError -1.000\nshorttermScoreError -1.000\n\
            policy\n0.500000     NAN \n0.250000 0.125000 \npolicyPass 0.125000 \n\
            whiteOwnership\n0.5000000 -0.2500000 \n1.0000000 -1.0000000 \n";
        assert_eq!(format(&out), expected);
    }
}
