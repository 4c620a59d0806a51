//! Harmonic balance (paper 003, eqs. 1–5): the periodic response `x(t) = q0 + Σ c_k cos kωt
//! + s_k sin kωt` of the assembled system solves `R(Q) = D(ω) Q + F_nl(Q) − F_ex = 0` with
//! the per-harmonic dynamic stiffness (eq. 5, ERRATA form)
//! `[[K − (kω)²M, kωC], [−kωC, K − (kω)²M]]` and the nonlinear forces by AFT (`aft.rs`)
//! with their exact Jacobian. Unknowns are harmonic-major: coefficient `p` of DOF `i` is
//! `Q[p·n + i]`, `p = 0, 1, 2, …` for `q0, c1, s1, …`.
//!
//! This is the residual/Jacobian core the continuation (`continue frf`, backbones) builds on.
//! Polynomial springs and smoothed gaps go through the AFT; piecewise-linear free-play gaps
//! through their exact contact intervals (`gap.rs`; by AFT on request, `GapMethod`); Jenkins
//! elements and 2-D friction contacts through the exact friction element (`friction.rs`,
//! paper 003 eqs. 24–43), which acts on the harmonics only (no static component, as in the
//! paper).

pub mod aft;
pub mod condense;
pub mod friction;
pub mod gap;

use crate::model::flat::{ContactLaw, Friction, Sides};
use crate::model::system::{Attach, Nonlinearity, System};
use crate::model::time_fn::TimeFn;
use crate::solve::modes::dense_of;
use aft::Aft;
use friction::FrictionContact;
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

/// How piecewise-linear free-play gaps are balanced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapMethod {
    /// Contact intervals from the exact crossings, closed-form integrals (`gap.rs`).
    Exact,
    /// Sampled like the smooth laws (AFT), for comparison.
    Aft,
}

/// A nonlinear force on `u = x_a − x_b` (`None` = ground).
#[derive(Debug, Clone, Copy)]
enum Law {
    Polynomial {
        k2: f64,
        k3: f64,
    },
    Gap {
        k: f64,
        g: f64,
        sides: Sides,
    },
    /// A free-play gap with smoothed switches (paper 000, eq. 8).
    Smoothed {
        k: f64,
        g: f64,
        sides: Sides,
        s: crate::model::flat::Smoothing,
    },
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
            Law::Smoothed { k, g, sides, s } => {
                crate::model::smoothing::gap_force(k, g, sides, s, u)
            }
        }
    }
}

/// A nonlinear element of the balance.
#[derive(Debug, Clone)]
enum Element {
    /// A scalar law on `u = x_a − x_b` (`None` = ground), by AFT.
    Sampled {
        a: Option<usize>,
        b: Option<usize>,
        law: Law,
    },
    /// A friction contact: the DOF weights of its tangential and normal relative
    /// displacements (`u = Σ w q`; the forces act back through the same weights).
    Friction {
        tangent: Vec<(usize, f64)>,
        normal: Vec<(usize, f64)>,
        contact: FrictionContact,
    },
}

/// The harmonic-balance form of a system.
pub struct Balance {
    n: usize,
    pub aft: Aft,
    k: DMatrix<f64>,
    m: DMatrix<f64>,
    c: DMatrix<f64>,
    elements: Vec<Element>,
    /// Every excitation term `A cos(kθ + φ)` on a DOF as `(dof, A, k, φ)`: its harmonic of
    /// the fundamental, which follows ω when the frequency is continued.
    terms: Vec<(usize, f64, usize, f64)>,
    constant: DVector<f64>,
    /// The model's excitation frequency (the lowest of its terms), rad/s.
    pub fundamental: f64,
    /// A factor on the harmonic excitation (not on constant loads): the `excitation` level
    /// of `continue frf`.
    pub level: f64,
    pub gaps: GapMethod,
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
            let sampled = |law| -> Result<Element, HbError> {
                Ok(Element::Sampled {
                    a: side(e.a[0], &e.name)?,
                    b: side(e.b[0], &e.name)?,
                    law,
                })
            };
            // DOF weights of Σ_d coef_d (x_a,d − x_b,d) over the element's directions.
            let weights = |coefs: &[f64]| -> Result<Vec<(usize, f64)>, HbError> {
                let mut w = Vec::new();
                for (d, &coef) in coefs.iter().enumerate() {
                    for (at, sign) in [(e.a[d], 1.0), (e.b[d], -1.0)] {
                        if let Some(i) = side(at, &e.name)? {
                            w.push((i, sign * coef));
                        }
                    }
                }
                Ok(w)
            };
            elements.push(match &e.law {
                Nonlinearity::Polynomial { k2, k3 } => sampled(Law::Polynomial { k2: *k2, k3: *k3 })?,
                Nonlinearity::Gap(crate::model::flat::Gap {
                    law: ContactLaw::Linear { k },
                    smooth: None,
                    clearance,
                    sides,
                }) => sampled(Law::Gap {
                    k: *k,
                    g: *clearance,
                    sides: *sides,
                })?,
                Nonlinearity::Gap(crate::model::flat::Gap {
                    law: ContactLaw::Linear { k },
                    smooth: Some(s),
                    clearance,
                    sides,
                }) => sampled(Law::Smoothed {
                    k: *k,
                    g: *clearance,
                    sides: *sides,
                    s: *s,
                })?,
                // A Jenkins element is the contact with a constant load: μ N₀ = F, k_y = 0.
                Nonlinearity::Friction(Friction::Jenkins { kt, slip_force }) => Element::Friction {
                    tangent: weights(&[1.0])?,
                    normal: Vec::new(),
                    contact: FrictionContact {
                        kx: *kt,
                        ky: 0.0,
                        mu: 1.0,
                        n0: *slip_force,
                    },
                },
                // Tangent t = (cos α, sin α), normal n = (−sin α, cos α) in the plane of the
                // element's two directions; u_n > 0 compresses the contact.
                Nonlinearity::Friction(Friction::Contact2d {
                    kt,
                    kn,
                    mu,
                    n0,
                    angle,
                    ..
                }) => {
                    let (s, c) = angle.sin_cos();
                    Element::Friction {
                        tangent: weights(&[c, s])?,
                        normal: weights(&[-s, c])?,
                        contact: FrictionContact {
                            kx: *kt,
                            ky: *kn,
                            mu: *mu,
                            n0: *n0,
                        },
                    }
                }
                _ => {
                    return Err(HbError::Unsupported {
                        element: e.name.clone(),
                        what: "this contact law (rigid Coulomb contacts, rigid stops and compliant gaps other than `linear(k)`)",
                    })
                }
            });
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
            gaps: GapMethod::Exact,
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

    /// Harmonic `k`'s block of `D(ω)` and of `∂D/∂ω`: `K` (and 0) for the static term, else
    /// `[[K − (kω)²M, kωC], [−kωC, K − (kω)²M]]` (eq. 5) and `[[−2k²ωM, kC], [−kC, −2k²ωM]]`
    /// in `(c_k, s_k)` order.
    pub(crate) fn block(&self, k: usize, omega: f64) -> (DMatrix<f64>, DMatrix<f64>) {
        let n = self.n;
        if k == 0 {
            return (self.k.clone(), DMatrix::zeros(n, n));
        }
        let (kf, w) = (k as f64, k as f64 * omega);
        let (mut d, mut rate) = (DMatrix::zeros(2 * n, 2 * n), DMatrix::zeros(2 * n, 2 * n));
        let diag = &self.k - w * w * &self.m;
        let diag_rate = -2.0 * kf * w * &self.m;
        for (r, c, dv, rv) in [
            (0, 0, diag.clone(), diag_rate.clone()),
            (n, n, diag, diag_rate),
            (0, n, w * &self.c, kf * &self.c),
            (n, 0, -w * &self.c, -kf * &self.c),
        ] {
            d.view_mut((r, c), (n, n)).copy_from(&dv);
            rate.view_mut((r, c), (n, n)).copy_from(&rv);
        }
        (d, rate)
    }

    /// `D(ω)` (`rate = false`) or `∂D/∂ω`, block-diagonal over the harmonics.
    fn assembled(&self, omega: f64, rate: bool) -> DMatrix<f64> {
        let n = self.n;
        let mut d = DMatrix::zeros(self.dim(), self.dim());
        for k in 0..=self.aft.harmonics {
            let (value, derivative) = self.block(k, omega);
            let at = if k == 0 { 0 } else { (2 * k - 1) * n };
            let b = if rate { derivative } else { value };
            d.view_mut((at, at), (b.nrows(), b.ncols())).copy_from(&b);
        }
        d
    }

    fn dynamic_stiffness_rate(&self, omega: f64) -> DMatrix<f64> {
        self.assembled(omega, true)
    }

    /// The linear part `D(ω)` (block per harmonic, eq. 5).
    pub fn dynamic_stiffness(&self, omega: f64) -> DMatrix<f64> {
        self.assembled(omega, false)
    }

    /// The DOFs the nonlinear elements act on (ascending).
    pub fn nonlinear_dofs(&self) -> Vec<usize> {
        let mut dofs: Vec<usize> = self
            .elements
            .iter()
            .flat_map(|e| match e {
                Element::Sampled { a, b, .. } => [*a, *b].into_iter().flatten().collect::<Vec<_>>(),
                Element::Friction {
                    tangent, normal, ..
                } => tangent.iter().chain(normal).map(|(i, _)| *i).collect(),
            })
            .collect();
        dofs.sort_unstable();
        dofs.dedup();
        dofs
    }

    /// The number of DOFs.
    pub fn dofs(&self) -> usize {
        self.n
    }

    /// The coefficients of an element's `u = x_a − x_b`.
    fn relative(&self, q: &DVector<f64>, a: Option<usize>, b: Option<usize>) -> Vec<f64> {
        (0..self.aft.width())
            .map(|p| a.map_or(0.0, |i| q[p * self.n + i]) - b.map_or(0.0, |j| q[p * self.n + j]))
            .collect()
    }

    /// `F_nl(Q)` and, if asked, its Jacobian.
    pub(crate) fn nonlinear(
        &self,
        q: &DVector<f64>,
        omega: f64,
        with_jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        let mut f = DVector::zeros(self.dim());
        let mut jac = with_jacobian.then(|| DMatrix::zeros(self.dim(), self.dim()));
        for element in &self.elements {
            match element {
                Element::Sampled { a, b, law } => {
                    self.add_sampled(q, omega, (*a, *b, *law), &mut f, jac.as_mut())
                }
                Element::Friction {
                    tangent,
                    normal,
                    contact,
                } => self.add_friction(q, tangent, normal, contact, &mut f, jac.as_mut()),
            }
        }
        (f, jac)
    }

    /// A scalar element's forces (and Jacobian) added to `f` (and `jac`).
    fn add_sampled(
        &self,
        q: &DVector<f64>,
        omega: f64,
        (a, b, law): (Option<usize>, Option<usize>, Law),
        f: &mut DVector<f64>,
        jac: Option<&mut DMatrix<f64>>,
    ) {
        let n = self.n;
        let uq = self.relative(q, a, b);
        let (coef, je) = match (law, self.gaps) {
            (Law::Gap { k, g, sides }, GapMethod::Exact) => {
                gap::forces(&uq, k, g, sides, jac.is_some())
            }
            _ => {
                let u = self.aft.to_time(&uq, None);
                let (force, slope): (Vec<f64>, Vec<f64>) = u.iter().map(|&x| law.eval(x)).unzip();
                let je = jac
                    .is_some()
                    .then(|| self.aft.jacobian(&slope, &vec![0.0; slope.len()], omega));
                (self.aft.to_coefficients(&force), je)
            }
        };
        let mut jac = jac;
        for (dof, sign) in [(a, 1.0), (b, -1.0)] {
            let Some(i) = dof else { continue };
            for (p, v) in coef.iter().enumerate() {
                f[p * n + i] += sign * v;
            }
            if let (Some(jac), Some(je)) = (jac.as_deref_mut(), je.as_ref()) {
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

    /// A friction contact's harmonic forces (and stiffness) added to `f` (and `jac`): its
    /// displacement harmonics are `X = Σ w_t q`, `Y = Σ w_n q` (harmonics 1…H, coefficient
    /// `p ≥ 1`), its forces act back as `w_t F_x + w_n F_y`.
    fn add_friction(
        &self,
        q: &DVector<f64>,
        tangent: &[(usize, f64)],
        normal: &[(usize, f64)],
        contact: &FrictionContact,
        f: &mut DVector<f64>,
        jac: Option<&mut DMatrix<f64>>,
    ) {
        let (n, h2) = (self.n, 2 * self.aft.harmonics);
        let project = |w: &[(usize, f64)]| -> Vec<f64> {
            (1..=h2)
                .map(|p| w.iter().map(|&(i, wi)| wi * q[p * n + i]).sum())
                .collect()
        };
        let out = contact.forces(&project(tangent), &project(normal));
        for p in 0..h2 {
            for &(i, wi) in tangent {
                f[(p + 1) * n + i] += wi * out.fx[p];
            }
            for &(i, wi) in normal {
                f[(p + 1) * n + i] += wi * out.fy[p];
            }
        }
        let Some(jac) = jac else { return };
        let blocks = [
            (tangent, tangent, &out.dfx_dx),
            (tangent, normal, &out.dfx_dy),
            (normal, normal, &out.dfy_dy),
        ];
        for (rows, cols, block) in blocks {
            for &(i, wi) in rows {
                for &(j, wj) in cols {
                    for p in 0..h2 {
                        for r in 0..h2 {
                            jac[((p + 1) * n + i, (r + 1) * n + j)] += wi * wj * block[(p, r)];
                        }
                    }
                }
            }
        }
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

    /// Newton's method with backtracking from `q` at fixed ω (`cont::newton`), to
    /// `|R| ≤ tol · max(|F_ex|, 1)`; returns the solution and the iterations taken.
    pub fn solve(
        &self,
        q: DVector<f64>,
        omega: f64,
        tol: f64,
    ) -> Result<(DVector<f64>, usize), HbError> {
        let scale = self.excitation().norm().max(1.0);
        crate::solve::cont::newton(self, q.clone(), omega, tol * scale).ok_or_else(|| {
            HbError::NoConvergence {
                iterations: 50,
                residual: self.residual(&q, omega).norm(),
            }
        })
    }

    /// The response of the linear part alone (nonlinear forces ignored: gaps open, friction
    /// contacts free): the guess for strongly driven contacts.
    pub fn free_guess(&self, omega: f64) -> DVector<f64> {
        self.dynamic_stiffness(omega)
            .lu()
            .solve(&self.excitation())
            .unwrap_or_else(|| DVector::zeros(self.dim()))
    }

    /// The response linearised at rest — one Newton step from `Q = 0`, so open gaps are
    /// open and friction contacts stuck (their springs `k_t`, `k_n`): the default initial
    /// guess.
    pub fn linear_guess(&self, omega: f64) -> DVector<f64> {
        crate::solve::cont::linearised(self, omega)
    }

    /// The solution at ω reached harmonic by harmonic from `linear_guess`: Newton with
    /// backtracking on the first `h` harmonics (the others held at zero) for `h = 1 … H`,
    /// each from the previous solution. From a one-harmonic guess, the first Newton step of
    /// the full balance can be thrown far by a higher harmonic near a resonance of the
    /// contact-stiffened system (free-play with H ≥ 5); the ramp adds them one at a time.
    /// Where a stage does not converge, the last solution reached is returned (a guess).
    pub fn ramped_guess(&self, omega: f64) -> DVector<f64> {
        let mut q = self.linear_guess(omega);
        let tol = 1e-12 * self.excitation().norm().max(1.0);
        for h in 1..=self.aft.harmonics {
            let leading = Leading {
                hb: self,
                len: (2 * h + 1) * self.n,
            };
            let start = q.rows(0, leading.len).into_owned();
            match crate::solve::cont::newton(&leading, start, omega, tol) {
                Some((x, _)) => q.rows_mut(0, leading.len).copy_from(&x),
                None => break,
            }
        }
        q
    }
}

/// The balance restricted to its leading harmonics (the unknowns beyond `len` zero, their
/// equations dropped), for `Balance::ramped_guess`.
struct Leading<'a> {
    hb: &'a Balance,
    len: usize,
}

impl Leading<'_> {
    fn padded(&self, x: &DVector<f64>) -> DVector<f64> {
        let mut q = DVector::zeros(self.hb.dim());
        q.rows_mut(0, self.len).copy_from(x);
        q
    }
}

impl crate::solve::cont::Problem for Leading<'_> {
    fn dim(&self) -> usize {
        self.len
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.hb
            .residual(&self.padded(x), p)
            .rows(0, self.len)
            .into_owned()
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let j = self.hb.jacobian(&self.padded(x), p);
        j.view((0, 0), (self.len, self.len)).into_owned()
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let d = self.hb.dynamic_stiffness_rate(p) * self.padded(x);
        d.rows(0, self.len).into_owned()
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
        let mut roots: Vec<nalgebra::Complex<f64>> = balanced(companion)
            .complex_eigenvalues()
            .iter()
            .copied()
            .collect();
        roots.sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        physical(roots, 2 * n, omega)
    }

    /// Stable when every meaningful Floquet exponent has `Re s < tol · (|s| + ω)`: relative,
    /// because the companion eigenproblem of a stiff structure (beam modes up to 1e6 rad/s
    /// next to a first one of 1e3) carries round-off of `ε ‖A‖` in the real parts.
    pub fn is_stable(&self, q: &DVector<f64>, omega: f64, tol: f64) -> bool {
        !self.floquet(q, omega).iter().any(|s| grows(s, omega, tol))
    }
}

/// Whether a Floquet exponent makes perturbations grow: `Re s ≥ tol · (|s| + ω)` (the rule
/// The `count` physically meaningful exponents among Hill's roots sorted by `|Im s|`. A
/// multiplier on the negative real axis (`e^{sT} < 0`: `Im s = ±ω/2`) appears twice at the
/// same `|Im s|`, as `a + iω/2` and its shifted copy `a − iω/2` (with the truncation's noise
/// on both): a root whose multiplier an already kept root of opposite `Im` sign has, with
/// `|Im|` summing to ω, is such a copy and skipped (1e-3 relative: truncation leaves ~1e-5).
/// Otherwise a tie in `|Im s|` picks one multiplier twice and drops another, and a
/// period-doubling branch flickers between stable and unstable.
fn physical(
    sorted: Vec<nalgebra::Complex<f64>>,
    count: usize,
    omega: f64,
) -> Vec<nalgebra::Complex<f64>> {
    let period = std::f64::consts::TAU / omega;
    let mut kept: Vec<nalgebra::Complex<f64>> = Vec::with_capacity(count);
    for s in sorted {
        if kept.len() == count {
            break;
        }
        let mu = (s * period).exp();
        let copy = kept.iter().any(|k| {
            k.im.signum() != s.im.signum()
                && (k.im.abs() + s.im.abs() - omega).abs() <= 1e-3 * omega
                && ((k * period).exp() - mu).norm() <= 1e-3 * mu.norm()
        });
        if !copy {
            kept.push(s);
        }
    }
    kept
}

/// The unstable Floquet exponents of a point by kind: real (`Im s ≈ 0`: fold or branch
/// point), at `Im s ≈ ±ω/2` (period doubling) and complex otherwise (Neimark–Sacker), with
/// `grows` at `tol` deciding what is unstable; and what crossed between two points.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unstable {
    pub real: usize,
    pub flip: usize,
    pub complex: usize,
}

impl Unstable {
    pub fn of(exponents: &[nalgebra::Complex<f64>], omega: f64, tol: f64) -> Unstable {
        let mut u = Unstable::default();
        for s in exponents.iter().filter(|s| grows(s, omega, tol)) {
            let tol = 1e-6 * (s.norm() + omega);
            if s.im.abs() <= tol {
                u.real += 1;
            } else if (s.im.abs() - 0.5 * omega).abs() <= 1e-4 * omega {
                u.flip += 1;
            } else {
                u.complex += 1;
            }
        }
        u
    }

    /// What crossed the imaginary axis between two neighbouring points. Where the branch
    /// turned (`fold`) it is a fold whatever the exponents show (a complex pair crossing in
    /// the same interval would otherwise hide it); a real crossing without a turn is a
    /// branch point.
    pub fn change_to(self, next: Unstable, fold: bool) -> Option<&'static str> {
        if fold {
            Some("fold")
        } else if self.real != next.real {
            Some("branch point")
        } else if self.flip != next.flip {
            Some("period doubling")
        } else if self.complex != next.complex {
            Some("Neimark-Sacker")
        } else {
            None
        }
    }
}

/// of `Balance::is_stable`).
pub fn grows(s: &nalgebra::Complex<f64>, omega: f64, tol: f64) -> bool {
    s.re >= tol * (s.norm() + omega)
}

/// A diagonal similarity `D⁻¹AD` (powers of two, so exact) that equalises the norms of each
/// row and column (Osborne's balancing, as LAPACK's `gebal`): a beam's companion matrix has
/// entries from 1 to 1e16 (translations next to rotations with tiny inertia), and without
/// it the eigenvalues' real parts drown in round-off of `ε ‖A‖`.
fn balanced(mut a: DMatrix<f64>) -> DMatrix<f64> {
    let n = a.nrows();
    for _ in 0..100 {
        let mut done = true;
        for i in 0..n {
            let c: f64 = (0..n).filter(|&j| j != i).map(|j| a[(j, i)].abs()).sum();
            let r: f64 = (0..n).filter(|&j| j != i).map(|j| a[(i, j)].abs()).sum();
            if c == 0.0 || r == 0.0 {
                continue;
            }
            let (mut f, mut cf, mut rf) = (1.0, c, r);
            while cf < rf / 2.0 {
                (cf, rf, f) = (cf * 2.0, rf / 2.0, f * 2.0);
            }
            while cf > rf * 2.0 {
                (cf, rf, f) = (cf / 2.0, rf * 2.0, f / 2.0);
            }
            if cf + rf < 0.95 * (c + r) {
                done = false;
                a.row_mut(i).scale_mut(1.0 / f);
                a.column_mut(i).scale_mut(f);
            }
        }
        if done {
            break;
        }
    }
    a
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
