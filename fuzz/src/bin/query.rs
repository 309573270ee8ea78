//! AFL++ target: `harness::analysis_query` (see docs/FUZZING.md).

#[path = "../../../tests/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

fn main() {
    afl::fuzz!(|data: &[u8]| harness::analysis_query(data));
}
