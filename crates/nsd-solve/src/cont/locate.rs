//! Points located on a branch between two of its neighbouring points: where a discrete state
//! changes (`locate`, bisection) and where a continuous test function vanishes
//! (`locate_zero`, regula falsi), each trial corrected onto the branch across the secant.

use super::tolerances::{LOCATE_HALVINGS, ZERO_MAX_ITERATIONS, ZERO_MIN_BRACKET};
use super::{correct, tangent, Problem, Scale, Scaled};
use nalgebra::DVector;

/// The branch between two of its points `a` and `b`, parametrised by the fraction τ of the
/// secant: the point at τ is corrected onto the branch in the hyperplane through
/// `a + τ(b − a)` normal to the secant.
struct Chord<'a, P: Problem> {
    problem: Scaled<'a, P>,
    scale: Scale,
    tol: f64,
    a: (DVector<f64>, f64),
    b: (DVector<f64>, f64),
    secant: (DVector<f64>, f64),
}

impl<'a, P: Problem> Chord<'a, P> {
    fn new(
        pr: &'a P,
        a: (&DVector<f64>, f64),
        b: (&DVector<f64>, f64),
        scale: Scale,
        tol: f64,
    ) -> Self {
        let (xa, pa) = (a.0 / scale.x, a.1 / scale.p);
        let (xb, pb) = (b.0 / scale.x, b.1 / scale.p);
        let secant = {
            let (dx, dp) = (&xb - &xa, pb - pa);
            let norm = (dx.norm_squared() + dp * dp).sqrt();
            (dx / norm, dp / norm)
        };
        Chord {
            problem: Scaled { pr, s: scale },
            scale,
            tol,
            a: (xa, pa),
            b: (xb, pb),
            secant,
        }
    }

    /// The point at τ (unscaled) and the `p` component of its tangent, oriented from `a`
    /// to `b`; `None` if the correction fails.
    fn at(&self, tau: f64) -> Option<(DVector<f64>, f64, f64)> {
        let ((xa, pa), (xb, pb)) = (&self.a, &self.b);
        let guess = (xa + (xb - xa) * tau, pa + (pb - pa) * tau);
        let (x, p, _) = correct(&self.problem, guess.0, guess.1, &self.secant, self.tol)?;
        let t = tangent(&self.problem, &x, p, &self.secant)?;
        Some((&x * self.scale.x, p * self.scale.p, t.1))
    }
}

/// Where the branch between its neighbouring points `a` and `b` changes `state` (a function
/// of a point and the `p` component of its tangent, oriented from `a` to `b`): bisection on
/// the fraction τ of the secant (`Chord`), `LOCATE_HALVINGS` halvings. Returns the first
/// point found in the new state, `None` if a correction fails or `state` does not differ
/// between `a` and `b`.
pub fn locate<P: Problem, S: PartialEq>(
    pr: &P,
    a: (&DVector<f64>, f64),
    b: (&DVector<f64>, f64),
    scale: Scale,
    tol: f64,
    mut state: impl FnMut(&DVector<f64>, f64, f64) -> S,
) -> Option<(DVector<f64>, f64)> {
    let chord = Chord::new(pr, a, b, scale, tol);
    let mut at = |tau: f64| {
        let (x, p, dp) = chord.at(tau)?;
        let s = state(&x, p, dp);
        Some((x, p, s))
    };
    let (_, _, before) = at(0.0)?;
    let (mut xb_found, mut pb_found, after) = at(1.0)?;
    if after == before {
        return None;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..LOCATE_HALVINGS {
        let mid = 0.5 * (lo + hi);
        let (x, p, s) = at(mid)?;
        if s == before {
            lo = mid;
        } else {
            (hi, xb_found, pb_found) = (mid, x, p);
        }
    }
    Some((xb_found, pb_found))
}

/// Where a continuous test function `f` of the branch's points vanishes between its points
/// `a` and `b`, at which it has opposite signs: the Illinois variant of regula falsi on the
/// fraction τ of the secant (`Chord`), superlinear where `f` is smooth, to `|f| ≤ f_tol` or
/// a bracket of `ZERO_MIN_BRACKET` of the secant. `None` if `f` does not change sign, cannot
/// be evaluated, or a correction fails.
pub fn locate_zero<P: Problem>(
    pr: &P,
    a: (&DVector<f64>, f64),
    b: (&DVector<f64>, f64),
    (scale, tol): (Scale, f64),
    f_tol: f64,
    mut f: impl FnMut(&DVector<f64>, f64) -> Option<f64>,
) -> Option<(DVector<f64>, f64)> {
    let chord = Chord::new(pr, a, b, scale, tol);
    let mut at = |tau: f64| {
        let (x, p, _) = chord.at(tau)?;
        let v = f(&x, p)?;
        Some((x, p, v))
    };
    let (mut lo, mut f_lo) = (0.0, at(0.0)?.2);
    let (x1, p1, f1) = at(1.0)?;
    let (mut hi, mut f_hi, mut best) = (1.0, f1, (x1, p1, f1));
    if f_lo * f_hi > 0.0 {
        return None;
    }
    // Which end moved last: the other end's value is halved when it stays twice (Illinois).
    let mut side = 0i8;
    for _ in 0..ZERO_MAX_ITERATIONS {
        if best.2.abs() <= f_tol || hi - lo <= ZERO_MIN_BRACKET {
            break;
        }
        let tau = (lo - f_lo * (hi - lo) / (f_hi - f_lo)).clamp(lo, hi);
        let (x, p, v) = at(tau)?;
        if v * f_lo > 0.0 {
            (lo, f_lo) = (tau, v);
            if side == -1 {
                f_hi *= 0.5;
            }
            side = -1;
        } else {
            (hi, f_hi) = (tau, v);
            if side == 1 {
                f_lo *= 0.5;
            }
            side = 1;
        }
        if v.abs() < best.2.abs() {
            best = (x, p, v);
        }
    }
    Some((best.0, best.1))
}
