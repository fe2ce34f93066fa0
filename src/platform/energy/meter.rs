//! An external power meter's CSV (a Monsoon export, a USB power meter, a bench supply log),
//! aligned to a run's wall-clock markers and integrated over the run and its idle baseline.
//!
//! Columns are found by header name, case-insensitively, with units from the name:
//! a time column (`Time (s)`, `time_ms`, `timestamp`…; s, ms, us, ns), and either a power
//! column (`Power (mW)`, W, mW, uW) or a current column (`Current (mA)`; A, mA, uA) with a
//! voltage column (`Voltage (V)`; V, mV) or a fixed `--voltage`. Timestamps that look like Unix
//! time (≥ 10⁹ s) are absolute; otherwise they are relative to the start of the recording,
//! which `--meter-start` (Unix seconds) or `--align start` (recording began with the run)
//! places on the run's clock. `--offset` corrects skew between the meter's and device's clocks.

use super::Window;

/// Power readings on the Unix clock.
#[derive(Clone, Debug, PartialEq)]
pub struct PowerTrace {
    /// (Unix ns, watts), sorted by time.
    pub points: Vec<(i128, f64)>,
    /// What was read, for the result (`Main Avg Power (mW)`, …).
    pub columns: String,
}

/// How to place the CSV's time on the run's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Alignment {
    /// Unix ns of the recording's time 0 (relative timestamps).
    pub meter_start_unix_ns: Option<i128>,
    /// Added to every timestamp after placing it.
    pub offset_ns: i64,
    /// Volts, when the CSV has current but no voltage column.
    pub fixed_voltage: Option<f64>,
}

#[derive(Clone, Copy)]
struct Column {
    index: usize,
    scale: f64,
}

/// Parse `text` (from `file`, named in errors) into a power trace. For relative timestamps,
/// `align.meter_start_unix_ns` must be set.
pub fn parse(text: &str, file: &str, align: &Alignment) -> Result<PowerTrace, String> {
    // The delimiter is the one the header line uses most (meters write `,`, `;` or tabs).
    let header_line = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .ok_or_else(|| format!("{file}: empty file"))?;
    let sep = [b',', b';', b'\t']
        .into_iter()
        .max_by_key(|c| header_line.bytes().filter(|b| b == c).count())
        .unwrap_or(b',');
    // RFC 4180 quoting (a quoted header such as "Power (mW), avg" stays one column).
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(sep)
        .comment(Some(b'#'))
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header_record = reader
        .headers()
        .map_err(|e| format!("{file}: header: {e}"))?
        .clone();
    let header = header_record.iter().collect::<Vec<_>>().join(", ");
    let names: Vec<String> = header_record.iter().map(str::to_lowercase).collect();
    let header_name = |i: usize| header_record.get(i).unwrap_or_default().to_string();
    let find = |keys: &[&str], units: &[(&str, f64)], default: f64| -> Option<Column> {
        let index = names
            .iter()
            .position(|n| keys.iter().any(|k| n.contains(k)))?;
        let n = &names[index];
        let scale = units
            .iter()
            .find(|(u, _)| unit_of(n).as_deref() == Some(*u))
            .map_or(default, |(_, s)| *s);
        Some(Column { index, scale })
    };
    let time = find(
        &["time", "timestamp"],
        &[
            ("s", 1e9),
            ("sec", 1e9),
            ("ms", 1e6),
            ("us", 1e3),
            ("µs", 1e3),
            ("ns", 1.0),
        ],
        1e9,
    )
    .ok_or_else(|| {
        format!(
            "{file}: no time column in header {}",
            crate::limits::escape(&header)
        )
    })?;
    let power = find(&["power"], &[("w", 1.0), ("mw", 1e-3), ("uw", 1e-6)], 1.0);
    let current = find(&["current"], &[("a", 1.0), ("ma", 1e-3), ("ua", 1e-6)], 1.0);
    let voltage = find(&["volt"], &[("v", 1.0), ("mv", 1e-3)], 1.0);
    let columns = match (power, current, voltage, align.fixed_voltage) {
        (Some(p), ..) => header_name(p.index),
        (None, Some(c), Some(v), _) => format!("{} × {}", header_name(c.index), header_name(v.index)),
        (None, Some(c), None, Some(v)) => format!("{} × {v} V", header_name(c.index)),
        _ => {
            return Err(format!(
                "{file}: needs a power column, or current and voltage columns (or --voltage); header is {}",
                crate::limits::escape(&header)
            ))
        }
    };
    let mut raw = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("{file}: {e}"))?;
        // The line number the file's reader would show (1-based).
        let no = record.position().map_or(0, |p| p.line() as usize - 1);
        let cell = |c: Column, what: &str| -> Result<f64, String> {
            record
                .get(c.index)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite())
                .map(|v| v * c.scale)
                .ok_or_else(|| format!("{file}: line {}: no numeric {what}", no + 1))
        };
        let watts = match (power, current, voltage) {
            (Some(p), ..) => cell(p, "power")?,
            (None, Some(c), Some(v)) => cell(c, "current")? * cell(v, "voltage")?,
            (None, Some(c), None) => cell(c, "current")? * align.fixed_voltage.unwrap_or(0.0),
            _ => unreachable!("checked above"),
        };
        if watts < 0.0 || !watts.is_finite() {
            return Err(format!(
                "{file}: line {}: power {watts} W is negative or not finite",
                no + 1
            ));
        }
        let t = cell(time, "time")?;
        if let Some(&(prev, _)) = raw.last() {
            if t <= prev {
                return Err(format!(
                    "{file}: line {}: time {} s is not after the previous reading's {} s (readings must be in time order)",
                    no + 1,
                    t / 1e9,
                    prev / 1e9
                ));
            }
        }
        if t.abs() >= 1e30 {
            return Err(format!("{file}: line {}: time is out of range", no + 1));
        }
        raw.push((t, watts));
    }
    if raw.len() < 2 {
        return Err(format!("{file}: needs at least two readings"));
    }
    let absolute = raw[0].0 >= 1e18; // ≥ 10⁹ s, in ns
    let base = if absolute {
        0
    } else {
        align.meter_start_unix_ns.ok_or_else(|| {
            format!(
                "{file}: timestamps are relative ({:.3} s … {:.3} s); give --meter-start UNIX_SECONDS \
                 or --align start to place them on the run's clock",
                raw[0].0 / 1e9,
                raw[raw.len() - 1].0 / 1e9
            )
        })?
    };
    let mut points: Vec<(i128, f64)> = raw
        .into_iter()
        .map(|(t, w)| (base + t.round() as i128 + i128::from(align.offset_ns), w))
        .collect();
    points.sort_by_key(|p| p.0);
    Ok(PowerTrace { points, columns })
}

/// `name (mw)` → `mw`; `time_ms` → `ms`.
fn unit_of(name: &str) -> Option<String> {
    if let (Some(a), Some(b)) = (name.rfind('('), name.rfind(')')) {
        if a < b {
            return Some(name[a + 1..b].trim().to_string());
        }
    }
    name.rsplit(['_', ' ', '['])
        .next()
        .map(|u| u.trim_end_matches(']').to_string())
}

impl PowerTrace {
    /// Energy (µJ) between two Unix-ns instants: trapezoids between readings, interpolated at
    /// the edges. The readings must cover the whole window.
    pub fn energy_uj(&self, w: &Window) -> Result<u64, String> {
        let (a, b) = (i128::from(w.start_unix_ns), i128::from(w.end_unix_ns));
        let (first, last) = (self.points[0].0, self.points[self.points.len() - 1].0);
        if a < first || b > last {
            return Err(format!(
                "the readings cover {} … {} but the window is {} … {} (Unix s); \
                 check --meter-start / --offset",
                secs(first),
                secs(last),
                secs(a),
                secs(b)
            ));
        }
        let at = |t: i128| -> f64 {
            let i = self.points.partition_point(|p| p.0 <= t);
            let (t1, w1) = self.points[i.saturating_sub(1)];
            match self.points.get(i) {
                Some(&(t2, w2)) if t2 > t1 => w1 + (w2 - w1) * (t - t1) as f64 / (t2 - t1) as f64,
                _ => w1,
            }
        };
        let mut knots = vec![(a, at(a))];
        knots.extend(self.points.iter().copied().filter(|p| p.0 > a && p.0 < b));
        knots.push((b, at(b)));
        let joules: f64 = knots
            .windows(2)
            .map(|k| (k[0].1 + k[1].1) / 2.0 * (k[1].0 - k[0].0) as f64 / 1e9)
            .sum();
        Ok((joules * 1e6).round() as u64)
    }
}

fn secs(ns: i128) -> String {
    format!("{:.3}", ns as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_700_000_000_000_000_000;

    fn window(from_s: f64, to_s: f64) -> Window {
        Window {
            start_unix_ns: T0 + (from_s * 1e9) as u64,
            end_unix_ns: T0 + (to_s * 1e9) as u64,
            ..Default::default()
        }
    }

    #[test]
    fn monsoon_export_relative_time_aligned_to_the_run() {
        let csv = "Time (s),Main Avg Current (mA),Main Voltage (V)\n0,500,4\n1,500,4\n2,1000,4\n3,1000,4\n";
        let align = Alignment {
            meter_start_unix_ns: Some(i128::from(T0)),
            ..Default::default()
        };
        let tr = parse(csv, "m.csv", &align).unwrap();
        assert_eq!(tr.columns, "Main Avg Current (mA) × Main Voltage (V)");
        // 2 W for 0..1 s, ramp 2→4 W over 1..2 s, 4 W for 2..3 s.
        assert_eq!(
            tr.energy_uj(&window(0.0, 3.0)),
            Ok(2_000_000 + 3_000_000 + 4_000_000)
        );
        // Edges are interpolated: 0.5..1.5 s = 1 J + (2 W→3 W)/2 × 0.5 s = 1 + 1.25 J.
        assert_eq!(tr.energy_uj(&window(0.5, 1.5)), Ok(2_250_000));
        let err = tr.energy_uj(&window(2.0, 4.0)).unwrap_err();
        assert!(err.contains("the readings cover"), "{err}");
    }

    #[test]
    fn absolute_timestamps_power_column_and_offset() {
        let t = |s: f64| (T0 as f64 / 1e6 + s * 1e3) as u64; // ms since epoch
        let csv = format!(
            "timestamp_ms;power (mW)\n{};1000\n{};1000\n",
            t(0.0),
            t(10.0)
        );
        let align = Alignment {
            offset_ns: 1_000_000_000,
            ..Default::default()
        };
        let tr = parse(&csv, "p.csv", &align).unwrap();
        // Shifted by +1 s: covers 1..11 s.
        assert_eq!(tr.energy_uj(&window(1.0, 11.0)), Ok(10_000_000));
        assert!(tr.energy_uj(&window(0.0, 2.0)).is_err());
    }

    #[test]
    fn bad_files_name_the_problem() {
        let a = Alignment::default();
        assert!(parse("", "x.csv", &a)
            .unwrap_err()
            .contains("x.csv: empty file"));
        assert!(parse("a,b\n1,2\n3,4", "x.csv", &a)
            .unwrap_err()
            .contains("no time column"));
        assert!(parse("time,current\n0,1\n1,1", "x.csv", &a)
            .unwrap_err()
            .contains("--voltage"));
        let rel = parse("time,power\n0,1\n1,1", "x.csv", &a).unwrap_err();
        assert!(
            rel.contains("relative") && rel.contains("--meter-start"),
            "{rel}"
        );
        let bad = parse("time,power\n0,1\n1,oops", "x.csv", &a).unwrap_err();
        assert!(bad.contains("line 3: no numeric power"), "{bad}");
        let fixed = Alignment {
            fixed_voltage: Some(5.0),
            meter_start_unix_ns: Some(0),
            ..Default::default()
        };
        assert_eq!(
            parse("time,current (A)\n0,1\n1,1", "x.csv", &fixed)
                .unwrap()
                .points[0]
                .1,
            5.0
        );
    }

    #[test]
    fn quoted_cells_keep_their_commas() {
        // A quoted header holding the delimiter is one column; quoted numbers are read too.
        let csv = "\"Time (s)\",\"Power (mW), avg\",note\n0,\"500\",\"a, b\"\n1,1500,c\n";
        let align = Alignment {
            meter_start_unix_ns: Some(0),
            ..Default::default()
        };
        let tr = parse(csv, "q.csv", &align).unwrap();
        assert_eq!(tr.columns, "Power (mW), avg");
        assert_eq!(tr.points, vec![(0, 0.5), (1_000_000_000, 1.5)]);
        // Errors name the line of the file, comments and the header counted.
        let bad = "# exported\ntime,power\n0,1\n1,oops\n";
        let e = parse(bad, "x.csv", &align).unwrap_err();
        assert!(e.starts_with("x.csv: line 4: no numeric power"), "{e}");
    }
}
