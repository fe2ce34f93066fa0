//! The study's six tests, the ten parameterised executions of each, and their answers. An
//! answer is the result set as rows of integers and text, sorted, so every engine's answer to
//! the same execution is comparable by one checksum whatever order its plan produced rows in.
//! [`reference`] computes each answer straight from the generated rows: the tests compare
//! every engine with it.

use super::data::{DataSet, XorShift, MAX_AGE, MIN_AGE, NAMES};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Executions of each test.
pub const EXECUTIONS: usize = 10;
/// Test 3's age ranges span this many years; test 6's span [`JOIN_YEARS`].
pub const RANGE_YEARS: u32 = 10;
pub const JOIN_YEARS: u32 = 5;

/// The six tests, numbered as in the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    /// Test 1: a person by the indexed `id`.
    LookupId,
    /// Test 2: people by the non-indexed `name`.
    LookupName,
    /// Test 3: people whose `age` lies in a range.
    AgeRange,
    /// Test 4: people counted per `age`.
    GroupAge,
    /// Test 5: the sum of `price` per `buyer` over all transactions.
    GroupBuyer,
    /// Test 6: transactions joined with their buyer, buyers in an age range.
    JoinAge,
}

impl Test {
    pub const ALL: [Test; 6] = [
        Test::LookupId,
        Test::LookupName,
        Test::AgeRange,
        Test::GroupAge,
        Test::GroupBuyer,
        Test::JoinAge,
    ];

    /// 1 to 6.
    pub fn number(self) -> usize {
        Test::ALL.iter().position(|t| *t == self).unwrap_or(0) + 1
    }

    pub fn name(self) -> &'static str {
        match self {
            Test::LookupId => "lookup-id",
            Test::LookupName => "lookup-name",
            Test::AgeRange => "age-range",
            Test::GroupAge => "group-age",
            Test::GroupBuyer => "group-buyer",
            Test::JoinAge => "join-age",
        }
    }

    pub fn parse(text: &str) -> Option<Test> {
        Test::ALL
            .into_iter()
            .find(|t| t.name() == text || t.number().to_string() == text)
    }

    /// The test in SQL, as the relational engine runs it (`?` the execution's parameters).
    pub fn sql(self) -> &'static str {
        match self {
            Test::LookupId => "SELECT id, name, age, gender, color FROM people WHERE id = ?1",
            Test::LookupName => "SELECT id, name, age, gender, color FROM people WHERE name = ?1",
            Test::AgeRange => "SELECT id, name, age FROM people WHERE age BETWEEN ?1 AND ?2",
            Test::GroupAge => "SELECT age, count(*) FROM people GROUP BY age",
            Test::GroupBuyer => "SELECT buyer, sum(price) FROM transactions GROUP BY buyer",
            Test::JoinAge => {
                "SELECT t.id, t.price, p.id, p.name FROM transactions t JOIN people p ON p.id = t.buyer WHERE p.age BETWEEN ?1 AND ?2"
            }
        }
    }
}

/// One execution of a test, with its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    LookupId(u32),
    LookupName(String),
    /// Inclusive age bounds.
    AgeRange(u32, u32),
    GroupAge,
    GroupBuyer,
    /// Inclusive age bounds of the buyers.
    JoinAge(u32, u32),
}

/// The [`EXECUTIONS`] executions of `test` over `tuples` people, drawn from `seed` (each test
/// from its own stream, so choosing tests does not change the others' parameters).
pub fn executions(test: Test, seed: u64, tuples: u32) -> Vec<Query> {
    let mut rng =
        XorShift::new(seed ^ (0x5851_F42D_4C95_7F2D_u64.wrapping_mul(test.number() as u64)));
    (0..EXECUTIONS)
        .map(|_| match test {
            Test::LookupId => Query::LookupId(rng.between(1, tuples.max(1))),
            Test::LookupName => {
                Query::LookupName(NAMES[rng.below(NAMES.len() as u64) as usize].into())
            }
            Test::AgeRange => {
                let lo = rng.between(MIN_AGE, MAX_AGE + 1 - RANGE_YEARS);
                Query::AgeRange(lo, lo + RANGE_YEARS - 1)
            }
            Test::GroupAge => Query::GroupAge,
            Test::GroupBuyer => Query::GroupBuyer,
            Test::JoinAge => {
                let lo = rng.between(MIN_AGE, MAX_AGE + 1 - JOIN_YEARS);
                Query::JoinAge(lo, lo + JOIN_YEARS - 1)
            }
        })
        .collect()
}

/// One value of a result row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    Int(i64),
    Text(String),
}

impl From<u32> for Value {
    fn from(v: u32) -> Self {
        Value::Int(i64::from(v))
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(v)
    }
}

/// A result set in canonical form: rows sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub rows: Vec<Vec<Value>>,
}

impl Answer {
    pub fn new(mut rows: Vec<Vec<Value>>) -> Answer {
        rows.sort_unstable();
        Answer { rows }
    }

    /// 64-bit FNV-1a over the rows' text (values joined by `|`, rows ended by `\n`), as 16
    /// hex digits.
    pub fn checksum(&self) -> String {
        use crate::workload::keys::{FNV_OFFSET_BASIS_64, FNV_PRIME_64};
        let mut h = FNV_OFFSET_BASIS_64;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(FNV_PRIME_64);
            }
        };
        for row in &self.rows {
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    eat(b"|");
                }
                match v {
                    Value::Int(n) => eat(n.to_string().as_bytes()),
                    Value::Text(s) => eat(s.as_bytes()),
                }
            }
            eat(b"\n");
        }
        format!("{h:016x}")
    }
}

/// The answer computed straight from the generated rows.
pub fn reference(data: &DataSet, q: &Query) -> Answer {
    let person_row = |p: &super::data::Person| {
        vec![
            p.id.into(),
            p.name.as_str().into(),
            p.age.into(),
            p.gender.as_str().into(),
            p.color.as_str().into(),
        ]
    };
    let rows = match q {
        Query::LookupId(id) => data
            .people
            .iter()
            .filter(|p| p.id == *id)
            .map(person_row)
            .collect(),
        Query::LookupName(name) => data
            .people
            .iter()
            .filter(|p| p.name == *name)
            .map(person_row)
            .collect(),
        Query::AgeRange(lo, hi) => data
            .people
            .iter()
            .filter(|p| (*lo..=*hi).contains(&p.age))
            .map(|p| vec![p.id.into(), p.name.as_str().into(), p.age.into()])
            .collect(),
        Query::GroupAge => {
            let mut count: BTreeMap<u32, i64> = BTreeMap::new();
            for p in &data.people {
                *count.entry(p.age).or_default() += 1;
            }
            count
                .into_iter()
                .map(|(a, n)| vec![a.into(), n.into()])
                .collect()
        }
        Query::GroupBuyer => {
            let mut sum: BTreeMap<u32, i64> = BTreeMap::new();
            for t in &data.transactions {
                *sum.entry(t.buyer).or_default() += i64::from(t.price);
            }
            sum.into_iter()
                .map(|(b, s)| vec![b.into(), s.into()])
                .collect()
        }
        Query::JoinAge(lo, hi) => {
            let buyers: HashMap<u32, &str> = data
                .people
                .iter()
                .filter(|p| (*lo..=*hi).contains(&p.age))
                .map(|p| (p.id, p.name.as_str()))
                .collect();
            data.transactions
                .iter()
                .filter_map(|t| {
                    let name = buyers.get(&t.buyer)?;
                    Some(vec![
                        t.id.into(),
                        t.price.into(),
                        t.buyer.into(),
                        (*name).into(),
                    ])
                })
                .collect()
        }
    };
    Answer::new(rows)
}
