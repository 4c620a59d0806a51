//! Event-driven integration by Taylor series, for models whose right-hand side is a
//! polynomial in the state and harmonic in time in every mode (`Hybrid::not_polynomial`):
//! the free-play oscillators of paper 000 with linear or cubic springs.
//!
//! Each step expands the motion in the current modes to order `p = TAYLOR_ORDER` about its
//! start (`Hybrid::taylor`) and takes the step size of Jorba and Zou from the last two
//! coefficients, `h = safety · min_k (1/‖Y_k‖)^{1/k}` over `k = p − 1, p`, the norm scaled by
//! `TAYLOR_TIGHTENING · (atol + rtol |y₀ᵢ|)`, so the truncation error of a step is below that
//! (no error test, no rejected steps). The series is its own dense output: the event
//! functions (linear in the state) are polynomials of degree `p` over the step, searched for
//! their first crossing with the guarantee of `roots.rs` (Bernstein subdivision, the root
//! bisected to round-off); the earliest crossing ends the step, its mode switch is the
//! event-driven loop's own (`Hybrid::switch_gap`), and the next step starts there. Section
//! points (`driver::SectionSampler`) and samples are read from the series too.
//!
//! Against DOP853 at the same tolerances, a step of the free-play model costs about three
//! right-hand sides instead of sixteen and is several times longer (`tests/taylor_flow.rs`
//! compares the two states after many contacts).
//!
//! # References
//! À. Jorba and M. Zou, "A software package for the numerical integration of ODEs by means of
//! high-order Taylor methods", Experimental Mathematics 14 (2005) 99–117, Sect. 3.2 (the
//! step size from the last two coefficients).

use super::driver::{Section, SectionPoint, SectionSampler, SimError, StepCurve, Trajectory};
use super::hybrid::{Action, EventFn, Hybrid, Series};
use super::roots::{first_crossing, Search};
use super::tolerances::{
    MIN_SHORTENED_STEP, MIN_STEP, RESTART_SKIP, TAYLOR_ORDER, TAYLOR_SAFETY, TAYLOR_TIGHTENING,
    TAYLOR_UNDECIDED_CUT,
};

/// One Taylor step: its start, size and series (the `StepCurve` sections read).
struct Step<'a> {
    t0: f64,
    h: f64,
    series: &'a Series,
}

impl StepCurve for Step<'_> {
    fn span(&self) -> (f64, f64) {
        (self.t0, self.h)
    }
    fn state(&self, t: f64) -> Vec<f64> {
        let mut y = vec![0.0; self.series.coef[0].len()];
        self.series.state_at(t - self.t0, &mut y);
        y
    }
    fn linear(&self, w: &[(usize, f64)], c: f64) -> Vec<f64> {
        self.series.linear_poly(w, c, self.h)
    }
}

/// Integrates `h` (which must pass `Hybrid::not_polynomial`) from `(t0, y0)` to `t1` at the
/// tolerances `(rtol, atol)`, recording `section` and the states at `samples` (absolute
/// times in `[t0, t1]`, ascending).
pub fn integrate_taylor(
    h: &mut Hybrid,
    tol: (f64, f64),
    times: (f64, f64),
    y0: Vec<f64>,
    section: Option<&Section>,
    samples: &[f64],
) -> Result<Trajectory, SimError> {
    integrate_taylor_until(h, tol, times, y0, section, samples, &mut |_| false)
}

/// As `integrate_taylor`, handing each new section point to `stop` (in time order) and
/// ending the run at the end of the step where it first returns true (the points after it
/// in that step not recorded). The steps are the same as without `stop`: a section point
/// is read from its step's series, never ends a step.
pub fn integrate_taylor_until(
    h: &mut Hybrid,
    (rtol, atol): (f64, f64),
    (t0, t1): (f64, f64),
    y0: Vec<f64>,
    section: Option<&Section>,
    samples: &[f64],
    stop: &mut dyn FnMut(&SectionPoint) -> bool,
) -> Result<Trajectory, SimError> {
    let mut traj = Trajectory::default();
    let mut series = Series::new(h, TAYLOR_ORDER);
    let (mut t, mut y) = (t0, y0);
    h.set_modes_from_state(t, &y);
    traj.initial_state = y.clone();
    let mut strobe = section.map(SectionSampler::new);
    if let Some(s) = &mut strobe {
        s.record_initial(&mut traj.section, t, &y);
    }
    let mut next_sample = 0;
    let mut events = h.events();
    let mut skip = 0.0;
    let mut cut = f64::INFINITY;
    while t < t1 {
        if !y.iter().all(|v| v.is_finite()) {
            return Err(SimError::NonFinite { t });
        }
        h.taylor(t, &y, &mut series);
        let size = step_size(&series, &y, rtol, atol).min(cut).min(t1 - t);
        if size <= MIN_STEP * t.abs().max(1.0) {
            return Err(SimError::StepSizeUnderflow { t, h: size });
        }
        // As in the DOP853 loop, a step already this short is taken as it is.
        let may_shorten = size > MIN_SHORTENED_STEP * t.abs().max(1.0);
        let first = match earliest_crossing(&series, &events, size, skip) {
            Some(first) => first,
            None if may_shorten => {
                cut = TAYLOR_UNDECIDED_CUT * size;
                continue;
            }
            None => None,
        };
        cut = f64::INFINITY;
        let end = match first {
            Some((x, _)) if x < 1.0 => t + x * size,
            _ if size == t1 - t => t1,
            _ => t + size,
        };
        let step = Step {
            t0: t,
            h: size,
            series: &series,
        };
        while let Some(&ts) = samples.get(next_sample).filter(|ts| **ts <= end) {
            if ts >= t0 {
                traj.t.push(ts);
                traj.y.push(step.state(ts.max(t)));
            }
            next_sample += 1;
        }
        let seen = traj.section.len();
        if let Some(s) = &mut strobe {
            s.record_until(&mut traj.section, &step, end);
        }
        series.state_at(end - t, &mut y);
        if let Some(k) = traj.section[seen..].iter().position(&mut *stop) {
            traj.section.truncate(seen + k + 1);
            traj.steps += 1;
            traj.rhs_evals = h.evals;
            traj.final_state = y;
            return Ok(traj);
        }
        traj.steps += 1;
        t = end;
        skip = 0.0;
        if let Some((_, k)) = first.filter(|(x, _)| *x < 1.0) {
            if let Action::Switch { gap, to } = events[k].action {
                let speed = h.event_rate(&events[k], t, &y);
                h.switch_gap(gap, to, speed);
            }
            events = h.events();
            skip = RESTART_SKIP;
        }
    }
    if let Some(s) = &mut strobe {
        s.record_end(&mut traj.section, t, &y);
    }
    traj.rhs_evals = h.evals;
    traj.final_state = y;
    Ok(traj)
}

/// The earliest crossing `(x, event index)` of `events` over the step of size `size` from
/// the normalised time `skip` on, `Some(None)` for none; `None` when a crossing could not be
/// decided (the step is then shortened).
fn earliest_crossing(
    series: &Series,
    events: &[EventFn],
    size: f64,
    skip: f64,
) -> Option<Option<(f64, usize)>> {
    let mut first: Option<(f64, usize)> = None;
    for (k, ev) in events.iter().enumerate() {
        match first_crossing(&series.linear_poly(&ev.w, ev.c, size), ev.dir, skip) {
            Search::At(x) if first.is_none_or(|(f, _)| x < f) => first = Some((x, k)),
            Search::Undecided => return None,
            _ => {}
        }
    }
    Some(first)
}

/// Jorba and Zou's step size from the last two coefficients of `series` (Sect. 3.2), the
/// norm scaled componentwise by `TAYLOR_TIGHTENING · (atol + rtol |yᵢ|)`.
fn step_size(series: &Series, y: &[f64], rtol: f64, atol: f64) -> f64 {
    let p = series.order();
    let norm = |k: usize| {
        series.coef[k].iter().zip(y).fold(0.0_f64, |m, (c, yi)| {
            m.max(c.abs() / (TAYLOR_TIGHTENING * (atol + rtol * yi.abs())))
        })
    };
    let radius = |k: usize| norm(k).powf(-1.0 / k as f64);
    TAYLOR_SAFETY * radius(p - 1).min(radius(p))
}
