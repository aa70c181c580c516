//! Bitmap text with each glyph where the font puts it.
//!
//! plotters 0.3.7 rasterises text through `ab_glyph` (`style/font/ab_glyph.rs`,
//! `FontDataInternal::draw`): it outlines each glyph at the origin, then draws the
//! outline's pixels from the pen position, adding the outline's top edge
//! (`px_bounds().min.y`) but not its left edge (`min.x`, the left side bearing) and
//! truncating the pen to whole pixels. Every glyph therefore lands up to two pixels
//! left of its place, by an amount that differs from glyph to glyph, and PNG labels
//! read "data po ints". The SVG files carry text as `<text>` and are unaffected.
//!
//! [`GlyphBitMap`] wraps plotters' `BitMapBackend` and draws text itself: each glyph
//! outlined at its exact (sub-pixel) pen position, its pixels placed from the outline's
//! own bounds. Vertical placement, anchors, rotations, colours and the layout box are
//! plotters' own, so a label's box and baseline are where they were; only the
//! horizontal placement of the glyphs inside it changes. Everything that is not text
//! goes to the wrapped backend unchanged.

use ab_glyph::{point, Font, FontRef, ScaleFont};
use plotters::backend::BitMapBackend;
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontStyle,
};

type BitMapError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

/// The faces `plot::register_font` gives plotters, parsed again for our own use.
fn face(family: &str, style: FontStyle) -> Option<FontRef<'static>> {
    if family != "sans-serif" {
        return None;
    }
    let data: &'static [u8] = match style {
        FontStyle::Bold => dejavu::sans::bold(),
        FontStyle::Normal => dejavu::sans::regular(),
        _ => return None,
    };
    FontRef::try_from_slice(data).ok()
}

/// Calls `pixel(x, y, coverage)` for every pixel `text` covers at `size`, in the
/// coordinates plotters' own rasteriser uses: x from the pen's start, y from the
/// top edge plotters gives the line (half the size above the baseline's glyph tops).
pub fn rasterise(font: &FontRef<'_>, size: f64, text: &str, mut pixel: impl FnMut(i32, i32, f32)) {
    let scaled = font.as_scaled(size as f32);
    let mut pen = 0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            pen += scaled.kern(p, id);
        }
        prev = Some(id);
        let glyph = id.with_scale_and_position(scaled.scale(), point(pen, 0.0));
        if let Some(outline) = scaled.outline_glyph(glyph) {
            let bounds = outline.px_bounds();
            let left = bounds.min.x as i32;
            let top = ((size as f32) / 2.0 + bounds.min.y) as i32;
            outline.draw(|x, y, coverage| pixel(left + x as i32, top + y as i32, coverage));
        }
        pen += scaled.h_advance(id);
    }
}

/// plotters' `BitMapBackend` with text drawn by [`rasterise`].
pub struct GlyphBitMap<'a>(pub BitMapBackend<'a>);

impl DrawingBackend for GlyphBitMap<'_> {
    type ErrorType = BitMapError;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.blit_bitmap(pos, (iw, ih), src)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.0.estimate_text_size(text, style)
    }

    /// plotters-backend's default `draw_text` (anchor, layout box, rotation,
    /// clipping to the canvas), with the glyphs from [`rasterise`].
    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let Some(font) = face(style.family().as_str(), style.style()) else {
            return self.0.draw_text(text, style, pos);
        };
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.get_size();
        let mut result = Ok(());
        rasterise(&font, style.size(), text, |x, y, coverage| {
            if result.is_err() {
                return;
            }
            let (x, y) = transform.transform(x + dx - min_x, y + dy - min_y);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                result = self.0.draw_pixel((x, y), color.mix(coverage as f64));
            }
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ink columns of `text` rendered at `size` by [`rasterise`].
    fn ink_columns(text: &str, size: f64) -> Vec<bool> {
        let font = face("sans-serif", FontStyle::Normal).unwrap();
        let mut ink = vec![false; 40 * text.len() + 40];
        rasterise(&font, size, text, |x, _, coverage| {
            if coverage > 0.5 {
                ink[(x + 10) as usize] = true;
            }
        });
        ink
    }

    /// Widths of the blank runs between inked runs.
    fn gaps(ink: &[bool]) -> Vec<i32> {
        let first = ink.iter().position(|&i| i).unwrap();
        let last = ink.iter().rposition(|&i| i).unwrap();
        let mut out = Vec::new();
        let mut run = 0;
        for &i in &ink[first..=last] {
            if i {
                if run > 0 {
                    out.push(run);
                }
                run = 0;
            } else {
                run += 1;
            }
        }
        out
    }

    /// The space between two glyphs' ink from the font's design metrics alone
    /// (advance, outline bounds and kerning in font units, no rasteriser): the
    /// first glyph's right side bearing plus the second's left one plus the kern.
    fn design_gap(a: char, b: char, size: f64) -> f32 {
        let font = face("sans-serif", FontStyle::Normal).unwrap();
        let scaled = font.as_scaled(size as f32);
        let k = scaled.h_scale_factor();
        let (ia, ib) = (font.glyph_id(a), font.glyph_id(b));
        let bounds = |id| font.outline(id).unwrap().bounds;
        let right_bearing = font.h_advance_unscaled(ia) - bounds(ia).max.x;
        let left_bearing = bounds(ib).min.x;
        (right_bearing + left_bearing + font.kern_unscaled(ia, ib)) * k
    }

    #[test]
    fn the_space_between_glyphs_is_the_fonts() {
        // Letter pairs whose ink never shares a column at these sizes (at 11 px
        // some do: "po" is one run of ink). plotters' own rasteriser gives
        // "points" at 18 px no gap between o and i and two pixels after i.
        for size in [18.0, 24.0, 32.0] {
            for word in ["points", "data", "min", "lnilm", "number"] {
                let measured = gaps(&ink_columns(word, size));
                let chars: Vec<char> = word.chars().collect();
                assert_eq!(measured.len(), chars.len() - 1, "{word} at {size} px");
                for (pair, gap) in chars.windows(2).zip(&measured) {
                    let want = design_gap(pair[0], pair[1], size);
                    assert!(
                        (*gap as f32 - want).abs() <= 1.0,
                        "{word} at {size} px: {}{} gap {gap} px, the font's {want:.2} px",
                        pair[0],
                        pair[1]
                    );
                }
            }
        }
    }

    /// The check above fails plotters' own rasteriser: the fault this module
    /// works around is real in the plotters this crate builds with. If a newer
    /// plotters passes, drop [`GlyphBitMap`].
    #[test]
    fn plotters_own_glyphs_fail_the_font_check() {
        use plotters::prelude::*;
        super::super::register_font();
        let mut worst = 0f32;
        for size in [18.0, 24.0, 32.0] {
            for word in ["points", "data", "min", "lnilm", "number"] {
                let mut ink = vec![false; 40 * word.len() + 40];
                let font = ("sans-serif", size).into_font();
                font.draw(word, (0, 0), |x, _, coverage| {
                    if coverage > 0.5 {
                        ink[(x + 10) as usize] = true;
                    }
                    Ok::<(), ()>(())
                })
                .unwrap()
                .unwrap();
                let chars: Vec<char> = word.chars().collect();
                for (pair, gap) in chars.windows(2).zip(gaps(&ink)) {
                    let off = (gap as f32 - design_gap(pair[0], pair[1], size)).abs();
                    worst = worst.max(off);
                }
            }
        }
        assert!(
            worst > 1.0,
            "plotters' glyphs are off by at most {worst:.2} px"
        );
    }

    /// Inked pixels of "min max" drawn at (60, 60) with `transform`, by plotters'
    /// `BitMapBackend` or by [`GlyphBitMap`].
    fn ink(transform: plotters_backend::FontTransform, ours: bool) -> Vec<(u32, u32)> {
        use plotters::prelude::*;
        super::super::register_font();
        let (w, h) = (120u32, 120u32);
        let mut buf = vec![255u8; (w * h * 3) as usize];
        {
            let backend = BitMapBackend::with_buffer(&mut buf, (w, h));
            let style = ("sans-serif", 16)
                .into_font()
                .transform(transform)
                .color(&BLACK);
            if ours {
                let root = GlyphBitMap(backend).into_drawing_area();
                root.draw_text("min max", &style, (60, 60)).unwrap();
                root.present().unwrap();
            } else {
                let root = backend.into_drawing_area();
                root.draw_text("min max", &style, (60, 60)).unwrap();
                root.present().unwrap();
            }
        }
        let mut out = Vec::new();
        for y in 0..h {
            for x in 0..w {
                if buf[((y * w + x) * 3) as usize] < 128 {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// Only the placement along the line changes: across it (rows of upright
    /// text, columns of rotated text) the ink is plotters' own, and along it the
    /// label spans what plotters' does within a pixel at each end.
    #[test]
    fn text_keeps_plotters_baseline_box_and_rotation() {
        use plotters_backend::FontTransform::{None as Upright, Rotate270, Rotate90};
        for (transform, across_is_y) in [(Upright, true), (Rotate90, false), (Rotate270, false)] {
            let split = |ink: Vec<(u32, u32)>| {
                let (along, across): (Vec<u32>, Vec<u32>) = ink
                    .into_iter()
                    .map(|(x, y)| if across_is_y { (x, y) } else { (y, x) })
                    .unzip();
                let mut across = across;
                across.sort();
                across.dedup();
                (
                    *along.iter().min().unwrap(),
                    *along.iter().max().unwrap(),
                    across,
                )
            };
            let (lo, hi, rows) = split(ink(transform.clone(), true));
            let (plo, phi, prows) = split(ink(transform, false));
            assert_eq!(rows, prows);
            assert!(
                lo.abs_diff(plo) <= 1 && hi.abs_diff(phi) <= 1,
                "{lo}..{hi} vs {plo}..{phi}"
            );
        }
    }
}
