//! The regime map `regimes.svg`: every cell coloured by its regime (numeric where computed,
//! else analytic) under the analytic boundary curves.

use super::analytic::{regime_at, Column};
use super::sweep::Sweep;
use super::{CellOutcome, REGIMES};
use crate::results::{CellMap, Plot, Series};

/// The colour of each of `REGIMES` on the map (RGB).
const COLOURS: [[u8; 3]; 4] = [
    [120, 170, 225],
    [245, 170, 90],
    [170, 170, 170],
    [250, 240, 120],
];

pub(super) fn plot(
    model: &str,
    sweep: &Sweep,
    columns: &[Column],
    numeric: &[Option<CellOutcome>],
) -> Plot {
    let (nx, ny) = sweep.shape();
    let (xs, ys) = (&sweep.xs, &sweep.ys);
    let class = (0..nx * ny)
        .map(|k| {
            let r = match &numeric[k] {
                Some(Ok((c, _))) => Some(c.regime),
                _ => regime_at(columns, k % nx, k / nx),
            };
            r.and_then(|r| REGIMES.iter().position(|q| *q == r))
        })
        .collect();
    let (ylo, yhi) = (ys[0], ys[ny - 1]);
    // The boundary `b` as points, where it lies inside the swept range of y.
    let curve = |b: usize, label: &str| Series {
        label: label.into(),
        x: columns
            .iter()
            .zip(xs)
            .filter(|(c, _)| c.boundaries[b] >= ylo && c.boundaries[b] <= yhi)
            .map(|(_, x)| *x)
            .collect(),
        y: columns
            .iter()
            .map(|c| c.boundaries[b])
            .filter(|y| *y >= ylo && *y <= yhi)
            .collect(),
        points: true,
        dashed: false,
    };
    Plot {
        file: "regimes.svg".into(),
        title: format!(
            "{model}: motion regimes ({})",
            if sweep.method == "analytic" {
                "analytic"
            } else {
                "numeric cells"
            }
        ),
        x_label: sweep.x_name.clone(),
        y_label: sweep.y_name.clone(),
        series: if sweep.analytic_on() {
            vec![
                curve(0, "continuous / stick-slip"),
                curve(1, "motion / no motion"),
            ]
        } else {
            vec![]
        },
        cells: Some(CellMap {
            x: xs.clone(),
            y: ys.clone(),
            class,
            legend: REGIMES
                .iter()
                .zip(COLOURS)
                .map(|(r, c)| (r.name().to_string(), c))
                .collect(),
        }),
    }
}
