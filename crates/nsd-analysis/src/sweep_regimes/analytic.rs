//! The analytic regime map (paper 001): per column of the grid (fixed x), the continuous /
//! stick–slip limit and the holding force of every cell, and where along y they cross the
//! slip force.

use super::grid::Grid;
use nsd_model::System;
use nsd_solve::regimes::classify::Regime;
use nsd_solve::regimes::contact::Setup;
use nsd_solve::regimes::no_motion::holding_force;
use nsd_solve::regimes::stick_slip::{continuous_limit, StopFactor};

/// Relative mismatch of the slip force at mid-column, against the straight line through the
/// column's ends, below which y counts as acting linearly on the slip force (dimensionless).
const LINEARITY_TOL: f64 = 1e-12;

/// Floor of the slip force the linearity test scales by, so that a zero slip force is no
/// division by zero (N).
const SLIP_FORCE_FLOOR: f64 = 1e-300;

/// The analytic boundaries at one point, as slip forces.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    continuous: f64,
    no_motion: f64,
    slip_force: f64,
}

impl Limits {
    /// The regime the boundaries give at this point's slip force (`None`: no boundary).
    fn regime(&self) -> Option<Regime> {
        if self.no_motion.is_nan() {
            None
        } else if self.slip_force >= self.no_motion {
            Some(Regime::NoMotion)
        } else if self.continuous.is_nan() {
            None
        } else if self.slip_force < self.continuous {
            Some(Regime::Continuous)
        } else {
            Some(Regime::StickSlip)
        }
    }
}

/// One column of the analytic map.
pub(super) struct Column {
    /// Every cell's limits, in the order of y (`None`: the model fails there).
    cells: Vec<Option<Limits>>,
    /// The y of the continuous / stick–slip and the motion / no-motion boundaries (NaN where
    /// there is none).
    pub(crate) boundaries: [f64; 2],
}

/// The regime of cell `(i, j)` of the analytic map, if it has one.
pub(super) fn regime_at(columns: &[Column], i: usize, j: usize) -> Option<Regime> {
    columns
        .get(i)
        .and_then(|c| c.cells[j])
        .and_then(|l| l.regime())
}

fn limits(sys: &System, s: &Setup, factor: StopFactor) -> Limits {
    Limits {
        continuous: continuous_limit(sys, s, factor),
        no_motion: holding_force(sys, s).abs(),
        slip_force: s.slip_force,
    }
}

/// The analytic map of one column (fixed x): when y changes only the slip force, and
/// linearly, the boundaries are computed once and inverted for y; otherwise every cell is
/// evaluated.
pub(super) fn column(grid: &Grid, x: f64, ys: &[f64], factor: StopFactor) -> Column {
    linear_column(grid, x, ys, factor).unwrap_or_else(|| cellwise_column(grid, x, ys, factor))
}

/// The column when y acts on the slip force alone and linearly (checked at both ends and
/// mid-column): the boundaries once, every cell's slip force on the line.
fn linear_column(grid: &Grid, x: f64, ys: &[f64], factor: StopFactor) -> Option<Column> {
    let (y0, y1, ym) = (ys[0], ys[ys.len() - 1], ys[ys.len() / 2]);
    let (Ok((sys0, a)), Ok((sys1, b)), Ok((sysm, c))) =
        (grid.at(x, y0), grid.at(x, y1), grid.at(x, ym))
    else {
        return None;
    };
    // y acts on the slip force alone: the same structure and load at both ends and mid.
    let same = |sys: &System, p: &Setup| {
        sys.m == sys0.m
            && sys.k == sys0.k
            && sys.c == sys0.c
            && p.load == a.load
            && p.omega == a.omega
            && p.wall_amplitude == a.wall_amplitude
            && p.c == a.c
    };
    let slope = (b.slip_force - a.slip_force) / (y1 - y0);
    let linear = (a.slip_force + slope * (ym - y0) - c.slip_force).abs()
        <= LINEARITY_TOL * c.slip_force.abs().max(SLIP_FORCE_FLOOR);
    if !(slope.is_finite() && slope != 0.0 && linear && same(&sys1, &b) && same(&sysm, &c)) {
        return None;
    }
    let l = limits(&sys0, &a, factor);
    let cells = ys
        .iter()
        .map(|y| {
            Some(Limits {
                slip_force: a.slip_force + slope * (y - y0),
                ..l
            })
        })
        .collect();
    let y_of = |f: f64| {
        if f.is_finite() {
            y0 + (f - a.slip_force) / slope
        } else {
            f64::NAN
        }
    };
    Some(Column {
        cells,
        boundaries: [y_of(l.continuous), y_of(l.no_motion)],
    })
}

/// The column cell by cell, the boundaries where the margin changes sign between grid points
/// (linear interpolation).
fn cellwise_column(grid: &Grid, x: f64, ys: &[f64], factor: StopFactor) -> Column {
    let cells: Vec<Option<Limits>> = ys
        .iter()
        .map(|&y| grid.at(x, y).ok().map(|(sys, s)| limits(&sys, &s, factor)))
        .collect();
    let crossing = |margin: &dyn Fn(&Limits) -> f64| {
        ys.windows(2)
            .zip(cells.windows(2))
            .find_map(|(y, c)| {
                let (a, b) = (margin(c[0].as_ref()?), margin(c[1].as_ref()?));
                (a.is_finite() && b.is_finite() && a.signum() != b.signum())
                    .then(|| y[0] + (y[1] - y[0]) * a / (a - b))
            })
            .unwrap_or(f64::NAN)
    };
    let boundaries = [
        crossing(&|l: &Limits| l.slip_force - l.continuous),
        crossing(&|l: &Limits| l.slip_force - l.no_motion),
    ];
    Column { cells, boundaries }
}
