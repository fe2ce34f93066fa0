//! Exporting stored results: one file per format behind one trait ([`Exporter`]), used by every
//! command that exports (`results show --format …`, `report --format …`). An export reads a
//! [`Dataset`] (runs grouped into configurations) and the store's per-operation samples, and
//! produces one file (JSON, CSV, Markdown) or several (HdrHistogram's percentile distributions,
//! one per configuration and operation kind; interval logs, one per run). [`table`] is the
//! configurations' table they share (also printed by `matrix` and shown in the HTML report).

mod csv;
mod hgrm;
mod hlog;
mod json;
mod markdown;
pub mod samples;
pub mod table;

use crate::error::{Error, Result, ResultExt};
use crate::platform::atomic_file::AtomicFile;
use crate::results::dataset::Dataset;
use crate::results::store::Store;
use clap::ValueEnum;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What an export reads.
pub struct Input<'a> {
    pub data: &'a Dataset,
    pub store: &'a Store,
    /// Confidence level of the intervals across repeats.
    pub level: f64,
}

/// One exported file: `stem` names it when an export writes several (empty when it writes one).
pub struct Part {
    pub stem: String,
    pub bytes: Vec<u8>,
}

/// A file format results can be exported in.
pub trait Exporter {
    /// The file extension (without the dot).
    fn extension(&self) -> &'static str;
    /// The exported files, in a stable order.
    fn export(&self, input: &Input<'_>) -> Result<Vec<Part>>;
}

/// The export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The runs' summaries and the configurations' statistics.
    Json,
    /// One row per configuration: each metric's mean, sd, CI and CV; pooled percentiles.
    Csv,
    /// The configurations' table as GitHub-flavoured Markdown.
    Md,
    /// HdrHistogram percentile distribution, one file per configuration and operation kind.
    Hgrm,
    /// HdrHistogram interval log: per-second histograms per operation kind, one file per run.
    Hlog,
}

impl Format {
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Json => Box::new(json::Json),
            Format::Csv => Box::new(csv::Csv),
            Format::Md => Box::new(markdown::Markdown),
            Format::Hgrm => Box::new(hgrm::Hgrm),
            Format::Hlog => Box::new(hlog::Hlog),
        }
    }
}

/// Write `parts` to `output` (`flag` names it in errors): one part goes to that file (or to
/// stdout without one); several, or one when `output` is an existing directory, go into the
/// directory as `STEM.EXT`. Every file appears whole or not at all. Returns the files written.
pub fn write(
    parts: &[Part],
    extension: &str,
    output: Option<&Path>,
    flag: &str,
) -> Result<Vec<PathBuf>> {
    match (parts, output) {
        ([one], None) => {
            let mut out = std::io::stdout().lock();
            out.write_all(&one.bytes)
                .and_then(|_| out.flush())
                .run_err("stdout")?;
            Ok(Vec::new())
        }
        (_, None) => Err(Error::input(format!(
            "this export is {} files: give {flag} DIR",
            parts.len()
        ))),
        // `-o DIR/` names a directory even before it exists, for one part as for several.
        ([one], Some(path))
            if !path.is_dir() && !path.as_os_str().to_string_lossy().ends_with('/') =>
        {
            atomic_write(path, &one.bytes, flag)?;
            Ok(vec![path.to_path_buf()])
        }
        (_, Some(path))
            if matches!(
                crate::output::target::kind(path),
                Ok(crate::output::target::Target::Stdout
                    | crate::output::target::Target::Stream(_))
            ) =>
        {
            Err(Error::input(format!(
                "{flag} {}: this export is {} files; give a directory",
                path.display(),
                parts.len()
            )))
        }
        (_, Some(dir)) => {
            if dir.is_file() {
                return Err(Error::input(format!(
                    "{flag} {}: is a file; this export writes one file per part into a directory",
                    dir.display()
                )));
            }
            std::fs::create_dir_all(dir).input_err(format!("{flag} {}", dir.display()))?;
            parts
                .iter()
                .map(|p| {
                    // A single part has no name of its own (`results show N -o DIR`).
                    let stem = if p.stem.is_empty() { "export" } else { &p.stem };
                    let path = dir.join(format!("{stem}.{extension}"));
                    atomic_write(&path, &p.bytes, flag)?;
                    Ok(path)
                })
                .collect()
        }
    }
}

/// Write `bytes` to `path` whole or not at all.
pub fn atomic_write(path: &Path, bytes: &[u8], flag: &str) -> Result<()> {
    let what = format!("{flag} {}", path.display());
    let mut file = AtomicFile::create(path).input_err(&what)?;
    file.writer().write_all(bytes).run_err(&what)?;
    file.commit().run_err(&what)
}

/// A file-name-safe form of a configuration or operation name.
fn stem(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '=') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.trim_matches('_').chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_ending_in_a_slash_is_a_directory_even_for_one_part() {
        let tmp = tempfile::tempdir().unwrap();
        let parts = [super::Part {
            stem: "read".into(),
            bytes: b"x".to_vec(),
        }];
        let dir = format!("{}/hist/", tmp.path().display());
        let written = super::write(&parts, "hgrm", Some(std::path::Path::new(&dir)), "-o").unwrap();
        assert_eq!(written, [tmp.path().join("hist/read.hgrm")]);
        assert_eq!(
            std::fs::read(tmp.path().join("hist/read.hgrm")).unwrap(),
            b"x"
        );
    }
}
