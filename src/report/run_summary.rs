//! The terminal summary of one run: per-kind latency table, the time split, SQLite I/O, startup,
//! harness overhead, process counters, and what the platform let us observe.

use crate::output::units::{bytes, ns};
use crate::results::store::RunRow;
use crate::results::summary::RunSummary;
use std::fmt::Write as _;

pub fn render(s: &RunSummary, store: Option<&str>) -> String {
    let mut o = String::new();
    header(&mut o, s);
    latency_table(&mut o, s);
    time_split(&mut o, s);
    io_table(&mut o, s);
    if let Some(f) = &s.flash {
        o.push('\n');
        o.push_str(&crate::flash::report::render(f));
    }
    engine_lines(&mut o, s);
    footer(&mut o, s, store);
    o
}

fn header(o: &mut String, s: &RunSummary) {
    let w = &s.workload;
    // A name from a spec file may hold control characters: never sent raw to the terminal.
    let name = crate::limits::one_line(&w.name);
    let opts: Vec<String> = s
        .engine
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let opts = if opts.is_empty() {
        "defaults".to_string()
    } else {
        opts.join(" ")
    };
    let _ = writeln!(
        o,
        "{} — {} on {} {} ({opts})",
        s.tool_version, name, s.engine.name, s.engine.version
    );
    let _ = writeln!(
        o,
        "workload   {} ({}): {} load ops, {} run ops; delay {}, pacing {}, seed {}, trace {}",
        name,
        w.source,
        s.trace.load_ops,
        s.trace.run_ops,
        s.delay,
        s.pacing,
        s.seed,
        s.trace.digest
    );
    if let Some(d) = &s.device {
        let field = |k: &str| d.get(k).and_then(|v| v.as_str()).unwrap_or("");
        let facts: Vec<&str> = ["model", "os"]
            .into_iter()
            .map(field)
            .filter(|f| !f.is_empty())
            .collect();
        let _ = writeln!(
            o,
            "device     {} ({})",
            crate::limits::one_line(field("target")),
            crate::limits::one_line(&facts.join(", "))
        );
    }
    let mode = match (&s.phases.runner, s.phases.mode.as_str()) {
        (_, "warm") => "replayed warm in the loading process".to_string(),
        (Some(r), _) => format!("replayed in a fresh process under {r} (emulated timings)"),
        (None, _) => "replayed in a fresh process".to_string(),
    };
    let _ = writeln!(
        o,
        "phases     loaded in {}; {mode}, cache {} ({})",
        ns(s.startup.load_ns),
        s.phases.cache.state,
        s.phases.cache.method
    );
    let _ = writeln!(
        o,
        "startup    engine open {}; process start → first operation {}",
        ns(s.startup.open_ns),
        ns(s.startup.process_start_to_first_op_ns)
    );
}

fn latency_table(o: &mut String, s: &RunSummary) {
    let _ = writeln!(
        o,
        "\nlatency (µs)     count  errors       mean        p50        p95        p99        max"
    );
    let row = |o: &mut String, name: &str, l: &crate::stats::LatencySummary, errors: u64| {
        let _ = writeln!(
            o,
            "  {name:<14}{:>7} {errors:>7} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            l.count, l.mean, l.p50, l.p95, l.p99, l.max
        );
    };
    for (kind, l) in s.latency_us.iter().filter(|(k, _)| k.as_str() != "all") {
        row(o, kind, l, s.errors_by_kind.get(kind).copied().unwrap_or(0));
    }
    if let Some(all) = s.latency_us.get("all") {
        row(o, "all", all, s.errors);
    }
    if let (Some(resp), Some(sched)) = (&s.response_time_us, &s.schedule) {
        if let Some(all) = resp.get("all") {
            let _ = writeln!(
                o,
                "  response time (from intended start): p50 {:.1}  p99 {:.1}  max {:.1}",
                all.p50, all.p99, all.max
            );
        }
        let verdict = if sched.kept_up {
            "kept up with the schedule"
        } else {
            "COULD NOT keep up with the schedule"
        };
        let _ = writeln!(
            o,
            "  schedule: {verdict}: {} late ops (>1 ms), lag p99 {:.1} µs, max backlog {}",
            sched.late_ops, sched.lag_us.p99, sched.max_backlog
        );
    }
    let _ = writeln!(
        o,
        "  throughput {:.1} ops/s over {}",
        s.throughput_ops_per_s,
        ns(s.wall_ns)
    );
    if let Some(e) = &s.first_error {
        if s.divergences > 0 {
            let _ = writeln!(
                o,
                "  {} statements FAILED that the app completed (divergences from the app); first: {e}",
                s.divergences
            );
        } else {
            let _ = writeln!(o, "  {} operations FAILED; first: {e}", s.errors);
        }
        // The next few one by one (the JSON lists up to a hundred).
        for f in s.failed_operations.iter().skip(1).take(9) {
            let _ = writeln!(o, "    then {f}");
        }
    }
}

fn time_split(o: &mut String, s: &RunSummary) {
    let t = &s.time;
    let inside = t.on_cpu_ns + t.off_cpu_ns;
    let harness = s.wall_ns.saturating_sub(inside + t.delay_slept_ns);
    let _ = writeln!(
        o,
        "\ntime       wall {} = on-CPU {} + off-CPU (blocked) {} + slept {} + harness {}",
        ns(s.wall_ns),
        ns(t.on_cpu_ns),
        ns(t.off_cpu_ns),
        ns(t.delay_slept_ns),
        ns(harness)
    );
    if let Some(n) = s.cpu_accounting.strip_prefix("batch:") {
        let _ = writeln!(
            o,
            "cpu        back-to-back operations: thread CPU read once per {n} operations, each operation's share by its wall time"
        );
    }
    if t.sleeps > 0 {
        let ov = &s.sleep_overshoot_us;
        let _ = writeln!(
            o,
            "sleep      {} sleeps asked {} in all; overshoot p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
            t.sleeps,
            ns(t.delay_requested_ns),
            ov.p50,
            ov.p99,
            ov.max
        );
    }
}

fn io_table(o: &mut String, s: &RunSummary) {
    let sync_call = s
        .engine
        .options
        .get("sync_call")
        .map(|c| format!("; syncs call {c}"))
        .unwrap_or_default();
    let _ = writeln!(o, "\nI/O ({}{sync_call})", s.engine.io_method);
    let _ = writeln!(o, "  file             reads   read bytes   read time   writes  write bytes  write time   syncs   sync time");
    io_rows(o, &s.io, "");
    for (name, p) in &s.io_phases {
        let Some(t) =
            p.io.get("total")
                .filter(|t| t.blocked_ns() + t.writes + t.reads > 0)
        else {
            continue;
        };
        let what = match name.as_str() {
            "open" => "opening the engine before the first operation",
            "close" => {
                "closing the engine after the last operation (a WAL checkpoint happens here)"
            }
            _ => name.as_str(),
        };
        let _ = writeln!(o, "  {what}: {}, {} of I/O", ns(p.ns), ns(t.blocked_ns()));
        io_rows(o, &p.io, &format!("{name} "));
    }
}

fn io_rows(
    o: &mut String,
    io: &std::collections::BTreeMap<String, crate::engine::io::IoStats>,
    prefix: &str,
) {
    for (kind, io) in io {
        if kind != "total" && io.reads + io.writes + io.syncs + io.truncates == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "  {:<14}{:>8} {:>12} {:>11} {:>8} {:>12} {:>11} {:>7} {:>11}",
            format!("{prefix}{kind}"),
            io.reads,
            bytes(io.read_bytes),
            ns(io.read_ns),
            io.writes,
            bytes(io.write_bytes),
            ns(io.write_ns),
            io.syncs,
            ns(io.sync_ns)
        );
    }
}

/// Read-your-writes check and the engine's own counters.
fn engine_lines(o: &mut String, s: &RunSummary) {
    let v = &s.verification;
    if v.checked + v.unchecked > 0 {
        let sample = if v.stride > 1 {
            format!(", one key in {} tracked", v.stride)
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "verified   {} reads compared with what was written: {} mismatches ({} unchecked{sample})",
            v.checked, v.mismatches, v.unchecked
        );
    }
    // Counters that moved or are nonzero, four to a line.
    let parts: Vec<String> = s
        .engine_stats
        .iter()
        .filter(|(_, c)| c.before != 0 || c.after != 0)
        .map(|(k, c)| {
            if c.after >= c.before {
                format!("{k} +{} (→ {})", c.after - c.before, c.after)
            } else {
                format!("{k} {} → {}", c.before, c.after)
            }
        })
        .collect();
    for (i, chunk) in parts.chunks(4).enumerate() {
        let label = if i == 0 { "engine" } else { "" };
        let _ = writeln!(o, "{label:<10} {}", chunk.join("; "));
    }
    for (c, r) in &s.connections {
        let _ = writeln!(
            o,
            "connection {c}: {} statements, {} errors ({} busy), latency p50 {:.1} µs p99 {:.1} µs max {:.1} µs, start lag p99 {:.1} µs",
            r.ops, r.errors, r.busy, r.latency.p50, r.latency.p99, r.latency.max, r.lag.p99
        );
        if r.order_waited + r.lock_retries > 0 {
            let _ = writeln!(
                o,
                "             app's order: {} statements waited (p99 {:.1} µs, max {:.1} µs{}), {} lock waits retried",
                r.order_waited,
                r.order_wait.p99,
                r.order_wait.max,
                if r.order_gave_up > 0 {
                    format!(", {} gave up waiting", r.order_gave_up)
                } else {
                    String::new()
                },
                r.lock_retries
            );
        }
    }
}

fn footer(o: &mut String, s: &RunSummary, store: Option<&str>) {
    if let Some(ov) = &s.overhead {
        let pair = |p50: Option<f64>, mean: f64| match p50 {
            Some(p) => format!("median {p:.0} ns, mean {mean:.0} ns"),
            None => format!("{mean:.0} ns/op"),
        };
        let between = ov
            .between_ns_p50
            .zip(ov.between_ns_mean)
            .map(|(p, m)| format!(", between operations {}", pair(Some(p), m)))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "\noverhead   null engine, same {} operations, no delays: inside the timed window {}{between}; whole loop {:.0} ns/op",
            ov.ops,
            pair(ov.latency_ns_p50, ov.latency_ns_per_op),
            ov.loop_ns_per_op
        );
    }
    let p = &s.process;
    let mut line = format!(
        "process    {} voluntary / {} involuntary context switches; max RSS {}",
        p.voluntary_ctx_switches,
        p.involuntary_ctx_switches,
        bytes(p.max_rss_kib * 1024)
    );
    if let Some(ss) = &p.schedstat {
        let _ = write!(line, "; run-queue wait {}", ns(ss.run_queue_wait_ns));
    }
    if let Some(io) = &p.proc_io {
        let _ = write!(
            line,
            "; storage read {} written {}",
            bytes(io.read_bytes),
            bytes(io.write_bytes)
        );
    }
    let _ = writeln!(o, "{line}");
    super::platform::render(o, s);
    if let Some(path) = store {
        let _ = writeln!(o, "stored     run #{} in {path}", s.id);
    }
}

/// `results list` table.
pub fn render_list(rows: &[RunRow]) -> String {
    if rows.is_empty() {
        return "no runs yet (a measuring command such as `pocketbench run` stores its result here)\n"
            .into();
    }
    let mut o = String::from("   id  created (UTC)         kind        workload                 engine       ops  errors    p50 µs    p99 µs  device\n");
    for r in rows {
        let _ = writeln!(
            o,
            "{:>5}  {:<20}  {:<10}  {:<24} {:<8} {:>7} {:>7} {:>9} {:>9}  {}",
            r.id,
            r.created_at,
            r.kind,
            crate::limits::one_line(&r.workload),
            crate::limits::one_line(&r.engine),
            r.ops,
            r.errors,
            r.p50_us.map_or("-".into(), |v| format!("{v:.1}")),
            r.p99_us.map_or("-".into(), |v| format!("{v:.1}")),
            crate::limits::one_line(&match (&r.device, &r.device_model) {
                (Some(tag), Some(model)) => format!("{tag} ({model})"),
                (Some(tag), None) => tag.clone(),
                (None, _) => "this machine".into(),
            })
        );
    }
    o
}
