//! Encoding of single trace records: LEB128 varints for counts, keys and delays, fixed 8-byte
//! little-endian value seeds (random, so varints would not shrink them), length-prefixed SQL,
//! and (version 2) typed bound arguments and a run record's connection, offset and duration.

use crate::workload::op::{Op, Recorded, SqlValue};

const TAG_READ: u8 = 0;
const TAG_SCAN: u8 = 1;
const TAG_UPDATE: u8 = 2;
const TAG_INSERT: u8 = 3;
const TAG_RMW: u8 = 4;
const TAG_SQL: u8 = 5;
/// SQL with typed bound arguments (version 2 only).
pub const TAG_SQL_ARGS: u8 = 6;

const VAL_NULL: u8 = 0;
const VAL_INTEGER: u8 = 1;
const VAL_REAL: u8 = 2;
const VAL_TEXT: u8 = 3;
const VAL_BLOB: u8 = 4;

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Encode `op` onto `out`.
pub fn put_op(out: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Read { key } => {
            out.push(TAG_READ);
            put_varint(out, *key);
        }
        Op::Scan { key, len } => {
            out.push(TAG_SCAN);
            put_varint(out, *key);
            put_varint(out, u64::from(*len));
        }
        Op::Update { key, field, seed } | Op::ReadModifyWrite { key, field, seed } => {
            out.push(if matches!(op, Op::Update { .. }) {
                TAG_UPDATE
            } else {
                TAG_RMW
            });
            put_varint(out, *key);
            put_varint(out, field.map_or(0, |f| u64::from(f) + 1));
            out.extend_from_slice(&seed.to_le_bytes());
        }
        Op::Insert { key, seed } => {
            out.push(TAG_INSERT);
            put_varint(out, *key);
            out.extend_from_slice(&seed.to_le_bytes());
        }
        Op::Sql { sql } => {
            out.push(TAG_SQL);
            put_bytes(out, sql.as_bytes());
        }
        Op::SqlArgs { sql, args } => {
            out.push(TAG_SQL_ARGS);
            put_bytes(out, sql.as_bytes());
            put_varint(out, args.len() as u64);
            args.iter().for_each(|a| put_value(out, a));
        }
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn put_value(out: &mut Vec<u8>, v: &SqlValue) {
    match v {
        SqlValue::Null => out.push(VAL_NULL),
        SqlValue::Integer(i) => {
            out.push(VAL_INTEGER);
            // Zigzag, so small negative numbers stay short.
            put_varint(out, ((i << 1) ^ (i >> 63)) as u64);
        }
        SqlValue::Real(r) => {
            out.push(VAL_REAL);
            out.extend_from_slice(&r.to_bits().to_le_bytes());
        }
        SqlValue::Text(t) => {
            out.push(VAL_TEXT);
            put_bytes(out, t.as_bytes());
        }
        SqlValue::Blob(b) => {
            out.push(VAL_BLOB);
            put_bytes(out, b);
        }
    }
}

/// Encode a version 2 run record's place in the recording (after its delay).
pub fn put_recorded(out: &mut Vec<u8>, r: &Recorded) {
    put_varint(out, u64::from(r.conn));
    put_varint(out, r.offset_ns);
    put_varint(out, r.dur_ns.map_or(0, |d| d.saturating_add(1)));
}

/// A cursor over one block's payload. Every read reports malformed data as `Err(reason)`.
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn varint(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.pos).ok_or("record cut short")?;
            self.pos += 1;
            v |= u64::from(b & 0x7F) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err("varint longer than 10 bytes")
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        let end = self.pos.checked_add(n).ok_or("length overflow")?;
        let s = self.buf.get(self.pos..end).ok_or("record cut short")?;
        self.pos = end;
        Ok(s)
    }

    fn u64_le(&mut self) -> Result<u64, &'static str> {
        let b = self.bytes(8)?;
        Ok(u64::from_le_bytes(
            b.try_into().map_err(|_| "record cut short")?,
        ))
    }

    fn u32_varint(&mut self) -> Result<u32, &'static str> {
        u32::try_from(self.varint()?).map_err(|_| "value out of range")
    }

    fn field(&mut self) -> Result<Option<u16>, &'static str> {
        match self.varint()? {
            0 => Ok(None),
            f => u16::try_from(f - 1)
                .map(Some)
                .map_err(|_| "field index out of range"),
        }
    }

    pub fn op(&mut self) -> Result<Op, &'static str> {
        let tag = *self.bytes(1)?.first().ok_or("record cut short")?;
        Ok(match tag {
            TAG_READ => Op::Read {
                key: self.varint()?,
            },
            TAG_SCAN => Op::Scan {
                key: self.varint()?,
                len: self.u32_varint()?,
            },
            TAG_UPDATE => Op::Update {
                key: self.varint()?,
                field: self.field()?,
                seed: self.u64_le()?,
            },
            TAG_RMW => Op::ReadModifyWrite {
                key: self.varint()?,
                field: self.field()?,
                seed: self.u64_le()?,
            },
            TAG_INSERT => Op::Insert {
                key: self.varint()?,
                seed: self.u64_le()?,
            },
            TAG_SQL => Op::Sql {
                sql: self.text("SQL is not UTF-8")?,
            },
            TAG_SQL_ARGS => {
                let sql = self.text("SQL is not UTF-8")?;
                let n = self.varint()?;
                if n > crate::limits::MAX_SQL_ARGS {
                    return Err("more arguments than the limit");
                }
                let args = (0..n).map(|_| self.value()).collect::<Result<_, _>>()?;
                Op::SqlArgs { sql, args }
            }
            _ => return Err("unknown operation tag"),
        })
    }

    fn len_prefixed(&mut self) -> Result<&'a [u8], &'static str> {
        let n = usize::try_from(self.varint()?).map_err(|_| "length overflow")?;
        self.bytes(n)
    }

    fn text(&mut self, not_utf8: &'static str) -> Result<String, &'static str> {
        let b = self.len_prefixed()?;
        Ok(std::str::from_utf8(b).map_err(|_| not_utf8)?.to_owned())
    }

    fn value(&mut self) -> Result<SqlValue, &'static str> {
        let tag = *self.bytes(1)?.first().ok_or("record cut short")?;
        Ok(match tag {
            VAL_NULL => SqlValue::Null,
            VAL_INTEGER => {
                let z = self.varint()?;
                SqlValue::Integer(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            VAL_REAL => SqlValue::Real(f64::from_bits(self.u64_le()?)),
            VAL_TEXT => SqlValue::Text(self.text("argument text is not UTF-8")?),
            VAL_BLOB => SqlValue::Blob(self.len_prefixed()?.to_vec()),
            _ => return Err("unknown argument type"),
        })
    }

    /// A version 2 run record's place in the recording.
    pub fn recorded(&mut self) -> Result<Recorded, &'static str> {
        Ok(Recorded {
            conn: self.u32_varint()?,
            offset_ns: self.varint()?,
            dur_ns: self.varint()?.checked_sub(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_round_trips() {
        let ops = [
            Op::Read { key: 0 },
            Op::Read { key: u64::MAX },
            Op::Scan { key: 300, len: 100 },
            Op::Update {
                key: 5,
                field: Some(3),
                seed: 77,
            },
            Op::Update {
                key: 5,
                field: None,
                seed: u64::MAX,
            },
            Op::ReadModifyWrite {
                key: 9,
                field: Some(0),
                seed: 1,
            },
            Op::Insert {
                key: 1 << 40,
                seed: 12345,
            },
            Op::Sql {
                sql: "SELECT * FROM t WHERE k = 'é'".into(),
            },
            Op::SqlArgs {
                sql: "INSERT INTO t VALUES(?,?,?,?,?,?)".into(),
                args: vec![
                    SqlValue::Null,
                    SqlValue::Integer(i64::MIN),
                    SqlValue::Integer(-1),
                    SqlValue::Real(-0.5),
                    SqlValue::Text("é".into()),
                    SqlValue::Blob(vec![0, 1, 255]),
                ],
            },
        ];
        let mut buf = Vec::new();
        for op in &ops {
            put_op(&mut buf, op);
        }
        let mut c = Cursor::new(&buf);
        for op in &ops {
            assert_eq!(&c.op().unwrap(), op);
        }
        assert!(c.is_empty());
        let r = Recorded {
            conn: 3,
            offset_ns: 1 << 40,
            dur_ns: Some(0),
        };
        let mut buf = Vec::new();
        put_recorded(&mut buf, &r);
        put_recorded(&mut buf, &Recorded::default());
        let mut c = Cursor::new(&buf);
        assert_eq!(c.recorded(), Ok(r));
        assert_eq!(c.recorded(), Ok(Recorded::default()));
    }

    #[test]
    fn cut_records_are_errors_not_panics() {
        let mut buf = Vec::new();
        put_op(&mut buf, &Op::Insert { key: 1, seed: 2 });
        for n in 0..buf.len() {
            assert!(Cursor::new(&buf[..n]).op().is_err());
        }
        assert!(Cursor::new(&[99]).op().is_err());
    }
}
