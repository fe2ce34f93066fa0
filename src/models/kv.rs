//! The key-value engines (LMDB, redb, and RocksDB, LevelDB, BerkeleyDB where built): the plans
//! an app developer writes over get / put / ordered scan, through the same store every
//! pocketbench key-value engine implements ([`KvStore`]), with the engine's default options.
//!
//! Keys: `p` + id (a person), `t` + id (a transaction), ids as 4 big-endian bytes so that key
//! order is id order; values are the fields in pocketbench's record encoding. With the
//! app-maintained secondary indexes (`+index`), each insert also writes `a` + age + id and `b` +
//! buyer + transaction id, with empty values, in the same load.
//!
//! Plans: test 1 is one get; test 2 scans every person and filters on the name (never
//! indexed); test 3 scans every person (or the age index's range, then one get per id); tests
//! 4 and 5 scan a whole table into a hash map; test 6 is a hash join — the people in the age
//! range (scanned, or from the age index) into a map, then every transaction probed against
//! it (or, indexed, each of those people's transactions from the buyer index, one get each).

use super::data::{DataSet, Person, Transaction};
use super::query::{Answer, Query, Value};
use super::ModelStore;
use crate::engine::kv::{encode_record, fields, KvStore};
use crate::engine::Engine;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Records one scan call visits before the plan asks for the next page.
const PAGE: u32 = 256;

pub struct Kv {
    engine: Box<dyn Engine>,
    name: String,
    indexed: bool,
}

/// Open key-value engine `engine` (its defaults) in `dir`; `indexed` keeps the secondary
/// indexes.
pub fn create(engine: &str, indexed: bool, dir: &Path) -> Result<Box<dyn ModelStore>> {
    let mut e = crate::engine::open(engine, &[], dir)?;
    if e.as_kv().is_none() {
        return Err(Error::input(format!("{engine}: not a key-value engine")));
    }
    Ok(Box::new(Kv {
        engine: e,
        name: engine.to_string(),
        indexed,
    }))
}

fn key(prefix: u8, parts: &[u32]) -> Vec<u8> {
    let mut k = vec![prefix];
    for p in parts {
        k.extend_from_slice(&p.to_be_bytes());
    }
    k
}

fn id_at(k: &[u8], at: usize) -> u32 {
    k.get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_be_bytes)
}

fn person_value(p: &Person) -> Vec<u8> {
    let mut out = Vec::new();
    encode_record(
        &[
            p.name.as_bytes().to_vec(),
            p.age.to_le_bytes().to_vec(),
            p.gender.as_bytes().to_vec(),
            p.color.as_bytes().to_vec(),
        ],
        &mut out,
    );
    out
}

fn transaction_value(t: &Transaction) -> Vec<u8> {
    let mut out = Vec::new();
    encode_record(
        &[
            t.seller.to_le_bytes().to_vec(),
            t.buyer.to_le_bytes().to_vec(),
            t.price.to_le_bytes().to_vec(),
            t.item.as_bytes().to_vec(),
            t.date.to_le_bytes().to_vec(),
        ],
        &mut out,
    );
    out
}

fn le(b: &[u8]) -> u32 {
    b.try_into().map_or(0, u32::from_le_bytes)
}

/// Field `i` of a stored record (empty when it has fewer), read in place: a scan decodes only
/// the fields its plan looks at.
fn field(v: &[u8], i: usize) -> &[u8] {
    fields(v).nth(i).unwrap_or(&[])
}

/// A person's age, read in place.
fn age(v: &[u8]) -> u32 {
    le(field(v, 1))
}

/// A person as stored: (name, age, gender, colour).
type Stored = (String, u32, String, String);

fn person(v: &[u8]) -> Stored {
    let text = |i: usize| String::from_utf8_lossy(field(v, i)).into_owned();
    (text(0), age(v), text(2), text(3))
}

/// A transaction as stored: (buyer, price).
fn buyer_price(v: &[u8]) -> (u32, u32) {
    let mut f = fields(v).skip(1);
    let buyer = le(f.next().unwrap_or(&[]));
    (buyer, le(f.next().unwrap_or(&[])))
}

impl Kv {
    fn store(&mut self) -> &mut dyn KvStore {
        self.engine.as_kv().expect("checked at open")
    }

    fn err(&self, e: String) -> Error {
        Error::failed(format!("{}: {e}", self.name))
    }

    /// Visit every record with `start <= key < end`, a page of scan at a time.
    fn range(
        &mut self,
        start: &[u8],
        end: &[u8],
        mut visit: impl FnMut(&[u8], &[u8]),
    ) -> Result<()> {
        let mut from = start.to_vec();
        // The last key visited, in one buffer reused for every record.
        let mut last = Vec::new();
        loop {
            let mut past_end = false;
            let n = self
                .store()
                .scan(&from, PAGE, &mut |k, v| {
                    if past_end || k >= end {
                        past_end = true;
                        return;
                    }
                    visit(k, v);
                    last.clear();
                    last.extend_from_slice(k);
                })
                .map_err(|e| self.err(e))?;
            if past_end || n < u64::from(PAGE) {
                return Ok(());
            }
            std::mem::swap(&mut from, &mut last);
            from.push(0);
        }
    }

    fn get(&mut self, k: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut out = Vec::new();
        let found = self.store().get(k, &mut out).map_err(|e| self.err(e))?;
        Ok(found.then_some(out))
    }

    /// Ids of the people aged `lo..=hi`, from the index or a scan.
    fn ages(&mut self, lo: u32, hi: u32) -> Result<Vec<(u32, Stored)>> {
        let mut out = Vec::new();
        if self.indexed {
            let mut ids = Vec::new();
            self.range(&key(b'a', &[lo]), &key(b'a', &[hi + 1]), |k, _| {
                ids.push(id_at(k, 5))
            })?;
            for id in ids {
                if let Some(v) = self.get(&key(b'p', &[id]))? {
                    out.push((id, person(&v)));
                }
            }
        } else {
            self.range(b"p", b"q", |k, v| {
                if (lo..=hi).contains(&age(v)) {
                    out.push((id_at(k, 1), person(v)));
                }
            })?;
        }
        Ok(out)
    }
}

impl ModelStore for Kv {
    fn insert(&mut self, data: &DataSet) -> Result<()> {
        let indexed = self.indexed;
        let name = self.name.clone();
        let fail = |e: String| Error::failed(format!("{name}: inserting the tuples: {e}"));
        let s = self.store();
        s.begin_bulk()?;
        for p in &data.people {
            s.put(&key(b'p', &[p.id]), &person_value(p)).map_err(fail)?;
            if indexed {
                s.put(&key(b'a', &[p.age, p.id]), &[]).map_err(fail)?;
            }
        }
        for t in &data.transactions {
            s.put(&key(b't', &[t.id]), &transaction_value(t))
                .map_err(fail)?;
            if indexed {
                s.put(&key(b'b', &[t.buyer, t.id]), &[]).map_err(fail)?;
            }
        }
        s.end_bulk()
    }

    fn query(&mut self, q: &Query) -> Result<Answer> {
        let person_row = |id: u32, p: Stored| -> Vec<Value> {
            vec![id.into(), p.0.into(), p.1.into(), p.2.into(), p.3.into()]
        };
        let rows: Vec<Vec<Value>> = match q {
            Query::LookupId(id) => self
                .get(&key(b'p', &[*id]))?
                .map(|v| person_row(*id, person(&v)))
                .into_iter()
                .collect(),
            Query::LookupName(name) => {
                let mut rows = Vec::new();
                self.range(b"p", b"q", |k, v| {
                    if field(v, 0) == name.as_bytes() {
                        rows.push(person_row(id_at(k, 1), person(v)));
                    }
                })?;
                rows
            }
            Query::AgeRange(lo, hi) => self
                .ages(*lo, *hi)?
                .into_iter()
                .map(|(id, p)| vec![id.into(), p.0.into(), p.1.into()])
                .collect(),
            Query::GroupAge => {
                let mut count: HashMap<u32, i64> = HashMap::new();
                self.range(b"p", b"q", |_, v| *count.entry(age(v)).or_default() += 1)?;
                count
                    .into_iter()
                    .map(|(a, n)| vec![a.into(), n.into()])
                    .collect()
            }
            Query::GroupBuyer => {
                let mut sum: HashMap<u32, i64> = HashMap::new();
                self.range(b"t", b"u", |_, v| {
                    let (buyer, price) = buyer_price(v);
                    *sum.entry(buyer).or_default() += i64::from(price);
                })?;
                sum.into_iter()
                    .map(|(b, s)| vec![b.into(), s.into()])
                    .collect()
            }
            Query::JoinAge(lo, hi) => {
                let buyers: BTreeMap<u32, String> = self
                    .ages(*lo, *hi)?
                    .into_iter()
                    .map(|(id, p)| (id, p.0))
                    .collect();
                let mut rows = Vec::new();
                if self.indexed {
                    for (&buyer, name) in &buyers {
                        let mut tids = Vec::new();
                        self.range(&key(b'b', &[buyer]), &key(b'b', &[buyer + 1]), |k, _| {
                            tids.push(id_at(k, 5))
                        })?;
                        for tid in tids {
                            if let Some(v) = self.get(&key(b't', &[tid]))? {
                                let (_, price) = buyer_price(&v);
                                rows.push(vec![
                                    tid.into(),
                                    price.into(),
                                    buyer.into(),
                                    name.clone().into(),
                                ]);
                            }
                        }
                    }
                } else {
                    self.range(b"t", b"u", |k, v| {
                        let (buyer, price) = buyer_price(v);
                        if let Some(name) = buyers.get(&buyer) {
                            rows.push(vec![
                                id_at(k, 1).into(),
                                price.into(),
                                buyer.into(),
                                name.clone().into(),
                            ]);
                        }
                    })?;
                }
                rows
            }
        };
        Ok(Answer::new(rows))
    }
}
