//! The SQL text of the PocketData workloads, in the shapes of the original study's files: the
//! `YCSBDATA` table and its columns, the value ranges of its rows ([`Values`]), and one
//! function per statement kind, each drawing its values from the stream it is given.

use crate::workload::rng::Rng;
use crate::workload::values::{write_word_salad, POCKETDATA_TEXT};
use std::fmt::Write;

/// The table every PocketData workload creates, exactly as the original files do.
pub const CREATE_TABLE: &str = "CREATE TABLE YCSBDATA(key int, DAT_INT_0 int, DAT_INT_1 int, \
     DAT_INT_2 int, DAT_INT_3 int, DAT_INT_4 int, DAT_INT_5 int, DAT_FLT_0 decimal, \
     DAT_FLT_1 decimal, DAT_STR_0 varchar(60), DAT_STR_1 varchar(60))";

pub(super) const INSERT_HEAD: &str = "INSERT INTO YCSBDATA(key, DAT_INT_0, DAT_INT_1, DAT_INT_2, \
     DAT_INT_3, DAT_INT_4, DAT_INT_5, DAT_FLT_0, DAT_FLT_1, DAT_STR_0, DAT_STR_1) VALUES (";

/// The value columns in table order: six ints, two floats, two strings.
pub(super) const COLUMNS: [&str; 10] = [
    "DAT_INT_0",
    "DAT_INT_1",
    "DAT_INT_2",
    "DAT_INT_3",
    "DAT_INT_4",
    "DAT_INT_5",
    "DAT_FLT_0",
    "DAT_FLT_1",
    "DAT_STR_0",
    "DAT_STR_1",
];
const INTS: usize = 6;
const FLOATS: usize = 2;

/// The value ranges of a workload's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Values {
    /// Workloads A–F: ints 0..1 000 000, floats 0..100 with four decimals.
    Wide,
    /// IA/IB/IC: ints 0..=100, floats 0..=0.01 with four decimals, so predicates match rows.
    Narrow,
}

impl Values {
    pub(super) fn name(self) -> &'static str {
        match self {
            Values::Wide => "wide",
            Values::Narrow => "narrow",
        }
    }

    fn int(self, rng: &mut Rng) -> u64 {
        match self {
            Values::Wide => rng.below(1_000_000),
            Values::Narrow => rng.below(101),
        }
    }

    /// Largest float, in ten-thousandths.
    fn float_max(self) -> u64 {
        match self {
            Values::Wide => 999_999,
            Values::Narrow => 100,
        }
    }

    fn float(self, rng: &mut Rng) -> u64 {
        rng.below(self.float_max() + 1)
    }
}

/// `SELECT * FROM YCSBDATA WHERE key = 601`
pub(super) fn read(key: u64) -> String {
    format!("SELECT * FROM YCSBDATA WHERE key = {key}")
}

/// `SELECT * FROM YCSBDATA WHERE key > 344 ORDER BY key ASC LIMIT 55`
pub(super) fn scan(after: u64, limit: u64) -> String {
    format!("SELECT * FROM YCSBDATA WHERE key > {after} ORDER BY key ASC LIMIT {limit}")
}

/// `INSERT INTO YCSBDATA(key, …) VALUES (key, …)`
pub(super) fn insert(key: u64, values: Values, rng: &mut Rng) -> String {
    let mut sql = String::with_capacity(320);
    sql.push_str(INSERT_HEAD);
    let _ = write!(sql, "{key}, ");
    write_row(&mut sql, values, rng, false);
    sql.push(')');
    sql
}

/// `UPDATE YCSBDATA SET DAT_INT_0=…, …, DAT_STR_1='…' WHERE key = 743`
pub(super) fn update(key: u64, values: Values, rng: &mut Rng) -> String {
    let mut sql = String::with_capacity(360);
    sql.push_str("UPDATE YCSBDATA SET ");
    write_row(&mut sql, values, rng, true);
    let _ = write!(sql, " WHERE key = {key}");
    sql
}

/// `UPDATE YCSBDATA SET DAT_INT_2 = DAT_INT_2+1 WHERE key=998`, on an int or float column.
pub(super) fn increment(key: u64, rng: &mut Rng) -> String {
    let c = COLUMNS[rng.below((INTS + FLOATS) as u64) as usize];
    format!("UPDATE YCSBDATA SET {c} = {c}+1 WHERE key={key}")
}

/// `SELECT * FROM YCSBDATA WHERE (DAT_INT_0 = 20) AND (DAT_INT_2 = 59)`: one to three
/// distinct int columns.
pub(super) fn int_equality(values: Values, rng: &mut Rng) -> String {
    let mut columns: [usize; INTS] = [0, 1, 2, 3, 4, 5];
    let n = 1 + rng.below(3) as usize;
    let mut sql = String::with_capacity(110);
    sql.push_str("SELECT * FROM YCSBDATA WHERE ");
    for i in 0..n {
        // Partial Fisher–Yates: a distinct column each time.
        let j = i + rng.below((INTS - i) as u64) as usize;
        columns.swap(i, j);
        let sep = if i == 0 { "" } else { " AND " };
        let _ = write!(sql, "{sep}({} = {})", COLUMNS[columns[i]], values.int(rng));
    }
    sql
}

/// `SELECT * FROM YCSBDATA WHERE (DAT_FLT_0 > a AND DAT_FLT_0 < b)`, and the same on
/// `DAT_FLT_1` for two dimensions. Each range spans 2 to 10 % of the value range.
pub(super) fn float_range(dims: u8, values: Values, rng: &mut Rng) -> String {
    let max = values.float_max();
    let mut sql = String::with_capacity(140);
    sql.push_str("SELECT * FROM YCSBDATA WHERE ");
    for (d, column) in COLUMNS[INTS..INTS + usize::from(dims)].iter().enumerate() {
        let width = max / 50 + rng.below(max / 10 - max / 50 + 1);
        let lo = rng.below(max - width + 1);
        sql.push_str(if d == 0 { "(" } else { " AND (" });
        let _ = write!(sql, "{column} > ");
        write_decimal(&mut sql, lo);
        let _ = write!(sql, " AND {column} < ");
        write_decimal(&mut sql, lo + width);
        sql.push(')');
    }
    sql
}

/// The ten value columns, as `v, v, …` or `COL=v, COL=v, …`.
fn write_row(out: &mut String, values: Values, rng: &mut Rng, named: bool) {
    for (i, column) in COLUMNS.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if named {
            out.push_str(column);
            out.push('=');
        }
        if i < INTS {
            let _ = write!(out, "{}", values.int(rng));
        } else if i < INTS + FLOATS {
            write_decimal(out, values.float(rng));
        } else {
            out.push('\'');
            write_text(out, rng);
            out.push('\'');
        }
    }
}

/// A number given in ten-thousandths, written with up to four decimals and at least one
/// (`15.0187`, `69.291`, `0.0`), as the original files print them.
pub(super) fn write_decimal(out: &mut String, ten_thousandths: u64) {
    let _ = write!(out, "{}.", ten_thousandths / 10_000);
    let mut frac = ten_thousandths % 10_000;
    let mut digits = 4;
    while digits > 1 && frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    let _ = write!(out, "{frac:0digits$}");
}

/// Word-salad text of 30 to 49 characters, cut wherever the length runs out.
pub(super) fn write_text(out: &mut String, rng: &mut Rng) {
    let len = 30 + rng.below(20) as usize;
    write_word_salad(out, rng, len, &POCKETDATA_TEXT);
}
