//! The relational plan on an engine that speaks SQLite's C API through pocketbench's engine
//! layer — BerkeleyDB's SQL front end (`berkeleydb-sql`, in builds with the `berkeleydb`
//! feature): the same schema and the same SQL as [`super::sqlite`], run through the engine's
//! SQL session (`Engine::as_sql`) with its default options, each statement prepared once.

use super::data::DataSet;
use super::query::{Answer, Query, Test, Value};
use super::ModelStore;
use crate::engine::sqlite::session::{SqlParam, SqlSession};
use crate::engine::Engine;
use crate::error::{Error, Result};
use std::path::Path;

pub struct SqlEngine {
    engine: Box<dyn Engine>,
    name: String,
}

/// Open SQL engine `engine` in `dir` and create the schema.
pub fn create(engine: &str, dir: &Path) -> Result<Box<dyn ModelStore>> {
    let mut e = crate::engine::open(engine, &[], dir)?;
    let session = e
        .as_sql()
        .ok_or_else(|| Error::input(format!("{engine}: not a SQL engine")))?;
    session
        .exec_sql(super::sqlite::DDL)
        .map_err(|m| Error::failed(format!("{engine}: creating the schema: {m}")))?;
    Ok(Box::new(SqlEngine {
        engine: e,
        name: engine.to_string(),
    }))
}

/// A column as the C API gives it (numbers in text form) back to a value.
fn value(bytes: Vec<u8>) -> Value {
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match text.parse::<i64>() {
        Ok(n) => Value::Int(n),
        Err(_) => Value::Text(text),
    }
}

impl SqlEngine {
    fn session(&mut self) -> &mut SqlSession {
        self.engine.as_sql().expect("checked at open")
    }
}

impl ModelStore for SqlEngine {
    fn insert(&mut self, data: &DataSet) -> Result<()> {
        let name = self.name.clone();
        let fail = |m: String| Error::failed(format!("{name}: inserting the tuples: {m}"));
        let s = self.session();
        s.exec_sql("BEGIN").map_err(fail)?;
        for p in &data.people {
            s.query(
                "INSERT INTO people VALUES (?1, ?2, ?3, ?4, ?5)",
                &[
                    SqlParam::Int(p.id.into()),
                    SqlParam::Text(p.name.clone()),
                    SqlParam::Int(p.age.into()),
                    SqlParam::Text(p.gender.clone()),
                    SqlParam::Text(p.color.clone()),
                ],
            )
            .map_err(fail)?;
        }
        for t in &data.transactions {
            s.query(
                "INSERT INTO transactions VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &[
                    SqlParam::Int(t.id.into()),
                    SqlParam::Int(t.seller.into()),
                    SqlParam::Int(t.buyer.into()),
                    SqlParam::Int(t.price.into()),
                    SqlParam::Text(t.item.clone()),
                    SqlParam::Int(t.date.into()),
                ],
            )
            .map_err(fail)?;
        }
        s.exec_sql("COMMIT").map_err(fail).map(|_| ())
    }

    fn query(&mut self, q: &Query) -> Result<Answer> {
        let (test, params) = match q {
            Query::LookupId(id) => (Test::LookupId, vec![SqlParam::Int((*id).into())]),
            Query::LookupName(n) => (Test::LookupName, vec![SqlParam::Text(n.clone())]),
            Query::AgeRange(lo, hi) => (
                Test::AgeRange,
                vec![SqlParam::Int((*lo).into()), SqlParam::Int((*hi).into())],
            ),
            Query::GroupAge => (Test::GroupAge, vec![]),
            Query::GroupBuyer => (Test::GroupBuyer, vec![]),
            Query::JoinAge(lo, hi) => (
                Test::JoinAge,
                vec![SqlParam::Int((*lo).into()), SqlParam::Int((*hi).into())],
            ),
        };
        let name = self.name.clone();
        let rows = self.session().query(test.sql(), &params).map_err(|m| {
            Error::failed(format!(
                "{name}: test {} ({}): {m}",
                test.number(),
                test.name()
            ))
        })?;
        Ok(Answer::new(
            rows.into_iter()
                .map(|r| r.into_iter().map(value).collect())
                .collect(),
        ))
    }
}
