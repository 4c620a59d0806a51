//! The lowest eigenpairs of a large sparse `K φ = λ M φ` by shift-invert Lanczos with full
//! reorthogonalisation in the M-inner product, a shift that moves to the wanted end of the
//! spectrum, locking of converged pairs, and a Sylvester inertia check that no mode below the
//! last one returned was skipped.
//!
//! The operator `(K − σM)⁻¹ M` is applied through one sparse LDLᵀ factorisation; its largest
//! eigenvalues θ map to the lowest λ = σ + 1/θ. A Ritz pair is accepted (locked) when its
//! residual estimate |β_m s_m| ≤ `RITZ_TOL` |θ|; later runs keep their Krylov vectors
//! M-orthogonal to the locked modes, so repeated eigenvalues (symmetric structures) are found
//! one copy per run. The first shift lies ten decades below the spectrum's scale (definite
//! even with rigid-body modes). When the wanted eigenvalues are clustered — a long grounded
//! chain's lowest ones lie 1 + O(1e-7) apart — the θ of that shift are nearly equal and
//! Lanczos would need thousands of steps, so the next run shifts to just below the lowest
//! unconverged estimate (`SHIFT_MARGIN` of its error bounds), where the cluster's members map
//! to θ far apart. A shift is used only when the
//! inertia of `K − σM` (the negative pivots of its LDLᵀ) shows that no unlocked eigenvalue
//! lies below it.
//!
//! The work is bounded (`MAX_RUNS` runs of at most `MAX_STEPS` steps): when the budget is
//! spent the converged pairs are returned with the best estimates of the others, each with
//! its residual, and the caller warns.
//!
//! # References
//! Ericsson and Ruhe, "The spectral transformation Lanczos method for the numerical solution
//! of large sparse generalized symmetric eigenvalue problems", Math. Comp. 35 (1980).
//! Grimes, Lewis and Simon, "A shifted block Lanczos algorithm for solving sparse symmetric
//! generalized eigenproblems", SIAM J. Matrix Anal. Appl. 15 (1994): shift strategy and
//! inertia checks.

use super::tolerances::{
    INERTIA_MARGIN, INVARIANT_TOL, LANCZOS_EXTRA_STEPS, LANCZOS_MIN_STEPS, LANCZOS_SHIFT,
    MAX_BACKOFF, MAX_RUNS, MAX_STEPS, REORTHOGONALISATION_PASSES, RITZ_TOL, SHIFT_MARGIN, TINY,
};
use super::{Modes, ModesError};
use nalgebra::{DMatrix, DVector};
use sprs::CsMat;
use sprs_ldl::{Ldl, LdlNumeric};

/// A converged (or best available) eigenpair with its relative residual estimate.
struct Pair {
    lambda: f64,
    /// Mass-normalised shape.
    phi: Vec<f64>,
    residual: f64,
}

/// `K − σM` factorised, with the count of its negative pivots (Sylvester's inertia: the
/// number of eigenvalues below σ).
struct Shift {
    sigma: f64,
    ldl: LdlNumeric<f64, usize>,
    below: usize,
}

impl Shift {
    fn new(m: &CsMat<f64>, k: &CsMat<f64>, sigma: f64) -> Option<Shift> {
        let shifted = k - &m.map(|v| sigma * v);
        let ldl = Ldl::new()
            .fill_in_reduction(sprs::FillInReduction::ReverseCuthillMcKee)
            .numeric(shifted.view())
            .ok()?;
        let below = ldl.d().iter().filter(|d| **d < 0.0).count();
        Some(Shift { sigma, ldl, below })
    }
}

/// The `count` lowest eigenpairs.
pub(crate) fn solve(m: &CsMat<f64>, k: &CsMat<f64>, count: usize) -> Result<Modes, ModesError> {
    solve_within(m, k, count, MAX_RUNS, MAX_STEPS)
}

/// The `count` lowest eigenpairs in at most `max_runs` Lanczos runs of `max_steps` steps.
fn solve_within(
    m: &CsMat<f64>,
    k: &CsMat<f64>,
    count: usize,
    max_runs: usize,
    max_steps: usize,
) -> Result<Modes, ModesError> {
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
    let scale = if dk > 0.0 { dk / dm } else { 1.0 };
    let mut shift = Shift::new(m, k, -LANCZOS_SHIFT * scale).ok_or(ModesError::SingularMass)?;
    if shift.below > 0 {
        return Err(ModesError::SingularMass);
    }
    let mut steps = (2 * count + LANCZOS_EXTRA_STEPS)
        .max(LANCZOS_MIN_STEPS)
        .min(n);
    let mut locked: Vec<Pair> = Vec::new();
    let mut best: Vec<Pair> = Vec::new();
    let mut missing = 0;
    for _ in 0..max_runs {
        let want = count.saturating_sub(locked.len()).max(missing);
        let ritz = run(m, &shift, &locked, want, steps)?;
        let (converged, open): (Vec<Pair>, Vec<Pair>) =
            ritz.into_iter().partition(|p| p.residual <= RITZ_TOL);
        locked.extend(converged);
        if locked.len() >= count {
            // Modes skipped below the last one (a repeated eigenvalue, a start vector blind
            // to a mode) are found by the next run, deflated against the locked ones.
            missing = missing_below(m, k, &locked, count).unwrap_or(0);
            if missing == 0 {
                return Ok(modes_of(locked, Vec::new(), count, n));
            }
            continue;
        }
        best = open;
        match closer_shift(m, k, &shift, &locked, &best) {
            Some(s) => shift = s,
            None if steps < n.min(max_steps) => steps = (2 * steps).min(n).min(max_steps),
            None => break,
        }
    }
    if locked.is_empty() && best.is_empty() {
        return Err(ModesError::NotConverged { steps });
    }
    Ok(modes_of(locked, best, count, n))
}

/// The lowest `count` pairs of the locked and the unconverged ones, as `Modes`.
fn modes_of(locked: Vec<Pair>, open: Vec<Pair>, count: usize, n: usize) -> Modes {
    let mut pairs: Vec<Pair> = locked.into_iter().chain(open).collect();
    pairs.sort_by(|a, b| a.lambda.total_cmp(&b.lambda));
    pairs.truncate(count);
    let mut shapes = DMatrix::zeros(n, pairs.len());
    for (col, p) in pairs.iter().enumerate() {
        shapes.set_column(col, &DVector::from_column_slice(&p.phi));
    }
    let lambdas = pairs.iter().map(|p| p.lambda).collect();
    let residual = pairs.iter().map(|p| p.residual).collect();
    Modes::from_eigenvalues(lambdas, shapes, residual, false)
}

/// How many eigenvalues below the middle of the gap after the `count`-th locked one are not
/// locked (by the inertia of `K − σM` there); `None` when no factorisation settles it.
fn missing_below(m: &CsMat<f64>, k: &CsMat<f64>, locked: &[Pair], count: usize) -> Option<usize> {
    let mut lambdas: Vec<f64> = locked.iter().map(|p| p.lambda).collect();
    lambdas.sort_by(f64::total_cmp);
    let top = lambdas[count - 1];
    // Just above the count-th eigenvalue, below the next locked one if any.
    let margin = INERTIA_MARGIN * top.abs().max(f64::MIN_POSITIVE);
    let next = lambdas.get(count).copied().unwrap_or(f64::INFINITY);
    let sigma = (top + margin).min(0.5 * (top + next));
    let check = Shift::new(m, k, sigma)?;
    let locked_below = lambdas.iter().filter(|l| **l < sigma).count();
    Some(check.below.saturating_sub(locked_below))
}

/// A shift just below the lowest unconverged eigenvalue estimate λ̃, by `SHIFT_MARGIN`
/// times its error bound (the residual in λ units, `res · (λ̃ − σ)`), when that is closer to
/// it than the current shift and no unlocked eigenvalue lies below; halved back towards the
/// current shift until the inertia agrees. Close to λ̃, the eigenvalues next to it map to
/// θ far apart, however tight their cluster.
fn closer_shift(
    m: &CsMat<f64>,
    k: &CsMat<f64>,
    current: &Shift,
    locked: &[Pair],
    open: &[Pair],
) -> Option<Shift> {
    let lowest = open.iter().min_by(|a, b| a.lambda.total_cmp(&b.lambda))?;
    let distance = lowest.lambda - current.sigma;
    let error = lowest.residual * distance;
    let mut sigma = lowest.lambda - SHIFT_MARGIN * error;
    for _ in 0..MAX_BACKOFF {
        // A shift that does not halve the distance to the wanted eigenvalue gains too little
        // to pay for a new factorisation and Krylov space.
        if lowest.lambda - sigma > 0.5 * distance {
            return None;
        }
        if let Some(s) = Shift::new(m, k, sigma) {
            let locked_below = locked.iter().filter(|p| p.lambda < sigma).count();
            if s.below == locked_below {
                return Some(s);
            }
        }
        sigma = 0.5 * (sigma + current.sigma);
    }
    None
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

/// Removes from `w` its M-components along the vectors `q` (whose M-images are `mq`).
fn orthogonalise<'a>(w: &mut [f64], against: impl Iterator<Item = (&'a [f64], &'a [f64])>) {
    for (q, mq) in against {
        let c = dot(w, mq);
        w.iter_mut().zip(q).for_each(|(x, y)| *x -= c * y);
    }
}

/// One Lanczos run of at most `steps` steps at `shift`, deflated against `locked`: the
/// `want` largest Ritz pairs, each with its relative residual estimate.
fn run(
    m: &CsMat<f64>,
    shift: &Shift,
    locked: &[Pair],
    want: usize,
    steps: usize,
) -> Result<Vec<Pair>, ModesError> {
    let n = m.rows();
    let locked_m: Vec<Vec<f64>> = locked.iter().map(|p| mat_vec(m, &p.phi)).collect();
    let deflate = |w: &mut [f64]| {
        orthogonalise(
            w,
            locked
                .iter()
                .zip(&locked_m)
                .map(|(p, mp)| (p.phi.as_slice(), mp.as_slice())),
        )
    };
    // A fixed, generic start vector keeps the result deterministic.
    let mut q: Vec<f64> = (0..n)
        .map(|i| 1.0 + 0.3 * ((i as f64) * 0.7548).sin())
        .collect();
    deflate(&mut q);
    let norm = dot(&q, &mat_vec(m, &q)).sqrt();
    q.iter_mut().for_each(|x| *x /= norm);
    let steps = steps.min(n - locked.len()).max(1);
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(steps + 1);
    let mut m_basis: Vec<Vec<f64>> = Vec::with_capacity(steps + 1);
    let (mut alpha, mut beta) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let mut mq = mat_vec(m, &q);
    for j in 0..steps {
        let mut w: Vec<f64> = shift.ldl.solve(&mq);
        let a = dot(&w, &mq);
        alpha.push(a);
        basis.push(q.clone());
        m_basis.push(mq.clone());
        // Full reorthogonalisation (twice is enough) against every previous Lanczos vector
        // and the locked modes.
        for _ in 0..REORTHOGONALISATION_PASSES {
            deflate(&mut w);
            orthogonalise(
                &mut w,
                basis
                    .iter()
                    .zip(&m_basis)
                    .map(|(q, mq)| (q.as_slice(), mq.as_slice())),
            );
        }
        let mw = mat_vec(m, &w);
        let b = dot(&w, &mw).max(0.0).sqrt();
        beta.push(b);
        if j + 1 == steps || b < INVARIANT_TOL * a.abs().max(TINY) {
            break;
        }
        q = w.iter().map(|x| x / b).collect();
        mq = mw.iter().map(|x| x / b).collect();
    }
    ritz_pairs(shift.sigma, &basis, &alpha, &beta, want, steps)
}

/// The `want` largest Ritz pairs of the Lanczos tridiagonal (α, β) on `basis`.
fn ritz_pairs(
    sigma: f64,
    basis: &[Vec<f64>],
    alpha: &[f64],
    beta: &[f64],
    want: usize,
    steps: usize,
) -> Result<Vec<Pair>, ModesError> {
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
    let last_beta = beta.last().copied().unwrap_or(0.0);
    let invariant = m_steps < steps || last_beta < INVARIANT_TOL;
    let n = basis.first().map_or(0, Vec::len);
    let mut pairs = Vec::with_capacity(want);
    for &i in order.iter().take(want) {
        let theta = eig.eigenvalues[i];
        if theta <= 0.0 {
            // Only eigenvalues above the shift map to θ > 0; the rest are not wanted.
            break;
        }
        let s = eig.eigenvectors.column(i);
        let residual = if invariant {
            0.0
        } else {
            (last_beta * s[m_steps - 1]).abs() / theta
        };
        let mut phi = vec![0.0; n];
        for (l, qv) in basis.iter().enumerate() {
            phi.iter_mut().zip(qv).for_each(|(p, q)| *p += s[l] * q);
        }
        pairs.push(Pair {
            lambda: sigma + 1.0 / theta,
            phi,
            residual,
        });
    }
    if pairs.is_empty() && want > 0 {
        return Err(ModesError::NotConverged { steps });
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::solve_within;
    use sprs::TriMat;

    #[test]
    fn a_spent_budget_returns_the_modes_with_their_residuals() {
        // The grounded chain (λ_j = 1 + 4 sin²(jπ/2n)): one run of 40 steps at the first shift
        // cannot separate its cluster, so the modes come back flagged, not as an error.
        let n = 3000;
        let (mut m, mut k) = (TriMat::new((n, n)), TriMat::new((n, n)));
        for i in 0..n {
            m.add_triplet(i, i, 1.0);
            k.add_triplet(i, i, if i == 0 || i == n - 1 { 2.0 } else { 3.0 });
            if i + 1 < n {
                k.add_triplet(i, i + 1, -1.0);
                k.add_triplet(i + 1, i, -1.0);
            }
        }
        let modes = solve_within(&m.to_csr(), &k.to_csr(), 10, 1, 40).expect("modes");
        assert_eq!(modes.omega.len(), 10);
        assert!(!modes.unconverged().is_empty(), "{:?}", modes.residual);
        // With the full budget every mode converges.
        let modes = super::solve(&m.to_csr(), &k.to_csr(), 10).expect("modes");
        assert!(modes.unconverged().is_empty(), "{:?}", modes.residual);
    }
}
