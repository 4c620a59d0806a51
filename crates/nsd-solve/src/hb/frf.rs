//! The frequency-response branch of a harmonic balance: the periodic responses continued over
//! the excitation frequency, condensed onto the contact DOFs (then expanded to every DOF) or
//! on the full balance, from the first of three starts that converges; the default step
//! settings over a range; one DOF's excursion along the branch. `continue frf` tabulates it,
//! `continue periodic` draws it under a shooting branch.

use super::condense::Condensed;
use super::Balance;
use crate::cont::{follow, linearised, Branch, ContError, Problem, Scale, Settings};
use nalgebra::DVector;

/// Default first step, as a fraction of the frequency range (`step = width / 100`).
const STEP_DIVISOR: f64 = 100.0;

/// Default smallest step, relative to the frequency range (`min_step`): below it the branch
/// is given up as stuck (dimensionless).
const MIN_STEP_FRACTION: f64 = 1e-8;

/// Default largest step, as a fraction of the frequency range (`max_step = width / 20`).
const MAX_STEP_DIVISOR: f64 = 20.0;

/// Default cap on the points of the branch (`max_points`).
const DEFAULT_MAX_POINTS: usize = 5000;

/// Newton tolerance of the continuation's corrector on the scaled residual `|R| / r_s`
/// (dimensionless).
const CORRECTOR_TOL: f64 = 1e-10;

/// The intervals the frequency range is cut into to size the unknowns: the cheap starts are
/// evaluated at its ends, `SCALE_SAMPLES + 1` frequencies.
const SCALE_SAMPLES: usize = 40;

/// A continued branch.
pub struct Continued {
    /// The points with every DOF's coefficients, or why no branch started.
    pub curve: Result<Branch, ContError>,
    /// How many unknowns were continued.
    pub unknowns: usize,
    /// Continued on the condensed balance.
    pub condensed: bool,
}

/// Continues the balance over `settings.range`, condensed onto the contact DOFs when asked
/// (and when there is something to gain).
pub fn continued(hb: &Balance, condense: bool, settings: &Settings) -> Continued {
    let condensed = condense.then(|| Condensed::new(hb)).flatten();
    // Starts: linearised at rest (open gaps, stuck contacts), the linear part alone (free
    // contacts), the harmonic ramp — each in the unknowns continued (condensed ones are
    // computed condensed: a full-size guess factorises the whole balance).
    let (curve, unknowns) = match &condensed {
        Some(c) => {
            let starts: [&dyn Fn(f64) -> DVector<f64>; 3] =
                [&|w| linearised(c, w), &|w| c.free_guess(w), &|w| {
                    c.restrict(&hb.ramped_guess(w))
                }];
            let curve = branch(c, &starts, settings);
            let full = |x: &DVector<f64>, p: f64| c.expand(x, p);
            (curve.map(|b| expanded(b, &full)), c.dim())
        }
        None => {
            let starts: [&dyn Fn(f64) -> DVector<f64>; 3] =
                [&|w| linearised(hb, w), &|w| hb.free_guess(w), &|w| {
                    hb.ramped_guess(w)
                }];
            (branch(hb, &starts, settings), hb.dim())
        }
    };
    Continued {
        curve,
        unknowns,
        condensed: condensed.is_some(),
    }
}

/// The branch from the first of the `starts` (responses at a frequency, in the problem's
/// unknowns) from which it starts. The unknowns are scaled by the largest response of the
/// first two (the cheap ones: linearised and linear part alone) over the range (41
/// frequencies), the residual by its size at rest.
fn branch<P: Problem>(
    pr: &P,
    starts: &[&dyn Fn(f64) -> DVector<f64>],
    settings: &Settings,
) -> Result<Branch, ContError> {
    let (lo, hi) = settings.range; // from, to: `hi < lo` runs downward
    let rest = pr.residual(&DVector::zeros(pr.dim()), lo).norm();
    let size = (0..=SCALE_SAMPLES)
        .flat_map(|k| {
            starts
                .iter()
                .take(2)
                .map(move |g| g(lo + (hi - lo) * k as f64 / SCALE_SAMPLES as f64).amax())
        })
        .fold(f64::MIN_POSITIVE, f64::max);
    let scale = Scale {
        x: size,
        p: (hi - lo).abs(),
        r: rest.max(f64::MIN_POSITIVE),
    };
    let mut outcome = Err(ContError::Start(rest));
    for start in starts {
        outcome = follow(pr, start(lo), lo, &Settings { scale, ..*settings });
        if outcome.is_ok() {
            break;
        }
    }
    outcome
}

/// A condensed branch with every point's full coefficients.
fn expanded(mut b: Branch, full: &dyn Fn(&DVector<f64>, f64) -> DVector<f64>) -> Branch {
    for pt in &mut b.points {
        pt.x = full(&pt.x, pt.p);
    }
    b
}

/// The continuation's settings over `range` when no option changes them.
pub fn default_settings(range: (f64, f64)) -> Settings {
    let width = (range.1 - range.0).abs();
    Settings {
        range,
        step: width / STEP_DIVISOR,
        min_step: width * MIN_STEP_FRACTION,
        max_step: width / MAX_STEP_DIVISOR,
        max_points: DEFAULT_MAX_POINTS,
        tol: CORRECTOR_TOL,
        scale: Scale::UNIT,
    }
}

/// DOF `dof`'s largest excursion over the period along the branch of `hb` over the excitation
/// frequency `range`, continued condensed at ten times the default point density (the curve
/// is drawn under a shooting branch). A branch that stops early gives the points up to there.
pub fn excursion_curve(
    hb: &Balance,
    range: (f64, f64),
    dof: usize,
) -> Result<Vec<(f64, f64)>, ContError> {
    let settings = Settings {
        max_step: (range.1 - range.0).abs() / (10.0 * MAX_STEP_DIVISOR),
        ..default_settings(range)
    };
    let branch = continued(hb, true, &settings).curve?;
    Ok(branch
        .points
        .iter()
        .map(|pt| (pt.p, hb.aft.peak(&hb.dof_coefficients(&pt.x, dof))))
        .collect())
}
