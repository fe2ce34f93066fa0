//! The keyed mappings of single values: each value becomes a function of itself and the salt
//! (HMAC-SHA-256), shaped like the original. Texts and integers are mapped by keyed
//! permutations (a cycle-walking Feistel network) wherever the values of their shape can be
//! counted in 62 bits, so distinct values stay distinct: a key stays a key, a UNIQUE column
//! stays unique. Longer texts, reals and blobs are mapped by a keyed hash, where two values
//! meet only as often as two random strings of their length do.

use super::Anonymizer;
use hmac::Mac;
use sha2::{Digest, Sha256};

/// Shapes with at most this many values are permuted; larger ones hashed.
const PERMUTED_MAX: u128 = 1 << 62;

/// What one character of a text may become: a class it stays in, or itself.
#[derive(Clone, Copy)]
enum Class {
    Lower,
    Upper,
    /// `1`–`9` (`0` stays `0`, so a number keeps its magnitude).
    Digit,
    Kept(char),
}

impl Class {
    fn of(c: char, letters: bool) -> Option<Class> {
        Some(match c {
            'a'..='z' if letters => Class::Lower,
            'A'..='Z' if letters => Class::Upper,
            '1'..='9' => Class::Digit,
            _ if c.is_ascii() => Class::Kept(c),
            _ => return None,
        })
    }

    fn radix(self) -> u64 {
        match self {
            Class::Lower | Class::Upper => 26,
            Class::Digit => 9,
            Class::Kept(_) => 1,
        }
    }

    fn char(self, i: u64) -> char {
        match self {
            Class::Lower => (b'a' + i as u8) as char,
            Class::Upper => (b'A' + i as u8) as char,
            Class::Digit => (b'1' + i as u8) as char,
            Class::Kept(c) => c,
        }
    }

    fn index(self, c: char) -> u64 {
        match self {
            Class::Lower => c as u64 - 'a' as u64,
            Class::Upper => c as u64 - 'A' as u64,
            Class::Digit => c as u64 - '1' as u64,
            Class::Kept(_) => 0,
        }
    }
}

impl Anonymizer {
    /// `len` keyed bytes for `value` in `domain`: HMAC(salt, domain ‖ value) as a seed,
    /// stretched by SHA-256(seed ‖ block number).
    fn stream(&self, domain: u8, value: &[u8], len: usize) -> Vec<u8> {
        let mut mac = self.mac.clone();
        mac.update(&[domain]);
        mac.update(value);
        let seed = mac.finalize().into_bytes();
        let mut out = Vec::with_capacity(len + 32);
        let mut block = 0u64;
        while out.len() < len {
            let mut h = Sha256::new();
            h.update(seed);
            h.update(block.to_le_bytes());
            out.extend_from_slice(&h.finalize());
            block += 1;
        }
        out.truncate(len);
        out
    }

    /// A text value: same byte length, letters and digits replaced within their class, other
    /// ASCII kept. A text SQLite reads as an integer (`42`, `-7`: what an INTEGER column
    /// stores as one, and how Android binds every argument) is treated as that integer (kept,
    /// or mapped with `integers`), so it stays equal to the integer it is compared with.
    pub fn text(&self, s: &str) -> String {
        match s.parse::<i64>() {
            Ok(i) if i.to_string() == s => self.int_value(i).to_string(),
            _ => self.shaped(b't', s, true),
        }
    }

    /// An integer value as the scope says: kept, or mapped with `integers`.
    pub fn int_value(&self, v: i64) -> i64 {
        if self.scope.integers {
            self.integer(v)
        } else {
            v
        }
    }

    /// A number's text: only its digits change (`0` stays `0`), so `-12.50e3` keeps its shape.
    pub(super) fn number(&self, s: &str) -> String {
        let unsigned = s.trim_start_matches(['-', '+']);
        let sign = &s[..s.len() - unsigned.len()];
        format!("{sign}{}", self.shaped(b't', unsigned, false))
    }

    /// `s` with its letters (when `letters`) and digits replaced within their class: by a
    /// keyed permutation of the texts of its shape when they are few enough to count, else by
    /// keyed bytes (and every byte of a non-ASCII character by a letter).
    pub(super) fn shaped(&self, domain: u8, s: &str, letters: bool) -> String {
        let classes: Option<Vec<Class>> = s.chars().map(|c| Class::of(c, letters)).collect();
        if let Some(classes) = classes {
            let n = classes
                .iter()
                .try_fold(1u128, |n, c| {
                    Some(n * u128::from(c.radix())).filter(|n| *n <= PERMUTED_MAX)
                })
                .map(|n| n as u64);
            if let Some(n) = n {
                // The text's index among the texts of its shape, permuted, and back.
                let x = s
                    .chars()
                    .zip(&classes)
                    .fold(0u64, |x, (c, k)| x * k.radix() + k.index(c));
                let mut y = self.permute(domain, x, n);
                let mut out: Vec<char> = Vec::with_capacity(classes.len());
                for k in classes.iter().rev() {
                    out.push(k.char(y % k.radix()));
                    y /= k.radix();
                }
                return out.into_iter().rev().collect();
            }
        }
        let k = self.stream(domain, s.as_bytes(), s.len());
        let mut out = String::with_capacity(s.len());
        let mut i = 0;
        for c in s.chars() {
            let r = k[i];
            let n = c.len_utf8();
            match Class::of(c, letters) {
                Some(Class::Kept(c)) => out.push(c),
                Some(k) => out.push(k.char(u64::from(r) % k.radix())),
                None => (0..n).for_each(|j| out.push((b'a' + k[i + j] % 26) as char)),
            }
            i += n;
        }
        out
    }

    /// An integer: a keyed permutation of the integers with its digit count, sign kept;
    /// distinct integers stay distinct, so a primary key stays a key.
    pub fn integer(&self, v: i64) -> i64 {
        let Some(abs) = v.checked_abs() else {
            return v;
        };
        let abs = abs as u64;
        let digits = abs.checked_ilog10().unwrap_or(0);
        let lo = if digits == 0 { 0 } else { 10u64.pow(digits) };
        let n = 10u64.checked_pow(digits + 1).unwrap_or(u64::MAX) - lo;
        let out = (lo + self.permute(b'n', abs - lo, n)) as i64;
        if v < 0 {
            -out
        } else {
            out
        }
    }

    /// `x` in `0..n` under a keyed permutation of `0..n` (in `domain`): a Feistel network
    /// on the fewest even number of bits holding `n`, walked until it lands below `n`.
    fn permute(&self, domain: u8, x: u64, n: u64) -> u64 {
        let bits = (64 - n.saturating_sub(1).leading_zeros())
            .max(2)
            .div_ceil(2);
        let mut x = x;
        loop {
            x = self.feistel(domain, x, bits);
            if x < n {
                return x;
            }
        }
    }

    /// One pass of a balanced four-round Feistel network on `2 * half` bits.
    fn feistel(&self, domain: u8, x: u64, half: u32) -> u64 {
        let mask = (1u64 << half) - 1;
        let (mut l, mut r) = (x >> half, x & mask);
        for round in 0u8..4 {
            let mut mac = self.mac.clone();
            mac.update(&[domain, round, half as u8]);
            mac.update(&r.to_le_bytes());
            let f = u64::from_le_bytes(mac.finalize().into_bytes()[..8].try_into().unwrap());
            (l, r) = (r, l ^ (f & mask));
        }
        (l << half) | r
    }

    pub fn real(&self, v: f64) -> f64 {
        if !v.is_finite() {
            return v;
        }
        self.number(&v.to_string()).parse().unwrap_or(v)
    }

    /// Blob bytes (hex): the same number of keyed bytes.
    pub fn blob_hex(&self, hex: &str) -> String {
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        self.stream(b'b', &bytes, bytes.len())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// A database path or connection name: letters and digits replaced, the extension kept.
    pub fn path(&self, p: &str) -> String {
        let (stem, ext) = match p.rfind('.') {
            Some(i) if !p[i..].contains('/') => p.split_at(i),
            _ => (p, ""),
        };
        format!("{}{ext}", self.shaped(b'p', stem, true))
    }

    pub(super) fn ident(&self, name: &str) -> String {
        self.shaped(b'i', &name.to_ascii_lowercase(), true)
    }
}
