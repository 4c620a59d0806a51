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
use sprs_ldl::{Ldl, LdlNumeric};

/// A factorisation of `S`.
enum Factor {
    /// The sparse LDLᵀ (two rows or more).
    Ldl(Box<LdlNumeric<f64, usize>>),
    /// The LU of a one-DOF `S` (sprs-ldl's workspaces need two rows).
    Scalar(f64),
}

impl Factor {
    /// The factor of `s` (its symbolic part reused from `old` when that is an LDLᵀ);
    /// `None` when `s` is singular.
    fn of(s: &CsMat<f64>, old: Option<Factor>) -> Option<Factor> {
        if s.rows() == 1 {
            let d = s.get(0, 0).copied().unwrap_or(0.0);
            return (d != 0.0 && d.is_finite()).then_some(Factor::Scalar(d));
        }
        let ldl = match old {
            Some(Factor::Ldl(mut f)) => f.update(s.view()).ok().map(|_| f),
            _ => Ldl::new()
                .check_symmetry(SymmetryCheck::DontCheckSymmetry)
                .fill_in_reduction(FillInReduction::ReverseCuthillMcKee)
                .numeric(s.view())
                .ok()
                .map(Box::new),
        }?;
        ldl.d()
            .iter()
            .all(|d| d.is_finite() && *d != 0.0)
            .then_some(Factor::Ldl(ldl))
    }

    /// `S⁻¹ r`.
    fn solve(&self, r: &[f64]) -> Vec<f64> {
        match self {
            Factor::Ldl(f) => f.solve(r),
            Factor::Scalar(d) => r.iter().map(|v| v / d).collect(),
        }
    }
}

/// `S = c²M + cC̃ + K̃` of the latest step, its factor, and `M`, `C̃` for the stage
/// right-hand sides.
pub(super) struct SparseStages {
    n: usize,
    /// `S` on the common pattern of `M`, `K̃`, `C̃` (the values last factored).
    s: CsMat<f64>,
    m: CsMat<f64>,
    /// `C̃` on `m`'s pattern, as a matrix for the product `C̃ bₓ`.
    c: CsMat<f64>,
    /// `1/(γh)` of the latest step.
    rate: f64,
    /// The factor of `s`'s values (`None` when singular).
    factor: Option<Factor>,
    /// Numeric factorisations made (the reuse the tests check).
    pub(super) factorisations: usize,
}

impl SparseStages {
    /// Storage for the linearisations of one system (their pattern is `lin.m`'s).
    pub(super) fn new(lin: &SecondOrder) -> SparseStages {
        SparseStages {
            n: lin.m.rows(),
            s: lin.m.clone(),
            m: lin.m.clone(),
            c: lin.m.clone(),
            rate: 0.0,
            factor: None,
            factorisations: 0,
        }
    }

    /// `S = c²M + cC̃ + K̃` for `c = 1/(γh)` and the tangent `lin`, factored unless it equals
    /// the one factored last; `false` when `S` is singular (the step is then shortened).
    pub(super) fn prepare(&mut self, lin: &SecondOrder, rate: f64) -> bool {
        self.rate = rate;
        self.c.data_mut().copy_from_slice(&lin.c);
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
    /// when no factor is ready.
    pub(super) fn solve(&self, b: &[f64], k: &mut [f64]) -> bool {
        let Some(factor) = self.factor.as_ref() else {
            return false;
        };
        let n = self.n;
        let (bx, bv) = b.split_at(n);
        // r = M b_v + (cM + C̃) bₓ = M (b_v + c bₓ) + C̃ bₓ.
        let mut r = vec![0.0; n];
        for (row, (mr, cr)) in self
            .m
            .outer_iterator()
            .zip(self.c.outer_iterator())
            .enumerate()
        {
            let mv: f64 = mr
                .iter()
                .map(|(j, m)| m * (bv[j] + self.rate * bx[j]))
                .sum();
            let cv: f64 = cr.iter().map(|(j, c)| c * bx[j]).sum();
            r[row] = mv + cv;
        }
        let kx: Vec<f64> = factor.solve(&r);
        let (kxo, kvo) = k.split_at_mut(n);
        kxo.copy_from_slice(&kx);
        for ((kv, x), b) in kvo.iter_mut().zip(&kx).zip(bx) {
            *kv = self.rate * x - b;
        }
        true
    }
}
