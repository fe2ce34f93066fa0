#!/usr/bin/env bash
# Builds statically linked pocketbench binaries for phones and boards:
#   target/device/aarch64/pocketbench   (arm64 Android, Raspberry Pi OS 64-bit, any arm64 Linux)
#   target/device/armv7/pocketbench     (32-bit ARM)
# with the default engines (bundled SQLite, LMDB, redb, null); the engines that link Debian's
# shared libraries (BerkeleyDB, RocksDB, LevelDB) stay host-only, and so does PNG rendering
# (feature `png`: reports are made on the host from the pulled store; HTML and SVG work).
#
#   scripts/build-device.sh aarch64|armv7|all
#
# POCKETBENCH_DEVICE_CHECK=armv7 (or aarch64, or both with a comma) builds those architectures
# only to check that the code builds and runs there: unoptimised (no LTO, parallel code
# generation), in half the CPU time (armv7: 8 CPU-minutes against 16) and larger (armv7:
# 17.4 MB), a size then not held to the budget below. scripts/test.sh checks armv7 that way; the
# aarch64 binary it builds is the one phones get.
#
# rustup's toolchain here has no ARM standard library, so this uses Debian's Rust (rustc-web,
# cargo-web, rust-web-src) to build std from source (-Zbuild-std), Debian's cross compilers as
# linkers and C compilers, and the `device` profile (LTO, one codegen unit, stripped). Its
# standard library is built without backtrace symbolisation (a stripped binary has no symbols
# to show) and with `optimize_for_size` (smaller sorting and formatting code). It
# installs those packages with apt when they are missing. A static glibc binary cannot resolve
# host names (NSS); pocketbench on a device never needs to: results come back by pull.
# Run ARM binaries here through qemu: `qemu-aarch64-static target/device/aarch64/pocketbench`,
# and `POCKETBENCH_RUNNER=qemu-aarch64-static` for the replay process it starts.
#
# Each binary has a size budget of 9 MiB (9 437 184 bytes; POCKETBENCH_DEVICE_BUDGET=BYTES
# sets another): a binary over it fails the build (exit 1, one line naming it), after every
# asked-for architecture is built. docs/device.md lists what each part of the binary costs.
set -euo pipefail
cd "$(dirname "$0")/.."

which=${1:?usage: scripts/build-device.sh aarch64|armv7|all}
case "$which" in
    aarch64) arches=(aarch64) ;;
    armv7) arches=(armv7) ;;
    all) arches=(aarch64 armv7) ;;
    *) echo "build-device.sh: '$which': expected aarch64, armv7 or all" >&2; exit 2 ;;
esac

PACKAGES=(rustc-web cargo-web rust-web-src gcc-aarch64-linux-gnu libc6-dev-arm64-cross
          gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user-static)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    # Never add armhf as a dpkg architecture: the cross packages above are all that is needed.
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

checked=${POCKETBENCH_DEVICE_CHECK:-}
for a in ${checked//,/ }; do
    case "$a" in
        aarch64|armv7) ;;
        *) echo "build-device.sh: POCKETBENCH_DEVICE_CHECK='$checked': expected aarch64, armv7 or aarch64,armv7" >&2; exit 2 ;;
    esac
done
budget=${POCKETBENCH_DEVICE_BUDGET:-9437184}
case "$budget" in
    ''|*[!0-9]*) echo "build-device.sh: POCKETBENCH_DEVICE_BUDGET='$budget': expected a number of bytes" >&2; exit 2 ;;
esac
over=()
for arch in "${arches[@]}"; do
    case "$arch" in
        aarch64) target=aarch64-unknown-linux-gnu; cc=aarch64-linux-gnu-gcc; ar=aarch64-linux-gnu-ar ;;
        armv7) target=armv7-unknown-linux-gnueabihf; cc=arm-linux-gnueabihf-gcc; ar=arm-linux-gnueabihf-ar ;;
    esac
    var=$(echo "$target" | tr 'a-z-' 'A-Z_')
    lower=$(echo "$target" | tr '-' '_')
    check=()
    case ",$checked," in
        *",$arch,"*) check=(CARGO_PROFILE_DEVICE_OPT_LEVEL=0 CARGO_PROFILE_DEVICE_LTO=false
                            CARGO_PROFILE_DEVICE_CODEGEN_UNITS=256) ;;
    esac
    echo "== $arch ($target)${check:+: a check build, unoptimised (POCKETBENCH_DEVICE_CHECK)}"
    # Debian's cargo and rustc explicitly: rustup's come first on PATH.
    env RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 "${check[@]}" \
        "CARGO_TARGET_${var}_LINKER=$cc" "CC_${lower}=$cc" "AR_${lower}=$ar" \
        "CARGO_TARGET_${var}_RUSTFLAGS=-C target-feature=+crt-static" \
        /usr/bin/cargo build --locked -Zbuild-std=std,panic_abort \
        -Zbuild-std-features=panic-unwind,optimize_for_size --profile device --no-default-features \
        --target "$target" --target-dir target/device-build
    mkdir -p "target/device/$arch"
    # Copied beside, then renamed: a test that runs the binary meanwhile (scripts/test.sh builds
    # these beside the test suite) sees the old one or the new one whole, never a part.
    cp "target/device-build/$target/device/pocketbench" "target/device/$arch/pocketbench.part"
    mv -f "target/device/$arch/pocketbench.part" "target/device/$arch/pocketbench"
    file "target/device/$arch/pocketbench" 2>/dev/null || true
    ls -l "target/device/$arch/pocketbench"
    size=$(stat -c %s "target/device/$arch/pocketbench")
    if [ ${#check[@]} -eq 0 ] && [ "$size" -gt "$budget" ]; then
        over+=("target/device/$arch/pocketbench is $size bytes, over its budget of $budget bytes by $((size - budget))")
    fi
    # capture's preload library (also embedded in the binary), for programs on the board.
    # Flags as build.rs compiles the embedded copy (PRELOAD_FLAGS: stripped, no RELRO padding).
    "$cc" -shared -fPIC -O2 -Wall -s -Wl,-z,norelro -o "target/device/$arch/libpocketbench-capture.so.part" \
        src/capture/preload.c -ldl -lpthread
    mv -f "target/device/$arch/libpocketbench-capture.so.part" "target/device/$arch/libpocketbench-capture.so"
    ls -l "target/device/$arch/libpocketbench-capture.so"
done
for line in "${over[@]}"; do
    echo "build-device.sh: $line (docs/device.md: what each part costs)" >&2
done
[ ${#over[@]} -eq 0 ]
