//! Reports for people: the terminal summary of a run, the list of stored runs, progress while
//! work is under way, unit formatting; and for studies the summary table (text, Markdown,
//! CSV), the HTML report with its SVG figures, the decision grid's layout, PNG rasterisation,
//! and the comparison table.

pub mod compare;
pub mod decision;
pub mod html;
pub mod output;
pub mod platform;
pub mod raster;
pub mod run_summary;
pub mod summary_table;
