//! Engine options (`-o key=value`): each engine declares its options with defaults and a
//! validator; unknown options and bad values are rejected with a message naming the engine and
//! the option, before anything runs.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// How an option's value is checked.
#[derive(Clone, Copy, Debug)]
pub enum OptionKind {
    /// One of a fixed set of words (case-insensitive).
    OneOf(&'static [&'static str]),
    /// A signed integer within bounds.
    Integer { min: i64, max: i64 },
    /// A power of two within bounds (page sizes).
    PowerOfTwo { min: i64, max: i64 },
    /// Bytes of memory or address space (a map size, a cache): within bounds, and refused
    /// where this build's address space (`usize`, 32 bits on armv7) cannot hold them.
    Bytes { min: i64, max: i64 },
}

/// One option an engine accepts.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    /// Default shown by `pocketbench engines`; empty means "engine default, not set".
    pub default: &'static str,
    pub help: &'static str,
    pub kind: OptionKind,
}

impl OptionSpec {
    fn check(&self, engine: &str, value: &str) -> Result<String> {
        let bad =
            |why: String| Error::input(format!("-o {}={value}: engine {engine}: {why}", self.name));
        match self.kind {
            OptionKind::OneOf(words) => words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(value))
                .map(|w| w.to_string())
                .ok_or_else(|| bad(format!("expected one of {}", words.join(", ")))),
            OptionKind::Integer { min, max } => match value.parse::<i64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(v.to_string()),
                Ok(_) => Err(bad(format!("must be between {min} and {max}"))),
                Err(_) => Err(bad("expected an integer".into())),
            },
            OptionKind::Bytes { min, max } => match value.parse::<i64>() {
                Ok(v) if (min..=max).contains(&v) => {
                    crate::limits::to_usize(v as u64, &format!("-o {}", self.name))?;
                    Ok(v.to_string())
                }
                Ok(_) => Err(bad(format!("must be between {min} and {max} bytes"))),
                Err(_) => Err(bad("expected an integer (bytes)".into())),
            },
            OptionKind::PowerOfTwo { min, max } => match value.parse::<i64>() {
                Ok(v) if (min..=max).contains(&v) && v.count_ones() == 1 => Ok(v.to_string()),
                _ => Err(bad(format!(
                    "must be a power of two between {min} and {max}"
                ))),
            },
        }
    }
}

/// Validated options: every option the user set, normalised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions {
    pub values: BTreeMap<String, String>,
}

impl EngineOptions {
    pub fn validate(engine: &str, specs: &[OptionSpec], raw: &[(String, String)]) -> Result<Self> {
        let mut values = BTreeMap::new();
        for (key, value) in raw {
            let spec = specs
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(key))
                .ok_or_else(|| {
                    let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                    let known = if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    };
                    Error::input(format!(
                        "-o {key}: engine {engine} has no option '{key}' (options: {known})"
                    ))
                })?;
            values.insert(spec.name.to_string(), spec.check(engine, value)?);
        }
        Ok(EngineOptions { values })
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
}

/// Parse one `-o key=value` argument.
pub fn parse_pair(arg: &str) -> Result<(String, String)> {
    match arg.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(Error::input(format!("-o {arg}: expected key=value"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        OptionSpec {
            name: "mode",
            default: "a",
            help: "",
            kind: OptionKind::OneOf(&["a", "b"]),
        },
        OptionSpec {
            name: "n",
            default: "1",
            help: "",
            kind: OptionKind::Integer { min: 0, max: 10 },
        },
        OptionSpec {
            name: "p",
            default: "1024",
            help: "",
            kind: OptionKind::PowerOfTwo {
                min: 512,
                max: 4096,
            },
        },
    ];

    fn raw(k: &str, v: &str) -> Vec<(String, String)> {
        vec![(k.to_string(), v.to_string())]
    }

    #[test]
    fn accepts_valid_and_names_bad_options() {
        let ok = EngineOptions::validate("x", SPECS, &raw("MODE", "B")).unwrap();
        assert_eq!(ok.get("mode"), Some("b"));
        let e = EngineOptions::validate("x", SPECS, &raw("nope", "1"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("engine x has no option 'nope'"), "{e}");
        let e = EngineOptions::validate("x", SPECS, &raw("n", "11"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("between 0 and 10"), "{e}");
        let e = EngineOptions::validate("x", SPECS, &raw("p", "1000"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("power of two"), "{e}");
        assert!(EngineOptions::validate("x", SPECS, &raw("p", "1024")).is_ok());
        assert!(parse_pair("novalue").is_err());
        assert_eq!(parse_pair("a=b").unwrap(), ("a".into(), "b".into()));
    }
}
