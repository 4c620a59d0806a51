//! Multiple shooting with one segment per mode (paper 000, Appendix A: COCO's `hspo`
//! toolbox): the orbit is cut at its switches, each smooth segment is integrated in its own
//! fixed modes, and the unknowns are every segment's initial state together with the switch
//! times. The segment signature (the modes of each segment and the switch ending it) is read
//! from an event-driven run of the orbit, so the user never writes one.
//!
//! An orbit of span `T` (`periods` forcing periods) with `N ≥ 1` switches per span is a
//! cycle of `N` segments: segment `k` starts just after switch `k` at `τ_k` from `y_k` in
//! modes `m_k` and ends at switch `k + 1` (the last at `τ₀ + T`, the forcing being
//! `T`-periodic). The unknowns are `u = (y₀, …, y_{N−1}, s₀, …, s_{N−1})` with `τ_k = s_k T`
//! (fractions of the span, of order one while the forcing frequency moves); no section is
//! fixed, so a switch drifting across the forcing phase 0 changes nothing. With `φ_k` the
//! end of segment `k`, the residual is
//!
//! - continuity through each switch's jump map (the identity but at an impact):
//!   `y_{k+1} − R_{k+1}(τ_{k+1}, φ_k) = 0`, indices modulo `N`;
//! - each switch on its event surface, scaled to state units: `g_{k+1}(τ_{k+1}, φ_k) /
//!   |∇g_{k+1}| = 0` (a gap's entry or exit, an impact, the end of sliding, a stick force
//!   reaching its limit, a held stop's force reaching zero).
//!
//! `N·2n + N` equations in as many unknowns. Its Jacobian is exact: `∂φ_k/∂y_k = Φ_k` (the
//! segment's variational equations), `∂φ_k/∂τ_k = −Φ_k f_{m_k}(τ_k, y_k)`,
//! `∂φ_k/∂τ_{k+1} = f_{m_k}(τ_{k+1}, φ_k)`; the jump maps' and event functions' derivatives
//! as in `saltation.rs`. `∂R/∂p` is a central difference in the parameter, the unknowns
//! held. An orbit without switches is one segment over `[0, T]` from its state at phase 0:
//! single shooting.
//!
//! A point is admissible only when the event-driven run from its state at phase 0 switches
//! as the signature says (up to a rotation): past a grazing the fixed signature describes an
//! orbit that penetrates a stop, the continuation refuses it and stalls there, and the
//! branch is re-segmented from a run of the last orbit. Condensing the residual onto one
//! state gives single shooting's `Φ_T − I`, so both routes converge to the same orbits;
//! multiple shooting keeps each segment's sensitivities bounded, which long or strongly
//! unstable orbits (the isolas of period 3 to 17 of paper 000) need.

use super::error::ShootingError;
use super::saltation::vector_field;
use super::shooting::{failed, param_difference, system_and_span, Shooting, SystemAt};
use super::{hybrid, shoot_sampled, variational};
use crate::cont::{follow, newton, Branch, Point, Problem, Settings};
use crate::ode::driver::{Cause, Switch};
use crate::ode::hybrid::{Action, ModeState};
use crate::ode::{Hybrid, Tolerances};
use nalgebra::{DMatrix, DVector};
use nsd_model::System;
use std::cell::RefCell;

/// One smooth segment of the signature: the modes it is integrated in and the switch that
/// ends it (`None` for the last, which ends at the span).
#[derive(Clone)]
struct Segment {
    modes: ModeState,
    end: Option<Cause>,
    /// For a stick-break ending: the sign of the stick force there (`|need| − F` is the
    /// event function, `sign · need − F` near the switch).
    sign: f64,
}

/// Periodic orbits of a forced system over a parameter, by multiple shooting on a fixed
/// segment signature.
pub struct MultipleShooting<'a> {
    system_at: &'a SystemAt<'a>,
    /// The length of the state `[x, ẋ]`.
    n2: usize,
    periods: usize,
    smooth_only: bool,
    tol: Tolerances,
    segments: Vec<Segment>,
    /// The event-driven run's switches (`Shot::switch_names`) the segments were read from.
    signature: Vec<String>,
    cache: RefCell<Option<Evaluated>>,
    /// The first failure met (an integration error, a collapsed segment).
    failure: RefCell<Option<ShootingError>>,
}

/// Every segment integrated at one point `(u, p)`.
struct Evaluated {
    u: DVector<f64>,
    p: f64,
    residual: DVector<f64>,
    jacobian: DMatrix<f64>,
}

impl<'a> MultipleShooting<'a> {
    /// The problem whose signature is that of the orbit run from `y0` (at phase 0) at `p`,
    /// with its unknowns there: the run's switch states and times.
    pub fn from_run(
        system_at: &'a SystemAt<'a>,
        periods: usize,
        smooth_only: bool,
        tol: Tolerances,
        y0: &[f64],
        p: f64,
    ) -> Result<(MultipleShooting<'a>, DVector<f64>), ShootingError> {
        let (sys, span) = system_and_span(system_at, periods, p)?;
        let shot = shoot_sampled(&sys, smooth_only, (0.0, span), y0, &tol, false)?;
        let n2 = y0.len();
        // switches[0] is the start; the cycle runs from switch 1 (or, without switches, is
        // the one segment from phase 0).
        let switches = &shot.traj.switches;
        let cycle = if switches.len() > 1 {
            &switches[1..]
        } else {
            &switches[..1]
        };
        let mut h = hybrid(&sys, smooth_only)?;
        let big_n = cycle.len();
        let mut segments = Vec::with_capacity(big_n);
        for (k, sw) in cycle.iter().enumerate() {
            let end = (switches.len() > 1).then(|| &cycle[(k + 1) % big_n]);
            let sign = match end {
                Some(
                    next @ Switch {
                        cause: Cause::StickBreak { contact },
                        ..
                    },
                ) => {
                    h.state.clone_from(&sw.modes);
                    h.stick_force(*contact, next.t, &next.y).signum()
                }
                _ => 1.0,
            };
            segments.push(Segment {
                modes: sw.modes.clone(),
                end: end.map(|e| e.cause.clone()),
                sign,
            });
        }
        let problem = MultipleShooting {
            system_at,
            n2,
            periods,
            smooth_only,
            tol,
            segments,
            signature: shot.switch_names(),
            cache: RefCell::new(None),
            failure: RefCell::new(None),
        };
        let mut u = DVector::zeros(problem.dim());
        for (k, sw) in cycle.iter().enumerate() {
            u.rows_mut(k * n2, n2).copy_from_slice(&sw.y);
            if problem.cyclic() {
                u[big_n * n2 + k] = sw.t / span;
            }
        }
        Ok((problem, u))
    }

    /// Whether the orbit has switches (a cycle of segments with free switch times) rather
    /// than one smooth segment from phase 0.
    fn cyclic(&self) -> bool {
        self.segments[0].end.is_some()
    }

    /// Segment `k`'s start and end times and their columns among the unknowns (`None`:
    /// fixed) at `(u, span)`.
    fn times(
        &self,
        u: &DVector<f64>,
        k: usize,
        span: f64,
    ) -> ((f64, f64), (Option<usize>, Option<usize>)) {
        if !self.cyclic() {
            return ((0.0, span), (None, None));
        }
        let big_n = self.segments.len();
        let base = big_n * self.n2;
        let next = (k + 1) % big_n;
        let wrap = if next == 0 { 1.0 } else { 0.0 };
        (
            (u[base + k] * span, (u[base + next] + wrap) * span),
            (Some(base + k), Some(base + next)),
        )
    }

    /// The orbit's state at the forcing phase 0 and its derivative in the unknowns: the
    /// segment holding a multiple of the span integrated up to it.
    pub fn section(
        &self,
        u: &DVector<f64>,
        p: f64,
    ) -> Result<(DVector<f64>, DMatrix<f64>), ShootingError> {
        let (sys, span) = system_and_span(self.system_at, self.periods, p)?;
        self.section_in(&sys, span, u)
    }

    /// `section` with the system at the point and its span already built.
    fn section_in(
        &self,
        sys: &System,
        span: f64,
        u: &DVector<f64>,
    ) -> Result<(DVector<f64>, DMatrix<f64>), ShootingError> {
        let n2 = self.n2;
        let mut d = DMatrix::zeros(n2, self.dim());
        if !self.cyclic() {
            d.view_mut((0, 0), (n2, n2)).fill_with_identity();
            return Ok((u.rows(0, n2).into_owned(), d));
        }
        let ((t0, _), _) = self.times(u, 0, span);
        let at = (t0 / span).ceil() * span;
        let k = (0..self.segments.len())
            .find(|&k| {
                let ((ta, tb), _) = self.times(u, k, span);
                ta <= at && at < tb
            })
            .ok_or(ShootingError::SwitchOrder)?;
        let ((ta, _), (col_a, _)) = self.times(u, k, span);
        let mut h = hybrid(sys, self.smooth_only)?;
        h.state.clone_from(&self.segments[k].modes);
        let yk: Vec<f64> = u.rows(k * n2, n2).iter().copied().collect();
        let (y, big_phi) = variational::segment(&mut h, (ta, at), &yk, &self.tol)?;
        d.view_mut((0, k * n2), (n2, n2)).copy_from(&big_phi);
        if let Some(c) = col_a {
            let col = -(&big_phi * vector_field(&mut h, ta, &yk)) * span;
            d.set_column(c, &col);
        }
        Ok((DVector::from_vec(y), d))
    }

    /// The number of segments.
    pub fn segments(&self) -> usize {
        self.segments.len()
    }

    fn fail(&self, error: ShootingError) {
        self.failure.borrow_mut().get_or_insert(error);
    }

    /// The residual and its Jacobian at `(u, p)`, the latter only `with_jacobian`.
    fn evaluate(
        &self,
        u: &DVector<f64>,
        p: f64,
        with_jacobian: bool,
    ) -> Result<(DVector<f64>, DMatrix<f64>), ShootingError> {
        let (sys, span) = system_and_span(self.system_at, self.periods, p)?;
        let mut h = hybrid(&sys, self.smooth_only)?;
        let (n2, big_n) = (self.n2, self.segments.len());
        let dim = self.dim();
        let mut r = DVector::zeros(dim);
        let mut jac = DMatrix::zeros(if with_jacobian { dim } else { 0 }, dim);
        for (k, seg) in self.segments.iter().enumerate() {
            let ((ta, tb), (col_a, col_b)) = self.times(u, k, span);
            if tb <= ta {
                return Err(ShootingError::SegmentCollapsed { segment: k, t: ta });
            }
            h.state.clone_from(&seg.modes);
            let yk: Vec<f64> = u.rows(k * n2, n2).iter().copied().collect();
            let (phi_end, big_phi) = variational::segment(&mut h, (ta, tb), &yk, &self.tol)?;
            let next = (k + 1) % big_n;
            let rows = k * n2;
            // The jump map and the event function at the segment's end, in its modes.
            let (jumped, r_y, r_t) = jump(&mut h, seg, tb, &phi_end);
            for i in 0..n2 {
                r[rows + i] = u[next * n2 + i] - jumped[i];
            }
            let event = seg
                .end
                .as_ref()
                .map(|cause| event(&mut h, cause, seg.sign, tb, &phi_end));
            if let Some((g, _, _)) = &event {
                r[big_n * n2 + k] = *g;
            }
            if !with_jacobian {
                continue;
            }
            let f_start = vector_field(&mut h, ta, &yk);
            let f_end = vector_field(&mut h, tb, &phi_end);
            // ∂φ_k by column: y_k, τ_k, τ_{k+1}.
            let d_start = -(&big_phi * &f_start) * span;
            let d_end = &f_end * span;
            let ry_phi = &r_y * &big_phi;
            for j in 0..n2 {
                jac[(rows + j, next * n2 + j)] += 1.0;
            }
            let mut block = jac.view_mut((rows, k * n2), (n2, n2));
            block -= &ry_phi;
            if let Some(c) = col_a {
                let col = -(&r_y * &d_start);
                for i in 0..n2 {
                    jac[(rows + i, c)] += col[i];
                }
            }
            if let Some(c) = col_b {
                let col = -(&r_y * &d_end + &r_t * span);
                for i in 0..n2 {
                    jac[(rows + i, c)] += col[i];
                }
            }
            if let Some((_, grad, g_t)) = &event {
                let row = big_n * n2 + k;
                let along = big_phi.tr_mul(grad);
                for j in 0..n2 {
                    jac[(row, k * n2 + j)] += along[j];
                }
                if let Some(c) = col_a {
                    jac[(row, c)] += grad.dot(&d_start);
                }
                if let Some(c) = col_b {
                    jac[(row, c)] += grad.dot(&d_end) + g_t * span;
                }
            }
        }
        Ok((r, jac))
    }

    /// Runs `f` on the evaluation at `(u, p)`, computed (and cached) if it is not the last;
    /// `None` after a failure, which is kept in `failure`.
    fn with_point<T>(
        &self,
        u: &DVector<f64>,
        p: f64,
        f: impl FnOnce(&Evaluated) -> T,
    ) -> Option<T> {
        let mut cache = self.cache.borrow_mut();
        let hit = cache.as_ref().is_some_and(|e| e.p == p && &e.u == u);
        if !hit {
            *cache = self
                .evaluate(u, p, true)
                .map(|(residual, jacobian)| Evaluated {
                    u: u.clone(),
                    p,
                    residual,
                    jacobian,
                })
                .map_err(|e| self.fail(e))
                .ok();
        }
        cache.as_ref().map(f)
    }

    /// The residual at `(u, p)` alone, not cached.
    fn residual_only(&self, u: &DVector<f64>, p: f64) -> Option<DVector<f64>> {
        self.evaluate(u, p, false)
            .map(|(r, _)| r)
            .map_err(|e| self.fail(e))
            .ok()
    }
}

/// The state after the switch ending `seg` at `(t, y⁻)` and the jump map's derivatives
/// `R_y`, `R_t`: an impact's Newton law (affine in the state, so its central differences are
/// exact to round-off), the identity otherwise.
fn jump(
    h: &mut Hybrid,
    seg: &Segment,
    t: f64,
    y: &[f64],
) -> (Vec<f64>, DMatrix<f64>, DVector<f64>) {
    let n2 = y.len();
    let Some(Cause::Event(ev)) = &seg.end else {
        return (y.to_vec(), DMatrix::identity(n2, n2), DVector::zeros(n2));
    };
    if !matches!(ev.action, Action::Impact { .. }) {
        return (y.to_vec(), DMatrix::identity(n2, n2), DVector::zeros(n2));
    }
    let map = |t: f64, z: &[f64]| {
        let mut z = z.to_vec();
        h.impacts(std::slice::from_ref(ev), &[0], t, &mut z);
        DVector::from_vec(z)
    };
    let (r_y, r_t) = super::saltation::impact_jacobians(h, ev, t, y);
    (map(t, y).as_slice().to_vec(), r_y, r_t)
}

/// The event function ending a segment at `(t, y)` in the segment's modes, its gradient and
/// its time derivative, all divided by the gradient's norm (state units).
fn event(h: &mut Hybrid, cause: &Cause, sign: f64, t: f64, y: &[f64]) -> (f64, DVector<f64>, f64) {
    let (g, grad, g_t) = match cause {
        Cause::Start => unreachable!("a run's first switch starts the first segment"),
        Cause::Event(ev) => {
            let (grad, g_t) = super::saltation::event_gradient(h, ev, t, y.len());
            (h.event_value(ev, t, y), grad, g_t)
        }
        Cause::StickBreak { contact } => {
            let c = *contact;
            let slip = h.form.friction[c].slip;
            let (grad, g_t) = super::saltation::differenced(|t, y| h.stick_force(c, t, y), t, y);
            (
                sign * h.stick_force(c, t, y) - slip,
                grad * sign,
                g_t * sign,
            )
        }
        Cause::LiftOff { stop } => {
            let s = *stop;
            let (grad, g_t) = super::saltation::differenced(|t, y| h.holding_force(s, t, y), t, y);
            (h.holding_force(s, t, y), grad, g_t)
        }
    };
    let norm = grad.norm().max(f64::MIN_POSITIVE);
    (g / norm, grad / norm, g_t / norm)
}

impl Problem for MultipleShooting<'_> {
    fn dim(&self) -> usize {
        let n = self.segments.len();
        n * self.n2 + if self.cyclic() { n } else { 0 }
    }

    fn residual(&self, u: &DVector<f64>, p: f64) -> DVector<f64> {
        self.with_point(u, p, |e| e.residual.clone())
            .unwrap_or_else(|| failed(u.len()))
    }

    fn jacobian(&self, u: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let n = u.len();
        self.with_point(u, p, |e| e.jacobian.clone())
            .unwrap_or_else(|| DMatrix::from_element(n, n, f64::NAN))
    }

    fn param_derivative(&self, u: &DVector<f64>, p: f64) -> DVector<f64> {
        param_difference(p, u.len(), |p| self.residual_only(u, p))
    }

    /// The event-driven run from the orbit's state at phase 0 switches as the signature says,
    /// up to a rotation (a switch may have crossed phase 0).
    fn admissible(&self, u: &DVector<f64>, p: f64) -> bool {
        let Ok((sys, span)) = system_and_span(self.system_at, self.periods, p) else {
            return false;
        };
        let Ok((y0, _)) = self.section_in(&sys, span, u) else {
            return false;
        };
        let Ok(shot) = shoot_sampled(
            &sys,
            self.smooth_only,
            (0.0, span),
            y0.as_slice(),
            &self.tol,
            false,
        ) else {
            return false;
        };
        let run = shot.switch_names();
        let n = run.len();
        n == self.signature.len()
            && (n == 0 || (0..n).any(|r| (0..n).all(|i| run[(i + r) % n] == self.signature[i])))
    }
}

/// One part of a branch by multiple shooting from the state `x` at phase 0 at `p`, over
/// `s`: the segment signature read from a run of the orbit there (`from_run`), followed
/// until a grazing changes it (the continuation stalls where the signature's points stop
/// being admissible). The points come back in `single`'s unknowns, the state at phase 0
/// (the tangent mapped through its derivative), so that one report reads both routes.
pub fn part(
    single: &Shooting,
    x: &DVector<f64>,
    p: f64,
    s: &Settings,
) -> Result<Branch, ShootingError> {
    // The signature of the orbit itself, not of a transient towards it (past a grazing,
    // the run from the last orbit may touch one side of a gap before settling onto an
    // orbit that touches both): single shooting's Newton first, where it converges.
    let x = newton(single, x.clone(), p, s.tol * s.scale.r).map_or_else(|| x.clone(), |(x, _)| x);
    let (multiple, u) = MultipleShooting::from_run(
        single.system_at,
        single.periods,
        single.smooth_only,
        single.tol,
        x.as_slice(),
        p,
    )?;
    let mut branch = follow(&multiple, u, p, s)
        .map_err(|error| ShootingError::continuation(error, &multiple.failure))?;
    branch.points = branch
        .points
        .iter()
        .map_while(|pt| {
            let (x, d) = multiple.section(&pt.x, pt.p).ok()?;
            let t = d * &pt.tangent.0;
            let norm = (t.norm_squared() + pt.tangent.1.powi(2)).sqrt();
            Some(Point {
                x,
                tangent: (t / norm, pt.tangent.1 / norm),
                ..pt.clone()
            })
        })
        .collect();
    Ok(branch)
}
