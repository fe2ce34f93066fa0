//! The schema of an app's databases, on any phone: every file of the app's `databases/` folder
//! (whatever its name; SQLite's `-journal`, `-wal`, `-shm` and `-mj…` files beside a database
//! are not databases) is copied to the host byte for byte (`cat` over `adb exec-out`, through
//! `run-as` for a debuggable app or as root otherwise), with its write-ahead log and rollback
//! journal, and its `sqlite_master` read there with the bundled SQLite. Retail phones have no
//! `sqlite3` binary, so nothing is asked of one. What could not be read is said, one line.

use crate::device::adb::Adb;
use crate::device::sh_quote;
use crate::device::su::{self, Root};
use crate::device::transport::Transport;
use crate::limits::one_line;
use crate::workload::import::SchemaRecord;
use std::path::Path;

/// The most bytes pulled for one database (its file, write-ahead log and journal together).
pub const MAX_PULL_BYTES: u64 = 4 << 30;
/// Databases of one app read (further ones are said and left).
pub const MAX_DATABASES: usize = 64;

/// How the app's files are reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// `run-as PKG` (a debuggable app), in the app's data directory.
    RunAs,
    /// As root, after `cd /data/data/PKG`.
    Root(Root),
}

impl Way {
    fn wrap(self, pkg: &str, cmd: &str) -> String {
        match self {
            Way::RunAs => format!("run-as {pkg} sh -c {}", sh_quote(cmd)),
            Way::Root(root) => root.wrap(&format!("cd /data/data/{pkg} && {cmd}")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Way::RunAs => "run-as",
            Way::Root(root) => root.form(),
        }
    }
}

/// What was read.
#[derive(Debug, Default)]
pub struct Found {
    pub schema: Vec<SchemaRecord>,
    /// The databases, as paths on the device.
    pub databases: Vec<String>,
    /// How the files were reached (`run-as`, `su -c`, `su 0 sh -c`, `root shell`).
    pub via: Option<String>,
    /// What could not be read, and why.
    pub problems: Vec<String>,
}

/// One file of `databases/`.
#[derive(Debug, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub size: u64,
}

/// Lists the app's data directory, then each regular file of `databases/` with its size.
const LISTING: &str =
    "pwd && for f in databases/*; do if [ -f \"$f\" ]; then stat -c '%s %n' \"$f\"; fi; done";

/// The output of [`LISTING`]: the data directory, and each file (`SIZE databases/NAME`); lines
/// that are not one are left out, and so are names with a control character or a `/`.
pub fn parse_listing(text: &str) -> Option<(String, Vec<Listed>)> {
    let mut lines = text.lines();
    let home = one_line(lines.next()?.trim());
    if !home.starts_with('/') {
        return None;
    }
    let files = lines
        .filter_map(|l| {
            let (size, path) = l.split_once(' ')?;
            let name = path.strip_prefix("databases/")?;
            let ok = !name.is_empty()
                && name.len() <= 255
                && !name.contains('/')
                && !name.chars().any(char::is_control);
            let size = size.parse().ok()?;
            ok.then(|| Listed {
                name: name.to_string(),
                size,
            })
        })
        .take(4 * MAX_DATABASES)
        .collect();
    Some((home, files))
}

/// Whether `name` is one of SQLite's files beside a database rather than a database.
pub fn sidecar(name: &str) -> bool {
    ["-journal", "-wal", "-shm"]
        .iter()
        .any(|s| name.ends_with(s))
        || name
            .rsplit_once("-mj")
            .is_some_and(|(_, hex)| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Read the schema of `pkg`'s databases, copying them into `dir`; `stop` says to leave the
/// rest (a signal came).
pub fn read(t: &dyn Transport, adb: &Adb, pkg: &str, dir: &Path, stop: &dyn Fn() -> bool) -> Found {
    let mut found = Found::default();
    let mut refused = Vec::new();
    let mut way = Way::RunAs;
    let listing = loop {
        match t.shell(&way.wrap(pkg, LISTING)) {
            Err(lost) => refused.push(lost.0),
            Ok(out) if out.rc != 0 => {
                let why = out.said();
                // run-as names itself.
                refused.push(if why.starts_with(&format!("{}:", way.name())) {
                    why
                } else {
                    format!("{}: {why}", way.name())
                });
            }
            Ok(out) => break parse_listing(&out.stdout).map(|l| (way, l)),
        }
        if way != Way::RunAs {
            break None;
        }
        match su::detect(t) {
            Ok(root) => way = Way::Root(root),
            Err(why) => {
                refused.push(why);
                break None;
            }
        }
    };
    let Some((way, (home, files))) = listing else {
        found.problems.push(if refused.is_empty() {
            "the app's data directory could not be listed".into()
        } else {
            refused.join("; ")
        });
        return found;
    };
    found.via = Some(way.name().to_string());
    let size_of = |n: &str| files.iter().find(|f| f.name == n).map(|f| f.size);
    let databases: Vec<&Listed> = files.iter().filter(|f| !sidecar(&f.name)).collect();
    for (i, db) in databases.iter().enumerate() {
        let on_device = format!("{home}/databases/{}", db.name);
        if i == MAX_DATABASES {
            found.problems.push(format!(
                "{} more databases left unread (at most {MAX_DATABASES})",
                databases.len() - i
            ));
            break;
        }
        if stop() {
            found
                .problems
                .push(format!("interrupted before {on_device} was read"));
            break;
        }
        let sides = ["-wal", "-journal"].map(|s| (s, size_of(&format!("{}{s}", db.name))));
        let bytes = db.size + sides.iter().filter_map(|(_, n)| *n).sum::<u64>();
        if bytes > MAX_PULL_BYTES {
            found.problems.push(format!(
                "{on_device}: {bytes} bytes, above the {MAX_PULL_BYTES} bytes a capture copies (docs/limits.md)"
            ));
            continue;
        }
        let local = dir.join(format!("db{i}"));
        let copy = |name: &str, to: &Path| pull(t, adb, way, pkg, name, to);
        let copied = copy(&db.name, &local).and_then(|()| {
            sides
                .iter()
                .filter(|(_, n)| n.is_some())
                .try_for_each(|(s, _)| {
                    let mut to = local.clone().into_os_string();
                    to.push(s);
                    copy(&format!("{}{s}", db.name), Path::new(&to))
                })
        });
        let objects = copied.and_then(|()| objects(&local));
        for s in ["", "-wal", "-journal", "-shm"] {
            let mut f = local.clone().into_os_string();
            f.push(s);
            let _ = std::fs::remove_file(f);
        }
        match objects {
            Ok(None) => {}
            Ok(Some(objects)) => {
                found.databases.push(on_device.clone());
                found
                    .schema
                    .extend(objects.into_iter().map(|(kind, name, sql)| SchemaRecord {
                        db: Some(on_device.clone()),
                        kind,
                        name,
                        sql,
                    }));
            }
            Err(why) => found.problems.push(format!("{on_device}: {why}")),
        }
    }
    if found.databases.is_empty() && found.problems.is_empty() {
        found
            .problems
            .push(format!("{home}/databases holds no SQLite database"));
    }
    found
}

/// Copy `databases/NAME` to `local` with `cat` over `adb exec-out`; why not, when it failed.
fn pull(
    t: &dyn Transport,
    adb: &Adb,
    way: Way,
    pkg: &str,
    name: &str,
    local: &Path,
) -> Result<(), String> {
    let cat = way.wrap(
        pkg,
        &format!("cat {}", sh_quote(&format!("databases/{name}"))),
    );
    match adb.exec_out(&format!("{cat} 2>/dev/null"), local) {
        Ok(0) => Ok(()),
        Err(e) => Err(e.to_string()),
        Ok(rc) => {
            // Its message, which exec-out would have mixed into the file.
            let said = t.shell(&format!("{cat} >/dev/null")).map(|o| o.said());
            Err(said.unwrap_or_else(|_| format!("cat: exit status {rc}")))
        }
    }
}

/// A schema object: its type, name and CREATE statement.
type Object = (String, String, String);

/// The schema objects of the copy at `local`, in the order
/// SQLite created them, without SQLite's own; `None` when the file is not a SQLite database.
fn objects(local: &Path) -> Result<Option<Vec<Object>>, String> {
    let mut head = [0u8; 16];
    let len = std::fs::File::open(local)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| e.to_string())?;
    if len > 0 && &head[..len] != b"SQLite format 3\0" {
        return Ok(None);
    }
    // Read-write on the copy: SQLite replays the write-ahead log (or rolls back a hot journal)
    // as the app would on its next open.
    let c = rusqlite::Connection::open(local).map_err(|e| e.to_string())?;
    let mut stmt = c
        .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        .map_err(|e| e.to_string())?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(|rows| {
            rows.take(crate::limits::MAX_SCHEMA_OBJECTS as usize)
                .collect::<rusqlite::Result<Vec<Object>>>()
        })
        .map_err(|e| e.to_string())?;
    Ok(Some(
        rows.into_iter()
            .filter(|(_, name, _)| !crate::workload::import::schema::internal(name))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_listed_and_sqlites_own_files_are_not_databases() {
        let text = "/data/user/0/com.example.notes\n4096 databases/notes.db\n0 databases/notes.db-journal\n8192 databases/mail\n32768 databases/mail-shm\n12392 databases/mail-wal\n512 databases/mail-mj0A1B2C3D\n10 databases/two words\nnot a size line\n";
        let (home, files) = parse_listing(text).unwrap();
        assert_eq!(home, "/data/user/0/com.example.notes");
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "notes.db",
                "notes.db-journal",
                "mail",
                "mail-shm",
                "mail-wal",
                "mail-mj0A1B2C3D",
                "two words"
            ]
        );
        assert_eq!(files[2].size, 8192);
        let dbs: Vec<&str> = names.iter().copied().filter(|n| !sidecar(n)).collect();
        assert_eq!(dbs, ["notes.db", "mail", "two words"]);
        assert!(parse_listing("run-as: not debuggable\n").is_none());
    }
}
