//! The harmonic balance in receptance form on a set of kept DOFs: where the undamped modes
//! diagonalise C too (proportional damping, `condense::Modes`), `D(ω)Q + F_nl(Q) = F` is
//! equivalent to
//!
//! `Q_c + H(ω) F_nl,c(Q_c) − U(ω) = 0`, `H = [D⁻¹]_cc`, `U = [D⁻¹F]_c`,
//!
//! on the coefficients of the kept DOFs `c` (which must hold every DOF a nonlinear element
//! acts on, so that `F_nl` vanishes elsewhere), and the others follow as `Q = D⁻¹(F − F_nl)`.
//! In complex form per harmonic k (`z = c − i s`) the receptance is the modal sum
//! `H_k = Σ_r φ_r φ_rᵀ / (ω_r² − (kω)² + i kω c_r)` (`condense.rs`), whose ω-derivatives are
//! those of the scalar denominators: nothing is factorised or inverted, so `H`'s first and
//! second derivatives cost what `H` does — the backbone's ridge (paper 003, eqs. 21–23)
//! needs both. Unlike the condensed stiffness `S = H⁻¹` the form stays well conditioned where
//! the kept DOFs' clamped system resonates.

use super::condense::{restricted, Modes};
use super::elements::Layout;
use super::Balance;
use nalgebra::{Complex, DMatrix, DVector};
use std::cell::RefCell;
use std::rc::Rc;

type C64 = Complex<f64>;

/// Which derivative of the receptance: the `order`-th in ω (0, 1 or 2), or the first in the
/// shift ξ of the modal dampings (`c_r − ξ`: the damped nonlinear mode's negative damping
/// `−ξM`, mass-proportional, so diagonal in the modes too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derivative {
    Omega(usize),
    Xi,
}

/// A matrix of `matrix_at` with the `(ω, ξ)` it was summed at.
type Kept = (f64, f64, Rc<DMatrix<f64>>);

/// The receptance of a balance on its kept DOFs (module docs).
pub struct Receptance {
    keep: Vec<usize>,
    layout: Layout,
    harmonics: usize,
    /// Mass-normalised shapes (one column per mode) and their kept rows.
    phi: DMatrix<f64>,
    phi_c: DMatrix<f64>,
    omega2: Vec<f64>,
    /// Modal damping `φ_rᵀ C φ_r`.
    damping: Vec<f64>,
    /// The last `matrix_at` per derivative (`Omega(0..=2)`, `Xi`) with its `(ω, ξ)`: a
    /// Newton step asks for the same matrices in its residual, Jacobian and parameter
    /// derivative, each a sum over every mode.
    last: RefCell<[Option<Kept>; 4]>,
}

impl Receptance {
    /// The receptance on `keep` (ascending, holding every nonlinear DOF); `None` unless the
    /// modes diagonalise C and none is rigid (`condense::Modes`).
    pub fn new(hb: &Balance, keep: Vec<usize>) -> Option<Receptance> {
        let Modes {
            phi,
            omega2,
            damping,
        } = Modes::of(hb)?;
        let phi_c = DMatrix::from_fn(keep.len(), phi.ncols(), |a, r| phi[(keep[a], r)]);
        Some(Receptance {
            layout: Layout::kept(hb.dofs(), &keep),
            harmonics: hb.aft.harmonics,
            keep,
            phi,
            phi_c,
            omega2,
            damping,
            last: RefCell::default(),
        })
    }

    /// The number of kept coefficients, `n_c (2H + 1)` (harmonic-major: coefficient `p` of
    /// kept DOF `j` is `Q_c[p·n_c + j]`).
    pub fn dim(&self) -> usize {
        self.keep.len() * (2 * self.harmonics + 1)
    }

    /// The derivative `d` of `1/den_r` at harmonic `k`, per mode, at the modal dampings
    /// shifted by ξ (`den_r = ω_r² − (kω)² + i kω (c_r − ξ)`, `den' = −2k²ω + i k (c_r − ξ)`,
    /// `den'' = −2k²`, `∂den/∂ξ = −i kω`).
    fn weights(&self, k: usize, omega: f64, xi: f64, d: Derivative) -> Vec<C64> {
        let (kf, w) = (k as f64, k as f64 * omega);
        self.omega2
            .iter()
            .zip(&self.damping)
            .map(|(w2, c)| {
                let inv = C64::new(w2 - w * w, w * (c - xi)).inv();
                let rate = C64::new(-2.0 * kf * w, kf * (c - xi));
                match d {
                    Derivative::Omega(0) => inv,
                    Derivative::Omega(1) => -rate * inv * inv,
                    Derivative::Omega(_) => (rate * rate * 2.0 * inv + 2.0 * kf * kf) * inv * inv,
                    Derivative::Xi => C64::new(0.0, w) * inv * inv,
                }
            })
            .collect()
    }

    /// `dᵒH/dωᵒ` (`order` 0, 1 or 2), block-diagonal over the harmonics in the kept
    /// layout, each harmonic's complex `P + iQ` as `[[P, Q], [−Q, P]]` on `(c_k, s_k)`.
    pub fn matrix(&self, omega: f64, order: usize) -> Rc<DMatrix<f64>> {
        self.matrix_at(omega, 0.0, Derivative::Omega(order))
    }

    /// The derivative `d` of `H` with the modal dampings shifted by ξ (`matrix` at ξ = 0),
    /// kept for the last `(ω, ξ)` of each derivative.
    pub(crate) fn matrix_at(&self, omega: f64, xi: f64, d: Derivative) -> Rc<DMatrix<f64>> {
        let slot = match d {
            Derivative::Omega(order) => order.min(2),
            Derivative::Xi => 3,
        };
        if let Some((w, x, m)) = &self.last.borrow()[slot] {
            if (*w, *x) == (omega, xi) {
                return m.clone();
            }
        }
        let m = Rc::new(self.assembled(omega, xi, d));
        self.last.borrow_mut()[slot] = Some((omega, xi, m.clone()));
        m
    }

    /// `matrix_at`'s sums over the modes.
    fn assembled(&self, omega: f64, xi: f64, d: Derivative) -> DMatrix<f64> {
        let nc = self.keep.len();
        let mut out = DMatrix::zeros(self.dim(), self.dim());
        if d == Derivative::Omega(0) {
            let mut scaled = self.phi_c.clone();
            for (mut col, w2) in scaled.column_iter_mut().zip(&self.omega2) {
                col /= *w2;
            }
            out.view_mut((0, 0), (nc, nc))
                .copy_from(&(scaled * self.phi_c.transpose()));
        }
        for k in 1..=self.harmonics {
            let w = self.weights(k, omega, xi, d);
            let (mut re, mut im) = (self.phi_c.clone(), self.phi_c.clone());
            for (r, z) in w.iter().enumerate() {
                re.column_mut(r).scale_mut(z.re);
                im.column_mut(r).scale_mut(z.im);
            }
            let (p, q) = (re * self.phi_c.transpose(), im * self.phi_c.transpose());
            let at = (2 * k - 1) * nc;
            out.view_mut((at, at), (nc, nc)).copy_from(&p);
            out.view_mut((at + nc, at + nc), (nc, nc)).copy_from(&p);
            out.view_mut((at, at + nc), (nc, nc)).copy_from(&q);
            out.view_mut((at + nc, at), (nc, nc)).copy_from(&(-q));
        }
        out
    }

    /// The modal loads `φᵀF_p` of a full coefficient vector `f`, one column per
    /// coefficient `p`.
    pub fn modal(&self, f: &DVector<f64>) -> DMatrix<f64> {
        let n = self.phi.nrows();
        let width = 2 * self.harmonics + 1;
        self.phi
            .tr_mul(&DMatrix::from_column_slice(n, width, f.as_slice()))
    }

    /// `dᵒU/dωᵒ` of the modal loads `modal` (`Receptance::modal`) on the kept DOFs.
    pub(crate) fn response(&self, modal: &DMatrix<f64>, omega: f64, order: usize) -> DVector<f64> {
        self.combine(&self.phi_c, modal, omega, 0.0, Derivative::Omega(order))
    }

    /// The derivative `d` of `U` with the modal dampings shifted by ξ.
    pub(crate) fn response_at(
        &self,
        modal: &DMatrix<f64>,
        omega: f64,
        xi: f64,
        d: Derivative,
    ) -> DVector<f64> {
        self.combine(&self.phi_c, modal, omega, xi, d)
    }

    /// Every DOF's coefficients, `D⁻¹(F − F_nl)`, for the modal loads `modal` of `F` and the
    /// nonlinear forces `fnl` on the kept coefficients.
    pub fn expand(&self, modal: &DMatrix<f64>, fnl: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.expand_at(modal, fnl, omega, 0.0)
    }

    /// `expand` with the modal dampings shifted by ξ.
    pub(crate) fn expand_at(
        &self,
        modal: &DMatrix<f64>,
        fnl: &DVector<f64>,
        omega: f64,
        xi: f64,
    ) -> DVector<f64> {
        let on_kept = self.phi_c.tr_mul(&self.columns(fnl));
        self.combine(
            &self.phi,
            &(modal - on_kept),
            omega,
            xi,
            Derivative::Omega(0),
        )
    }

    /// A kept-layout vector as one column per coefficient.
    fn columns(&self, v: &DVector<f64>) -> DMatrix<f64> {
        DMatrix::from_column_slice(self.keep.len(), 2 * self.harmonics + 1, v.as_slice())
    }

    /// The mass norm `N = ψ₁ᵀMψ₁ = Σ_r |η_r|²` of the fundamental of every DOF's response
    /// `D⁻¹(−E_c f)` to the forces `f` on the kept coefficients (modal coordinates
    /// `η_r = −w_r φ_rcᵀ(f_c1 − i f_s1)`, `w_r = 1/den_r` at harmonic 1, dampings shifted by
    /// ξ), its gradient in `f` (kept layout, zero off the fundamental) and `∂N/∂ω`, `∂N/∂ξ`.
    pub(crate) fn fundamental_norm(
        &self,
        f: &DVector<f64>,
        omega: f64,
        xi: f64,
    ) -> (f64, DVector<f64>, f64, f64) {
        let nc = self.keep.len();
        let g: Vec<C64> = (0..self.omega2.len())
            .map(|r| {
                (0..nc)
                    .map(|a| self.phi_c[(a, r)] * C64::new(f[nc + a], -f[2 * nc + a]))
                    .sum()
            })
            .collect();
        let [w, w_rate, w_xi] = [Derivative::Omega(0), Derivative::Omega(1), Derivative::Xi]
            .map(|d| self.weights(1, omega, xi, d));
        let eta: Vec<C64> = g.iter().zip(&w).map(|(g, w)| -w * g).collect();
        let norm = eta.iter().map(|e| e.norm_sqr()).sum();
        let along = |dw: &[C64]| -> f64 {
            (0..eta.len())
                .map(|r| 2.0 * (eta[r].conj() * (-dw[r] * g[r])).re)
                .sum()
        };
        // ∂N/∂f = 2 Re(Σ_r conj(η_r)(−w_r) φ_rcᵀ ∂(f_c1 − i f_s1)): Re on the cosines, Im on the sines.
        let mut grad = DVector::zeros(self.dim());
        for a in 0..nc {
            let c: C64 = (0..eta.len())
                .map(|r| -eta[r].conj() * w[r] * self.phi_c[(a, r)])
                .sum();
            grad[nc + a] = 2.0 * c.re;
            grad[2 * nc + a] = 2.0 * c.im;
        }
        (norm, grad, along(&w_rate), along(&w_xi))
    }

    /// The kept DOFs (ascending).
    pub(crate) fn kept(&self) -> &[usize] {
        &self.keep
    }

    /// Writes the kept coefficients `qc` into every DOF's `q` (the inverse of `restrict`).
    pub(crate) fn place(&self, q: &mut DVector<f64>, qc: &DVector<f64>) {
        let (n, nc) = (self.phi.nrows(), self.keep.len());
        for p in 0..2 * self.harmonics + 1 {
            for (j, &i) in self.keep.iter().enumerate() {
                q[p * n + i] = qc[p * nc + j];
            }
        }
    }

    /// The kept coefficients of every DOF's `q` (harmonic-major both).
    pub(crate) fn restrict(&self, q: &DVector<f64>) -> DVector<f64> {
        restricted(self.phi.nrows(), 2 * self.harmonics + 1, &self.keep, q)
    }

    /// `Σ_r shapes_r w_r(ω) m_r` per harmonic (module docs), in the layout of `shapes`' rows.
    fn combine(
        &self,
        shapes: &DMatrix<f64>,
        modal: &DMatrix<f64>,
        omega: f64,
        xi: f64,
        d: Derivative,
    ) -> DVector<f64> {
        let rows = shapes.nrows();
        let mut out = DVector::zeros(rows * (2 * self.harmonics + 1));
        if d == Derivative::Omega(0) {
            let static_modal =
                DVector::from_fn(self.omega2.len(), |r, _| modal[(r, 0)] / self.omega2[r]);
            out.rows_mut(0, rows).copy_from(&(shapes * static_modal));
        }
        for k in 1..=self.harmonics {
            let w = self.weights(k, omega, xi, d);
            // z_r = w_r (m_cos − i m_sin); the response is c = Re Σ φ z, s = −Im Σ φ z.
            let (mut re, mut im) = (DVector::zeros(w.len()), DVector::zeros(w.len()));
            for (r, wr) in w.iter().enumerate() {
                let z = wr * C64::new(modal[(r, 2 * k - 1)], -modal[(r, 2 * k)]);
                re[r] = z.re;
                im[r] = -z.im;
            }
            let at = (2 * k - 1) * rows;
            out.rows_mut(at, rows).copy_from(&(shapes * re));
            out.rows_mut(at + rows, rows).copy_from(&(shapes * im));
        }
        out
    }

    /// `F_nl` (and its Jacobian) on the kept coefficients (`Balance::nonlinear_in`).
    pub(crate) fn nonlinear(
        &self,
        hb: &Balance,
        qc: &DVector<f64>,
        omega: f64,
        jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        hb.nonlinear_in(&self.layout, qc, omega, jacobian)
    }

    /// `∂(J_nlᵀ μ)/∂Q_c` on the kept coefficients (`Balance::hessian_adjoint_in`).
    pub(crate) fn hessian_adjoint(
        &self,
        hb: &Balance,
        qc: &DVector<f64>,
        omega: f64,
        mu: &DVector<f64>,
    ) -> DMatrix<f64> {
        hb.hessian_adjoint_in(&self.layout, qc, omega, mu)
    }
}
