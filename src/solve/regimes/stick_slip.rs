//! The continuous / stick–slip boundary of a system with one ground-fixed Coulomb contact
//! under harmonic base motion, by modal superposition of Den Hartog's SDOF result (paper 001,
//! eqs. 13–15 and 39–54, with S = 1):
//!
//! `β_j,lim = √(V_j² / (U_j² + (1/m̄_j)²))`, `V_j = Σ_i ψ_ji P̂_i R_i²/(1 − R_i²)` (eq. 41),
//! `U_j = Σ_i ψ_ji² R_i² u_i` (eq. 54), `u_i = tan(π/2R_i)/R_i` (eq. 48; ERRATA: the printed
//! `sin(π/R)/(R(1 + cos(π/R)))` is the same function but loses digits near R = 1),
//! `R_i = ω/Ω_i`, `P̂_i = ψ_iᵀ p`, `ψ` mass-normalised, `m̄_j = M_jj`.
//!
//! Below the boundary the motion is continuous, above it stick–slip (up to the no-motion
//! threshold of `no_motion.rs`).

use super::no_motion::{base_force, Setup};
use crate::model::system::System;
use crate::solve::modes::{modes, Contacts, ModesError};

/// `β_lim` at the system's parameters (its masses carry the frequency ratio).
pub fn continuous_limit(sys: &System, s: &Setup) -> Result<f64, ModesError> {
    let m = modes(sys, Contacts::Open, None)?;
    let p = base_force(sys, s);
    let j = s.contact;
    let (mut v, mut u) = (0.0, 0.0);
    for (i, omega_i) in m.omega.iter().enumerate() {
        let psi = m.shapes.column(i);
        let r = s.omega / omega_i;
        let p_hat: f64 = psi.iter().zip(p.iter()).map(|(a, b)| a * b).sum();
        v += psi[j] * p_hat * r * r / (1.0 - r * r);
        let u_i = (std::f64::consts::PI / (2.0 * r)).tan() / r;
        u += psi[j] * psi[j] * r * r * u_i;
    }
    let m_jj = sys.m.get(j, j).copied().unwrap_or(0.0);
    Ok((v * v / (u * u + (1.0 / m_jj).powi(2))).sqrt())
}
