//! The PostgreSQL back end, through the synchronous `postgres` client: statements prepared
//! once per connection and cached, values bound with their column's type.

use super::{Dialect, Row, Sql, Value};
use crate::error::{Error, Result};
use postgres::types::{IsNull, ToSql, Type};
use postgres::{Client, NoTls, Statement};
use std::collections::HashMap;

pub struct Pg {
    client: Client,
    statements: HashMap<String, Statement>,
}

/// The URL without its password, for messages.
pub fn describe(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            let user = user.split(':').next().unwrap_or("");
            format!("PostgreSQL {}{user}@{}", &url[..s + 3], &url[at + 1..])
        }
        _ => format!("PostgreSQL {url}"),
    }
}

impl Pg {
    pub fn connect(url: &str) -> Result<Pg> {
        let client = Client::connect(url, NoTls).map_err(|e| {
            // The driver's own message is only "error connecting to server": the cause (a host
            // that does not resolve, a refused connection) is its source.
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                let s_text = s.to_string();
                if !why.contains(&s_text) {
                    why = format!("{why}: {s_text}");
                }
                source = s.source();
            }
            Error::input(format!(
                "--db {}: cannot connect: {why}",
                crate::limits::escape(&describe(url))
            ))
        })?;
        Ok(Pg {
            client,
            statements: HashMap::new(),
        })
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql).map_err(err)?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

fn err(e: postgres::Error) -> Error {
    Error::failed(format!("server database (PostgreSQL): {e}"))
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => (*v as i32).to_sql(ty, out),
            Value::Int(v) if *ty == Type::FLOAT8 => (*v as f64).to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(s) => s.as_str().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

fn column(row: &postgres::Row, i: usize) -> Value {
    let ty = row.columns()[i].type_();
    let v = if *ty == Type::INT8 {
        row.get::<_, Option<i64>>(i).map(Value::Int)
    } else if *ty == Type::INT4 {
        row.get::<_, Option<i32>>(i).map(|v| Value::Int(v.into()))
    } else if *ty == Type::INT2 {
        row.get::<_, Option<i16>>(i).map(|v| Value::Int(v.into()))
    } else if *ty == Type::FLOAT8 {
        row.get::<_, Option<f64>>(i).map(Value::Real)
    } else if *ty == Type::FLOAT4 {
        row.get::<_, Option<f32>>(i).map(|v| Value::Real(v.into()))
    } else if *ty == Type::BOOL {
        row.get::<_, Option<bool>>(i).map(|v| Value::Int(v.into()))
    } else {
        row.try_get::<_, Option<String>>(i)
            .ok()
            .flatten()
            .map(Value::Text)
    };
    v.unwrap_or(Value::Null)
}

impl Sql for Pg {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        let st = self.statement(sql)?;
        let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        self.client.execute(&st, &p).map_err(err)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        let st = self.statement(sql)?;
        let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        let rows = self.client.query(&st, &p).map_err(err)?;
        Ok(rows
            .iter()
            .map(|r| Row((0..r.len()).map(|i| column(r, i)).collect()))
            .collect())
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        self.client.batch_execute(sql).map_err(err)
    }
}
