//! Which pocketbench binary goes to a device: the static build of `scripts/build-device.sh`
//! for its architecture, found under `--binaries DIR` (or `POCKETBENCH_DEVICE_BINARIES`), else
//! `target/device` beside the running executable's build tree, else `target/device` in the
//! current directory, as `DIR/ARCH/pocketbench`. An x86_64 target with no device build gets
//! the running executable when it is x86_64 too (a Linux box over ssh; it is linked against
//! glibc dynamically, so not for Android).

use super::probe::Arch;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The directories searched for `ARCH/pocketbench`, most specific first.
fn search_dirs(explicit: Option<&Path>) -> Vec<PathBuf> {
    if let Some(d) = explicit {
        return vec![d.to_path_buf()];
    }
    if let Some(d) = std::env::var_os("POCKETBENCH_DEVICE_BINARIES").filter(|d| !d.is_empty()) {
        return vec![PathBuf::from(d)];
    }
    let mut dirs = Vec::new();
    // target/release/pocketbench → target/device
    if let Some(target) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf))
    {
        dirs.push(target.join("device"));
    }
    dirs.push(PathBuf::from("target/device"));
    dirs
}

/// The binary for `arch`, or a clear error with the command that builds it.
pub fn find(arch: Option<Arch>, abi: &str, explicit: Option<&Path>) -> Result<PathBuf> {
    let Some(arch) = arch else {
        return Err(Error::input(format!(
            "the device's ABI is {}: pocketbench builds for aarch64 (arm64-v8a), armv7 (armeabi-v7a) and x86_64 only",
            crate::limits::escape(if abi.is_empty() { "unknown" } else { abi })
        )));
    };
    let dirs = search_dirs(explicit);
    for d in &dirs {
        let p = d.join(arch.name()).join("pocketbench");
        if p.is_file() {
            return Ok(p);
        }
    }
    if arch == Arch::X86_64 && cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        if let Ok(exe) = std::env::current_exe() {
            return Ok(exe);
        }
    }
    Err(Error::input(format!(
        "no {a} pocketbench binary for this device (looked for {}): build it with `scripts/build-device.sh {a}`",
        dirs.iter()
            .map(|d| d.join(arch.name()).join("pocketbench").display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        a = arch.name()
    )))
}
