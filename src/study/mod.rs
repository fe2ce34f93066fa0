//! Studies: a plan of many runs (`pocketbench matrix`). A plan's axes are `run` flags; its
//! cells are their cartesian product (less `exclude`, plus `include`), each repeated; runs
//! are made through the same library path as `pocketbench run`, and each is stored together
//! with its place in the study so that an interrupted study resumes exactly where it stopped.
//!
//! * [`plan`] — the plan file format; [`builtin`] — the published studies' plans
//! * [`flags`] — `run`'s flags read from its clap definition (what may be an axis)
//! * [`cells`] — expansion, identities, run order
//! * [`ledger`] — the study tables of the results store
//! * [`runner`] — running (and resuming) a study; [`progress`] — its progress display

pub mod builtin;
pub mod cells;
pub mod flags;
pub mod ledger;
pub mod plan;
pub mod runner;
