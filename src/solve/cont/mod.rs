//! Pseudo-arclength continuation of `R(x, p) = 0` (generic: harmonic balance FRFs now;
//! periodic orbits, nonsmooth modes and backbones later). Predictor along the unit tangent
//! of the branch in `(x, p)`, Newton corrector on the augmented system
//! `[R(x, p); τ_xᵀ(x − x̂) + τ_p (p − p̂)] = 0`, adaptive step (grown after an easy
//! correction, halved after a hard or failed one), so turning points are passed rather than
//! stopped at. A fold is where the tangent's `p` component changes sign.

use nalgebra::{DMatrix, DVector};

/// A parametrised nonlinear system with its exact derivatives.
pub trait Problem {
    fn dim(&self) -> usize;
    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64>;
    /// `∂R/∂x`.
    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64>;
    /// `∂R/∂p`.
    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64>;
}

#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The parameter interval; the branch stops when it leaves it.
    pub range: (f64, f64),
    pub step: f64,
    pub min_step: f64,
    pub max_step: f64,
    pub max_points: usize,
    /// Newton tolerance on `|R|`.
    pub tol: f64,
}

/// One converged point of the branch.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: DVector<f64>,
    pub p: f64,
    /// The unit tangent `(τ_x, τ_p)` at the point.
    pub tangent: (DVector<f64>, f64),
    pub iterations: usize,
    /// The tangent's `p` component changed sign since the previous point.
    pub fold: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContError {
    #[error("the starting point does not converge (residual {0:e})")]
    Start(f64),
    #[error("the step fell below its minimum at p = {p} after {points} points")]
    StepUnderflow { p: f64, points: usize },
}

/// The tangent at `(x, p)` oriented along `previous` (`[J, R_p; prevᵀ] τ = [0; 1]`).
fn tangent<P: Problem>(
    pr: &P,
    x: &DVector<f64>,
    p: f64,
    previous: &(DVector<f64>, f64),
) -> Option<(DVector<f64>, f64)> {
    let n = pr.dim();
    let j = pr.jacobian(x, p);
    let rp = pr.param_derivative(x, p);
    let mut a = DMatrix::zeros(n + 1, n + 1);
    a.view_mut((0, 0), (n, n)).copy_from(&j);
    a.view_mut((0, n), (n, 1)).copy_from(&rp);
    a.view_mut((n, 0), (1, n))
        .copy_from(&previous.0.transpose());
    a[(n, n)] = previous.1;
    let mut b = DVector::zeros(n + 1);
    b[n] = 1.0;
    let t = a.lu().solve(&b)?;
    let norm = t.norm();
    Some((t.rows(0, n).into_owned() / norm, t[n] / norm))
}

/// Newton on the augmented system from the predictor `(x, p)`; `None` after 8 iterations.
fn correct<P: Problem>(
    pr: &P,
    mut x: DVector<f64>,
    mut p: f64,
    t: &(DVector<f64>, f64),
    tol: f64,
) -> Option<(DVector<f64>, f64, usize)> {
    let n = pr.dim();
    let (x_hat, p_hat) = (x.clone(), p);
    for it in 1..=8 {
        let r = pr.residual(&x, p);
        let arc = t.0.dot(&(&x - &x_hat)) + t.1 * (p - p_hat);
        let mut a = DMatrix::zeros(n + 1, n + 1);
        a.view_mut((0, 0), (n, n)).copy_from(&pr.jacobian(&x, p));
        a.view_mut((0, n), (n, 1))
            .copy_from(&pr.param_derivative(&x, p));
        a.view_mut((n, 0), (1, n)).copy_from(&t.0.transpose());
        a[(n, n)] = t.1;
        let mut rhs = DVector::zeros(n + 1);
        rhs.rows_mut(0, n).copy_from(&r);
        rhs[n] = arc;
        let d = a.lu().solve(&rhs)?;
        x -= d.rows(0, n);
        p -= d[n];
        if !p.is_finite() {
            return None;
        }
        if pr.residual(&x, p).norm() <= tol && d.norm() <= 1e-6 * (1.0 + x.norm()) {
            return Some((x, p, it));
        }
    }
    None
}

/// The points of a branch, and why it stopped early (`None`: it left the range or reached
/// `max_points`).
#[derive(Debug, Clone)]
pub struct Branch {
    pub points: Vec<Point>,
    pub stopped: Option<ContError>,
}

/// Follows the branch through `(x0, p0)` (converged first) towards increasing `p`. Fails
/// only when the start does not converge; a step underflow later ends the branch there.
pub fn follow<P: Problem>(
    pr: &P,
    x0: DVector<f64>,
    p0: f64,
    s: &Settings,
) -> Result<Branch, ContError> {
    let n = pr.dim();
    let start = (DVector::zeros(n), 1.0);
    let (x0, p0, it0) = correct(pr, x0, p0, &start, s.tol)
        .ok_or_else(|| ContError::Start(pr.residual(&DVector::zeros(n), p0).norm()))?;
    let t0 = tangent(pr, &x0, p0, &start).ok_or(ContError::Start(f64::NAN))?;
    let mut points = vec![Point {
        x: x0,
        p: p0,
        tangent: t0,
        iterations: it0,
        fold: false,
    }];
    let mut h = s.step;
    while points.len() < s.max_points {
        let Some(last) = points.last() else {
            break;
        };
        if last.p < s.range.0 || last.p > s.range.1 {
            break;
        }
        let (tx, tp) = &last.tangent;
        let guess = (&last.x + tx * h, last.p + tp * h);
        match correct(pr, guess.0, guess.1, &last.tangent, s.tol) {
            Some((x, p, it)) => {
                let Some(t) = tangent(pr, &x, p, &last.tangent) else {
                    h *= 0.5;
                    continue;
                };
                let fold = t.1.signum() != last.tangent.1.signum();
                points.push(Point {
                    x,
                    p,
                    tangent: t,
                    iterations: it,
                    fold,
                });
                if it <= 3 {
                    h = (h * 1.5).min(s.max_step);
                } else if it >= 6 {
                    h *= 0.5;
                }
            }
            None => h *= 0.5,
        }
        if h < s.min_step {
            let p = points.last().map_or(p0, |q| q.p);
            let stopped = Some(ContError::StepUnderflow {
                p,
                points: points.len(),
            });
            return Ok(Branch { points, stopped });
        }
    }
    Ok(Branch {
        points,
        stopped: None,
    })
}
