#!/usr/bin/env bash
# Fuzz every input parser with libFuzzer (cargo fuzz, nightly Rust) for SECONDS each, starting
# from the seed corpora in fuzz/seeds/, and print executions, crashes, hangs and out-of-memory
# inputs per target. An input that crashed or hung is left in fuzz/artifacts/TARGET/; copy it
# to fuzz/regressions/TARGET/ once fixed, so tests/fuzz_regressions.rs replays it forever.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      default: 30 s, every target
#   FUZZ_SEED=N fixes libFuzzer's seed, so a short run tries the same inputs each time (CI).
#   FUZZ_JOBS=N fuzzes N targets at a time (default: the number of processors), each target
#   still for SECONDS of its own; the table is printed in the targets' order at the end.
#   FUZZ_BUILD=dev fuzzes cargo's dev build of the targets (debug assertions and overflow
#   checks on, half the build's CPU time, several times fewer executions per second: what
#   scripts/test.sh's short run uses); the default is `release`, for long runs.
#   FUZZ_SANITIZER=none builds the targets without AddressSanitizer (cargo fuzz's default,
#   `address`, is for long runs: it finds memory errors only in unsafe and C code, and costs
#   build time and executions; scripts/test.sh's short run looks for panics, hangs and memory
#   blow-ups in the parsers, which the uninstrumented build finds too).
#
# Exit status: 0 when no target found anything, 1 otherwise, 2 when nightly is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(trace_reader flash_trace spec_toml spec_json spec_properties sql_splitter advise_text meter_csv device_text study_plan submission login_form import_logcat import_sqlite_trace import_phonelab import_dumpsys import_jsonl fs_recording trace_upload)
fi

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz.sh: nightly Rust is needed (rustup toolchain install nightly)" >&2
    exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked --quiet
fi

case "${FUZZ_BUILD:-release}" in
    release) build=() ;;
    dev) build=(--dev) ;;
    *) echo "fuzz.sh: FUZZ_BUILD='${FUZZ_BUILD}': expected release or dev" >&2; exit 2 ;;
esac
case "${FUZZ_SANITIZER:-address}" in
    address|none) build+=(--sanitizer "${FUZZ_SANITIZER:-address}") ;;
    *) echo "fuzz.sh: FUZZ_SANITIZER='${FUZZ_SANITIZER}': expected address or none" >&2; exit 2 ;;
esac

build_log=$(mktemp)
if ! (cd fuzz && cargo +nightly fuzz build "${build[@]}") >"$build_log" 2>&1; then
    cat "$build_log" >&2
    exit 1
fi
rm -f "$build_log"

jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in
    ''|*[!0-9]*|0) echo "fuzz.sh: FUZZ_JOBS='$jobs': expected a positive number" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One target: its table line in $work/N.line, and what it found in $work/N.found.
fuzz_one() {
    local n=$1 t=$2
    local corpus=fuzz/corpus/$t artifacts=fuzz/artifacts/$t log=$work/$n.log
    mkdir -p "$corpus" "$artifacts"
    cp -n fuzz/seeds/"$t"/* "$corpus"/ 2>/dev/null || true
    # -timeout: an input taking longer is a hang; -rss_limit_mb: one using more is a leak or
    # an unbounded allocation.
    cargo +nightly fuzz run "${build[@]}" "$t" "$corpus" -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        >"$log" 2>&1 || true
    local execs crashes hangs ooms
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    crashes=$(find "$artifacts" -name 'crash-*' | wc -l)
    hangs=$(find "$artifacts" -name 'timeout-*' -o -name 'slow-unit-*' | wc -l)
    ooms=$(find "$artifacts" -name 'oom-*' | wc -l)
    printf '%-16s %12s %8s %6s %6s\n' "$t" "${execs:-?}" "$crashes" "$hangs" "$ooms" >"$work/$n.line"
    if [ "$crashes$hangs$ooms" != "000" ]; then
        grep -m3 -E 'panicked|ERROR: libFuzzer|SUMMARY' "$log" | sed "s/^/    $t: /" >"$work/$n.found" || true
    fi
}

n=0
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    fuzz_one "$n" "$t" &
    n=$((n + 1))
done
wait

found=0
printf '%-16s %12s %8s %6s %6s\n' target executions crashes hangs ooms
for ((i = 0; i < n; i++)); do
    cat "$work/$i.line"
    if [ -f "$work/$i.found" ]; then
        found=1
        cat "$work/$i.found"
    fi
done
exit $found
