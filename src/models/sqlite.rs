//! The relational engine: SQLite (the bundled library, its defaults: rollback journal,
//! `synchronous=FULL`), the study's schema with its primary keys as the only indexes, loaded in
//! one transaction, and each test as one SQL statement ([`Test::sql`]).

use super::data::DataSet;
use super::query::{Answer, Query, Test, Value};
use super::ModelStore;
use crate::error::{Result, ResultExt};
use rusqlite::{params, Connection};
use std::path::Path;

/// The study's schema (shared with [`super::sql_engine`]).
pub const DDL: &str = "
CREATE TABLE people(
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL,
    gender TEXT NOT NULL, color TEXT NOT NULL);
CREATE TABLE transactions(
    id INTEGER PRIMARY KEY,
    seller INTEGER NOT NULL REFERENCES people(id), buyer INTEGER NOT NULL REFERENCES people(id),
    price INTEGER NOT NULL, item TEXT NOT NULL, date INTEGER NOT NULL);";

pub struct Sqlite {
    conn: Connection,
}

/// Create the database file and the schema in `dir`.
pub fn create(dir: &Path) -> Result<Box<dyn ModelStore>> {
    let path = dir.join("models.sqlite");
    let conn = Connection::open(&path).run_err("sqlite: creating the database")?;
    conn.execute_batch(DDL)
        .run_err("sqlite: creating the schema")?;
    Ok(Box::new(Sqlite { conn }))
}

fn query_err(test: Test) -> String {
    format!("sqlite: test {} ({})", test.number(), test.name())
}

impl ModelStore for Sqlite {
    fn insert(&mut self, data: &DataSet) -> Result<()> {
        let what = "sqlite: inserting the tuples";
        let tx = self.conn.transaction().run_err(what)?;
        {
            let mut p = tx
                .prepare("INSERT INTO people VALUES (?1, ?2, ?3, ?4, ?5)")
                .run_err(what)?;
            for r in &data.people {
                p.execute(params![r.id, r.name, r.age, r.gender, r.color])
                    .run_err(what)?;
            }
            let mut t = tx
                .prepare("INSERT INTO transactions VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                .run_err(what)?;
            for r in &data.transactions {
                t.execute(params![r.id, r.seller, r.buyer, r.price, r.item, r.date])
                    .run_err(what)?;
            }
        }
        tx.commit().run_err(what)
    }

    fn query(&mut self, q: &Query) -> Result<Answer> {
        let (test, args): (Test, Vec<rusqlite::types::Value>) = match q {
            Query::LookupId(id) => (Test::LookupId, vec![i64::from(*id).into()]),
            Query::LookupName(n) => (Test::LookupName, vec![n.clone().into()]),
            Query::AgeRange(lo, hi) => (
                Test::AgeRange,
                vec![i64::from(*lo).into(), i64::from(*hi).into()],
            ),
            Query::GroupAge => (Test::GroupAge, vec![]),
            Query::GroupBuyer => (Test::GroupBuyer, vec![]),
            Query::JoinAge(lo, hi) => (
                Test::JoinAge,
                vec![i64::from(*lo).into(), i64::from(*hi).into()],
            ),
        };
        let what = query_err(test);
        let mut stmt = self.conn.prepare_cached(test.sql()).run_err(&what)?;
        let columns = stmt.column_count();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |row| {
                (0..columns)
                    .map(|i| {
                        Ok(match row.get_ref(i)? {
                            rusqlite::types::ValueRef::Integer(n) => Value::Int(n),
                            other => Value::Text(
                                other
                                    .as_str()
                                    .map(str::to_string)
                                    .unwrap_or_else(|_| format!("{other:?}")),
                            ),
                        })
                    })
                    .collect::<rusqlite::Result<Vec<Value>>>()
            })
            .run_err(&what)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .run_err(&what)?;
        Ok(Answer::new(rows))
    }
}
