//! Pseudo-arclength continuation of `R(x, p) = 0` (generic: harmonic-balance FRFs, periodic
//! orbits by shooting, backbones). Predictor along the unit tangent
//! of the branch in `(x, p)`, Newton corrector on the augmented system
//! `[R(x, p); τ_xᵀ(x − x̂) + τ_p (p − p̂)] = 0`, adaptive step (grown after an easy
//! correction, halved after a hard or failed one, or one that turned the tangent sharply or
//! landed far from the predictor), so turning points are passed rather than stopped at and
//! sharp bends (grazing) are resolved rather than jumped. A fold is where the tangent's `p`
//! component changes sign. Where the step underflows at a corner of a nonsmooth branch (an
//! element changes state, the tangent turns beyond 90°), `cross_corner` steps onto the new
//! line explicitly and marks the point.
//!
//! The continuation runs on scaled variables `x/x_s`, `p/p_s` and residual `R/r_s`
//! (`Settings::scale`): a beam with contact has displacements of 1e-8 m, frequencies of
//! 1e3 rad/s and forces of 1e2 N, and without scaling the arclength would be all parameter,
//! the convergence test all round-off. Steps are in parameter units (the scaled arclength
//! times `p_s`).

mod locate;
mod tolerances;
mod weighted;

pub use locate::{locate, locate_zero};
pub(crate) use tolerances::NEWTON_MAX_ITERATIONS;
pub(crate) use weighted::Weighted;

use nalgebra::{DMatrix, DVector};
use tolerances::{
    BACKTRACK_FACTOR, BACKTRACK_MIN_FRACTION, CONTRACTION_FROM, CORNER_MIN_FRACTION,
    CORNER_MIN_SINE, CORNER_PROBE, CORRECTION_TOL, CORRECTOR_MAX_ITERATIONS, EASY_ITERATIONS,
    HARD_ITERATIONS, MIN_TURN_COSINE, ROUND_OFF_RESIDUAL, ROUND_OFF_STEP, STEP_GROWTH, STEP_SHRINK,
};

/// A parametrised nonlinear system with its exact derivatives.
pub trait Problem {
    fn dim(&self) -> usize;
    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64>;
    /// `∂R/∂x`.
    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64>;
    /// `∂R/∂p`.
    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64>;
    /// Whether a converged point belongs to the problem's branch: a problem defined on a
    /// region (multiple shooting on a fixed segment signature, valid up to a grazing) refuses
    /// the solutions outside it, and the continuation treats them as failed corrections.
    fn admissible(&self, _x: &DVector<f64>, _p: f64) -> bool {
        true
    }
    /// The solution `d` of the bordered system `[[∂R/∂x, ∂R/∂p], [bᵀ, β]] d = rhs` at `(x,
    /// p)`, `(b, β)` = `row`: the corrector's and the tangent's linear system, every step's
    /// largest cost. A dense LU (`dense_bordered`) unless the problem knows its Jacobian's
    /// structure (the backbone ridge's Lagrange systems eliminate by blocks on `J` alone).
    fn solve_bordered(
        &self,
        x: &DVector<f64>,
        p: f64,
        row: (&DVector<f64>, f64),
        rhs: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        dense_bordered(self, x, p, row, rhs)
    }
}

/// `Problem::solve_bordered` by a dense LU of the bordered matrix; `None` where it is singular.
pub(crate) fn dense_bordered<P: Problem + ?Sized>(
    pr: &P,
    x: &DVector<f64>,
    p: f64,
    (b, beta): (&DVector<f64>, f64),
    rhs: &DVector<f64>,
) -> Option<DVector<f64>> {
    let n = pr.dim();
    let mut a = DMatrix::zeros(n + 1, n + 1);
    a.view_mut((0, 0), (n, n)).copy_from(&pr.jacobian(x, p));
    a.view_mut((0, n), (n, 1))
        .copy_from(&pr.param_derivative(x, p));
    a.view_mut((n, 0), (1, n)).copy_from(&b.transpose());
    a[(n, n)] = beta;
    crate::linalg::solve(a, rhs)
}

/// Characteristic sizes of the unknowns, the parameter and the residual.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub x: f64,
    pub p: f64,
    pub r: f64,
}

impl Scale {
    pub const UNIT: Scale = Scale {
        x: 1.0,
        p: 1.0,
        r: 1.0,
    };
}

/// A problem seen in scaled variables.
struct Scaled<'a, P> {
    pr: &'a P,
    s: Scale,
}

impl<P: Problem> Problem for Scaled<'_, P> {
    fn dim(&self) -> usize {
        self.pr.dim()
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.pr.residual(&(x * self.s.x), p * self.s.p) / self.s.r
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        self.pr.jacobian(&(x * self.s.x), p * self.s.p) * (self.s.x / self.s.r)
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.pr.param_derivative(&(x * self.s.x), p * self.s.p) * (self.s.p / self.s.r)
    }

    fn admissible(&self, x: &DVector<f64>, p: f64) -> bool {
        self.pr.admissible(&(x * self.s.x), p * self.s.p)
    }

    /// The unscaled problem's system in `(d_x s_x, d_p s_p)`: `J y_x + R_p y_p = s_r r`,
    /// `(b/s_x)ᵀ y_x + (β/s_p) y_p = a`.
    fn solve_bordered(
        &self,
        x: &DVector<f64>,
        p: f64,
        (b, beta): (&DVector<f64>, f64),
        rhs: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        let n = self.dim();
        let mut inner = rhs * self.s.r;
        inner[n] = rhs[n];
        let row = b / self.s.x;
        let mut d = self.pr.solve_bordered(
            &(x * self.s.x),
            p * self.s.p,
            (&row, beta / self.s.p),
            &inner,
        )?;
        d.rows_mut(0, n).unscale_mut(self.s.x);
        d[n] /= self.s.p;
        Some(d)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The parameter interval `(from, to)`, in the direction the branch starts in (`from >
    /// to`: downward); the branch stops when it leaves it.
    pub range: (f64, f64),
    pub step: f64,
    pub min_step: f64,
    pub max_step: f64,
    pub max_points: usize,
    /// Newton tolerance on `|R| / r_s`.
    pub tol: f64,
    pub scale: Scale,
}

/// One converged point of the branch.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: DVector<f64>,
    pub p: f64,
    /// The unit tangent `(τ_x, τ_p)` at the point, in the variables scaled when it was
    /// computed.
    pub(crate) tangent: (DVector<f64>, f64),
    pub iterations: usize,
    /// The tangent's `p` component changed sign since the previous point.
    pub fold: bool,
    /// The branch reached this point across a corner (`cross_corner`): a kink of the
    /// residual where an element changes state, the tangent turned there.
    pub corner: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContError {
    #[error("the starting point does not converge (residual {0:e})")]
    Start(f64),
    #[error("the step fell below its minimum at p = {p} after {points} points")]
    StepUnderflow { p: f64, points: usize },
    #[error("the branch reached `max_points` = {points} at p = {p}, inside its range")]
    MaxPoints { p: f64, points: usize },
}

/// The tangent at `(x, p)` oriented along `previous` (`[J, R_p; prevᵀ] τ = [0; 1]`).
fn tangent<P: Problem>(
    pr: &P,
    x: &DVector<f64>,
    p: f64,
    previous: &(DVector<f64>, f64),
) -> Option<(DVector<f64>, f64)> {
    let n = pr.dim();
    let mut b = DVector::zeros(n + 1);
    b[n] = 1.0;
    let t = pr.solve_bordered(x, p, (&previous.0, previous.1), &b)?;
    let norm = t.norm();
    Some((t.rows(0, n).into_owned() / norm, t[n] / norm))
}

/// Newton on the augmented system from the predictor `(x, p)`; `None` after
/// `CORRECTOR_MAX_ITERATIONS`, or as soon as a correction from the `CONTRACTION_FROM`-th on
/// is larger than the one before (Deuflhard's monotonicity test, in its mildest form).
/// Converged when the correction is small and either the residual is below `tol` or the
/// correction is at round-off level (`at_round_off`): stiff structures (contact springs of
/// 1e8 N/m on a beam) make the residual's terms cancel over many digits, so it stalls above
/// an absolute `tol` while the solution is converged.
fn correct<P: Problem>(
    pr: &P,
    mut x: DVector<f64>,
    mut p: f64,
    t: &(DVector<f64>, f64),
    tol: f64,
) -> Option<(DVector<f64>, f64, usize)> {
    let n = pr.dim();
    let (x_hat, p_hat) = (x.clone(), p);
    let mut last_correction = f64::INFINITY;
    for it in 1..=CORRECTOR_MAX_ITERATIONS {
        let r = pr.residual(&x, p);
        let arc = t.0.dot(&(&x - &x_hat)) + t.1 * (p - p_hat);
        let mut rhs = DVector::zeros(n + 1);
        rhs.rows_mut(0, n).copy_from(&r);
        rhs[n] = arc;
        let d = pr.solve_bordered(&x, p, (&t.0, t.1), &rhs)?;
        x -= d.rows(0, n);
        p -= d[n];
        if !p.is_finite() {
            return None;
        }
        // Diverging: still growing after `CONTRACTION_FROM − 1` iterations.
        if it >= CONTRACTION_FROM && d.norm() > last_correction {
            return None;
        }
        last_correction = d.norm();
        // Converged: a small correction and a small residual — or a correction at round-off
        // level, where the residual is as small as its cancelling terms allow.
        let (size, residual) = (1.0 + x.norm() + p.abs(), pr.residual(&x, p).norm());
        let round_off = at_round_off(d.norm(), size, residual);
        if d.norm() <= CORRECTION_TOL * size && (residual <= tol || round_off) {
            return pr.admissible(&x, p).then_some((x, p, it));
        }
    }
    None
}

/// Whether a Newton correction of norm `step`, on unknowns of size `size`, is at round-off
/// level with a residual below `ROUND_OFF_RESIDUAL`: converged as far as the residual's
/// cancelling terms allow, whatever the requested tolerance.
fn at_round_off(step: f64, size: f64, residual: f64) -> bool {
    step <= ROUND_OFF_STEP * size && residual <= ROUND_OFF_RESIDUAL
}

/// One Newton step from zero, `x = −J(0)⁻¹ R(0)` at `p`: the response linearised at rest
/// (open gaps, stuck friction contacts), zero if that Jacobian is singular.
pub fn linearised<P: Problem>(pr: &P, p: f64) -> DVector<f64> {
    let rest = DVector::zeros(pr.dim());
    crate::linalg::solve(pr.jacobian(&rest, p), &-pr.residual(&rest, p)).unwrap_or(rest)
}

/// Newton's method at fixed `p` from `x`, the step halved until the residual decreases (down
/// to `BACKTRACK_MIN_FRACTION`, at most `NEWTON_MAX_ITERATIONS` iterations), to `|R| ≤ tol` or
/// a round-off-level step (`at_round_off`, as in `correct`): the start of a branch, where the
/// guess may be far from the solution.
pub fn newton<P: Problem>(
    pr: &P,
    mut x: DVector<f64>,
    p: f64,
    tol: f64,
) -> Option<(DVector<f64>, usize)> {
    let mut r = pr.residual(&x, p);
    for it in 0..NEWTON_MAX_ITERATIONS {
        let norm = r.norm();
        if norm <= tol {
            return Some((x, it));
        }
        let step = crate::linalg::solve(pr.jacobian(&x, p), &r)?;
        if at_round_off(step.norm(), 1.0 + x.norm(), norm) {
            return Some((x - step, it + 1));
        }
        let mut lambda = 1.0;
        loop {
            let trial = &x - lambda * &step;
            let rt = pr.residual(&trial, p);
            if rt.norm() < norm || lambda < BACKTRACK_MIN_FRACTION {
                (x, r) = (trial, rt);
                break;
            }
            lambda *= BACKTRACK_FACTOR;
        }
    }
    None
}

/// The points of a branch, and why it stopped early (`None`: it left the range).
#[derive(Debug, Clone)]
pub struct Branch {
    pub points: Vec<Point>,
    pub stopped: Option<ContError>,
}

/// Follows the branch through `(x0, p0)` (converged first) in the direction from
/// `s.range.0` to `s.range.1` (increasing `p` when `range.0 < range.1`). Fails
/// only when the start does not converge; a step underflow later ends the branch there.
///
/// The unknowns' scale follows the branch: before each step it is the largest unknown of
/// the last point (at least `scale.x`), so near a sharp resonance the steps are relative to
/// the amplitude there rather than to the starting one. Points come back unscaled.
pub fn follow<P: Problem>(
    pr: &P,
    x0: DVector<f64>,
    p0: f64,
    s: &Settings,
) -> Result<Branch, ContError> {
    let n = pr.dim();
    let mut sc = s.scale;
    let (min_step, max_step) = (s.min_step / sc.p, s.max_step / sc.p);
    // The first tangent heads from `range.0` towards `range.1`.
    let start = (DVector::zeros(n), (s.range.1 - s.range.0).signum());
    let (lo, hi) = (s.range.0.min(s.range.1), s.range.0.max(s.range.1));
    let problem = Scaled { pr, s: sc };
    let p = p0 / sc.p;
    let (x, it0) = newton(&problem, x0 / sc.x, p, s.tol)
        .ok_or_else(|| ContError::Start(problem.residual(&DVector::zeros(n), p).norm()))?;
    let t0 = tangent(&problem, &x, p, &start).ok_or(ContError::Start(f64::NAN))?;
    let mut points = vec![Point {
        x: x * sc.x,
        p: p * sc.p,
        tangent: t0,
        iterations: it0,
        fold: false,
        corner: false,
    }];
    let mut h = s.step / sc.p;
    // The last step that was accepted: the length of the step across a corner.
    let mut accepted = h;
    while points.len() < s.max_points {
        let Some(last) = points.last() else {
            break;
        };
        if last.p < lo || last.p > hi {
            break;
        }
        // Rescale to the last point; the tangent keeps its direction in the new variables.
        let size = last.x.amax().max(s.scale.x);
        let (mut tx, mut tp) = (last.tangent.0.clone() * (sc.x / size), last.tangent.1);
        let norm = (tx.norm_squared() + tp * tp).sqrt();
        tx /= norm;
        tp /= norm;
        sc.x = size;
        let problem = Scaled { pr, s: sc };
        let (xl, pl) = (&last.x / sc.x, last.p / sc.p);
        let last_tangent = (tx, tp);
        let guess = (&xl + &last_tangent.0 * h, pl + last_tangent.1 * h);
        match correct(&problem, guess.0.clone(), guess.1, &last_tangent, s.tol) {
            Some((x, p, it)) => {
                let Some(t) = tangent(&problem, &x, p, &last_tangent) else {
                    h *= STEP_SHRINK;
                    continue;
                };
                // A step that turned the tangent by more than ~37° or landed farther from
                // the predictor than the step itself may have jumped to another part of the
                // branch (or back along it): retried shorter while it can be.
                let turn = t.0.dot(&last_tangent.0) + t.1 * last_tangent.1;
                let off = ((&x - &guess.0).norm_squared() + (p - guess.1).powi(2)).sqrt();
                if (turn < MIN_TURN_COSINE || off > h) && h > 2.0 * min_step {
                    h *= STEP_SHRINK;
                    continue;
                }
                let fold = t.1.signum() != last_tangent.1.signum();
                accepted = h;
                points.push(Point {
                    x: x * sc.x,
                    p: p * sc.p,
                    tangent: t,
                    iterations: it,
                    fold,
                    corner: false,
                });
                if it <= EASY_ITERATIONS {
                    h = (h * STEP_GROWTH).min(max_step);
                } else if it >= HARD_ITERATIONS {
                    h *= STEP_SHRINK;
                }
            }
            None => h *= STEP_SHRINK,
        }
        if h < min_step {
            if let Some(pt) = cross_corner(&problem, (&xl, pl), &last_tangent, (h, accepted), s.tol)
            {
                points.push(Point {
                    x: pt.x * sc.x,
                    p: pt.p * sc.p,
                    ..pt
                });
                h = accepted;
                continue;
            }
            let p = points.last().map_or(p0, |q| q.p);
            let stopped = Some(ContError::StepUnderflow {
                p,
                points: points.len(),
            });
            return Ok(Branch { points, stopped });
        }
    }
    // Out of points with the last one still inside the range: the branch is cut short, and
    // says so (a result that stops early is never silent).
    let stopped = points
        .last()
        .filter(|last| (lo..=hi).contains(&last.p))
        .map(|last| ContError::MaxPoints {
            p: last.p,
            points: points.len(),
        });
    Ok(Branch { points, stopped })
}

/// Steps across a corner of the branch after `last` (scaled variables, `tangent` its unit
/// tangent), where the predictor–corrector failed at every step length: the residual has a
/// kink there (a friction element starts to slip, a gap closes) and the branch leaves the
/// kink along another line, turned so far — beyond 90° in these variables — that the
/// hyperplane normal to the old tangent does not meet it, and Newton 2-cycles across the
/// kink. Just past the corner, the linearisation is the new piece's: its tangent `t₂`
/// (kernel of `[J, R_p]` at `last + h_min τ`) is the new line's direction up to sign. Both
/// senses are corrected from `last` at distance `length` (halved down to `CORNER_MIN_FRACTION`
/// of it while they fail); the sense whose point does not lie back on the old line (its offset
/// from `last` is not along `τ`: it leaves the old line by `CORNER_MIN_SINE`) is the branch.
/// `None` when the tangent does not turn (no corner) or no sense converges off the old line.
fn cross_corner<P: Problem>(
    pr: &P,
    last: (&DVector<f64>, f64),
    tangent: &(DVector<f64>, f64),
    (failed, length): (f64, f64),
    tol: f64,
) -> Option<Point> {
    let (xl, pl) = last;
    let probe = CORNER_PROBE * failed;
    let beyond = (xl + &tangent.0 * probe, pl + tangent.1 * probe);
    let turned = self::tangent(pr, &beyond.0, beyond.1, tangent)?;
    if turned.0.dot(&tangent.0) + turned.1 * tangent.1 > MIN_TURN_COSINE {
        return None;
    }
    let mut reach = length;
    while reach >= CORNER_MIN_FRACTION * length {
        for sense in [1.0, -1.0] {
            let dir = (&turned.0 * sense, turned.1 * sense);
            let guess = (xl + &dir.0 * reach, pl + dir.1 * reach);
            let Some((x, p, it)) = correct(pr, guess.0, guess.1, &dir, tol) else {
                continue;
            };
            let (dx, dp) = (&x - xl, p - pl);
            let along = dx.dot(&tangent.0) + dp * tangent.1;
            let length2 = dx.norm_squared() + dp * dp;
            let off_old = (length2 - along * along).max(0.0).sqrt() / length2.sqrt();
            if off_old < CORNER_MIN_SINE {
                continue;
            }
            let t = self::tangent(pr, &x, p, &dir)?;
            return Some(Point {
                fold: t.1.signum() != tangent.1.signum(),
                x,
                p,
                tangent: t,
                iterations: it,
                corner: true,
            });
        }
        reach *= STEP_SHRINK;
    }
    None
}
