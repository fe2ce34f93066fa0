//! `pocketbench models`: run the data-model study on every engine and scale asked for, print
//! the tables (or JSON), optionally a CSV, store the run; `--show` prints a stored one and
//! `--list` the engines of this build, their roles and which of them mobile apps ship;
//! `--study` the study's five findings checked on a stored run. The flags and the request are
//! [`crate::models::args`]; a run whose engines disagreed on an answer exits 1 (stored).

use crate::error::Result;
use crate::models::args::ModelsArgs;
use crate::models::{self, render, ModelsRun, SUITE};
use crate::results::{store::Store, suites};

pub fn main(a: &ModelsArgs) -> Result<i32> {
    crate::output::progress::set_quiet(a.quiet || a.json);
    if a.list {
        println!("{:<18}{:<12}{:<10}role", "engine", "kind", "in apps");
        for e in models::engines() {
            let (role, ships) = models::role(&e);
            let ships = if ships { "yes" } else { "no" };
            println!("{e:<18}{:<12}{ships:<10}{role}", models::kind(&e).name());
        }
        return Ok(0);
    }
    let shown = a.show.or(a.study);
    let run = if let Some(id) = shown {
        let mut store = Store::open_existing(&a.results)?;
        let (id, mut r): (_, ModelsRun) =
            suites::load_as(&mut store, SUITE, (id > 0).then_some(id))?;
        r.id = id;
        r
    } else {
        measure(a)?
    };
    if a.study.is_some() {
        if a.json {
            super::print_json(&models::study::check(&run))?;
        } else {
            print!("{}", models::study::render(&run));
        }
    } else if a.json {
        super::print_json(&run)?;
    } else {
        print!("{}{}", render::render(&run), models::study::render(&run));
    }
    Ok(if run.mismatches.is_empty() { 0 } else { 1 })
}

/// Check everything, run, store the run, then write the CSV (the store and the CSV's
/// directory are checked before anything runs).
fn measure(a: &ModelsArgs) -> Result<ModelsRun> {
    let req = a.request()?;
    if let Some(csv) = &a.csv {
        crate::output::target::check(csv, "--csv")?;
    }
    let mut store = Store::open(&a.results)?;
    let mut run = models::measure(&req)?;
    run.id = suites::save_serialized(&mut store, SUITE, &run.created_at, &run, |_, _| Ok(()))?;
    if let Some(csv) = &a.csv {
        render::write_csv(&run, csv)?;
    }
    Ok(run)
}
