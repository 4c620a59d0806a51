//! The frequency-response branch of a harmonic balance: the periodic responses continued over
//! the excitation frequency, condensed onto the contact DOFs (then expanded to every DOF) or
//! on the full balance, from the first of three starts that converges; the default step
//! settings over a range; one DOF's excursion along the branch. `continue frf` tabulates it,
//! `continue periodic` draws it under a shooting branch.

use super::compliance::Compliance;
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

/// Continues the balance over `settings.range`, reduced onto the contact DOFs when asked
/// (and when there is something to gain): in receptance form where the modes diagonalise
/// the damping (`Compliance`, well conditioned however close the contact nodes), else on
/// the factorised condensed stiffness (`Condensed`).
pub fn continued(hb: &Balance, condense: bool, settings: &Settings) -> Continued {
    if condense {
        if let Some(c) = Compliance::new(hb) {
            return on_kept(hb, &c, settings);
        }
        if let Some(c) = Condensed::new(hb) {
            return on_kept(hb, &c, settings);
        }
    }
    // Starts: linearised at rest (open gaps, stuck contacts), the linear part alone (free
    // contacts), the harmonic ramp.
    let starts: [&dyn Fn(f64) -> DVector<f64>; 3] =
        [&|w| linearised(hb, w), &|w| hb.free_guess(w), &|w| {
            hb.ramped_guess(w)
        }];
    Continued {
        curve: branch(hb, &starts, settings),
        unknowns: hb.dim(),
        condensed: false,
    }
}

/// A balance reduced onto the coefficients of its nonlinear DOFs.
trait Kept: Problem {
    /// The linear part's response alone, on the kept coefficients.
    fn free_guess(&self, omega: f64) -> DVector<f64>;
    /// The kept coefficients of a full vector.
    fn restrict(&self, q: &DVector<f64>) -> DVector<f64>;
    /// Every DOF's coefficients from the kept ones.
    fn expand(&self, x: &DVector<f64>, omega: f64) -> DVector<f64>;
}

impl Kept for Compliance<'_> {
    fn free_guess(&self, omega: f64) -> DVector<f64> {
        Compliance::free_guess(self, omega)
    }
    fn restrict(&self, q: &DVector<f64>) -> DVector<f64> {
        Compliance::restrict(self, q)
    }
    fn expand(&self, x: &DVector<f64>, omega: f64) -> DVector<f64> {
        Compliance::expand(self, x, omega)
    }
}

impl Kept for Condensed<'_> {
    fn free_guess(&self, omega: f64) -> DVector<f64> {
        Condensed::free_guess(self, omega)
    }
    fn restrict(&self, q: &DVector<f64>) -> DVector<f64> {
        Condensed::restrict(self, q)
    }
    fn expand(&self, x: &DVector<f64>, omega: f64) -> DVector<f64> {
        Condensed::expand(self, x, omega)
    }
}

/// The branch continued on the kept coefficients of `c` (the starts computed there too: a
/// full-size guess factorises the whole balance), every point expanded to every DOF.
fn on_kept<K: Kept>(hb: &Balance, c: &K, settings: &Settings) -> Continued {
    let starts: [&dyn Fn(f64) -> DVector<f64>; 3] =
        [&|w| linearised(c, w), &|w| c.free_guess(w), &|w| {
            c.restrict(&hb.ramped_guess(w))
        }];
    let curve = branch(c, &starts, settings).map(|b| expanded(b, &|x, p| c.expand(x, p)));
    Continued {
        curve,
        unknowns: c.dim(),
        condensed: true,
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
