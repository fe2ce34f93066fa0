//! One logcat line split into its prefix (time, pid, tid, level, tag) and its message, in each
//! layout the `android-logcat` front end reads:
//!
//! * `threadtime` (`adb logcat -v threadtime`, what bug reports hold):
//!   `05-14 10:11:12.345  1234  1256 V SQLiteStatements: msg`, also with `-v usec`
//!   (`.345678`), `-v year` (`2024-05-14 …`) and `-v uid` (a uid column before the pid);
//! * `time`: `05-14 10:11:12.345 V/SQLiteStatements( 1234): msg`;
//! * `brief`: `V/SQLiteStatements( 1234): msg` (no time, no tid);
//! * Android Studio's exports: the classic `2024-05-14 10:11:12.345 1234-1256/com.app
//!   V/SQLiteStatements: msg` and the newer column layout
//!   `2024-05-14 10:11:12.345  1234-1256  SQLiteStatements  com.app  V  msg`.
//!
//! Times become nanoseconds on a clock of the file's own: a dated line counts from
//! 1970-01-01 (UTC, as the wall clock was printed; the zone does not matter since only
//! differences are used). A year-less line (`MM-DD`) is placed in the year 2000, a leap year so
//! that Feb 29 exists, and [`Clock`] adds a year whenever the date goes back by more than half
//! a year (a log that runs over New Year), so differences stay right across it.

/// The parts of a logcat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// Nanoseconds on the file's clock (see the module doc); `None` for `brief`.
    pub t_ns: Option<u64>,
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub level: u8,
    pub tag: &'a str,
    pub msg: &'a str,
}

/// A time of day on a calendar date, before the clock turns it into nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    year: Option<i64>,
    month: u32,
    day: u32,
    ns_of_day: u64,
}

/// Turns the stamps of successive lines into nanoseconds (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Clock {
    years_added: i64,
    last_yearless: Option<u64>,
}

const NS_PER_DAY: u64 = 86_400_000_000_000;
const HALF_YEAR_NS: u64 = 183 * NS_PER_DAY;

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl Clock {
    fn ns(&mut self, s: Stamp) -> u64 {
        let at = |year: i64| {
            let days = days_from_civil(year, s.month, s.day).max(0) as u64;
            // A year far beyond any log's saturates instead of overflowing.
            days.saturating_mul(NS_PER_DAY).saturating_add(s.ns_of_day)
        };
        match s.year {
            Some(y) => at(y),
            None => {
                let base = at(2000);
                if let Some(last) = self.last_yearless {
                    if base.saturating_add(HALF_YEAR_NS) < last {
                        self.years_added += 1;
                    } else if base > last.saturating_add(HALF_YEAR_NS) && self.years_added > 0 {
                        self.years_added -= 1;
                    }
                }
                self.last_yearless = Some(base);
                at(2000 + self.years_added)
            }
        }
    }

    /// Parse `line`, turning its time (if any) into nanoseconds. `None`: no layout matches.
    pub fn parse<'a>(&mut self, line: &'a str) -> Option<Line<'a>> {
        let (stamp, rest) = match parse_stamp(line) {
            Some((s, rest)) => (Some(s), rest),
            None => (None, line),
        };
        let mut l = match stamp {
            Some(_) => after_stamp(rest)?,
            None => brief(rest)?,
        };
        l.t_ns = stamp.map(|s| self.ns(s));
        Some(l)
    }
}

impl Clock {
    /// Nanoseconds of a whole `[YYYY-]MM-DD HH:MM:SS.fff` (`dumpsys`' time column, with or
    /// without its year), on this clock; `None` if it is not one.
    pub fn stamp_ns(&mut self, s: &str) -> Option<u64> {
        let (stamp, rest) = parse_stamp(s)?;
        rest.is_empty().then(|| self.ns(stamp))
    }
}

/// Nanoseconds since 1970 of a dated `YYYY-MM-DD HH:MM:SS.ffffff` (PhoneLab's and
/// `dumpsys`' time columns); `None` if it is not one.
pub fn dated_ns(s: &str) -> Option<u64> {
    let (stamp, rest) = parse_stamp(s)?;
    (stamp.year.is_some() && rest.is_empty()).then(|| Clock::default().ns(stamp))
}

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `MM-DD HH:MM:SS.f…` followed by a space or the end (threadtime's layout), read at its fixed
/// places: what [`parse_stamp`] reads of such a line, or `None` for it to read the line.
fn threadtime_stamp(line: &str) -> Option<(Stamp, &str)> {
    let b = line.as_bytes();
    if b.len() < 16
        || b[2] != b'-'
        || b[5] != b' '
        || b[8] != b':'
        || b[11] != b':'
        || b[14] != b'.'
    {
        return None;
    }
    let two = |i: usize| {
        let (x, y) = (b[i], b[i + 1]);
        (x.is_ascii_digit() && y.is_ascii_digit())
            .then(|| u64::from(x - b'0') * 10 + u64::from(y - b'0'))
    };
    let (month, day, h, m, s) = (two(0)?, two(3)?, two(6)?, two(9)?, two(12)?);
    let digits = b[15..].iter().take_while(|c| c.is_ascii_digit()).count();
    let end = 15 + digits;
    let rest = match b.get(end) {
        None => "",
        Some(b' ') => &line[end + 1..],
        Some(_) => return None,
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || h > 23
        || m > 59
        || s > 60
        || digits == 0
        || digits > 9
    {
        return None;
    }
    let frac = b[15..end]
        .iter()
        .fold(0u64, |n, c| n * 10 + u64::from(c - b'0'));
    let ns_of_day = ((h * 60 + m) * 60 + s) * 1_000_000_000 + frac * 10u64.pow(9 - digits as u32);
    Some((
        Stamp {
            year: None,
            month: month as u32,
            day: day as u32,
            ns_of_day,
        },
        rest,
    ))
}

/// `[YYYY-]MM-DD HH:MM:SS.fff[fff]` at the start of `line`, and what follows it.
fn parse_stamp(line: &str) -> Option<(Stamp, &str)> {
    threadtime_stamp(line).or_else(|| general_stamp(line))
}

fn general_stamp(line: &str) -> Option<(Stamp, &str)> {
    let (date, rest) = line.split_once(' ')?;
    let rest = rest.trim_start_matches(' ');
    let (time, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut parts = date.split('-');
    let (a, b, c) = (parts.next()?, parts.next()?, parts.next());
    if parts.next().is_some() {
        return None;
    }
    let (year, month, day) = match c {
        None => (None, num(a)?, num(b)?),
        Some(d) if a.len() == 4 => (Some(num::<i64>(a)?), num(b)?, num(d)?),
        Some(_) => return None,
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (hms, frac) = time.split_once('.')?;
    let mut it = hms.split(':');
    let (h, m, s): (u64, u64, u64) = (num(it.next()?)?, num(it.next()?)?, num(it.next()?)?);
    if it.next().is_some() || h > 23 || m > 59 || s > 60 || frac.is_empty() || frac.len() > 9 {
        return None;
    }
    let frac_ns = num::<u64>(frac)? * 10u64.pow(9 - frac.len() as u32);
    let ns_of_day = ((h * 60 + m) * 60 + s) * 1_000_000_000 + frac_ns;
    Some((
        Stamp {
            year,
            month,
            day,
            ns_of_day,
        },
        rest,
    ))
}

fn first_word(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start_matches(' ');
    if s.is_empty() {
        return None;
    }
    // A word of a line's prefix is short: a byte loop finds its end sooner than a search.
    Some(match s.bytes().position(|c| c == b' ') {
        Some(at) => (&s[..at], s[at + 1..].trim_start_matches(' ')),
        None => (s, ""),
    })
}

/// `s` split around the first `pat` (ASCII), as `split_once` splits it: its first byte found
/// by memchr, since a pattern search is set up anew for every call (every line).
pub fn split_once_ascii<'a>(s: &'a str, pat: &str) -> Option<(&'a str, &'a str)> {
    let (b, p) = (s.as_bytes(), pat.as_bytes());
    let (&first, _) = p.split_first()?;
    let mut from = 0;
    while let Some(at) = memchr::memchr(first, &b[from..]) {
        let at = from + at;
        if b[at..].starts_with(p) {
            return Some((&s[..at], &s[at + p.len()..]));
        }
        from = at + 1;
    }
    None
}

fn level(s: &str) -> Option<u8> {
    match s.as_bytes() {
        [b @ (b'V' | b'D' | b'I' | b'W' | b'E' | b'F' | b'A' | b'S')] => Some(*b),
        _ => None,
    }
}

/// What follows a time: threadtime, time, or one of Android Studio's layouts.
fn after_stamp(rest: &str) -> Option<Line<'_>> {
    let (w1, after1) = first_word(rest)?;
    // `time`: `V/Tag( 1234): msg`.
    if w1.len() > 2 && w1.as_bytes()[1] == b'/' && level(&w1[..1]).is_some() {
        return brief(rest.trim_start_matches(' '));
    }
    // Studio: `1234-1256` or `1234-1256/com.app`.
    if let Some((pid, tid_pkg)) = w1.split_once('-') {
        let tid = tid_pkg.split('/').next().unwrap_or("");
        let (pid, tid) = (num(pid)?, num(tid)?);
        if tid_pkg.contains('/') {
            // `V/Tag: msg`
            let (lv, tag_msg) = after1.split_once('/')?;
            let (tag, msg) = tag_msg
                .split_once(": ")
                .or_else(|| tag_msg.strip_suffix(':').map(|t| (t, "")))?;
            return Some(Line {
                t_ns: None,
                pid: Some(pid),
                tid: Some(tid),
                level: level(lv)?,
                tag: tag.trim_end(),
                msg,
            });
        }
        // `Tag  com.app  V  msg`
        let (tag, after_tag) = first_word(after1)?;
        let (pkg_or_level, after_pkg) = first_word(after_tag)?;
        let (lv, msg) = match level(pkg_or_level) {
            Some(l) if level(first_word(after_pkg).map_or("", |w| w.0)).is_none() => (l, after_pkg),
            _ => {
                let (lv, msg) = first_word(after_pkg).unwrap_or(("", ""));
                (level(lv)?, msg)
            }
        };
        return Some(Line {
            t_ns: None,
            pid: Some(pid),
            tid: Some(tid),
            level: lv,
            tag,
            msg,
        });
    }
    // threadtime: `[uid] pid tid L Tag: msg`.
    let (w2, after2) = first_word(after1)?;
    let (w3, after3) = first_word(after2)?;
    let (uid_skipped, pid, tid, lv, tag_msg) = match level(w3) {
        Some(l) => (false, w1, w2, l, after3),
        None => {
            let (w4, after4) = first_word(after3)?;
            (true, w2, w3, level(w4)?, after4)
        }
    };
    let _ = uid_skipped;
    let (tag, msg) = match split_once_ascii(tag_msg, ": ") {
        Some((t, m)) => (t, m),
        None => (tag_msg.strip_suffix(':')?, ""),
    };
    Some(Line {
        t_ns: None,
        pid: Some(num(pid)?),
        tid: Some(num(tid)?),
        level: lv,
        tag: tag.trim_end(),
        msg,
    })
}

/// `V/Tag( 1234): msg` (brief, and the part of `time` after its stamp), or `V/Tag: msg`, as
/// Android Studio's classic Logcat view copies a line whose time and process columns are
/// hidden (no pid; the tag then holds no space).
fn brief(s: &str) -> Option<Line<'_>> {
    let b = s.as_bytes();
    if b.len() < 3 || b[1] != b'/' {
        return None;
    }
    let level = level(&s[..1])?;
    let rest = &s[2..];
    let with_pid = rest.find('(').and_then(|open| {
        let close = open + rest[open..].find("):")?;
        let pid = num(rest[open + 1..close].trim())?;
        Some((open, pid, &rest[close + 2..]))
    });
    let (tag, pid, msg) = match with_pid {
        Some((open, pid, msg)) => (rest[..open].trim_end(), Some(pid), msg),
        None => {
            let colon = rest.find(':')?;
            let tag = &rest[..colon];
            if tag.is_empty() || tag.contains(char::is_whitespace) {
                return None;
            }
            (tag, None, &rest[colon + 1..])
        }
    };
    Some(Line {
        t_ns: None,
        pid,
        tid: None,
        level,
        tag,
        msg: msg.strip_prefix(' ').unwrap_or(msg),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn threadtime_stamps_read_at_fixed_places_as_the_general_reading_does() {
        for line in [
            "05-14 10:11:12.345  1234  1256 V Tag: x",
            "12-31 23:59:60.123456789",
            "01-01 00:00:00.1 x",
        ] {
            assert!(threadtime_stamp(line).is_some(), "{line}");
        }
        for line in [
            "05-14 10:11:12.345  1234  1256 V Tag: x",
            "12-31 23:59:60.123456789",
            "01-01 00:00:00.1 x",
            "13-01 00:00:00.1 x",
            "05-14 24:00:00.1 x",
            "05-14 10:11:12.1234567890 x",
            "05-14 10:11:12. x",
            "05-14 10:11:12.3x y",
            "05-14 10:11:12.3\ty",
            "5-14 10:11:12.345 x",
            "2024-05-14 10:11:12.345 x",
        ] {
            if let Some(fast) = threadtime_stamp(line) {
                assert_eq!(Some(fast), general_stamp(line), "{line}");
            }
        }
    }

    #[test]
    fn every_layout_gives_the_same_parts() {
        let mut c = Clock::default();
        let tt = c
            .parse("05-14 10:11:12.345  1234  1256 V SQLiteStatements: /d/a.db: \"BEGIN\"")
            .unwrap();
        assert_eq!(
            (tt.pid, tt.tid, tt.level, tt.tag, tt.msg),
            (
                Some(1234),
                Some(1256),
                b'V',
                "SQLiteStatements",
                "/d/a.db: \"BEGIN\""
            )
        );
        let usec = c
            .parse("05-14 10:11:12.345678  1234  1256 V SQLiteStatements: x")
            .unwrap();
        assert_eq!(usec.t_ns.unwrap() - tt.t_ns.unwrap(), 678_000);
        let uid = c
            .parse("05-14 10:11:12.345 u0_a77  1234  1256 D SQLiteConnection: m")
            .unwrap();
        assert_eq!(
            (uid.pid, uid.tid, uid.tag),
            (Some(1234), Some(1256), "SQLiteConnection")
        );
        let time = c
            .parse("05-14 10:11:13.345 V/SQLiteTime( 1234): m")
            .unwrap();
        assert_eq!(time.t_ns.unwrap() - tt.t_ns.unwrap(), 1000 * MS);
        assert_eq!(
            (time.pid, time.tid, time.tag, time.msg),
            (Some(1234), None, "SQLiteTime", "m")
        );
        let brief = c.parse("V/SQLiteStatements( 1234): m").unwrap();
        assert_eq!(
            (brief.t_ns, brief.pid, brief.tag, brief.msg),
            (None, Some(1234), "SQLiteStatements", "m")
        );
        let no_pid = c.parse("V/SQLiteStatements: /d/a.db: \"BEGIN\"").unwrap();
        assert_eq!(
            (
                no_pid.t_ns,
                no_pid.pid,
                no_pid.level,
                no_pid.tag,
                no_pid.msg
            ),
            (None, None, b'V', "SQLiteStatements", "/d/a.db: \"BEGIN\"")
        );
        assert!(
            c.parse("V/a tag: m").is_none(),
            "a pid-less tag holds no space"
        );
        let studio = c
            .parse("2024-05-14 10:11:12.345 1234-1256/com.app V/SQLiteTime: a: b")
            .unwrap();
        assert_eq!(
            (studio.pid, studio.tid, studio.tag, studio.msg),
            (Some(1234), Some(1256), "SQLiteTime", "a: b")
        );
        let new = c
            .parse("2024-05-14 10:11:12.346  1234-1256  SQLiteTime              com.app                              V  a: b")
            .unwrap();
        assert_eq!((new.level, new.tag, new.msg), (b'V', "SQLiteTime", "a: b"));
        assert_eq!(new.t_ns.unwrap() - studio.t_ns.unwrap(), MS);
        assert!(c.parse("--------- beginning of main").is_none());
        assert!(c.parse("").is_none());
    }

    #[test]
    fn a_yearless_log_runs_over_new_year() {
        let mut c = Clock::default();
        let a = c
            .parse("12-31 23:59:59.500  1  2 V T: m")
            .unwrap()
            .t_ns
            .unwrap();
        let b = c
            .parse("01-01 00:00:00.250  1  2 V T: m")
            .unwrap()
            .t_ns
            .unwrap();
        assert_eq!(b - a, 750 * MS);
        let dated = |s: &str| Clock::default().parse(s).unwrap().t_ns.unwrap();
        assert_eq!(dated("1970-01-02 00:00:00.000  1  2 V T: m"), NS_PER_DAY);
    }
}
