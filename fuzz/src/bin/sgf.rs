//! AFL++ target: `harness::sgf_text` (see docs/FUZZING.md).

#[path = "../../../tests/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

fn main() {
    afl::fuzz!(|data: &[u8]| harness::sgf_text(data));
}
