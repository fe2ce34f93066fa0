//! Build script: records the redb version Cargo.lock resolved and, for the engines that link
//! system libraries (features only), the RocksDB version pkg-config reports (its C API has no
//! version call), compiles the small C shim over BerkeleyDB's method tables
//! (`src/engine/berkeleydb/shim.c`, feature `berkeleydb`) and the bare SQLite loop that
//! `benches/saturation` links (`benches/saturation/bare_loop.c`; only that bench links it),
//! and `capture`'s preload library (`src/capture/preload.c`, a shared object embedded in the
//! binary).

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
    capture_library();
}

/// `pocketbench capture`'s preload library (`src/capture/preload.c`), a shared object for
/// this build's target, embedded in the binary. It links no SQLite: it finds the program's.
fn capture_library() {
    println!("cargo:rerun-if-changed=src/capture/preload.c");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let lib = out.join("libpocketbench-capture.so");
    // The target's C compiler alone, without the flags cc adds for static archives (a static
    // device build's `-static` would contradict `-shared`).
    let compiler = cc::Build::new().get_compiler();
    let status = std::process::Command::new(compiler.path())
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-o"])
        .arg(&lib)
        .arg("src/capture/preload.c")
        .args(["-ldl", "-lpthread"])
        .status();
    if !matches!(status, Ok(s) if s.success()) {
        panic!("compiling src/capture/preload.c failed ({status:?})");
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
