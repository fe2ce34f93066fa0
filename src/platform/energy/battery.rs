//! Energy from the battery's fuel gauge: `class/power_supply/*` of type `Battery`, sampled at a
//! fixed period and integrated (trapezoids) as power = |current_now| × voltage_now (µA × µV),
//! or `power_now` (µW) where the gauge reports power directly. Only meaningful while the device
//! runs on the battery: with a charger attached the gauge measures the charge current, so the
//! source is refused unless `status` is `Discharging`, and the measurement is voided if the
//! status changes during the run. Sign conventions differ (many phones report discharge as a
//! positive current, many laptops and some phones as negative), so the magnitude is used and
//! the status decides the direction.

use super::Meter;
use std::path::{Path, PathBuf};

/// A usable battery, or why none is.
pub fn find(sysfs_root: &Path) -> Result<PathBuf, String> {
    let dir = sysfs_root.join("class/power_supply");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("no battery ({}: {e})", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut why = format!("no battery in {}", dir.display());
    for p in entries {
        if super::read_text(&p.join("type")).as_deref() != Some("Battery") {
            continue;
        }
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let has_power = p.join("power_now").is_file();
        let has_iv = p.join("current_now").is_file() && p.join("voltage_now").is_file();
        if !(has_power || has_iv) {
            why = format!("battery {name} reports neither power_now nor current_now + voltage_now");
            continue;
        }
        match super::read_text(&p.join("status")).as_deref() {
            Some("Discharging") => return Ok(p),
            Some(s) => {
                why = format!(
                    "battery {name} is {s}: its gauge measures energy only while discharging \
                     (unplug the charger; on a phone use adb over Wi-Fi)"
                );
            }
            None => why = format!("battery {name} has no status"),
        }
    }
    Err(why)
}

pub struct Battery {
    dir: PathBuf,
    last: Option<(u64, u64)>,
    total_uw_ns: u128,
    error: Option<String>,
    period_ns: u64,
}

impl Battery {
    pub fn open(sysfs_root: &Path, period_ns: u64) -> Result<Battery, String> {
        Ok(Battery {
            dir: find(sysfs_root)?,
            last: None,
            total_uw_ns: 0,
            error: None,
            period_ns,
        })
    }

    /// Instantaneous discharge power in µW, or why it cannot be read.
    fn power_uw(&self) -> Result<u64, String> {
        let status = super::read_text(&self.dir.join("status")).unwrap_or_default();
        if status != "Discharging" {
            return Err(format!(
                "battery {} changed to {status} during the measurement",
                self.dir.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
        let num = |f: &str| {
            super::read_text(&self.dir.join(f))
                .and_then(|v| v.parse::<i64>().ok())
                .ok_or_else(|| format!("{} unreadable", self.dir.join(f).display()))
        };
        if self.dir.join("power_now").is_file() {
            return Ok(num("power_now")?.unsigned_abs());
        }
        let (ua, uv) = (num("current_now")?, num("voltage_now")?);
        Ok((u128::from(ua.unsigned_abs()) * u128::from(uv.unsigned_abs()) / 1_000_000) as u64)
    }
}

impl Meter for Battery {
    fn describe(&self) -> String {
        format!(
            "battery {} (fuel gauge, sampled)",
            self.dir.file_name().unwrap_or_default().to_string_lossy()
        )
    }

    fn period_ns(&self) -> u64 {
        self.period_ns
    }

    fn sample(&mut self, now_ns: u64) {
        if self.error.is_some() {
            return;
        }
        match self.power_uw() {
            Ok(p) => {
                if let Some((t, q)) = self.last {
                    let dt = now_ns.saturating_sub(t);
                    self.total_uw_ns += u128::from(p + q) * u128::from(dt) / 2;
                }
                self.last = Some((now_ns, p));
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn total_uj(&self) -> Result<u64, String> {
        match &self.error {
            Some(e) => Err(e.clone()),
            // µW × ns = 1e-15 J = 1e-9 µJ.
            None => Ok((self.total_uw_ns / 1_000_000_000) as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn integrates_current_times_voltage_whatever_the_sign() {
        let t = Tree::empty();
        // 500 mA at 4.0 V = 2 W, reported as a negative current (laptop convention).
        t.battery("Discharging", -500_000, 4_000_000);
        let mut b = Battery::open(t.root(), 100_000_000).unwrap();
        b.sample(0);
        b.sample(1_000_000_000);
        // Then 1 A at 4 V = 4 W, positive (phone convention): trapezoid 2 W → 4 W over 1 s.
        t.battery("Discharging", 1_000_000, 4_000_000);
        b.sample(2_000_000_000);
        assert_eq!(b.total_uj(), Ok(2_000_000 + 3_000_000));
    }

    #[test]
    fn refuses_a_charging_battery_and_voids_a_run_that_starts_charging() {
        let t = Tree::empty();
        t.battery("Charging", 500_000, 4_000_000);
        let err = Battery::open(t.root(), 1).err().unwrap();
        assert!(err.contains("is Charging"), "{err}");
        t.battery("Discharging", 500_000, 4_000_000);
        let mut b = Battery::open(t.root(), 1).unwrap();
        b.sample(0);
        t.battery("Charging", 500_000, 4_000_000);
        b.sample(10);
        assert!(b.total_uj().unwrap_err().contains("changed to Charging"));
    }

    #[test]
    fn uses_power_now_when_present() {
        let t = Tree::empty();
        t.battery("Discharging", 0, 0);
        t.write("class/power_supply/BAT0/power_now", "3000000");
        let mut b = Battery::open(t.root(), 1).unwrap();
        b.sample(0);
        b.sample(500_000_000);
        assert_eq!(b.total_uj(), Ok(1_500_000));
    }
}
