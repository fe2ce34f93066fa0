//! What the results server decodes from a request besides its JSON: the target split into
//! percent-decoded path segments and query parameters (`+` is a space in a query, not in a
//! path), a form-encoded body's field (`/login`) and a `Cookie` header's cookie. The server's
//! router reads requests through it; it has fuzz targets (`submission` for targets,
//! `login_form` for forms and cookies).

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

/// The value of field `key` in a form-encoded body (`application/x-www-form-urlencoded`, as a
/// browser posts a form), decoded and trimmed; the first one if it is there more than once.
pub fn form_value(body: &[u8], key: &str) -> Option<String> {
    String::from_utf8_lossy(body)
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| decode(k) == key)
        .map(|(_, v)| decode(v).trim().to_string())
}

/// The value of cookie `name` in a `Cookie` header (`a=1; name=value; b=2`), as sent.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header
        .split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
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

    #[test]
    fn form_fields_and_cookies_are_found_by_name() {
        let body = b"user=x&token=+pbt_ab%2Bcd+&token=second";
        assert_eq!(form_value(body, "token").as_deref(), Some("pbt_ab+cd"));
        assert_eq!(form_value(body, "user").as_deref(), Some("x"));
        assert_eq!(form_value(b"tok%65n=v", "token").as_deref(), Some("v"));
        assert_eq!(form_value(b"token", "token"), None);
        assert_eq!(
            form_value(b"\xff=1&token=%FF", "token").as_deref(),
            Some("\u{fffd}")
        );
        let header = "a=1;pb_session=abc=d; b=";
        assert_eq!(cookie_value(header, "pb_session"), Some("abc=d"));
        assert_eq!(cookie_value(header, "b"), Some(""));
        assert_eq!(cookie_value(header, "session"), None);
        assert_eq!(cookie_value("", "a"), None);
    }
}
