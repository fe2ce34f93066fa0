//! Figures as image files: SVG documents rasterised to PNG with the pure-Rust `resvg` (text
//! drawn with the system's fonts; without any installed font the charts render without text).
//! Behind the default feature `png`: device builds leave it out (reports are made on the
//! host from the pulled store), and there `--format png` is refused before any work.

use crate::error::{Error, Result};
#[cfg(feature = "png")]
use std::sync::OnceLock;

/// Pixels per SVG unit in PNG output (2 = sharp on high-density screens and in papers).
pub const SCALE: f32 = 2.0;

/// Whether this build can write PNG figures.
pub const AVAILABLE: bool = cfg!(feature = "png");

/// Why `--format png` cannot be served by this build.
pub const UNAVAILABLE: &str = "--format png: this build has no PNG renderer (built without the `png` feature; `cargo build --release --features png` adds it; on a device, make the report on the host from the results store); use --format svg or html";

#[cfg(feature = "png")]
fn options() -> &'static resvg::usvg::Options<'static> {
    static OPTIONS: OnceLock<resvg::usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut opt = resvg::usvg::Options::default();
        opt.fontdb_mut().load_system_fonts();
        opt
    })
}

/// Render one SVG document to PNG bytes.
#[cfg(not(feature = "png"))]
pub fn png(_svg: &str) -> Result<Vec<u8>> {
    Err(Error::input(UNAVAILABLE))
}

/// Render one SVG document to PNG bytes.
#[cfg(feature = "png")]
pub fn png(svg: &str) -> Result<Vec<u8>> {
    let tree = resvg::usvg::Tree::from_str(svg, options())
        .map_err(|e| Error::failed(format!("rendering a figure: invalid SVG: {e}")))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(SCALE)
        .ok_or_else(|| Error::failed("rendering a figure: empty size"))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| Error::failed("rendering a figure: image too large"))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| Error::failed(format!("rendering a figure: PNG: {e}")))
}

#[cfg(all(test, feature = "png"))]
mod tests {
    #[test]
    fn renders_a_chart_to_png() {
        let mut svg = crate::report::html::svg::Svg::new(100.0, 50.0);
        svg.rect(10.0, 10.0, 30.0, 20.0, "#4e79a7", "a bar");
        let png = super::png(&svg.finish("t", "test")).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        assert!(super::png("<svg").is_err());
    }
}
