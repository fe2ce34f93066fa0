//! `pocketbench -V` and `--version`: the short line says the version; the long one (as
//! `rustc -vV` does) says which build this is — the commit, the cargo features and engines
//! built in, the bundled SQLite and the target — because two binaries of one version can
//! measure different things.

/// The cargo features this binary was built with, in Cargo.toml's order.
fn features() -> Vec<&'static str> {
    let all = [
        ("png", cfg!(feature = "png")),
        ("models", cfg!(feature = "models")),
        ("model-stores", cfg!(feature = "model-stores")),
        ("server", cfg!(feature = "server")),
        ("completions", cfg!(feature = "completions")),
        ("jvm", cfg!(feature = "jvm")),
        ("import", cfg!(feature = "import")),
        ("recorded-models", cfg!(feature = "recorded-models")),
        ("device-driver", cfg!(feature = "device-driver")),
        ("berkeleydb", cfg!(feature = "berkeleydb")),
        ("rocksdb", cfg!(feature = "rocksdb")),
        ("leveldb", cfg!(feature = "leveldb")),
    ];
    all.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect()
}

/// The long version text (after the program name).
pub fn long() -> String {
    let engines: Vec<&str> = crate::engine::REGISTRY.iter().map(|d| d.name).collect();
    format!(
        "{}\ncommit: {}\nfeatures: {}\nengines: {}\nsqlite: {} (bundled)\ntarget: {}-{}",
        env!("CARGO_PKG_VERSION"),
        env!("POCKETBENCH_COMMIT"),
        features().join(", "),
        engines.join(", "),
        rusqlite::version(),
        std::env::consts::ARCH,
        std::env::consts::OS,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_long_version_names_the_build() {
        let v = super::long();
        assert!(v.starts_with(env!("CARGO_PKG_VERSION")), "{v}");
        for line in [
            "commit: ",
            "features: ",
            "engines: sqlite, null",
            "sqlite: 3.",
        ] {
            assert!(v.contains(line), "{line}: {v}");
        }
    }
}
