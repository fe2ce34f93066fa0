#!/usr/bin/env bash
# Measures a directory with `pocketbench storage`'s four file tests and with the fio job
# equivalent to each, side by side (each run: every test with fio, then with pocketbench), and
# prints both with the ratio pocketbench / fio.
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
print("%.3f" % json.load(sys.stdin)["files"][0]["mb_s"]["mean"])'
}

jobs=("seq-read read 256k" "seq-write write 256k" "rand-read randread 4k" "rand-write randwrite 4k")
out=$work/results.tsv
: >"$out"
for _ in $(seq "$runs"); do
    for j in "${jobs[@]}"; do
        read -r name rw bs <<<"$j"
        rm -f "$work/$name"
        # shellcheck disable=SC2046
        f=$(fio --name="$name" --filename="$work/$name" --rw="$rw" --bs="$bs" --size="$bytes" \
            --direct=1 --ioengine=psync --numjobs=1 --norandommap --randrepeat=0 \
            $(layout_opts "$name") --output-format=json | fio_mib_s)
        rm -f "$work/$name"
        p=$("$pb" storage --dir "$work" --tests "$name" --sync direct --read-size "$size" \
            --write-size "$size" --layout "$layout" --runs 1 --results "$work/results.db" \
            --json --quiet | pb_mib_s)
        printf '%s\t%s\t%s\n' "$name" "$f" "$p" >>"$out"
    done
done

printf 'fio %s and %s on %s: %s per file, layout %s, O_DIRECT, one thread, %s runs\n' \
    "$(fio --version)" "$("$pb" --version)" "$dir" "$size" "$layout" "$runs"
python3 -c '
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, f, p = line.split("\t")
    rows.setdefault(name, ([], []))
    rows[name][0].append(float(f))
    rows[name][1].append(float(p))
def cv(v):
    return statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else 0.0
print("  %-11s %11s %7s %13s %7s %7s" % ("test", "fio MiB/s", "cv", "pocketbench", "cv", "ratio"))
for name in ["seq-read", "seq-write", "rand-read", "rand-write"]:
    f, p = rows[name]
    print("  %-11s %11.1f %6.1f%% %13.1f %6.1f%% %7.3f" % (
        name, statistics.mean(f), 100 * cv(f), statistics.mean(p), 100 * cv(p),
        statistics.mean(p) / statistics.mean(f)))
' "$out"
