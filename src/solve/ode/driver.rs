//! The event-driven integration loop: adaptive DOP853 steps; after each accepted step every
//! event function of the current modes is searched on the step's dense-output polynomial
//! (`roots::first_crossing`); the earliest crossing ends the step there, the mode switches and
//! the integration restarts from the located state. Where a crossing cannot be decided, the
//! step is halved and retried.

use super::dop853::{self, initial_step, Attempt, DenseStep, Dop853, Rhs, Tolerances};
use super::hybrid::{Action, EventFn, FrictionMode, Hybrid};
use super::rodas::{self, Rodas};
use super::roots::{self, first_crossing, Direction, Search};
use std::collections::HashMap;

/// Where output samples are taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Every accepted step and every event.
    Steps,
    /// A uniform grid `t0, t0 + dt, …` (plus the events).
    Every(f64),
    /// Exactly these times.
    At(Vec<f64>),
}

/// The one-step method of the smooth segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// DOP853 until Hairer's stiffness test fires (h·ρ > 6.1 on 15 accepted steps out of
    /// any run without 6 non-stiff ones), then RODAS until the next mode change.
    Auto,
    /// DOP853 throughout.
    Dop853,
    /// RODAS throughout.
    Rodas,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub t0: f64,
    pub t1: f64,
    pub y0: Vec<f64>,
    pub tol: Tolerances,
    pub output: Output,
    pub method: Method,
}

/// One located mode change or impact.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub t: f64,
    pub element: String,
    /// `contact` (a gap changes mode) or `impact` (a rigid stop is hit).
    pub kind: &'static str,
    pub from: &'static str,
    pub to: &'static str,
    /// Relative velocity of the element at the event (before the impact for impacts).
    pub velocity: f64,
    /// Relative velocity after an impact.
    pub velocity_after: Option<f64>,
}

impl Event {
    /// A friction element's (Coulomb contact or Jenkins slider) change of mode: `stick`
    /// when it comes to stick, else `slip`.
    fn friction(
        t: f64,
        element: &str,
        from: FrictionMode,
        to: FrictionMode,
        velocity: f64,
    ) -> Event {
        Event {
            t,
            element: element.to_string(),
            kind: if to == FrictionMode::Stick {
                "stick"
            } else {
                "slip"
            },
            from: from.name(),
            to: to.name(),
            velocity,
            velocity_after: None,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Trajectory {
    pub t: Vec<f64>,
    pub y: Vec<Vec<f64>>,
    pub events: Vec<Event>,
    pub steps: usize,
    pub rejected: usize,
    pub impacts: usize,
    /// Estimated accumulation times of Zeno sequences, passed in persistent contact.
    pub zeno: Vec<f64>,
    pub rhs_evals: usize,
    /// Accepted steps taken by the stiff method (RODAS).
    pub stiff_steps: usize,
    /// Times where `Method::Auto` found the segment stiff and switched to RODAS.
    pub stiff_switches: Vec<f64>,
    /// The state at `t1`.
    pub final_state: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error("step size underflow at t = {t} (h = {h:e}): the solution is not smooth enough here for the tolerances")]
    StepSizeUnderflow { t: f64, h: f64 },
    #[error("non-finite state at t = {t}")]
    NonFinite { t: f64 },
    #[error("`{element}` is penetrated at t = {t} without a located contact (the motion started on the stop's boundary)")]
    MissedContact { t: f64, element: String },
}

/// The step size last proposed in each combination of modes: the first step after a switch
/// starts from it (the crossing step's size, from the old modes' dynamics, cost a rejection
/// at almost every free-play contact). Modes change only at restarts, so the segment's key
/// is built once per segment, not per step.
struct StepMemory {
    by_modes: HashMap<Vec<u8>, f64>,
    segment: Vec<u8>,
    proposed: Option<f64>,
}

impl StepMemory {
    fn new(h: &Hybrid) -> StepMemory {
        StepMemory {
            by_modes: HashMap::new(),
            segment: h.mode_key(),
            proposed: None,
        }
    }

    /// The step proposed after an accepted step of the current segment.
    fn accepted(&mut self, step: f64) {
        self.proposed = Some(step);
    }

    /// Files the ending segment's last proposal; the remembered step of the new modes.
    fn switched(&mut self, h: &Hybrid) -> Option<f64> {
        let ending = std::mem::replace(&mut self.segment, h.mode_key());
        if let Some(step) = self.proposed.take() {
            self.by_modes.insert(ending, step);
        }
        self.by_modes.get(&self.segment).copied()
    }
}

/// Restarts the integration at a located switch `(t, y)` in the new modes: the event
/// functions of the new modes and the first stage are recomputed, the method choice starts
/// afresh and the next event search starts just past the restart point; returns also the
/// step remembered for the new modes. (Modes change only here, so the event functions are
/// built once per smooth segment.)
fn restart(
    h: &mut Hybrid,
    rk: &mut Stepper,
    events: &mut Vec<EventFn>,
    memory: &mut StepMemory,
    (t, y): (f64, Vec<f64>),
    f0: &mut [f64],
) -> (f64, Vec<f64>, f64, Option<f64>) {
    rk.restart();
    *events = h.events();
    h.rhs(t, &y, f0);
    let remembered = memory.switched(h);
    (t, y, 1e-12, remembered)
}

/// The failure with the trajectory up to the last good state.
fn fail(error: SimError, mut partial: Trajectory, h: &Hybrid, y: &[f64]) -> Box<Failed> {
    partial.rhs_evals = h.evals;
    partial.final_state = y.to_vec();
    Box::new(Failed { error, partial })
}

/// Monomial coefficients (degree 7) of `f` on `[0, 1]`, interpolated at the Chebyshev
/// nodes: a moving wall's motion over one step, so that events against it are polynomial
/// like the others (interpolation error ~ (h/2)⁸ f⁽⁸⁾/8!/2⁷; a step whose fit misses the
/// wall by more than the tolerances is shortened).
fn fit_poly(mut f: impl FnMut(f64) -> f64) -> [f64; 8] {
    let nodes: Vec<f64> = (0..8)
        .map(|k| 0.5 - 0.5 * ((2 * k + 1) as f64 * std::f64::consts::PI / 16.0).cos())
        .collect();
    let v = nalgebra::DMatrix::from_fn(8, 8, |r, c| nodes[r].powi(c as i32));
    let rhs = nalgebra::DVector::from_iterator(8, nodes.iter().map(|x| f(*x)));
    let sol = v
        .lu()
        .solve(&rhs)
        .unwrap_or_else(|| nalgebra::DVector::zeros(8));
    let mut p = [0.0; 8];
    p.copy_from_slice(sol.as_slice());
    p
}

/// Newton's iteration for the root near `x` (in `[skip, 1]`) of `p(x) + correction(x)`, with
/// the slope of `p`: the event function on the true wall motion, `p` carrying its fit.
fn polish(p: &[f64; 8], mut x: f64, skip: f64, correction: impl Fn(f64) -> f64) -> f64 {
    for _ in 0..8 {
        let slope: f64 = (1..8).rev().fold(0.0, |acc, k| acc * x + k as f64 * p[k]);
        if slope == 0.0 {
            break;
        }
        let next = (x - (roots::eval(p, x) + correction(x)) / slope).clamp(skip, 1.0);
        let done = (next - x).abs() <= 4.0 * f64::EPSILON;
        x = next;
        if done {
            break;
        }
    }
    x
}

/// The first held stop whose contact force changes sign within the step, and where
/// (bisection on the dense output; the force is a smooth function of the state there).
fn lift_off(h: &mut Hybrid, d: &DenseStep) -> Option<(usize, f64)> {
    let t1 = d.t1();
    for stop in h.held_stops() {
        if h.holding_force(stop, t1, &d.eval(t1)) >= 0.0 {
            continue;
        }
        let (mut a, mut b) = (d.t0, t1);
        for _ in 0..100 {
            let m = 0.5 * (a + b);
            if m <= a || m >= b {
                break;
            }
            if h.holding_force(stop, m, &d.eval(m)) >= 0.0 {
                a = m;
            } else {
                b = m;
            }
        }
        return Some((stop, a));
    }
    None
}

/// Watches the impact times of each stop for a geometric accumulation (Zeno): when an
/// interval falls below 1e-9 of the time scale, returns the estimated accumulation time
/// `t* = t₃ + (t₃ − t₂) r / (1 − r)` with `r = (t₃ − t₂)/(t₂ − t₁)`.
#[derive(Default)]
struct ZenoWatch {
    last: Vec<Vec<f64>>,
}

impl ZenoWatch {
    fn check(&mut self, stop: usize, t: f64) -> Result<(), f64> {
        if self.last.len() <= stop {
            self.last.resize(stop + 1, Vec::new());
        }
        let times = &mut self.last[stop];
        times.push(t);
        if times.len() > 3 {
            times.remove(0);
        }
        if let [t1, t2, t3] = times[..] {
            if t3 - t2 < 1e-9 * t3.abs().max(1.0) {
                let r = (t3 - t2) / (t2 - t1);
                let t_star = if r < 1.0 {
                    t3 + (t3 - t2) * r / (1.0 - r)
                } else {
                    t3
                };
                return Err(t_star);
            }
        }
        Ok(())
    }
}

/// The explicit and the stiff method with the switching policy of `Method`.
struct Stepper {
    method: Method,
    explicit: Dop853,
    stiff: Rodas,
    /// RODAS is integrating the current segment.
    stiff_now: bool,
    /// Hairer's counters: stiff-looking accepted steps, and non-stiff ones since the last.
    stiff_seen: usize,
    calm_seen: usize,
}

impl Stepper {
    fn new(method: Method, n: usize) -> Stepper {
        Stepper {
            method,
            explicit: Dop853::new(n),
            stiff: Rodas::new(n),
            stiff_now: method == Method::Rodas,
            stiff_seen: 0,
            calm_seen: 0,
        }
    }

    /// One trial step into `out`; `None` when the stiff method's stage matrix is singular.
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &mut self,
        rhs: &mut impl Rhs,
        t: f64,
        y: &[f64],
        f0: &[f64],
        h: f64,
        tol: &Tolerances,
        out: &mut Attempt,
    ) -> Option<()> {
        if self.stiff_now {
            self.stiff.attempt(rhs, t, y, f0, h, tol, out)
        } else {
            self.explicit.attempt(rhs, t, y, f0, h, tol, out);
            Some(())
        }
    }

    /// The dense output of an accepted attempt into `out`; under `Method::Auto` also runs
    /// the stiffness test and reports whether the next steps go to RODAS.
    fn accept(
        &mut self,
        rhs: &mut impl Rhs,
        t: f64,
        y: &[f64],
        h: f64,
        a: &Attempt,
        out: &mut DenseStep,
    ) -> bool {
        if self.stiff_now {
            self.stiff.dense(t, y, h, a, out);
            return false;
        }
        let mut switched = false;
        if self.method == Method::Auto {
            if self.explicit.stiffness(h, &a.y1) > 6.1 {
                self.stiff_seen += 1;
                self.calm_seen = 0;
                if self.stiff_seen >= 15 {
                    self.stiff_now = true;
                    switched = true;
                }
            } else {
                self.calm_seen += 1;
                if self.calm_seen >= 6 {
                    self.stiff_seen = 0;
                }
            }
        }
        self.explicit.dense(rhs, t, y, h, a, out);
        switched
    }

    /// A mode change: `Method::Auto` tries the explicit method again.
    fn restart(&mut self) {
        if self.method == Method::Auto {
            self.stiff_now = false;
            self.stiff_seen = 0;
            self.calm_seen = 0;
        }
    }

    fn next_step(&self, h: f64, err: f64, rejected_before: bool) -> f64 {
        if self.stiff_now {
            rodas::next_step(h, err, rejected_before)
        } else {
            dop853::next_step(h, err, rejected_before)
        }
    }
}

/// A failed integration and what was computed up to the failure.
#[derive(Debug, Clone)]
pub struct Failed {
    pub error: SimError,
    pub partial: Trajectory,
}

/// Integrates `sys` from `cfg.t0` to `cfg.t1`; on failure, the trajectory so far comes back
/// with the error (exit code 2 keeps partial results).
pub fn integrate(
    h: &mut Hybrid,
    cfg: &Config,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, Box<Failed>> {
    let n2 = h.dim();
    let mut rk = Stepper::new(cfg.method, n2);
    let mut traj = Trajectory::default();
    let (mut t, mut y) = (cfg.t0, cfg.y0.clone());
    h.set_modes_from_state(t, &y);
    h.set_friction_from_state(t, &mut y);
    let mut events = h.events();
    let mut f0 = vec![0.0; n2];
    h.rhs(t, &y, &mut f0);
    let mut step = {
        let mut rhs = |t: f64, y: &[f64], dy: &mut [f64]| h.rhs(t, y, dy);
        initial_step(&mut rhs, t, &y, &f0, &cfg.tol)
    };
    let mut out = Sampler::new(cfg);
    let mut zeno = ZenoWatch::default();
    out.record_initial(&mut traj, t, &y);
    let mut rejected_last = false;
    // One buffer for every attempt and every dense output.
    let (mut attempt, mut dense) = (Attempt::new(n2), DenseStep::new(n2));
    let mut memory = StepMemory::new(h);
    // After an event the next search starts just past the restart point.
    let mut skip = 0.0;
    while t < cfg.t1 {
        let hstep = step.min(cfg.t1 - t).min(cfg.tol.max_step);
        if hstep <= 1e-14 * t.abs().max(1.0) {
            return Err(fail(
                SimError::StepSizeUnderflow { t, h: hstep },
                traj,
                h,
                &y,
            ));
        }
        let mut rhs = |t: f64, y: &[f64], dy: &mut [f64]| h.rhs(t, y, dy);
        let regular = rk.attempt(&mut rhs, t, &y, &f0, hstep, &cfg.tol, &mut attempt);
        // A NaN error norm or a singular stage matrix counts as a rejection.
        let err = attempt.err;
        if regular.is_none() || err.is_nan() || err > 1.0 {
            step = if regular.is_some() && err.is_finite() {
                rk.next_step(hstep, err, true)
            } else {
                0.5 * hstep
            };
            traj.rejected += 1;
            rejected_last = true;
            continue;
        }
        let stiff_step = rk.stiff_now;
        let switched = rk.accept(&mut rhs, t, &y, hstep, &attempt, &mut dense);
        if switched {
            traj.stiff_switches.push(dense.t1());
        }
        // The earliest crossing of any event function on this step.
        let mut first: Option<(f64, usize)> = None;
        let mut undecided = false;
        for (k, ev) in events.iter().enumerate() {
            let mut p = dense.linear_poly(&ev.w, ev.c);
            let mut wall_fit = None;
            if let Some((d, coef, order)) = ev.wall {
                let motion = |x: f64| h.wall_motion(d, dense.t0 + x * dense.h, order);
                let wall = fit_poly(motion);
                // The fit must be as good as the integration, or a crossing could be found
                // in the wrong place (or missed): otherwise the step is shortened.
                let (misfit, size) =
                    (0..8)
                        .map(|k| (k as f64 + 0.5) / 8.0)
                        .fold((0.0_f64, 0.0_f64), |(m, s), x| {
                            let v = motion(x);
                            (m.max((roots::eval(&wall, x) - v).abs()), s.max(v.abs()))
                        });
                if misfit > cfg.tol.atol + cfg.tol.rtol * size {
                    undecided = true;
                }
                for (pk, wk) in p.iter_mut().zip(wall) {
                    *pk += coef * wk;
                }
                wall_fit = Some((wall, d, coef, order));
            }
            match first_crossing(&p, ev.dir, skip) {
                Search::At(x) => {
                    // Against a moving wall the root is polished on the true wall motion (the
                    // fit is only good to its interpolation error, ~(ωh/2)⁸/8!/2⁷).
                    let x = wall_fit.map_or(x, |(wall, d, coef, order)| {
                        polish(&p, x, skip, |x| {
                            let exact = h.wall_motion(d, dense.t0 + x * dense.h, order);
                            coef * (exact - roots::eval(&wall, x))
                        })
                    });
                    if first.is_none_or(|(fx, _)| x < fx) {
                        first = Some((x, k));
                    }
                }
                Search::Undecided => undecided = true,
                Search::None => {}
            }
        }
        if undecided && hstep > 1e-10 * t.abs().max(1.0) {
            traj.rejected += 1;
            step = 0.5 * hstep;
            continue;
        }
        // Sticking contacts: the force sticking needs is fitted by a polynomial over the step
        // (rejected and shortened when the fit is poor), whose first crossing of ±F is where
        // the contact starts to slip; refined by bisection on the true force.
        let mut stick_break: Option<(f64, usize)> = None;
        let mut refit = false;
        let sticking: Vec<usize> = (0..h.friction.len())
            .filter(|&c| h.friction[c].mode == FrictionMode::Stick)
            .collect();
        for c in sticking {
            let slip = h.friction[c].slip;
            let mut need = |x: f64| {
                h.stick_force(
                    c,
                    dense.t0 + x * dense.h,
                    &dense.eval(dense.t0 + x * dense.h),
                )
            };
            let p = fit_poly(&mut need);
            let misfit = (0..8)
                .map(|k| (k as f64 + 0.5) / 8.0)
                .map(|x| (roots::eval(&p, x) - need(x)).abs())
                .fold(0.0, f64::max);
            if misfit > 1e-6 * slip.max(1e-300) && hstep > 1e-10 * t.abs().max(1.0) {
                refit = true;
                break;
            }
            let mut hi = p;
            hi[0] -= slip;
            let mut lo = p;
            lo[0] += slip;
            let cands = [
                first_crossing(&hi, Direction::Rising, skip),
                first_crossing(&lo, Direction::Falling, skip),
            ];
            for cand in cands {
                if let Search::At(x) = cand {
                    // Refine on the true force: |need| − F changes sign near x.
                    let f = |x: f64, need: &mut dyn FnMut(f64) -> f64| need(x).abs() - slip;
                    let (mut a, mut b) = ((x - 0.01).max(skip), (x + 0.01).min(1.0));
                    if f(a, &mut need) <= 0.0 && f(b, &mut need) > 0.0 {
                        for _ in 0..100 {
                            let m = 0.5 * (a + b);
                            if m <= a || m >= b {
                                break;
                            }
                            if f(m, &mut need) <= 0.0 {
                                a = m;
                            } else {
                                b = m;
                            }
                        }
                    } else {
                        b = x;
                    }
                    if stick_break.is_none_or(|(bx, _)| b < bx) {
                        stick_break = Some((b, c));
                    }
                }
            }
        }
        if refit {
            traj.rejected += 1;
            step = 0.25 * hstep;
            continue;
        }
        if let Some((xb, c)) = stick_break.filter(|(xb, _)| first.is_none_or(|(fx, _)| *xb < fx)) {
            traj.steps += 1;
            traj.stiff_steps += usize::from(stiff_step);
            let tb = t + xb * hstep;
            let yb = dense.eval(tb);
            let need = h.stick_force(c, tb, &yb);
            out.record_until(&mut traj, &dense, tb, true);
            let to = if need > 0.0 {
                FrictionMode::SlipNeg
            } else {
                FrictionMode::SlipPos
            };
            h.friction[c].mode = to;
            traj.events.push(Event::friction(
                tb,
                &h.friction[c].name,
                FrictionMode::Stick,
                to,
                0.0,
            ));
            (t, y, skip, _) = restart(h, &mut rk, &mut events, &mut memory, (tb, yb), &mut f0);
            rejected_last = false;
            continue;
        }
        traj.steps += 1;
        traj.stiff_steps += usize::from(stiff_step);
        match first {
            Some((x, k)) if x < 1.0 => {
                let te = t + x * hstep;
                let ye = dense.eval(te);
                out.record_until(&mut traj, &dense, te, true);
                let ev = &events[k];
                let mut ye = ye;
                let velocity: f64 = match ev.action {
                    // Friction events watch the velocity part of the state already.
                    Action::SlipEnds { contact } => h.slip_velocity(contact, te, &ye),
                    Action::Jenkins { .. } => {
                        ev.w.iter()
                            .map(|&(i, wi)| wi * ye[if i < n2 / 2 { n2 / 2 + i } else { i }])
                            .sum()
                    }
                    // A gap's rate, with the wall's velocity when a side is the base.
                    _ => {
                        let wall = ev
                            .wall
                            .map_or(0.0, |(d, coef, _)| coef * h.wall_motion(d, te, 1));
                        ev.w.iter().map(|&(i, wi)| wi * ye[n2 / 2 + i]).sum::<f64>() + wall
                    }
                };
                match ev.action {
                    Action::Jenkins { element, to } => {
                        let from = h.jenkins[element].mode;
                        h.switch_jenkins(element, to, te, &ye);
                        traj.events.push(Event::friction(
                            te,
                            &h.jenkins[element].name,
                            from,
                            to,
                            velocity,
                        ));
                    }
                    Action::Switch { gap, to } => {
                        let from = h.modes[gap];
                        h.modes[gap] = to;
                        h.enter(gap, velocity);
                        traj.events.push(Event {
                            t: te,
                            element: h.gaps[gap].name.clone(),
                            kind: "contact",
                            from: from.name(),
                            to: to.name(),
                            velocity,
                            velocity_after: None,
                        });
                    }
                    Action::SlipEnds { contact } => {
                        // Every contact coming to rest at this instant settles together.
                        let mut set = vec![contact];
                        set.extend(h.also_at_rest(contact, te, &ye));
                        let before: Vec<(FrictionMode, f64)> = set
                            .iter()
                            .map(|&c| (h.friction[c].mode, h.slip_velocity(c, te, &ye)))
                            .collect();
                        let modes = h.settle(&set, te, &mut ye);
                        let mut changed = false;
                        for ((&c, (from, velocity)), to) in set.iter().zip(before).zip(modes) {
                            if to == from {
                                // Slides on the same way (a start from rest on the surface).
                                continue;
                            }
                            changed = true;
                            traj.events.push(Event::friction(
                                te,
                                &h.friction[c].name,
                                from,
                                to,
                                velocity,
                            ));
                        }
                        if !changed {
                            (t, y, skip, _) =
                                restart(h, &mut rk, &mut events, &mut memory, (te, ye), &mut f0);
                            continue;
                        }
                    }
                    Action::Impact { .. } => {
                        // Every stop closing at this instant takes its impulse together.
                        let set = h.simultaneous(&events, k, te, &ye);
                        let jumps = h.impacts(&events, &set, te, &mut ye);
                        traj.impacts += jumps.len();
                        for (&idx, (stop, before, after)) in set.iter().zip(jumps) {
                            let ev = &events[idx];
                            let element = h.stops[stop].name.clone();
                            match zeno.check(stop, te) {
                                Ok(()) => {
                                    traj.events.push(Event {
                                        t: te,
                                        element: element.clone(),
                                        kind: "impact",
                                        from: "open",
                                        to: "open",
                                        velocity: before,
                                        velocity_after: Some(after),
                                    });
                                    // No rebound (e = 0, or a vanishing approach speed) while
                                    // the loads push into the stop: it stays in contact.
                                    if after.abs() <= 1e-12 * before.abs().max(1e-300) {
                                        h.hold(ev, stop, te, &mut ye);
                                        if h.holding_force(stop, te, &ye) < 0.0 {
                                            h.release(stop);
                                        } else {
                                            traj.events.push(Event {
                                                t: te,
                                                element,
                                                kind: "hold",
                                                from: "open",
                                                to: "held",
                                                velocity: after,
                                                velocity_after: Some(0.0),
                                            });
                                        }
                                    }
                                }
                                Err(t_star) => {
                                    // Zeno: the remaining bounces last ~(t* − t); continue in
                                    // persistent contact, the constraint monitored for lift-off.
                                    h.hold(ev, stop, te, &mut ye);
                                    traj.zeno.push(t_star);
                                    traj.events.push(Event {
                                        t: te,
                                        element,
                                        kind: "zeno",
                                        from: "open",
                                        to: "held",
                                        velocity: before,
                                        velocity_after: Some(0.0),
                                    });
                                }
                            }
                        }
                        // The post-impact state is a new initial point of the output.
                        out.record_point(&mut traj, te, &ye);
                    }
                }
                let remembered;
                (t, y, skip, remembered) =
                    restart(h, &mut rk, &mut events, &mut memory, (te, ye), &mut f0);
                step = remembered.unwrap_or(hstep).max(1e-8 * t.abs().max(1.0));
            }
            _ if !h.held_stops().is_empty() && lift_off(h, &dense).is_some() => {
                // A held stop lets go inside this step: locate the sign change of its contact
                // force on the dense output by bisection and release it there.
                let (stop, tl) = lift_off(h, &dense).expect("checked in the guard");
                let yl = dense.eval(tl);
                out.record_until(&mut traj, &dense, tl, true);
                h.release(stop);
                traj.events.push(Event {
                    t: tl,
                    element: h.stops[stop].name.clone(),
                    kind: "lift-off",
                    from: "held",
                    to: "open",
                    velocity: 0.0,
                    velocity_after: None,
                });
                (t, y, skip, _) = restart(h, &mut rk, &mut events, &mut memory, (tl, yl), &mut f0);
            }
            _ if h.penetrated(dense.t1(), &attempt.y1).is_some() => {
                // A stop is on its forbidden side at the end of a step without a located
                // crossing (the state started on its boundary): never continue silently.
                let stop = h
                    .penetrated(dense.t1(), &attempt.y1)
                    .expect("checked in the guard");
                let error = SimError::MissedContact {
                    t: dense.t1(),
                    element: h.stops[stop].name.clone(),
                };
                return Err(fail(error, traj, h, &y));
            }
            _ => {
                out.record_until(&mut traj, &dense, dense.t1(), false);
                t = dense.t1();
                std::mem::swap(&mut y, &mut attempt.y1);
                std::mem::swap(&mut f0, &mut attempt.f1);
                skip = 0.0;
                step = rk.next_step(hstep, err, rejected_last);
                memory.accepted(step);
            }
        }
        rejected_last = false;
        progress(t);
        if y.iter().any(|v| !v.is_finite()) {
            return Err(fail(SimError::NonFinite { t }, traj, h, &y));
        }
    }
    traj.rhs_evals = h.evals;
    traj.final_state = y;
    Ok(traj)
}

/// Output sampling on the dense output, per `Output`.
struct Sampler {
    output: Output,
    next: usize,
    t0: f64,
    t1: f64,
}

impl Sampler {
    fn new(cfg: &Config) -> Sampler {
        Sampler {
            output: cfg.output.clone(),
            next: 0,
            t0: cfg.t0,
            t1: cfg.t1,
        }
    }

    fn record_initial(&mut self, traj: &mut Trajectory, t: f64, y: &[f64]) {
        match &self.output {
            Output::At(ts) => {
                while self.next < ts.len() && ts[self.next] <= t {
                    traj.t.push(ts[self.next]);
                    traj.y.push(y.to_vec());
                    self.next += 1;
                }
            }
            _ => {
                traj.t.push(t);
                traj.y.push(y.to_vec());
                self.next = 1;
            }
        }
    }

    /// The post-impact state at `t` (for `Steps` output, so the velocity jump is visible).
    fn record_point(&mut self, traj: &mut Trajectory, t: f64, y: &[f64]) {
        if self.output == Output::Steps {
            traj.t.push(t);
            traj.y.push(y.to_vec());
        }
    }

    /// Samples in `(step start, until]`; an event point is always recorded for `Steps`.
    fn record_until(&mut self, traj: &mut Trajectory, d: &DenseStep, until: f64, event: bool) {
        match &self.output {
            Output::Steps => {
                traj.t.push(until);
                traj.y.push(d.eval(until));
                let _ = event;
            }
            Output::Every(dt) => loop {
                let tk = self.t0 + self.next as f64 * dt;
                if tk > until || tk > self.t1 + 1e-12 * dt {
                    break;
                }
                traj.t.push(tk);
                traj.y.push(d.eval(tk));
                self.next += 1;
            },
            Output::At(ts) => {
                while self.next < ts.len() && ts[self.next] <= until {
                    traj.t.push(ts[self.next]);
                    traj.y.push(d.eval(ts[self.next]));
                    self.next += 1;
                }
            }
        }
    }
}
