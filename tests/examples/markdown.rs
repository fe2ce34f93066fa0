//! Reading the examples of a Markdown file as a user pastes them: the commands of its shell
//! blocks (```sh, bash, shell), the `$ ` commands of its ```console blocks with the output
//! shown under each, and the places where output is shown outside a ```console block, which
//! the runner cannot check.

use super::{Example, Shown};

/// `line` without a trailing shell comment (a `#` after white space, outside quotes).
pub fn without_comment(line: &str) -> &str {
    let (mut single, mut double, mut prev_space) = (false, false, true);
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev_space => return line[..i].trim_end(),
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line.trim_end()
}

/// The problem of output shown at `rel:n` outside a ```console block.
fn unchecked(rel: &str, n: usize) -> String {
    format!(
        "{rel}:{n}: a command's output shown outside a ```console block, where it is not checked"
    )
}

#[derive(Clone, Copy, PartialEq)]
enum Block {
    Shell,
    Console,
    /// A block without a language: commands there would never run.
    Plain,
    Other,
}

/// The words a command line in a block without a language starts with.
const COMMAND_STARTS: [&str; 6] = ["pocketbench ", "adb ", "cargo ", "sudo ", "ssh ", "$ "];

/// The examples of Markdown `text` (named `rel`), and the problems of its blocks.
pub fn examples(rel: &str, text: &str) -> (Vec<Example>, Vec<String>) {
    let mut out: Vec<Example> = Vec::new();
    let mut problems = Vec::new();
    let mut block: Option<(Block, usize)> = None;
    // A command continued by `\`: where it started and what is joined so far.
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(info) = raw.trim_start().strip_prefix("```") {
            block = match block {
                Some(_) => {
                    // The block's end closes the output of its last command.
                    if let Some(s) = out.last_mut().and_then(|e| e.shown.as_mut()) {
                        s.open = false;
                    }
                    None
                }
                None => {
                    let kind = match info.split_whitespace().next().unwrap_or("") {
                        "sh" | "bash" | "shell" => Block::Shell,
                        "console" => Block::Console,
                        "" => Block::Plain,
                        _ => Block::Other,
                    };
                    Some((kind, raw.len() - raw.trim_start().len()))
                }
            };
            continue;
        }
        let Some((kind, indent)) = block else {
            // An indented code block is never run: a session there goes unchecked.
            if raw.starts_with("    $ ") {
                problems.push(unchecked(rel, n));
            }
            continue;
        };
        // The line as it shows inside its block (a block in a list item is indented).
        let strip = raw.len() - raw.trim_start_matches(' ').len();
        let line = &raw[strip.min(indent)..];
        let command_text = match kind {
            Block::Other | Block::Plain => {
                let l = line.trim_start();
                if l.starts_with("$ ") || l.starts_with("pocketbench: error") {
                    problems.push(unchecked(rel, n));
                } else if kind == Block::Plain && COMMAND_STARTS.iter().any(|c| l.starts_with(c)) {
                    problems.push(format!(
                        "{rel}:{n}: a command in a code block without a language, which is never run: label the block ```sh (a mark skips what cannot run here)"
                    ));
                }
                continue;
            }
            Block::Shell => Some(line.trim()),
            Block::Console if pending.is_some() => Some(line.trim()),
            Block::Console => line.strip_prefix("$ ").map(str::trim),
        };
        let Some(part) = command_text else {
            // Output in a console block: it belongs to the block's last command, or to none.
            match out.last_mut() {
                Some(e) if e.shown.as_ref().is_some_and(|s| s.open) => {
                    e.shown.as_mut().unwrap().lines.push(line.to_string())
                }
                _ => out.push(Example {
                    at: format!("{rel}:{n}"),
                    command: String::new(),
                    shown: Some(Shown {
                        at: format!("{rel}:{n}"),
                        lines: vec![line.to_string()],
                        open: true,
                    }),
                }),
            }
            continue;
        };
        let (start, mut joined) = pending.take().unwrap_or((n, String::new()));
        joined.push_str(part);
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((start, format!("{head} ")));
            continue;
        }
        // A new command closes the output of the one before.
        if let Some(s) = out.last_mut().and_then(|e| e.shown.as_mut()) {
            s.open = false;
        }
        let command = without_comment(&joined).to_string();
        if !command.is_empty() {
            let shown = (kind == Block::Console).then(|| Shown {
                at: format!("{rel}:{}", n + 1),
                lines: Vec::new(),
                open: true,
            });
            out.push(Example {
                at: format!("{rel}:{start}"),
                command,
                shown,
            });
        }
    }
    for e in &mut out {
        if let Some(s) = &mut e.shown {
            s.open = false;
            while s.lines.last().is_some_and(|l| l.trim().is_empty()) {
                s.lines.pop();
            }
        }
        // A console command with nothing under it shows no output to match.
        if e.shown.as_ref().is_some_and(|s| s.lines.is_empty()) {
            e.shown = None;
        }
    }
    (out, problems)
}

#[test]
fn a_trailing_comment_is_not_part_of_the_command() {
    assert_eq!(
        without_comment("pocketbench run   # a comment"),
        "pocketbench run"
    );
    assert_eq!(
        without_comment("a '# not' \"#\" b#c"),
        "a '# not' \"#\" b#c"
    );
}

#[test]
fn console_blocks_pair_commands_with_their_output() {
    let text = "Intro.\n\n```console\n$ pocketbench a \\\n    --b   # note\nline 1\n\n$ pocketbench c\n```\n\n```sh\npocketbench d\n```\n\n  ```console\n  out first\n    indented\n  ```\n\n```text\n$ pocketbench e\n```\n";
    let (ex, problems) = examples("X.md", text);
    let got: Vec<(String, String, Vec<String>)> = ex
        .iter()
        .map(|e| {
            let s = e.shown.as_ref();
            (
                e.at.clone(),
                e.command.clone(),
                s.map(|s| s.lines.clone()).unwrap_or_default(),
            )
        })
        .collect();
    let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        [
            ("X.md:4".into(), "pocketbench a  --b".into(), v(&["line 1"])),
            ("X.md:8".into(), "pocketbench c".into(), v(&[])),
            ("X.md:12".into(), "pocketbench d".into(), v(&[])),
            ("X.md:16".into(), "".into(), v(&["out first", "  indented"])),
        ]
    );
    assert_eq!(
        problems,
        ["X.md:21: a command's output shown outside a ```console block, where it is not checked"]
    );
}

#[test]
fn a_command_in_a_block_without_a_language_is_a_problem() {
    let text = "```\npocketbench run\nstored run #1\n```\n\n```text\npocketbench run --help\n```\n\n```\nadb shell setprop a b\n```\n";
    let (ex, problems) = examples("Y.md", text);
    assert!(ex.is_empty());
    assert_eq!(
        problems,
        [
            "Y.md:2: a command in a code block without a language, which is never run: label the block ```sh (a mark skips what cannot run here)",
            "Y.md:11: a command in a code block without a language, which is never run: label the block ```sh (a mark skips what cannot run here)",
        ]
    );
}
