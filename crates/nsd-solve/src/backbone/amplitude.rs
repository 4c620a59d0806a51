//! The monitored amplitude of a backbone, `Am = (√2/2) ‖Q_k‖` over the harmonics 1…H of one
//! DOF (eq. 20, the RMS of its oscillation by Parseval), with its gradient (eq. 23) and
//! Hessian (eq. 64, with the factor √2/2 the printed equation omits — ERRATA), and the
//! largest displacement over the period.

use crate::hb::Balance;
use nalgebra::{DMatrix, DVector};
use std::f64::consts::FRAC_1_SQRT_2;

/// Where DOF `dof`'s coefficients of harmonics 1…H sit in `Q` (`[c₁, s₁, …]`).
pub(super) fn slots(hb: &Balance, dof: usize) -> Vec<usize> {
    slots_in(hb.dofs(), hb.aft.harmonics, dof)
}

/// The same in a harmonic-major layout of `stride` DOFs per coefficient (the kept DOFs of
/// a condensed form, `dof` its place among them).
pub(super) fn slots_in(stride: usize, harmonics: usize, dof: usize) -> Vec<usize> {
    (1..=2 * harmonics).map(|p| p * stride + dof).collect()
}

/// `Am` of DOF `dof` (eq. 20).
pub fn amplitude(hb: &Balance, q: &DVector<f64>, dof: usize) -> f64 {
    amplitude_at(q, &slots(hb, dof))
}

/// `Am` of the coefficients at `at` (`slots`).
pub(super) fn amplitude_at(q: &DVector<f64>, at: &[usize]) -> f64 {
    FRAC_1_SQRT_2 * norm(q, at)
}

fn norm(q: &DVector<f64>, at: &[usize]) -> f64 {
    at.iter().map(|&i| q[i] * q[i]).sum::<f64>().sqrt()
}

/// `∂Am/∂Q` (eq. 23): `(√2/2) Q_k / ‖Q_k‖` on the DOF's slots `at`.
pub(super) fn gradient(q: &DVector<f64>, at: &[usize]) -> DVector<f64> {
    let r = norm(q, at);
    let mut g = DVector::zeros(q.len());
    for &i in at {
        g[i] = FRAC_1_SQRT_2 * q[i] / r;
    }
    g
}

/// `∂²Am/∂Q²` (eq. 64 with √2/2): `(√2/2)(I/‖Q_k‖ − Q_k Q_kᵀ/‖Q_k‖³)` on the DOF's slots
/// `at`.
pub(super) fn hessian(q: &DVector<f64>, at: &[usize]) -> DMatrix<f64> {
    let r = norm(q, at);
    let mut h = DMatrix::zeros(q.len(), q.len());
    for &i in at {
        for &j in at {
            let eye = if i == j { r * r } else { 0.0 };
            h[(i, j)] = FRAC_1_SQRT_2 * (eye - q[i] * q[j]) / (r * r * r);
        }
    }
    h
}

/// The largest `|x(t)|` of DOF `dof` over the period (static term included), refined
/// between the samples (`Aft::peak`).
pub fn max_displacement(hb: &Balance, q: &DVector<f64>, dof: usize) -> f64 {
    let n = hb.dofs();
    let coefs: Vec<f64> = (0..hb.aft.width()).map(|p| q[p * n + dof]).collect();
    hb.aft.peak(&coefs)
}
