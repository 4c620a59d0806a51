//! Exact condensation of the harmonic balance onto the DOFs the nonlinear elements act on
//! (the dynamic compliance of the linear part): per harmonic block, with `c` the kept and
//! `o` the other coordinates, `D_oo Q_o = F_o − D_oc Q_c` is solved for `Q_o`, leaving
//!
//! `R_c(Q_c) = S(ω) Q_c + F_nl,c(Q_c) − G(ω) = 0`, `S = D_cc − D_co D_oo⁻¹ D_oc`,
//! `G = F_c − D_co D_oo⁻¹ F_o`,
//!
//! so a beam with one contact node costs about as much as that node's harmonics (plus one
//! factorisation of each harmonic block per frequency). `∂R_c/∂ω` follows from
//! `d(D_oo⁻¹)/dω = −D_oo⁻¹ D'_oo D_oo⁻¹`. The full coefficients come back by
//! `Q_o = D_oo⁻¹ (F_o − D_oc Q_c)`.

use super::Balance;
use crate::solve::cont::Problem;
use nalgebra::{DMatrix, DVector};
use std::cell::RefCell;

/// One harmonic block condensed at one frequency.
struct Block {
    /// The block's first coefficient index `p` and its width (1 for the static term, 2).
    p0: usize,
    width: usize,
    s: DMatrix<f64>,
    s_rate: DMatrix<f64>,
    g: DVector<f64>,
    g_rate: DVector<f64>,
    /// `Y = D_oo⁻¹ D_oc` and `z = D_oo⁻¹ F_o`, for the expansion.
    y: DMatrix<f64>,
    z: DVector<f64>,
    /// The block's local coordinates `(p − p0)·n + i`: kept (`c`) and others (`o`).
    c: Vec<usize>,
    o: Vec<usize>,
}

/// The condensed problem; implements `cont::Problem` in the kept coefficients
/// (harmonic-major like `Balance`: coefficient `p` of kept DOF `j` is `Q_c[p·n_c + j]`).
pub struct Condensed<'a> {
    hb: &'a Balance,
    keep: Vec<usize>,
    cache: RefCell<Option<(f64, std::rc::Rc<Vec<Block>>)>>,
}

impl<'a> Condensed<'a> {
    /// Condenses onto the DOFs the nonlinear elements act on; `None` when that would keep
    /// every DOF (or none).
    pub fn new(hb: &'a Balance) -> Option<Condensed<'a>> {
        let keep = hb.nonlinear_dofs();
        (!keep.is_empty() && keep.len() < hb.dofs()).then(|| Condensed {
            hb,
            keep,
            cache: RefCell::new(None),
        })
    }

    fn width(&self) -> usize {
        self.hb.aft.width()
    }

    /// The condensed blocks at ω (cached for the last frequency).
    fn blocks(&self, omega: f64) -> std::rc::Rc<Vec<Block>> {
        if let Some((w, b)) = self.cache.borrow().as_ref() {
            if *w == omega {
                return b.clone();
            }
        }
        let (n, f) = (self.hb.dofs(), self.hb.excitation());
        let mut out = Vec::new();
        for k in 0..=self.hb.aft.harmonics {
            let (p0, width) = if k == 0 { (0, 1) } else { (2 * k - 1, 2) };
            let (d, rate) = self.hb.block(k, omega);
            // Local coordinates (p − p0)·n + i; kept ones first in `c`.
            let c: Vec<usize> = (0..width)
                .flat_map(|q| self.keep.iter().map(move |&i| q * n + i))
                .collect();
            let o: Vec<usize> = (0..width * n).filter(|l| !c.contains(l)).collect();
            let pick = |m: &DMatrix<f64>, r: &[usize], cols: &[usize]| {
                DMatrix::from_fn(r.len(), cols.len(), |a, b| m[(r[a], cols[b])])
            };
            let fl = |idx: &[usize]| {
                DVector::from_iterator(idx.len(), idx.iter().map(|&l| f[p0 * n + l]))
            };
            let lu = pick(&d, &o, &o).lu();
            let (d_oc, d_co) = (pick(&d, &o, &c), pick(&d, &c, &o));
            let (r_oo, r_oc, r_co) = (
                pick(&rate, &o, &o),
                pick(&rate, &o, &c),
                pick(&rate, &c, &o),
            );
            let y = lu
                .solve(&d_oc)
                .unwrap_or_else(|| DMatrix::zeros(o.len(), c.len()));
            let z = lu.solve(&fl(&o)).unwrap_or_else(|| DVector::zeros(o.len()));
            let y_rate = lu
                .solve(&(&r_oc - &r_oo * &y))
                .unwrap_or_else(|| DMatrix::zeros(o.len(), c.len()));
            let z_rate = lu
                .solve(&(-&r_oo * &z))
                .unwrap_or_else(|| DVector::zeros(o.len()));
            out.push(Block {
                p0,
                width,
                s: pick(&d, &c, &c) - &d_co * &y,
                s_rate: pick(&rate, &c, &c) - &r_co * &y - &d_co * &y_rate,
                g: fl(&c) - &d_co * &z,
                g_rate: -(&r_co * &z) - &d_co * &z_rate,
                y,
                z,
                c,
                o,
            });
        }
        let out = std::rc::Rc::new(out);
        *self.cache.borrow_mut() = Some((omega, out.clone()));
        out
    }

    /// The kept coefficients of a full vector.
    pub fn restrict(&self, q: &DVector<f64>) -> DVector<f64> {
        let n = self.hb.dofs();
        DVector::from_iterator(
            self.dim(),
            (0..self.width()).flat_map(|p| self.keep.iter().map(move |&i| q[p * n + i])),
        )
    }

    /// The full coefficients for kept ones `qc` at ω.
    pub fn expand(&self, qc: &DVector<f64>, omega: f64) -> DVector<f64> {
        let (n, nc) = (self.hb.dofs(), self.keep.len());
        let mut q = DVector::zeros(self.hb.dim());
        for b in self.blocks(omega).iter() {
            let local_c = DVector::from_iterator(
                b.width * nc,
                (0..b.width).flat_map(|w| (0..nc).map(move |j| qc[(b.p0 + w) * nc + j])),
            );
            let qo = &b.z - &b.y * &local_c;
            for (&l, v) in
                b.c.iter()
                    .zip(local_c.iter())
                    .chain(b.o.iter().zip(qo.iter()))
            {
                q[b.p0 * n + l] = *v;
            }
        }
        q
    }

    /// Block-diagonal `S` (or `S'`) in the kept layout, and `G` (or `G'`).
    fn linear(&self, omega: f64, rate: bool) -> (DMatrix<f64>, DVector<f64>) {
        let nc = self.keep.len();
        let mut s = DMatrix::zeros(self.dim(), self.dim());
        let mut g = DVector::zeros(self.dim());
        for b in self.blocks(omega).iter() {
            let (sb, gb) = if rate {
                (&b.s_rate, &b.g_rate)
            } else {
                (&b.s, &b.g)
            };
            let at = b.p0 * nc;
            s.view_mut((at, at), (sb.nrows(), sb.ncols())).copy_from(sb);
            g.rows_mut(at, gb.len()).copy_from(gb);
        }
        (s, g)
    }

    /// The nonlinear forces (and Jacobian) at the kept DOFs.
    fn nonlinear(
        &self,
        qc: &DVector<f64>,
        omega: f64,
        jac: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        let (n, nc) = (self.hb.dofs(), self.keep.len());
        let mut q = DVector::zeros(self.hb.dim());
        for p in 0..self.width() {
            for (j, &i) in self.keep.iter().enumerate() {
                q[p * n + i] = qc[p * nc + j];
            }
        }
        let (f, jfull) = self.hb.nonlinear(&q, omega, jac);
        let idx: Vec<usize> = (0..self.width())
            .flat_map(|p| self.keep.iter().map(move |&i| p * n + i))
            .collect();
        let fc = DVector::from_iterator(idx.len(), idx.iter().map(|&r| f[r]));
        let jc = jfull.map(|j| DMatrix::from_fn(idx.len(), idx.len(), |a, b| j[(idx[a], idx[b])]));
        (fc, jc)
    }
}

impl Problem for Condensed<'_> {
    fn dim(&self) -> usize {
        self.keep.len() * self.width()
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let (s, g) = self.linear(p, false);
        s * x + self.nonlinear(x, p, false).0 - g
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let (s, _) = self.linear(p, false);
        s + self
            .nonlinear(x, p, true)
            .1
            .unwrap_or_else(|| DMatrix::zeros(self.dim(), self.dim()))
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let (s_rate, g_rate) = self.linear(p, true);
        s_rate * x - g_rate
    }
}
