//! Branch switching at a period doubling: where a multiplier of the `T`-periodic orbit
//! `x*` passes −1, orbits of period `2T` branch off along the multiplier's eigenvector `v`
//! (`(Φ + I) v = 0`). Newton on the `2T` shooting problem alone falls back onto `x*` (also a
//! `2T`-periodic solution), so the doubled orbit is solved with its offset along `v` fixed:
//! `R₂(y, p) = 0`, `vᵀ(y − x*) = ε`, the parameter free (a bordered Newton system), for a few
//! offsets `ε` on both sides of `x*`.
//!
//! # References
//! Seydel, *Practical Bifurcation and Stability Analysis*, 3rd ed., Springer 2010, Sect.
//! 7.4 (period doubling) and Sect. 5.6 (branch switching by a fixed offset).

use super::shooting::Shooting;
use crate::cont::Problem;
use nalgebra::{DMatrix, DVector};

/// Offsets along `v` tried, relative to the orbit's size (dimensionless).
const OFFSETS: [f64; 3] = [1e-2, 3e-2, 3e-3];

/// Smallest distance of a doubled orbit from its half-period image, relative to the orbit's
/// size (dimensionless): below it the solution is the `T`-periodic orbit.
const DISTINCT: f64 = 1e-6;

/// Most Newton iterations of the bordered system.
const MAX_ITERATIONS: usize = 30;

/// A doubled orbit `(y, p)` near the period doubling `(x, p)` of the `T`-periodic problem
/// with monodromy `m`, on `doubled` (the `2T` problem), to `|R₂| ≤ tol`.
pub fn doubled_start(
    doubled: &Shooting,
    (x, p): (&DVector<f64>, f64),
    m: &DMatrix<f64>,
    tol: f64,
) -> Option<(DVector<f64>, f64)> {
    let n = x.len();
    let svd = (m + DMatrix::identity(n, n)).svd(false, true);
    let v_t = svd.v_t?;
    let v: DVector<f64> = v_t.row(svd.singular_values.imin()).transpose();
    let size = x.amax().max(f64::MIN_POSITIVE);
    OFFSETS
        .iter()
        .flat_map(|e| [e * size, -e * size])
        .find_map(|eps| {
            let (y, q) = bordered_newton(doubled, x, &v, eps, p, tol)?;
            let half = doubled.half_period_map(&y, q)?;
            ((half - &y).amax() > DISTINCT * size).then_some((y, q))
        })
}

/// Newton on `R₂(y, q) = 0`, `vᵀ(y − x) = eps` from `(x + eps v, p)`.
fn bordered_newton(
    doubled: &Shooting,
    x: &DVector<f64>,
    v: &DVector<f64>,
    eps: f64,
    p: f64,
    tol: f64,
) -> Option<(DVector<f64>, f64)> {
    let n = x.len();
    let (mut y, mut q) = (x + v * eps, p);
    for _ in 0..MAX_ITERATIONS {
        let r = doubled.residual(&y, q);
        let c = v.dot(&(&y - x)) - eps;
        if !r.iter().all(|v| v.is_finite()) {
            return None;
        }
        if r.norm() <= tol && c.abs() <= tol {
            return Some((y, q));
        }
        let mut a = DMatrix::zeros(n + 1, n + 1);
        a.view_mut((0, 0), (n, n))
            .copy_from(&doubled.jacobian(&y, q));
        a.view_mut((0, n), (n, 1))
            .copy_from(&doubled.param_derivative(&y, q));
        a.view_mut((n, 0), (1, n)).copy_from(&v.transpose());
        let mut b = DVector::zeros(n + 1);
        b.rows_mut(0, n).copy_from(&-r);
        b[n] = -c;
        let d = a.lu().solve(&b)?;
        y += d.rows(0, n);
        q += d[n];
    }
    None
}
