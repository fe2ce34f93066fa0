//! Selecting runs: `key=value[,key=value...]`, every term must hold, a value may list
//! alternatives with `|` and end in `*` to match a prefix. Keys: `run` (ids, `3` or `3-7`),
//! `study` (id or name), `cell` and `repeat` (1-based, within a study), `workload`,
//! `engine`, `delay`, `pacing`, `governor` (a label, else the governor the run observed), and
//! every axis label of the stored studies.

use crate::error::{Error, Result};

/// Keys every run has, matrix or not.
pub const RUN_KEYS: &[&str] = &[
    "run", "study", "cell", "repeat", "workload", "engine", "delay", "pacing", "governor",
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// The flag or argument it came from, for messages.
    pub origin: String,
    pub terms: Vec<(String, Vec<String>)>,
}

/// What a filter looks at in one run.
pub trait Subject {
    /// Values of `key` for this run (none if the run lacks that key).
    fn values(&self, key: &str) -> Vec<String>;
    fn id(&self) -> i64;
}

impl Filter {
    /// Parse `text`; errors name `origin` (e.g. `--filter`).
    pub fn parse(text: &str, origin: &str) -> Result<Filter> {
        let mut terms = Vec::new();
        for term in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (key, value) = term.split_once('=').ok_or_else(|| {
                Error::input(format!("{origin} '{text}': term '{term}' is not key=value"))
            })?;
            let key = key.trim();
            if key.is_empty() {
                return Err(Error::input(format!(
                    "{origin} '{text}': empty key in '{term}'"
                )));
            }
            let alternatives: Vec<String> =
                value.split('|').map(|v| v.trim().to_string()).collect();
            if alternatives.iter().any(String::is_empty) {
                return Err(Error::input(format!(
                    "{origin} '{text}': empty value in '{term}'"
                )));
            }
            if key == "run" {
                for a in &alternatives {
                    parse_range(a).ok_or_else(|| {
                        Error::input(format!(
                            "{origin} '{text}': run={a}: expected a run id or a range like 3-7"
                        ))
                    })?;
                }
            }
            terms.push((key.to_string(), alternatives));
        }
        Ok(Filter {
            origin: origin.to_string(),
            terms,
        })
    }

    /// Refuse keys that no run has: `known` lists the axis names of the store.
    pub fn check_keys(&self, known: &[String]) -> Result<()> {
        for (key, _) in &self.terms {
            if !RUN_KEYS.contains(&key.as_str()) && !known.contains(key) {
                let mut all: Vec<&str> = RUN_KEYS.to_vec();
                all.extend(
                    known
                        .iter()
                        .map(String::as_str)
                        .filter(|k| !RUN_KEYS.contains(k)),
                );
                return Err(Error::input(format!(
                    "{}: unknown key '{key}' (keys: {})",
                    self.origin,
                    all.join(", ")
                )));
            }
        }
        Ok(())
    }

    pub fn matches(&self, run: &impl Subject) -> bool {
        self.terms.iter().all(|(key, alts)| {
            if key == "run" {
                return alts
                    .iter()
                    .any(|a| parse_range(a).is_some_and(|(lo, hi)| (lo..=hi).contains(&run.id())));
            }
            let values = run.values(key);
            alts.iter()
                .any(|a| values.iter().any(|v| value_matches(a, v)))
        })
    }
}

fn value_matches(pattern: &str, value: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => value.starts_with(prefix),
        None => pattern == value,
    }
}

fn parse_range(text: &str) -> Option<(i64, i64)> {
    match text.split_once('-') {
        Some((a, b)) => Some((a.trim().parse().ok()?, b.trim().parse().ok()?)),
        None => {
            let n = text.trim().parse().ok()?;
            Some((n, n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Run(i64, Vec<(&'static str, &'static str)>);
    impl Subject for Run {
        fn values(&self, key: &str) -> Vec<String> {
            self.1
                .iter()
                .filter(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
                .collect()
        }
        fn id(&self) -> i64 {
            self.0
        }
    }

    #[test]
    fn terms_alternatives_prefixes_and_ranges() {
        let r = Run(4, vec![("engine", "sqlite"), ("delay", "fixed:1ms")]);
        let f = |t: &str| Filter::parse(t, "--filter").unwrap();
        assert!(f("engine=sqlite").matches(&r));
        assert!(f("engine=null|sqlite,delay=fixed*").matches(&r));
        assert!(!f("engine=sqlite,delay=zero").matches(&r));
        assert!(f("run=3-5").matches(&r));
        assert!(!f("run=5|7").matches(&r));
        assert!(f("").matches(&r));
        assert!(!f("governor=observed").matches(&r));
    }

    #[test]
    fn bad_filters_are_named() {
        let err = |t: &str| match Filter::parse(t, "--filter") {
            Err(Error::Input(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(err("engine").contains("'engine' is not key=value"));
        assert!(err("=x").contains("empty key"));
        assert!(err("run=abc").contains("run=abc"));
        let f = Filter::parse("colour=red", "--filter").unwrap();
        let e = f.check_keys(&["governor".into()]).unwrap_err().to_string();
        assert!(
            e.contains("unknown key 'colour'") && e.contains("governor"),
            "{e}"
        );
    }
}
