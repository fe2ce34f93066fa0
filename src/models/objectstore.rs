//! The object store: native_db (an embedded database of native Rust structs over redb, with its
//! own typed query API), one model per table — `PersonObject` and `TransactionObject`, each keyed
//! by `id`, the only index, as the study's DDL has — loaded in one read-write transaction.
//! Test 1 is a primary-key `get`; the others iterate the objects with a primary scan and filter,
//! group or join in the app, as an object-database query over unindexed fields runs.

use super::data::DataSet;
use super::query::{Answer, Query, Value};
use super::ModelStore;
use crate::error::{Error, Result};
use native_db::{native_db, Builder, Database, Models, ToKey as _};
use native_model::{native_model, Model};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::LazyLock;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[native_model(id = 1, version = 1)]
#[native_db]
pub struct PersonObject {
    #[primary_key]
    pub id: u32,
    pub name: String,
    pub age: u32,
    pub gender: String,
    pub color: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[native_model(id = 2, version = 1)]
#[native_db]
pub struct TransactionObject {
    #[primary_key]
    pub id: u32,
    pub seller: u32,
    pub buyer: u32,
    pub price: u32,
    pub item: String,
    pub date: u32,
}

static MODELS: LazyLock<Models> = LazyLock::new(|| {
    let mut models = Models::new();
    // Defining two distinct models cannot fail; if it did, opening the database says so.
    let _ = models.define::<PersonObject>();
    let _ = models.define::<TransactionObject>();
    models
});

pub struct NativeDb {
    db: Database<'static>,
}

fn err(what: &str) -> impl Fn(native_db::db_type::Error) -> Error + '_ {
    move |e| Error::failed(format!("native_db: {what}: {e}"))
}

/// Create the database file in `dir`.
pub fn create(dir: &Path) -> Result<Box<dyn ModelStore>> {
    let db = Builder::new()
        .create(&MODELS, dir.join("models.native_db"))
        .map_err(err("creating the database"))?;
    Ok(Box::new(NativeDb { db }))
}

fn person_row(p: &PersonObject) -> Vec<Value> {
    vec![
        p.id.into(),
        p.name.as_str().into(),
        p.age.into(),
        p.gender.as_str().into(),
        p.color.as_str().into(),
    ]
}

impl NativeDb {
    /// Every object of type `T`, in key order, through `visit`.
    fn each<T: native_db::ToInput>(&self, mut visit: impl FnMut(T)) -> Result<()> {
        let r = self.db.r_transaction().map_err(err("read transaction"))?;
        let scan = r.scan().primary::<T>().map_err(err("scan"))?;
        for item in scan.all().map_err(err("scan"))? {
            visit(item.map_err(err("reading an object"))?);
        }
        Ok(())
    }
}

impl ModelStore for NativeDb {
    fn insert(&mut self, data: &DataSet) -> Result<()> {
        let what = "inserting the tuples";
        let rw = self.db.rw_transaction().map_err(err(what))?;
        for p in &data.people {
            rw.insert(PersonObject {
                id: p.id,
                name: p.name.clone(),
                age: p.age,
                gender: p.gender.clone(),
                color: p.color.clone(),
            })
            .map_err(err(what))?;
        }
        for t in &data.transactions {
            rw.insert(TransactionObject {
                id: t.id,
                seller: t.seller,
                buyer: t.buyer,
                price: t.price,
                item: t.item.clone(),
                date: t.date,
            })
            .map_err(err(what))?;
        }
        rw.commit().map_err(err(what))
    }

    fn query(&mut self, q: &Query) -> Result<Answer> {
        let mut rows: Vec<Vec<Value>> = Vec::new();
        match q {
            Query::LookupId(id) => {
                let r = self.db.r_transaction().map_err(err("read transaction"))?;
                let found: Option<PersonObject> = r.get().primary(*id).map_err(err("get"))?;
                rows.extend(found.as_ref().map(person_row));
            }
            Query::LookupName(name) => self.each(|p: PersonObject| {
                if p.name == *name {
                    rows.push(person_row(&p));
                }
            })?,
            Query::AgeRange(lo, hi) => self.each(|p: PersonObject| {
                if (*lo..=*hi).contains(&p.age) {
                    rows.push(vec![p.id.into(), p.name.into(), p.age.into()]);
                }
            })?,
            Query::GroupAge => {
                let mut count: HashMap<u32, i64> = HashMap::new();
                self.each(|p: PersonObject| *count.entry(p.age).or_default() += 1)?;
                rows.extend(count.into_iter().map(|(a, n)| vec![a.into(), n.into()]));
            }
            Query::GroupBuyer => {
                let mut sum: HashMap<u32, i64> = HashMap::new();
                self.each(|t: TransactionObject| {
                    *sum.entry(t.buyer).or_default() += i64::from(t.price)
                })?;
                rows.extend(sum.into_iter().map(|(b, s)| vec![b.into(), s.into()]));
            }
            Query::JoinAge(lo, hi) => {
                let mut buyers: BTreeMap<u32, String> = BTreeMap::new();
                self.each(|p: PersonObject| {
                    if (*lo..=*hi).contains(&p.age) {
                        buyers.insert(p.id, p.name);
                    }
                })?;
                self.each(|t: TransactionObject| {
                    if let Some(name) = buyers.get(&t.buyer) {
                        rows.push(vec![
                            t.id.into(),
                            t.price.into(),
                            t.buyer.into(),
                            name.clone().into(),
                        ]);
                    }
                })?;
            }
        }
        Ok(Answer::new(rows))
    }
}
