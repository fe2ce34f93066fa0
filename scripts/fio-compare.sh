#!/usr/bin/env bash
# Measures a directory with `pocketbench storage`'s four file tests and with the fio job
# equivalent to each, side by side (each run: every test with both tools back to back, fio first
# in odd runs and pocketbench first in even ones), and
# prints both with the ratio pocketbench / fio: the geometric mean of the per-run ratios with its
# 95 % confidence interval (each run pairs the two tools back to back, which cancels drift).
#
# The equivalent jobs (one thread, queue depth one, O_DIRECT, psync, SIZE per file):
#   seq-read    fio --rw=read      --bs=256k  on a file written in full first (fio lays it out)
#   seq-write   fio --rw=write     --bs=256k  --fallocate=none on a removed file: a new file
#               that every call extends (AndroBench's layout, pocketbench's default)
#   rand-read   fio --rw=randread  --bs=4k    --norandommap (offsets drawn with repeats)
#   rand-write  fio --rw=randwrite --bs=4k    --norandommap --overwrite=1 (over a written file)
# With LAYOUT=preallocated both sides write into a fallocated, never written file instead
# (fio's own default, --fallocate=native; `pocketbench storage --layout preallocated`).
#
# Usage: scripts/fio-compare.sh DIR [RUNS]
#   SIZE=256M (per file), LAYOUT=androbench|preallocated, POCKETBENCH=path/to/pocketbench
set -euo pipefail
dir=${1:?usage: scripts/fio-compare.sh DIR [RUNS]}
runs=${2:-3}
size=${SIZE:-256M}
layout=${LAYOUT:-androbench}
pb=${POCKETBENCH:-pocketbench}
command -v fio >/dev/null || { echo "fio is not installed (Debian package fio)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON" >&2; exit 2; }
[ -d "$dir" ] || { echo "$dir: not a directory" >&2; exit 2; }
work=$(mktemp -d "$dir/fio-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
bytes=$(numfmt --from=iec "${size%B}")

layout_opts() { # fio's options for the file layout of job $1
    case "$layout:$1" in
        androbench:seq-write) echo "--fallocate=none" ;;
        androbench:rand-write) echo "--overwrite=1 --fallocate=none" ;;
        preallocated:*-write) echo "--fallocate=native" ;;
        *) echo "" ;;
    esac
}

fio_mib_s() { # fio's own figure: bytes over its run time (ms; SIZE keeps runs long enough)
    python3 -c '
import json, sys
job = json.load(sys.stdin)["jobs"][0]
side = job["write"] if job["write"]["io_bytes"] > 0 else job["read"]
print("%.3f" % (side["bw_bytes"] / 1048576))'
}

pb_mib_s() {
    python3 -c '
import json, sys
print("%.3f" % json.load(sys.stdin)["files"][0]["mib_s"]["mean"])'
}

jobs=("seq-read read 256k" "seq-write write 256k" "rand-read randread 4k" "rand-write randwrite 4k")
out=$work/results.tsv
: >"$out"
# Each tool writes its JSON to a file that is read after it exits: piped straight into python,
# the interpreter's start-up (tens of milliseconds of CPU) ran beside the measurement and took
# a core from whichever tool started its I/O sooner.
run_fio() { # $1 test name, $2 fio --rw, $3 block size
    rm -f "$work/$1"
    # shellcheck disable=SC2046
    fio --name="$1" --filename="$work/$1" --rw="$2" --bs="$3" --size="$bytes" \
        --direct=1 --ioengine=psync --numjobs=1 --norandommap --randrepeat=0 \
        $(layout_opts "$1") --output-format=json >"$work/out.json"
    fio_mib_s <"$work/out.json"
    rm -f "$work/$1"
}

run_pb() { # $1 test name
    "$pb" storage --dir "$work" --tests "$1" --sync direct --read-size "$size" \
        --write-size "$size" --layout "$layout" --runs 1 --results "$work/results.db" \
        --json --quiet >"$work/out.json"
    pb_mib_s <"$work/out.json"
}

for run in $(seq "$runs"); do
    for j in "${jobs[@]}"; do
        read -r name rw bs <<<"$j"
        # Alternate which tool goes first, so a systematic effect of going second (a disk
        # still writing back, a warmer cache) falls on both alike.
        if ((run % 2)); then
            f=$(run_fio "$name" "$rw" "$bs")
            p=$(run_pb "$name")
        else
            p=$(run_pb "$name")
            f=$(run_fio "$name" "$rw" "$bs")
        fi
        printf '%s\t%s\t%s\n' "$name" "$f" "$p" >>"$out"
    done
done

printf 'fio %s and %s on %s: %s per file, layout %s, O_DIRECT, one thread, %s runs\n' \
    "$(fio --version)" "$("$pb" --version)" "$dir" "$size" "$layout" "$runs"
python3 -c '
import math, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, f, p = line.split("\t")
    rows.setdefault(name, ([], []))
    rows[name][0].append(float(f))
    rows[name][1].append(float(p))
def cv(v):
    return statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else 0.0
# Student t quantiles (two-sided 95 %) for 1..30 degrees of freedom, 1.96 beyond.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
def ratio_ci(f, p):
    """Geometric mean of the paired ratios p/f and its 95 % confidence interval: each run
    measures both tools back to back, so the pairing removes the drift between runs."""
    logs = [math.log(b / a) for a, b in zip(f, p)]
    m = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(m), float("nan"), float("nan")
    half = T95[min(len(logs) - 2, len(T95) - 1)] * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(m), math.exp(m - half), math.exp(m + half)
print("  %-11s %11s %7s %13s %7s %7s  %s" % (
    "test", "fio MiB/s", "cv", "pocketbench", "cv", "ratio", "95% CI of the paired ratio"))
for name in ["seq-read", "seq-write", "rand-read", "rand-write"]:
    f, p = rows[name]
    r, lo, hi = ratio_ci(f, p)
    verdict = "agrees within 5%" if 0.95 <= lo and hi <= 1.05 else (
        "no difference shown" if lo <= 1.0 <= hi else "differs")
    print("  %-11s %11.1f %6.1f%% %13.1f %6.1f%% %7.3f  %.3f-%.3f  %s" % (
        name, statistics.mean(f), 100 * cv(f), statistics.mean(p), 100 * cv(p),
        r, lo, hi, verdict))
' "$out"
