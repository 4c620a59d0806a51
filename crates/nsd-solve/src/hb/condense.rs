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
//!
//! When the undamped modes also diagonalise `C` (proportional damping: Rayleigh, modal) the
//! same condensation needs no factorisation: in complex form (`z = c − i s` per harmonic k)
//! the receptance is the modal sum `D⁻¹ = Σ_r φ_r φ_rᵀ / (ω_r² − (kω)² + i kω c_r)`, so
//! `S = ([D⁻¹]_cc)⁻¹` (an inverse of the kept size only), `G = S [D⁻¹F]_c`,
//! `S' = −S [D⁻¹]'_cc S`, and the full response is `D⁻¹(F − E_c f_nl)` with
//! `f_nl = G − S Q_c`. Exact like the factorised form (every mode is kept); a 40-DOF beam's
//! point costs a sum over 40 modes instead of an LU of each 78 × 78 harmonic block.

use super::elements::Layout;
use super::linear::Operator;
use super::tolerances::{MODAL_COUPLING_TOL, RIGID_MODE_TOL, UNRESOLVED_MODE_FLOOR};
use super::Balance;
use crate::cont::Problem;
use crate::linalg;
use nalgebra::{Complex, DMatrix, DVector};
use std::cell::RefCell;

type C64 = Complex<f64>;

/// How a block's other coordinates come back from the kept ones.
enum Back {
    /// `Q_o = z − Y Q_c` with `Y = D_oo⁻¹ D_oc`, `z = D_oo⁻¹ F_o`.
    Factorised { y: DMatrix<f64>, z: DVector<f64> },
    /// By the modal sums at harmonic `k` of ω (module docs).
    Modal { k: usize, omega: f64 },
}

/// The undamped modes of a balance when they diagonalise `C` too, computed once per balance
/// (`Balance::modes`).
#[derive(Clone)]
pub(super) struct Modes {
    pub(super) phi: DMatrix<f64>,
    pub(super) omega2: Vec<f64>,
    pub(super) damping: Vec<f64>,
}

impl Modes {
    /// The balance's modes, computed on first use (`Balance::modes`); `None` as `new`.
    pub(super) fn of(hb: &Balance) -> Option<Modes> {
        hb.modes.get_or_init(|| Modes::new(hb)).clone()
    }

    /// `None` unless `C` is diagonal in the modes (off-diagonal terms below
    /// `MODAL_COUPLING_TOL` of the largest modal damping) and no mode is rigid (the static
    /// block would be singular).
    fn new(hb: &Balance) -> Option<Modes> {
        // A rigid mode makes K singular (its Cholesky factor fails); one the round-off hides
        // is caught by `RIGID_MODE_TOL` of `max K_ii / M_ii` (a Rayleigh quotient of λ_max).
        let (mu, w) = linalg::flexibility_eigen(&hb.m, &hb.k)?;
        let top = (0..hb.dofs())
            .map(|i| hb.k[(i, i)] / hb.m[(i, i)])
            .fold(0.0, f64::max);
        if mu[0] * top * RIGID_MODE_TOL >= 1.0 {
            return None;
        }
        // `ω_r² = 1/μ_r`, `μ_r` floored at `UNRESOLVED_MODE_FLOOR μ₁` (the eigensolver's
        // error), `φ_r = ω_r w_r`. Exact for a resolved mode; for a floored one `φ φᵀ/ω_r²
        // = w wᵀ` is still exact and the receptance's term `w wᵀ/(1 − ω² μ + iω c/ω_r²)`
        // is off by `ω² |μ_r − μ̂_r|`, below 1e-12 of `ω²/ω₁²`.
        let floor = UNRESOLVED_MODE_FLOOR * mu[0];
        let omega2: Vec<f64> = mu.iter().map(|m| m.max(floor).recip()).collect();
        let mut phi = w;
        for (mut col, w2) in phi.column_iter_mut().zip(&omega2) {
            col *= w2.sqrt();
        }
        let modal_c = phi.transpose() * &hb.c * &phi;
        let largest = modal_c.diagonal().amax();
        let off = (0..modal_c.nrows())
            .flat_map(|r| {
                (0..modal_c.ncols())
                    .filter(move |&c| c != r)
                    .map(move |c| (r, c))
            })
            .map(|(r, c)| modal_c[(r, c)].abs())
            .fold(0.0, f64::max);
        if off > MODAL_COUPLING_TOL * largest.max(f64::MIN_POSITIVE) {
            return None;
        }
        Some(Modes {
            damping: modal_c.diagonal().iter().copied().collect(),
            phi,
            omega2,
        })
    }
}

/// The undamped modes when they diagonalise `C` too (module docs).
pub(super) struct Modal {
    /// Mass-normalised shapes, one column per mode.
    phi: DMatrix<f64>,
    pub(super) omega2: Vec<f64>,
    /// Modal damping `φ_rᵀ C φ_r`.
    pub(super) damping: Vec<f64>,
    /// The kept rows of `phi`.
    pub(super) phi_c: DMatrix<f64>,
    /// The modal loads `φᵀ F_p` of every coefficient `p` (columns).
    loads: DMatrix<f64>,
}

impl Modal {
    /// `None` unless `C` is diagonal in the modes (`Modes::new`); the loads are the
    /// balance's at its present `level`.
    fn new(hb: &Balance, keep: &[usize]) -> Option<Modal> {
        let Modes {
            phi,
            omega2,
            damping,
        } = Modes::of(hb)?;
        let n = hb.dofs();
        let f = hb.excitation();
        let loads = DMatrix::from_fn(phi.ncols(), hb.aft.width(), |r, p| {
            (0..n).map(|i| phi[(i, r)] * f[p * n + i]).sum()
        });
        let phi_c = DMatrix::from_fn(keep.len(), phi.ncols(), |a, r| phi[(keep[a], r)]);
        Some(Modal {
            damping,
            phi,
            omega2,
            phi_c,
            loads,
        })
    }

    /// `1/den_r` and `d(1/den_r)/dω` at harmonic `k` (`den_r = ω_r² − (kω)² + i kω c_r`).
    fn receptances(&self, k: usize, omega: f64) -> Vec<(C64, C64)> {
        let (kf, w) = (k as f64, k as f64 * omega);
        self.omega2
            .iter()
            .zip(&self.damping)
            .map(|(w2, c)| {
                let den = C64::new(w2 - w * w, w * c);
                let rate = C64::new(-2.0 * kf * w, kf * c);
                (den.inv(), -rate / (den * den))
            })
            .collect()
    }

    /// The complex modal load of harmonic `k`: `φᵀ(F_cos − i F_sin)` (the constant one for
    /// `k = 0`).
    fn load(&self, k: usize) -> Vec<C64> {
        (0..self.phi.ncols())
            .map(|r| match k {
                0 => C64::new(self.loads[(r, 0)], 0.0),
                k => C64::new(self.loads[(r, 2 * k - 1)], -self.loads[(r, 2 * k)]),
            })
            .collect()
    }

    /// The condensed `S`, `S'`, `G`, `G'` of harmonic `k` at ω, in the real layout of
    /// `Block` (kept cosines then kept sines).
    #[allow(clippy::type_complexity)]
    fn block(
        &self,
        k: usize,
        omega: f64,
    ) -> (DMatrix<f64>, DMatrix<f64>, DVector<f64>, DVector<f64>) {
        let nc = self.phi_c.nrows();
        let rec = self.receptances(k, omega);
        let modal_sum = |weight: &dyn Fn(usize) -> C64| {
            DMatrix::from_fn(nc, nc, |a, b| {
                (0..rec.len())
                    .map(|r| weight(r) * (self.phi_c[(a, r)] * self.phi_c[(b, r)]))
                    .sum::<C64>()
            })
        };
        let h = modal_sum(&|r| rec[r].0);
        let h_rate = modal_sum(&|r| rec[r].1);
        let s = h.try_inverse().unwrap_or_else(|| DMatrix::zeros(nc, nc));
        let s_rate = -(&s * h_rate * &s);
        let f = self.load(k);
        let response = |weight: &dyn Fn(usize) -> C64| {
            DVector::from_fn(nc, |a, _| {
                (0..rec.len())
                    .map(|r| weight(r) * f[r] * self.phi_c[(a, r)])
                    .sum::<C64>()
            })
        };
        let u = response(&|r| rec[r].0);
        let u_rate = response(&|r| rec[r].1);
        let g = &s * &u;
        let g_rate = &s_rate * &u + &s * u_rate;
        let real = k == 0;
        (
            real_matrix(&s, real),
            real_matrix(&s_rate, real),
            real_vector(&g, real),
            real_vector(&g_rate, real),
        )
    }

    /// The full coefficients of harmonic `k` (cosines then sines, or the constant) for the
    /// kept ones `qc` (same layout) and the block's `S`, `G`.
    fn expand(&self, k: usize, omega: f64, qc: &DVector<f64>, b: &Block) -> DVector<f64> {
        let nc = self.phi_c.nrows();
        let complex = |v: &DVector<f64>| -> DVector<C64> {
            if k == 0 {
                v.map(|x| C64::new(x, 0.0))
            } else {
                DVector::from_fn(v.len() / 2, |a, _| C64::new(v[a], -v[v.len() / 2 + a]))
            }
        };
        let (zc, g) = (complex(qc), complex(&b.g));
        let s = if k == 0 {
            b.s.map(|x| C64::new(x, 0.0))
        } else {
            DMatrix::from_fn(nc, nc, |a, c| C64::new(b.s[(a, c)], b.s[(a, nc + c)]))
        };
        let f_nl = g - s * zc;
        let f = self.load(k);
        let rec = self.receptances(k, omega);
        let modal: Vec<C64> = (0..rec.len())
            .map(|r| {
                let on_kept: C64 = (0..nc).map(|a| f_nl[a] * self.phi_c[(a, r)]).sum();
                (f[r] - on_kept) * rec[r].0
            })
            .collect();
        let n = self.phi.nrows();
        let full = DVector::from_fn(n, |i, _| {
            (0..modal.len())
                .map(|r| modal[r] * self.phi[(i, r)])
                .sum::<C64>()
        });
        if k == 0 {
            full.map(|z| z.re)
        } else {
            DVector::from_fn(
                2 * n,
                |l, _| {
                    if l < n {
                        full[l].re
                    } else {
                        -full[l - n].im
                    }
                },
            )
        }
    }
}

/// The coefficients of the DOFs `keep` in `q` (every one of `n` DOFs, `width`
/// coefficients each), in the kept layout (`Q_c[p·n_c + j]`).
pub(super) fn restricted(n: usize, width: usize, keep: &[usize], q: &DVector<f64>) -> DVector<f64> {
    DVector::from_iterator(
        keep.len() * width,
        (0..width).flat_map(|p| keep.iter().map(move |&i| q[p * n + i])),
    )
}

/// A complex matrix in the real layout: `P + iQ` acting on `z = c − i s` is
/// `[[P, Q], [−Q, P]]` on `(c, s)`; harmonic 0 (`real`) is real already.
fn real_matrix(m: &DMatrix<C64>, real: bool) -> DMatrix<f64> {
    let n = m.nrows();
    if real {
        return m.map(|z| z.re);
    }
    DMatrix::from_fn(2 * n, 2 * n, |r, c| {
        let z = m[(r % n, c % n)];
        match (r < n, c < n) {
            (true, true) | (false, false) => z.re,
            (true, false) => z.im,
            (false, true) => -z.im,
        }
    })
}

/// A complex vector `a − i b` in the real layout `(a, b)`.
fn real_vector(v: &DVector<C64>, real: bool) -> DVector<f64> {
    let n = v.len();
    if real {
        return v.map(|z| z.re);
    }
    DVector::from_fn(2 * n, |r, _| if r < n { v[r].re } else { -v[r - n].im })
}

/// One harmonic block condensed at one frequency.
struct Block {
    /// The block's first coefficient index `p` and its width (1 for the static term, 2).
    p0: usize,
    width: usize,
    s: DMatrix<f64>,
    s_rate: DMatrix<f64>,
    g: DVector<f64>,
    g_rate: DVector<f64>,
    back: Back,
    /// The block's local coordinates `(p − p0)·n + i`: kept (`c`) and others (`o`).
    c: Vec<usize>,
    o: Vec<usize>,
}

/// The condensed problem; implements `cont::Problem` in the kept coefficients
/// (harmonic-major like `Balance`: coefficient `p` of kept DOF `j` is `Q_c[p·n_c + j]`).
pub struct Condensed<'a> {
    hb: &'a Balance,
    keep: Vec<usize>,
    /// Where the kept coefficients sit (`Q_c[p·n_c + j]`), for the nonlinear forces.
    layout: Layout,
    /// The modal sums, when the damping allows them (else every block is factorised).
    modal: Option<Modal>,
    cache: RefCell<Option<(f64, std::rc::Rc<Vec<Block>>)>>,
}

impl<'a> Condensed<'a> {
    /// Condenses onto the DOFs the nonlinear elements act on, by modal sums where the
    /// damping is proportional; `None` when that would keep every DOF (or none).
    pub fn new(hb: &'a Balance) -> Option<Condensed<'a>> {
        let mut c = Condensed::factorised(hb)?;
        c.modal = Modal::new(hb, &c.keep);
        Some(c)
    }

    /// The same condensation with every harmonic block factorised (no modal sums).
    pub fn factorised(hb: &'a Balance) -> Option<Condensed<'a>> {
        let keep = hb.nonlinear_dofs();
        (!keep.is_empty() && keep.len() < hb.dofs()).then(|| Condensed {
            hb,
            layout: Layout::kept(hb.dofs(), &keep),
            keep,
            modal: None,
            cache: RefCell::new(None),
        })
    }

    /// Whether the blocks come from modal sums.
    pub fn is_modal(&self) -> bool {
        self.modal.is_some()
    }

    /// The modal data of the kept DOFs, when the damping is proportional (Hill's condensed
    /// problem, `hill::reduced`, is built on it).
    pub(super) fn modal(&self) -> Option<&Modal> {
        self.modal.as_ref()
    }

    /// The nonlinear forces' Jacobian at the kept coefficients of the full solution `q`
    /// (kept layout, `Q_c[p·n_c + j]`).
    pub(super) fn nonlinear_jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        let nc = self.keep.len() * self.width();
        self.nonlinear(&self.restrict(q), omega, true)
            .1
            .unwrap_or_else(|| DMatrix::zeros(nc, nc))
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
            // Local coordinates (p − p0)·n + i; kept ones first in `c`.
            let c: Vec<usize> = (0..width)
                .flat_map(|q| self.keep.iter().map(move |&i| q * n + i))
                .collect();
            let o: Vec<usize> = (0..width * n).filter(|l| !c.contains(l)).collect();
            if let Some(modal) = &self.modal {
                let (s, s_rate, g, g_rate) = modal.block(k, omega);
                out.push(Block {
                    p0,
                    width,
                    s,
                    s_rate,
                    g,
                    g_rate,
                    back: Back::Modal { k, omega },
                    c,
                    o,
                });
                continue;
            }
            let (d, rate) = (
                self.hb.block(Operator::Dynamic, k, omega),
                self.hb.block(Operator::Rate, k, omega),
            );
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
                back: Back::Factorised { y, z },
                c,
                o,
            });
        }
        let out = std::rc::Rc::new(out);
        *self.cache.borrow_mut() = Some((omega, out.clone()));
        out
    }

    /// The response of the linear part alone at the kept coefficients, `S⁻¹ G` per block
    /// (the condensed `Balance::free_guess`).
    pub(crate) fn free_guess(&self, omega: f64) -> DVector<f64> {
        let nc = self.keep.len();
        let mut q = DVector::zeros(self.dim());
        for b in self.blocks(omega).iter() {
            let x =
                b.s.clone()
                    .lu()
                    .solve(&b.g)
                    .unwrap_or_else(|| DVector::zeros(b.g.len()));
            q.rows_mut(b.p0 * nc, x.len()).copy_from(&x);
        }
        q
    }

    /// The kept coefficients of a full vector.
    pub fn restrict(&self, q: &DVector<f64>) -> DVector<f64> {
        restricted(self.hb.dofs(), self.width(), &self.keep, q)
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
            let others: DVector<f64> = match &b.back {
                Back::Factorised { y, z } => z - y * &local_c,
                // (Modal blocks exist only with the modes.)
                Back::Modal { k, omega } => self.modal.as_ref().map_or_else(
                    || DVector::zeros(b.o.len()),
                    |m| {
                        let full = m.expand(*k, *omega, &local_c, b);
                        DVector::from_iterator(b.o.len(), b.o.iter().map(|&l| full[l]))
                    },
                ),
            };
            for (&l, v) in b.o.iter().zip(others.iter()) {
                q[b.p0 * n + l] = *v;
            }
            for (&l, v) in b.c.iter().zip(local_c.iter()) {
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

    /// The nonlinear forces (and Jacobian) at the kept DOFs, assembled in the kept layout
    /// (`Balance::nonlinear_in`): nothing of the full size per call.
    fn nonlinear(
        &self,
        qc: &DVector<f64>,
        omega: f64,
        jac: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        self.hb.nonlinear_in(&self.layout, qc, omega, jac)
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
