//! `advise --study DIR`: the advice's variants as a study plan, so that `matrix` replays the
//! app's baseline and every candidate as the values of one axis, `variant` (on this machine,
//! or on a board or phone the folder is copied to), with advise's repeats and its interleaving
//! (every cell once, then every cell again). The folder holds the plan (`study.toml`), the
//! app's trace (`baseline.pbt`) and one trace per candidate that edits the statements
//! (`NN.pbt`); options a candidate changes are `-o` flags of its cell. A candidate whose
//! answers differed from the app's is left out (it is not a fair alternative); the others are
//! in, whatever their verdict here, since another device may rank them differently.

use super::{Advice, Row, Verdict};
use crate::error::{Result, ResultExt};
use crate::output::folder;
use crate::platform::atomic_file::AtomicFile;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The plan's file name in the folder.
pub const PLAN: &str = "study.toml";
/// The app's own trace, copied into the folder.
pub const BASELINE: &str = "baseline.pbt";

/// One value of the `variant` axis.
#[derive(Debug, PartialEq)]
pub struct Cell {
    pub label: String,
    /// The trace's file name in the folder.
    pub trace: String,
    pub options: Vec<(String, String)>,
}

/// The cells of the study: the baseline, then the candidates as ranked, then the proposed
/// changes together. Labels are unique (a repeated change text gets ` #2`, ` #3`, …).
pub fn cells(advice: &Advice) -> Vec<(Cell, Option<&Row>)> {
    let mut out: Vec<(Cell, Option<&Row>)> = vec![(
        Cell {
            label: "baseline".into(),
            trace: BASELINE.into(),
            options: advice.baseline_options.clone(),
        },
        None,
    )];
    let rows = advice
        .rows
        .iter()
        .chain(&advice.combined)
        .filter(|r| !matches!(r.verdict, Verdict::ChangesAnswers(_)));
    for (i, row) in rows.enumerate() {
        let v = &row.candidate.variant;
        let trace = if v.edits.is_empty() {
            BASELINE.to_string()
        } else {
            format!("{:02}.pbt", i + 1)
        };
        let mut label = row.candidate.change.clone();
        let mut n = 1;
        while out.iter().any(|(c, _)| c.label == label) {
            n += 1;
            label = format!("{} #{n}", row.candidate.change);
        }
        let options = v.options_over(&advice.baseline_options);
        out.push((
            Cell {
                label,
                trace,
                options,
            },
            Some(row),
        ));
    }
    out
}

/// The plan's text for `cells`, whose traces are in `dir` (as the user named it, so `matrix
/// DIR/study.toml` finds them from the same folder).
pub fn plan_text(advice: &Advice, engine: &str, cells: &[Cell], dir: &Path) -> Result<String> {
    let values: Vec<toml::Value> = cells
        .iter()
        .map(|c| {
            let mut args = vec![
                "--trace".to_string(),
                dir.join(&c.trace).display().to_string(),
            ];
            for (k, v) in &c.options {
                args.extend(["-o".to_string(), format!("{k}={v}")]);
            }
            let mut t = toml::Table::new();
            t.insert("label".into(), c.label.clone().into());
            t.insert(
                "args".into(),
                toml::Value::Array(args.into_iter().map(Into::into).collect()),
            );
            toml::Value::Table(t)
        })
        .collect();
    let mut run = toml::Table::new();
    run.insert("engine".into(), engine.into());
    run.insert("no-overhead".into(), true.into());
    let mut axes = toml::Table::new();
    axes.insert("variant".into(), toml::Value::Array(values));
    let mut plan = toml::Table::new();
    plan.insert("name".into(), format!("advise {}", advice.trace).into());
    plan.insert("repeats".into(), (advice.repeats as i64).into());
    plan.insert("order".into(), "fixed".into());
    plan.insert("run".into(), toml::Value::Table(run));
    plan.insert("axes".into(), toml::Value::Table(axes));
    let mut body = toml::to_string(&plan).run_err("writing the study plan")?;
    if !body.ends_with('\n') {
        body.push('\n');
    }
    Ok(format!(
        "# The variants `pocketbench advise` measured for {} (advice {}), as a study:\n\
         # `pocketbench matrix {}` replays each, cold, {} times, interleaved.\n{body}",
        advice.trace,
        advice.id,
        dir.join(PLAN).display(),
        advice.repeats,
    ))
}

/// Check `dir` before anything is measured: a new folder, an empty one, or one an earlier
/// `--study` filled.
pub fn check(dir: &Path) -> Result<()> {
    folder::check(dir, "--study")
}

/// Fill `dir` with the plan and the traces it names; the plan is written last, so a folder
/// without it is one whose writing stopped. Returns the plan's path.
pub fn write(advice: &Advice, trace: &Path, engine: &str, dir: &Path) -> Result<PathBuf> {
    folder::fresh(dir, "--study")?;
    let cells = cells(advice);
    for (cell, row) in &cells {
        let out = dir.join(&cell.trace);
        if out.exists() {
            continue; // baseline.pbt, shared by the candidates that only change settings
        }
        // Both write beside the file and rename it into place.
        match row {
            Some(r) => r.candidate.variant.write(trace, &out)?,
            None => {
                AtomicFile::deliver(trace, &out).run_err(format!("copying {}", trace.display()))?;
            }
        }
    }
    let cells: Vec<Cell> = cells.into_iter().map(|(c, _)| c).collect();
    let text = plan_text(advice, engine, &cells, dir)?;
    let plan = dir.join(PLAN);
    let mut f = AtomicFile::create(&plan).run_err(format!("writing {}", plan.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.commit())
        .run_err(format!("writing {}", plan.display()))?;
    Ok(plan)
}
