//! The motion / no-motion boundary (paper 001, Sects. 2.5, 2.6.3, 3.3 and 4.3).
//!
//! No relative motion is possible when the contact can hold `w ≡ 0`: the system then responds
//! linearly under the constraint, and the wall must supply the constraint force λ. With
//! `A = K − ω²M` the steady state solves the bordered system
//!
//! `[A  c; cᵀ  0] [X; λ] = [P; g]`,
//!
//! and the contact stays stuck for a slip force `F ≥ |λ|` (the paper's "amplitude of the
//! dynamic load on the mass held in contact", e.g. eqs. 63, 89, 94, 128). λ is infinite at the
//! resonances of the constrained ("lower") subsystem that load the contact, the boundary's
//! peaks, and zero at its antiresonances. Everything comes from the assembled M, K and load,
//! so the same code serves any chain and any of the three walls.

use super::contact::{constrained, dense_km, Setup};
use super::tolerances::{
    RESONANCE_SIDE_OFFSET, SIDES_AGREE_TOL, SIGN_BISECTIONS, SIGN_SCAN_POINTS,
};
use nalgebra::DMatrix;
use nsd_model::system::System;

/// The signed holding force λ (amplitude of `cos ωt`); infinite at a constrained resonance
/// that loads the contact. At one that does not (a mode the constraint isolates from the
/// load, e.g. a mass above the held one), the bordered matrix is singular but λ is continuous:
/// its value is taken as the mean on both sides, `ω(1 ± RESONANCE_SIDE_OFFSET)`.
pub fn holding_force(sys: &System, s: &Setup) -> f64 {
    let (k, m) = dense_km(sys);
    let at = |omega: f64| constraint_force(&k, &m, s, omega);
    let lambda = at(s.omega);
    if lambda.is_finite() {
        return lambda;
    }
    let (below, above) = (
        at(s.omega * (1.0 - RESONANCE_SIDE_OFFSET)),
        at(s.omega * (1.0 + RESONANCE_SIDE_OFFSET)),
    );
    if (below - above).abs() <= SIDES_AGREE_TOL * below.abs().max(above.abs()) {
        0.5 * (below + above)
    } else {
        f64::INFINITY
    }
}

fn constraint_force(k: &DMatrix<f64>, m: &DMatrix<f64>, s: &Setup, omega: f64) -> f64 {
    match constrained(&(k - omega * omega * m), &s.c, &s.load, s.wall_amplitude) {
        Some((_, lambda)) if lambda.is_finite() => lambda,
        _ => f64::INFINITY,
    }
}

/// The infinite peaks and the zeros (antiresonances) of a signed holding force `λ(x)` along a
/// swept parameter, from its sign changes on `xs` (each interval scanned at
/// `SIGN_SCAN_POINTS` sub-points so that a peak and a zero one grid step apart are both seen;
/// a sample exactly on a resonance is a peak) refined by bisection (`SIGN_BISECTIONS`). A sign
/// change is a peak when `|λ|` grows as the bracket shrinks, a zero when it falls.
pub fn peaks_and_antiresonances(xs: &[f64], lambda: impl Fn(f64) -> f64) -> (Vec<f64>, Vec<f64>) {
    let (mut peaks, mut zeros) = (Vec::new(), Vec::new());
    let mut scan: Vec<f64> = Vec::with_capacity(SIGN_SCAN_POINTS * xs.len());
    for w in xs.windows(2) {
        scan.extend(
            (0..SIGN_SCAN_POINTS)
                .map(|k| w[0] + (w[1] - w[0]) * k as f64 / SIGN_SCAN_POINTS as f64),
        );
    }
    scan.extend(xs.last());
    let values: Vec<f64> = scan.iter().map(|&x| lambda(x)).collect();
    // A sample exactly on a resonance.
    peaks.extend(
        scan.iter()
            .zip(&values)
            .filter(|(_, v)| v.is_infinite())
            .map(|(x, _)| *x),
    );
    for (i, w) in values.windows(2).enumerate() {
        if !(w[0].is_finite() && w[1].is_finite()) || w[0].signum() == w[1].signum() {
            continue;
        }
        let (mut a, mut b, mut fa) = (scan[i], scan[i + 1], w[0]);
        let outer = w[0].abs().max(w[1].abs());
        for _ in 0..SIGN_BISECTIONS {
            let mid = 0.5 * (a + b);
            if mid <= a || mid >= b {
                break;
            }
            let fm = lambda(mid);
            if fm.signum() == fa.signum() {
                (a, fa) = (mid, fm);
            } else {
                b = mid;
            }
        }
        let x = 0.5 * (a + b);
        if fa.abs() > outer {
            peaks.push(x);
        } else {
            zeros.push(x);
        }
    }
    peaks.sort_by(f64::total_cmp);
    (peaks, zeros)
}
