//! `advise`: from an app's trace, the changes worth making, each measured against the app's own
//! baseline. The trace is replayed as the app ran it (its recorded settings) into a scratch
//! database; candidates are proposed from the plans and the I/O ([`indexes`], reading
//! statements with [`constraints`]; [`settings`],
//! [`batching`], [`statements`], and the user's own `--try`); each is written as a variant of
//! the trace ([`variant`]), its answers checked against the baseline's ([`answers`]), timed
//! quickly to order the candidates, then replayed against the baseline, interleaved, with
//! confidence intervals ([`measure`]), within the budget; the winners are measured once more
//! together. [`render`] writes the ranked table and the advice file.

pub mod answers;
pub mod batching;
pub mod budget;
pub mod constraints;
pub mod indexes;
pub mod measure;
pub mod render;
pub mod rounds;
pub mod settings;
pub mod shapes;
pub mod statements;
pub mod study;
pub mod variant;

use budget::Clock;
pub use budget::{parse_budget, MAX_BUDGET_NS};

use crate::error::{Error, Result, ResultExt};
use crate::output::progress;
use crate::platform::clock::mono_ns;
use answers::Answers;
use measure::{Gain, Replay, Side};
use serde::Serialize;
use shapes::Shapes;
use std::path::{Path, PathBuf};
use variant::Variant;

/// Results store kind of an advice.
pub const SUITE: &str = "advise";
/// Confidence level of every interval.
pub const LEVEL: f64 = 0.95;
/// Repeats per side at most (docs/limits.md).
pub const MAX_REPEATS: usize = 100;
/// The fewest rounds the budget may cut the candidates' measurement to before it leaves
/// candidates out (fewer when `--repeats` asks for fewer).
pub const MIN_ROUNDS: usize = 3;
/// `--try` candidates at most.
pub const MAX_TRIES: usize = 50;

/// What to advise on.
#[derive(Clone, Debug)]
pub struct Request {
    pub trace: PathBuf,
    pub engine: String,
    /// `-o` options on top of the trace's recorded settings: the baseline.
    pub options: Vec<(String, String)>,
    pub budget_ns: u64,
    pub repeats: usize,
    /// Engine options to try as candidates of their own (`--try KEY=VALUE[,KEY=VALUE]`).
    pub tries: Vec<Vec<(String, String)>>,
    /// Work out the batching's durability cost (power-loss simulation).
    pub durability: bool,
    pub quiet: bool,
}

/// What kind of change a candidate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Index,
    DropIndex,
    Setting,
    Batching,
    Statements,
    Tried,
}

/// One proposed change.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub kind: Kind,
    /// The change in a few words (`CREATE INDEX …`, `journal_mode=wal synchronous=normal`).
    pub change: String,
    /// Why it was proposed.
    pub why: String,
    /// Lines of the advice file (SQL), empty for a change made in the app's code.
    pub sql: Vec<String>,
    /// The statement shapes (fingerprints) it was proposed for, where it was proposed for some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shapes: Vec<String>,
    pub variant: Variant,
}

/// What became of a candidate.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", content = "detail", rename_all = "snake_case")]
pub enum Verdict {
    /// Faster, the interval of the gain excluding zero, with equal answers.
    Proposed,
    /// Neither faster nor slower beyond the interval.
    NoGain,
    /// Slower, the interval excluding zero.
    Slower,
    /// Its replay answered differently: how.
    ChangesAnswers(String),
    /// Not measured: why (the budget).
    NotMeasured(String),
}

/// A candidate with its measurements.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub candidate: Candidate,
    pub verdict: Verdict,
    /// Busy time saved by the quick first measurement (ms; positive is faster).
    pub quick_saved_ms: Option<f64>,
    /// The app's busy time, baseline beside variant (ms).
    pub gain: Option<Gain>,
    /// The busy time of the app's writes (ms).
    pub writes: Option<Gain>,
    /// Mean syncs and bytes written per replay, baseline then variant.
    pub syncs: Option<(f64, f64)>,
    pub write_bytes: Option<(f64, f64)>,
    /// The statement shapes whose p50 changed most, baseline beside variant (µs).
    pub shapes: Vec<render::ShapeBeside>,
    /// For batching: what a power loss can take.
    pub durability: Option<batching::DurabilityCost>,
}

/// The whole answer.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    #[serde(default)]
    pub id: i64,
    pub created_at: String,
    pub tool_version: String,
    pub trace: String,
    pub trace_digest: String,
    pub engine: String,
    pub baseline_options: Vec<(String, String)>,
    pub statements: u64,
    pub shapes: usize,
    pub repeats: usize,
    /// The rounds the candidates were measured in: `repeats`, or fewer (down to
    /// [`MIN_ROUNDS`]) when the budget did not cover them all.
    pub rounds: usize,
    pub level: f64,
    pub budget_ns: u64,
    pub elapsed_ns: u64,
    /// The baseline's busy time over its replays in the candidates' rounds (ms).
    pub baseline_busy: Option<crate::results::repeats::Estimate>,
    /// Ranked: proposed first (largest gain first), then the others.
    pub rows: Vec<Row>,
    /// Every proposed change together, when more than one was proposed.
    pub combined: Option<Row>,
    /// Statement shapes whose plan could not be read.
    pub notes: Vec<String>,
}

impl Advice {
    pub fn proposed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.verdict == Verdict::Proposed)
    }
}

/// Read `trace` through (checksums, totals): a SQL trace, or bad input naming it.
pub fn check_trace(
    trace: &Path,
) -> Result<(
    crate::workload::trace::TraceHeader,
    crate::workload::trace::TraceTotals,
)> {
    let (header, totals) = crate::workload::trace::verify(trace)?;
    if !matches!(
        header.workload.model,
        crate::workload::model::DataModel::Sql
    ) {
        return Err(Error::input(format!(
            "{}: a key-value trace; advise reads SQL statements (an imported or captured app trace, or a SQL workload)",
            trace.display()
        )));
    }
    Ok((header, totals))
}

/// Advise on `req.trace`.
pub fn advise(req: &Request) -> Result<Advice> {
    let clock = Clock::start(req.budget_ns);
    let (header, totals) = check_trace(&req.trace)?;
    crate::engine::check(&req.engine, &req.options, &header.workload.model)?;
    let mut shapes = Shapes::default();
    let view = shapes::read(&req.trace, &mut shapes, true)?;
    let mut base_options: Vec<(String, String)> = header
        .import
        .as_ref()
        .map(|i| crate::engine::sqlite::options::from_settings(&i.settings))
        .unwrap_or_default()
        .iter()
        .filter_map(|o| o.strip_prefix("-o ")?.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    base_options = Variant {
        edits: vec![],
        options: req.options.clone(),
    }
    .options_over(&base_options);
    let work = crate::platform::cleanup::TempDir::new("pocketbench-advise-", None)
        .run_err("creating a temporary directory")?;
    let say = |m: &str| progress::phase(m);

    say(&format!(
        "baseline: replaying {} statements into a scratch database",
        view.run_ops
    ));
    let base_dir = work.path().join("baseline");
    std::fs::create_dir_all(&base_dir).run_err("creating the scratch folder")?;
    let t_answers = mono_ns();
    let base_answers = answers::replay(
        &req.trace,
        &req.engine,
        &base_options,
        &base_dir,
        &mut shapes,
    )?;
    let answers_ns = mono_ns() - t_answers;
    let first = quiet_replay(
        req,
        &req.trace,
        &base_options,
        &view.run_shapes,
        &shapes.writes(),
    )?;
    let db_bytes = std::fs::metadata(base_dir.join(crate::engine::sqlite::DB_FILE))
        .map(|m| m.len())
        .unwrap_or(0);

    let found = indexes::propose(&base_dir.join(crate::engine::sqlite::DB_FILE), &shapes)?;
    let mut candidates = Vec::new();
    candidates.extend(indexes::candidates_of(&found));
    candidates.extend(settings::propose(&view, &base_options, &first, db_bytes));
    candidates.extend(batching::propose(&view));
    candidates.extend(statements::propose(&shapes));
    candidates.extend(req.tries.iter().map(|t| settings::tried(t)));
    let mut notes: Vec<String> = found
        .unplanned
        .iter()
        .map(|(fp, why)| format!("no plan for `{}`: {why}", answers::short(fp)))
        .collect();

    // Answers and the quick measurement, candidate by candidate.
    let mut rows = Vec::new();
    let mut measurable = Vec::new();
    for (i, c) in candidates.into_iter().enumerate() {
        if !clock.fits(answers_ns) {
            let why = "the budget ran out before its answers were checked".to_string();
            rows.push(row(c, Verdict::NotMeasured(why), None));
            continue;
        }
        let trace = variant_trace(&c.variant, &req.trace, work.path(), &format!("c{i}"))?;
        say(&format!("checking the answers of: {}", c.change));
        let dir = work.path().join(format!("c{i}-answers"));
        std::fs::create_dir_all(&dir).run_err("creating the scratch folder")?;
        let options = c.variant.options_over(&base_options);
        let got = answers::replay(&trace, &req.engine, &options, &dir, &mut shapes);
        drop(std::fs::remove_dir_all(&dir));
        let got = match got {
            Ok(a) => a,
            Err(Error::Input(m)) | Err(Error::Failed(m)) => Answers {
                first_error: Some(m.clone()),
                errors: [("(the replay)".to_string(), 1)].into(),
                ..Answers::default()
            },
        };
        let quick = (base_answers.busy_ns as f64 - got.busy_ns as f64) / 1e6;
        if let Some(how) = answers::difference(&base_answers, &got) {
            rows.push(row(c, Verdict::ChangesAnswers(how), Some(quick)));
            continue;
        }
        measurable.push((c, trace, options, quick));
    }
    // Best first by the quick measurement.
    measurable.sort_by(|a, b| b.3.total_cmp(&a.3));

    let repeats = req.repeats.max(1);
    let mut entries = Vec::with_capacity(measurable.len());
    for (_, trace, options, _) in &measurable {
        let run_shapes = if *trace == req.trace {
            view.run_shapes.clone()
        } else {
            shapes::read(trace, &mut shapes, false)?.run_shapes
        };
        entries.push((trace.clone(), options.clone(), run_shapes));
    }
    let names: Vec<String> = measurable.iter().map(|m| m.0.change.clone()).collect();
    // The batching's durability cost under the first power-loss model, before the rounds so
    // that the budget they are fitted to accounts for it (its time is not known beforehand).
    let mut durability = None;
    let mut model_ns = 0;
    let simulate = |cost: &mut batching::DurabilityCost, model: &str, batched: &Path| {
        cost.simulate(
            model,
            &view,
            batched,
            &req.trace,
            &base_options,
            work.path(),
        )
    };
    let batching = measurable
        .iter()
        .find(|m| m.0.kind == Kind::Batching)
        .map(|m| m.1.clone());
    if let Some(batched) = batching.filter(|_| req.durability) {
        if clock.fits(first.wall_ns.saturating_mul(2)) {
            say("simulating power losses in the batched trace and the app's own");
            let t0 = mono_ns();
            let mut cost = batching::DurabilityCost::of(&view);
            simulate(&mut cost, batching::MODELS[0], &batched)?;
            model_ns = mono_ns() - t0;
            durability = Some((batched, cost));
        } else {
            notes.push(
                "the batching's durability cost was not simulated: the budget ran out".into(),
            );
        }
    }
    if !entries.is_empty() {
        say(&format!(
            "measuring {} candidate(s) against the baseline, {repeats} round(s) of one replay each (at least {} if the budget needs fewer)",
            entries.len(),
            MIN_ROUNDS.min(repeats)
        ));
    }
    let writes = shapes.writes();
    // Every candidate in fewer rounds before any is left out; when two or more are measured,
    // replays are kept for measuring the winners together.
    let min_rounds = MIN_ROUNDS.min(repeats);
    let reserve = if entries.len() > 1 {
        2 * min_rounds as u64
    } else {
        0
    };
    let schedule = rounds::Schedule {
        rounds: repeats,
        min_rounds,
        reserve,
    };
    let rounds::Measured {
        baseline: baseline_all,
        outcomes,
        rounds: rounds_made,
    } = rounds::measure(
        entries.len(),
        schedule,
        first.wall_ns,
        |more| clock.fits(more),
        |who| match who {
            rounds::Who::Baseline => {
                progress::phase("replaying: the baseline");
                quiet_replay(req, &req.trace, &base_options, &view.run_shapes, &writes)
            }
            rounds::Who::Candidate(i) => {
                progress::phase(&format!("replaying: {}", names[i]));
                let (trace, options, run_shapes) = &entries[i];
                quiet_replay(req, trace, options, run_shapes, &writes)
            }
        },
    )?;
    for ((c, _, _, quick), outcome) in measurable.into_iter().zip(outcomes) {
        let r = match outcome {
            rounds::Outcome::Measured { base, var } => {
                measured(c, &base, &var, &shapes, Some(quick))
            }
            rounds::Outcome::Failed(e) => {
                let why = format!("its replay failed: {e}");
                row(c, Verdict::NotMeasured(why), Some(quick))
            }
            rounds::Outcome::Unmeasured { replays } => {
                let why = format!(
                    "the budget ({}) did not cover its {min_rounds} replays ({replays} made)",
                    crate::output::units::format_duration(req.budget_ns),
                );
                row(c, Verdict::NotMeasured(why), Some(quick))
            }
        };
        rows.push(r);
    }
    // The other power-loss models, while what the rounds left (less the replays kept for the
    // winners together) covers one as long as the first took.
    let replay_ns = first.wall_ns;
    let kept_ns = replay_ns.saturating_mul(reserve);
    if let Some((batched, mut cost)) = durability {
        for model in &batching::MODELS[1..] {
            if !clock.fits(model_ns.saturating_add(kept_ns)) {
                cost.skipped.push(model.to_string());
                continue;
            }
            simulate(&mut cost, model, &batched)?;
        }
        if let Some(r) = rows.iter_mut().find(|r| r.candidate.kind == Kind::Batching) {
            r.durability = Some(cost);
        }
    }
    rank(&mut rows);

    let winners: Vec<&Row> = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Proposed)
        .collect();
    let mut combined = None;
    if winners.len() > 1 {
        let v = Variant::combine(winners.iter().map(|r| &r.candidate.variant));
        let c = Candidate {
            kind: Kind::Tried,
            change: format!("all {} proposed changes together", winners.len()),
            why: "changes interact (WAL changes what an index costs on writes)".into(),
            sql: Vec::new(),
            shapes: Vec::new(),
            variant: v,
        };
        let trace = variant_trace(&c.variant, &req.trace, work.path(), "combined")?;
        let options = c.variant.options_over(&base_options);
        let run_shapes = shapes::read(&trace, &mut shapes, false)?.run_shapes;
        let writes = shapes.writes();
        say(&format!("measuring (up to {repeats} rounds): {}", c.change));
        let outcome = rounds::measure(
            1,
            rounds::Schedule {
                rounds: repeats,
                min_rounds,
                reserve: 0,
            },
            replay_ns,
            |more| clock.fits(more),
            |who| match who {
                rounds::Who::Baseline => {
                    quiet_replay(req, &req.trace, &base_options, &view.run_shapes, &writes)
                }
                rounds::Who::Candidate(_) => {
                    quiet_replay(req, &trace, &options, &run_shapes, &writes)
                }
            },
        )?;
        combined = Some(match outcome.outcomes.into_iter().next() {
            Some(rounds::Outcome::Measured { base, var }) => {
                measured(c, &base, &var, &shapes, None)
            }
            Some(rounds::Outcome::Failed(e)) => row(
                c,
                Verdict::NotMeasured(format!("its replay failed: {e}")),
                None,
            ),
            _ => row(c, Verdict::NotMeasured("the budget ran out".into()), None),
        });
    }
    let baseline_busy = crate::results::repeats::Estimate::of(
        &baseline_all
            .values(|r| r.busy_ns)
            .iter()
            .map(|&ns| ns as f64 / 1e6)
            .collect::<Vec<_>>(),
        LEVEL,
    );
    Ok(Advice {
        id: 0,
        created_at: crate::platform::clock::utc_now(),
        tool_version: crate::TOOL_VERSION.into(),
        trace: req.trace.display().to_string(),
        trace_digest: totals.digest_hex(),
        engine: req.engine.clone(),
        baseline_options: base_options,
        statements: view.run_ops,
        shapes: shapes.list.len(),
        repeats,
        rounds: if entries.is_empty() {
            repeats
        } else {
            rounds_made
        },
        level: LEVEL,
        budget_ns: req.budget_ns,
        elapsed_ns: clock.elapsed(),
        baseline_busy,
        rows,
        combined,
        notes,
    })
}

/// The trace a variant replays: the app's own when it edits no statement.
fn variant_trace(v: &Variant, trace: &Path, work: &Path, name: &str) -> Result<PathBuf> {
    if v.edits.is_empty() {
        return Ok(trace.to_path_buf());
    }
    let out = work.join(format!("{name}.pbt"));
    v.write(trace, &out)?;
    Ok(out)
}

/// One timed replay, with `run`'s own progress silenced.
fn quiet_replay(
    req: &Request,
    trace: &Path,
    options: &[(String, String)],
    run_shapes: &[u32],
    writes: &[bool],
) -> Result<Replay> {
    progress::set_quiet(true);
    let r = measure::replay(trace, &req.engine, options, run_shapes, writes);
    progress::set_quiet(req.quiet);
    r
}

fn row(candidate: Candidate, verdict: Verdict, quick: Option<f64>) -> Row {
    Row {
        candidate,
        verdict,
        quick_saved_ms: quick,
        gain: None,
        writes: None,
        syncs: None,
        write_bytes: None,
        shapes: Vec::new(),
        durability: None,
    }
}

/// A candidate's row from its measurements.
fn measured(c: Candidate, base: &Side, var: &Side, shapes: &Shapes, quick: Option<f64>) -> Row {
    let gain = Gain::of(
        &base.values(|r| r.busy_ns),
        &var.values(|r| r.busy_ns),
        LEVEL,
    );
    let verdict = match &gain {
        Some(g) if g.wins() => Verdict::Proposed,
        Some(g) if g.loses() => Verdict::Slower,
        _ => Verdict::NoGain,
    };
    let mut r = row(c, verdict, quick);
    r.writes = Gain::of(
        &base.values(|r| r.write_busy_ns),
        &var.values(|r| r.write_busy_ns),
        LEVEL,
    )
    .filter(|g| g.baseline.mean > 0.0 || g.variant.mean > 0.0);
    r.syncs = Some((base.mean(|r| r.syncs), var.mean(|r| r.syncs)));
    r.write_bytes = Some((base.mean(|r| r.write_bytes), var.mean(|r| r.write_bytes)));
    r.shapes = render::shapes_beside(base, var, shapes);
    r.gain = gain;
    r
}

/// Proposed first, largest gain first; then no gain, slower, changed answers, not measured.
fn rank(rows: &mut [Row]) {
    let order = |v: &Verdict| match v {
        Verdict::Proposed => 0,
        Verdict::NoGain => 1,
        Verdict::Slower => 2,
        Verdict::ChangesAnswers(_) => 3,
        Verdict::NotMeasured(_) => 4,
    };
    rows.sort_by(|a, b| {
        order(&a.verdict).cmp(&order(&b.verdict)).then_with(|| {
            let s = |r: &Row| r.gain.as_ref().map_or(f64::MIN, |g| g.saved().0);
            s(b).total_cmp(&s(a))
        })
    });
}
