//! The device side of the results server and its wire format: what a submission is
//! ([`submission`]), how the server's URLs read ([`url`]), the HTTP client ([`client`]), sending stored results (`pocketbench submit`, [`submit`]) and the
//! agent that takes study cells from the server, runs them and submits their results
//! (`pocketbench agent`, [`agent`]); publishing and fetching shared app traces ([`traces`]). None of it needs the server's own code, so device builds
//! carry it without the server.

pub mod agent;
pub mod client;
pub mod result_schema;
pub mod submission;
pub mod submit;
#[cfg(feature = "server")]
pub mod tls;
pub mod trace_check;
pub mod traces;
pub mod url;
