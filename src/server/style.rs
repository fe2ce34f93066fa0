//! The pages' one style sheet (inline in every page, no file to fetch) and the
//! Content-Security-Policy every answer carries, which allows exactly that style by its SHA-256
//! and nothing else: no script, nothing loaded from elsewhere, no framing by another site.

/// The pages' one style sheet, inline (the Content-Security-Policy allows exactly it).
pub const STYLE: &str = "
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 1.5em auto; max-width: 60em; color: #222; }
nav a { margin-right: 1em; }
nav form { display: inline; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #666; font-size: 0.9em; }
svg.chart { display: block; margin: 0.5em 0 1em; }
";

/// The Content-Security-Policy of every answer: nothing loads or runs but the pages' own
/// style (by its SHA-256), forms post only here, no other site frames a page.
pub fn csp() -> &'static str {
    static CSP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSP.get_or_init(|| {
        use base64::Engine as _;
        use sha2::Digest as _;
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(STYLE));
        format!(
            "default-src 'none'; style-src 'sha256-{hash}'; img-src 'self' data:; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        )
    })
}
