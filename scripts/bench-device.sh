#!/usr/bin/env bash
# Figures for the device build (a benchmark that prints, not a test that times):
#   - the static aarch64 and armv7 binaries' sizes (goal: aarch64 <= 8 MB);
#   - the host binary's peak RSS for the default `run` workload (goal <= 10 MB) and its
#     start-up time for `--version` (median of 50; goal <= 5 ms);
#   - the aarch64 binary's throughput under qemu beside the host's on the same saturated run,
#     so an emulation slowdown is never mistaken for a device result.
# Builds what is missing (scripts/build-device.sh, cargo build --release).
#
# Usage: scripts/bench-device.sh [OPS]   (OPS for the throughput run, default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-20000}
host=target/release/pocketbench
[ -x "$host" ] || cargo build --release --locked --quiet
for arch in aarch64 armv7; do
    [ -x "target/device/$arch/pocketbench" ] || scripts/build-device.sh "$arch" >/dev/null
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$host" "$work" "$ops" <<'PY'
import json, os, resource, statistics, subprocess, sys, time

host, work, ops = sys.argv[1], sys.argv[2], sys.argv[3]
MB = 1_000_000

def size(path):
    return os.path.getsize(path)

print("binary sizes")
for arch, goal in (("aarch64", 8 * MB), ("armv7", None)):
    b = size(f"target/device/{arch}/pocketbench")
    mark = "" if goal is None else ("  (goal <= 8 MB: met)" if b <= goal else "  (goal <= 8 MB: NOT met)")
    print(f"  {arch:<8} {b:>12,} bytes  {b / MB:.2f} MB{mark}")
print(f"  {'host':<8} {size(host):>12,} bytes  {size(host) / MB:.2f} MB (release, symbols kept)")

# Peak RSS of the default run (and of its replay process): the largest of the waited-for
# processes, from getrusage(RUSAGE_CHILDREN).
subprocess.run([host, "run", "--results", f"{work}/rss.db", "--quiet"], check=True,
               stdout=subprocess.DEVNULL)
rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
mark = "met" if rss_kb * 1024 <= 10 * MB else "NOT met"
print(f"peak RSS of `run` (defaults)  {rss_kb / 1024:.1f} MiB  (goal <= 10 MB: {mark})")

starts = []
for _ in range(50):
    t0 = time.perf_counter()
    subprocess.run([host, "--version"], check=True, stdout=subprocess.DEVNULL)
    starts.append(time.perf_counter() - t0)
med = statistics.median(starts) * 1e3
mark = "met" if med <= 5 else "NOT met"
print(f"start-up (`--version`, median of 50)  {med:.2f} ms  (goal <= 5 ms: {mark})")

def throughput(cmd, env=None):
    out = subprocess.run(cmd + ["run", "--records", "500", "--ops", ops, "--delay", "zero",
                                "--no-overhead", "--json", "--results", f"{work}/tp.db"],
                         check=True, capture_output=True, env=env).stdout
    return json.loads(out)["throughput_ops_per_s"]

env = dict(os.environ, POCKETBENCH_RUNNER="qemu-aarch64-static")
h = throughput([host])
a = throughput(["qemu-aarch64-static", "target/device/aarch64/pocketbench"], env)
print(f"saturated ycsb-c on SQLite, {ops} ops: host {h:,.0f} ops/s, aarch64 under qemu {a:,.0f} ops/s"
      f" ({a / h:.2f} of the host: emulation, not a device figure)")
PY
