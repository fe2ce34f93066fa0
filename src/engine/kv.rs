//! What every key-value engine shares: the record encoding (a record's fields in one byte
//! string), the mapping of YCSB operations onto get / put / scan, and the [`Engine`]
//! implementation around a store. An engine file only implements [`KvStore`] — how to get, put
//! and scan bytes in its library — plus its options.
//!
//! Operations map onto a store the way YCSB's key-value bindings do: a read is one get; an
//! insert or a whole-record update is one put; a one-field update and a read-modify-write get
//! the record, replace the field and put it back; a scan seeks to the key and reads `len`
//! records in key order. Every put outside the load phase is its own transaction (or write
//! batch), committed as the engine's sync options say, like SQLite in autocommit mode.

use super::io::IoCounters;
use super::{Engine, EngineInfo, LastRead, Outcome, Request};
use crate::error::Result;
use crate::workload::model::DataModel;
use crate::workload::op::Op;
use std::collections::BTreeMap;

/// Append field values to `out` (cleared first) as `u32` little-endian length + bytes each.
pub fn encode_record(values: &[Vec<u8>], out: &mut Vec<u8>) {
    out.clear();
    for v in values {
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v);
    }
}

/// The fields of an encoded record, in order. Stops at the first malformed field.
pub fn fields(record: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = record;
    std::iter::from_fn(move || {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len {
            return None;
        }
        let (value, tail) = tail.split_at(len);
        rest = tail;
        Some(value)
    })
}

/// Re-encode `record` into `out` with field `field` replaced by `value`.
pub fn replace_field(
    record: &[u8],
    field: u16,
    value: &[u8],
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    out.clear();
    let mut seen = 0u16;
    for (i, v) in fields(record).enumerate() {
        let v = if i == usize::from(field) { value } else { v };
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v);
        seen += 1;
    }
    if field >= seen {
        return Err(format!(
            "field{field} does not exist (record has {seen} fields)"
        ));
    }
    Ok(())
}

/// A key-value store as the engines' libraries offer it. Errors are the library's message.
pub trait KvStore {
    /// Copy the value of `key` into `out` (cleared first); `false` if there is none.
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> std::result::Result<bool, String>;
    /// Write `value` under `key`: its own transaction, unless a bulk load is open.
    fn put(&mut self, key: &[u8], value: &[u8]) -> std::result::Result<(), String>;
    /// Visit up to `len` records in key order from the first key `>= start`; returns how many.
    fn scan(
        &mut self,
        start: &[u8],
        len: u32,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> std::result::Result<u64, String>;
    /// Start and finish the load phase (one transaction or unsynced batch where supported).
    fn begin_bulk(&mut self) -> Result<()>;
    fn end_bulk(&mut self) -> Result<()>;
    /// Cumulative I/O of this store on the calling thread.
    fn io(&self) -> IoCounters;
    /// Engine-internal counters (compactions, stalls, …), read before and after a run.
    fn stats(&self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
}

/// Everything an engine says about itself besides its store.
pub struct KvInfo {
    pub name: &'static str,
    pub version: String,
    pub options: BTreeMap<String, String>,
    pub io_method: String,
}

/// An [`Engine`] over any [`KvStore`].
pub struct KvEngine<S: KvStore> {
    store: S,
    info: KvInfo,
    /// The record the last point read returned (kept for the read-your-writes check).
    last: Vec<u8>,
    last_found: Option<bool>,
    /// Scratch space for re-encoded records.
    record: Vec<u8>,
}

/// The engine `descriptor` stands for, over its open `store`: name, version and effective
/// options come from the descriptor; `io_method` says how the store's I/O is measured.
pub fn engine<S: KvStore + 'static>(
    descriptor: &super::EngineDescriptor,
    store: S,
    options: &super::options::EngineOptions,
    io_method: &str,
) -> Box<dyn Engine> {
    let info = KvInfo {
        name: descriptor.name,
        version: (descriptor.version)(),
        options: effective_options(descriptor.options, options),
        io_method: io_method.into(),
    };
    Box::new(KvEngine::new(store, info))
}

impl<S: KvStore> KvEngine<S> {
    pub fn new(store: S, info: KvInfo) -> Self {
        KvEngine {
            store,
            info,
            last: Vec::with_capacity(2048),
            last_found: None,
            record: Vec::with_capacity(2048),
        }
    }

    #[inline]
    fn read(&mut self, key: &[u8]) -> std::result::Result<bool, String> {
        let found = self.store.get(key, &mut self.last)?;
        self.last_found = Some(found);
        Ok(found)
    }

    #[inline]
    fn update(&mut self, req: &Request<'_>, field: Option<u16>, read_done: bool) -> KvResult {
        match field {
            None => {
                encode_record(req.values, &mut self.record);
                self.store.put(req.key, &self.record)?;
                Ok(1)
            }
            Some(f) => {
                let found = if read_done {
                    self.last_found == Some(true)
                } else {
                    self.store.get(req.key, &mut self.last)?
                };
                if !found {
                    return Ok(0);
                }
                let value = req
                    .values
                    .get(usize::from(f))
                    .ok_or_else(|| format!("field{f} does not exist"))?;
                replace_field(&self.last, f, value, &mut self.record)?;
                self.store.put(req.key, &self.record)?;
                Ok(1)
            }
        }
    }
}

type KvResult = std::result::Result<u64, String>;

impl<S: KvStore> Engine for KvEngine<S> {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: self.info.name.into(),
            version: self.info.version.clone(),
            options: self.info.options.clone(),
            io_method: self.info.io_method.clone(),
        }
    }

    fn create_schema(&mut self, _model: &DataModel) -> Result<()> {
        Ok(())
    }

    fn as_kv(&mut self) -> Option<&mut dyn KvStore> {
        Some(&mut self.store)
    }

    fn begin_load(&mut self) -> Result<()> {
        self.store.begin_bulk()
    }

    fn end_load(&mut self) -> Result<()> {
        self.store.end_bulk()
    }

    #[inline]
    fn execute(&mut self, req: &Request<'_>) -> std::result::Result<Outcome, String> {
        self.last_found = None;
        let rows = match req.op {
            Op::Read { .. } => u64::from(self.read(req.key)?),
            Op::Scan { len, .. } => {
                let mut touched = 0usize;
                let n = self.store.scan(req.key, *len, &mut |k, v| {
                    touched = touched.wrapping_add(k.len() + v.len());
                })?;
                std::hint::black_box(touched);
                n
            }
            Op::Insert { .. } => {
                encode_record(req.values, &mut self.record);
                self.store.put(req.key, &self.record)?;
                1
            }
            Op::Update { field, .. } => self.update(req, *field, false)?,
            Op::ReadModifyWrite { field, .. } => {
                self.read(req.key)?;
                self.update(req, *field, true)?
            }
            Op::Sql { .. } | Op::SqlArgs { .. } => {
                return Err(format!("{} is a key-value engine: no SQL", self.info.name))
            }
        };
        Ok(Outcome { rows })
    }

    fn io(&self) -> IoCounters {
        self.store.io()
    }

    fn last_read(&self) -> LastRead<'_> {
        match self.last_found {
            None => LastRead::Unsupported,
            Some(false) => LastRead::NotFound,
            Some(true) => LastRead::Record(&self.last),
        }
    }

    fn stats(&self) -> BTreeMap<String, u64> {
        self.store.stats()
    }
}

/// A value option in bytes from `-o`, or `default`.
pub fn option_u64(options: &super::options::EngineOptions, name: &str, default: u64) -> u64 {
    options
        .get(name)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(default)
}

/// `true` for an option set to `on` (or defaulting to on when unset and `default` is true).
pub fn option_on(options: &super::options::EngineOptions, name: &str, default: bool) -> bool {
    options.get(name).map_or(default, |v| v == "on")
}

/// The effective options of an engine: every declared option, set or default, for the result's
/// environment (so a result always says what ran, not only what was typed).
pub fn effective_options(
    specs: &[super::options::OptionSpec],
    options: &super::options::EngineOptions,
) -> BTreeMap<String, String> {
    specs
        .iter()
        .map(|s| {
            let v = options.get(s.name).unwrap_or(s.default);
            (s.name.to_string(), v.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_fields_replace() {
        let values = vec![b"abc".to_vec(), Vec::new(), b"xyz!".to_vec()];
        let mut rec = Vec::new();
        encode_record(&values, &mut rec);
        let got: Vec<&[u8]> = fields(&rec).collect();
        assert_eq!(got, vec![&b"abc"[..], b"", b"xyz!"]);
        let mut out = Vec::new();
        replace_field(&rec, 1, b"new", &mut out).unwrap();
        let got: Vec<&[u8]> = fields(&out).collect();
        assert_eq!(got, vec![&b"abc"[..], b"new", b"xyz!"]);
        assert!(replace_field(&rec, 3, b"x", &mut out).is_err());
        // A truncated record yields only its whole fields.
        assert_eq!(fields(&rec[..rec.len() - 1]).count(), 2);
    }
}
