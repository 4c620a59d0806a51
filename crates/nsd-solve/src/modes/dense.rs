//! Dense generalised symmetric eigenproblem `K φ = ω² M φ` for small models: Cholesky
//! `M = L Lᵀ`, symmetric eigen of `L⁻¹ K L⁻ᵀ`, back-substitution `φ = L⁻ᵀ y`, so the modes
//! come out mass-normalised (`φᵀ M φ = 1`).

use super::{Modes, ModesError};
use nalgebra::DMatrix;

/// All eigenpairs, ascending.
pub(crate) fn solve(m: &DMatrix<f64>, k: &DMatrix<f64>) -> Result<Modes, ModesError> {
    let n = m.nrows();
    let chol = m.clone().cholesky().ok_or(ModesError::SingularMass)?;
    let l = chol.l();
    // A = L⁻¹ K L⁻ᵀ, by two triangular solves.
    let x = l
        .solve_lower_triangular(k)
        .ok_or(ModesError::SingularMass)?;
    let a = l
        .solve_lower_triangular(&x.transpose())
        .ok_or(ModesError::SingularMass)?;
    let a = (&a + a.transpose()) * 0.5;
    let eig = a.symmetric_eigen();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
    let lt = l.transpose();
    let mut lambdas = Vec::with_capacity(n);
    let mut shapes = DMatrix::zeros(n, n);
    for (col, &i) in order.iter().enumerate() {
        lambdas.push(eig.eigenvalues[i]);
        let y = eig.eigenvectors.column(i).into_owned();
        let phi = lt
            .solve_upper_triangular(&y)
            .ok_or(ModesError::SingularMass)?;
        shapes.set_column(col, &phi);
    }
    Ok(Modes::from_eigenvalues(lambdas, shapes, vec![0.0; n], true))
}
