//! The continuous / stick–slip boundary by modal superposition of Den Hartog's SDOF result
//! (paper 001, eqs. 13–16 and 41–56, 121–123), written for the relative coordinate
//! `w = cᵀx − g` of any wall (see `contact.rs`).
//!
//! Over the half period from a maximum of `w` to the next minimum the friction is a constant
//! force `F c`, so each mode `i` (mass-normalised `ψ_i`, frequency `Ω_i`, `ĉ_i = ψ_iᵀc`,
//! `R_i = ω/Ω_i`) responds to it in closed form and
//!
//! `w'(τ) = −ω²W cos φ sin τ + F Σ_i ĉ_i² R_i [sin(τ/R_i) + R_i u_i (cos τ − cos(τ/R_i))]`
//!
//! (per unit ω), with `W` the friction-free amplitude of `w`, `u_i = tan(π/2R_i)/R_i` (eq. 48;
//! ERRATA: the printed `sin(π/R)/(R(1 + cos(π/R)))` is the same function but loses digits near
//! R = 1) and the phase fixed by `w'(0) = 0`: `ω²W sin φ = −F U`, `U = Σ ĉ_i² R_i² u_i`
//! (eqs. 49–54). The motion has no stop while `w' < 0` on `(0, π)`, i.e. while
//! `ω²W cos φ > F D(τ)` with `D(τ)` the sum above over `sin τ`. Hence
//!
//! `F_lim = ω²|W| / √(U² + D_max²)`.
//!
//! As `τ → 0`, `D → Σ ĉ_i² = cᵀM⁻¹c`, which is the paper's `1/m̄_j` for a ground-fixed wall
//! (eq. 53) and `1/(G m̄)` for two masses (eq. 123): the `S = 1` assumption. The exact
//! `D_max = S/m̄` (eq. 16 for one DOF) takes the maximum over the whole half period.

use super::contact::{dense_km, Setup};
use super::tolerances::{GOLDEN_SECTION_ITERATIONS, STOP_RATIO_SCAN_POINTS};
use nsd_model::system::System;
use std::f64::consts::PI;

/// Den Hartog's `S`: 1 (the paper's assumption) or its exact value, eq. 16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopFactor {
    Unit,
    Exact,
}

/// The slip force `F_lim` below which the motion is continuous (no stops); `NaN` where the
/// modal sums are undefined (exactly at a resonance).
pub fn continuous_limit(sys: &System, s: &Setup, factor: StopFactor) -> f64 {
    let (k, m) = dense_km(sys);
    let Ok(modes) = crate::modes::dense::solve(&m, &k) else {
        return f64::NAN;
    };
    let w2 = s.omega * s.omega;
    // Per mode: ĉ_i² and R_i.
    let mut terms = Vec::with_capacity(modes.omega.len());
    let (mut amplitude, mut u) = (-s.wall_amplitude, 0.0);
    for (i, om) in modes.omega.iter().enumerate() {
        let om2 = om * om;
        let psi = modes.shapes.column(i);
        let c_hat = psi.dot(&s.c);
        let p_hat = psi.dot(&s.load);
        amplitude += c_hat * p_hat / (om2 - w2);
        let r = (w2 / om2).sqrt();
        let tn = (PI / (2.0 * r)).tan();
        u += c_hat * c_hat * r * tn;
        terms.push((c_hat * c_hat, r, tn));
    }
    let d_max = match factor {
        StopFactor::Unit => terms.iter().map(|t| t.0).sum(),
        StopFactor::Exact => max_stop_ratio(&terms),
    };
    w2 * amplitude.abs() / (u * u + d_max * d_max).sqrt()
}

/// `max D(τ)` over `(0, π)` for modal terms `(ĉ², R, tan(π/2R))`: a scan of
/// `STOP_RATIO_SCAN_POINTS` points, then golden-section refinement around the largest sample
/// (D is smooth; near τ = π numerator and `sin τ` vanish together).
fn max_stop_ratio(terms: &[(f64, f64, f64)]) -> f64 {
    let d = |tau: f64| {
        let num: f64 = terms
            .iter()
            .map(|&(c2, r, tn)| c2 * r * ((tau / r).sin() + tn * (tau.cos() - (tau / r).cos())))
            .sum();
        num / tau.sin()
    };
    let at = |k: usize| PI * k as f64 / STOP_RATIO_SCAN_POINTS as f64;
    let (best, _) = (1..STOP_RATIO_SCAN_POINTS).map(|k| (k, d(at(k)))).fold(
        (0, f64::NEG_INFINITY),
        |acc, (k, v)| if v > acc.1 { (k, v) } else { acc },
    );
    let (mut a, mut b) = (at(best - 1), at(best + 1));
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..GOLDEN_SECTION_ITERATIONS {
        let (x1, x2) = (b - g * (b - a), a + g * (b - a));
        if d(x1) > d(x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    let start: f64 = terms.iter().map(|t| t.0).sum();
    d(0.5 * (a + b)).max(start)
}
