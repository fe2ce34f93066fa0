//! Replays, deterministically and without a fuzzer, every seed input (`fuzz/seeds/TARGET/`) and
//! every input that once crashed or hung a fuzz target (`fuzz/regressions/TARGET/`) through the
//! same entry points the fuzz targets call (`pocketbench::fuzzing`). Proves that none of them
//! panics, aborts or hangs today. A target with no seeds is a failure, not a skip.

use pocketbench::fuzzing::TARGETS;
use std::path::Path;

fn inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_seed_and_every_past_crash_input_is_handled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for (name, target) in TARGETS {
        let seeds = inputs(&root.join("seeds").join(name));
        assert!(!seeds.is_empty(), "fuzz/seeds/{name}/ has no seed inputs");
        let regressions = inputs(&root.join("regressions").join(name));
        for file in seeds.iter().chain(&regressions) {
            let data = std::fs::read(file).unwrap();
            target(&data);
        }
        eprintln!(
            "{name}: {} seeds, {} past crash inputs replayed",
            seeds.len(),
            regressions.len()
        );
    }
}
