//! Each engine's plan for a test or for creating its database, in words: the cause a finding
//! gives where it does not hold.

use crate::models::query::Test;

/// An engine's plan for `test` (or a phase: `None` for create).
pub fn plan(engine: &str, test: Option<Test>) -> &'static str {
    use Test::*;
    match (engine, test) {
        ("h2", None) => "in a fresh JVM: H2's classes loaded, a file and two CREATE TABLEs",
        ("sqlite-jdbc", None) => {
            "in a fresh JVM: sqlite-jdbc's classes and SQLite's native library loaded, a file and two CREATE TABLEs"
        }
        ("sqlite" | "berkeleydb-sql", None) => "a file and two CREATE TABLEs",
        ("sqlite" | "h2" | "sqlite-jdbc" | "berkeleydb-sql", Some(LookupId)) => {
            "primary-key B-tree search"
        }
        ("sqlite" | "h2" | "sqlite-jdbc" | "berkeleydb-sql", Some(GroupBuyer)) => {
            "GROUP BY over a full table scan (buyer not indexed)"
        }
        ("sqlite" | "h2" | "sqlite-jdbc" | "berkeleydb-sql", Some(_)) => {
            "the test's SQL, prepared once"
        }
        ("nitrite", None) => {
            "in a fresh JVM: Nitrite's and MVStore's classes loaded, a file, four indexes"
        }
        ("nitrite", Some(LookupId)) => "find on the unique index on id",
        ("nitrite", Some(GroupAge | GroupBuyer)) => {
            "every document read through find() and grouped in the app"
        }
        ("nitrite", Some(JoinAge)) => "buyers by the age index, then find(buyer in ids)",
        ("nitrite", Some(_)) => "find with a filter",
        ("objectbox", None) => {
            "in a fresh JVM: the native core unpacked and loaded (JNI), a store directory opened"
        }
        ("objectbox", Some(LookupId)) => "box.get(id)",
        ("objectbox", Some(GroupAge)) => "a property query of every age, counted in the app",
        ("objectbox", Some(GroupBuyer)) => "every sale read (getAll) and summed in the app",
        ("objectbox", Some(JoinAge)) => "sales linked to buyers by age, names through ToOne",
        ("objectbox", Some(_)) => "a query-builder query, re-run with new parameters",
        ("polodb", None) => "a database file",
        ("polodb", Some(LookupId)) => "find on _id",
        ("polodb", Some(_)) => "find with a filter, grouping and joins in the app",
        ("native_db", None) => "a redb file and the models",
        ("native_db", Some(LookupId)) => "a primary-key get",
        ("native_db", Some(_)) => "a primary scan filtered, grouped or joined in the app",
        (_, _) => "",
    }
}
