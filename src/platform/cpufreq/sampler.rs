//! The frequency sampler: at each tick of the sampling thread, read every policy's
//! `scaling_cur_freq` and the CPU the replay thread last ran on (field 39 of
//! `/proc/self/task/TID/stat`), and append them to a timeline. The timeline goes from the
//! replay process to the parent in a small file, where it is joined to operations by
//! timestamp ([`super::join`]), summarised as sampled residency, and stored.
//!
//! File format: one JSON header line ([`TimelineHeader`]), then fixed-size little-endian
//! records: `t_ns: u64`, `replay_cpu: i32` (−1 unknown), one `khz: u32` per policy (0 = unread).

use super::residency::PolicyResidency;
use super::Cpufreq;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TimelineHeader {
    pub policies: Vec<String>,
    /// CPU number → index into `policies`.
    pub cpu_policy: BTreeMap<u32, usize>,
    pub period_ns: u64,
}

/// One reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FreqSample {
    pub t_ns: u64,
    pub replay_cpu: i32,
    pub khz: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub header: TimelineHeader,
    pub samples: Vec<FreqSample>,
}

/// State of the sampling thread.
pub struct FreqProbe {
    files: Vec<PathBuf>,
    replay_stat: Option<PathBuf>,
    pub timeline: Timeline,
}

impl FreqProbe {
    /// Probe the policies of `cf` that have `scaling_cur_freq`; `None` if none does.
    /// `replay_tid` is the thread whose CPU is recorded (the replaying thread).
    pub fn new(cf: &Cpufreq, period_ns: u64, replay_tid: Option<i32>) -> Option<FreqProbe> {
        let usable: Vec<_> = cf
            .policies
            .iter()
            .filter(|p| p.dir.join("scaling_cur_freq").is_file())
            .collect();
        if usable.is_empty() {
            return None;
        }
        let mut cpu_policy = BTreeMap::new();
        for (i, p) in usable.iter().enumerate() {
            for c in &p.cpus {
                cpu_policy.insert(*c, i);
            }
        }
        Some(FreqProbe {
            files: usable
                .iter()
                .map(|p| p.dir.join("scaling_cur_freq"))
                .collect(),
            replay_stat: replay_tid.map(|t| PathBuf::from(format!("/proc/self/task/{t}/stat"))),
            timeline: Timeline {
                header: TimelineHeader {
                    policies: usable.iter().map(|p| p.name.clone()).collect(),
                    cpu_policy,
                    period_ns,
                },
                samples: Vec::new(),
            },
        })
    }

    /// Take one reading.
    pub fn sample(&mut self, now_ns: u64) {
        let khz = self
            .files
            .iter()
            .map(|f| {
                super::read_trimmed(f)
                    .and_then(|v| v.parse::<u32>().ok())
                    .unwrap_or(0)
            })
            .collect();
        let replay_cpu = self
            .replay_stat
            .as_deref()
            .and_then(last_cpu)
            .map_or(-1, |c| c as i32);
        self.timeline.samples.push(FreqSample {
            t_ns: now_ns,
            replay_cpu,
            khz,
        });
    }
}

/// The CPU a thread last ran on, from its `stat` file (field 39, `processor`).
pub fn last_cpu(stat: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(stat).ok()?;
    parse_stat_cpu(&text)
}

fn parse_stat_cpu(text: &str) -> Option<u32> {
    // Fields after the command name (which may contain spaces) start at field 3.
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_whitespace().nth(39 - 3)?.parse().ok()
}

impl Timeline {
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut out = BufWriter::new(std::fs::File::create(path)?);
        serde_json::to_writer(&mut out, &self.header)?;
        out.write_all(b"\n")?;
        for s in &self.samples {
            out.write_all(&s.t_ns.to_le_bytes())?;
            out.write_all(&s.replay_cpu.to_le_bytes())?;
            for k in &s.khz {
                out.write_all(&k.to_le_bytes())?;
            }
        }
        out.flush()
    }

    pub fn read(path: &Path) -> std::io::Result<Timeline> {
        let mut input = BufReader::new(std::fs::File::open(path)?);
        let mut line = String::new();
        input.read_line(&mut line)?;
        let header: TimelineHeader = serde_json::from_str(&line)?;
        let n = header.policies.len();
        let mut samples = Vec::new();
        let mut rec = vec![0u8; 12 + 4 * n];
        loop {
            match input.read_exact(&mut rec) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(e),
            }
            let word = |i: usize| u32::from_le_bytes([rec[i], rec[i + 1], rec[i + 2], rec[i + 3]]);
            samples.push(FreqSample {
                t_ns: u64::from_le_bytes(rec[..8].try_into().unwrap_or_default()),
                replay_cpu: word(8) as i32,
                khz: (0..n).map(|p| word(12 + 4 * p)).collect(),
            });
        }
        Ok(Timeline { header, samples })
    }

    /// The policy index the replay thread was on at sample `s` (the only policy when there is
    /// one; `None` when its CPU is unknown on a multi-policy device).
    pub fn replay_policy(&self, s: &FreqSample) -> Option<usize> {
        if self.header.policies.len() == 1 {
            return Some(0);
        }
        u32::try_from(s.replay_cpu)
            .ok()
            .and_then(|c| self.header.cpu_policy.get(&c).copied())
    }

    /// Residency per policy estimated from the readings: each reading stands for the time
    /// until the next one.
    pub fn residency(&self, cf: &Cpufreq) -> Vec<PolicyResidency> {
        self.header
            .policies
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                let policy = cf.policies.iter().find(|p| &p.name == name)?;
                let mut changes = 0u64;
                let times = self.samples.windows(2).filter_map(|w| {
                    let (a, b) = (w[0].khz[i], w[1].khz[i]);
                    if a != b && b != 0 {
                        changes += 1;
                    }
                    (a != 0).then(|| (u64::from(a), w[1].t_ns.saturating_sub(w[0].t_ns)))
                });
                let times: Vec<(u64, u64)> = times.collect();
                Some(PolicyResidency::from_times(policy, times, Some(changes)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cpufreq::discover;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn samples_cur_freq_and_the_replay_cpu_through_a_file() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        // SAFETY: gettid has no arguments.
        let tid = unsafe { libc::gettid() };
        let mut probe = FreqProbe::new(&cf, 1_000_000, Some(tid)).unwrap();
        probe.sample(1_000);
        t.write(
            "devices/system/cpu/cpufreq/policy4/scaling_cur_freq",
            "2400000",
        );
        probe.sample(3_000);
        probe.sample(4_000);
        let tl = probe.timeline;
        assert_eq!(tl.samples[0].khz, vec![300_000, 600_000]);
        assert_eq!(tl.samples[1].khz, vec![300_000, 2_400_000]);
        assert!(
            tl.samples[0].replay_cpu >= 0,
            "this thread's CPU is readable"
        );
        assert_eq!(tl.header.cpu_policy.get(&5), Some(&1));

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("freq.timeline");
        tl.write(&file).unwrap();
        let back = Timeline::read(&file).unwrap();
        assert_eq!(back, tl);

        let res = back.residency(&cf);
        assert_eq!(res[1].total_ns, 3_000);
        assert_eq!(res[1].states[0].khz, 600_000);
        assert_eq!(res[1].states[0].time_ns, 2_000);
        assert_eq!(res[1].transitions, Some(1));
        assert_eq!(res[0].mean_khz, Some(300_000));
    }

    #[test]
    fn reads_the_processor_field() {
        let line = "123 (a (weird) name) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 6 0 0";
        assert_eq!(parse_stat_cpu(line), Some(6));
        assert_eq!(parse_stat_cpu("garbage"), None);
    }
}
