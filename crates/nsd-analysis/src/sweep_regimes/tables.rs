//! The tables of a regime sweep: `data.csv` (every cell's numeric and analytic regime) with
//! the tallies the summary reports, and `boundaries.csv` (the analytic boundaries per x).

use super::analytic::{regime_at, Column};
use super::sweep::Sweep;
use super::CellOutcome;
use crate::results::{Cell, Table};
use nsd_solve::regimes::classify::Regime;

/// Counts over the numeric cells.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Cells away from the analytic curves, settled, compared with the analytic class.
    pub(crate) compared: usize,
    /// Compared cells whose numeric regime is the analytic one.
    pub(crate) agreeing: usize,
    pub(crate) transient: usize,
    pub(crate) unsettled: usize,
    /// Cells integrated by closed-form segments rather than the integrator.
    pub(crate) closed_form: usize,
    /// One line per failed cell: where, and why.
    pub(crate) failures: Vec<String>,
}

/// `data.csv`, one row per cell (x fastest), and the tallies of the numeric cells.
pub(super) fn data(
    sweep: &Sweep,
    columns: &[Column],
    numeric: &[Option<CellOutcome>],
) -> (Table, Tally) {
    let (nx, ny) = sweep.shape();
    let (xs, ys) = (&sweep.xs, &sweep.ys);
    let analytic = |i: usize, j: usize| regime_at(columns, i, j);
    let mut rows = Vec::with_capacity(nx * ny);
    let mut tally = Tally::default();
    for j in 0..ny {
        for i in 0..nx {
            let an = analytic(i, j);
            let text = |r: Option<Regime>| Cell::Text(r.map_or("", Regime::name).into());
            let mut row = vec![Cell::Num(xs[i]), Cell::Num(ys[j])];
            match &numeric[j * nx + i] {
                Some(Ok((c, closed))) => {
                    row.extend([
                        text(Some(c.regime)),
                        Cell::Num(c.stops_per_cycle),
                        c.transient.into(),
                    ]);
                    tally.transient += usize::from(c.transient);
                    tally.unsettled += usize::from(c.regime == Regime::Unsettled);
                    tally.closed_form += usize::from(*closed);
                    // Agreement away from the curves: the analytic class of every neighbour
                    // within one grid step is the same.
                    let settled = an.is_some()
                        && (i.saturating_sub(1)..=(i + 1).min(nx - 1)).all(|ii| {
                            (j.saturating_sub(1)..=(j + 1).min(ny - 1))
                                .all(|jj| analytic(ii, jj) == an)
                        });
                    if settled && c.regime != Regime::Unsettled {
                        tally.compared += 1;
                        tally.agreeing += usize::from(an == Some(c.regime));
                    }
                }
                Some(Err(e)) => {
                    tally.failures.push(format!(
                        "{} = {}, {} = {}: {e}",
                        sweep.x_name, xs[i], sweep.y_name, ys[j]
                    ));
                    row.extend([
                        Cell::Text("failed".into()),
                        Cell::Text(String::new()),
                        Cell::Text(String::new()),
                    ]);
                }
                None => row.extend([
                    text(None),
                    Cell::Text(String::new()),
                    Cell::Text(String::new()),
                ]),
            }
            row.push(text(an));
            rows.push(row);
        }
    }
    let table = Table {
        file: "data.csv".into(),
        columns: [
            sweep.x_name.as_str(),
            sweep.y_name.as_str(),
            "regime",
            "stops_per_cycle",
            "transient",
            "analytic_regime",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    };
    (table, tally)
}

/// `boundaries.csv`: per x, the y of the two analytic boundaries (empty where there is none).
pub(super) fn boundaries(sweep: &Sweep, columns: &[Column]) -> Table {
    let rows = columns
        .iter()
        .zip(&sweep.xs)
        .map(|(c, x)| {
            let num = |v: f64| {
                if v.is_finite() {
                    Cell::Num(v)
                } else {
                    Cell::Text(String::new())
                }
            };
            vec![Cell::Num(*x), num(c.boundaries[0]), num(c.boundaries[1])]
        })
        .collect();
    Table {
        file: "boundaries.csv".into(),
        columns: vec![
            sweep.x_name.clone(),
            "continuous_stick_slip".into(),
            "motion_no_motion".into(),
        ],
        rows,
    }
}
