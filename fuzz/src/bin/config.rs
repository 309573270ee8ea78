//! AFL++ target: `harness::engines_toml` (see docs/FUZZING.md).

#[path = "../../../tests/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

fn main() {
    afl::fuzz!(|data: &[u8]| harness::engines_toml(data));
}
