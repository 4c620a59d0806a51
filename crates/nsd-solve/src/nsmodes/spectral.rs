//! The spectral core of paper 004 for a conservative linear system `(M, K)` with one affine
//! gap `g(u) = g₀ − wᵀu` and an elastic impact: the natural frequencies `ω`, the
//! mass-normalised modes `Φ = V⁻ᵀQ` (`M = VVᵀ`, `V⁻¹KV⁻ᵀ = QΩ²Qᵀ`, Sect. 3.1), the contact's
//! modal participation `ρ = Qᵀr₂` and the functions `φ_T`, `ψ_T`, `Υ_T` of eqs. 3.1d–f,
//! 4.35–4.36 (7.8–7.9 for the serial oscillator).
//!
//! With `r₂ = −V⁻¹w₁ G^{-1/2}` (`w₁ = −w` the gap's gradient, `G = wᵀM⁻¹w`, Prop. 2.1) the
//! sign is the paper's Sect. 7 choice: `λⱼ = √G⁻¹ × (approach speed before impact j)` (eq.
//! 7.13), positive for an admissible impact. Carried through eq. 3.1f:
//! `φ_T(σ) = −Σₘ Φₘ ρₘ cos(ωₘσ/2) / (ωₘ sin(ωₘT/2))`, `ψ_T(σ) = Σₘ Φₘ ρₘ sin(ωₘσ/2) /
//! sin(ωₘT/2)`, `Υ_T(σ) = Σₘ ρₘ² sin(ωₘσ/2) / sin(ωₘT/2)`, and the contact coordinate
//! `wᵀφ_T(σ) = −√G Σₘ ρₘ² cos(ωₘσ/2) / (ωₘ sin(ωₘT/2))`.
//!
//! **Near the harmonic lines** (`T → qTᵢ`, `sin(ωᵢT/2) → 0`) every term `i` blows up while
//! the motion stays finite (λ → 0). `Period` carries the functions multiplied by the
//! smallest `s* = sin(ωᵢT/2)`: each weight `s*/sin(ωₘT/2)` is at most 1 in magnitude and the
//! dominant one is exactly 1, so nothing overflows or cancels, and the scale drops out of
//! every product `λⱼ φ_T` (`λ = s* μ`). On a harmonic line itself, `s* = 0` and the motion
//! is the grazing linear mode.

use nalgebra::{DMatrix, DVector};
use std::f64::consts::TAU;

/// `(M, K)` with one gap `g(u) = g₀ − wᵀu`, in modal form.
#[derive(Debug, Clone)]
pub struct Oscillator {
    /// Natural frequencies `ω₁ ≤ … ≤ ωₙ` (rad/s).
    pub omega: Vec<f64>,
    /// Mass-normalised mode shapes `Φ` (columns), `ΦᵀMΦ = I`.
    shapes: DMatrix<f64>,
    /// The contact's modal participation `ρ = ΦᵀW/√G` (unit norm).
    pub(crate) rho: Vec<f64>,
    /// `√G = √(wᵀM⁻¹w)`.
    pub(crate) sqrt_g: f64,
    /// The gap at rest `g₀`.
    pub(crate) g0: f64,
    /// The gap's direction `w` (`g = g₀ − wᵀu`).
    pub w: DVector<f64>,
    m: DMatrix<f64>,
    k: DMatrix<f64>,
}

/// Why the spectral core cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpectralError {
    #[error("the mass matrix is not positive definite")]
    Mass,
    #[error("the stiffness matrix is not positive definite (smallest eigenvalue {0:e}): a free rigid-body motion has no period")]
    Stiffness(f64),
    #[error("the gap does not involve any DOF")]
    Gap,
}

impl Oscillator {
    pub fn new(
        m: DMatrix<f64>,
        k: DMatrix<f64>,
        w: DVector<f64>,
        g0: f64,
    ) -> Result<Oscillator, SpectralError> {
        let v = m.clone().cholesky().ok_or(SpectralError::Mass)?.unpack();
        let v_inv = v.clone().try_inverse().ok_or(SpectralError::Mass)?;
        let a = &v_inv * &k * v_inv.transpose();
        let a = (&a + a.transpose()) * 0.5;
        let eig = a.symmetric_eigen();
        let mut order: Vec<usize> = (0..eig.eigenvalues.len()).collect();
        order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
        let smallest = order.first().map_or(0.0, |&i| eig.eigenvalues[i]);
        if smallest <= 0.0 {
            return Err(SpectralError::Stiffness(smallest));
        }
        let omega: Vec<f64> = order.iter().map(|&i| eig.eigenvalues[i].sqrt()).collect();
        let q = DMatrix::from_fn(m.nrows(), order.len(), |r, c| {
            eig.eigenvectors[(r, order[c])]
        });
        let shapes = v_inv.transpose() * q;
        let participation = shapes.transpose() * &w;
        let sqrt_g = participation.norm();
        if sqrt_g == 0.0 {
            return Err(SpectralError::Gap);
        }
        let rho = participation.iter().map(|p| p / sqrt_g).collect();
        Ok(Oscillator {
            omega,
            shapes,
            rho,
            sqrt_g,
            g0,
            w,
            m,
            k,
        })
    }

    pub fn n(&self) -> usize {
        self.omega.len()
    }

    /// The shortest linear period `2π/ωₙ` (`omega` is ascending): the scale of the root
    /// scans.
    pub(crate) fn shortest_period(&self) -> f64 {
        self.omega.last().map_or(f64::INFINITY, |w| TAU / w)
    }

    /// The functions at period `T`, scaled by the smallest `sin(ωᵢT/2)`.
    pub fn at(&self, period: f64) -> Period<'_> {
        let sines: Vec<f64> = self
            .omega
            .iter()
            .map(|w| (0.5 * w * period).sin())
            .collect();
        let scale = sines
            .iter()
            .copied()
            .min_by(|a, b| a.abs().total_cmp(&b.abs()))
            .unwrap_or(1.0);
        let weights = sines
            .iter()
            .map(|s| if *s == scale { 1.0 } else { scale / s })
            .collect();
        Period {
            osc: self,
            period,
            scale,
            weights,
        }
    }

    /// The impact law's velocity map `N₂ = I − 2 M⁻¹ w₁ G⁻¹ w₁ᵀ` (Prop. 2.1, eq. 2.8 after
    /// eq. 4.8).
    pub fn impact_map(&self) -> DMatrix<f64> {
        let m_inv_w = &self.shapes * (self.shapes.transpose() * &self.w);
        let g = self.sqrt_g * self.sqrt_g;
        DMatrix::identity(self.n(), self.n()) - (m_inv_w * self.w.transpose()) * (2.0 / g)
    }

    /// The energy `½(vᵀMv + uᵀKu)`.
    pub fn energy(&self, u: &DVector<f64>, v: &DVector<f64>) -> f64 {
        0.5 * (v.dot(&(&self.m * v)) + u.dot(&(&self.k * u)))
    }
}

/// The functions of one period `T`, each multiplied by `scale = s*` (see the module doc).
#[derive(Debug, Clone)]
pub struct Period<'a> {
    pub(crate) osc: &'a Oscillator,
    pub(crate) period: f64,
    /// `s*`, the `sin(ωᵢT/2)` of smallest magnitude (0 on a harmonic line).
    pub(crate) scale: f64,
    /// `s*/sin(ωₘT/2)` per mode.
    weights: Vec<f64>,
}

impl Period<'_> {
    /// `s*/sin(ωₘT/2)`.
    pub(crate) fn weight(&self, m: usize) -> f64 {
        self.weights[m]
    }

    /// `s* φ_T(σ)` (positions).
    pub(crate) fn phi(&self, sigma: f64) -> DVector<f64> {
        let o = self.osc;
        let coef = DVector::from_fn(o.n(), |m, _| {
            -o.rho[m] * (0.5 * o.omega[m] * sigma).cos() * self.weights[m] / o.omega[m]
        });
        &o.shapes * coef
    }

    /// `s* ψ_T(σ)` (velocities).
    pub(crate) fn psi(&self, sigma: f64) -> DVector<f64> {
        let o = self.osc;
        let coef = DVector::from_fn(o.n(), |m, _| {
            o.rho[m] * (0.5 * o.omega[m] * sigma).sin() * self.weights[m]
        });
        &o.shapes * coef
    }

    /// `s* wᵀφ_T(σ)`: the contact coordinate of `φ_T` (`φ_{n,T}` of eq. 7.8 for the serial
    /// oscillator with `w = e_n`, up to `√m_n`).
    pub(crate) fn phi_contact(&self, sigma: f64) -> f64 {
        let o = self.osc;
        -o.sqrt_g
            * (0..o.n())
                .map(|m| {
                    o.rho[m] * o.rho[m] * (0.5 * o.omega[m] * sigma).cos() * self.weights[m]
                        / o.omega[m]
                })
                .sum::<f64>()
    }

    /// `s* Υ_T(σ)` (eq. 3.1d).
    pub(crate) fn upsilon(&self, sigma: f64) -> f64 {
        let o = self.osc;
        (0..o.n())
            .map(|m| o.rho[m] * o.rho[m] * (0.5 * o.omega[m] * sigma).sin() * self.weights[m])
            .sum()
    }

    /// `s* Σ` for the impact times `t₁ < … < t_k = T` (eq. 3.1e / 4.32):
    /// `Σᵢⱼ = −wᵀφ_T(2(tᵢ − tⱼ) + T)` for `i ≤ j`, symmetric.
    pub fn sigma_matrix(&self, times: &[f64]) -> DMatrix<f64> {
        let k = times.len();
        let mut s = DMatrix::zeros(k, k);
        for i in 0..k {
            for j in i..k {
                let v = -self.phi_contact(2.0 * (times[i] - times[j]) + self.period);
                s[(i, j)] = v;
                s[(j, i)] = v;
            }
        }
        s
    }

    /// `s* Π` for the impact times (eq. 3.1c): `Πᵢⱼ = Υ_T(2(tⱼ − tᵢ) − T)` for `i < j`,
    /// skew-symmetric.
    pub fn pi_matrix(&self, times: &[f64]) -> DMatrix<f64> {
        let k = times.len();
        let mut p = DMatrix::zeros(k, k);
        for i in 0..k {
            for j in i + 1..k {
                let v = self.upsilon(2.0 * (times[j] - times[i]) - self.period);
                p[(i, j)] = v;
                p[(j, i)] = -v;
            }
        }
        p
    }
}
