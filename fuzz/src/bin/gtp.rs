//! AFL++ target: `harness::gtp_session_scoring` without scoring commands (see docs/FUZZING.md).

#[path = "../../../tests/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

fn main() {
    harness::warm_up();
    afl::fuzz!(|data: &[u8]| harness::gtp_session_scoring(data, 0));
}
