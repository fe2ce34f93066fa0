//! The study plan: a TOML file (or a built-in plan) naming the axes of a study, the run flags
//! every cell shares, `exclude`/`include` rules, repeats, run order, cool-down, results store
//! and confidence level. Every axis is a `pocketbench run` flag (or a table of raw run
//! arguments), so any flag `run` gains becomes an axis with no change here. The format is
//! documented in `docs/studies.md`.

use super::flags::{CommandFlags, Suite};
use crate::error::{Error, Result};
use crate::output::units::parse_duration;
use std::path::{Path, PathBuf};

/// How runs are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Round-robin: every cell once, then every cell again, in declaration order.
    Fixed,
    /// All (cell, repeat) pairs shuffled with the plan's seed (reproducible).
    Random,
}

/// One value of an axis: a label for tables and figures, and the `run` arguments it adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisValue {
    pub label: String,
    pub args: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Axis {
    pub name: String,
    pub values: Vec<AxisValue>,
}

/// A cell added by hand: axis (or flag) name → value.
pub type Assignment = Vec<(String, AxisValue)>;

#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    /// The command every cell runs (`suite`; default `run`).
    pub suite: Suite,
    /// Where the plan came from, for messages: a file path or `built-in plan NAME`.
    pub source: String,
    pub repeats: u32,
    pub order: Order,
    pub seed: u64,
    pub cooldown_ns: u64,
    pub results: Option<PathBuf>,
    pub confidence: f64,
    /// The suite command's arguments shared by every cell (`[run]` or `[durability]`).
    pub base: Vec<String>,
    pub axes: Vec<Axis>,
    /// A cell matching every term of one rule is left out.
    pub exclude: Vec<Assignment>,
    pub include: Vec<Assignment>,
    /// Things the user should know (an axis collapsed because a knob is unavailable).
    pub notices: Vec<String>,
    /// Which axes form the decision grid's rows and columns (`[grid]`).
    pub grid: Option<crate::report::decision::GridSpec>,
}

const TOP_KEYS: &[&str] = &[
    "name",
    "repeats",
    "order",
    "seed",
    "cooldown",
    "results",
    "confidence",
    "suite",
    "axes",
    "exclude",
    "include",
    "grid",
];

impl Plan {
    /// Read and check a plan file. Every error names the file and the field.
    pub fn load(path: &Path) -> Result<Plan> {
        let file = path.display().to_string();
        let text = crate::limits::read_text(path, &file, crate::limits::MAX_PLAN_FILE_BYTES)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "study".into());
        Plan::parse(&text, &file, &stem)
    }

    /// Parse plan text; `source` names it in errors, `default_name` is used without `name`.
    pub fn parse(text: &str, source: &str, default_name: &str) -> Result<Plan> {
        let table: toml::Table = toml::from_str(text)
            .map_err(|e| crate::workload::spec_toml::toml_error(source, text, &e))?;
        let suite = match table.get("suite") {
            None => Suite::Run,
            Some(v) => v.as_str().and_then(Suite::parse).ok_or_else(|| {
                Error::input(format!(
                    "{source}: suite: expected one of: {}",
                    Suite::NAMES.join(", ")
                ))
            })?,
        };
        let p = Parser {
            source,
            suite,
            flags: suite.flags(),
        };
        p.plan(&table, default_name)
    }

    /// Axis names, in declaration order.
    pub fn axis_names(&self) -> Vec<&str> {
        self.axes.iter().map(|a| a.name.as_str()).collect()
    }
}

struct Parser<'a> {
    source: &'a str,
    suite: Suite,
    flags: &'static CommandFlags,
}

impl Parser<'_> {
    fn err(&self, field: &str, why: impl std::fmt::Display) -> Error {
        Error::input(format!("{}: {field}: {why}", self.source))
    }

    fn plan(&self, t: &toml::Table, default_name: &str) -> Result<Plan> {
        // Besides these, one table of shared flags named after each suite (`[run]`, …).
        let known = |k: &str| TOP_KEYS.contains(&k) || Suite::NAMES.contains(&k);
        if let Some(k) = t.keys().find(|k| !known(k)) {
            let names: Vec<&str> = TOP_KEYS.iter().chain(Suite::NAMES).copied().collect();
            return Err(self.err(
                k,
                format!("unknown field (expected one of: {})", names.join(", ")),
            ));
        }
        let name = match t.get("name") {
            None => default_name.to_string(),
            Some(v) => self.string(v, "name")?,
        };
        let repeats = match t.get("repeats") {
            None => 3,
            Some(toml::Value::Integer(n)) if (1..=1000).contains(n) => *n as u32,
            Some(_) => return Err(self.err("repeats", "expected an integer from 1 to 1000")),
        };
        let order = match t
            .get("order")
            .map(|v| self.string(v, "order"))
            .transpose()?
        {
            None => Order::Fixed,
            Some(s) if s == "fixed" => Order::Fixed,
            Some(s) if s == "random" => Order::Random,
            Some(s) => return Err(self.err("order", format!("'{s}': expected fixed or random"))),
        };
        let seed = match t.get("seed") {
            None => 1,
            Some(toml::Value::Integer(n)) if *n >= 0 => *n as u64,
            Some(_) => return Err(self.err("seed", "expected a non-negative integer")),
        };
        let cooldown_ns = match t.get("cooldown") {
            None => 0,
            Some(v) => parse_duration(&self.string(v, "cooldown")?, "cooldown")
                .map_err(|e| self.err("cooldown", e))?,
        };
        let results = t
            .get("results")
            .map(|v| self.string(v, "results").map(PathBuf::from))
            .transpose()?;
        let confidence = match t.get("confidence") {
            None => crate::results::repeats::DEFAULT_LEVEL,
            Some(toml::Value::Float(f)) if *f > 0.0 && *f < 1.0 => *f,
            Some(_) => {
                return Err(self.err("confidence", "expected a level between 0 and 1, e.g. 0.90"))
            }
        };
        let table_name = self.suite.name();
        for other in Suite::NAMES.iter().filter(|n| **n != table_name) {
            if t.contains_key(*other) {
                return Err(self.err(
                    other,
                    format!("this plan's cells are `{table_name}` runs (suite): their shared flags go in [{table_name}]"),
                ));
            }
        }
        let base = match t.get(table_name) {
            None => Vec::new(),
            Some(toml::Value::Table(shared)) => {
                let mut args = Vec::new();
                for (flag, v) in shared {
                    args.extend(self.value(&format!("{table_name}.{flag}"), flag, v)?.args);
                }
                args
            }
            Some(_) => {
                return Err(self.err(
                    table_name,
                    format!("expected a table of {table_name} flags"),
                ))
            }
        };
        let axes = self.axes(t.get("axes"))?;
        let exclude = self.rules(t.get("exclude"), "exclude", &axes, true)?;
        let include = self.rules(t.get("include"), "include", &axes, false)?;
        let product = axes
            .iter()
            .try_fold(1u64, |n, a| n.checked_mul(a.values.len() as u64))
            .and_then(|n| n.checked_add(include.len() as u64));
        let max = crate::limits::MAX_PLAN_CELLS;
        if product.is_none_or(|n| n > max) {
            return Err(self.err(
                "axes",
                format!("the axes make more than {max} cells, the limit (see docs/limits.md)"),
            ));
        }
        if axes.is_empty() && include.is_empty() {
            return Err(self.err("axes", "a plan needs at least one axis (or an include)"));
        }
        if self.suite != Suite::Run && t.contains_key("grid") {
            return Err(self.err(
                "grid",
                "the decision grid compares run measurements: only plans of suite run have one",
            ));
        }
        let grid = t.get("grid").map(|g| self.grid(g, &axes)).transpose()?;
        Ok(Plan {
            name,
            suite: self.suite,
            source: self.source.to_string(),
            repeats,
            order,
            seed,
            cooldown_ns,
            results,
            confidence,
            base,
            axes,
            exclude,
            include,
            notices: Vec::new(),
            grid,
        })
    }

    /// `[grid]`: `rows = ["axis", …]` and `columns = "axis"`, axes of this plan, no axis twice.
    fn grid(&self, v: &toml::Value, axes: &[Axis]) -> Result<crate::report::decision::GridSpec> {
        let t = v
            .as_table()
            .ok_or_else(|| self.err("grid", "expected a table: rows = [axes], columns = axis"))?;
        if let Some(k) = t
            .keys()
            .find(|k| !["rows", "columns"].contains(&k.as_str()))
        {
            return Err(self.err(
                &format!("grid.{k}"),
                "unknown field (expected rows, columns)",
            ));
        }
        let known = |name: &str, field: &str| {
            if axes.iter().any(|a| a.name == name) {
                Ok(name.to_string())
            } else {
                let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
                Err(self.err(
                    field,
                    format!(
                        "'{name}' is not an axis of this plan ({})",
                        names.join(", ")
                    ),
                ))
            }
        };
        let columns = match t.get("columns") {
            Some(v) => known(&self.string(v, "grid.columns")?, "grid.columns")?,
            None => "workload".to_string(),
        };
        let mut rows = Vec::new();
        if let Some(v) = t.get("rows") {
            let list = v
                .as_array()
                .ok_or_else(|| self.err("grid.rows", "expected a list of axis names"))?;
            for v in list {
                let name = known(&self.string(v, "grid.rows")?, "grid.rows")?;
                if name == columns || rows.contains(&name) {
                    return Err(
                        self.err("grid.rows", format!("'{name}' appears twice in the grid"))
                    );
                }
                rows.push(name);
            }
        }
        Ok(crate::report::decision::GridSpec { rows, columns })
    }

    fn string(&self, v: &toml::Value, field: &str) -> Result<String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.err(field, "expected a string"))
    }

    fn axes(&self, v: Option<&toml::Value>) -> Result<Vec<Axis>> {
        let Some(v) = v else { return Ok(Vec::new()) };
        let table = v
            .as_table()
            .ok_or_else(|| self.err("axes", "expected a table: axis name = [values]"))?;
        let mut axes = Vec::new();
        for (name, values) in table {
            let field = format!("axes.{name}");
            let list = values
                .as_array()
                .ok_or_else(|| self.err(&field, "expected a list of values"))?;
            if list.is_empty() {
                return Err(self.err(&field, "an axis needs at least one value"));
            }
            let mut out: Vec<AxisValue> = Vec::new();
            for (i, v) in list.iter().enumerate() {
                let value = self.value(&format!("{field}[{}]", i + 1), name, v)?;
                if out.iter().any(|o| o.label == value.label) {
                    return Err(self.err(&field, format!("value '{}' appears twice", value.label)));
                }
                out.push(value);
            }
            axes.push(Axis {
                name: name.clone(),
                values: out,
            });
        }
        Ok(axes)
    }

    /// One value of flag (or axis) `name`: a scalar, a list (repeated flag), or a table
    /// `{ label = "...", args = ["--flag", "value", ...] }` of raw run arguments.
    fn value(&self, field: &str, name: &str, v: &toml::Value) -> Result<AxisValue> {
        if let toml::Value::Table(t) = v {
            return self.raw_value(field, t);
        }
        let flag = self.flags.find(name).map_err(|why| self.err(field, why))?;
        let scalar = |v: &toml::Value| -> Result<String> {
            match v {
                toml::Value::String(s) => Ok(s.clone()),
                toml::Value::Integer(i) => Ok(i.to_string()),
                toml::Value::Float(f) => Ok(f.to_string()),
                _ => Err(self.err(field, "expected a string or a number")),
            }
        };
        match v {
            toml::Value::Boolean(b) => {
                if !flag.switch {
                    return Err(self.err(
                        field,
                        format!("--{} takes a value, not true/false", flag.long),
                    ));
                }
                let args = if *b {
                    vec![format!("--{}", flag.long)]
                } else {
                    Vec::new()
                };
                Ok(AxisValue {
                    label: b.to_string(),
                    args,
                })
            }
            toml::Value::Array(items) => {
                if !flag.repeatable {
                    return Err(self.err(
                        field,
                        format!("--{} takes one value, not a list", flag.long),
                    ));
                }
                let mut args = Vec::new();
                let mut labels = Vec::new();
                for item in items {
                    let s = scalar(item)?;
                    args.push(format!("--{}", flag.long));
                    args.push(s.clone());
                    labels.push(s);
                }
                let label = if labels.is_empty() {
                    "none".into()
                } else {
                    labels.join(",")
                };
                Ok(AxisValue { label, args })
            }
            other => {
                if flag.switch {
                    return Err(self.err(
                        field,
                        format!("--{} is a switch: write true or false", flag.long),
                    ));
                }
                let s = scalar(other)?;
                Ok(AxisValue {
                    label: s.clone(),
                    args: vec![format!("--{}", flag.long), s],
                })
            }
        }
    }

    fn raw_value(&self, field: &str, t: &toml::Table) -> Result<AxisValue> {
        if let Some(k) = t.keys().find(|k| *k != "label" && *k != "args") {
            return Err(self.err(
                &format!("{field}.{k}"),
                "unknown field (expected label and args)",
            ));
        }
        let label = t
            .get("label")
            .and_then(|v| v.as_str())
            .ok_or_else(|| self.err(&format!("{field}.label"), "expected a string"))?
            .to_string();
        let args: Vec<String> = match t.get("args") {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| self.err(&format!("{field}.args"), "expected strings"))
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(self.err(&format!("{field}.args"), "expected a list of strings")),
        };
        self.flags
            .check_raw(&args)
            .map_err(|why| self.err(&format!("{field}.args"), why))?;
        Ok(AxisValue { label, args })
    }

    /// `[[exclude]]` / `[[include]]` entries: tables of axis (or, for include, flag) = value.
    fn rules(
        &self,
        v: Option<&toml::Value>,
        what: &str,
        axes: &[Axis],
        axes_only: bool,
    ) -> Result<Vec<Assignment>> {
        let Some(v) = v else { return Ok(Vec::new()) };
        let list = v
            .as_array()
            .ok_or_else(|| self.err(what, format!("expected [[{what}]] tables")))?;
        let mut out = Vec::new();
        for (i, entry) in list.iter().enumerate() {
            let field = format!("{what}[{}]", i + 1);
            let t = entry
                .as_table()
                .ok_or_else(|| self.err(&field, "expected a table of axis = value"))?;
            if t.is_empty() {
                return Err(self.err(&field, "empty rule"));
            }
            let mut rule = Vec::new();
            for (key, value) in t {
                let at = format!("{field}.{key}");
                let axis = axes.iter().find(|a| &a.name == key);
                let known = axis.and_then(|a| {
                    let label = label_of(value)?;
                    a.values.iter().find(|v| v.label == label).cloned()
                });
                let value = match (axis, known) {
                    (_, Some(v)) => v,
                    (Some(a), None) if axes_only => {
                        let labels: Vec<&str> = a.values.iter().map(|v| v.label.as_str()).collect();
                        return Err(self.err(
                            &at,
                            format!("not a value of axis {key} (values: {})", labels.join(", ")),
                        ));
                    }
                    (None, None) if axes_only => {
                        let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
                        return Err(self.err(
                            &at,
                            format!("not an axis of this plan (axes: {})", names.join(", ")),
                        ));
                    }
                    _ => self.value(&at, key, value)?,
                };
                rule.push((key.clone(), value));
            }
            out.push(rule);
        }
        Ok(out)
    }
}

/// The label a scalar or list value would get (tables carry their own).
fn label_of(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Array(items) if items.is_empty() => Some("none".into()),
        toml::Value::Array(items) => items
            .iter()
            .map(label_of)
            .collect::<Option<Vec<_>>>()
            .map(|l| l.join(",")),
        toml::Value::Table(t) => t.get("label").and_then(|l| l.as_str()).map(str::to_string),
        _ => None,
    }
}
