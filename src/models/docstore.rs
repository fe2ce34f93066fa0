//! The document store: PoloDB (an embedded MongoDB-like database, pure Rust), one collection
//! per table, every tuple a BSON document keyed by `_id` (the only index, as the study's DDL
//! has), loaded in one transaction. Tests 1–3 are `find` with a filter (`_id`, `name`, an
//! `$gte`/`$lte` range on `age`); PoloDB 4.4's aggregation offers `$match` and `$count` but no
//! `$group` or `$lookup`, so tests 4 and 5 read the collection through a cursor and group in
//! the app, and test 6 is the document-store join: the buyers by a range `find`, then their
//! transactions by `buyer: {$in: [ids]}`.

use super::data::DataSet;
use super::query::{Answer, Query, Value};
use super::ModelStore;
use crate::error::{Error, Result};
use bson::{doc, Document};
use polodb_core::{Collection, Database};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub struct PoloDb {
    db: Database,
}

fn err(what: &str) -> impl Fn(polodb_core::Error) -> Error + '_ {
    move |e| Error::failed(format!("polodb: {what}: {e}"))
}

/// Create the database file in `dir`.
pub fn create(dir: &Path) -> Result<Box<dyn ModelStore>> {
    let db = Database::open_file(dir.join("models.polo")).map_err(err("creating the database"))?;
    Ok(Box::new(PoloDb { db }))
}

fn int(d: &Document, key: &str) -> i64 {
    d.get_i64(key)
        .or_else(|_| d.get_i32(key).map(i64::from))
        .unwrap_or(-1)
}

fn text(d: &Document, key: &str) -> String {
    d.get_str(key).unwrap_or("").to_string()
}

fn person_row(d: &Document) -> Vec<Value> {
    vec![
        int(d, "_id").into(),
        text(d, "name").into(),
        int(d, "age").into(),
        text(d, "gender").into(),
        text(d, "color").into(),
    ]
}

impl PoloDb {
    fn people(&self) -> Collection<Document> {
        self.db.collection("people")
    }

    fn transactions(&self) -> Collection<Document> {
        self.db.collection("transactions")
    }

    fn find(&self, c: &Collection<Document>, filter: Option<Document>) -> Result<Vec<Document>> {
        c.find(filter)
            .map_err(err("find"))?
            .collect::<polodb_core::Result<Vec<Document>>>()
            .map_err(err("reading a cursor"))
    }

    fn age_filter(lo: u32, hi: u32) -> Document {
        doc! { "age": { "$gte": i64::from(lo), "$lte": i64::from(hi) } }
    }
}

impl ModelStore for PoloDb {
    fn insert(&mut self, data: &DataSet) -> Result<()> {
        let what = "inserting the tuples";
        let mut session = self.db.start_session().map_err(err(what))?;
        session.start_transaction(None).map_err(err(what))?;
        let people: Vec<Document> = data
            .people
            .iter()
            .map(|p| {
                doc! {
                    "_id": i64::from(p.id), "name": &p.name, "age": i64::from(p.age),
                    "gender": &p.gender, "color": &p.color,
                }
            })
            .collect();
        self.people()
            .insert_many_with_session(people, &mut session)
            .map_err(err(what))?;
        let transactions: Vec<Document> = data
            .transactions
            .iter()
            .map(|t| {
                doc! {
                    "_id": i64::from(t.id), "seller": i64::from(t.seller),
                    "buyer": i64::from(t.buyer), "price": i64::from(t.price),
                    "item": &t.item, "date": i64::from(t.date),
                }
            })
            .collect();
        self.transactions()
            .insert_many_with_session(transactions, &mut session)
            .map_err(err(what))?;
        session.commit_transaction().map_err(err(what))
    }

    fn query(&mut self, q: &Query) -> Result<Answer> {
        let people = self.people();
        let rows: Vec<Vec<Value>> = match q {
            Query::LookupId(id) => people
                .find_one(doc! { "_id": i64::from(*id) })
                .map_err(err("find_one"))?
                .iter()
                .map(person_row)
                .collect(),
            Query::LookupName(name) => self
                .find(&people, Some(doc! { "name": name }))?
                .iter()
                .map(person_row)
                .collect(),
            Query::AgeRange(lo, hi) => self
                .find(&people, Some(Self::age_filter(*lo, *hi)))?
                .iter()
                .map(|d| {
                    vec![
                        int(d, "_id").into(),
                        text(d, "name").into(),
                        int(d, "age").into(),
                    ]
                })
                .collect(),
            Query::GroupAge => {
                let mut count: HashMap<i64, i64> = HashMap::new();
                for d in people.find(None).map_err(err("find"))? {
                    let d = d.map_err(err("reading a cursor"))?;
                    *count.entry(int(&d, "age")).or_default() += 1;
                }
                count
                    .into_iter()
                    .map(|(a, n)| vec![a.into(), n.into()])
                    .collect()
            }
            Query::GroupBuyer => {
                let mut sum: HashMap<i64, i64> = HashMap::new();
                for d in self.transactions().find(None).map_err(err("find"))? {
                    let d = d.map_err(err("reading a cursor"))?;
                    *sum.entry(int(&d, "buyer")).or_default() += int(&d, "price");
                }
                sum.into_iter()
                    .map(|(b, s)| vec![b.into(), s.into()])
                    .collect()
            }
            Query::JoinAge(lo, hi) => {
                let buyers: BTreeMap<i64, String> = self
                    .find(&people, Some(Self::age_filter(*lo, *hi)))?
                    .iter()
                    .map(|d| (int(d, "_id"), text(d, "name")))
                    .collect();
                let ids: Vec<i64> = buyers.keys().copied().collect();
                self.find(&self.transactions(), Some(doc! { "buyer": { "$in": ids } }))?
                    .iter()
                    .map(|d| {
                        let buyer = int(d, "buyer");
                        vec![
                            int(d, "_id").into(),
                            int(d, "price").into(),
                            buyer.into(),
                            buyers.get(&buyer).cloned().unwrap_or_default().into(),
                        ]
                    })
                    .collect()
            }
        };
        Ok(Answer::new(rows))
    }
}
