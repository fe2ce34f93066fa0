#!/usr/bin/env bash
# Measures a directory with fio jobs equivalent to `pocketbench storage`'s file tests
# (AndroBench sizes: 32 MiB sequential read, 2 MiB sequential write, 256 KiB calls; random
# 4 KiB reads over the 32 MiB file and writes over the 2 MiB file; direct=1, psync, one job)
# and prints fio's numbers beside pocketbench's, RUNS times each (mean, min, max).
#
# Usage: scripts/fio-compare.sh DIR [RUNS]     (POCKETBENCH=path/to/pocketbench to choose the binary)
set -euo pipefail
dir=${1:?usage: scripts/fio-compare.sh DIR [RUNS]}
runs=${2:-3}
pb=${POCKETBENCH:-pocketbench}
command -v fio >/dev/null || { echo "fio is not installed (Debian package fio)" >&2; exit 2; }
[ -d "$dir" ] || { echo "$dir: not a directory" >&2; exit 2; }
work=$(mktemp -d "$dir/fio-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# job name, rw, bs, size; terse fields: 7/8 read KiB/s and IOPS, 48/49 write KiB/s and IOPS.
jobs=("seq-read read 256k 32m" "seq-write write 256k 2m" "rand-read randread 4k 32m" "rand-write randwrite 4k 2m")
printf 'fio %s on %s (direct=1, ioengine=psync, %s runs)\n' "$(fio --version)" "$dir" "$runs"
printf '  %-11s %10s %10s %10s %12s\n' test "MB/s mean" min max "IOPS mean"
for j in "${jobs[@]}"; do
    read -r name rw bs size <<<"$j"
    results=()
    for _ in $(seq "$runs"); do
        rm -f "$work/$name"
        line=$(fio --name="$name" --filename="$work/$name" --rw="$rw" --bs="$bs" --size="$size" \
            --direct=1 --ioengine=psync --numjobs=1 --minimal)
        results+=("$(awk -F';' -v w="$rw" '{ if (w ~ /write/) print $48, $49; else print $7, $8 }' <<<"$line")")
    done
    printf '%s\n' "${results[@]}" | awk -v n="$name" '
        { mb = $1 / 1024; s += mb; io += $2; if (NR == 1 || mb < lo) lo = mb; if (mb > hi) hi = mb }
        END { printf "  %-11s %10.1f %10.1f %10.1f %12.0f\n", n, s / NR, lo, hi, io / NR }'
done
echo
"$pb" storage --dir "$work" --tests seq-read,seq-write,rand-read,rand-write --sync direct \
    --runs "$runs" --results "$work/results.db" --quiet
