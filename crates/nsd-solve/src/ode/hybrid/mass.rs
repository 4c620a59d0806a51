//! The mass solver `r ↦ M⁻¹r` of the hybrid form, factorised once per integration: the
//! inverse diagonal for lumped masses, a dense Cholesky factor for small consistent mass
//! matrices, a sparse LDLᵀ factor for large ones.

use super::Unsupported;
use nalgebra::{DMatrix, DVector};
use nsd_model::system::System;

/// Largest DOF count whose non-diagonal mass matrix is factorised densely (Cholesky); larger
/// ones take the sparse LDLᵀ, whose cost grows with the fill rather than with `n³`.
const DENSE_MASS_SOLVE_MAX_DOFS: usize = 500;

/// Largest fraction of nonzero entries of a mass matrix factorised densely at any size: a
/// sparser one (a beam's band, a Craig–Bampton arrow) takes the sparse LDLᵀ, whose solves
/// cost `O(nnz(L))` against the dense `n²` (dimensionless).
const DENSE_MASS_MIN_DENSITY: f64 = 0.1;

/// `M` factorised for repeated solves.
pub(super) enum MassSolver {
    /// Lumped masses: the inverse of the diagonal.
    Diagonal(Vec<f64>),
    /// A consistent mass matrix of at most `DENSE_MASS_SOLVE_MAX_DOFS` DOFs and at least
    /// `DENSE_MASS_MIN_DENSITY` nonzeros: its Cholesky factor.
    Dense(nalgebra::Cholesky<f64, nalgebra::Dyn>),
    /// A larger or sparser consistent mass matrix: its sparse LDLᵀ factor.
    Sparse(Box<sprs_ldl::LdlNumeric<f64, usize>>),
}

impl MassSolver {
    /// The factorisation of `sys.m`; `SingularMass` when a DOF carries no mass.
    pub(super) fn new(sys: &System) -> Result<MassSolver, Unsupported> {
        let n = sys.n();
        let diagonal = sys.m.iter().all(|(v, (i, j))| i == j || *v == 0.0);
        if diagonal {
            let mut inv = vec![0.0; n];
            for (v, (i, _)) in sys.m.iter() {
                inv[i] += *v;
            }
            if inv.iter().any(|m| *m <= 0.0) {
                return Err(Unsupported::SingularMass);
            }
            Ok(MassSolver::Diagonal(inv.iter().map(|m| 1.0 / m).collect()))
        } else if n <= DENSE_MASS_SOLVE_MAX_DOFS
            && sys.m.nnz() as f64 >= DENSE_MASS_MIN_DENSITY * (n * n) as f64
        {
            let mut m = DMatrix::zeros(n, n);
            for (v, (i, j)) in sys.m.iter() {
                m[(i, j)] += *v;
            }
            Ok(MassSolver::Dense(
                m.cholesky().ok_or(Unsupported::SingularMass)?,
            ))
        } else {
            let ldl = sprs_ldl::Ldl::new()
                .numeric(sys.m.view())
                .map_err(|_| Unsupported::SingularMass)?;
            Ok(MassSolver::Sparse(Box::new(ldl)))
        }
    }

    /// `M⁻¹ r`.
    pub(super) fn solve(&self, r: &[f64]) -> Vec<f64> {
        match self {
            MassSolver::Diagonal(inv) => r.iter().zip(inv).map(|(a, b)| a * b).collect(),
            MassSolver::Dense(ch) => ch.solve(&DVector::from_column_slice(r)).as_slice().to_vec(),
            MassSolver::Sparse(ldl) => ldl.solve(r),
        }
    }

    /// `M⁻¹w` for the sparse weights `w` on the DOFs of an `n`-DOF system.
    pub(super) fn solve_sparse(&self, n: usize, w: &[(usize, f64)]) -> Vec<f64> {
        let mut full = vec![0.0; n];
        for &(i, wi) in w {
            full[i] += wi;
        }
        self.solve(&full)
    }

    /// `acc = M⁻¹ f` (the accelerations of the right-hand side, without allocation for lumped
    /// masses; inlined where it is called, as lumped masses make it one product per DOF).
    #[inline]
    pub(super) fn solve_into(&self, f: &[f64], acc: &mut [f64]) {
        match self {
            MassSolver::Diagonal(inv) => {
                for ((a, fi), mi) in acc.iter_mut().zip(f.iter()).zip(inv) {
                    *a = fi * mi;
                }
            }
            MassSolver::Dense(ch) => {
                let mut x = DVector::from_column_slice(f);
                ch.solve_mut(&mut x);
                acc.copy_from_slice(x.as_slice());
            }
            MassSolver::Sparse(ldl) => {
                let x: Vec<f64> = ldl.solve(f);
                acc.copy_from_slice(&x);
            }
        }
    }
}
