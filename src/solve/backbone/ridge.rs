//! The ridge of the forced-response surface (paper 003, Sect. 3): the points where `Am`
//! (eq. 20) is extremal over ω on `R(Q, ω, α) = 0`, from the stationarity of the Lagrangian
//! (eqs. 21–22) with `η_Am = 1` (the extremum's own scale) and `η_ω = 0` (ω free):
//!
//! `R(Q, ω, α) = 0`, `∂Am/∂Q + (∂R/∂Q)ᵀ λ = 0`, `(∂R/∂ω)ᵀ λ = 0`
//!
//! (`∂Am/∂ω = 0`; `η_α` follows from the last line of eq. 22 and is not needed to trace the
//! curve). Its Jacobian (eqs. 23, 64–65) needs the nonlinear forces' Hessian contracted with
//! `λ` (eqs. 44–63). The unknowns are `[Q/α, ω, λ]`: the response divided by the level keeps
//! every block of order one from the stuck to the free limit, where the response grows in
//! proportion to the level, and `∂Am/∂Q` is unchanged by it.
//!
//! The three stages (Sect. 3.2): the response at the first level over the window and its
//! peak (1); the multipliers there, which the paper reaches by continuation in `η_Am` from 0
//! to 1 along a line and we solve for directly, in least squares, as they enter linearly (2);
//! continuation in the level (3). Where the continuation stalls at a singular point short of
//! the last level (an interface changing state, Fig. 10), the stages are repeated a little
//! past it (step 4).

use super::amplitude::{gradient, hessian};
use super::start::{frequency_response as response, peak};
use super::{along, within, BackboneError, Curve, Forced, Point, Settings};
use crate::solve::cont::{follow, newton, ContError, Problem, Weighted};
use crate::solve::hb::Operator;
use nalgebra::{DMatrix, DVector};

/// Distances past a singular point at which the stages restart, tried in turn (fractions of
/// the level parameter's range; dimensionless).
const RESTART_OFFSETS: [f64; 3] = [1e-3, 1e-2, 3e-2];

/// Singular values of the adjoint system below this fraction of the largest are treated as
/// zero in the least-squares multipliers (dimensionless).
const ADJOINT_RCOND: f64 = 1e-12;

/// The ridge system in the unknowns `[Q/α (N); ω; λ (N)]` with `p` the level parameter; its
/// equations in the order `[R/α; (∂R/∂ω)ᵀλ; ∂Am/∂Q + Jᵀλ]` (the blocks of `Weighted`).
struct Ridge<'a> {
    f: &'a Forced<'a>,
}

/// The unknowns' parts.
struct Parts {
    qt: DVector<f64>,
    omega: f64,
    lambda: DVector<f64>,
}

impl Ridge<'_> {
    fn n(&self) -> usize {
        self.f.dim()
    }

    fn parts(&self, z: &DVector<f64>) -> Parts {
        let n = self.n();
        Parts {
            qt: z.rows(0, n).into_owned(),
            omega: z[n],
            lambda: z.rows(n + 1, n).into_owned(),
        }
    }
}

impl Problem for Ridge<'_> {
    fn dim(&self) -> usize {
        2 * self.n() + 1
    }

    fn residual(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, x, a) = (self.n(), self.parts(z), self.f.level(p));
        let q = &x.qt * a;
        let hb = self.f.hb;
        let mut r = DVector::zeros(self.dim());
        r.rows_mut(0, n)
            .copy_from(&(self.f.residual(&q, x.omega, a) / a));
        r[n] = hb.apply(Operator::Rate, &x.qt, x.omega).dot(&x.lambda);
        let adj =
            gradient(hb, &q, self.f.monitored) + self.f.jacobian(&q, x.omega).tr_mul(&x.lambda);
        r.rows_mut(n + 1, n).copy_from(&adj);
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let (n, x, a) = (self.n(), self.parts(z), self.f.level(p));
        let q = &x.qt * a;
        let hb = self.f.hb;
        let j = self.f.jacobian(&q, x.omega);
        let rate_q = hb.apply(Operator::Rate, &x.qt, x.omega);
        let rate_t_lambda = hb.apply(Operator::RateTransposed, &x.lambda, x.omega);
        let curvature = hb.apply(Operator::Curvature, &x.qt, x.omega).dot(&x.lambda);
        let second = (hessian(hb, &q, self.f.monitored)
            + self.f.hb.hessian_adjoint(&q, x.omega, &x.lambda))
            * a;
        let mut out = DMatrix::zeros(self.dim(), self.dim());
        out.view_mut((0, 0), (n, n)).copy_from(&j);
        out.view_mut((0, n), (n, 1)).copy_from(&rate_q);
        out.view_mut((n, 0), (1, n))
            .copy_from(&rate_t_lambda.transpose());
        out[(n, n)] = curvature;
        out.view_mut((n, n + 1), (1, n))
            .copy_from(&rate_q.transpose());
        out.view_mut((n + 1, 0), (n, n)).copy_from(&second);
        out.view_mut((n + 1, n), (n, 1)).copy_from(&rate_t_lambda);
        out.view_mut((n + 1, n + 1), (n, n))
            .copy_from(&j.transpose());
        out
    }

    /// With `Q = α(p) Q̃`: `∂(R/α)/∂p = g(−R/α + J Q̃ − F_h)` and `∂(∂Am/∂Q + Jᵀλ)/∂p =
    /// g α (∂²Am + H_λ) Q̃ = g α H_λ Q̃` (`Am` is homogeneous of degree 0, so `∂²Am Q = 0`),
    /// `g = (dα/dp)/α`.
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, x, a) = (self.n(), self.parts(z), self.f.level(p));
        let g = self.f.rate(p);
        let q = &x.qt * a;
        let j = self.f.jacobian(&q, x.omega);
        let r1 = self.f.residual(&q, x.omega, a) / a;
        let mut d = DVector::zeros(self.dim());
        d.rows_mut(0, n)
            .copy_from(&((-r1 + &j * &x.qt - self.f.load()) * g));
        let h = self.f.hb.hessian_adjoint(&q, x.omega, &x.lambda);
        d.rows_mut(n + 1, n).copy_from(&(h * &x.qt * (g * a)));
        d
    }
}

/// The multipliers at a peak of the response (stage 2): `λ` with `Jᵀλ = −∂Am/∂Q` and
/// `(∂R/∂ω)ᵀλ = 0`, consistent exactly at an extremum, in least squares near one.
fn multipliers(f: &Forced, q: &DVector<f64>, omega: f64) -> Option<DVector<f64>> {
    let n = f.dim();
    let mut a = DMatrix::zeros(n + 1, n);
    a.view_mut((0, 0), (n, n))
        .copy_from(&f.jacobian(q, omega).transpose());
    let rate = f.hb.apply(Operator::Rate, q, omega);
    a.view_mut((n, 0), (1, n)).copy_from(&rate.transpose());
    let mut b = DVector::zeros(n + 1);
    b.rows_mut(0, n).copy_from(&-gradient(f.hb, q, f.monitored));
    let svd = a.svd(true, true);
    let eps = ADJOINT_RCOND * svd.singular_values.max();
    svd.solve(&b, eps).ok()
}

/// The ridge over `s.levels` (module docs), restarting past singular points: where a
/// restart cannot start (the response's peak there is itself a corner), it is tried
/// further on; what was traced before a restart that never starts is kept, with the reason.
pub fn ridge(f: &Forced, s: &Settings) -> Result<Curve, BackboneError> {
    let (p_start, p_end) = (f.param(s.levels.0), f.param(s.levels.1));
    let mut curve = Curve {
        points: Vec::new(),
        stopped: None,
    };
    let (mut p, mut window) = (p_start, s.window);
    for segment in 0..=s.restarts {
        let offsets: &[f64] = if segment == 0 {
            &[0.0]
        } else {
            &RESTART_OFFSETS
        };
        let mut outcome = Err(BackboneError::Newton("no restart".into()));
        for &offset in offsets {
            let from = p + offset * (p_end - p_start);
            outcome = traced(f, s, from, p_end, window, segment);
            if outcome.is_ok() {
                break;
            }
        }
        let part = match outcome {
            Ok(part) => part,
            Err(e) if segment == 0 => return Err(e),
            Err(e) => {
                curve.stopped = Some(format!("no restart past level {:e}: {e}", f.level(p)));
                break;
            }
        };
        curve.points.extend(part.points);
        curve.stopped = part.stopped;
        match part.stall {
            Some(at) if segment < s.restarts => {
                // Step 4: the stages again a little past the singular point, the window
                // centred on the last peak.
                let width = (s.window.1 - s.window.0).abs();
                p = at.0;
                window = (at.1 - 0.5 * width, at.1 + 0.5 * width);
            }
            _ => break,
        }
    }
    Ok(curve)
}

/// One segment of the ridge: its points and, where the continuation stalled short of the
/// end, the level parameter and frequency it stalled at.
struct Segment {
    points: Vec<Point>,
    stopped: Option<String>,
    stall: Option<(f64, f64)>,
}

/// The three stages from level parameter `p` to `p_end` (module docs).
fn traced(
    f: &Forced,
    s: &Settings,
    p: f64,
    p_end: f64,
    window: (f64, f64),
    segment: usize,
) -> Result<Segment, BackboneError> {
    let pr = Ridge { f };
    let n = f.dim();
    let blocks = [0..n, n..n + 1, n + 1..2 * n + 1];
    let level = f.level(p);
    let point = |q: DVector<f64>, omega, level, stage| Point {
        q,
        omega,
        level,
        stage,
        segment,
        xi: None,
    };
    // Stage 1: the response at this level and its peak.
    let frc = response(f, level, window, s)?;
    let top = peak(f, &frc, level)?;
    let (q, omega) = frc[top].clone();
    let mut points: Vec<Point> = frc
        .into_iter()
        .map(|(q, w)| point(q, w, level, 1))
        .collect();
    // Stage 2: the multipliers, then the exact peak by Newton on the ridge system.
    let lambda = multipliers(f, &q, omega).ok_or_else(|| {
        BackboneError::Newton(format!("no multipliers at the peak of level {level:e}"))
    })?;
    let mut z = DVector::zeros(2 * n + 1);
    z.rows_mut(0, n).copy_from(&(&q / level));
    z[n] = omega;
    z.rows_mut(n + 1, n).copy_from(&lambda);
    let weighted = Weighted::equilibrated(&pr, &z, p, &blocks);
    let (zs, _) = newton(&weighted, weighted.scaled(&z), p, s.tol).ok_or_else(|| {
        BackboneError::Newton(format!("the ridge did not converge at level {level:e}"))
    })?;
    let z = weighted.unscaled(&zs);
    points.push(point(z.rows(0, n) * level, z[n], level, 2));
    // Stage 3: continuation in the level.
    let weighted = Weighted::equilibrated(&pr, &z, p, &blocks);
    let branch = follow(&weighted, weighted.scaled(&z), p, &along(s, (p, p_end)))
        .map_err(|e| BackboneError::Newton(e.to_string()))?;
    let mut last = (p, z[n]);
    for (z, at) in within(&weighted, &branch, (p, p_end), s.tol) {
        let level = f.level(at);
        points.push(point(z.rows(0, n) * level, z[n], level, 3));
        last = (at, z[n]);
    }
    Ok(Segment {
        points,
        stopped: branch.stopped.as_ref().map(ToString::to_string),
        stall: matches!(branch.stopped, Some(ContError::StepUnderflow { .. })).then_some(last),
    })
}
