//! One measured operation, and its fixed-size binary form in the spool file the replay process
//! streams to its parent (so a 10-million-operation run never holds its samples in memory).

use crate::engine::io::IoStats;
use crate::workload::op::OpKind;
use std::io::{Read, Write};

/// Everything recorded about one operation. Times are CLOCK_MONOTONIC nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpSample {
    pub seq: u64,
    pub kind: u8,
    pub ok: bool,
    /// Key number (key-value workloads) or 0 (SQL).
    pub key: u64,
    /// When the operation was due: the end of the previous operation plus its delay (think
    /// pacing), or the run start plus all earlier delays (open pacing).
    pub intended_ns: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Thread CPU time spent inside the operation.
    pub cpu_ns: u64,
    /// Delay requested before this operation, and how long the sleep actually took.
    pub sleep_requested_ns: u64,
    pub sleep_actual_ns: u64,
    /// File I/O the operation caused (all file kinds).
    pub io: IoStats,
    /// CPU frequency (kHz) of the replay thread's CPU at the operation's start, joined from the
    /// frequency sampler when the run is recorded; 0 = not sampled.
    pub freq_khz: u32,
}

/// Bytes per sample in the spool.
pub const ENCODED_LEN: usize = 2 + 9 * 8 + 10 * 8;

impl OpSample {
    pub fn kind(&self) -> OpKind {
        OpKind::from_code(self.kind).unwrap_or(OpKind::Other)
    }

    /// Service time: start to end.
    pub fn latency_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// Response time: intended start to end (includes any time spent behind schedule).
    pub fn response_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.intended_ns)
    }

    /// Time off the CPU inside the operation (blocked on I/O, locks or the run queue).
    pub fn off_cpu_ns(&self) -> u64 {
        self.latency_ns().saturating_sub(self.cpu_ns)
    }

    fn words(&self) -> [u64; 19] {
        let head = [
            self.seq,
            self.key,
            self.intended_ns,
            self.start_ns,
            self.end_ns,
            self.cpu_ns,
            self.sleep_requested_ns,
            self.sleep_actual_ns,
            u64::from(self.freq_khz),
        ];
        let io = self.io.to_array();
        std::array::from_fn(|i| if i < 9 { head[i] } else { io[i - 9] })
    }

    pub fn encode(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut buf = [0u8; ENCODED_LEN];
        buf[0] = self.kind;
        buf[1] = u8::from(self.ok);
        for (i, w) in self.words().iter().enumerate() {
            buf[2 + i * 8..10 + i * 8].copy_from_slice(&w.to_le_bytes());
        }
        out.write_all(&buf)
    }

    /// Read the next sample; `Ok(None)` at a clean end of input.
    pub fn decode(input: &mut impl Read) -> std::io::Result<Option<OpSample>> {
        let mut buf = [0u8; ENCODED_LEN];
        match input.read_exact(&mut buf) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let w = |i: usize| {
            u64::from_le_bytes(buf[2 + i * 8..10 + i * 8].try_into().unwrap_or_default())
        };
        Ok(Some(OpSample {
            kind: buf[0],
            ok: buf[1] != 0,
            seq: w(0),
            key: w(1),
            intended_ns: w(2),
            start_ns: w(3),
            end_ns: w(4),
            cpu_ns: w(5),
            sleep_requested_ns: w(6),
            sleep_actual_ns: w(7),
            freq_khz: w(8) as u32,
            io: IoStats::from_array(std::array::from_fn(|i| w(9 + i))),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_round_trip() {
        let s = OpSample {
            seq: 7,
            kind: OpKind::Scan.code(),
            ok: true,
            key: 42,
            intended_ns: 100,
            start_ns: 110,
            end_ns: 500,
            cpu_ns: 300,
            sleep_requested_ns: 1_000_000,
            sleep_actual_ns: 1_050_000,
            io: IoStats {
                reads: 3,
                read_bytes: 12288,
                syncs: 1,
                ..Default::default()
            },
            freq_khz: 1_800_000,
        };
        let mut buf = Vec::new();
        s.encode(&mut buf).unwrap();
        assert_eq!(buf.len(), ENCODED_LEN);
        let mut r = &buf[..];
        assert_eq!(OpSample::decode(&mut r).unwrap(), Some(s));
        assert_eq!(OpSample::decode(&mut r).unwrap(), None);
        assert_eq!(
            (s.latency_ns(), s.response_ns(), s.off_cpu_ns()),
            (390, 400, 90)
        );
    }
}
