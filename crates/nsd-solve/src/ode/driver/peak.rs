//! The largest |x| of one DOF over a run (`Hybrid::peak_dof`, `Trajectory::peak`), read on
//! the accepted steps' dense output of either method (`StepCurve`): at each step's end and
//! wherever the DOF's velocity vanishes inside the step. A peak between output samples — a
//! sharp one in contact, which 64 samples per period missed by 4e-3 — is found to the dense
//! output's accuracy; at an impact the position is continuous, so the step's end holds it.

use super::super::roots::{first_crossing, Direction, Search};
use super::super::tolerances::RESTART_SKIP;
use super::section::StepCurve;

/// The DOF tracked and the number of DOFs (its velocity is state `n + dof`).
pub(crate) type Tracked = (usize, usize);

/// Raises `peak` to the largest |x_dof| of the step `d` on `(d.t0, until]`.
pub(crate) fn record_until(peak: &mut f64, (dof, n): Tracked, d: &impl StepCurve, until: f64) {
    let (t0, h) = d.span();
    let x_end = (until - t0) / h;
    let x = d.linear(&[(dof, 1.0)], 0.0);
    let v = d.linear(&[(n + dof, 1.0)], 0.0);
    let at = |s: f64| x.iter().rev().fold(0.0, |acc, c| acc * s + c);
    *peak = peak.max(at(x_end).abs());
    // A polynomial of degree d has at most d roots: the searches are bounded by it.
    for direction in [Direction::Rising, Direction::Falling] {
        let mut s0 = 0.0;
        for _ in 1..v.len() {
            let Search::At(s) = first_crossing(&v, direction, s0) else {
                break;
            };
            if s > x_end {
                break;
            }
            *peak = peak.max(at(s).abs());
            s0 = s + RESTART_SKIP;
        }
    }
}

/// Raises `peak` to |x_dof| of the state `y` (a run's start, or an end reached without a
/// step).
pub(crate) fn record_state(peak: &mut f64, (dof, _): Tracked, y: &[f64]) {
    *peak = peak.max(y[dof].abs());
}
