//! The lowest eigenpairs of a large sparse `K φ = λ M φ` by shift-invert Lanczos with full
//! reorthogonalisation in the M-inner product.
//!
//! The operator `(K − σM)⁻¹ M` (σ ten decades below the spectrum's scale, so `K − σM` is
//! positive definite even with rigid-body modes) is applied through one sparse LDLᵀ
//! factorisation; its largest eigenvalues θ map to the lowest λ = σ + 1/θ. A Ritz pair is
//! accepted when its residual estimate |β_m s_m| ≤ `RITZ_TOL` |θ|; otherwise the Krylov space
//! is doubled.
//!
//! # References
//! Ericsson and Ruhe, "The spectral transformation Lanczos method for the numerical solution
//! of large sparse generalized symmetric eigenvalue problems", Math. Comp. 35 (1980).

use super::tolerances::{
    INVARIANT_TOL, LANCZOS_EXTRA_STEPS, LANCZOS_MIN_STEPS, LANCZOS_SHIFT,
    REORTHOGONALISATION_PASSES, RITZ_TOL, TINY,
};
use super::{Modes, ModesError};
use nalgebra::{DMatrix, DVector};
use sprs::CsMat;

/// The `count` lowest eigenpairs.
pub fn solve(m: &CsMat<f64>, k: &CsMat<f64>, count: usize) -> Result<Modes, ModesError> {
    let n = m.rows();
    let count = count.min(n);
    let mean_diag = |a: &CsMat<f64>| {
        (0..n)
            .map(|i| a.get(i, i).copied().unwrap_or(0.0))
            .sum::<f64>()
            / n as f64
    };
    let (dk, dm) = (mean_diag(k), mean_diag(m));
    if dm <= 0.0 {
        return Err(ModesError::SingularMass);
    }
    // dk/dm estimates the top of the spectrum; the lowest eigenvalue can be ~n² smaller on a
    // long chain, so the shift is kept ten decades down: K − σM stays definite with rigid-body
    // modes, while the wanted θ = 1/(λ − σ) remain well separated.
    let scale = if dk > 0.0 { dk / dm } else { 1.0 };
    let sigma = -LANCZOS_SHIFT * scale;
    let shifted = k - &m.map(|v| sigma * v);
    let ldl = sprs_ldl::Ldl::new()
        .fill_in_reduction(sprs::FillInReduction::ReverseCuthillMcKee)
        .numeric(shifted.view())
        .map_err(|_| ModesError::SingularMass)?;
    let mut steps = (2 * count + LANCZOS_EXTRA_STEPS)
        .max(LANCZOS_MIN_STEPS)
        .min(n);
    loop {
        if let Some(modes) = run(m, &ldl, sigma, count, steps)? {
            return Ok(modes);
        }
        if steps == n {
            return Err(ModesError::NotConverged { steps });
        }
        steps = (2 * steps).min(n);
    }
}

fn mat_vec(a: &CsMat<f64>, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for (row, vec) in a.outer_iterator().enumerate() {
        y[row] = vec.iter().map(|(j, v)| v * x[j]).sum();
    }
    y
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// One Lanczos run of `steps` steps; `None` when fewer than `count` pairs converged.
fn run(
    m: &CsMat<f64>,
    ldl: &sprs_ldl::LdlNumeric<f64, usize>,
    sigma: f64,
    count: usize,
    steps: usize,
) -> Result<Option<Modes>, ModesError> {
    let n = m.rows();
    // A fixed, generic start vector keeps the result deterministic.
    let mut q: Vec<f64> = (0..n)
        .map(|i| 1.0 + 0.3 * ((i as f64) * 0.7548).sin())
        .collect();
    let norm = dot(&q, &mat_vec(m, &q)).sqrt();
    q.iter_mut().for_each(|x| *x /= norm);
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(steps + 1);
    let mut m_basis: Vec<Vec<f64>> = Vec::with_capacity(steps + 1);
    let (mut alpha, mut beta) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let mut mq = mat_vec(m, &q);
    for j in 0..steps {
        let mut w: Vec<f64> = ldl.solve(&mq);
        let a = dot(&w, &mq);
        alpha.push(a);
        basis.push(q.clone());
        m_basis.push(mq.clone());
        // Full reorthogonalisation (twice is enough) against every previous Lanczos vector.
        for _ in 0..REORTHOGONALISATION_PASSES {
            for (qi, mqi) in basis.iter().zip(&m_basis) {
                let c = dot(&w, mqi);
                w.iter_mut().zip(qi).for_each(|(x, y)| *x -= c * y);
            }
        }
        let mw = mat_vec(m, &w);
        let b = dot(&w, &mw).max(0.0).sqrt();
        if j + 1 == steps || b < INVARIANT_TOL * a.abs().max(TINY) {
            beta.push(b);
            break;
        }
        beta.push(b);
        q = w.iter().map(|x| x / b).collect();
        mq = mw.iter().map(|x| x / b).collect();
    }
    let m_steps = alpha.len();
    let mut t = DMatrix::zeros(m_steps, m_steps);
    for i in 0..m_steps {
        t[(i, i)] = alpha[i];
        if i + 1 < m_steps {
            t[(i, i + 1)] = beta[i];
            t[(i + 1, i)] = beta[i];
        }
    }
    let eig = t.symmetric_eigen();
    let mut order: Vec<usize> = (0..m_steps).collect();
    order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
    let last_beta = *beta.last().unwrap_or(&0.0);
    let invariant = m_steps < steps || last_beta < INVARIANT_TOL;
    let mut lambdas = Vec::with_capacity(count);
    let mut shapes = DMatrix::zeros(n, count);
    for (col, &i) in order.iter().take(count).enumerate() {
        let theta = eig.eigenvalues[i];
        let s = eig.eigenvectors.column(i);
        let residual = (last_beta * s[m_steps - 1]).abs();
        if !invariant && residual > RITZ_TOL * theta.abs() {
            return Ok(None);
        }
        if theta.abs() < TINY {
            return Err(ModesError::NotConverged { steps });
        }
        lambdas.push(sigma + 1.0 / theta);
        let mut phi = DVector::zeros(n);
        for (l, qv) in basis.iter().enumerate() {
            phi.axpy(s[l], &DVector::from_column_slice(qv), 1.0);
        }
        shapes.set_column(col, &phi);
    }
    if lambdas.len() < count {
        return Ok(None);
    }
    Ok(Some(Modes::from_eigenvalues(lambdas, shapes)))
}
