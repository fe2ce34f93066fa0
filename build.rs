//! Build script: records the commit `--version` names, the redb version Cargo.lock resolved
//! and, for the engines that link system libraries (features only), the RocksDB version
//! pkg-config reports (its C API has no version call); compiles the small C shim over
//! BerkeleyDB's method tables (`src/engine/berkeleydb/shim.c`, feature `berkeleydb`), the bare
//! SQLite loop that `benches/saturation` links (`benches/saturation/bare_loop.c`; only that
//! bench links it), and the two preload libraries the binary embeds: `capture`'s statement
//! tracer (`src/capture/preload.c`) and `durability`'s recorder of file-system calls
//! (`src/durability/recorder.c`, feature `recorded-models` only).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");
    // redb is a crate: its version is the one Cargo.lock resolved.
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let redb = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"redb\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map_or("unknown".to_string(), |v| v.trim_matches('"').to_string());
    println!("cargo:rustc-env=POCKETBENCH_REDB_VERSION={redb}");
    // The commit `--version` names ("unknown" outside a git checkout), looked up again when
    // HEAD or the branch it names moves.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for name in ["HEAD".to_string()].into_iter().chain(branch) {
        if let Some(f) = git(&["rev-parse", "--git-path", &name]) {
            if std::path::Path::new(&f).exists() {
                println!("cargo:rerun-if-changed={f}");
            }
        }
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=POCKETBENCH_COMMIT={commit}");
    if std::env::var_os("CARGO_FEATURE_ROCKSDB").is_some() {
        let version = std::process::Command::new("pkg-config")
            .args(["--modversion", "rocksdb"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        println!("cargo:rustc-env=POCKETBENCH_ROCKSDB_VERSION={version}");
    }
    #[cfg(feature = "berkeleydb")]
    berkeleydb();
    bare_loop();
    preload_library(
        "src/durability/recorder.c",
        "pocketbench_recorder.so",
        if std::env::var_os("CARGO_FEATURE_RECORDED_MODELS").is_some() {
            Missing::EmbedEmpty
        } else {
            Missing::Skip
        },
    );
    preload_library(
        "src/capture/preload.c",
        "libpocketbench-capture.so",
        Missing::FailBuild,
    );
}

/// What to do when a preload library cannot be compiled for the target.
#[derive(PartialEq)]
enum Missing {
    /// Embed an empty file: the command that needs it says it is not available in this build.
    EmbedEmpty,
    /// Fail the build.
    FailBuild,
    /// Not wanted in this build (its feature is off): embed an empty file without compiling.
    Skip,
}

/// How the preload libraries are compiled (scripts/build-device.sh builds the board's copy of
/// `capture`'s library with the same flags).
const PRELOAD_FLAGS: &[&str] = &["-shared", "-fPIC", "-O2", "-Wall", "-s", "-Wl,-z,norelro"];

/// A preload library (an `LD_PRELOAD` shared object for this build's target), compiled from
/// `source` into `OUT_DIR/name` for the binary to embed and write out when it runs: the
/// durability recorder of file-system calls (`src/durability/recorder.c`) and `capture`'s
/// statement tracer (`src/capture/preload.c`, which links no SQLite: it finds the program's).
fn preload_library(source: &str, name: &str, missing: Missing) {
    println!("cargo:rerun-if-changed={source}");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let lib = out.join(name);
    if missing == Missing::Skip {
        let _ = std::fs::write(&lib, b"");
        return;
    }
    let status = cc::Build::new()
        .opt_level(2)
        .pic(true)
        .cargo_metadata(false)
        .try_get_compiler()
        .map_err(|e| e.to_string())
        .and_then(|c| {
            // The compiler alone, without the flags cc adds for static archives (a static
            // device build's `-static` would contradict `-shared`). Stripped (`-s`) and
            // without a RELRO segment (`-z norelro`): ARM linkers align RELRO's end to a
            // 64 KiB page, which pads each library from about 15 KiB to 66 KiB of mostly
            // zeros inside the binary; without it the library still loads on any page size.
            std::process::Command::new(c.path())
                .args(PRELOAD_FLAGS)
                .arg("-o")
                .arg(&lib)
                .arg(source)
                .args(["-ldl", "-lpthread"])
                .status()
                .map_err(|e| e.to_string())
        });
    match status {
        Ok(s) if s.success() => {}
        _ if missing == Missing::EmbedEmpty => {
            let _ = std::fs::write(&lib, b"");
        }
        other => panic!("compiling {source} failed ({other:?})"),
    }
}

/// The bare C loop over the SQLite C API that `benches/saturation` compares pocketbench with.
/// Its SQLite symbols come from the bundled library the crate links (libsqlite3-sys).
fn bare_loop() {
    println!("cargo:rerun-if-changed=benches/saturation/bare_loop.c");
    cc::Build::new()
        .file("benches/saturation/bare_loop.c")
        .opt_level(2)
        .warnings(true)
        .cargo_metadata(false)
        .compile("pocketbench_bare_loop");
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    println!("cargo:rustc-link-search=native={out}");
}

#[cfg(feature = "berkeleydb")]
fn berkeleydb() {
    println!("cargo:rerun-if-changed=src/engine/berkeleydb/shim.c");
    cc::Build::new()
        .file("src/engine/berkeleydb/shim.c")
        .warnings(true)
        .compile("pocketbench_bdb_shim");
    println!("cargo:rustc-link-lib=db-5.3");
}
