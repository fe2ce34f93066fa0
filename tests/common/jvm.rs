//! The JVM driver as the tests use it directly: its jar (built by scripts/test.sh with Maven)
//! and its end-state checksum of an engine's rows.

use super::Sandbox;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The driver's jar; a missing one fails the test with the command that builds it.
pub fn jar() -> PathBuf {
    let jar = Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/jvm/target/pocketbench-jvm.jar");
    assert!(
        jar.is_file(),
        "{} is not built: run `mvn -f drivers/jvm/pom.xml package` (scripts/test.sh does)",
        jar.display()
    );
    jar
}

/// The driver's end-state checksum of `engine`'s database in `data_dir` after `trace`.
pub fn checksum(sb: &Sandbox, engine: &str, data_dir: &Path, trace: &Path) -> String {
    let spec = serde_json::json!({
        "trace": trace, "data_dir": data_dir, "engine": engine, "options": {},
        "pacing": "think", "spool": sb.path("unused.spool"), "report": sb.path("unused.json"),
    });
    let spec_path = sb.write(&format!("checksum-{engine}.json"), spec.to_string());
    let out = Command::new("java")
        .arg("-jar")
        .arg(jar())
        .arg("checksum")
        .arg(&spec_path)
        .current_dir(spec_path.parent().unwrap())
        .output()
        .expect("running java");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
