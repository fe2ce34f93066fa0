#!/usr/bin/env bash
# Engines × journal/sync settings on one workload, saturated (--delay zero) and with think time
# (the PocketData default, lognormal 6.67 ms), one `pocketbench run` per cell; prints a
# Markdown table. Every run is also stored in the results store ($RESULTS).
#
#   scripts/compare-engines.sh [WORKLOAD] [RECORDS] [OPS]      (defaults: ycsb-a 1000 2000)
#
# Engines missing from the binary (cargo features) are skipped. Needs python3 for the table.
set -euo pipefail
cd "$(dirname "$0")/.."

WORKLOAD=${1:-ycsb-a}
RECORDS=${2:-1000}
OPS=${3:-2000}
BIN=${BIN:-"${CARGO_TARGET_DIR:-target}/release/pocketbench"}
RESULTS=${RESULTS:-compare-engines.db}
DELAYS=${DELAYS:-"zero lognormal:6.67ms"}

# engine|option;option  (one line per cell of the settings axis)
CELLS=(
    "sqlite|journal_mode=delete;synchronous=full"
    "sqlite|journal_mode=wal;synchronous=full"
    "sqlite|journal_mode=wal;synchronous=normal"
    "sqlite|journal_mode=wal;synchronous=off"
    "lmdb|sync=full"
    "lmdb|sync=nometasync"
    "lmdb|sync=nosync"
    "redb|durability=immediate"
    "redb|durability=eventual"
    "redb|durability=none"
    "berkeleydb|sync=on"
    "berkeleydb|sync=write_nosync"
    "berkeleydb|sync=off"
    "berkeleydb|transactions=off;sync=off"
    "berkeleydb-sql|sync=on"
    "berkeleydb-sql|sync=off"
    "rocksdb|sync=on"
    "rocksdb|sync=off"
    "rocksdb|wal=off"
    "leveldb|sync=on"
    "leveldb|sync=off"
)

available=$("$BIN" engines --json | python3 -c 'import json,sys; print(" ".join(e["name"] for e in json.load(sys.stdin)))')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
for delay in $DELAYS; do
    for cell in "${CELLS[@]}"; do
        engine=${cell%%|*}
        opts=${cell#*|}
        case " $available " in *" $engine "*) ;; *) continue ;; esac
        args=()
        IFS=';' read -ra pairs <<<"$opts"
        for p in "${pairs[@]}"; do args+=(-o "$p"); done
        n=$((n + 1))
        printf '%s %s %s\n' "$delay" "$engine" "$opts" >&2
        "$BIN" run --quiet --json --no-samples --workload "$WORKLOAD" --records "$RECORDS" \
            --ops "$OPS" --delay "$delay" --engine "$engine" "${args[@]}" \
            --results "$RESULTS" >"$out/$(printf %03d $n).json"
    done
done

python3 - "$out" <<'EOF'
import glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    s = json.load(open(f))
    io, ops = s["io"]["total"], max(s["ops"], 1)
    lat = s["latency_us"]
    upd = lat.get("update") or lat.get("readmodifywrite") or {}
    opts = " ".join(f"{k}={v}" for k, v in s["engine"]["options"].items()
                    if k in ("journal_mode", "synchronous", "sync", "durability", "wal", "transactions"))
    rows.append((s["delay"], s["engine"]["name"], opts, s["throughput_ops_per_s"],
                 lat.get("read", {}).get("p50", 0), upd.get("p50", 0), upd.get("p99", 0),
                 lat["all"]["p99"], io["syncs"] / ops, io["write_bytes"] / ops / 1024, s["errors"],
                 s["verification"]["mismatches"]))
print("| delay | engine | settings | ops/s | read p50 µs | write p50 µs | write p99 µs | all p99 µs | syncs/op | KiB written/op | errors | RYW mismatches |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print("| %s | %s | %s | %.0f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %d | %d |" % r)
EOF
