//! The results server's URLs: a request target split into percent-decoded path segments and
//! query parameters (`+` is a space in a query, not in a path). The server's router reads
//! requests through it; it has a fuzz target (`submission`).

use std::collections::BTreeMap;

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// Split a URL's path and query; path segments are decoded without turning `+` into a space.
pub fn split_url(url: &str) -> (Vec<String>, BTreeMap<String, String>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let segments = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    let query = query
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (decode(k), decode(v))
        })
        .collect();
    (segments, query)
}

#[cfg(test)]
mod tests {
    //! URLs are split and decoded as browsers and clients encode them.
    use super::*;

    #[test]
    fn paths_and_queries_are_decoded() {
        let (p, q) = split_url("/devices/Pixel%207%2B?a=GT-I9000&b=Nexus+S&empty&x=%3Cb%3E");
        assert_eq!(p, vec!["devices", "Pixel 7+"]);
        assert_eq!(q["a"], "GT-I9000");
        assert_eq!(q["b"], "Nexus S");
        assert_eq!(q["empty"], "");
        assert_eq!(q["x"], "<b>");
        assert_eq!(split_url("/").0, Vec::<String>::new());
    }
}
