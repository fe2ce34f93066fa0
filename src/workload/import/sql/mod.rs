//! Reading imported SQL text without a parser: [`lexer`] tells SQLite's tokens apart,
//! [`complete`] finds where a statement printed over several lines ends,
//! [`sqltext`] reads what the conversion needs of a statement (parameters, settings, created
//! objects, transaction steps), [`words`] lists the words `--anonymize identifiers` keeps.

pub mod complete;
pub mod lexer;
pub mod sqltext;
pub mod words;
