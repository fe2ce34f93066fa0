//! The two ways a command can fail, and the exit status each one maps to.
//!
//! * [`Error::Input`] — the user asked for something we cannot do (unknown workload, malformed
//!   file, bad flag value, unwritable path). Exit status 2, nothing written to the results store.
//! * [`Error::Failed`] — the input was fine but the run itself failed (engine error, I/O error,
//!   the replay process died). Exit status 1.

use std::fmt;

/// A failure, with a single-line message that names the file, field or flag involved.
#[derive(Debug)]
pub enum Error {
    Input(String),
    Failed(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }

    pub fn failed(msg: impl Into<String>) -> Self {
        Error::Failed(msg.into())
    }

    /// `what` (a command, or a flag's value) needs the cargo feature `feature`, which gives
    /// `gives` and which this build leaves out (the default build leaves out what `full` adds;
    /// device builds leave out every feature): refused as bad input before any work, saying
    /// how to build it in and pointing device users to the host, where it runs.
    pub fn not_built(what: impl fmt::Display, feature: &str, gives: &str) -> Self {
        Error::Input(format!(
            "{what}: this build has no {gives} (built without the `{feature}` feature; `cargo build --release --features {feature}` adds it; on a device, run it on the host)"
        ))
    }

    /// Process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::Failed(_) => 1,
        }
    }

    /// Prefix the message with context (a file name, a phase), keeping the kind.
    pub fn context(self, what: impl fmt::Display) -> Self {
        match self {
            Error::Input(m) => Error::Input(format!("{what}: {m}")),
            Error::Failed(m) => Error::Failed(format!("{what}: {m}")),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(m) | Error::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// Attach context to any displayable error, choosing its kind.
pub trait ResultExt<T> {
    /// A bad-input error mentioning `what` (a file, flag or field).
    fn input_err(self, what: impl fmt::Display) -> Result<T>;
    /// A run failure mentioning `what`.
    fn run_err(self, what: impl fmt::Display) -> Result<T>;
}

impl<T, E: fmt::Display> ResultExt<T> for std::result::Result<T, E> {
    fn input_err(self, what: impl fmt::Display) -> Result<T> {
        self.map_err(|e| Error::Input(format!("{what}: {e}")))
    }

    fn run_err(self, what: impl fmt::Display) -> Result<T> {
        self.map_err(|e| Error::Failed(format!("{what}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn a_command_left_out_of_a_build_is_bad_input_pointing_to_the_host() {
        let e = Error::not_built("trace import", "import", "log front ends");
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.to_string(),
            "trace import: this build has no log front ends (built without the `import` feature; `cargo build --release --features import` adds it; on a device, run it on the host)"
        );
    }
}
