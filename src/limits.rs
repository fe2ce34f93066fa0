//! Upper bounds on every size pocketbench takes from a user or a file, and the checks that
//! enforce them. Each bound is far above anything a phone-sized benchmark needs and far below
//! what would exhaust memory or a disk by accident; values above one are refused as bad input
//! naming the flag, property or trace field. `docs/limits.md` lists them with their reasons.

use crate::error::{Error, Result};
use std::path::Path;

/// Records in an initial data set (`--records`, `recordcount`, `records`).
pub const MAX_RECORDS: u64 = 100_000_000;
/// Operations in a run phase (`--ops`, `operationcount`, `operations`).
pub const MAX_OPS: u64 = 1_000_000_000;
/// Fields per record (`--field-count`, `fieldcount`).
pub const MAX_FIELD_COUNT: u16 = 1_000;
/// Bytes per field (`--field-length`, `fieldlength`).
pub const MAX_FIELD_LENGTH: u32 = 1 << 20;
/// Bytes of one record's values (fields × field length).
pub const MAX_RECORD_BYTES: u64 = 16 << 20;
/// Records one scan may return (`maxscanlength`, a trace's scan length).
pub const MAX_SCAN_LENGTH: u32 = 1_000_000;
/// Bytes of one SQL statement (a workload file's or a trace's).
pub const MAX_SQL_BYTES: u64 = 1 << 20;
/// Arguments bound to one statement (SQLite's default largest parameter number).
pub const MAX_SQL_ARGS: u64 = 32_766;
/// Connections of an imported trace (each replays on its own thread and connection).
pub const MAX_CONNECTIONS: u64 = 256;
/// Bytes of one line of an imported log.
pub const MAX_LOG_LINE_BYTES: u64 = 4 << 20;
/// Databases one imported log may name.
pub const MAX_LOG_DBS: u64 = 1_000;
/// Schema objects (tables, indexes, views, triggers) of one imported trace.
pub const MAX_SCHEMA_OBJECTS: u64 = 100_000;
/// Tables `trace import --infer-schema` infers (further ones are left out).
pub const MAX_INFERRED_TABLES: u64 = 1_000;
/// Distinct literals of the schema's statements `--anonymize` keeps as they are (beyond:
/// mapped like any other value).
pub const MAX_SCHEMA_LITERALS: u64 = 65_536;
/// Columns per inferred table (further ones are left out).
pub const MAX_INFERRED_COLUMNS: u64 = 500;
/// Distinct values kept per inferred column, and so rows synthesised per inferred table.
pub const MAX_INFERRED_VALUES: u64 = 256;
/// Bytes of the values `--infer-schema` keeps in all (further values are only typed).
pub const MAX_INFERRED_VALUE_BYTES: u64 = 64 << 20;
/// Bytes of a workload file read whole (SQL file, TOML spec, .properties, PocketData JSON).
pub const MAX_WORKLOAD_FILE_BYTES: u64 = 256 << 20;
/// Values of one grid axis given as a range or list (`flashbench --sizes`, `--counts`),
/// counted before a range is expanded.
pub const MAX_GRID_VALUES: u64 = 100_000;
/// Bytes of a saved flash I/O trace (read whole).
pub const MAX_FLASH_TRACE_BYTES: u64 = 256 << 20;
/// Bytes of one file of the storage suite (`--read-size`, `--write-size`).
pub const MAX_STORAGE_FILE_BYTES: u64 = 64 << 30;
/// Bytes of one call of the storage suite (`--buffer`).
pub const MAX_STORAGE_BUFFER_BYTES: u64 = 64 << 20;
/// Bytes of a study plan file (read whole).
pub const MAX_PLAN_FILE_BYTES: u64 = 1 << 20;
/// Cells of one study plan (the product of its axes' value counts, plus its includes).
pub const MAX_PLAN_CELLS: u64 = 10_000;
/// Bytes of an energy meter CSV (read whole).
pub const MAX_METER_CSV_BYTES: u64 = 256 << 20;

/// Read a whole text file of at most `max` bytes; `what` names it in errors (a flag and the
/// path). Too large, unreadable or not UTF-8 is bad input.
pub fn read_text(path: &Path, what: &str, max: u64) -> Result<String> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).map_err(|e| Error::input(format!("{what}: cannot read: {e}")))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > max {
        return Err(Error::input(format!(
            "{what}: the file is {size} bytes, above the limit of {max} (see docs/limits.md)"
        )));
    }
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::input(format!("{what}: cannot read: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(Error::input(format!(
            "{what}: the file is above the limit of {max} bytes (see docs/limits.md)"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::input(format!(
            "{what}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A SQL statement a workload supplies: no NUL byte (SQLite would stop reading there) and
/// within [`MAX_SQL_BYTES`]. `at` names the file and field.
pub fn check_sql(sql: &str, at: &str) -> Result<()> {
    if let Some(i) = sql.find('\0') {
        return Err(Error::input(format!(
            "{at}: SQL text contains a NUL byte at offset {i}"
        )));
    }
    if sql.len() as u64 > MAX_SQL_BYTES {
        return Err(Error::input(format!(
            "{at}: SQL statement of {} bytes is above the limit of {MAX_SQL_BYTES} (see docs/limits.md)",
            sql.len()
        )));
    }
    Ok(())
}

/// `value` of `what` (a flag, property or field name) must be at most `max`.
pub fn at_most<T: PartialOrd + std::fmt::Display>(what: &str, value: T, max: T) -> Result<T> {
    if value > max {
        Err(Error::input(format!(
            "{what}: {value} is above the limit of {max} (see docs/limits.md)"
        )))
    } else {
        Ok(value)
    }
}

/// Refuse (bad input) when the file system holding `dir` has less than `need` bytes free;
/// `what` says what the bytes are for. Where free space cannot be read, nothing is refused.
pub fn check_free_space(dir: &Path, need: u64, what: &str) -> Result<()> {
    let Some(free) = free_bytes(dir) else {
        return Ok(());
    };
    if need > free {
        return Err(Error::input(format!(
            "{what} needs about {} but {} has only {} free",
            human(need),
            dir.display(),
            human(free)
        )));
    }
    Ok(())
}

/// `bytes` (of `what`, a flag or option) as a `usize`: refused where this build cannot address
/// that much (a 32-bit build, armv7: at most 4 GiB − 1), instead of being cut short by a cast.
pub fn to_usize(bytes: u64, what: &str) -> Result<usize> {
    usize::try_from(bytes).map_err(|_| {
        Error::input(format!(
            "{what}: {bytes} bytes is more than this {}-bit build can address (at most {}); use a 64-bit device or a smaller value",
            usize::BITS,
            usize::MAX
        ))
    })
}

/// The directory a file at `path` is (or would be) in.
pub fn dir_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Free bytes (for an unprivileged user) on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c is NUL-terminated; s is a valid out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    Some((s.f_bavail as u64).saturating_mul(s.f_frsize as u64))
}

/// "; did you mean 'X'?" when one of `known` is close to the mistyped `given` (as clap
/// suggests subcommands and flags), else nothing.
pub fn did_you_mean<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    known
        .into_iter()
        // Jaro-Winkler misses a swap of two letters in a short word (`rnu`): one edit of
        // optimal string alignment counts as close too.
        .map(|k| {
            let swapped = given.len() >= 3 && strsim::osa_distance(given, k) == 1;
            let score = strsim::jaro_winkler(given, k);
            (if swapped { score.max(0.9) } else { score }, k)
        })
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(String::new(), |(_, k)| format!("; did you mean '{k}'?"))
}

/// A byte count for a message: MiB or GiB with one decimal.
pub fn human(bytes: u64) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / MIB / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / MIB)
    }
}

/// A user value made safe for a one-line error message: quoted, with control characters,
/// quotes and backslashes escaped (as Rust's `{:?}` does), and cut to 200 characters.
pub fn escape(value: &str) -> String {
    const MAX: usize = 200;
    if value.chars().count() > MAX {
        let cut: String = value.chars().take(MAX).collect();
        format!("{:?}…", cut)
    } else {
        format!("{value:?}")
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
pub fn cut_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Make a whole message one line: control characters (newlines included) are escaped.
pub fn one_line(msg: &str) -> String {
    if !msg.chars().any(char::is_control) {
        return msg.to_string();
    }
    msg.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_at_the_limit_pass_and_above_it_fail() {
        assert_eq!(at_most("--ops", MAX_OPS, MAX_OPS).unwrap(), MAX_OPS);
        let e = at_most("--ops", MAX_OPS + 1, MAX_OPS).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--ops: 1000000001 is above the limit of 1000000000 (see docs/limits.md)"
        );
    }

    #[test]
    fn a_file_system_too_small_is_refused_with_both_sizes() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_free_space(dir.path(), 1, "one byte").is_ok());
        let e = check_free_space(dir.path(), u64::MAX / 2, "the trace x.pbt")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the trace x.pbt needs about 8589934592.0 GiB but "),
            "{e}"
        );
        assert!(e.contains(" free"), "{e}");
    }

    #[test]
    fn messages_stay_on_one_line() {
        assert_eq!(escape("a\nb\u{1b}[31m"), r#""a\nb\u{1b}[31m""#);
        assert_eq!(one_line("bad 'x\ny'"), r"bad 'x\ny'");
        assert_eq!(one_line("plain"), "plain");
        assert!(escape(&"z".repeat(500)).ends_with("\"…"));
    }
}
