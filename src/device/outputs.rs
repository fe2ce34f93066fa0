//! Files a device command writes (`advise -o advice.sql`, `trace import -o app.pbt`): the
//! command writes them in the job's `outputs/` on the device, and they come home to the local
//! path named on the command line when the job is collected, before the job is removed. The
//! local paths are kept in the job's `outputs.tsv` manifest (one `NAME<TAB>LOCAL PATH` line per
//! file, absolute paths), so a later `device pull`, from any folder, puts them in the same place.

use super::sh_quote;
use super::transport::{self, Transport};
use crate::error::{Error, Result, ResultExt};
use crate::limits::escape;
use std::path::{Path, PathBuf};

/// The manifest's name in the job directory.
pub const MANIFEST: &str = "outputs.tsv";
/// Output files one job brings home at most (docs/limits.md).
pub const MAX_OUTPUTS: usize = 16;
/// The manifest's size at most (docs/limits.md).
pub const MAX_MANIFEST_BYTES: u64 = 64 << 10;

/// One file the job writes: its name in the job's `outputs/`, and where it goes here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub name: String,
    pub local: PathBuf,
}

/// The device's arguments with each output file (the value of one of `flags`, e.g. `-o`,
/// `--output`, as `-o FILE` or `--output=FILE`) replaced by its path in `job_dir/outputs/`,
/// and the outputs. Every local path is checked as `-o` checks it (its folder exists and
/// takes a new file) before anything runs; `-` (standard output) stays, since the command's
/// output streams back anyway, as does a local FIFO or device.
pub fn rewrite(
    args: &[String],
    flags: &[String],
    job_dir: &str,
) -> Result<(Vec<String>, Vec<Output>)> {
    let mut out = Vec::with_capacity(args.len());
    let mut outputs = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let (flag, value, joined) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") && flags.iter().any(|x| x == f) => (f, v, true),
            _ if flags.iter().any(|x| x == a) && i + 1 < args.len() => {
                (a.as_str(), args[i + 1].as_str(), false)
            }
            _ => {
                out.push(a.clone());
                i += 1;
                continue;
            }
        };
        i += if joined { 1 } else { 2 };
        let keep = |out: &mut Vec<String>| {
            if joined {
                out.push(a.clone());
            } else {
                out.extend([flag.to_string(), value.to_string()]);
            }
        };
        let local = Path::new(value);
        if !matches!(
            crate::output::target::check(local, flag)?,
            crate::output::target::Target::File(_)
        ) {
            keep(&mut out);
            continue;
        }
        if outputs.len() == MAX_OUTPUTS {
            return Err(Error::input(format!(
                "device run: more than {MAX_OUTPUTS} output files"
            )));
        }
        let local = std::path::absolute(local).input_err(format!("{flag} {}", escape(value)))?;
        let base = plain_file_name(&local, "output");
        let name = format!("{}-{base}", outputs.len());
        let remote = format!("{job_dir}/outputs/{name}");
        if joined {
            out.push(format!("{flag}={remote}"));
        } else {
            out.extend([flag.to_string(), remote]);
        }
        outputs.push(Output { name, local });
    }
    Ok((out, outputs))
}

/// The manifest's text.
pub fn manifest(outputs: &[Output]) -> String {
    outputs
        .iter()
        .map(|o| format!("{}\t{}\n", o.name, o.local.display()))
        .collect()
}

/// Read a manifest: at most [`MAX_OUTPUTS`] lines of a plain name (letters, digits, `.-_`),
/// a tab and an absolute path; anything else is refused, naming the line.
pub fn parse_manifest(text: &str) -> Result<Vec<Output>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            Error::input(format!(
                "job outputs manifest, line {}: {why}: {}",
                n + 1,
                escape(line)
            ))
        };
        let (name, local) = line.split_once('\t').ok_or_else(|| bad("no tab"))?;
        let plain = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c));
        if !plain {
            return Err(bad("not a plain file name"));
        }
        let local = PathBuf::from(local);
        if !local.is_absolute() {
            return Err(bad("not an absolute path"));
        }
        if out.len() == MAX_OUTPUTS {
            return Err(bad(&format!("more than {MAX_OUTPUTS} outputs")));
        }
        out.push(Output {
            name: name.to_string(),
            local,
        });
    }
    Ok(out)
}

/// Bring home the outputs of the job in `job_dir` (through `staging`, a local temporary
/// folder): each regular file the command wrote is put at its local path (written beside it
/// and renamed over it); one it did not write, or a folder, is left alone. The local paths
/// written.
pub fn pull(t: &dyn Transport, job_dir: &str, staging: &Path) -> Result<Vec<PathBuf>> {
    let listing = transport::must(
        t,
        "listing the job's outputs",
        &format!(
            "cd {} && if [ -f {MANIFEST} ]; then echo manifest; for f in outputs/*; do [ -f \"$f\" ] && echo \"${{f#outputs/}}\"; done; fi; true",
            sh_quote(job_dir)
        ),
    )?;
    let mut lines = listing.lines().map(str::trim);
    if lines.next() != Some("manifest") {
        return Ok(Vec::new());
    }
    let written: Vec<&str> = lines.collect();
    let local_manifest = staging.join(MANIFEST);
    t.pull(&format!("{job_dir}/{MANIFEST}"), &local_manifest)?;
    let text =
        crate::limits::read_text(&local_manifest, "job outputs manifest", MAX_MANIFEST_BYTES)?;
    let mut done = Vec::new();
    for o in parse_manifest(&text)? {
        if !written.contains(&o.name.as_str()) {
            continue;
        }
        let dir = crate::limits::dir_of(&o.local);
        let part = tempfile::Builder::new()
            .prefix(".pocketbench-pull-")
            .tempfile_in(dir)
            .run_err(format!("writing {}", o.local.display()))?;
        t.pull(&format!("{job_dir}/outputs/{}", o.name), part.path())?;
        part.persist(&o.local)
            .run_err(format!("writing {}", o.local.display()))?;
        done.push(o.local);
    }
    Ok(done)
}

/// The file name of `p` as the device gets it (anything but letters, digits and `.-_` made
/// `_`), or `default` when it has none.
pub fn plain_file_name(p: &Path, default: &str) -> String {
    p.file_name()
        .map(|n| {
            n.to_string_lossy().replace(
                |c: char| !c.is_ascii_alphanumeric() && !".-_".contains(c),
                "_",
            )
        })
        .unwrap_or_else(|| default.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn output_files_go_to_the_job_and_their_local_paths_to_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("advice.sql");
        let b = dir.path().join("my file.json");
        let args = strings(&[
            "advise",
            "app.pbt",
            "-o",
            a.to_str().unwrap(),
            &format!("--output={}", b.display()),
            "--json",
        ]);
        let flags = strings(&["-o", "--output"]);
        let (out, outputs) = rewrite(&args, &flags, "/d/jobs/7").unwrap();
        assert_eq!(
            out,
            strings(&[
                "advise",
                "app.pbt",
                "-o",
                "/d/jobs/7/outputs/0-advice.sql",
                "--output=/d/jobs/7/outputs/1-my_file.json",
                "--json"
            ])
        );
        assert_eq!(outputs[0].local, a);
        assert_eq!(outputs[1].name, "1-my_file.json");
        let m = manifest(&outputs);
        assert_eq!(parse_manifest(&m).unwrap(), outputs);
        // Standard output stays; a missing folder is refused before anything runs.
        let (out, outputs) = rewrite(&strings(&["report", "-o", "-"]), &flags, "/d").unwrap();
        assert_eq!(out, strings(&["report", "-o", "-"]));
        assert!(outputs.is_empty());
        let missing = dir.path().join("no/such/advice.sql");
        let err = rewrite(
            &strings(&["advise", "-o", missing.to_str().unwrap()]),
            &flags,
            "/d",
        )
        .unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
    }

    #[test]
    fn a_manifest_names_plain_files_and_absolute_paths_only() {
        for bad in [
            "../x\t/tmp/a",
            "x\trelative/a",
            "no tab",
            ".hidden\t/tmp/a",
            "a/b\t/tmp/a",
        ] {
            let err = parse_manifest(bad).unwrap_err().to_string();
            assert!(err.contains("line 1"), "{bad}: {err}");
        }
        let many: String = (0..=MAX_OUTPUTS)
            .map(|i| format!("{i}\t/tmp/{i}\n"))
            .collect();
        assert!(parse_manifest(&many).is_err());
    }
}
