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

use super::amplitude::{gradient, hessian, slots};
use super::blocks::{self, Blocks};
use super::form::{multipliers, Form};
use super::memo::{Eval, Memo};
use super::reduced::Reduced;
use super::start::{peak_response, Peak};
use super::{along, within, BackboneError, Curve, Forced, Point, Settings};
use crate::cont::{follow, newton, ContError, Problem, Weighted};
use crate::hb::Operator;
use nalgebra::{DMatrix, DVector};
use std::rc::Rc;

/// Distances past a singular point at which the stages restart, tried in turn (fractions of
/// the level parameter's range; dimensionless).
const RESTART_OFFSETS: [f64; 3] = [1e-3, 1e-2, 3e-2];

/// The ridge system in the unknowns `[Q/α (N); ω; λ (N)]` with `p` the level parameter; its
/// equations in the order `[R/α; (∂R/∂ω)ᵀλ; ∂Am/∂Q + Jᵀλ]` (the blocks of `Weighted`).
struct Ridge<'a> {
    f: &'a Forced<'a>,
    /// The last point's `R(Q, ω, α)` and `∂R/∂Q`.
    memo: Memo,
}

/// The unknowns' parts.
struct Parts {
    qt: DVector<f64>,
    omega: f64,
    lambda: DVector<f64>,
}

impl<'a> Ridge<'a> {
    fn new(f: &'a Forced<'a>) -> Self {
        Ridge {
            f,
            memo: Memo::default(),
        }
    }

    fn n(&self) -> usize {
        self.f.dim()
    }

    /// `R(Q, ω, α)` and `∂R/∂Q` at `(z, p)` from one evaluation of the nonlinear forces
    /// (`Forced::residual` and `Forced::jacobian` term for term).
    fn at(&self, z: &DVector<f64>, p: f64) -> Rc<Eval> {
        self.memo.at(z, p, || {
            let (x, a) = (self.parts(z), self.f.level(p));
            let q = &x.qt * a;
            let hb = self.f.hb;
            let (fnl, jnl) = hb.nonlinear(&q, x.omega, true);
            let r =
                hb.apply(Operator::Dynamic, &q, x.omega) + fnl - &self.f.fixed - a * &self.f.load;
            let j = hb.dynamic_stiffness(x.omega)
                + jnl.unwrap_or_else(|| DMatrix::zeros(hb.dim(), hb.dim()));
            (r, j)
        })
    }

    /// `∂(J_nlᵀλ)/∂Q` at the point of `e` (`z`, `p`), once per point.
    fn second(&self, e: &Eval, z: &DVector<f64>, p: f64) -> Rc<DMatrix<f64>> {
        e.second(|| {
            let x = self.parts(z);
            self.f
                .hb
                .hessian_adjoint(&(&x.qt * self.f.level(p)), x.omega, &x.lambda)
        })
    }

    /// The Jacobian's blocks (eqs. 23, 64–65; `blocks.rs`).
    fn blocks(&self, z: &DVector<f64>, p: f64) -> Blocks {
        let (x, a) = (self.parts(z), self.f.level(p));
        let q = &x.qt * a;
        let hb = self.f.hb;
        let e = self.at(z, p);
        Blocks {
            j: e.jacobian.clone(),
            rate: hb.apply(Operator::Rate, &x.qt, x.omega),
            cross: hb.apply(Operator::RateTransposed, &x.lambda, x.omega),
            curvature: hb.apply(Operator::Curvature, &x.qt, x.omega).dot(&x.lambda),
            second: (hessian(&q, &slots(hb, self.f.monitored)) + &*self.second(&e, z, p)) * a,
        }
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
        let e = self.at(z, p);
        let mut r = DVector::zeros(self.dim());
        r.rows_mut(0, n).copy_from(&(&e.value / a));
        r[n] = hb.apply(Operator::Rate, &x.qt, x.omega).dot(&x.lambda);
        let adj = gradient(&q, &slots(hb, self.f.monitored)) + e.jacobian.tr_mul(&x.lambda);
        r.rows_mut(n + 1, n).copy_from(&adj);
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        self.blocks(z, p).dense()
    }

    fn solve_bordered(
        &self,
        z: &DVector<f64>,
        p: f64,
        row: (&DVector<f64>, f64),
        rhs: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        blocks::bordered(self, self.blocks(z, p), z, p, row, rhs)
    }

    /// With `Q = α(p) Q̃`: `∂(R/α)/∂p = g(−R/α + J Q̃ − F_h)` and `∂(∂Am/∂Q + Jᵀλ)/∂p =
    /// g α (∂²Am + H_λ) Q̃ = g α H_λ Q̃` (`Am` is homogeneous of degree 0, so `∂²Am Q = 0`),
    /// `g = (dα/dp)/α`.
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, x, a) = (self.n(), self.parts(z), self.f.level(p));
        let g = self.f.rate(p);
        let e = self.at(z, p);
        let r1 = &e.value / a;
        let mut d = DVector::zeros(self.dim());
        d.rows_mut(0, n)
            .copy_from(&((-r1 + &e.jacobian * &x.qt - self.f.load()) * g));
        let h = self.second(&e, z, p);
        d.rows_mut(n + 1, n).copy_from(&(&*h * &x.qt * (g * a)));
        d
    }
}

impl Form for Ridge<'_> {
    fn n(&self) -> usize {
        Ridge::n(self)
    }

    fn peak(&self, level: f64, window: (f64, f64), s: &Settings) -> Result<Peak, BackboneError> {
        peak_response(self.f, level, window, s)
    }

    fn multipliers(&self, q: &DVector<f64>, omega: f64, _level: f64) -> Option<DVector<f64>> {
        let hb = self.f.hb;
        multipliers(
            &self.f.jacobian(q, omega).transpose(),
            &hb.apply(Operator::Rate, q, omega),
            &gradient(q, &slots(hb, self.f.monitored)),
        )
    }

    fn full(&self, q: &DVector<f64>, _omega: f64, _level: f64) -> DVector<f64> {
        q.clone()
    }
}

/// Which form of the ridge system to solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Condensed onto the nonlinear and monitored DOFs in receptance form
    /// (`hb::Receptance`) where the modes diagonalise the damping and that keeps fewer DOFs
    /// than the model has; the full balance otherwise. Exact: the same ridge.
    Condensed,
    /// The full balance always (the reference the condensed form is tested against).
    Full,
}

/// The ridge by the condensed route where it applies (`Route::Condensed`).
pub fn ridge(f: &Forced, s: &Settings) -> Result<Curve, BackboneError> {
    ridge_by(f, s, Route::Condensed)
}

/// The ridge over `s.levels` by `route` (`segments`).
pub fn ridge_by(f: &Forced, s: &Settings, route: Route) -> Result<Curve, BackboneError> {
    match (route == Route::Condensed)
        .then(|| Reduced::new(f))
        .flatten()
    {
        Some(reduced) => segments(f, &reduced, s),
        None => segments(f, &Ridge::new(f), s),
    }
}

/// The ridge over `s.levels` on `form` (module docs), restarting past singular points: where a
/// restart cannot start (the response's peak there is itself a corner), it is tried
/// further on; what was traced before a restart that never starts is kept, with the reason.
fn segments<F: Form>(f: &Forced, form: &F, s: &Settings) -> Result<Curve, BackboneError> {
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
            outcome = traced(f, form, s, (from, p_end), window, segment);
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

/// The three stages on `form` from level parameter `p` to `p_end` (module docs).
fn traced<F: Form>(
    f: &Forced,
    form: &F,
    s: &Settings,
    (p, p_end): (f64, f64),
    window: (f64, f64),
    segment: usize,
) -> Result<Segment, BackboneError> {
    let n = form.n();
    let blocks = [0..n, n..n + 1, n + 1..2 * n + 1];
    let level = f.level(p);
    let point = |q: DVector<f64>, omega, level, stage| Point {
        q: form.full(&q, omega, level),
        omega,
        level,
        stage,
        segment,
        xi: None,
    };
    // Stage 1: the response at this level and its peak.
    let (frc, top) = form.peak(level, window, s)?;
    let (q, omega) = frc[top].clone();
    let mut points: Vec<Point> = frc
        .into_iter()
        .map(|(q, w)| point(q, w, level, 1))
        .collect();
    // Stage 2: the multipliers, then the exact peak by Newton on the ridge system.
    let z = exact_peak(form, (&q, omega), p, level, s.tol)?;
    points.push(point(z.rows(0, n) * level, z[n], level, 2));
    // Stage 3: continuation in the level.
    let weighted = Weighted::equilibrated(form, &z, p, &blocks);
    let mut branch = follow(&weighted, weighted.scaled(&z), p, &along(s, (p, p_end)))
        .map_err(|e| BackboneError::Newton(e.to_string()))?;
    let turned = turned_back(&mut branch, p_end - p);
    let mut last = (p, z[n]);
    for (z, at) in within(&weighted, &branch, (p, p_end), s.tol) {
        let level = f.level(at);
        points.push(point(z.rows(0, n) * level, z[n], level, 3));
        last = (at, z[n]);
    }
    let underflow = matches!(branch.stopped, Some(ContError::StepUnderflow { .. }));
    Ok(Segment {
        points,
        stopped: match turned {
            Some(at) => Some(format!(
                "the ridge turned back in level at {:e}",
                f.level(at)
            )),
            None => branch.stopped.as_ref().map(ToString::to_string),
        },
        stall: (turned.is_some() || underflow).then_some(last),
    })
}

/// Stage 2: the multipliers at the approximate peak `(q, ω)` of level `level` (parameter
/// `p`), then the ridge point there by Newton on the equilibrated ridge system; its unknowns
/// `[Q/α, ω, λ]`.
fn exact_peak<F: Form>(
    form: &F,
    (q, omega): (&DVector<f64>, f64),
    p: f64,
    level: f64,
    tol: f64,
) -> Result<DVector<f64>, BackboneError> {
    let n = form.n();
    let lambda = form.multipliers(q, omega, level).ok_or_else(|| {
        BackboneError::Newton(format!("no multipliers at the peak of level {level:e}"))
    })?;
    let mut z = DVector::zeros(2 * n + 1);
    z.rows_mut(0, n).copy_from(&(q / level));
    z[n] = omega;
    z.rows_mut(n + 1, n).copy_from(&lambda);
    let weighted = Weighted::equilibrated(form, &z, p, &[0..n, n..n + 1, n + 1..2 * n + 1]);
    let (zs, _) = newton(&weighted, weighted.scaled(&z), p, tol).ok_or_else(|| {
        BackboneError::Newton(format!("the ridge did not converge at level {level:e}"))
    })?;
    Ok(weighted.unscaled(&zs))
}

/// Cuts `branch` before its first step against `direction` (the sign of `p_end − p`): a
/// corner where the ridge folds back in the level, past which the continuation would trace
/// the ridge's other side back down (`cross_corner` takes the turn). The backbone restarts
/// past such a point instead, as past a stall (step 4). Returns the level parameter of the
/// last point kept.
fn turned_back(branch: &mut crate::cont::Branch, direction: f64) -> Option<f64> {
    let back = branch
        .points
        .windows(2)
        .position(|w| (w[1].p - w[0].p) * direction < 0.0)?;
    branch.points.truncate(back + 1);
    branch.points.last().map(|pt| pt.p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backbone::fixtures::{cantilever, settings};
    use crate::backbone::{amplitude, Spacing};

    /// Points of the condensed ridge (stuck, partly slipping, slipping at level 1) solved again on the
    /// full balance (stage 2 from them: Newton on the full ridge system at their level) stay
    /// where they are: Ω and `Am` to 1e-9.
    #[test]
    fn condensed_ridge_points_solve_the_full_ridge_system() {
        let hb = cantilever();
        let dof = hb.excited_dof().expect("loaded");
        let f = Forced::new(&hb, dof, Spacing::Log).expect("forced");
        let s = settings(1e4);
        assert!(Reduced::new(&f).is_some(), "the cantilever condenses");
        let curve = ridge_by(&f, &s, Route::Condensed).expect("ridge");
        let full = Ridge::new(&f);
        let n = full.n();
        let mut checked = 0;
        for target in [1e-4, 5e-3, 5e-2, 1.0] {
            let pt = curve
                .points
                .iter()
                .filter(|p| p.stage == 3)
                .min_by(|a, b| {
                    (a.level / target)
                        .ln()
                        .abs()
                        .total_cmp(&(b.level / target).ln().abs())
                })
                .expect("a backbone point");
            let z = exact_peak(&full, (&pt.q, pt.omega), f.param(pt.level), pt.level, 1e-10)
                .expect("the full ridge system converges");
            let q = z.rows(0, n) * pt.level;
            let (am, am_full) = (amplitude(&hb, &pt.q, dof), amplitude(&hb, &q, dof));
            assert!(
                (z[n] - pt.omega).abs() < 1e-9 * pt.omega,
                "level {}: Ω {} vs full {}",
                pt.level,
                pt.omega,
                z[n]
            );
            assert!(
                (am_full - am).abs() < 1e-9 * am,
                "level {}: Am {am} vs full {am_full}",
                pt.level
            );
            checked += 1;
        }
        assert_eq!(checked, 4);
    }
}
