//! The data model a workload runs against: key-value records (YCSB's `usertable`) or a SQL
//! schema the workload creates itself. Engines read it to create their tables; the replayer
//! reads it to turn key numbers into key text.

use serde::{Deserialize, Serialize};

/// How the operations' data is shaped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DataModel {
    /// YCSB records: a text key and `field_count` fields of `field_length` bytes each.
    KeyValue(KeyValueModel),
    /// Statements carry their own schema (`CREATE TABLE` in the load phase).
    Sql,
}

/// YCSB's record layout and key naming.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValueModel {
    /// Table name (YCSB `table`, default `usertable`).
    pub table: String,
    pub field_count: u16,
    pub field_length: u32,
    /// Key prefix (YCSB uses `user`).
    pub key_prefix: String,
    /// `true` for YCSB `insertorder=hashed`: key text is the prefix plus FNV-1a-64 of the key
    /// number, so insertion order is not key order.
    pub hashed: bool,
    /// Minimum number of digits after the prefix (YCSB `zeropadding`, default 1).
    pub zero_padding: u8,
}

impl Default for KeyValueModel {
    fn default() -> Self {
        KeyValueModel {
            table: "usertable".into(),
            field_count: 10,
            field_length: 100,
            key_prefix: "user".into(),
            hashed: true,
            zero_padding: 1,
        }
    }
}

impl KeyValueModel {
    /// Write the key text of key number `keynum` into `out` (cleared first).
    pub fn key_text(&self, keynum: u64, out: &mut Vec<u8>) {
        out.clear();
        let n = if self.hashed {
            crate::workload::keys::fnv_hash64(keynum)
        } else {
            keynum
        };
        out.extend_from_slice(self.key_prefix.as_bytes());
        // The decimal digits of n, left-padded with zeros to `zero_padding` (on the replay's
        // hot path, so without the formatting machinery).
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut v = n;
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let len = digits.len() - i;
        out.extend(std::iter::repeat_n(
            b'0',
            usize::from(self.zero_padding).saturating_sub(len),
        ));
        out.extend_from_slice(&digits[i..]);
    }

    /// Field column name for field `i` (`field0`, `field1`, …).
    pub fn field_name(i: u16) -> String {
        format!("field{i}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_keys_look_like_ycsb() {
        let m = KeyValueModel::default();
        let mut buf = Vec::new();
        m.key_text(0, &mut buf);
        // FNV-1a-64 over the eight bytes of 0, made non-negative as YCSB does.
        assert!(buf.starts_with(b"user"));
        assert!(buf.len() > 10);
        let ordered = KeyValueModel {
            hashed: false,
            zero_padding: 4,
            ..KeyValueModel::default()
        };
        ordered.key_text(42, &mut buf);
        assert_eq!(buf, b"user0042");
    }
}
