//! The conversion's first pass: statements per database and the schema records of each,
//! from which the database is chosen ([`Survey::choose`]).

use crate::error::{Error, Result};
use crate::workload::import::record::LogRecord;
use std::collections::BTreeMap;

/// Statements per database (the first pass), and the schema records of each (SQLite's own
/// tables left out: SQLite creates them).
#[derive(Default)]
pub struct Survey {
    pub statements: BTreeMap<String, u64>,
    pub schema: BTreeMap<String, Vec<(String, String, String)>>,
}

impl Survey {
    pub fn add(&mut self, r: &LogRecord) -> Result<()> {
        let db = match r {
            LogRecord::Statement(s) => s.db.as_deref().unwrap_or_default(),
            LogRecord::Schema(s) => s.db.as_deref().unwrap_or_default(),
        };
        // A statement of a database already counted: counted without copying its name.
        if let (LogRecord::Statement(_), Some(n)) = (r, self.statements.get_mut(db)) {
            *n += 1;
            return Ok(());
        }
        let db = db.to_string();
        if !self.statements.contains_key(&db)
            && self.statements.len() as u64 >= crate::limits::MAX_LOG_DBS
        {
            return Err(Error::input(format!(
                "the log names more than {} databases (the limit, see docs/limits.md)",
                crate::limits::MAX_LOG_DBS
            )));
        }
        let n = self.statements.entry(db.clone()).or_default();
        match r {
            LogRecord::Statement(_) => *n += 1,
            LogRecord::Schema(s) => {
                let objects = self.schema.entry(db).or_default();
                if (objects.len() as u64) < crate::limits::MAX_SCHEMA_OBJECTS
                    && !crate::workload::import::schema::internal(&s.name)
                    && !objects.iter().any(|(k, n, _)| *k == s.kind && *n == s.name)
                {
                    objects.push((s.kind.clone(), s.name.clone(), s.sql.clone()));
                }
            }
        }
        Ok(())
    }

    /// `--db` if given (it must be in the log), else the database with most statements.
    pub fn choose(&self, wanted: Option<&str>) -> Result<String> {
        let listed = || {
            self.statements
                .iter()
                .map(|(d, n)| format!("{} ({n})", crate::limits::escape(d)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match wanted {
            Some(d) if self.statements.contains_key(d) => Ok(d.to_string()),
            Some(d) => Err(Error::input(format!(
                "--db {}: the log has no statements on it (databases: {})",
                crate::limits::escape(d),
                listed()
            ))),
            None => self
                .statements
                .iter()
                .max_by_key(|(d, n)| (**n, std::cmp::Reverse(*d)))
                .map(|(d, _)| d.clone())
                .ok_or_else(|| Error::input("the log has no statements")),
        }
    }
}
