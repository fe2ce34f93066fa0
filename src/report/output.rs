//! Writing a report in the asked format: one HTML file, one PNG or SVG file per figure in a
//! directory (the runs' figures and, when the store holds flashbench runs, the flashbench
//! figures), or any export format (`export/`: JSON, CSV, Markdown, .hgrm, .hlog). Files appear whole or not at all
//! (`platform::atomic_file`), so an interrupted report never leaves half a file.

use super::html::{self, page::PageInfo};
use super::raster;
use crate::error::{Error, Result, ResultExt};
use crate::export::{self, atomic_write};
use crate::results::dataset::Dataset;
use crate::results::filter::Filter;
use crate::results::store::Store;
use std::path::{Path, PathBuf};

/// A report format: the HTML page, figure files, or any export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One self-contained HTML file with SVG figures.
    Html,
    /// One PNG file per figure, in a directory.
    Png,
    /// One SVG file per figure, in a directory.
    Svg,
    /// The runs' summaries and the configurations' statistics.
    Json,
    /// The configurations' table as CSV.
    Csv,
    /// The configurations' table as Markdown.
    Md,
    /// HdrHistogram percentile distributions, one per configuration and operation kind
    /// (a directory unless there is only one).
    Hgrm,
    /// HdrHistogram interval logs, one per run (a directory unless there is only one).
    Hlog,
}

impl Format {
    /// The format's name as `--format` spells it (and its files' extension).
    pub fn name(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Png => "png",
            Format::Svg => "svg",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Md => "md",
            Format::Hgrm => "hgrm",
            Format::Hlog => "hlog",
        }
    }

    /// PNG and SVG write a directory of files.
    pub fn is_directory(self) -> bool {
        matches!(self, Format::Png | Format::Svg)
    }

    /// The export format behind this report format, if it is one.
    pub fn export(self) -> Option<export::Format> {
        match self {
            Format::Json => Some(export::Format::Json),
            Format::Csv => Some(export::Format::Csv),
            Format::Md => Some(export::Format::Md),
            Format::Hgrm => Some(export::Format::Hgrm),
            Format::Hlog => Some(export::Format::Hlog),
            Format::Html | Format::Png | Format::Svg => None,
        }
    }
}

/// What to report.
pub struct Request<'a> {
    pub store: &'a Store,
    pub filter: Option<&'a str>,
    pub format: Format,
    pub output: &'a Path,
    pub level: f64,
    /// `--trace`: an imported trace whose arrivals and top statements are drawn too.
    pub trace: Option<&'a Path>,
}

/// What was written.
#[derive(Debug, serde::Serialize)]
pub struct Written {
    pub files: Vec<PathBuf>,
    /// Figures an earlier report wrote into the same directory that this one does not
    /// (another store's, or configurations since filtered out): removed.
    pub removed: Vec<PathBuf>,
    pub runs: usize,
    pub configurations: usize,
    pub figures: usize,
}

/// Check the output location before any work: a file needs an existing directory, a figure
/// directory must be creatable.
pub fn check_output(format: Format, output: &Path) -> Result<()> {
    if format == Format::Png && !raster::AVAILABLE {
        return Err(Error::input(raster::UNAVAILABLE));
    }
    if matches!(format, Format::Hgrm | Format::Hlog) {
        // One file, or a directory of them: known only once the runs are read.
        return if output.is_dir() {
            Ok(())
        } else {
            crate::output::target::check(output, "-o").map(drop)
        };
    }
    if format.is_directory() {
        if output.exists() && !output.is_dir() {
            return Err(Error::input(format!(
                "-o {}: is not a directory; --format {} writes one file per figure into a directory",
                output.display(),
                if format == Format::Png { "png" } else { "svg" }
            )));
        }
        // Created only once there is something to write into it.
        return if output.is_dir() {
            Ok(())
        } else {
            crate::output::target::check(output, "-o").map(drop)
        };
    }
    crate::output::target::check(output, "-o").map(drop)
}

pub fn write(req: &Request<'_>) -> Result<Written> {
    let filter = Filter::parse(req.filter.unwrap_or(""), "--filter")?;
    let data = Dataset::load(req.store, &filter)?;
    let mut figures = match req.format {
        Format::Html | Format::Png | Format::Svg => html::figures(&data, req.store, req.level)?,
        _ => Vec::new(),
    };
    match (req.trace, req.format.export()) {
        (Some(t), None) => figures.extend(html::imported::figures(t)?),
        (Some(_), Some(_)) => {
            return Err(Error::input(
                "--trace: draws figures; give --format html, png or svg",
            ))
        }
        (None, _) => {}
    }
    // A store of flashbench runs alone still has figures to show (but a filter selects runs).
    if data.runs.is_empty() && (figures.is_empty() || req.filter.is_some()) {
        return Err(Error::input(match req.filter {
            Some(f) => format!(
                "--filter {f}: no runs match in {}",
                req.store.path().display()
            ),
            None => format!("--results {}: no runs stored", req.store.path().display()),
        }));
    }
    let mut written = Written {
        files: Vec::new(),
        removed: Vec::new(),
        runs: data.runs.len(),
        configurations: data.groups.len(),
        figures: 0,
    };
    if let Some(f) = req.format.export() {
        let exporter = f.exporter();
        let input = export::Input {
            data: &data,
            store: req.store,
            level: req.level,
        };
        let parts = exporter.export(&input)?;
        written.files = export::write(&parts, exporter.extension(), Some(req.output), "-o")?;
        return Ok(written);
    }
    written.figures = figures.len();
    match req.format {
        Format::Html => {
            let info = PageInfo {
                store: &req.store.path().display().to_string(),
                filter: req.filter,
                generated_at: &crate::platform::clock::utc_now(),
                level: req.level,
            };
            let page = html::page::render(&data, &figures, &info);
            atomic_write(req.output, page.as_bytes(), "-o")?;
            written.files.push(req.output.to_path_buf());
        }
        _ => {
            std::fs::create_dir_all(req.output)
                .input_err(format!("-o {}", req.output.display()))?;
            for f in &figures {
                let (ext, bytes) = if req.format == Format::Png {
                    ("png", raster::png(&f.svg)?)
                } else {
                    ("svg", f.svg.clone().into_bytes())
                };
                let path = req.output.join(format!("{}.{ext}", f.id));
                atomic_write(&path, &bytes, "-o")?;
                written.files.push(path);
            }
            written.removed = replace_owned(req.output, &written.files)?;
        }
    }
    Ok(written)
}

/// The list of figures a report wrote into a directory, kept in it.
const OWNED: &str = ".pocketbench-figures";

/// Remove the figures the last report wrote into `dir` that `now` does not include, and record
/// `now` as the figures this directory holds from pocketbench; files it did not write are left
/// alone. Returns what was removed.
fn replace_owned(dir: &Path, now: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let list = dir.join(OWNED);
    let names = |files: &[PathBuf]| -> Vec<String> {
        files
            .iter()
            .filter_map(|f| f.file_name()?.to_str().map(str::to_string))
            .collect()
    };
    let keep = names(now);
    let mut removed = Vec::new();
    let before = std::fs::read_to_string(&list).unwrap_or_default();
    // Only plain names written by an earlier report: never a path elsewhere.
    for name in before.lines().filter(|n| !n.is_empty() && !n.contains('/')) {
        let path = dir.join(name);
        if !keep.iter().any(|k| k == name) && path.is_file() {
            std::fs::remove_file(&path).input_err(format!("-o {}", path.display()))?;
            removed.push(path);
        }
    }
    atomic_write(&list, format!("{}\n", keep.join("\n")).as_bytes(), "-o")?;
    Ok(removed)
}
