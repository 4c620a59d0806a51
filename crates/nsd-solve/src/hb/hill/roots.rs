//! The roots of Hill's condensed problem `T(s) z = 0`, `T = I + R(s) B` (`reduced.rs`):
//! Newton's method bordered by `|z| = 1` from many starts at once, and the small dense
//! eigenproblems whose eigenvalues and eigenvectors give the starts.

use super::super::tolerances::{
    CONJUGATE_START_TOL, EIGENVECTOR_SHIFT, NEWTON_MAX_STEPS, ROOT_STEP_TOL, SCHUR_SWEEPS_PER_ROW,
};
use super::receptance::{Coupling, ModalSums};
use crate::linalg::Lu;
use nalgebra::{Complex, DMatrix, DVector};
use rayon::prelude::*;

type C64 = Complex<f64>;

/// A root of `T(s)` with its unit eigenvector (`newton`).
type Eigenpair = (C64, DVector<C64>);

/// The index of an earlier start whose conjugate `from` is (`CONJUGATE_START_TOL`), if
/// `from` is off the real axis: its root's conjugate is `from`'s root.
pub(super) fn conjugate_of(earlier: &[C64], from: C64, omega: f64) -> Option<usize> {
    let tol = CONJUGATE_START_TOL * (from.norm() + omega);
    let off_axis = from.im.abs() > tol;
    earlier
        .iter()
        .position(|e| off_axis && (e.conj() - from).norm() <= tol)
}

/// The exponent reached from `s`, with its unit eigenvector, by Newton's method on
/// `T(s) z = 0` bordered by `zᴴz = 1`, `T = I + R(s) B` with every mode in `R` (Ruhe's
/// nonlinear inverse iteration): `u = T⁻¹ T'(s) z`, `s ← s − 1/(zᴴu)`, `z ← u/|u|`,
/// one LU and one solve per step (Newton on `det T`, `s ← s − 1/tr(T⁻¹ T')`, needs as
/// many solves as `T` has rows). `z` starts from `from` (the last point's eigenvector)
/// or from two inverse-iteration sweeps `T(s)⁻² 1`. It stops when the error left after
/// a step is below `ROOT_STEP_TOL · (|s| + ω)`: the step itself, or, once steps
/// contract at a rate `θ < 1`, the bound `|δ| θ / (1 − θ)` of a linearly converging
/// sequence (quadratic convergence leaves far less), which saves the last step that
/// would only confirm round-off.
pub(super) fn newton(
    sums: &ModalSums,
    b: &Coupling,
    omega: f64,
    mut s: C64,
    from: Option<&DVector<C64>>,
) -> Option<Eigenpair> {
    let mut z = from.cloned();
    // The last step's size; none before the first.
    let mut last_step: Option<f64> = None;
    for _ in 0..NEWTON_MAX_STEPS {
        let (r, rate) = sums.receptance(omega, s);
        let lu = Lu::new(&r.hill_matrix(b));
        let v = match z.take() {
            Some(v) => v,
            None => {
                let ones = DVector::from_element(b.b.nrows(), C64::new(1.0, 0.0));
                let once = unit(lu.solve(&ones)?)?;
                lu.solve(&once)?
            }
        };
        let v = unit(v)?;
        let u = lu.solve(&rate.apply(&(&b.b * &v)))?;
        let step = v.dotc(&u).inv();
        let size = step.norm();
        if !size.is_finite() {
            return None;
        }
        s -= step;
        z = Some(unit(u)?);
        let left = match last_step.map(|last| size / last) {
            Some(theta) if theta < 1.0 => size.min(size * theta / (1.0 - theta)),
            _ => size,
        };
        if left <= ROOT_STEP_TOL * (s.norm() + omega) {
            return z.map(|z| (s, z));
        }
        last_step = Some(size);
    }
    None
}

/// Each start's earlier conjugate, if any (its root is that one's conjugate), and the root
/// `newton` reaches from every other start (its vector `from(i)`), in parallel: each on its
/// own, so the values do not depend on the thread count (Hill's method on the 100-pad beam
/// 99.4 → 54.9 s on 2 cores).
pub(super) fn newton_from_each<'v>(
    sums: &ModalSums,
    b: &Coupling,
    omega: f64,
    starts: &[C64],
    from: &(dyn Fn(usize) -> Option<&'v DVector<C64>> + Sync),
) -> (Vec<Option<usize>>, Vec<Option<Eigenpair>>) {
    let twins: Vec<Option<usize>> = (0..starts.len())
        .map(|i| conjugate_of(&starts[..i], starts[i], omega))
        .collect();
    let roots = (0..starts.len())
        .into_par_iter()
        .map(|i| match twins[i] {
            Some(_) => None,
            None => newton(sums, b, omega, starts[i], from(i)),
        })
        .collect();
    (twins, roots)
}

/// The unit eigenvector of `a`'s eigenvalue `theta`: two inverse-iteration sweeps shifted
/// `EIGENVECTOR_SHIFT` off it.
pub(super) fn eigenvector(a: &DMatrix<C64>, theta: C64, omega: f64) -> Option<DVector<C64>> {
    let shift = theta + EIGENVECTOR_SHIFT * (theta.norm() + omega);
    let n = a.nrows();
    let lu = Lu::new(&(a - DMatrix::from_diagonal_element(n, n, shift)));
    let once = unit(lu.solve(&DVector::from_element(n, C64::new(1.0, 0.0)))?)?;
    unit(lu.solve(&once)?)
}

/// `v / |v|`, `None` for a zero or non-finite `v`.
pub(super) fn unit(v: DVector<C64>) -> Option<DVector<C64>> {
    let norm = v.norm();
    (norm > 0.0 && norm.is_finite()).then(|| v.unscale(norm))
}

/// The eigenvalues of a complex matrix (complex Schur form), `None` if it did not converge.
pub(super) fn eigenvalues(a: &DMatrix<C64>) -> Option<Vec<C64>> {
    if a.is_empty() {
        return Some(Vec::new());
    }
    a.clone()
        .try_schur(f64::EPSILON, SCHUR_SWEEPS_PER_ROW * a.nrows())
        .and_then(|s| s.eigenvalues())
        .map(|v| v.iter().copied().collect())
}
