//! Setting the governor for a run: check permission first, write each policy's files (recording
//! the originals for [`super::restore`]), read every one back to verify, and restore them all
//! afterwards. When the device does not allow it — no cpufreq, not root, read-only sysfs,
//! a governor the kernel rejects — nothing stays changed, the run goes ahead, and the outcome
//! says "observed …, control unavailable: <reason>".

use super::request::GovernorRequest;
use super::restore::{self, Touched};
use super::{khz_text, read_trimmed, write_attr, Cpufreq, Policy};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What happened to the governor around a run (the summary's `governor` section).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct GovernorOutcome {
    /// `--governor` as given; `None` when the run did not ask for one.
    pub requested: Option<String>,
    /// `set` (written and verified by read-back) or `observed` (left as found).
    pub control: String,
    /// Why the governor is only observed although one was requested.
    pub reason: Option<String>,
    pub policies: Vec<PolicyState>,
    /// Files restored after the run, and any that could not be.
    pub restored_files: usize,
    pub restore_errors: Vec<String>,
    /// Anything else the user should know (a leftover restored, a change by another daemon).
    pub notices: Vec<String>,
}

/// One policy during the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PolicyState {
    pub policy: String,
    pub cpus: Vec<u32>,
    /// `LITTLE`, `big`, … or `symmetric`.
    pub cluster: String,
    /// Governor in effect (read back after setting, or observed).
    pub governor: Option<String>,
    /// Fixed frequency set, kHz.
    pub target_khz: Option<u64>,
    /// How a fixed frequency was set.
    pub method: Option<String>,
    /// `scaling_cur_freq` right after setting (an observation, not the verification).
    pub cur_khz: Option<u64>,
}

impl GovernorOutcome {
    /// One line: `set performance on policy0 (cpus 0-3), …` or
    /// `observed schedutil, control unavailable: permission denied …`.
    pub fn text(&self) -> String {
        let govs = self.governors_text();
        match (self.control.as_str(), &self.requested, &self.reason) {
            ("set", Some(req), _) => {
                let mut t = format!("set {req}: {govs}, verified by read-back");
                if !self.restore_errors.is_empty() {
                    t.push_str(&format!(
                        "; RESTORE FAILED: {}",
                        self.restore_errors.join("; ")
                    ));
                } else if self.restored_files > 0 {
                    t.push_str(&format!("; {} file(s) restored", self.restored_files));
                }
                t
            }
            (_, Some(_), Some(reason)) => {
                format!("observed {govs}, control unavailable: {reason}")
            }
            _ => format!("observed {govs} (not controlled; --governor sets it)"),
        }
    }

    fn governors_text(&self) -> String {
        if self.policies.is_empty() {
            return "none (no cpufreq)".into();
        }
        let mut govs: Vec<String> = self
            .policies
            .iter()
            .map(|p| {
                let g = p.governor.clone().unwrap_or_else(|| "unknown".into());
                match p.target_khz {
                    Some(k) => format!("{g} @ {}", khz_text(k)),
                    None => g,
                }
            })
            .collect();
        let all_same = govs.windows(2).all(|w| w[0] == w[1]);
        if all_same {
            govs.truncate(1);
            return govs.remove(0);
        }
        self.policies
            .iter()
            .zip(govs)
            .map(|(p, g)| format!("{} {g}", p.policy))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The governor as it is, without changing anything.
pub fn observe(cf: &Cpufreq) -> GovernorOutcome {
    GovernorOutcome {
        control: "observed".into(),
        policies: states(cf),
        ..Default::default()
    }
}

fn states(cf: &Cpufreq) -> Vec<PolicyState> {
    cf.policies
        .iter()
        .zip(cf.cluster_labels())
        .map(|(p, cluster)| PolicyState {
            policy: p.name.clone(),
            cpus: p.cpus.clone(),
            cluster,
            governor: read_trimmed(&p.dir.join("scaling_governor")),
            cur_khz: read_trimmed(&p.dir.join("scaling_cur_freq")).and_then(|v| v.parse().ok()),
            ..Default::default()
        })
        .collect()
}

/// A governor setting in force; restores on drop (also while unwinding from a panic).
pub struct Control {
    pub outcome: GovernorOutcome,
    owner: u64,
}

impl Control {
    /// Check that the governor is still what we set (a vendor daemon or thermal driver may
    /// have changed it during the run) and restore everything. Returns the final outcome.
    pub fn finish(mut self) -> GovernorOutcome {
        if self.outcome.control == "set" {
            for p in &self.outcome.policies {
                let dir = policy_dir(p);
                let now = read_trimmed(&dir.join("scaling_governor"));
                if now.is_some() && now != p.governor {
                    self.outcome.notices.push(format!(
                        "{}: governor changed to {} during the run by something else",
                        p.policy,
                        now.unwrap_or_default()
                    ));
                }
            }
        }
        if self.owner == 0 {
            return std::mem::take(&mut self.outcome);
        }
        let (restored, errors) = restore::restore_owner(self.owner);
        self.outcome.restored_files = restored;
        self.outcome.restore_errors = errors;
        self.owner = 0;
        std::mem::take(&mut self.outcome)
    }
}

impl Drop for Control {
    fn drop(&mut self) {
        if self.owner != 0 {
            for e in restore::restore_owner(self.owner).1 {
                eprintln!("pocketbench: {e}");
            }
        }
    }
}

fn policy_dir(p: &PolicyState) -> PathBuf {
    let root = crate::platform::sysfs::sysfs_root();
    let by_policy = root.join("devices/system/cpu/cpufreq").join(&p.policy);
    if by_policy.is_dir() {
        by_policy
    } else {
        root.join("devices/system/cpu")
            .join(&p.policy)
            .join("cpufreq")
    }
}

/// One write: file, value.
type Step = (PathBuf, String);

/// Apply `req` to every policy of `cf` (under `sysfs_root`). Bad requests for this device (a
/// governor no policy offers) are input errors; anything the device refuses yields an
/// `observed` outcome with the reason, after undoing whatever was written.
pub fn apply(req: &GovernorRequest, cf: &Cpufreq, sysfs_root: &Path) -> Result<Control> {
    // A killed run's changes go back first, so the originals recorded below are the real ones.
    let leftover = restore::restore_leftover(sysfs_root);
    let mut outcome = observe(cf);
    outcome.requested = Some(req.label());
    outcome.notices.extend(leftover);
    let owner = restore::new_owner();
    if cf.is_empty() {
        outcome.reason = cf.missing.clone();
        return Ok(Control { outcome, owner: 0 });
    }
    let mut plans = Vec::new();
    for p in &cf.policies {
        plans.push(plan(req, p)?);
    }
    // Permission first, so a refused run never leaves anything half-changed.
    for (_, steps, _) in &plans {
        for (file, _) in steps {
            if let Err(e) = std::fs::OpenOptions::new().write(true).open(file) {
                outcome.reason = Some(format!("{}: {}", file.display(), refusal(&e)));
                return Ok(Control { outcome, owner: 0 });
            }
        }
    }
    crate::platform::signals::install();
    let mut control = Control { outcome, owner };
    for (i, (target, steps, method)) in plans.iter().enumerate() {
        if let Err(reason) = write_verified(owner, sysfs_root, steps) {
            let (_, errors) = restore::restore_owner(owner);
            control.owner = 0;
            control.outcome.reason = Some(if errors.is_empty() {
                format!("{reason}; everything written was restored")
            } else {
                format!("{reason}; restoring failed too: {}", errors.join("; "))
            });
            return Ok(control);
        }
        let dir = &cf.policies[i].dir;
        let st = &mut control.outcome.policies[i];
        st.governor = read_trimmed(&dir.join("scaling_governor"));
        st.target_khz = *target;
        st.method = method.clone();
        st.cur_khz = read_trimmed(&dir.join("scaling_cur_freq")).and_then(|v| v.parse().ok());
    }
    control.outcome.control = "set".into();
    Ok(control)
}

/// Check that every policy of `cf` can take `req` (no writing): an input error otherwise.
pub fn check(req: &GovernorRequest, cf: &Cpufreq) -> Result<()> {
    if let (true, GovernorRequest::Named(g)) = (cf.policies.is_empty(), req) {
        if !super::request::KNOWN_GOVERNORS.contains(&g.as_str()) {
            return Err(Error::input(format!(
                "--governor {}: not a governor Linux or Android ships ({}), and this device has no cpufreq to offer others",
                crate::limits::escape(g),
                super::request::KNOWN_GOVERNORS.join(", ")
            )));
        }
    }
    cf.policies
        .iter()
        .try_for_each(|p| plan(req, p).map(|_| ()))
}

/// The writes that put policy `p` under `req`: target frequency, steps, method text.
fn plan(req: &GovernorRequest, p: &Policy) -> Result<(Option<u64>, Vec<Step>, Option<String>)> {
    let offered =
        |g: &str| p.available_governors.is_empty() || p.available_governors.iter().any(|a| a == g);
    let gov_file = p.dir.join("scaling_governor");
    let target = req.target_khz(p);
    let Some(khz) = target else {
        let g = req.governor();
        if !offered(g) {
            return Err(Error::input(format!(
                "--governor {g}: {} does not offer it (available: {})",
                p.name,
                p.available_governors.join(" ")
            )));
        }
        return Ok((None, vec![(gov_file, g.to_string())], None));
    };
    if offered("userspace") {
        let steps = vec![
            (gov_file, "userspace".to_string()),
            (p.dir.join("scaling_setspeed"), khz.to_string()),
        ];
        return Ok((
            Some(khz),
            steps,
            Some("userspace governor, scaling_setspeed".into()),
        ));
    }
    // No userspace governor (intel_pstate, many Android kernels): pin min = max = target.
    let mut steps = Vec::new();
    if offered("performance") {
        steps.push((gov_file, "performance".to_string()));
    }
    let (min, max) = (
        p.dir.join("scaling_min_freq"),
        p.dir.join("scaling_max_freq"),
    );
    let cur_min = p.scaling_min_khz.unwrap_or(0);
    if khz >= cur_min {
        steps.push((max, khz.to_string()));
        steps.push((min, khz.to_string()));
    } else {
        steps.push((min, khz.to_string()));
        steps.push((max, khz.to_string()));
    }
    Ok((
        Some(khz),
        steps,
        Some("pinned scaling_min_freq = scaling_max_freq (no userspace governor)".into()),
    ))
}

/// Write each step after recording its original, then read it back.
fn write_verified(owner: u64, root: &Path, steps: &[Step]) -> std::result::Result<(), String> {
    for (file, value) in steps {
        let original = read_trimmed(file).unwrap_or_default();
        restore::record(
            owner,
            root,
            Touched {
                path: file.clone(),
                original,
            },
        )
        .map_err(|e| format!("cannot write the restore journal: {e}"))?;
        write_attr(file, value)
            .map_err(|e| format!("writing `{value}` to {}: {}", file.display(), refusal(&e)))?;
        let back = read_trimmed(file).unwrap_or_default();
        if back != *value {
            return Err(format!(
                "{} reads back `{back}` after writing `{value}` (the kernel or another daemon overrode it)",
                file.display()
            ));
        }
    }
    Ok(())
}

/// Why a write was refused, in the user's terms.
pub fn refusal(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "permission denied (setting cpufreq needs root; on Android run as `su`)".into()
        }
        Some(libc::EROFS) => {
            "sysfs is read-only here (a container, or a locked-down kernel)".into()
        }
        Some(libc::EINVAL) => "the kernel rejected the value (invalid argument)".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cpufreq::discover;
    use crate::platform::fake_sysfs::Tree;

    const GOV0: &str = "devices/system/cpu/cpufreq/policy0/scaling_governor";
    const GOV4: &str = "devices/system/cpu/cpufreq/policy4/scaling_governor";
    const SET4: &str = "devices/system/cpu/cpufreq/policy4/scaling_setspeed";

    #[test]
    fn sets_verifies_and_restores_a_named_governor() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        let c = apply(
            &GovernorRequest::parse("performance").unwrap(),
            &cf,
            t.root(),
        )
        .unwrap();
        assert_eq!(c.outcome.control, "set");
        assert_eq!(
            (t.read(GOV0), t.read(GOV4)),
            ("performance".into(), "performance".into())
        );
        assert!(
            restore::journal_path(t.root()).exists(),
            "journal written before changes"
        );
        let out = c.finish();
        assert_eq!(out.restored_files, 2);
        assert!(out.restore_errors.is_empty());
        assert_eq!(
            (t.read(GOV0), t.read(GOV4)),
            ("schedutil".into(), "schedutil".into())
        );
        assert!(!restore::journal_path(t.root()).exists());
        assert!(
            out.text().starts_with("set performance: performance"),
            "{}",
            out.text()
        );
    }

    #[test]
    fn fixed_frequency_per_cluster_and_restore_on_drop() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        {
            let c = apply(&GovernorRequest::parse("fixed:50%").unwrap(), &cf, t.root()).unwrap();
            assert_eq!(c.outcome.policies[1].target_khz, Some(1_500_000));
            assert_eq!(t.read(GOV4), "userspace");
            assert_eq!(t.read(SET4), "1500000");
            // Dropped without finish(), as when a run fails or panics.
        }
        assert_eq!(t.read(GOV4), "schedutil");
        assert_eq!(t.read(SET4), "<unsupported>");
    }

    #[test]
    fn a_panic_while_the_governor_is_set_restores_it() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        let root = t.root().to_path_buf();
        let result = std::panic::catch_unwind(move || {
            let _c = apply(&GovernorRequest::parse("powersave").unwrap(), &cf, &root).unwrap();
            panic!("the run failed");
        });
        assert!(result.is_err());
        assert_eq!(
            (t.read(GOV0), t.read(GOV4)),
            ("schedutil".into(), "schedutil".into())
        );
        assert!(!restore::journal_path(t.root()).exists());
    }

    #[test]
    fn pins_min_and_max_without_userspace() {
        let t = Tree::big_little();
        t.write(
            "devices/system/cpu/cpufreq/policy4/scaling_available_governors",
            "performance powersave schedutil",
        );
        let cf = discover(t.root());
        let c = apply(
            &GovernorRequest::parse("userspace:max").unwrap(),
            &cf,
            t.root(),
        )
        .unwrap();
        let p = "devices/system/cpu/cpufreq/policy4";
        assert_eq!(t.read(&format!("{p}/scaling_min_freq")), "2400000");
        assert_eq!(t.read(&format!("{p}/scaling_max_freq")), "2400000");
        assert!(c.outcome.policies[1]
            .method
            .as_deref()
            .unwrap()
            .contains("pinned"));
        drop(c);
        assert_eq!(t.read(&format!("{p}/scaling_min_freq")), "600000");
        assert_eq!(t.read(GOV4), "schedutil");
    }

    #[test]
    fn unavailable_governor_is_bad_input_and_touches_nothing() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        let err = apply(
            &GovernorRequest::parse("interactive").unwrap(),
            &cf,
            t.root(),
        )
        .err()
        .unwrap();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("--governor interactive"), "{err}");
        assert_eq!(t.read(GOV0), "schedutil");
    }

    #[test]
    fn no_cpufreq_or_no_permission_is_observed_with_the_reason() {
        let empty = Tree::empty();
        let cf = discover(empty.root());
        let c = apply(
            &GovernorRequest::parse("performance").unwrap(),
            &cf,
            empty.root(),
        )
        .unwrap();
        assert_eq!(c.outcome.control, "observed");
        let text = c.outcome.text();
        assert!(
            text.starts_with("observed none (no cpufreq), control unavailable: no cpufreq"),
            "{text}"
        );

        let t = Tree::big_little();
        let cf = discover(t.root());
        std::fs::remove_file(t.path(GOV4)).unwrap();
        let c = apply(&GovernorRequest::parse("powersave").unwrap(), &cf, t.root()).unwrap();
        assert_eq!(c.outcome.control, "observed");
        assert!(c
            .outcome
            .reason
            .as_deref()
            .unwrap()
            .contains("policy4/scaling_governor"));
        assert_eq!(
            t.read(GOV0),
            "schedutil",
            "refused before anything was written"
        );
    }

    #[test]
    fn an_unwritable_file_leaves_everything_as_found() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        // A directory where setspeed should be: writing it fails after the governor was set.
        std::fs::remove_file(t.path(SET4)).unwrap();
        std::fs::create_dir(t.path(SET4)).unwrap();
        std::fs::write(t.path(&format!("{SET4}/x")), "").unwrap();
        let c = apply(
            &GovernorRequest::parse("userspace:1GHz").unwrap(),
            &cf,
            t.root(),
        )
        .unwrap();
        assert_eq!(c.outcome.control, "observed");
        assert_eq!(t.read(GOV0), "schedutil");
        assert_eq!(t.read(GOV4), "schedutil");
    }
}
