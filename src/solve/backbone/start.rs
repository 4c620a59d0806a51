//! The frequency response at one level over the window — the paper's first stage (Sect.
//! 3.2, step 1), from which the ridge and phase resonance start — and its peak.

use super::{amplitude, BackboneError, Forced, Settings};
use crate::solve::cont::{self, follow, Problem, Scale};
use nalgebra::{DMatrix, DVector};

/// Divisions of the window for the first step (the response is continued, so this only
/// sets how finely a sharp peak is first approached).
const WINDOW_STEPS: f64 = 100.0;

/// Largest step, as a fraction of the window.
const MAX_STEP_FRACTION: f64 = 0.02;

/// Smallest step, as a fraction of the window.
const MIN_STEP_FRACTION: f64 = 1e-9;

/// The forced balance at a fixed level, continued in ω.
struct AtLevel<'a> {
    f: &'a Forced<'a>,
    level: f64,
}

impl Problem for AtLevel<'_> {
    fn dim(&self) -> usize {
        self.f.dim()
    }

    fn residual(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.f.residual(q, omega, self.level)
    }

    fn jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        self.f.jacobian(q, omega)
    }

    fn param_derivative(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.f.hb.apply(crate::solve::hb::Operator::Rate, q, omega)
    }
}

/// The response at `level` over `window` as `(Q, ω)` points, from the system linearised at
/// rest (stuck contacts, open gaps): `continue frf` at `excitation = level` on the full
/// balance.
pub fn frequency_response(
    f: &Forced,
    level: f64,
    window: (f64, f64),
    s: &Settings,
) -> Result<Vec<(DVector<f64>, f64)>, BackboneError> {
    let pr = AtLevel { f, level };
    let (lo, hi) = window;
    let width = (hi - lo).abs();
    let x0 = cont::linearised(&pr, lo);
    let rest = pr.residual(&DVector::zeros(pr.dim()), lo).norm();
    let size = [lo, 0.5 * (lo + hi), hi]
        .iter()
        .map(|&w| cont::linearised(&pr, w).amax())
        .fold(f64::MIN_POSITIVE, f64::max);
    let settings = cont::Settings {
        range: window,
        step: width / WINDOW_STEPS,
        min_step: width * MIN_STEP_FRACTION,
        max_step: width * MAX_STEP_FRACTION,
        max_points: s.max_points,
        tol: s.tol,
        scale: Scale {
            x: size,
            p: width,
            r: rest.max(f64::MIN_POSITIVE),
        },
    };
    let branch = follow(&pr, x0, lo, &settings).map_err(|e| BackboneError::Start {
        level,
        why: e.to_string(),
    })?;
    Ok(branch
        .points
        .into_iter()
        .filter(|pt| pt.p >= lo.min(hi) && pt.p <= lo.max(hi))
        .map(|pt| (pt.x, pt.p))
        .collect())
}

/// The index of the largest `Am` of the monitored DOF; `PeakAtEdge` when it is the first or
/// last point (the window does not hold the peak).
pub(super) fn peak(
    f: &Forced,
    points: &[(DVector<f64>, f64)],
    level: f64,
) -> Result<usize, BackboneError> {
    let am = |i: usize| amplitude(f.hb, &points[i].0, f.monitored);
    let i = (0..points.len())
        .max_by(|&a, &b| am(a).total_cmp(&am(b)))
        .ok_or(BackboneError::Start {
            level,
            why: "no point in the window".into(),
        })?;
    if i == 0 || i + 1 == points.len() {
        return Err(BackboneError::PeakAtEdge {
            level,
            omega: points[i].1,
        });
    }
    Ok(i)
}
