//! Hand-worked crash states on tiny recordings: what each persistence model keeps of an
//! unsynced rename, an unlink without a directory sync, a torn write, a rename over an
//! existing file (ext4's auto_da_alloc), that the recorder's log reads back as the calls
//! it holds, and that a state written over the previous one's directory (what the checks
//! do) is the state written from nothing.

use super::model::{Choice, Fate, Model};
use super::state::{Builder, Image};
use super::{Op, Recording};

fn rec(files: &[(&str, &[u8])]) -> Recording {
    Recording::new(
        files
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_vec()))
            .collect(),
        vec![],
    )
}

/// Every state at the crash before op `point` (0-based; `ops.len()`: after them all).
fn states(r: &Recording, m: Model, point: usize) -> Vec<Image> {
    let mut b = Builder::new(r.clone(), m);
    let space = b.space(point);
    (0..space.states(64))
        .map(|v| {
            let choice = space.choice(r, v, 64, 1);
            b.state(&space, &choice).0
        })
        .collect()
}

fn file<'a>(i: &'a Image, p: &str) -> Option<&'a [u8]> {
    i.file(p)
}

/// Write a new CURRENT through a synced temporary file renamed over the old one, then sync
/// another new file, with no directory sync anywhere.
fn replace_current() -> Recording {
    let mut r = rec(&[("CURRENT", b"old")]);
    let tmp = r.create("CURRENT.tmp");
    r.write(tmp, 0, b"new");
    r.sync(tmp);
    r.rename("CURRENT.tmp", "CURRENT");
    let log = r.create("000001.log");
    r.write(log, 0, b"x");
    r.sync(log);
    r.ack(1);
    r
}

#[test]
fn an_unsynced_rename_is_lost_under_strict_and_kept_where_a_later_fsync_commits_it() {
    let r = replace_current();
    let end = r.ops.len();
    // strict: no directory was synced, so neither the rename nor the new files' entries
    // survive; the synced data of the temporary file is unreachable.
    let s = states(&r, Model::Strict, end);
    assert_eq!(s.len(), 1);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b"old"[..]));
    assert_eq!(s[0].names.len(), 1);
    // ext4-ordered: the fsync of the log commits the journal, rename included: one state.
    let s = states(&r, Model::Ext4Ordered, end);
    assert_eq!(s.len(), 1);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b"new"[..]));
    assert_eq!(file(&s[0], "000001.log"), Some(&b"x"[..]));
    // f2fs-strict: the log's fsync finds its directory with un-checkpointed operations and
    // checkpoints: the same single state.
    let s = states(&r, Model::F2fsStrict, end);
    assert_eq!(s.len(), 1);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b"new"[..]));
    // f2fs-posix: each fsync keeps its own file's new entry (roll-forward), not the rename:
    // the rename may or may not have reached a checkpoint.
    let s = states(&r, Model::F2fsPosix, end);
    assert_eq!(s.len(), 2);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b"old"[..]));
    assert_eq!(file(&s[0], "CURRENT.tmp"), Some(&b"new"[..]));
    assert_eq!(file(&s[0], "000001.log"), Some(&b"x"[..]));
    assert_eq!(file(&s[1], "CURRENT"), Some(&b"new"[..]));
    assert_eq!(file(&s[1], "CURRENT.tmp"), None);
    // ext4 before the log's fsync (crash at the log's creation): the rename is not yet
    // committed and may or may not be in the journal.
    let s = states(&r, Model::Ext4Ordered, 4);
    assert_eq!(s.len(), 2);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b"old"[..]));
    assert_eq!(file(&s[1], "CURRENT"), Some(&b"new"[..]));
}

#[test]
fn an_unlink_without_a_directory_sync_comes_back() {
    let mut r = rec(&[("db", b"D"), ("db-journal", b"J")]);
    r.unlink("db-journal");
    r.ack(1);
    let after_unlink = r.ops.len();
    for m in [Model::Strict, Model::Ext4Ordered, Model::F2fsPosix] {
        let s = states(&r, m, after_unlink);
        assert_eq!(file(&s[0], "db-journal"), Some(&b"J"[..]), "{m:?}");
    }
    // With the directory synced after it, the unlink is durable under every model.
    r.dir_sync("");
    for m in [
        Model::Strict,
        Model::Ext4Ordered,
        Model::F2fsPosix,
        Model::F2fsStrict,
    ] {
        let s = states(&r, m, r.ops.len());
        assert_eq!(s.len(), 1, "{m:?}");
        assert_eq!(file(&s[0], "db-journal"), None, "{m:?}");
    }
}

#[test]
fn a_torn_write_keeps_some_sectors_and_not_others() {
    let mut r = rec(&[("db", &[0u8; 1024])]);
    r.write(0, 0, &[0xAA; 1024]);
    let end = r.ops.len();
    let mut b = Builder::new(r.clone(), Model::Ext4Ordered);
    let space = b.space(end);
    assert_eq!(space.data, vec![0]);
    let torn = Choice {
        ordered_kept: 0,
        data: vec![Fate::Torn(vec![false, true])],
    };
    let (image, fates) = b.state(&space, &torn);
    let db = image.file("db").unwrap();
    assert_eq!(&db[..512], &[0u8; 512][..]);
    assert_eq!(&db[512..], &[0xAAu8; 512][..]);
    assert_eq!(fates, vec![Fate::Torn(vec![false, true])]);
    // A write across a sector boundary tears at the boundary: 100..600 touches two sectors.
    let mut r = rec(&[("db", &[0u8; 1024])]);
    r.write(0, 100, &[0xBB; 500]);
    let mut b = Builder::new(r.clone(), Model::F2fsPosix);
    let space = b.space(1);
    let (image, _) = b.state(
        &space,
        &Choice {
            ordered_kept: 0,
            data: vec![Fate::Torn(vec![true, false])],
        },
    );
    let db = image.file("db").unwrap();
    assert_eq!(&db[100..512], &[0xBBu8; 412][..]);
    assert_eq!(&db[512..600], &[0u8; 88][..]);
    // Under strict the unsynced write is simply lost.
    let s = states(&r, Model::Strict, 1);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].file("db"), Some(&[0u8; 1024][..]));
}

#[test]
fn a_rename_over_an_existing_file_carries_its_data_on_ext4_only() {
    let mut r = rec(&[("CURRENT", b"old"), ("log", b"")]);
    let tmp = r.create("CURRENT.tmp");
    r.write(tmp, 0, b"new");
    r.rename("CURRENT.tmp", "CURRENT");
    r.sync(1);
    let end = r.ops.len();
    // ext4: the journal commit keeps the rename and auto_da_alloc its data: one state.
    let s = states(&r, Model::Ext4Ordered, end);
    assert_eq!(s.len(), 1);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b"new"[..]));
    // f2fs-strict: the checkpoint keeps the rename, not the unsynced data: CURRENT may be
    // empty (the zero-length-file outcome), or hold the data.
    let s = states(&r, Model::F2fsStrict, end);
    assert_eq!(s.len(), 2);
    assert_eq!(file(&s[0], "CURRENT"), Some(&b""[..]));
    assert_eq!(file(&s[1], "CURRENT"), Some(&b"new"[..]));
}

#[test]
fn the_recorders_log_reads_back_as_the_calls() {
    let mut log = b"PBFSREC1".to_vec();
    let path = |v: &mut Vec<u8>, p: &str| {
        v.extend((p.len() as u16).to_le_bytes());
        v.extend(p.as_bytes());
    };
    log.push(1); // open of an existing file, kernel inode 77
    log.extend(77u64.to_le_bytes());
    path(&mut log, "db");
    log.push(3); // write 2 bytes at 10
    log.extend(77u64.to_le_bytes());
    log.extend(10u64.to_le_bytes());
    log.extend(2u32.to_le_bytes());
    log.extend(b"hi");
    log.push(5); // fsync
    log.extend(77u64.to_le_bytes());
    log.push(7); // rename
    path(&mut log, "db");
    path(&mut log, "db2");
    log.push(12);
    log.extend(1u64.to_le_bytes());
    let r = rec(&[("db", b"")]).parse(&log, "rec.log").unwrap();
    assert_eq!(r.ops.len(), 4);
    assert!(
        matches!(&r.ops[0], Op::Write { inode: 0, off: 10, data } if r.data[data.clone()] == *b"hi")
    );
    assert!(matches!(&r.ops[1], Op::Sync { inode: 0, .. }));
    assert!(matches!(
        &r.ops[2],
        Op::Rename {
            inode: Some(0),
            replaced: false,
            ..
        }
    ));
    assert_eq!(r.ops[3], Op::Ack(1));
    assert_eq!(r.acknowledged(3), 0);
    assert_eq!(r.acknowledged(4), 1);
    let mut cut = log.clone();
    cut.truncate(log.len() - 3);
    let e = rec(&[("db", b"")]).parse(&cut, "rec.log").unwrap_err();
    assert!(
        e.to_string().contains("rec.log: recording damaged at byte"),
        "{e}"
    );
}

/// A directory's entries by relative name: a file's bytes, `None` for a subdirectory.
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Option<Vec<u8>>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![String::new()];
    while let Some(rel) = stack.pop() {
        for e in std::fs::read_dir(dir.join(&rel)).unwrap() {
            let e = e.unwrap();
            let name = format!("{rel}{}", e.file_name().to_str().unwrap());
            let t = e.file_type().unwrap();
            assert!(
                t.is_dir() || t.is_file(),
                "{name} is neither a file nor a directory"
            );
            if t.is_dir() {
                stack.push(format!("{name}/"));
                out.insert(name, None);
            } else {
                out.insert(name, Some(std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out
}

/// What an engine's recovery might leave in the state's directory: a file of its own, a
/// directory, a hard link and a symbolic link to the database, the database grown.
fn litter(dir: &std::path::Path) {
    use std::io::Write;
    std::fs::write(dir.join("LOCK"), b"lock").unwrap();
    std::fs::create_dir_all(dir.join("tmp.d")).unwrap();
    std::fs::write(dir.join("tmp.d/f"), b"f").unwrap();
    if dir.join("db").exists() {
        let _ = std::fs::hard_link(dir.join("db"), dir.join("db.link"));
        let _ = std::os::unix::fs::symlink(dir.join("db"), dir.join("db.sym"));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("db"))
            .unwrap();
        f.write_all(b"recovered").unwrap();
    }
}

#[test]
fn a_state_written_over_the_previous_one_is_the_state_written_from_nothing() {
    let mut r = Recording::new(
        vec![
            ("db".into(), b"0123456789".to_vec()),
            ("old".into(), b"gone".to_vec()),
            ("sub/x".into(), b"x0".to_vec()),
        ],
        vec!["sub".into()],
    );
    // Never synced: every later call is after the prefix, and the 40 synced one-byte writes
    // to sub/x are more than a file takes one call at a time.
    r.write(1, 0, b"unsynced");
    for n in 0..40u8 {
        r.write(2, 2 + u64::from(n), &[n]);
    }
    r.sync(2);
    r.write(0, 4, b"ABCDEFGHIJKL");
    r.sync(0);
    r.truncate(0, 8);
    r.write(0, 20, b"Z");
    r.sync(0);
    let new = r.create("new");
    r.write(new, 0, b"fresh");
    r.sync(new);
    r.dir_sync("");
    r.ack(1);
    r.unlink("old");
    r.link("db", "db2");
    r.rename("sub/x", "sub/y");
    r.write(2, 0, &[0xCC; 700]);
    r.write(0, 0, &[0xDD; 1500]);
    r.ack(2);
    let scratch = tempfile::tempdir().unwrap();
    let (reused, fresh) = (scratch.path().join("state"), scratch.path().join("fresh"));
    let mut compared = 0;
    for m in [
        Model::Strict,
        Model::Ext4Ordered,
        Model::F2fsPosix,
        Model::F2fsStrict,
    ] {
        let mut b = Builder::new(r.clone(), m);
        for point in 0..=r.ops.len() {
            let space = b.space(point);
            for v in 0..space.states(8) {
                let choice = space.choice(&b.rec, v, 8, 1);
                let (image, want) = b.state(&space, &choice);
                image.write_out(&fresh).unwrap();
                let fates = b.write_state(&space, &choice, &reused).unwrap();
                assert_eq!(fates, want);
                assert_eq!(tree(&reused), tree(&fresh), "{m:?} at {point}, state {v}");
                litter(&reused);
                compared += 1;
            }
        }
    }
    assert!(compared > 4 * (r.ops.len() + 1), "{compared}");
    // Worked by hand, strict after every call: sub/x's synced bytes, the synced truncate and
    // the write past its end (a hole of zeros), the new file with its directory synced; the unlink, link and rename
    // without a directory sync lost, and so are the unsynced writes.
    let mut b = Builder::new(r.clone(), Model::Strict);
    let space = b.space(r.ops.len());
    let choice = space.choice(&b.rec, 0, 8, 1);
    litter(&reused);
    b.write_state(&space, &choice, &reused).unwrap();
    let mut db = b"0123ABCD".to_vec();
    db.extend([0; 12]);
    db.push(b'Z');
    let want: std::collections::BTreeMap<String, Option<Vec<u8>>> = [
        ("db", Some(db)),
        ("new", Some(b"fresh".to_vec())),
        ("old", Some(b"gone".to_vec())),
        ("sub", None),
        (
            "sub/x",
            Some([&b"x0"[..], &(0..40).collect::<Vec<u8>>()].concat()),
        ),
    ]
    .into_iter()
    .map(|(n, c)| (n.to_string(), c))
    .collect();
    assert_eq!(tree(&reused), want);
}
