//! Battery and thermal readings around a run, on fake sysfs trees: a phone-like tree's battery
//! level, battery and zone temperatures are recorded before and after a governed run, and a CPU
//! cooling device above state 0 flags the run as thermally capped (pocketbench's own frequency
//! setting is not taken for a cap); a machine without battery or zones records no section.

mod common;

use common::arg;
use common::sysfs::{pb, run, setup};
use pocketbench::platform::fake_sysfs::Tree;

#[test]
fn battery_and_thermal_zones_are_read_around_a_governed_run_and_a_cap_is_flagged() {
    let (t, _dir, db) = setup(Tree::big_little());
    t.battery("Discharging", 350_000, 3_900_000);
    t.write("class/power_supply/BAT0/capacity", "64");
    t.write("class/power_supply/BAT0/temp", "355");
    t.write("class/thermal/thermal_zone0/type", "cpu-1-0");
    t.write("class/thermal/thermal_zone0/temp", "71500");
    // The thermal engine holds the big cluster one step down for the whole run.
    t.write("class/thermal/cooling_device0/type", "thermal-cpufreq-4");
    t.write("class/thermal/cooling_device0/cur_state", "1");
    t.write("class/thermal/cooling_device0/max_state", "8");
    let s = run(
        &t,
        &db,
        &["--governor", "fixed:50%", "--idle-baseline", "off"],
    );
    let th = &s["thermal"];
    assert_eq!(th["before"]["battery_pct"], 64);
    assert_eq!(th["after"]["battery_c"], 35.5);
    assert_eq!(th["before"]["battery_status"], "Discharging");
    assert_eq!(th["after"]["zones"]["cpu-1-0"], 71.5);
    assert_eq!(th["capped"], true);
    // pocketbench's own frequency setting is not taken for a cap: only the cooling device is.
    let cap = serde_json::json!(["cooling_device0 (thermal-cpufreq-4) at cooling state 1/8"]);
    assert_eq!(th["before"]["caps"], cap);
    assert_eq!(th["after"]["caps"], cap);
    let text = pb(t.root(), &["results", "show", "1", "--results", arg(&db)]).expect_ok();
    assert!(
        text.stdout.contains(
            "thermal    battery 64% 35.5 °C → 64% 35.5 °C (Discharging); hottest zone cpu-1-0 \
             71.5 → 71.5 °C (1 zones); CPU THERMALLY CAPPED"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn a_machine_without_battery_or_thermal_zones_records_no_thermal_section() {
    let (t, _dir, db) = setup(Tree::empty());
    let s = run(&t, &db, &[]);
    assert!(s.get("thermal").is_none(), "{}", s["thermal"]);
}
