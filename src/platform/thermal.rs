//! The device's heat and charge around a run: battery level and temperature
//! (`class/power_supply/*` of type `Battery`: `capacity` in %, `temp` in tenths of a °C) and
//! every thermal zone's temperature (`class/thermal/thermal_zone*`: `type`, `temp` in m°C),
//! read before the run (before pocketbench touches the governor) and after it (after the
//! governor is restored), and whether the CPU was thermally capped at either point: a CPU
//! cooling device (`class/thermal/cooling_device*` whose `type` names a CPU or cpufreq) at a
//! `cur_state` above 0, or a policy whose `scaling_max_freq` is below its `cpuinfo_max_freq`.
//! Both snapshots are taken outside pocketbench's own frequency limits, so a limit found is
//! the device's (thermal engine, power HAL) or another tool's, never pocketbench's.
//! A throttle that starts and ends inside the run is not seen; the frequency residency is the
//! place to look for that. Everything unreadable is simply absent.

use crate::platform::cpufreq::{self, read_trimmed};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// At most this many thermal zones and cooling devices are read (phones have 20–80 zones).
pub const MAX_ENTRIES: usize = 256;

/// One moment's readings.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Reading {
    /// Battery charge, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_pct: Option<u8>,
    /// Battery temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_c: Option<f64>,
    /// Battery status (`Charging`, `Discharging`, `Full`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_status: Option<String>,
    /// Thermal zone temperatures, °C, by `type` (`#N` added when types repeat).
    pub zones: BTreeMap<String, f64>,
    /// Why the CPU was capped at this moment (empty: not capped).
    pub caps: Vec<String>,
}

/// Before and after a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ThermalReport {
    pub before: Reading,
    pub after: Reading,
    /// The CPU was thermally capped at the start or the end of the run.
    pub capped: bool,
}

impl ThermalReport {
    pub fn new(before: Reading, after: Reading) -> ThermalReport {
        let capped = !before.caps.is_empty() || !after.caps.is_empty();
        ThermalReport {
            before,
            after,
            capped,
        }
    }

    /// Nothing was readable (no battery, no thermal zone, no limit found).
    pub fn is_empty(&self) -> bool {
        self.before == Reading::default() && self.after == Reading::default()
    }

    /// One line for the terminal summary: battery and the hottest zone, before → after.
    pub fn text(&self) -> String {
        let (b, a) = (&self.before, &self.after);
        let mut parts = Vec::new();
        if b.battery_pct.is_some() || b.battery_c.is_some() {
            let side = |r: &Reading| {
                let pct = r.battery_pct.map_or("?%".into(), |p| format!("{p}%"));
                let c = r.battery_c.map_or(String::new(), |c| format!(" {c:.1} °C"));
                format!("{pct}{c}")
            };
            let status = b.battery_status.as_deref().unwrap_or("unknown");
            parts.push(format!("battery {} → {} ({status})", side(b), side(a)));
        }
        if let Some((name, c)) = b.zones.iter().max_by(|x, y| x.1.total_cmp(y.1)) {
            let after = a.zones.get(name).map_or("?".into(), |c| format!("{c:.1}"));
            parts.push(format!(
                "hottest zone {name} {c:.1} → {after} °C ({} zones)",
                b.zones.len()
            ));
        }
        let caps: Vec<String> = b
            .caps
            .iter()
            .map(|c| format!("before: {c}"))
            .chain(a.caps.iter().map(|c| format!("after: {c}")))
            .collect();
        if caps.is_empty() {
            parts.push("CPU not capped".into());
        } else {
            parts.push(format!("CPU THERMALLY CAPPED ({})", caps.join("; ")));
        }
        parts.join("; ")
    }
}

fn number(path: &Path) -> Option<i64> {
    read_trimmed(path)?.parse().ok()
}

fn sorted_entries(dir: &Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .take(MAX_ENTRIES)
                .collect()
        })
        .unwrap_or_default();
    // thermal_zone10 after thermal_zone9.
    v.sort_by_key(|p| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        let n: u64 = name[prefix.len().min(name.len())..]
            .parse()
            .unwrap_or(u64::MAX);
        (n, name.to_string())
    });
    v
}

/// Read everything readable under `sysfs_root` now.
pub fn read(sysfs_root: &Path) -> Reading {
    let mut r = Reading::default();
    for p in sorted_entries(&sysfs_root.join("class/power_supply"), "") {
        if read_trimmed(&p.join("type")).as_deref() != Some("Battery") {
            continue;
        }
        r.battery_pct = number(&p.join("capacity")).and_then(|v| u8::try_from(v).ok());
        r.battery_c = number(&p.join("temp")).map(|t| t as f64 / 10.0);
        r.battery_status = read_trimmed(&p.join("status"));
        break;
    }
    for p in sorted_entries(&sysfs_root.join("class/thermal"), "thermal_zone") {
        let (Some(kind), Some(t)) = (read_trimmed(&p.join("type")), number(&p.join("temp"))) else {
            continue;
        };
        let mut name = kind.clone();
        let mut n = 2;
        while r.zones.contains_key(&name) {
            name = format!("{kind}#{n}");
            n += 1;
        }
        r.zones.insert(name, t as f64 / 1000.0);
    }
    for p in sorted_entries(&sysfs_root.join("class/thermal"), "cooling_device") {
        let kind = read_trimmed(&p.join("type")).unwrap_or_default();
        let lower = kind.to_ascii_lowercase();
        if !(lower.contains("cpu") || lower.contains("cluster")) {
            continue;
        }
        if let Some(cur) = number(&p.join("cur_state")).filter(|&c| c > 0) {
            let max = number(&p.join("max_state")).map_or("?".into(), |m| m.to_string());
            let dev = p.file_name().unwrap_or_default().to_string_lossy();
            r.caps
                .push(format!("{dev} ({kind}) at cooling state {cur}/{max}"));
        }
    }
    for pol in cpufreq::discover(sysfs_root).policies {
        if let (Some(lim), Some(max)) = (pol.scaling_max_khz, pol.cpuinfo_max_khz) {
            if lim < max {
                r.caps.push(format!(
                    "{} limited to {} of {}",
                    pol.name,
                    cpufreq::khz_text(lim),
                    cpufreq::khz_text(max)
                ));
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    //! Readings from a fake sysfs laid out like a phone's, with the values worked out by hand.
    use super::*;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn battery_zones_and_caps_are_read_with_their_units() {
        let t = Tree::big_little();
        t.battery("Discharging", 350_000, 3_900_000);
        t.write("class/power_supply/BAT0/capacity", "87");
        t.write("class/power_supply/BAT0/temp", "312"); // tenths of a °C
        t.write("class/power_supply/usb/type", "USB");
        t.write("class/thermal/thermal_zone0/type", "cpu-0-0");
        t.write("class/thermal/thermal_zone0/temp", "45250"); // m°C
        t.write("class/thermal/thermal_zone1/type", "skin");
        t.write("class/thermal/thermal_zone1/temp", "33000");
        t.write("class/thermal/thermal_zone2/type", "skin");
        t.write("class/thermal/thermal_zone2/temp", "-1500");
        t.write("class/thermal/thermal_zone3/type", "broken"); // no temp: skipped
        t.write("class/thermal/cooling_device0/type", "thermal-cpufreq-4");
        t.write("class/thermal/cooling_device0/cur_state", "0");
        t.write("class/thermal/cooling_device0/max_state", "12");
        t.write("class/thermal/cooling_device1/type", "battery");
        t.write("class/thermal/cooling_device1/cur_state", "3");
        let r = read(t.root());
        assert_eq!(r.battery_pct, Some(87));
        assert_eq!(r.battery_c, Some(31.2));
        assert_eq!(r.battery_status.as_deref(), Some("Discharging"));
        let zones: Vec<(&str, f64)> = r.zones.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            zones,
            [("cpu-0-0", 45.25), ("skin", 33.0), ("skin#2", -1.5)]
        );
        assert!(r.caps.is_empty(), "{:?}", r.caps);

        // The thermal engine steps the big cluster's cooling device and lowers its limit.
        t.write("class/thermal/cooling_device0/cur_state", "5");
        t.write(
            "devices/system/cpu/cpufreq/policy4/scaling_max_freq",
            "1500000",
        );
        let after = read(t.root());
        assert_eq!(
            after.caps,
            [
                "cooling_device0 (thermal-cpufreq-4) at cooling state 5/12",
                "policy4 limited to 1.50 GHz of 2.40 GHz",
            ]
        );
        let rep = ThermalReport::new(r, after);
        assert!(rep.capped);
        assert_eq!(
            rep.text(),
            "battery 87% 31.2 °C → 87% 31.2 °C (Discharging); hottest zone cpu-0-0 45.2 → \
             45.2 °C (3 zones); CPU THERMALLY CAPPED (after: cooling_device0 \
             (thermal-cpufreq-4) at cooling state 5/12; after: policy4 limited to 1.50 GHz of \
             2.40 GHz)"
        );
    }

    #[test]
    fn a_machine_without_any_of_it_reads_empty() {
        let t = Tree::empty();
        let rep = ThermalReport::new(read(t.root()), read(t.root()));
        assert!(rep.is_empty());
        assert!(!rep.capped);
    }
}
