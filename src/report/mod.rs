//! Reports for people: the terminal summary of a run and the list of stored results; for
//! studies the HTML report with its SVG figures (or figure files), the decision grid's layout,
//! PNG rasterisation, and the comparison table. Data files (JSON, CSV, Markdown, .hgrm, .hlog)
//! are `export/`'s; units and progress are `output/`'s.

pub mod compare;
pub mod decision;
pub mod html;
pub mod original;
pub mod output;
pub mod platform;
pub mod raster;
pub mod run_summary;
