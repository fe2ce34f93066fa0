//! Terminal rendering of the flash model's results: per phase, per operation kind, the
//! validation table. Every block starts by saying the numbers are modelled.

use super::analytic::Validation;
use super::counters::{Derived, FlashCounters};
use super::ModelReport;
use crate::output::units::{bytes, ns};
use std::fmt::Write as _;

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "—".to_string(), |v| format!("{v:.3}"))
}

fn counters_line(o: &mut String, name: &str, c: &FlashCounters, d: &Derived) {
    let _ = writeln!(
        o,
        "  {name:<20}{:>10} {:>10} {:>9} {:>9} {:>9} {:>8} {:>7} {:>7} {:>11}",
        c.host_reads + c.rmw_reads,
        c.host_programs,
        c.gc_reads,
        c.gc_programs,
        c.erases,
        c.trimmed_pages,
        opt(d.write_amplification_gc),
        opt(d.write_amplification_total),
        ns(c.flash_ns),
    );
}

const HEAD: &str = "                        host rd    host pr     gc rd     gc pr    erase     trim   WA gc  WA tot  flash time";

/// The report of `flash replay`, or the flash block of a run summary.
pub fn render(r: &ModelReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "flash model ({})", r.note);
    let _ = writeln!(o, "  model {}", r.description);
    let _ = writeln!(o, "  {} trace records", r.trace_records);
    let _ = writeln!(o, "{HEAD}");
    for (name, p) in &r.phases {
        counters_line(&mut o, name, &p.counters, &p.derived);
    }
    for (name, p) in &r.phases {
        let d = &p.derived;
        let c = &p.counters;
        let _ = writeln!(
            o,
            "  {name}: database read {} / wrote {}, {} syncs; per KB written: {} reads, {} programs, {} erases ({} erased pages)",
            bytes(c.user_read_bytes),
            bytes(c.user_write_bytes),
            c.syncs,
            opt(d.reads_per_kb),
            opt(d.programs_per_kb),
            opt(d.erases_per_kb),
            opt(d.erased_pages_per_kb),
        );
    }
    if let Some(kinds) = &r.by_kind {
        let _ = writeln!(
            o,
            "  per operation (run)      ops  reads/op  programs/op  erases/op  flash µs/op"
        );
        for (k, v) in kinds {
            let _ = writeln!(
                o,
                "    {k:<20}{:>7} {:>9.3} {:>12.3} {:>10.4} {:>12.1}",
                v.ops, v.reads_per_op, v.programs_per_op, v.erases_per_op, v.flash_us_per_op
            );
        }
    }
    let e = &r.erase_counts;
    let _ = writeln!(
        o,
        "  erase counts over {} blocks: min {} p50 {} p99 {} max {}, mean {:.2} ± {:.2}",
        e.blocks, e.min, e.p50, e.p99, e.max, e.mean, e.stddev
    );
    o
}

/// The table of `flash validate`.
pub fn render_validation(rows: &[Validation]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "uniform random single-page writes, full logical space (MODELLED vs analytic)"
    );
    let _ = writeln!(
        o,
        "    OP  policy         pages/blk  blocks    writes   simulated WA  Lambert-W WA  (1+ρ)/2ρ   error"
    );
    for v in rows {
        let _ = writeln!(
            o,
            "  {:>4.0}%  {:<14} {:>9} {:>7} {:>9} {:>14.3} {:>13.3} {:>10.3} {:>+6.1}%",
            v.op * 100.0,
            v.policy,
            v.pages_per_block,
            v.blocks,
            v.measured_writes,
            v.simulated_wa,
            v.lambert_wa,
            v.agarwal_wa,
            v.relative_error * 100.0
        );
    }
    o
}
