//! AFL++ target: `harness::model_file` (see docs/FUZZING.md).

#[path = "../../../tests/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

fn main() {
    afl::fuzz!(|data: &[u8]| harness::model_file(data));
}
