//! The harmonic balance of an assembled system (paper 003, eqs. 1–5): the residual
//! `R(Q) = D(ω) Q + F_nl(Q) − F_ex`, its exact Jacobian and `∂R/∂ω`, with `D(ω)` the
//! per-harmonic dynamic stiffness (eq. 5, ERRATA form) and `F_ex` the model's loads on the
//! harmonics of their fundamental. Implements `cont::Problem` with p = ω.

use super::aft::{self, Aft};
use super::elements::{self, Element};
use super::linear::Operator;
use super::tolerances::HARMONIC_MULTIPLE_TOL;
use crate::modes::dense_of;
use nalgebra::{DMatrix, DVector};
use nsd_model::system::System;
use nsd_model::time_fn::TimeFn;
use std::ops::AddAssign;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HbError {
    #[error("`{element}`: {what} is not in the harmonic balance yet")]
    Unsupported { element: String, what: &'static str },
    #[error(transparent)]
    Aft(#[from] aft::AftError),
    #[error(
        "an excitation term at {found} rad/s is not a multiple of the fundamental {omega} rad/s"
    )]
    Excitation { found: f64, omega: f64 },
    #[error("Newton did not converge in {iterations} iterations (residual {residual:e})")]
    NoConvergence { iterations: usize, residual: f64 },
}

/// How piecewise-linear free-play gaps are balanced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapMethod {
    /// Contact intervals from the exact crossings, closed-form integrals (`gap.rs`).
    Exact,
    /// Sampled like the smooth laws (AFT), for comparison.
    Aft,
}

/// One excitation term `A cos(kθ + φ)` on a DOF as `(dof, A, k, φ)`: on harmonic `k`.
type Term = (usize, f64, usize, f64);

/// One excitation term `A cos(Ωt + φ)` on a DOF as `(dof, A, Ω, φ)`, Ω in rad/s.
type Load = (usize, f64, f64, f64);

/// The harmonic-balance form of a system.
pub struct Balance {
    pub(super) n: usize,
    pub aft: Aft,
    pub(super) k: DMatrix<f64>,
    pub(super) m: DMatrix<f64>,
    pub(super) c: DMatrix<f64>,
    pub(super) elements: Vec<Element>,
    /// Every excitation term `A cos(kθ + φ)` on a DOF as `(dof, A, k, φ)`: its harmonic of
    /// the fundamental, which follows ω when the frequency is continued.
    terms: Vec<Term>,
    constant: DVector<f64>,
    /// The model's excitation frequency (the lowest of its terms), rad/s.
    pub fundamental: f64,
    /// A factor on the harmonic excitation (not on constant loads): the `excitation` level
    /// of `continue frf`.
    pub level: f64,
    pub gaps: GapMethod,
    /// The undamped modes of `(M, K)` and their modal damping, once (`condense.rs`; a dense
    /// eigenproblem of n, which the branch's and Hill's condensations share).
    pub(super) modes: std::sync::OnceLock<Option<super::condense::Modes>>,
}

impl Balance {
    pub fn new(sys: &System, harmonics: usize, samples: usize) -> Result<Balance, HbError> {
        let elements = elements::of_system(sys)?;
        let (terms, constant) = loads(sys)?;
        let (fundamental, terms) = on_fundamental(terms)?;
        Ok(Balance {
            n: sys.n(),
            fundamental,
            level: 1.0,
            gaps: GapMethod::Exact,
            terms,
            aft: Aft::new(harmonics, samples)?,
            k: dense_of(&sys.k),
            m: dense_of(&sys.m),
            c: dense_of(&sys.c),
            elements,
            constant,
            modes: std::sync::OnceLock::new(),
        })
    }

    /// The number of unknowns, `n (2H + 1)`.
    pub fn dim(&self) -> usize {
        self.n * self.aft.width()
    }

    /// `F_ex`: the constant loads plus `level` times the harmonic terms.
    pub fn excitation(&self) -> DVector<f64> {
        let mut f = self.level * self.harmonic_excitation();
        f.rows_mut(0, self.n).add_assign(&self.constant);
        f
    }

    /// The excitation terms at level 1, each on its harmonic (the amplitudes do not depend
    /// on ω), without the constant loads: the load a backbone scales (eq. 19's `F_ex`).
    pub(crate) fn harmonic_excitation(&self) -> DVector<f64> {
        let n = self.n;
        let mut f = DVector::zeros(self.dim());
        for &(dof, a, k, phase) in &self.terms {
            if k == 0 {
                f[dof] += a * phase.cos();
            } else if k <= self.aft.harmonics {
                // A cos(kθ + φ) = A cos φ cos kθ − A sin φ sin kθ.
                f[(2 * k - 1) * n + dof] += a * phase.cos();
                f[2 * k * n + dof] -= a * phase.sin();
            }
        }
        f
    }

    /// The excited DOF: the one with the largest harmonic load amplitude `√(c_k² + s_k²)`
    /// over the balanced harmonics `k = 1…H` (ties: the first of them); `None` when no
    /// harmonic load acts. The default monitored DOF of `continue frf`.
    pub fn excited_dof(&self) -> Option<usize> {
        let (n, f) = (self.n, self.excitation());
        let amplitude = |i: usize| {
            (1..=self.aft.harmonics)
                .map(|k| f[(2 * k - 1) * n + i].hypot(f[2 * k * n + i]))
                .fold(0.0, f64::max)
        };
        let mut best: Option<(usize, f64)> = None;
        for i in 0..n {
            let a = amplitude(i);
            if a > best.map_or(0.0, |b| b.1) {
                best = Some((i, a));
            }
        }
        best.map(|b| b.0)
    }

    /// The linear part `D(ω)` (block per harmonic, eq. 5).
    pub fn dynamic_stiffness(&self, omega: f64) -> DMatrix<f64> {
        self.matrix(Operator::Dynamic, omega)
    }

    /// The number of DOFs.
    pub fn dofs(&self) -> usize {
        self.n
    }

    /// DOF `i`'s coefficients in `q` (harmonic-major: the mean, then `cos kωt` and `sin kωt`
    /// per harmonic), the input of `aft.peak`.
    pub fn dof_coefficients(&self, q: &DVector<f64>, i: usize) -> Vec<f64> {
        (0..self.aft.width()).map(|p| q[p * self.n + i]).collect()
    }

    /// The state `[x, ẋ]` at time `t` of the periodic motion with coefficients `q` at `ω`
    /// (harmonic-major: the mean, then `cos kωt` and `sin kωt` per harmonic).
    pub fn state_at(&self, q: &DVector<f64>, omega: f64, t: f64) -> Vec<f64> {
        let n = self.n;
        let mut y = vec![0.0; 2 * n];
        for i in 0..n {
            y[i] = q[i];
            for k in 1..=self.aft.harmonics {
                let (kf, (s, c)) = (k as f64, (k as f64 * omega * t).sin_cos());
                let (ck, sk) = (q[(2 * k - 1) * n + i], q[2 * k * n + i]);
                y[i] += ck * c + sk * s;
                y[n + i] += kf * omega * (sk * c - ck * s);
            }
        }
        y
    }

    /// `R(Q) = D(ω) Q + F_nl(Q) − F_ex`.
    pub fn residual(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.apply(Operator::Dynamic, q, omega) + self.nonlinear(q, omega, false).0
            - self.excitation()
    }

    /// `∂R/∂Q`, exact (AFT Jacobian of the sampled forces).
    pub fn jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        let (_, j) = self.nonlinear(q, omega, true);
        self.dynamic_stiffness(omega) + j.unwrap_or_else(|| DMatrix::zeros(self.dim(), self.dim()))
    }
}

impl crate::cont::Problem for Balance {
    fn dim(&self) -> usize {
        Balance::dim(self)
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        Balance::residual(self, x, p)
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        Balance::jacobian(self, x, p)
    }

    /// `∂R/∂ω = (∂D/∂ω) Q` (the forces here depend on ω only through D).
    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.apply(Operator::Rate, x, p)
    }
}

/// The loads as excitation terms `(dof, A, Ω, φ)` of `A cos(Ωt + φ)` and the constant load:
/// applied forces, and base motion through its springs and (by its derivative) dampers.
fn loads(sys: &System) -> Result<(Vec<Load>, DVector<f64>), HbError> {
    let mut terms = Vec::new();
    let mut constant = DVector::from_column_slice(&sys.static_load);
    let mut add = |dof: usize, f: &TimeFn, scale: f64, derivative: bool| -> Result<(), HbError> {
        let (c0, hs) = f.harmonics().ok_or(HbError::Unsupported {
            element: format!("the load on DOF {dof}"),
            what: "a load that is not a sum of harmonics",
        })?;
        if !derivative {
            constant[dof] += scale * c0;
        }
        for h in hs {
            // d/dt A cos(Ωt + φ) = AΩ cos(Ωt + φ + π/2).
            let (a, phase) = if derivative {
                (h.amplitude * h.omega, h.phase + std::f64::consts::FRAC_PI_2)
            } else {
                (h.amplitude, h.phase)
            };
            terms.push((dof, scale * a, h.omega, phase));
        }
        Ok(())
    };
    for f in &sys.forces {
        add(f.dof, &f.f, 1.0, false)?;
    }
    for b in &sys.base {
        for &(i, k) in &b.stiffness {
            add(i, &b.y, k, false)?;
        }
        for &(i, c) in &b.damping {
            add(i, &b.y, c, true)?;
        }
    }
    Ok((terms, constant))
}

/// The fundamental, the lowest excitation frequency, and every term on its harmonic of it;
/// an error for a term that is not a multiple of the fundamental.
fn on_fundamental(terms: Vec<Load>) -> Result<(f64, Vec<Term>), HbError> {
    let fundamental = terms
        .iter()
        .map(|t| t.2.abs())
        .filter(|w| *w > 0.0)
        .fold(f64::INFINITY, f64::min);
    let mut indexed = Vec::with_capacity(terms.len());
    for (dof, a, w, phase) in terms {
        let k = (w.abs() / fundamental).round();
        if (w.abs() - k * fundamental).abs() > HARMONIC_MULTIPLE_TOL * w.abs() {
            return Err(HbError::Excitation {
                found: w,
                omega: fundamental,
            });
        }
        // A cos(−Ωt + φ) = A cos(Ωt − φ).
        indexed.push((dof, a, k as usize, if w < 0.0 { -phase } else { phase }));
    }
    Ok((fundamental, indexed))
}
