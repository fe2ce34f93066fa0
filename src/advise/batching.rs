//! Batching: the runs of autocommit writes one connection sends close together
//! ([`super::shapes::Burst`]), each sent inside one transaction instead, and what that costs in
//! durability. An autocommit write is durable when its statement returns; in a batch it is
//! durable only at the batch's COMMIT, so a power loss before it takes writes the app saw
//! succeed. The durability machinery (`durability --workload`, under the strict and
//! ext4-ordered power-loss models) replays the batched trace's first operations and checks that
//! every acknowledged commit survives; the writes a power loss can take are those of the batch
//! being written.

use super::shapes::TraceView;
use super::variant::{Edit, Variant};
use super::{Candidate, Kind};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Operations of the trace replayed under each power-loss model at most.
const DURABILITY_TXNS: u64 = 2_000;
/// Crash points per model.
const DURABILITY_CRASHES: u64 = 60;

/// The batching candidate, when the trace has bursts.
pub fn propose(view: &TraceView) -> Option<Candidate> {
    if view.bursts.is_empty() {
        return None;
    }
    let writes: u64 = view.bursts.iter().map(|b| b.writes()).sum();
    let largest = view.bursts.iter().map(|b| b.writes()).max().unwrap_or(0);
    Some(Candidate {
        kind: Kind::Batching,
        change: match view.bursts.len() {
            1 => "send the burst of autocommit writes as one transaction".to_string(),
            n => format!("send {n} bursts of autocommit writes as one transaction each"),
        },
        why: format!(
            "{writes} writes in {} bursts (up to {largest} in one) on one connection, each committed alone, less than {} ms apart",
            view.bursts.len(),
            super::shapes::BURST_GAP_NS / 1_000_000
        ),
        sql: vec![format!(
            "-- in the app: BEGIN … COMMIT around each burst of writes ({} bursts, up to {largest} writes)",
            view.bursts.len()
        )],
        shapes: Vec::new(),
        variant: Variant {
            edits: vec![Edit::Batch {
                runs: view.bursts.iter().map(|b| (b.first, b.last)).collect(),
            }],
            options: Vec::new(),
        },
    })
}

/// What batching costs in durability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DurabilityCost {
    /// Acknowledged writes one power loss can take: the largest batch.
    pub writes_at_risk: u64,
    pub batches: u64,
    /// Per power-loss model: the check of the batched trace and of the app's own.
    pub models: Vec<ModelCost>,
    /// Models not simulated: the budget would not cover another as long as the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// One power-loss model's findings: the batched trace beside the app's own, which shows what the
/// configuration itself loses (under the strict model, a database file created without a
/// directory sync, for one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelCost {
    pub model: String,
    /// Crash states tried on the batched trace and on the app's own.
    pub crashes: u64,
    pub crashes_baseline: u64,
    /// Crash states after which an acknowledged commit was missing, batched and as the app ran.
    pub losing_batched: u64,
    pub losing_baseline: u64,
    /// The most acknowledged commits one crash took, batched.
    pub most_lost_at_once: u64,
}

/// The power-loss models the batching is simulated under, in order: the first before the
/// candidates' rounds (so the budget accounts for it), the others after them while the budget
/// still covers one as long as the first took.
pub const MODELS: [&str; 2] = ["strict", "ext4-ordered"];

impl DurabilityCost {
    /// Nothing simulated yet: what the bursts alone say.
    pub fn of(view: &TraceView) -> DurabilityCost {
        DurabilityCost {
            writes_at_risk: view.bursts.iter().map(|b| b.writes()).max().unwrap_or(0),
            batches: view.bursts.len() as u64,
            models: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Runs the durability machinery under `model` on the batched trace `batched` and the
    /// app's own `trace` (at most [`DURABILITY_TXNS`] operations, [`DURABILITY_CRASHES`] crash
    /// points each) and adds the finding; a build without the recorded-models machinery adds
    /// nothing.
    pub fn simulate(
        &mut self,
        model: &str,
        view: &TraceView,
        batched: &Path,
        trace: &Path,
        options: &[(String, String)],
        work: &Path,
    ) -> Result<()> {
        if !crate::durability::recorded::AVAILABLE {
            return Ok(());
        }
        let get = |k: &str, d: &str| {
            options
                .iter()
                .rev()
                .find(|(key, _)| key == k)
                .map_or(d.to_string(), |(_, v)| v.clone())
        };
        let config = [
            format!("journal_mode={}", get("journal_mode", "delete")),
            format!("synchronous={}", get("synchronous", "full")),
        ];
        let txns = view.run_ops.min(DURABILITY_TXNS);
        let run = |t: &Path| -> Result<crate::durability::ConfigReport> {
            let argv = [
                "durability".to_string(),
                "--workload".into(),
                t.display().to_string(),
                "--model".into(),
                model.into(),
                "--config".into(),
                config[0].clone(),
                "--config".into(),
                config[1].clone(),
                "--txns".into(),
                txns.to_string(),
                "--crashes".into(),
                DURABILITY_CRASHES.to_string(),
                "--states".into(),
                "2".into(),
                "--no-speed".into(),
                "--dir".into(),
                work.display().to_string(),
            ];
            let args = <Wrap as clap::Parser>::try_parse_from(argv)
                .map_err(|e| Error::failed(format!("durability request: {e}")))?
                .args;
            let req = args.request()?;
            let mut r = crate::durability::measure(&req)?;
            r.configurations
                .pop()
                .ok_or_else(|| Error::failed("durability: no configuration was run"))
        };
        let batched_r = run(batched)?;
        let base_r = run(trace)?;
        self.models.push(ModelCost {
            model: model.into(),
            crashes: batched_r.crashes,
            crashes_baseline: base_r.crashes,
            losing_batched: batched_r.crashes_losing_commits,
            losing_baseline: base_r.crashes_losing_commits,
            most_lost_at_once: batched_r.most_lost_at_once,
        });
        Ok(())
    }
}

/// `durability`'s flags, parsed as the command parses them.
#[derive(clap::Parser)]
struct Wrap {
    #[command(flatten)]
    args: crate::durability::args::DurabilityArgs,
}

impl DurabilityCost {
    /// One line: "a power loss can take up to 50 acknowledged writes (strict: 0 commits lost …)".
    pub fn text(&self) -> String {
        let models: Vec<String> = self
            .models
            .iter()
            .map(|m| {
                format!(
                    "{}: {} of {} crashes lost acknowledged commits (as the app ran: {} of {})",
                    m.model, m.losing_batched, m.crashes, m.losing_baseline, m.crashes_baseline
                )
            })
            .collect();
        let mut s = format!(
            "a power loss can take up to {} writes the app saw succeed (the batch in flight)",
            self.writes_at_risk
        );
        if !models.is_empty() {
            s.push_str("; ");
            s.push_str(&models.join("; "));
        }
        if !self.skipped.is_empty() {
            s.push_str(&format!(
                "; not simulated (the budget): {}",
                self.skipped.join(", ")
            ));
        }
        s
    }
}
