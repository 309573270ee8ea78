#!/usr/bin/env bash
# Runs one AFL++ target: fuzz/run.sh TARGET [SECONDS] (TARGET: gtp, sgf, config, query, model;
# SECONDS: how long, default 600). Findings land in fuzz/out/TARGET/default/{crashes,hangs}.
# Needs `cargo install cargo-afl` once (it builds AFL++); see docs/FUZZING.md.
set -euo pipefail
target=${1:?usage: fuzz/run.sh gtp|sgf|config|query|model [seconds]}
seconds=${2:-600}
cd "$(dirname "$0")"
cargo afl build --release --bin "$target"
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
# FUZZ_UI=1 shows AFL's screen (AFL++ takes AFL_NO_UI set to anything, even 0, as set).
[ -n "${FUZZ_UI:-}" ] || export AFL_NO_UI=1
# Threads (the GTP reader, search, scorer) make coverage vary a little: calibrate briefly.
export AFL_FAST_CAL=1
# A second run resumes the same output folder instead of starting over. The model target's
# seeds are synthetic nets written here (no net is kept in the repository).
input=fuzz/corpus/$target
if [ "$target" = model ]; then
    cargo run --release --bin model_seeds -- out/model-seeds
    input=fuzz/out/model-seeds
fi
[ -d "out/$target/default/queue" ] && input=-
# CmpLog (cargo afl's -c0) helps the parsers; for the GTP target, whose inputs run whole
# sessions, its colorization stage costs more than it finds (the dictionary has the words).
cmplog=()
[ "$target" = gtp ] && cmplog=(-c -)
# From the repository root, so that `loadsgf` paths in the GTP corpus resolve.
cd ..
mkdir -p fuzz/out
exec cargo afl fuzz "${cmplog[@]}" -i "$input" -o "fuzz/out/$target" -x "fuzz/dict/$target.dict" \
    -t 1000 -V "$seconds" -- "fuzz/target/release/$target"
