#!/usr/bin/env bash
# Sets up everything the full build needs on a fresh machine, then runs every check and test.
# Safe to run repeatedly; needs no input (CI runs it with CI=true and no stdin).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts (seconds since the script started), so a slow step shows.
say() { printf '\n== %s  [%d s]\n' "$*" "$SECONDS"; }

# Disk: this script builds everything once (lint, the full test build, release, two ARM builds,
# the fuzz targets), so it keeps no incremental caches and no debug line tables in the test build:
# each of the ~70 test binaries is then about 5 MB instead of 70 MB, and the whole target
# directory stays small. A panic still names its file and line. The free space is
# printed first, so a full disk is recognised as one.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=false
# The armv7 binary is built only to check that it builds and runs (unoptimised: half the CPU
# time); the aarch64 one as phones get it, its size budget checked (scripts/build-device.sh).
export POCKETBENCH_DEVICE_CHECK=armv7
say "disk free where the builds go: $(df -h . | awk 'NR==2 {print $4 " of " $2}')"

# System packages the full build and test suite use (none are needed by the default build).
# The engines behind cargo features link Debian's BerkeleyDB 5.3 (key-value and SQL), RocksDB
# and LevelDB; chromium and a font serve the report's browser test; fio is the reference that
# scripts/fio-compare.sh measures beside `pocketbench storage`; adb is the real tool that
# `pocketbench device list` is checked against (the device tests use a fake adb).
# sqlite3, curl and jq are what docs' examples use beside pocketbench (tests/examples.rs runs them).
# A JDK and Maven build and run the JVM engines' driver (drivers/jvm). PostgreSQL is the results
# server's second back end: its tests run against a throw-away cluster (scripts/postgres.sh).
# Debian's python3 over the shared libsqlite3 is the program `pocketbench capture` records in
# tests/capture_roundtrip.rs.
APT_PACKAGES=(pkg-config chromium fonts-dejavu-core fio adb libdb5.3-dev libdb5.3-sql-dev librocksdb-dev libleveldb-dev
    openjdk-17-jdk-headless maven postgresql python3 libsqlite3-0 sqlite3 curl jq)

install_apt_packages() {
    local missing=()
    for p in "${APT_PACKAGES[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_rust() {
    if ! command -v cargo >/dev/null 2>&1; then
        say "installing the Rust toolchain"
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
        # shellcheck disable=SC1091
        . "$HOME/.cargo/env"
    fi
    if command -v rustup >/dev/null 2>&1; then
        rustup component add rustfmt clippy >/dev/null 2>&1 || true
    fi
}

if command -v apt-get >/dev/null 2>&1; then
    install_apt_packages
fi
install_rust

# The tests spend much of their time in real sleeps and waits, so what the end of this script
# needs (the static ARM binaries, the release builds) and the fuzzing run beside the JVM build,
# the lints and the tests below, from as soon as the toolchains are installed, in a process
# group of their own (stopped whole if this script stops early); the test that runs the aarch64
# binary and the documented examples that run these builds come after. The device builds
# (Debian's cargo, target/device-build) are each mostly one long single-threaded compile and
# link-time optimisation, so beside them: the fuzz targets (their own target directory) built
# and each fuzzed briefly, one at a time, and then the release builds (which wait for target/'s
# lock while a cargo command below holds it).
# Fuzzing: a fixed seed, so the same inputs each run and a finding is a regression, not luck;
# the dev build of the targets, half the CPU time of the release build (about 8 CPU-minutes
# against 19), with debug assertions and overflow checks, fewer executions in the same time;
# without AddressSanitizer (scripts/fuzz.sh says why).
# Longer runs: scripts/fuzz.sh 600.
background_builds() {
    (
        renice -n 5 -p "$BASHPID" >/dev/null 2>&1 || true
        if cargo +nightly --version >/dev/null 2>&1; then
            echo "== fuzz every input parser briefly (scripts/fuzz.sh)"
            FUZZ_BUILD=dev FUZZ_SANITIZER=none FUZZ_JOBS=1 FUZZ_SEED=${FUZZ_SEED:-1} scripts/fuzz.sh "${FUZZ_SECONDS:-12}"
        else
            echo "nightly Rust is not installed: the fuzz targets did not run (rustup toolchain install nightly)"
        fi
        cargo build --release --locked
        # The README's full build, which the documented examples run in the checkout below.
        cargo build --release --locked --features full
    ) &
    local others=$!
    scripts/build-device.sh all
    wait "$others"
}
export -f background_builds
say "static ARM binaries (scripts/build-device.sh all), fuzzing (scripts/fuzz.sh) and the release builds, in the background: log in target/device-build.log"
mkdir -p target
setsid bash -euo pipefail -c background_builds > target/device-build.log 2>&1 &
device_pid=$!
stop_background() { kill -- "-$device_pid" 2>/dev/null || true; }
trap stop_background EXIT
# The device builds are the longest chain of this script, mostly one compiler process at a
# time: everything else (this script's own steps, the fuzzing and release builds beside them)
# gives way to them (nice 5), so they keep a core to themselves.
renice -n 5 -p $$ >/dev/null 2>&1 || true

say "JVM driver (drivers/jvm): the JVM engines' tests run it"
# Offline first (every version is pinned, so a filled local repository is enough), then online.
mvn -B -q -o -f drivers/jvm/pom.xml package 2>/dev/null || mvn -B -q -f drivers/jvm/pom.xml package

say "format"
cargo fmt --all -- --check

say "lint (the default build)"
cargo clippy --all-targets --locked -- -D warnings

say "no import cycles between modules (scripts/module-cycles.py)"
python3 scripts/module-cycles.py

say "a throw-away PostgreSQL cluster for the results server's tests (stopped at exit)"
pg_dir=$(mktemp -d)
stop_postgres() { scripts/postgres.sh stop "$pg_dir"; rm -rf "$pg_dir"; }
stop_all() {
    stop_background
    stop_postgres
}
trap stop_all EXIT
POCKETBENCH_TEST_POSTGRES=$(scripts/postgres.sh start "$pg_dir")
export POCKETBENCH_TEST_POSTGRES POCKETBENCH_REQUIRE_POSTGRES=1
echo "$POCKETBENCH_TEST_POSTGRES"

say "lint with every feature"
cargo clippy --all-targets --all-features --locked -- -D warnings

# One pass over every unit and integration test, in the full build (`full`: the results
# server, PNG figures, the data-model stores) with every engine built in: the default build's
# tests are all among them (a second pass without the optional features would build and link
# every test binary again for no test of its own; clippy above compiles both, and the release
# build at the end is the default one).
# The documented examples that run in the checkout what the background builds make (`cargo
# build --release`, the ARM binaries under qemu) run once those builds are done, below; the
# others (tests/examples.rs, POCKETBENCH_EXAMPLES_PASS=scratch) are the longest test by far and
# mostly waits and sleeps: their test binary runs on its own beside the other tests (cargo runs
# test binaries one after another), its output shown when both are done.
say "unit and integration tests (the full build, every engine: --features full,all-engines)"
tests=(cargo test --locked --features full,all-engines)
"${tests[@]}" --no-run
examples_bin=$("${tests[@]}" --no-run --test examples --message-format=json |
    jq -r 'select(.reason == "compiler-artifact" and .profile.test and .target.name == "examples") | .executable')
rm -f target/examples-timing.log
say "the documented examples, beside the other tests: output in target/examples-scratch.log"
# In a process group of its own, stopped whole (with the servers its examples started) if this
# script stops early.
POCKETBENCH_EXAMPLES_PASS=scratch setsid "$examples_bin" every_documented_example_runs_as_written --exact --nocapture \
    >target/examples-scratch.log 2>&1 &
examples_pid=$!
stop_all() {
    kill -- "-$examples_pid" 2>/dev/null || true
    stop_background
    stop_postgres
}
"${tests[@]}" -- --skip every_documented_example_runs_as_written
# Wait for background job PID; when it failed, show its LOG and stop, naming WHAT failed.
wait_or_show() {
    local pid=$1 log=$2 what=$3
    if ! wait "$pid"; then
        cat "$log"
        echo "$what failed (the output is above)" >&2
        exit 1
    fi
}
say "the documented examples (started beside the tests above)"
wait_or_show "$examples_pid" target/examples-scratch.log "the documented examples"
grep -E '^(marks in|[0-9]+ examples:|outputs shown|test result)' target/examples-scratch.log
cat target/examples-timing.log 2>/dev/null || true

say "the static ARM binaries, fuzzing and the release builds (run meanwhile)"
wait_or_show "$device_pid" target/device-build.log \
    "the background builds (scripts/build-device.sh all, scripts/fuzz.sh, cargo build --release [--features full])"
grep -v '^ *Compiling ' target/device-build.log
export POCKETBENCH_REQUIRE_QEMU=1
"${tests[@]}" --test device an_arm_phone_runs_the_aarch64_binary_under_qemu

say "the documented examples that build or run the checkout's builds, as written (tests/examples.rs)"
POCKETBENCH_EXAMPLES_PASS=checkout POCKETBENCH_REQUIRE_BUILDS=1 \
    "${tests[@]}" --test examples every_documented_example_runs_as_written -- --nocapture

say "aarch64: runs under qemu; the host reads its store"
arm_dir=$(mktemp -d)
arm=(qemu-aarch64-static target/device/aarch64/pocketbench)
"${arm[@]}" --version
POCKETBENCH_RUNNER=qemu-aarch64-static "${arm[@]}" run --records 100 --ops 300 --delay zero \
    --no-overhead --results "$arm_dir/arm.db" --quiet
POCKETBENCH_RUNNER=qemu-aarch64-static "${arm[@]}" run --workload tests/fixtures/pocketdata/workload_a_0ms.json \
    --delay zero --no-overhead --results "$arm_dir/arm.db" --quiet
"${arm[@]}" storage --dir "$arm_dir" --tests seq-read,rand-write --read-size 4M --write-size 4M \
    --runs 1 --results "$arm_dir/arm.db" --quiet
cargo run --release --locked --quiet -- results list --results "$arm_dir/arm.db"
cargo run --release --locked --quiet -- results show 1 --json --results "$arm_dir/arm.db" |
    python3 -c 'import json, sys; s = json.load(sys.stdin); assert s["ops"] == 300 and s["errors"] == 0 and s["phases"]["runner"] == "qemu-aarch64-static", s["ops"]'
cargo run --release --locked --quiet -- report --results "$arm_dir/arm.db" -o "$arm_dir/arm.html"
# The device build leaves PNG rendering out: SVG figures work, PNG is refused with exit 2.
"${arm[@]}" report --results "$arm_dir/arm.db" --format svg -o "$arm_dir/svg"
status=0
"${arm[@]}" report --results "$arm_dir/arm.db" --format png -o "$arm_dir/png" 2>"$arm_dir/png.err" || status=$?
[ "$status" -eq 2 ] && grep -q "no PNG renderer" "$arm_dir/png.err"
# What else the device build leaves out (to stay within its size budget) is refused the same way, naming
# the feature, before any work: the host runs it.
arm_refuses() {
    local feature=$1 rc=0
    shift
    "${arm[@]}" "$@" >/dev/null 2>"$arm_dir/err" || rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q "built without the \`$feature\` feature.*run it on the host" "$arm_dir/err"; then
        echo "aarch64 $*: expected exit 2 naming the feature $feature, got $rc: $(cat "$arm_dir/err")" >&2
        exit 1
    fi
}
printf '{"statement": {"sql": "SELECT 1"}}\n' >"$arm_dir/app.jsonl"
arm_refuses import trace import "$arm_dir/app.jsonl" -o "$arm_dir/app.pbt"
arm_refuses import trace stats "$arm_dir/app.jsonl"
arm_refuses models models --tuples 10 --results "$arm_dir/arm.db"
arm_refuses recorded-models durability --engine lmdb --txns 5 --results "$arm_dir/arm.db"
arm_refuses device-driver device list
arm_refuses server serve
[ ! -e "$arm_dir/app.pbt" ]
rm -rf "$arm_dir"

say "armv7 (32-bit): --version and a short run under qemu; the host reads its store"
arm_dir=$(mktemp -d)
armv7=(qemu-arm-static target/device/armv7/pocketbench)
"${armv7[@]}" --version
POCKETBENCH_RUNNER=qemu-arm-static "${armv7[@]}" run --records 100 --ops 300 --delay zero \
    --no-overhead --results "$arm_dir/armv7.db" --quiet
cargo run --release --locked --quiet -- results show 1 --json --results "$arm_dir/armv7.db" |
    python3 -c 'import json, sys; s = json.load(sys.stdin); assert s["ops"] == 300 and s["errors"] == 0 and s["phases"]["runner"] == "qemu-arm-static", s["ops"]'
say "armv7: sizes past the 32-bit address space are refused (exit 2, naming it), not cut short"
armv7_refuses() {
    local rc=0
    POCKETBENCH_RUNNER=qemu-arm-static "${armv7[@]}" "$@" >/dev/null 2>"$arm_dir/err" || rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q "more than this 32-bit build can address" "$arm_dir/err"; then
        echo "armv7 $*: expected exit 2 naming the 32-bit limit, got $rc: $(cat "$arm_dir/err")" >&2
        exit 1
    fi
}
armv7_refuses run --engine lmdb -o map_size=5368709120 --records 10 --ops 10 \
    --results "$arm_dir/refused.db"
armv7_refuses run --engine redb -o cache_size=5368709120 --records 10 --ops 10 \
    --results "$arm_dir/refused.db"
armv7_refuses storage --sync mmap --write-size 5G --layout preallocated --dir "$arm_dir" \
    --results "$arm_dir/refused.db"
[ ! -e "$arm_dir/refused.db" ]
rm -rf "$arm_dir"

say "release build and a short run of the main job"
results_dir=$(mktemp -d)
trap 'rm -rf "$results_dir"; stop_postgres' EXIT
cargo run --release --locked --quiet -- run --quiet --results "$results_dir/smoke.db" --ops 200
cargo run --release --locked --quiet -- results list --results "$results_dir/smoke.db"
cargo run --release --locked --quiet -- doctor --results "$results_dir/smoke.db"

say "device list with the real adb and nothing attached says so"
adb_running=$(pgrep -x adb >/dev/null && echo yes || echo no)
cargo run --release --locked --quiet -- device list >"$results_dir/devices.txt"
cat "$results_dir/devices.txt"
grep -q "^adb: no devices attached" "$results_dir/devices.txt"
# Stop the adb server that listing started (leave one that was already running).
[ "$adb_running" = yes ] || adb kill-server

say "all checks passed"
