//! Writing a report in the asked format: one HTML file, one PNG or SVG file per figure in a
//! directory (the runs' figures and, when the store holds flashbench runs, the flashbench
//! figures), or the summary table as Markdown or CSV. Files appear whole or not at all
//! (`platform::atomic_file`), so an interrupted report never leaves half a file.

use super::html::{self, page::PageInfo};
use super::{raster, summary_table};
use crate::error::{Error, Result, ResultExt};
use crate::platform::atomic_file::AtomicFile;
use crate::results::dataset::Dataset;
use crate::results::filter::Filter;
use crate::results::store::Store;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Html,
    Png,
    Svg,
    Markdown,
    Csv,
}

impl Format {
    pub fn parse(text: &str) -> Result<Format> {
        match text {
            "html" => Ok(Format::Html),
            "png" => Ok(Format::Png),
            "svg" => Ok(Format::Svg),
            "md" | "markdown" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            _ => Err(Error::input(format!(
                "--format {text}: expected html, png, svg, md or csv"
            ))),
        }
    }

    /// PNG and SVG write a directory of files.
    pub fn is_directory(self) -> bool {
        matches!(self, Format::Png | Format::Svg)
    }
}

/// What to report.
pub struct Request<'a> {
    pub store: &'a Store,
    pub filter: Option<&'a str>,
    pub format: Format,
    pub output: &'a Path,
    pub level: f64,
}

/// What was written.
#[derive(Debug, serde::Serialize)]
pub struct Written {
    pub files: Vec<PathBuf>,
    pub runs: usize,
    pub configurations: usize,
    pub figures: usize,
}

/// Check the output location before any work: a file needs an existing directory, a figure
/// directory must be creatable.
pub fn check_output(format: Format, output: &Path) -> Result<()> {
    if format.is_directory() {
        if output.is_file() {
            return Err(Error::input(format!(
                "-o {}: is a file; --format {} writes one file per figure into a directory",
                output.display(),
                if format == Format::Png { "png" } else { "svg" }
            )));
        }
        // Created only once there is something to write into it.
        return if output.is_dir() {
            Ok(())
        } else {
            crate::limits::check_output_file(output, "-o")
        };
    }
    if output.is_dir() {
        return Err(Error::input(format!(
            "-o {}: is a directory",
            output.display()
        )));
    }
    crate::limits::check_output_file(output, "-o")
}

pub fn write(req: &Request<'_>) -> Result<Written> {
    let filter = Filter::parse(req.filter.unwrap_or(""), "--filter")?;
    let data = Dataset::load(req.store, &filter)?;
    let figures = match req.format {
        Format::Markdown | Format::Csv => Vec::new(),
        _ => html::figures(&data, req.store, req.level)?,
    };
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
        runs: data.runs.len(),
        configurations: data.groups.len(),
        figures: 0,
    };
    let text = match req.format {
        Format::Markdown => Some(summary_table::markdown(&data, req.level)),
        Format::Csv => Some(summary_table::csv(&data, req.level)),
        _ => None,
    };
    if let Some(text) = text {
        atomic_write(req.output, text.as_bytes())?;
        written.files.push(req.output.to_path_buf());
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
            atomic_write(req.output, page.as_bytes())?;
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
                atomic_write(&path, &bytes)?;
                written.files.push(path);
            }
        }
    }
    Ok(written)
}

/// Write `bytes` to `path` whole or not at all.
fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let what = format!("-o {}", path.display());
    let mut file = AtomicFile::create(path).input_err(&what)?;
    file.writer().write_all(bytes).run_err(&what)?;
    file.commit().run_err(&what)
}
