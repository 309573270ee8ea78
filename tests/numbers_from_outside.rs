//! Numbers from outside (GTP arguments, SGF properties, analysis queries, engines.toml, the
//! command line) are checked at the edge: out of range is a clear error, never a panic, a
//! runaway allocation or an endless think (issue 33). Each test drives the real binary.

mod common;

use common::{Gtp, tengen_path};

/// Every clock time above a day (or not finite) is `? syntax error`, the clock is left as it
/// was, and the next genmove answers with a move.
#[test]
fn clock_times_are_at_most_a_day() {
    for command in [
        "time_settings 1e300 0 0",
        "time_settings 1e21 0 0",
        "time_settings 5e20 0 0",
        "time_settings 0 1e300 1",
        "time_settings 86401 0 0",
        "time_settings nan 0 0",
        "kgs-time_settings absolute 1e300",
        "kgs-time_settings byoyomi 0 1e300 1",
        "kgs-time_settings canadian 1e300 0 1",
        "time_left b 1e308 0",
        "time_left w inf 0",
    ] {
        let mut engine = Gtp::tengen("easy");
        engine.ok("boardsize 9");
        assert_eq!(
            engine.send(command),
            Err("syntax error".into()),
            "{command}"
        );
        let answer = engine.ok("genmove b");
        assert!(!answer.is_empty(), "{command}: {answer}");
        assert_eq!(engine.quit(), Some(0), "{command}");
    }
    let mut engine = Gtp::tengen("easy");
    engine.ok("boardsize 9");
    for command in [
        "time_settings 86400 86400 25",
        "kgs-time_settings byoyomi 86400 86400 5",
        "time_left b 86400 0",
        "time_left w -3 0",
    ] {
        engine.ok(command);
        engine.ok("genmove b");
    }
    assert_eq!(engine.quit(), Some(0));
}
