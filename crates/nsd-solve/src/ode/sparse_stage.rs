//! The stage systems of RODAS for a second-order right-hand side, solved sparsely in the
//! second-order block form instead of as a dense `2n × 2n` system.
//!
//! With `y = [x, v]`, `J = [[0, I], [−M⁻¹K̃, −M⁻¹C̃]]` and `c = 1/(γh)`, the stage system
//! `(cI − J) [kₓ; k_v] = [bₓ; b_v]` reads `c kₓ − k_v = bₓ` and
//! `M⁻¹K̃ kₓ + (cI + M⁻¹C̃) k_v = b_v`; eliminating `k_v = c kₓ − bₓ` and multiplying by `M`,
//!
//! `S kₓ = M b_v + (cM + C̃) bₓ`, `S = c²M + cC̃ + K̃`,
//!
//! an `n × n` sparse system, symmetric when `M`, `K̃` and `C̃` are (the assembled matrices
//! and every contact tangent `k w wᵀ` are): `M⁻¹` is never formed. `S` is factored by the
//! sparse LDLᵀ of `sprs-ldl` (a one-DOF `S` is a scalar; reverse Cuthill–McKee ordering, whose fill stays within the
//! band of the chains and beams nsd assembles): the symbolic factorisation is made once per
//! integration, the numeric one only when `S` changes — a new step size, new modes, or a
//! tangent that moves with the state — so the six stages of a step, and the retries of a
//! rejected step at the same size, share one factor. Per step: `O(nnz(S))` to form `S` and
//! `O(nnz(L))` per stage solve; `O(nnz(L))` more for a new factor (`nnz(L) = O(n · band)`).
//!
//! # References
//! Hairer and Wanner, *Solving Ordinary Differential Equations II*, 2nd ed., Springer 1996,
//! Sect. IV.7 (Rosenbrock methods) and Sect. IV.8 (linear algebra of implicit methods for
//! second-order systems, the elimination of the velocity block).

use super::step::SecondOrder;
use sprs::{CsMat, FillInReduction, SymmetryCheck};
use sprs_ldl::{Ldl, LdlNumeric, LdlSymbolic};

/// A factorisation of `S`.
enum Factor {
    /// The sparse LDLᵀ of `P S Pᵀ` (two rows or more), and `P` as the list `p`: row `i` of
    /// the permuted matrix is row `p[i]` of `S`.
    Ldl {
        ldl: Box<LdlNumeric<f64, usize>>,
        p: Vec<usize>,
    },
    /// The LU of a one-DOF `S` (sprs-ldl's workspaces need two rows).
    Scalar(f64),
}

impl Factor {
    /// The factor of `s` (its ordering and symbolic part reused from `old` when that is an
    /// LDLᵀ); `None` when `s` is singular.
    fn of(s: &CsMat<f64>, old: Option<Factor>) -> Option<Factor> {
        if s.rows() == 1 {
            let d = s.get(0, 0).copied().unwrap_or(0.0);
            return (d != 0.0 && d.is_finite()).then_some(Factor::Scalar(d));
        }
        let (ldl, p) = match old {
            Some(Factor::Ldl { mut ldl, p }) => ldl.update(s.view()).ok().map(|_| (ldl, p)),
            _ => {
                let perm = Ldl::new()
                    .fill_in_reduction(FillInReduction::ReverseCuthillMcKee)
                    .perm(s.view());
                let p = perm.vec();
                LdlSymbolic::new_perm(s.view(), perm, SymmetryCheck::DontCheckSymmetry)
                    .factor(s.view())
                    .ok()
                    .map(|ldl| (Box::new(ldl), p))
            }
        }?;
        ldl.d()
            .iter()
            .all(|d| d.is_finite() && *d != 0.0)
            .then_some(Factor::Ldl { ldl, p })
    }
}

/// `S = c²M + cC̃ + K̃` of the latest step, its factor, and `M`, `C̃` for the stage
/// right-hand sides.
pub(super) struct SparseStages {
    n: usize,
    /// `S` on the common pattern of `M`, `K̃`, `C̃` (the values last factored).
    s: CsMat<f64>,
    m: CsMat<f64>,
    /// `C̃` on `m`'s pattern.
    c: Vec<f64>,
    /// `1/(γh)` of the latest step.
    rate: f64,
    /// The factor of `s`'s values (`None` when singular).
    factor: Option<Factor>,
    /// The permuted right-hand side and solution of a stage solve (no allocation per stage).
    x: Vec<f64>,
    /// Numeric factorisations made (the reuse the tests check).
    pub(super) factorisations: usize,
}

impl SparseStages {
    /// Storage for the linearisations of one system (their pattern is `lin.m`'s).
    pub(super) fn new(lin: &SecondOrder) -> SparseStages {
        let n = lin.m.rows();
        SparseStages {
            n,
            s: lin.m.clone(),
            m: lin.m.clone(),
            c: lin.c.clone(),
            rate: 0.0,
            factor: None,
            x: vec![0.0; n],
            factorisations: 0,
        }
    }

    /// `S = c²M + cC̃ + K̃` for `c = 1/(γh)` and the tangent `lin`, factored unless it equals
    /// the one factored last; `false` when `S` is singular (the step is then shortened).
    pub(super) fn prepare(&mut self, lin: &SecondOrder, rate: f64) -> bool {
        self.rate = rate;
        self.c.copy_from_slice(&lin.c);
        let mut same = self.factor.is_some();
        for (((s, m), k), c) in self
            .s
            .data_mut()
            .iter_mut()
            .zip(lin.m.data())
            .zip(&lin.k)
            .zip(&lin.c)
        {
            let value = rate * (rate * m + c) + k;
            same &= *s == value;
            *s = value;
        }
        if same {
            return true;
        }
        self.factorisations += 1;
        // A failed factorisation loses the symbolic part; the next one starts afresh.
        self.factor = Factor::of(&self.s, self.factor.take());
        self.factor.is_some()
    }

    /// The stage increment `k = [kₓ; k_v]` of the right-hand side `b = [bₓ; b_v]`; `false`
    /// when no factor is ready. `O(nnz(S) + nnz(L))`, without allocation.
    pub(super) fn solve(&mut self, b: &[f64], k: &mut [f64]) -> bool {
        let Some(factor) = self.factor.as_ref() else {
            return false;
        };
        let (n, rate) = (self.n, self.rate);
        let (bx, bv) = b.split_at(n);
        let (kx, kv) = k.split_at_mut(n);
        // r = M b_v + (cM + C̃) bₓ = M u + C̃ bₓ with u = b_v + c bₓ (in `kv` meanwhile),
        // row by row into `kx`.
        for ((u, v), x) in kv.iter_mut().zip(bv).zip(bx) {
            *u = v + rate * x;
        }
        let indptr = self.m.indptr();
        let (ptr, cols, m) = (indptr.raw_storage(), self.m.indices(), self.m.data());
        for (row, r) in kx.iter_mut().enumerate() {
            let (lo, hi) = (ptr[row], ptr[row + 1]);
            let mut acc = 0.0;
            for ((&j, mv), cv) in cols[lo..hi].iter().zip(&m[lo..hi]).zip(&self.c[lo..hi]) {
                acc += mv * kv[j] + cv * bx[j];
            }
            *r = acc;
        }
        match factor {
            Factor::Ldl { ldl, p } => {
                // L D Lᵀ (P kₓ) = P r.
                for (x, &row) in self.x.iter_mut().zip(p) {
                    *x = kx[row];
                }
                ldl_solve(ldl, &mut self.x);
                for (x, &row) in self.x.iter().zip(p) {
                    kx[row] = *x;
                }
            }
            Factor::Scalar(d) => kx[0] /= d,
        }
        for ((v, x), b) in kv.iter_mut().zip(kx.iter()).zip(bx) {
            *v = rate * x - b;
        }
        true
    }
}

/// `x ← (L D Lᵀ)⁻¹ x` in place: the forward substitution by the columns of the unit lower
/// triangle `L` (CSC) with the diagonal, then the backward substitution by `Lᵀ` (Davis, *Direct Methods for Sparse Linear Systems*, SIAM 2006, Sect. 4.3, the LDL
/// solves).
fn ldl_solve(ldl: &LdlNumeric<f64, usize>, x: &mut [f64]) {
    let l = ldl.l();
    let indptr = l.indptr();
    let (ptr, rows, vals) = (indptr.raw_storage(), l.indices(), l.data());
    // Forward: x[col] is final when its column is reached; D⁻¹ is applied there, off the
    // backward pass's chain of dependencies.
    for (col, d) in ldl.d().iter().enumerate() {
        let xc = x[col];
        for (&r, v) in rows[ptr[col]..ptr[col + 1]]
            .iter()
            .zip(&vals[ptr[col]..ptr[col + 1]])
        {
            x[r] -= v * xc;
        }
        x[col] = xc / d;
    }
    for col in (0..x.len()).rev() {
        let (lo, hi) = (ptr[col], ptr[col + 1]);
        let below: f64 = rows[lo..hi]
            .iter()
            .zip(&vals[lo..hi])
            .map(|(&r, v)| v * x[r])
            .sum();
        x[col] -= below;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `S` of a fixed–free chain of `n` masses (tridiagonal, `c²m + c(α m + β k_ij) + k_ij`)
    /// in a shuffled numbering: the reverse Cuthill–McKee ordering finds the band again, so
    /// `L` has no fill (`n − 1` entries, the cost per solve and factorisation linear in n),
    /// and the stage solve returns `S kₓ = r` to round-off.
    #[test]
    fn a_chain_factors_without_fill_and_solves() {
        let n = 500;
        // Position of chain mass i in the numbering: a stride coprime with n.
        let at = |i: usize| (i * 7) % n;
        let (k, m, rate) = (n as f64, 1.0 / n as f64, 40.0);
        let mut tri = sprs::TriMat::new((n, n));
        for i in 0..n {
            let diag = if i + 1 < n { 2.0 * k } else { k };
            tri.add_triplet(at(i), at(i), diag);
            if i + 1 < n {
                tri.add_triplet(at(i), at(i + 1), -k);
                tri.add_triplet(at(i + 1), at(i), -k);
            }
        }
        let kmat: CsMat<f64> = tri.to_csr();
        let masses: Vec<f64> = kmat
            .iter()
            .map(|(_, (i, j))| if i == j { m } else { 0.0 })
            .collect();
        let mm = CsMat::new(
            (n, n),
            kmat.indptr().raw_storage().to_vec(),
            kmat.indices().to_vec(),
            masses,
        );
        let lin = SecondOrder {
            c: kmat.data().iter().map(|v| 1e-4 * v).collect(),
            k: kmat.data().to_vec(),
            m: mm,
        };
        let mut stages = SparseStages::new(&lin);
        assert!(stages.prepare(&lin, rate));
        let Some(Factor::Ldl { ldl, .. }) = &stages.factor else {
            panic!("a sparse factor");
        };
        assert_eq!(ldl.nnz(), n - 1);
        // b = [bₓ; 0]: r = (cM + C̃) bₓ, and k_v = c kₓ − bₓ.
        let bx: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut b = bx.clone();
        b.resize(2 * n, 0.0);
        let mut kk = vec![0.0; 2 * n];
        assert!(stages.solve(&b, &mut kk));
        let s = &stages.s;
        let mut worst: f64 = 0.0;
        for (row, vec) in s.outer_iterator().enumerate() {
            let sk: f64 = vec.iter().map(|(j, v)| v * kk[j]).sum();
            let r: f64 = (0..n)
                .map(|j| {
                    let cm = rate * lin.m.get(row, j).copied().unwrap_or(0.0);
                    let ij = lin.m.nnz_index(row, j);
                    (cm + ij.map_or(0.0, |e| lin.c[e.0])) * bx[j]
                })
                .sum();
            worst = worst.max((sk - r).abs() / r.abs().max(1.0));
        }
        assert!(worst < 1e-10, "residual {worst:e}");
    }
}
