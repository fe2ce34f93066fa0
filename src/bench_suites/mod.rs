//! Self-contained benchmark suites that run below or beside the workload replayer:
//! [`flashbench`] (unitary SQL requests and the NAND flash work they cause, after the flash
//! study) and [`storage`] (AndroBench/Mobibench-style file I/O and SQLite transactions).
//! Shared here: grid parsing and random record text.

pub mod flashbench;
pub mod storage;

use crate::error::{Error, Result};
use crate::limits::MAX_GRID_VALUES;
use crate::output::units::parse_size;
use crate::results::{store::Store, suites};
use crate::workload::rng::Rng;

/// The terminal rendering of stored suite run `id` of kind `kind` (`storage`, `flashbench`,
/// `durability`).
pub fn render_stored(store: &mut Store, id: i64, kind: &str) -> Result<String> {
    let (id, v) = suites::load(store, kind, Some(id))?;
    render_value(kind, id, v).map_err(|e| e.context(format!("results store: {kind} run {id}")))
}

/// The terminal rendering of a suite run given as its stored JSON (`id` is shown as its
/// number); a result of another kind, or JSON that is not that kind's run, is an error.
pub fn render_value(kind: &str, id: i64, v: serde_json::Value) -> Result<String> {
    fn typed<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T> {
        serde_json::from_value(v).map_err(|e| Error::failed(e.to_string()))
    }
    match kind {
        "storage" => {
            let mut r: storage::StorageRun = typed(v)?;
            r.id = id;
            Ok(storage::report::render(&r))
        }
        "flashbench" => {
            let mut r: flashbench::FlashbenchRun = typed(v)?;
            r.id = id;
            Ok(flashbench::report::render(&r))
        }
        crate::durability::SUITE => {
            let mut r: crate::durability::DurabilityRun = typed(v)?;
            r.id = id;
            Ok(crate::durability::report::render(&r))
        }
        other => Err(Error::failed(format!(
            "result {id} is of an unknown kind '{}'",
            crate::limits::escape(other)
        ))),
    }
}

/// Parse `A..B:STEP` (inclusive) or a comma list `A,B,C` of positive integers for `flag`.
pub fn parse_grid(text: &str, flag: &str) -> Result<Vec<u64>> {
    let bad = |why: &str| Error::input(format!("{flag} {text}: {why}"));
    let too_many = || {
        bad(&format!(
            "more than {MAX_GRID_VALUES} values, the limit (see docs/limits.md)"
        ))
    };
    let num = |s: &str| {
        parse_size(s.trim(), flag)
            .map_err(|_| bad("expected a positive integer (K/M suffixes allowed)"))
    };
    let values: Vec<u64> = if let Some((range, step)) = text.split_once(':') {
        let (a, b) = range
            .split_once("..")
            .ok_or_else(|| bad("expected A..B:STEP or a comma list"))?;
        let (a, b, step) = (num(a)?, num(b)?, num(step)?);
        if a > b {
            return Err(bad("range start is above its end"));
        }
        // Counted before anything is expanded (a step is positive: parse_size refuses 0).
        if (b - a) / step >= MAX_GRID_VALUES {
            return Err(too_many());
        }
        (a..=b).step_by(step as usize).collect()
    } else {
        text.split(',').map(num).collect::<Result<_>>()?
    };
    if values.is_empty() || values.contains(&0) {
        return Err(bad("values must be positive"));
    }
    if values.len() as u64 > MAX_GRID_VALUES {
        return Err(too_many());
    }
    Ok(values)
}

/// `len` random alphanumeric bytes.
pub fn random_text(rng: &mut Rng, len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_and_sizes() {
        assert_eq!(
            parse_grid("100..500:100", "--c").unwrap(),
            vec![100, 200, 300, 400, 500]
        );
        assert_eq!(parse_grid("150,300", "--s").unwrap(), vec![150, 300]);
        assert_eq!(parse_grid("4K,1M", "--s").unwrap(), vec![4096, 1 << 20]);
        let e = parse_grid("5..1:1", "--counts").unwrap_err().to_string();
        assert!(e.starts_with("--counts 5..1:1:"), "{e}");
        assert!(parse_grid("1,x", "--s").is_err());
        assert!(parse_grid("0", "--s").is_err());
    }
}
