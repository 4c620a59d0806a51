//! `Plot` → SVG and PNG with plotters: lines or markers, a legend, axis labels. Plots are
//! for people; the CSV next to them is the data.
//!
//! The PNG rasteriser draws text with DejaVu Sans, embedded in the binary (`font/`, its
//! licence beside it), so a machine without system fonts still gets labelled bitmaps.

use nsd_analysis::Plot;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const SIZE: (u32, u32) = (800, 500);
const FONT: &[u8] = include_bytes!("font/DejaVuSans.ttf");

const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
];

/// Registers the embedded font as plotters' `sans-serif` (once per process).
fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The font is a compile-time constant known to parse; a failure only loses text.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Renders a plot to an SVG string.
pub(crate) fn render_svg(p: &Plot) -> Result<String, String> {
    register_font();
    let mut svg = String::new();
    draw(
        SVGBackend::with_string(&mut svg, SIZE).into_drawing_area(),
        p,
        2,
    )?;
    Ok(svg)
}

/// Renders a plot to a PNG file at `path`, lines one pixel wide (the rasteriser fills a
/// wider polyline as one polygon, whose cost grows with its length times the height).
pub(crate) fn render_png(p: &Plot, path: &Path) -> Result<(), String> {
    register_font();
    draw(BitMapBackend::new(path, SIZE).into_drawing_area(), p, 1)
}

/// Draws the plot on any backend, lines `line` pixels wide.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    p: &Plot,
    line: u32,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let finite = |v: &&f64| v.is_finite();
    let xs = p.series.iter().flat_map(|s| s.x.iter()).filter(finite);
    let ys = p.series.iter().flat_map(|s| s.y.iter()).filter(finite);
    let ((x0, x1), (y0, y1)) = match &p.cells {
        Some(c) => (extent(&c.x), extent(&c.y)),
        None => (bounds(xs), bounds(ys)),
    };
    // plotters asserts on a NaN axis and does not return from an infinite one (e.g. a range
    // of ±1e308 whose width overflows): such a plot is refused, its data stay in the CSV.
    let spans = |lo: f64, hi: f64| lo.is_finite() && hi.is_finite() && (hi - lo).is_finite();
    if !(spans(x0, x1) && spans(y0, y1)) {
        return Err(format!(
            "the data span no finite axis range (x {x0}..{x1}, y {y0}..{y1})"
        ));
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(&p.title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    if let Some(c) = &p.cells {
        let edges = |v: &[f64]| -> Vec<f64> {
            let mut e = vec![extent(v).0];
            e.extend(v.windows(2).map(|w| 0.5 * (w[0] + w[1])));
            e.push(extent(v).1);
            e
        };
        let (ex, ey) = (edges(&c.x), edges(&c.y));
        let rects = c.class.iter().enumerate().filter_map(|(k, class)| {
            let (i, j) = (k % c.x.len(), k / c.x.len());
            let [r, g, b] = c.legend.get((*class)?)?.1;
            Some(Rectangle::new(
                [(ex[i], ey[j]), (ex[i + 1], ey[j + 1])],
                RGBColor(r, g, b).filled(),
            ))
        });
        chart.draw_series(rects).map_err(|e| e.to_string())?;
        for (name, [r, g, b]) in &c.legend {
            let color = RGBColor(*r, *g, *b);
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
                .map_err(|e| e.to_string())?
                .label(name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 20, y + 5)], color.filled())
                });
        }
    }
    let mut families: Vec<&str> = Vec::new();
    for s in &p.series {
        let f = family(&s.label);
        let i = families.iter().position(|g| *g == f).unwrap_or_else(|| {
            families.push(f);
            families.len() - 1
        });
        let color = COLORS[i % COLORS.len()];
        let xy = s.x.iter().zip(&s.y).map(|(x, y)| (*x, *y));
        let legend = move |(x, y): (i32, i32)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(line))
        };
        if s.points {
            let finite = xy.filter(|(x, y)| x.is_finite() && y.is_finite());
            let drawn = chart
                .draw_series(finite.map(|p| Circle::new(p, 2, color.filled())))
                .map_err(|e| e.to_string())?;
            if !s.label.is_empty() {
                drawn.label(&s.label).legend(legend);
            }
            continue;
        }
        // A line breaks at non-finite values (a gap); each piece is thinned for drawing and
        // only the first carries the legend entry.
        let mut pieces: Vec<Vec<(f64, f64)>> = vec![vec![]];
        for (x, y) in xy {
            match pieces.last_mut() {
                Some(piece) if x.is_finite() && y.is_finite() => piece.push((x, y)),
                Some(piece) if !piece.is_empty() => pieces.push(vec![]),
                _ => {}
            }
        }
        let style = color.stroke_width(line);
        for (k, piece) in pieces.into_iter().filter(|p| !p.is_empty()).enumerate() {
            let piece = thinned(piece);
            let drawn = if s.dashed {
                chart.draw_series(DashedLineSeries::new(piece, 6, 4, style))
            } else {
                chart.draw_series(LineSeries::new(piece, style))
            }
            .map_err(|e| e.to_string())?;
            if k == 0 && !s.label.is_empty() {
                drawn.label(&s.label).legend(legend);
            }
        }
    }
    if p.cells.is_some() || p.series.len() > 1 || p.series.iter().any(|s| !s.label.is_empty()) {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// The branch a series belongs to: `X, stable` and `X, unstable` (or `stable` and
/// `unstable`) are one branch, drawn in one colour — the dash tells its parts apart.
fn family(label: &str) -> &str {
    label
        .strip_suffix("unstable")
        .or_else(|| label.strip_suffix("stable"))
        .map_or(label, |f| f.trim_end_matches(", "))
}

/// A line of more points than the picture can show, thinned for drawing (the CSV keeps them
/// all): over increasing x, the first, lowest, highest and last point of each of 800
/// columns (one per pixel: the drawn envelope is unchanged); otherwise (a phase portrait)
/// every k-th point up to 3200.
fn thinned(pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    const COLUMNS: usize = 800;
    if pts.len() <= 4 * COLUMNS {
        return pts;
    }
    if !pts.windows(2).all(|w| w[0].0 <= w[1].0) {
        let stride = pts.len().div_ceil(4 * COLUMNS);
        return pts.into_iter().step_by(stride).collect();
    }
    let (x0, x1) = (pts[0].0, pts[pts.len() - 1].0);
    let width = (x1 - x0).max(f64::MIN_POSITIVE) / COLUMNS as f64;
    let mut out = Vec::with_capacity(4 * COLUMNS);
    let mut start = 0;
    while start < pts.len() {
        let col = ((pts[start].0 - x0) / width).floor();
        let end = pts[start..]
            .iter()
            .position(|p| ((p.0 - x0) / width).floor() != col)
            .map_or(pts.len(), |k| start + k);
        let slice = &pts[start..end];
        let lo = slice
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
            .map(|(i, _)| i);
        let hi = slice
            .iter()
            .enumerate()
            .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
            .map(|(i, _)| i);
        let mut keep: Vec<usize> = [Some(0), lo, hi, Some(slice.len() - 1)]
            .into_iter()
            .flatten()
            .collect();
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|i| slice[i]));
        start = end;
    }
    out
}

/// The range of a cell grid, half a step beyond its first and last points.
fn extent(v: &[f64]) -> (f64, f64) {
    let half = if v.len() > 1 {
        0.5 * (v[1] - v[0]).abs()
    } else {
        0.5
    };
    let (lo, hi) = (
        v.first().copied().unwrap_or(0.0),
        v.last().copied().unwrap_or(1.0),
    );
    (lo.min(hi) - half, lo.max(hi) + half)
}

/// A padded range that is never empty.
fn bounds<'a>(v: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (lo, hi) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
        (l.min(*x), h.max(*x))
    });
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        lo.abs().max(1.0) * 0.1
    };
    (lo - pad, hi + pad)
}

/// A one-line plot of `y` against `x` with plain labels (the tests' fixture).
#[cfg(test)]
pub(crate) fn line_plot(x: Vec<f64>, y: Vec<f64>) -> Plot {
    Plot {
        file: "p.svg".into(),
        title: String::new(),
        x_label: "x".into(),
        y_label: "y".into(),
        series: vec![nsd_analysis::Series {
            label: String::new(),
            x,
            y,
            points: false,
            dashed: false,
        }],
        cells: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_thinned_without_losing_their_envelope() {
        // 100 000 samples of a sine with one narrow spike: at most 4 points per column are
        // kept, and the extremes (the spike included) survive.
        let mut pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| {
                let x = i as f64 * 1e-3;
                (x, x.sin())
            })
            .collect();
        pts[54_321].1 = 7.0;
        let thin = thinned(pts.clone());
        assert!(thin.len() <= 3200, "{} points", thin.len());
        let max = |v: &[(f64, f64)]| v.iter().map(|p| p.1).fold(f64::MIN, f64::max);
        let min = |v: &[(f64, f64)]| v.iter().map(|p| p.1).fold(f64::MAX, f64::min);
        assert_eq!((max(&thin), min(&thin)), (max(&pts), min(&pts)));
        assert_eq!(
            (thin[0], thin[thin.len() - 1]),
            (pts[0], pts[pts.len() - 1])
        );
    }

    #[test]
    fn a_line_breaks_at_non_finite_values() {
        let line = |y: Vec<f64>| line_plot((0..y.len()).map(|i| i as f64).collect(), y);
        // The mesh is drawn with polylines too: the gap adds exactly one.
        let polylines = |p: &Plot| render_svg(p).expect("svg").matches("<polyline").count();
        let whole = polylines(&line(vec![0.0, 1.0, 1.5, 2.0, 3.0]));
        assert_eq!(
            polylines(&line(vec![0.0, 1.0, f64::NAN, 2.0, 3.0])),
            whole + 1
        );
    }

    #[test]
    fn a_range_without_finite_width_is_refused() {
        // ±f64::MAX: every value is finite but the axis width overflows, on which plotters
        // would never return.
        let plot = line_plot(vec![0.0, 1.0], vec![-f64::MAX, f64::MAX]);
        let refused = render_svg(&plot).expect_err("no finite range");
        assert!(refused.contains("no finite axis range"), "{refused}");
    }

    #[test]
    fn bitmaps_carry_text_from_the_embedded_font() {
        // The same plot with and without a title: the title band differs only if glyphs are
        // rasterised (no system font is needed).
        let plot = |title: &str| Plot {
            title: title.into(),
            ..line_plot(vec![0.0, 1.0], vec![0.0, 1.0])
        };
        let raster = |p: &Plot| {
            register_font();
            let mut buf = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
            draw(
                BitMapBackend::with_buffer(&mut buf, SIZE).into_drawing_area(),
                p,
                1,
            )
            .expect("drawn");
            buf
        };
        let (titled, untitled) = (raster(&plot("Title")), raster(&plot("")));
        let band = (SIZE.0 * 3 * 40) as usize;
        let dark = |b: &[u8]| b[..band].iter().filter(|&&v| v < 128).count();
        assert!(
            dark(&titled) > dark(&untitled) + 50,
            "{} vs {}",
            dark(&titled),
            dark(&untitled)
        );
    }
}
