//! Joining the frequency timeline to operations: each operation gets the frequency of the
//! policy its thread was on at the latest reading at or before its start. Operations arrive in
//! start order, so one forward pass over the timeline suffices. The join also accumulates
//! latency per start frequency and stores the timeline in the results store
//! (`frequency_samples`, times relative to the run start like `op_samples`).

use super::residency::PerOpFrequency;
use super::sampler::Timeline;
use crate::stats::LatencyHistogram;
use std::collections::BTreeMap;

pub struct OpFrequency {
    timeline: Timeline,
    cursor: usize,
    latency: BTreeMap<u64, LatencyHistogram>,
    with: u64,
    without: u64,
}

impl OpFrequency {
    pub fn new(timeline: Timeline) -> Self {
        OpFrequency {
            timeline,
            cursor: 0,
            latency: BTreeMap::new(),
            with: 0,
            without: 0,
        }
    }

    /// The frequency (kHz) in effect for an operation starting at `start_ns`, and record its
    /// latency under it.
    pub fn at(&mut self, start_ns: u64, latency_ns: u64) -> Option<u32> {
        let s = &self.timeline.samples;
        while self.cursor + 1 < s.len() && s[self.cursor + 1].t_ns <= start_ns {
            self.cursor += 1;
        }
        let khz = s
            .get(self.cursor)
            .filter(|x| x.t_ns <= start_ns)
            .and_then(|x| Some(x.khz[self.timeline.replay_policy(x)?]))
            .filter(|&k| k != 0);
        match khz {
            Some(k) => {
                self.with += 1;
                self.latency
                    .entry(u64::from(k))
                    .or_default()
                    .record(latency_ns);
            }
            None => self.without += 1,
        }
        khz
    }

    pub fn finish(&self) -> PerOpFrequency {
        PerOpFrequency {
            ops_with_frequency: self.with,
            ops_without: self.without,
            latency_us_by_start_khz: self
                .latency
                .iter()
                .map(|(k, h)| (*k, h.summary()))
                .collect(),
        }
    }

    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }
}

/// A join over the timeline file at `path`, if there is one and it reads.
pub fn open(path: Option<&std::path::Path>) -> Option<OpFrequency> {
    Timeline::read(path?).ok().map(OpFrequency::new)
}

/// Create the `frequency_samples` table if the store has none yet.
pub fn ensure_table(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS frequency_samples (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            t_ns INTEGER NOT NULL,
            policy TEXT NOT NULL,
            khz INTEGER NOT NULL,
            replay_cpu INTEGER
        );
        CREATE INDEX IF NOT EXISTS frequency_samples_run ON frequency_samples(run_id, t_ns);",
    )?;
    Ok(())
}

/// Store the timeline of run `run_id` (times relative to `t0_ns`) in the results store, inside
/// the run's transaction.
pub fn store(
    conn: &rusqlite::Connection,
    run_id: i64,
    t0_ns: u64,
    tl: &Timeline,
) -> rusqlite::Result<()> {
    ensure_table(conn)?;
    let mut stmt = conn.prepare_cached("INSERT INTO frequency_samples VALUES (?1,?2,?3,?4,?5)")?;
    for s in &tl.samples {
        let t = s.t_ns as i64 - t0_ns as i64;
        let cpu = (s.replay_cpu >= 0).then_some(s.replay_cpu);
        for (name, khz) in tl.header.policies.iter().zip(&s.khz) {
            if *khz != 0 {
                stmt.execute(rusqlite::params![run_id, t, name, khz, cpu])?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cpufreq::sampler::{FreqSample, TimelineHeader};

    fn timeline() -> Timeline {
        let header = TimelineHeader {
            policies: vec!["policy0".into(), "policy4".into()],
            cpu_policy: [(0, 0), (1, 0), (4, 1), (5, 1)].into_iter().collect(),
            period_ns: 10,
        };
        let s = |t, cpu, a, b| FreqSample {
            t_ns: t,
            replay_cpu: cpu,
            khz: vec![a, b],
        };
        Timeline {
            header,
            samples: vec![
                s(100, 0, 300_000, 600_000),
                s(110, 4, 300_000, 2_400_000),
                s(120, -1, 900_000, 2_400_000),
            ],
        }
    }

    #[test]
    fn ops_get_the_frequency_of_their_cpu_at_start() {
        let mut j = OpFrequency::new(timeline());
        assert_eq!(j.at(50, 1_000), None, "before the first reading");
        assert_eq!(j.at(100, 1_000), Some(300_000), "on CPU 0 → policy0");
        assert_eq!(j.at(115, 3_000), Some(2_400_000), "on CPU 4 → policy4");
        assert_eq!(j.at(119, 5_000), Some(2_400_000));
        assert_eq!(j.at(500, 1_000), None, "CPU unknown on a two-policy device");
        let f = j.finish();
        assert_eq!((f.ops_with_frequency, f.ops_without), (3, 2));
        assert_eq!(f.latency_us_by_start_khz[&2_400_000].count, 2);
        let p50 = f.latency_us_by_start_khz[&2_400_000].p50;
        assert!((3.0..3.01).contains(&p50), "{p50}");
    }

    #[test]
    fn stores_the_timeline() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE runs (id INTEGER PRIMARY KEY); INSERT INTO runs VALUES (1);",
        )
        .unwrap();
        store(&conn, 1, 100, &timeline()).unwrap();
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM frequency_samples WHERE run_id = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 6);
        let (t, khz): (i64, i64) = conn
            .query_row(
                "SELECT t_ns, khz FROM frequency_samples WHERE policy = 'policy4' ORDER BY t_ns DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((t, khz), (20, 2_400_000));
    }
}
