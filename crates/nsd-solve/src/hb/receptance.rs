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

use super::condense::Modes;
use super::elements::Layout;
use super::Balance;
use nalgebra::{Complex, DMatrix, DVector};

type C64 = Complex<f64>;

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
        })
    }

    /// The number of kept coefficients, `n_c (2H + 1)` (harmonic-major: coefficient `p` of
    /// kept DOF `j` is `Q_c[p·n_c + j]`).
    pub fn dim(&self) -> usize {
        self.keep.len() * (2 * self.harmonics + 1)
    }

    /// The `order`-th ω-derivative (0, 1 or 2) of `1/den_r` at harmonic `k`, per mode
    /// (`den_r = ω_r² − (kω)² + i kω c_r`, `den' = −2k²ω + i k c_r`, `den'' = −2k²`).
    fn weights(&self, k: usize, omega: f64, order: usize) -> Vec<C64> {
        let (kf, w) = (k as f64, k as f64 * omega);
        self.omega2
            .iter()
            .zip(&self.damping)
            .map(|(w2, c)| {
                let inv = C64::new(w2 - w * w, w * c).inv();
                let rate = C64::new(-2.0 * kf * w, kf * c);
                match order {
                    0 => inv,
                    1 => -rate * inv * inv,
                    _ => (rate * rate * 2.0 * inv + 2.0 * kf * kf) * inv * inv,
                }
            })
            .collect()
    }

    /// `dᵒH/dωᵒ` (`order` 0, 1 or 2), block-diagonal over the harmonics in the kept
    /// layout, each harmonic's complex `P + iQ` as `[[P, Q], [−Q, P]]` on `(c_k, s_k)`.
    pub fn matrix(&self, omega: f64, order: usize) -> DMatrix<f64> {
        let nc = self.keep.len();
        let mut out = DMatrix::zeros(self.dim(), self.dim());
        if order == 0 {
            let mut scaled = self.phi_c.clone();
            for (mut col, w2) in scaled.column_iter_mut().zip(&self.omega2) {
                col /= *w2;
            }
            out.view_mut((0, 0), (nc, nc))
                .copy_from(&(scaled * self.phi_c.transpose()));
        }
        for k in 1..=self.harmonics {
            let w = self.weights(k, omega, order);
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
        self.combine(&self.phi_c, modal, omega, order)
    }

    /// Every DOF's coefficients, `D⁻¹(F − F_nl)`, for the modal loads `modal` of `F` and the
    /// nonlinear forces `fnl` on the kept coefficients.
    pub fn expand(&self, modal: &DMatrix<f64>, fnl: &DVector<f64>, omega: f64) -> DVector<f64> {
        let (nc, width) = (self.keep.len(), 2 * self.harmonics + 1);
        let on_kept = self
            .phi_c
            .tr_mul(&DMatrix::from_column_slice(nc, width, fnl.as_slice()));
        self.combine(&self.phi, &(modal - on_kept), omega, 0)
    }

    /// `Σ_r shapes_r w_r(ω) m_r` per harmonic (module docs), in the layout of `shapes`' rows.
    fn combine(
        &self,
        shapes: &DMatrix<f64>,
        modal: &DMatrix<f64>,
        omega: f64,
        order: usize,
    ) -> DVector<f64> {
        let rows = shapes.nrows();
        let mut out = DVector::zeros(rows * (2 * self.harmonics + 1));
        if order == 0 {
            let static_modal =
                DVector::from_fn(self.omega2.len(), |r, _| modal[(r, 0)] / self.omega2[r]);
            out.rows_mut(0, rows).copy_from(&(shapes * static_modal));
        }
        for k in 1..=self.harmonics {
            let w = self.weights(k, omega, order);
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
