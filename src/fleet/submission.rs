//! What `submit` sends and the server accepts: one result with the identity of the device that
//! measured it. The same type is built by the client and parsed (and checked) by the server, so
//! the two cannot drift; [`super::result_schema::parse`] is the server's whole schema check
//! and has a fuzz target.
//!
//! ```json
//! {"schema": 1, "kind": "storage",
//!  "device": {"model": "Pixel 7", "manufacturer": "Google", "soc": "Google Tensor G2",
//!             "os": "Android 14 (SDK 34)", "kernel": "5.10.157", "core_layout": "…",
//!             "abi": "arm64-v8a", "cpus": 8,
//!             "storage": {"disk": "sda", "disk_model": "KLUDG4UHDC-B0E1",
//!                         "file_system": "f2fs", "mount_options": "rw,lazytime,…"}},
//!  "result": { …the stored result, as `results show ID --json` prints it… }}
//! ```

use crate::device::probe::DeviceInfo;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The submission format's version.
pub const SCHEMA: u32 = 1;
/// The longest text of one device field, in bytes.
pub const MAX_FIELD_BYTES: usize = 256;
/// The result kinds a server accepts.
pub const KINDS: [&str; 5] = ["run", "storage", "flashbench", "durability", "models"];

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    #[serde(default)]
    pub disk: String,
    #[serde(default)]
    pub disk_model: String,
    #[serde(default)]
    pub file_system: String,
    #[serde(default)]
    pub mount_options: String,
}

/// The device a result was measured on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// The device model results are grouped and ranked by (required).
    pub model: String,
    #[serde(default)]
    pub manufacturer: String,
    #[serde(default)]
    pub soc: String,
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub kernel: String,
    #[serde(default)]
    pub core_layout: String,
    #[serde(default)]
    pub abi: String,
    #[serde(default)]
    pub cpus: Option<u32>,
    #[serde(default)]
    pub storage: Storage,
}

impl Device {
    /// From what the device probe found, every field cut to [`MAX_FIELD_BYTES`] (a long
    /// mount option list must not make the server refuse the result); a device with no model
    /// name is named by its SoC or architecture so that it still groups with its kind.
    pub fn from_info(i: &DeviceInfo) -> Device {
        let f = |s: &str| crate::limits::cut_bytes(s, MAX_FIELD_BYTES).to_string();
        let model = [&i.model, &i.soc, &i.abi]
            .into_iter()
            .find(|s| !s.is_empty())
            .map_or_else(|| "unknown".into(), |m| f(m));
        Device {
            model,
            manufacturer: f(&i.manufacturer),
            soc: f(&i.soc),
            os: f(&i.os),
            kernel: f(&i.kernel),
            core_layout: f(&i.core_layout),
            abi: f(&i.abi),
            cpus: i.cpus,
            storage: Storage {
                disk: f(&i.storage.disk),
                disk_model: f(&i.storage.disk_model),
                file_system: f(&i.storage.file_system),
                mount_options: f(&i.storage.mount_options),
            },
        }
    }

    fn fields(&self) -> [(&'static str, &str); 11] {
        [
            ("device.model", &self.model),
            ("device.manufacturer", &self.manufacturer),
            ("device.soc", &self.soc),
            ("device.os", &self.os),
            ("device.kernel", &self.kernel),
            ("device.core_layout", &self.core_layout),
            ("device.abi", &self.abi),
            ("device.storage.disk", &self.storage.disk),
            ("device.storage.disk_model", &self.storage.disk_model),
            ("device.storage.file_system", &self.storage.file_system),
            ("device.storage.mount_options", &self.storage.mount_options),
        ]
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    pub schema: u32,
    pub kind: String,
    pub device: Device,
    /// The full result (summary statistics, histogram percentiles, configuration).
    pub result: serde_json::Value,
}

/// Why a submission was refused: the field (a JSON path) and what was wrong.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Refusal {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

pub fn refuse(field: &str, message: impl Into<String>) -> Refusal {
    Refusal {
        field: field.to_string(),
        message: message.into(),
    }
}

/// Parse a JSON body into `T`; a refusal names the field at fault (its JSON path), or `body`
/// when the JSON itself is malformed or cut short.
pub fn from_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Refusal> {
    from_json_at(body, "body")
}

/// [`from_json`] of a part of a body found at `at` (a JSON path): the field named is below it,
/// or `at` itself when the part is malformed as a whole.
pub fn from_json_at<T: serde::de::DeserializeOwned>(body: &[u8], at: &str) -> Result<T, Refusal> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path.starts_with('?') {
            at.to_string()
        } else if at == "body" {
            path
        } else {
            format!("{at}.{path}")
        };
        refuse(&field, crate::limits::one_line(&e.into_inner().to_string()))
    })
}

/// The schema version and the kind.
pub fn check_kind(s: &Submission) -> Result<(), Refusal> {
    if s.schema != SCHEMA {
        return Err(refuse(
            "schema",
            format!(
                "version {} is not supported (this server reads {SCHEMA})",
                s.schema
            ),
        ));
    }
    if !KINDS.contains(&s.kind.as_str()) {
        return Err(refuse(
            "kind",
            format!(
                "{} is not a result kind (expected one of {})",
                crate::limits::escape(&s.kind),
                KINDS.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The checks beyond types: schema version, known kind, bounded non-empty model, bounded
/// fields, a result that is an object carrying its tool version.
pub fn check(s: &Submission) -> Result<(), Refusal> {
    check_kind(s)?;
    if s.device.model.trim().is_empty() {
        return Err(refuse("device.model", "must not be empty"));
    }
    for (field, value) in s.device.fields() {
        if value.len() > MAX_FIELD_BYTES {
            return Err(refuse(
                field,
                format!("{} bytes is longer than {MAX_FIELD_BYTES}", value.len()),
            ));
        }
        no_nul(field, value)?;
    }
    let Some(obj) = s.result.as_object() else {
        return Err(refuse("result", "expected a JSON object (a stored result)"));
    };
    match obj.get("created_at") {
        None => {}
        Some(serde_json::Value::String(v)) => no_nul("result.created_at", v)?,
        Some(_) => return Err(refuse("result.created_at", "expected a string")),
    }
    match obj.get("tool_version") {
        Some(serde_json::Value::String(v)) if v.starts_with("pocketbench ") => {
            no_nul("result.tool_version", v)
        }
        Some(_) => Err(refuse(
            "result.tool_version",
            "expected \"pocketbench VERSION\"",
        )),
        None => Err(refuse("result.tool_version", "missing")),
    }
}

/// Text the server keeps in a column of its own must hold no NUL character: PostgreSQL's text
/// cannot, and SQLite is held to the same rule so that both answer alike (other characters,
/// any Unicode, are kept as sent).
pub fn no_nul(field: &str, value: &str) -> Result<(), Refusal> {
    if value.contains('\0') {
        return Err(refuse(field, "must not contain a NUL character (\\u0000)"));
    }
    Ok(())
}

/// The submission's content hash: SHA-256 of its kind and its result written with object keys
/// sorted (so key order, whitespace and the device probe's changing fields such as free space
/// do not matter), hex. Re-submitting a result finds the same hash.
pub fn content_hash(kind: &str, result: &serde_json::Value) -> String {
    let mut text = String::new();
    canonical(result, &mut text);
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    h.update(b"\n");
    h.update(text.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn canonical(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&m[k], out);
            }
            out.push('}');
        }
        serde_json::Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    //! Probed fields are cut to their bound; the hash ignores key order.
    use super::*;

    #[test]
    fn probed_fields_are_cut_to_the_bound_at_a_character() {
        // 255 ASCII bytes then "é" (2 bytes): 257 bytes, cut before the "é" to 255.
        let mut i = DeviceInfo::default();
        i.storage.mount_options = format!("{}é", "o".repeat(255));
        i.abi = "arm64-v8a".into();
        let d = Device::from_info(&i);
        assert_eq!(d.storage.mount_options.len(), 255);
        assert_eq!(d.model, "arm64-v8a");
        assert!(check(&Submission {
            schema: SCHEMA,
            kind: "run".into(),
            device: d,
            result: serde_json::json!({"tool_version": "pocketbench 0.1.0"}),
        })
        .is_ok());
    }

    #[test]
    fn the_hash_ignores_key_order_and_whitespace() {
        let a: serde_json::Value =
            serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":"s"}}"#).unwrap();
        let b: serde_json::Value =
            serde_json::from_str(r#"{ "a": {"x": "s", "y": [1, 2]}, "b": 1 }"#).unwrap();
        assert_eq!(content_hash("run", &a), content_hash("run", &b));
        assert_ne!(content_hash("run", &a), content_hash("storage", &a));
        assert_eq!(content_hash("run", &a).len(), 64);
    }
}
