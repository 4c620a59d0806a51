//! The branch of periodic responses over the frequency range: continued condensed onto the
//! contact DOFs (then expanded to every DOF) or on the full balance, from the first of
//! three starts that converges.

use nalgebra::DVector;
use nsd_solve::cont::{follow, linearised, Branch, ContError, Problem, Scale, Settings};
use nsd_solve::hb::condense::Condensed;
use nsd_solve::hb::Balance;

/// The intervals the frequency range is cut into to size the unknowns: the cheap starts are
/// evaluated at its ends, `SCALE_SAMPLES + 1` frequencies.
const SCALE_SAMPLES: usize = 40;

/// A continued branch.
pub(super) struct Continued {
    /// The points with every DOF's coefficients, or why no branch started.
    pub curve: Result<Branch, ContError>,
    /// How many unknowns were continued.
    pub unknowns: usize,
    /// Continued on the condensed balance.
    pub condensed: bool,
}

/// Continues the balance over `settings.range`, condensed onto the contact DOFs when asked
/// (and when there is something to gain).
pub(super) fn continued(hb: &Balance, condense: bool, settings: &Settings) -> Continued {
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
