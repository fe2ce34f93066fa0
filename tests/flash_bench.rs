//! `pocketbench flashbench` on a reduced grid: per-request times and modelled flash counters
//! per cell, BEGIN/END separated, read-only requests program nothing, results stored and
//! printable/exportable; bad input exits 2 and stores nothing.

mod common;

use common::{arg, uint, Sandbox};

#[test]
fn a_reduced_grid_runs_stores_and_exports() {
    let sb = Sandbox::new();
    let results = sb.results();
    let (cells, reqs) = (sb.path("cells.csv"), sb.path("requests.csv"));
    let r = sb
        .pb([
            "flashbench",
            "--requests",
            "insert,select,join,update",
            "--sizes",
            "150,600",
            "--counts",
            "20,40",
            "--flash",
            "capacity_mib=16",
            "--results",
            arg(&results),
            "--dir",
            arg(&sb.path("")),
            "--csv",
            arg(&cells),
            "--requests-csv",
            arg(&reqs),
            "--json",
        ])
        .expect_ok()
        .json();
    let list = r["cells"].as_array().unwrap();
    assert_eq!(list.len(), 16);
    for c in list {
        let (req, n) = (c["request"].as_str().unwrap(), uint(c, "/count"));
        assert_eq!(
            uint(c, "/request_us/count"),
            n,
            "{req}: one time per request"
        );
        assert!(c["throughput_kb_s"].as_f64().unwrap() > 0.0);
        let programs = uint(c, "/flash_total/host_programs");
        match req {
            "select" | "join" => {
                assert_eq!(programs, 0, "{req} writes nothing");
                assert!(
                    uint(c, "/flash_total/host_reads") > 0,
                    "{req} reads the database"
                );
            }
            _ => {
                assert!(programs > 0, "{req}");
                assert!(
                    uint(c, "/flash_end/host_programs") > 0,
                    "{req}: COMMIT writes"
                );
                assert!(c["flash_per_kb"]["programs_per_kb"].as_f64().unwrap() > 0.0);
            }
        }
    }
    let csv = std::fs::read_to_string(&cells).unwrap();
    assert_eq!(csv.lines().count(), 17);
    assert!(csv.starts_with("request,record_size,count,begin_us"));
    let per_request = std::fs::read_to_string(&reqs).unwrap();
    assert_eq!(per_request.lines().count(), 1 + 4 * 2 * (20 + 40));

    let shown = sb
        .pb(["flashbench", "--show", "--results", arg(&results), "--json"])
        .expect_ok()
        .json();
    assert_eq!(shown["cells"], r["cells"]);
    let table = sb
        .pb([
            "flashbench",
            "--show",
            "1",
            "--results",
            arg(&results),
            "--cell",
            "update:150:20",
        ])
        .expect_ok()
        .stdout;
    assert_eq!(table.lines().count(), 2 + 20, "{table}");
    let text = sb
        .pb(["flashbench", "--show", "--results", arg(&results)])
        .expect_ok()
        .stdout;
    assert!(text.contains("MODELLED"), "{text}");
    // No cell directory is left behind.
    let leftovers = std::fs::read_dir(sb.path(""))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("pocketbench-flashbench")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn bad_flashbench_input_exits_2_and_stores_nothing() {
    let sb = Sandbox::new();
    sb.expect_refused(&[
        ("flashbench --counts 10..5:1", "--counts 10..5:1"),
        (
            "flashbench --requests insert,merge",
            "invalid value 'merge' for '--requests",
        ),
        ("flashbench --flash gc=lru", "--flash gc=lru"),
        ("flashbench --page-size 1000", "--page-size 1000"),
        ("flashbench --synchronous maybe", "--synchronous maybe"),
        ("flashbench --dir nowhere", "--dir nowhere"),
        ("flashbench --show --cell x", "--results"),
        // Each axis within its bound, the product (10 TB in one cell) not.
        (
            "flashbench --sizes 1048576 --counts 10000000",
            "--sizes × --counts: a cell of 10000000 records of 1048576 bytes",
        ),
    ]);
}
