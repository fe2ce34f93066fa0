//! Hand-worked crash states on tiny recordings: what each persistence model keeps of an
//! unsynced rename, an unlink without a directory sync, a torn write, a rename over an
//! existing file (ext4's auto_da_alloc), and that the recorder's log reads back as the calls
//! it holds.

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
