//! Harmonic balance (paper 003, eqs. 1–5): the periodic response `x(t) = q0 + Σ c_k cos kωt
//! + s_k sin kωt` of the assembled system solves `R(Q) = D(ω) Q + F_nl(Q) − F_ex = 0` with
//! the per-harmonic dynamic stiffness (eq. 5, ERRATA form)
//! `[[K − (kω)²M, kωC], [−kωC, K − (kω)²M]]` and the nonlinear forces by AFT (`aft.rs`)
//! with their exact Jacobian. Unknowns are harmonic-major: coefficient `p` of DOF `i` is
//! `Q[p·n + i]`, `p = 0, 1, 2, …` for `q0, c1, s1, …`.
//!
//! This is the residual/Jacobian core the continuation (`continue frf`, backbones) builds on;
//! nonlinear laws so far: polynomial springs and exact piecewise-linear free-play gaps.

pub mod aft;

use crate::model::flat::{ContactLaw, Sides};
use crate::model::system::{Attach, Nonlinearity, System};
use crate::model::time_fn::TimeFn;
use crate::solve::modes::dense_of;
use aft::Aft;
use nalgebra::{DMatrix, DVector};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HbError {
    #[error("`{element}`: {what} is not in the harmonic balance yet")]
    Unsupported { element: String, what: &'static str },
    #[error(transparent)]
    Samples(#[from] aft::TooFewSamples),
    #[error(
        "an excitation term at {found} rad/s is not a multiple of the fundamental {omega} rad/s"
    )]
    Excitation { found: f64, omega: f64 },
    #[error("Newton did not converge in {iterations} iterations (residual {residual:e})")]
    NoConvergence { iterations: usize, residual: f64 },
}

/// A nonlinear force on `u = x_a − x_b` (`None` = ground).
#[derive(Debug, Clone, Copy)]
enum Law {
    Polynomial { k2: f64, k3: f64 },
    Gap { k: f64, g: f64, sides: Sides },
}

impl Law {
    /// Force and its derivative with respect to `u`.
    fn eval(self, u: f64) -> (f64, f64) {
        match self {
            Law::Polynomial { k2, k3 } => {
                (k2 * u * u + k3 * u.powi(3), 2.0 * k2 * u + 3.0 * k3 * u * u)
            }
            Law::Gap { k, g, sides } => {
                if u > g && sides != Sides::Negative {
                    (k * (u - g), k)
                } else if u < -g && sides != Sides::Positive {
                    (k * (u + g), k)
                } else {
                    (0.0, 0.0)
                }
            }
        }
    }
}

/// The harmonic-balance form of a system.
pub struct Balance {
    n: usize,
    pub aft: Aft,
    k: DMatrix<f64>,
    m: DMatrix<f64>,
    c: DMatrix<f64>,
    elements: Vec<(Option<usize>, Option<usize>, Law)>,
    /// Every excitation term `A cos(kθ + φ)` on a DOF as `(dof, A, k, φ)`: its harmonic of
    /// the fundamental, which follows ω when the frequency is continued.
    terms: Vec<(usize, f64, usize, f64)>,
    constant: DVector<f64>,
    /// The model's excitation frequency (the lowest of its terms), rad/s.
    pub fundamental: f64,
    /// A factor on the harmonic excitation (not on constant loads): the `excitation` level
    /// of `continue frf`.
    pub level: f64,
}

impl Balance {
    pub fn new(sys: &System, harmonics: usize, samples: usize) -> Result<Balance, HbError> {
        let n = sys.n();
        let side = |a: Attach, name: &str| match a {
            Attach::Dof(i) => Ok(Some(i)),
            Attach::Ground => Ok(None),
            Attach::Base(_) => Err(HbError::Unsupported {
                element: name.into(),
                what: "a nonlinear element on the moving base",
            }),
        };
        let mut elements = Vec::new();
        for e in &sys.nonlinear {
            let law = match &e.law {
                Nonlinearity::Polynomial { k2, k3 } => Law::Polynomial { k2: *k2, k3: *k3 },
                Nonlinearity::Gap(crate::model::flat::Gap {
                    law: ContactLaw::Linear { k },
                    smooth: None,
                    clearance,
                    sides,
                }) => Law::Gap {
                    k: *k,
                    g: *clearance,
                    sides: *sides,
                },
                _ => {
                    return Err(HbError::Unsupported {
                        element: e.name.clone(),
                        what: "this contact law",
                    })
                }
            };
            elements.push((side(e.a[0], &e.name)?, side(e.b[0], &e.name)?, law));
        }
        // Loads: forces, and base motion through its springs and dampers.
        let mut terms = Vec::new();
        let mut constant = DVector::from_column_slice(&sys.static_load);
        let mut add =
            |dof: usize, f: &TimeFn, scale: f64, derivative: bool| -> Result<(), HbError> {
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
        // The fundamental: the lowest excitation frequency; every term a multiple of it.
        let fundamental = terms
            .iter()
            .map(|t| t.2.abs())
            .filter(|w| *w > 0.0)
            .fold(f64::INFINITY, f64::min);
        let mut indexed = Vec::with_capacity(terms.len());
        for (dof, a, w, phase) in terms {
            let k = (w.abs() / fundamental).round();
            if (w.abs() - k * fundamental).abs() > 1e-9 * w.abs() {
                return Err(HbError::Excitation {
                    found: w,
                    omega: fundamental,
                });
            }
            // A cos(−Ωt + φ) = A cos(Ωt − φ).
            indexed.push((dof, a, k as usize, if w < 0.0 { -phase } else { phase }));
        }
        Ok(Balance {
            n,
            fundamental,
            level: 1.0,
            terms: indexed,
            aft: Aft::new(harmonics, samples)?,
            k: dense_of(&sys.k),
            m: dense_of(&sys.m),
            c: dense_of(&sys.c),
            elements,
            constant,
        })
    }

    /// The number of unknowns, `n (2H + 1)`.
    pub fn dim(&self) -> usize {
        self.n * self.aft.width()
    }

    /// `F_ex`: each term on its harmonic, times `level` (the amplitudes do not depend on ω).
    pub fn excitation(&self) -> DVector<f64> {
        let n = self.n;
        let mut f = DVector::zeros(self.dim());
        f.rows_mut(0, n).copy_from(&self.constant);
        for &(dof, a, k, phase) in &self.terms {
            let a = a * self.level;
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

    /// `∂D/∂ω`: `−2k²ω M` on the diagonal blocks, `±kC` off them.
    fn dynamic_stiffness_rate(&self, omega: f64) -> DMatrix<f64> {
        let n = self.n;
        let mut d = DMatrix::zeros(self.dim(), self.dim());
        for k in 1..=self.aft.harmonics {
            let kf = k as f64;
            let diag = -2.0 * kf * kf * omega * &self.m;
            let (c, s) = ((2 * k - 1) * n, 2 * k * n);
            d.view_mut((c, c), (n, n)).copy_from(&diag);
            d.view_mut((s, s), (n, n)).copy_from(&diag);
            d.view_mut((c, s), (n, n)).copy_from(&(kf * &self.c));
            d.view_mut((s, c), (n, n)).copy_from(&(-kf * &self.c));
        }
        d
    }

    /// The linear part `D(ω)` (block per harmonic, eq. 5).
    pub fn dynamic_stiffness(&self, omega: f64) -> DMatrix<f64> {
        let n = self.n;
        let mut d = DMatrix::zeros(self.dim(), self.dim());
        d.view_mut((0, 0), (n, n)).copy_from(&self.k);
        for k in 1..=self.aft.harmonics {
            let w = k as f64 * omega;
            let diag = &self.k - w * w * &self.m;
            let (c, s) = ((2 * k - 1) * n, 2 * k * n);
            d.view_mut((c, c), (n, n)).copy_from(&diag);
            d.view_mut((s, s), (n, n)).copy_from(&diag);
            d.view_mut((c, s), (n, n)).copy_from(&(w * &self.c));
            d.view_mut((s, c), (n, n)).copy_from(&(-w * &self.c));
        }
        d
    }

    /// The coefficients of an element's `u = x_a − x_b`.
    fn relative(&self, q: &DVector<f64>, a: Option<usize>, b: Option<usize>) -> Vec<f64> {
        (0..self.aft.width())
            .map(|p| a.map_or(0.0, |i| q[p * self.n + i]) - b.map_or(0.0, |j| q[p * self.n + j]))
            .collect()
    }

    /// `F_nl(Q)` and, if asked, its Jacobian.
    fn nonlinear(
        &self,
        q: &DVector<f64>,
        omega: f64,
        with_jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        let n = self.n;
        let mut f = DVector::zeros(self.dim());
        let mut jac = with_jacobian.then(|| DMatrix::zeros(self.dim(), self.dim()));
        for &(a, b, law) in &self.elements {
            let u = self.aft.to_time(&self.relative(q, a, b), None);
            let (force, slope): (Vec<f64>, Vec<f64>) = u.iter().map(|&x| law.eval(x)).unzip();
            let coef = self.aft.to_coefficients(&force);
            let je = jac
                .as_ref()
                .map(|_| self.aft.jacobian(&slope, &vec![0.0; slope.len()], omega));
            for (dof, sign) in [(a, 1.0), (b, -1.0)] {
                let Some(i) = dof else { continue };
                for (p, v) in coef.iter().enumerate() {
                    f[p * n + i] += sign * v;
                }
                if let (Some(jac), Some(je)) = (jac.as_mut(), je.as_ref()) {
                    for (other, s2) in [(a, 1.0), (b, -1.0)] {
                        let Some(j) = other else { continue };
                        for p in 0..je.nrows() {
                            for r in 0..je.ncols() {
                                jac[(p * n + i, r * n + j)] += sign * s2 * je[(p, r)];
                            }
                        }
                    }
                }
            }
        }
        (f, jac)
    }

    /// `R(Q) = D(ω) Q + F_nl(Q) − F_ex`.
    pub fn residual(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.dynamic_stiffness(omega) * q + self.nonlinear(q, omega, false).0 - self.excitation()
    }

    /// `∂R/∂Q`, exact (AFT Jacobian of the sampled forces).
    pub fn jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        let (_, j) = self.nonlinear(q, omega, true);
        self.dynamic_stiffness(omega) + j.unwrap_or_else(|| DMatrix::zeros(self.dim(), self.dim()))
    }

    /// Newton's method with backtracking from `q` at fixed ω, to `|R| ≤ tol · max(|F_ex|, 1)`;
    /// returns the solution and the iterations taken.
    pub fn solve(
        &self,
        mut q: DVector<f64>,
        omega: f64,
        tol: f64,
    ) -> Result<(DVector<f64>, usize), HbError> {
        let scale = self.excitation().norm().max(1.0);
        let mut r = self.residual(&q, omega);
        for it in 0..50 {
            if r.norm() <= tol * scale {
                return Ok((q, it));
            }
            let step = self
                .jacobian(&q, omega)
                .lu()
                .solve(&r)
                .ok_or(HbError::NoConvergence {
                    iterations: it,
                    residual: r.norm(),
                })?;
            // Backtracking: halve the step until the residual decreases (20 halvings).
            let norm = r.norm();
            let mut lambda = 1.0;
            loop {
                let trial = &q - lambda * &step;
                let rt = self.residual(&trial, omega);
                if rt.norm() < norm || lambda < 1e-6 {
                    (q, r) = (trial, rt);
                    break;
                }
                lambda *= 0.5;
            }
        }
        Err(HbError::NoConvergence {
            iterations: 50,
            residual: r.norm(),
        })
    }

    /// The linear response (no nonlinear forces): the default initial guess.
    pub fn linear_guess(&self, omega: f64) -> DVector<f64> {
        self.dynamic_stiffness(omega)
            .lu()
            .solve(&self.excitation())
            .unwrap_or_else(|| DVector::zeros(self.dim()))
    }
}

impl Balance {
    /// Floquet exponents by Hill's method: a perturbation `e^{st} Σ φ_p(θ) δ_p` of the
    /// periodic solution gives the quadratic eigenproblem
    /// `(s² M̄ + s (C̄ + 2ω M̄∇) + J(Q)) δ = 0` with `M̄ = I ⊗ M`, `C̄ = I ⊗ C`, `∇` the θ
    /// derivative on the coefficients (`(c_k, s_k) → (k s_k, −k c_k)`) and `J` the balance
    /// Jacobian; it is solved through its companion form. Of its `2n(2H + 1)` roots the `2n`
    /// with the smallest `|Im s|` are the physically meaningful exponents (the others repeat
    /// them shifted by multiples of iω and are spoiled by the truncation).
    pub fn floquet(&self, q: &DVector<f64>, omega: f64) -> Vec<nalgebra::Complex<f64>> {
        let (n, dim) = (self.n, self.dim());
        let mut mbar = DMatrix::zeros(dim, dim);
        let mut a1 = DMatrix::zeros(dim, dim);
        for p in 0..self.aft.width() {
            mbar.view_mut((p * n, p * n), (n, n)).copy_from(&self.m);
            a1.view_mut((p * n, p * n), (n, n)).copy_from(&self.c);
        }
        for k in 1..=self.aft.harmonics {
            let (c, s) = ((2 * k - 1) * n, 2 * k * n);
            let km = 2.0 * omega * k as f64 * &self.m;
            // Row c of M̄∇δ is M (k δ_s); row s is M (−k δ_c).
            a1.view_mut((c, s), (n, n)).copy_from(&km);
            a1.view_mut((s, c), (n, n)).copy_from(&(-km));
        }
        let Some(minv) = mbar.try_inverse() else {
            return vec![];
        };
        let mut companion = DMatrix::zeros(2 * dim, 2 * dim);
        companion
            .view_mut((0, dim), (dim, dim))
            .copy_from(&DMatrix::identity(dim, dim));
        companion
            .view_mut((dim, 0), (dim, dim))
            .copy_from(&(-&minv * self.jacobian(q, omega)));
        companion
            .view_mut((dim, dim), (dim, dim))
            .copy_from(&(-&minv * a1));
        let mut roots: Vec<nalgebra::Complex<f64>> =
            companion.complex_eigenvalues().iter().copied().collect();
        roots.sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        roots.truncate(2 * n);
        roots
    }

    /// Stable when every meaningful Floquet exponent has `Re s < tol`.
    pub fn is_stable(&self, q: &DVector<f64>, omega: f64, tol: f64) -> bool {
        self.floquet(q, omega).iter().all(|s| s.re < tol)
    }
}

impl crate::solve::cont::Problem for Balance {
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
        self.dynamic_stiffness_rate(p) * x
    }
}
