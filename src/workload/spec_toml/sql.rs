//! A `[sql]` body checked and compiled ([`SqlSpec`]): overrides applied, weights and
//! templates validated, and the whole turned into a workload's load and run streams.

use super::schema::{field_error, OneOrMany, SqlSection, StatementSection};
use super::stream::{RunState, Statement};
use super::template::{Keys, Template};
use crate::error::{Error, Result};
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::overrides::{reject_overrides, DISTRIBUTION, OPS, RECORDS};
use crate::workload::rng::Rng;
use crate::workload::ycsb::{distribution_override, Distribution};
use crate::workload::{Overrides, Workload, WorkloadInfo};
use std::collections::BTreeMap;

/// A checked `[sql]` body with its templates parsed.
pub(super) struct SqlSpec {
    records: u64,
    operations: u64,
    schema: Vec<String>,
    load: Vec<Template>,
    distribution: Distribution,
    statements: Vec<Statement>,
}

impl SqlSpec {
    pub(super) fn compile(section: SqlSection, file: &str, o: &Overrides) -> Result<SqlSpec> {
        reject_overrides(o, &[RECORDS, OPS, DISTRIBUTION], "a TOML [sql] workload")?;
        let records = o.records.unwrap_or(section.records);
        let operations = o.ops.unwrap_or(section.operations);
        if operations == 0 {
            return Err(field_error(file, "sql.operations", "must be at least 1"));
        }
        let distribution = distribution(o, section.distribution.as_deref(), file)?;
        let load = section.load.map(OneOrMany::into_vec).unwrap_or_default();
        let statements = compile_statements(section.statement, file, records)?;
        Ok(SqlSpec {
            records,
            operations,
            schema: section.schema,
            load: compile_load(&load, file)?,
            distribution,
            statements,
        })
    }

    fn params(&self) -> BTreeMap<String, String> {
        let mut params = BTreeMap::from([
            ("records".to_string(), self.records.to_string()),
            ("operations".into(), self.operations.to_string()),
            ("distribution".into(), self.distribution.name().into()),
            ("statements".into(), self.statements.len().to_string()),
        ]);
        for (i, s) in self.statements.iter().enumerate() {
            params.insert(format!("statement.{i}"), format!("{} {}", s.weight, s.text));
        }
        params
    }

    pub(super) fn into_workload(self, name: String, seed: u64) -> Workload {
        let info = WorkloadInfo {
            name,
            source: "toml".into(),
            model: DataModel::Sql,
            load_ops: (self.schema.len() as u64)
                .saturating_add(self.records.saturating_mul(self.load.len() as u64)),
            run_ops: self.operations,
            params: self.params(),
            recorded_delays: false,
            initial_delay_ns: 0,
        };
        let SqlSpec {
            records,
            operations,
            schema,
            load,
            distribution,
            statements,
            ..
        } = self;
        let mut load_rng = Rng::derive(seed, "load");
        let load_ops = (0..records).flat_map(move |key| {
            let keys = Keys { key, new_key: key };
            load.iter()
                .map(|t| Op::Sql {
                    sql: t.render(keys, &mut load_rng),
                })
                .collect::<Vec<_>>()
        });
        let mut run = RunState::new(statements, records, operations, distribution, seed);
        Workload {
            info,
            load: Box::new(
                schema
                    .into_iter()
                    .map(|sql| Op::Sql { sql })
                    .chain(load_ops),
            ),
            run: Box::new((0..operations).map(move |_| TimedOp {
                op: run.next_op(),
                delay_ns: 0,
                recorded: None,
            })),
        }
    }
}

/// `--distribution`, else the spec's `distribution`, else uniform.
fn distribution(o: &Overrides, spec: Option<&str>, file: &str) -> Result<Distribution> {
    match (distribution_override(o)?, spec) {
        (Some(d), _) => Ok(d),
        (None, Some(d)) => {
            Distribution::parse(d).map_err(|m| field_error(file, "sql.distribution", &m))
        }
        (None, None) => Ok(Distribution::Uniform),
    }
}

fn compile_load(texts: &[String], file: &str) -> Result<Vec<Template>> {
    let mut load = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let at = format!("{file}: sql.load[{i}]");
        let template = Template::parse(text, &at)?;
        if template.uses_new_key {
            return Err(Error::input(format!(
                "{at}: {{new_key}} has no meaning while loading; {{key}} is the record being loaded"
            )));
        }
        load.push(template);
    }
    Ok(load)
}

fn compile_statements(
    sections: Vec<StatementSection>,
    file: &str,
    records: u64,
) -> Result<Vec<Statement>> {
    if sections.is_empty() {
        return Err(field_error(
            file,
            "sql",
            "no statements (add at least one [[sql.statement]] with sql = \"…\")",
        ));
    }
    let mut statements = Vec::new();
    for (i, s) in sections.into_iter().enumerate() {
        let at = format!("{file}: sql.statement[{i}]");
        if !(s.weight.is_finite() && s.weight > 0.0) {
            return Err(Error::input(format!(
                "{at}.weight: must be a number greater than 0, not {}",
                s.weight
            )));
        }
        let template = Template::parse(&s.sql, &format!("{at}.sql"))?;
        if template.uses_key && records == 0 {
            return Err(Error::input(format!(
                "{at}.sql: uses {{key}} but records = 0, so there is no key to choose"
            )));
        }
        statements.push(Statement {
            weight: s.weight,
            template,
            text: s.sql,
        });
    }
    Ok(statements)
}
