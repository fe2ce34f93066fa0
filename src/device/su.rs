//! Root on an Android device in the forms phones offer it: a shell that is root already
//! (`adb root` on a userdebug build), Magisk's `su -c 'CMD'`, and the `su` of AOSP userdebug
//! builds, `su 0 sh -c 'CMD'` (its first argument is the user to become, and it has no `-c`:
//! `su -c` there is "invalid uid/gid '-c'"; Magisk runs `su 0 sh -c` as a shell given `sh` as a
//! script). [`detect`] tries them in that order and says why none works.

use super::sh_quote;
use super::transport::Transport;

/// How to run a command as root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// The shell is root already.
    Shell,
    /// `su -c 'CMD'` (Magisk, SuperSU, LineageOS's su).
    Magisk,
    /// `su 0 sh -c 'CMD'` (AOSP userdebug).
    Aosp,
}

impl Root {
    /// The script that runs `cmd` (a shell command line) as root.
    pub fn wrap(self, cmd: &str) -> String {
        match self {
            Root::Shell => format!("sh -c {}", sh_quote(cmd)),
            Root::Magisk => format!("su -c {}", sh_quote(cmd)),
            Root::Aosp => format!("su 0 sh -c {}", sh_quote(cmd)),
        }
    }

    /// The form, as reports name it.
    pub fn form(self) -> &'static str {
        match self {
            Root::Shell => "root shell",
            Root::Magisk => "su -c",
            Root::Aosp => "su 0 sh -c",
        }
    }
}

/// The first way to root that works on `t`, or why none does (one line).
pub fn detect(t: &dyn Transport) -> Result<Root, String> {
    let mut said: Vec<String> = Vec::new();
    for root in [Root::Shell, Root::Magisk, Root::Aosp] {
        let out = match t.shell(&format!("{} </dev/null", root.wrap("id -u"))) {
            Ok(out) => out,
            Err(lost) => return Err(lost.0),
        };
        if out.rc == 0 && out.stdout.trim() == "0" {
            return Ok(root);
        }
        if root == Root::Shell {
            continue;
        }
        let why = out.said();
        said.push(format!("{}: {why}", root.form()));
    }
    // The same refusal from both forms (`su` missing) is said once.
    let why = match said.as_slice() {
        [a, b] if a.split_once(": ").map(|x| x.1) == b.split_once(": ").map(|x| x.1) => {
            a.split_once(": ").map_or(a.as_str(), |x| x.1).to_string()
        }
        _ => said.join("; "),
    };
    Err(format!("no root ({why})"))
}

#[cfg(test)]
mod tests {
    use super::Root;

    #[test]
    fn each_form_runs_the_command_whole_in_a_real_shell() {
        // `su` itself is not here: check what each form hands it, with `su` as a function that
        // prints its arguments one per line.
        let cmd = "cd '/data/data/x y' && cat databases/it\\'s";
        for (root, args) in [
            (Root::Magisk, vec!["-c", cmd]),
            (Root::Aosp, vec!["0", "sh", "-c", cmd]),
        ] {
            let script = format!("su() {{ printf '%s\\n' \"$@\"; }}; {}", root.wrap(cmd));
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(script)
                .output()
                .unwrap();
            let got = String::from_utf8(out.stdout).unwrap();
            assert_eq!(got.lines().collect::<Vec<_>>(), args, "{root:?}");
        }
    }
}
