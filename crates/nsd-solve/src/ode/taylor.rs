//! Event-driven integration by Taylor series, for models whose right-hand side is a
//! polynomial in the state and harmonic in time in every mode (`Hybrid::not_polynomial`):
//! the free-play oscillators of paper 000 with linear or cubic springs.
//!
//! Each step expands the motion in the current modes to order `p = TAYLOR_ORDER` about its start
//! (`Hybrid::taylor`) and takes the step size of Jorba and Zou from the last two coefficients, `h =
//! safety · min_k (1/‖Y_k‖)^{1/k}` over `k = p − 1, p`, the norm scaled by `atol + rtol |y₀ᵢ|`, so
//! the truncation error of a step is below the asked tolerances (no error test, no rejected steps;
//! sized a hundred times tighter, as the first version did, the basin map's labels were the same
//! and its steps 17 % more). The series is its own dense output: the event functions (linear in the
//! state) are polynomials of degree `p` over the step, searched for their first crossing with the
//! guarantee of `roots/` (Bernstein subdivision, the root bisected to round-off); the earliest
//! crossing ends the step, its mode switch is the event-driven loop's own (`Hybrid::switch_gap`),
//! and the next step starts there. Section points (`driver::SectionSampler`) and samples are read
//! from the series too. The loop's state between steps is a `Flow`, so that `integrate_lanes` can
//! run several motions whose series come from one recurrence in the vector lanes (`hybrid::Tape`).
//!
//! Against DOP853 at the same tolerances, a step of the free-play model costs about three
//! right-hand sides instead of sixteen and is several times longer (`tests/suite/taylor_flow.rs`
//! compares the two states after many contacts).
//!
//! # References
//! À. Jorba and M. Zou, "A software package for the numerical integration of ODEs by means of
//! high-order Taylor methods", Experimental Mathematics 14 (2005) 99–117, Sect. 3.2 (the
//! step size from the last two coefficients).

use super::driver::{
    peak, FlowError, Section, SectionPoint, SectionSampler, SimError, StepCurve, Trajectory,
};
use super::hybrid::{
    Action, EventFn, GapMode, Hybrid, JustSwitched, LaneStart, Series, Tape, LANES,
};
use super::roots::{crosses_at_start, crossing_near, Bounds, Search, MAX_DEGREE};
use super::tolerances::{
    INSTANT_ROUNDING, MIN_SHORTENED_STEP, MIN_STEP, RESTART_SKIP, TAYLOR_ORDER, TAYLOR_SAFETY,
    TAYLOR_UNDECIDED_CUT,
};
use nsd_model::System;

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
        let mut y = vec![0.0; self.series.row(0).len()];
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
pub(crate) fn integrate_taylor(
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
pub(crate) fn integrate_taylor_until(
    h: &mut Hybrid,
    tol: (f64, f64),
    times: (f64, f64),
    y0: Vec<f64>,
    section: Option<&Section>,
    samples: &[f64],
    stop: &mut dyn FnMut(&SectionPoint) -> bool,
) -> Result<Trajectory, SimError> {
    let mut flow = Flow::start(h, tol, times, y0, section, samples);
    let mut series = Series::new(h, TAYLOR_ORDER);
    while flow.running() {
        flow.check()?;
        h.taylor(flow.t, &flow.y, &mut series);
        if flow.advance(h, &series, stop)? {
            return Ok(flow.finish(h, true));
        }
    }
    Ok(flow.finish(h, false))
}

/// Integrates the motions that `next` hands out (each a payload and its state at `t0`) from
/// `t0` to `t1`, `LANES` at a time: their series come from one recurrence in the vector
/// lanes (`Tape`, built for `sys` and `TAYLOR_ORDER`), and each motion takes its steps as
/// `integrate_taylor_until` would, with a `Hybrid` of its own (`smooth_only` as in
/// `Hybrid::new`), the section points handed to `see` with its payload. A lane whose motion
/// ends (at `t1`, by `see`, or failed) takes the next one; each ended motion goes to `done`
/// with its payload and outcome. A motion's steps depend on nothing but its own start.
#[allow(clippy::too_many_arguments)]
pub(crate) fn integrate_lanes<M>(
    sys: &System,
    smooth_only: bool,
    tape: &mut Tape,
    tol: (f64, f64),
    times: (f64, f64),
    section: &Section,
    next: &mut dyn FnMut() -> Option<(M, Vec<f64>)>,
    see: &dyn Fn(&mut M, &SectionPoint) -> bool,
    done: &mut dyn FnMut(M, Result<(), FlowError>),
) {
    let mut lanes: [Option<(M, Hybrid, Flow)>; LANES] = std::array::from_fn(|_| None);
    let mut series: Vec<Series> = Vec::new();
    loop {
        for slot in lanes.iter_mut().filter(|s| s.is_none()) {
            let Some((payload, y0)) = next() else { break };
            match Hybrid::new(sys, smooth_only) {
                Ok(mut h) => {
                    let flow = Flow::start(&mut h, tol, times, y0, Some(section), &[]);
                    if series.is_empty() {
                        series = (0..LANES).map(|_| Series::new(&h, TAYLOR_ORDER)).collect();
                    }
                    *slot = Some((payload, h, flow));
                }
                Err(e) => done(payload, Err(FlowError::Unsupported(e))),
            }
        }
        if lanes.iter().all(Option::is_none) {
            return;
        }
        let starts = std::array::from_fn(|l| {
            lanes[l].as_ref().map(|(_, h, flow)| LaneStart {
                t0: flow.t,
                y: &flow.y,
                modes: &h.state.gaps,
            })
        });
        tape.fill(&starts, &mut series);
        for (slot, s) in lanes.iter_mut().zip(&series) {
            let Some((payload, h, flow)) = slot else {
                continue;
            };
            let outcome = flow.check().and_then(|()| {
                let mut stop = |p: &SectionPoint| see(payload, p);
                flow.advance(h, s, &mut stop)
            });
            let ended = match outcome {
                Ok(stopped) => (stopped || !flow.running()).then_some(Ok(())),
                Err(e) => Some(Err(FlowError::Integration(e))),
            };
            let Some(result) = ended else { continue };
            if let Some((payload, ..)) = slot.take() {
                done(payload, result);
            }
        }
    }
}

/// One run of the event-driven Taylor loop between its steps: each step is taken from a
/// series of the motion at `(t, y)` in the current modes (`advance`).
struct Flow<'a> {
    tol: (f64, f64),
    t0: f64,
    t1: f64,
    t: f64,
    y: Vec<f64>,
    traj: Trajectory,
    strobe: Option<SectionSampler>,
    samples: &'a [f64],
    next_sample: usize,
    /// The event functions of each combination of gap modes met so far (a polynomial
    /// model's events depend on its gap modes only): a switch looks its list up rather than
    /// building it (three allocations per event otherwise).
    catalogue: Vec<(Vec<GapMode>, Vec<EventFn>)>,
    /// The current modes' entry in `catalogue`.
    current: usize,
    /// The gaps switched at the point the next step starts from, whose searches start just
    /// past it.
    switched: JustSwitched,
    /// The step's cap after an undecided event search.
    cut: f64,
}

impl<'a> Flow<'a> {
    /// A run of `h` from `(t0, y0)` to `t1`, its modes set from `y0`.
    fn start(
        h: &mut Hybrid,
        tol: (f64, f64),
        (t0, t1): (f64, f64),
        y0: Vec<f64>,
        section: Option<&Section>,
        samples: &'a [f64],
    ) -> Flow<'a> {
        let mut traj = Trajectory::default();
        h.set_modes_from_state(t0, &y0);
        traj.initial_state = y0.clone();
        let mut strobe = section.map(SectionSampler::new);
        if let Some(s) = &mut strobe {
            s.record_initial(&mut traj.section, t0, &y0);
        }
        if let Some(tracked) = h.peak_dof() {
            peak::record_state(&mut traj.peak, tracked, &y0);
        }
        Flow {
            tol,
            t0,
            t1,
            t: t0,
            y: y0,
            traj,
            strobe,
            samples,
            next_sample: 0,
            catalogue: vec![(h.state.gaps.clone(), h.events())],
            current: 0,
            switched: JustSwitched::default(),
            cut: f64::INFINITY,
        }
    }

    /// The event functions of the current modes.
    fn events(&self) -> &[EventFn] {
        &self.catalogue[self.current].1
    }

    /// Whether the end time is still ahead.
    fn running(&self) -> bool {
        self.t < self.t1
    }

    /// The state is finite (before its series is taken).
    fn check(&self) -> Result<(), SimError> {
        if self.y.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(SimError::NonFinite { t: self.t })
        }
    }

    /// One step from `series`, the motion's series at `(t, y)` in `h`'s modes: its size,
    /// the earliest event crossing that ends it, its samples and section points, the switch
    /// at its end. True when `stop` ended the run at this step; a step on which a crossing
    /// could not be decided is not taken, and the next series is asked for a shorter one.
    fn advance(
        &mut self,
        h: &mut Hybrid,
        series: &Series,
        stop: &mut dyn FnMut(&SectionPoint) -> bool,
    ) -> Result<bool, SimError> {
        let (t, (rtol, atol)) = (self.t, self.tol);
        let size = step_size(series, &self.y, rtol, atol)
            .min(self.cut)
            .min(self.t1 - t);
        if size <= MIN_STEP * t.abs().max(1.0) {
            return Err(SimError::StepSizeUnderflow { t, h: size });
        }
        // As in the DOP853 loop, a step already this short is taken as it is.
        let may_shorten = size > MIN_SHORTENED_STEP * t.abs().max(1.0);
        let instant = INSTANT_ROUNDING * t.abs().max(1.0) / size;
        let first = match earliest_crossing(series, self.events(), size, &self.switched, instant) {
            Some(first) => first,
            None if may_shorten => {
                self.cut = TAYLOR_UNDECIDED_CUT * size;
                return Ok(false);
            }
            None => None,
        };
        self.cut = f64::INFINITY;
        let end = match first {
            Some((x, _)) if x < 1.0 => t + x * size,
            _ if size == self.t1 - t => self.t1,
            _ => t + size,
        };
        let step = Step {
            t0: t,
            h: size,
            series,
        };
        let traj = &mut self.traj;
        while let Some(&ts) = self.samples.get(self.next_sample).filter(|ts| **ts <= end) {
            if ts >= self.t0 {
                traj.t.push(ts);
                traj.y.push(step.state(ts.max(t)));
            }
            self.next_sample += 1;
        }
        let seen = traj.section.len();
        if let Some(s) = &mut self.strobe {
            s.record_until(&mut traj.section, &step, end);
        }
        if let Some(tracked) = h.peak_dof() {
            peak::record_until(&mut traj.peak, tracked, &step, end);
        }
        series.state_at(end - t, &mut self.y);
        traj.steps += 1;
        if let Some(k) = traj.section[seen..].iter().position(&mut *stop) {
            traj.section.truncate(seen + k + 1);
            return Ok(true);
        }
        self.t = end;
        let Some((x, k)) = first.filter(|(x, _)| *x < 1.0) else {
            self.switched.clear();
            return Ok(false);
        };
        let event = &self.catalogue[self.current].1[k];
        if let Action::Switch { gap, to } = event.action {
            let speed = h.event_rate(event, end, &self.y);
            h.switch_gap(gap, to, speed, RESTART_SKIP * size);
        }
        // A switch inside the skipped sliver of the last one is at the same instant.
        self.switched
            .record([event.action.element()], x <= RESTART_SKIP);
        self.current = match self
            .catalogue
            .iter()
            .position(|(m, _)| m.iter().eq(&h.state.gaps))
        {
            Some(known) => known,
            None => {
                self.catalogue.push((h.state.gaps.clone(), h.events()));
                self.catalogue.len() - 1
            }
        };
        Ok(false)
    }

    /// The trajectory; the section's end point recorded unless `stop` ended the run.
    fn finish(mut self, h: &Hybrid, stopped: bool) -> Trajectory {
        if let (Some(s), false) = (&mut self.strobe, stopped) {
            s.record_end(&mut self.traj.section, self.t, &self.y);
        }
        self.traj.rhs_evals = h.evals;
        self.traj.final_state = self.y;
        self.traj
    }
}

/// The earliest crossing `(x, event index)` of `events` over the step of size `size`, each
/// searched from its gap's `JustSwitched::skip`, `Some(None)` for none; `None` when a
/// crossing could not be decided (the step is then shortened). At a restart, another gap on
/// its switching surface and heading through it (within `instant`, the start time's rounding
/// in normalised step time) crosses there (`roots::crosses_at_start`).
fn earliest_crossing(
    series: &Series,
    events: &[EventFn],
    size: f64,
    switched: &JustSwitched,
    instant: f64,
) -> Option<Option<(f64, usize)>> {
    let mut first: Option<(f64, usize)> = None;
    let (mut shared, mut buffer) = ([0.0; MAX_DEGREE + 1], [0.0; MAX_DEGREE + 1]);
    let (shared, poly) = (
        &mut shared[..=series.order()],
        &mut buffer[..=series.order()],
    );
    let mut start = 0;
    // Events on one combination of the state (a two-sided gap's) share its polynomial and
    // its bounds; each adds its own constant.
    for group in events.chunk_by(|a, b| a.w == b.w) {
        series.linear_poly_into(&group[0].w, 0.0, size, shared);
        let mut bounds = Bounds::of(shared);
        for (k, ev) in (start..).zip(group) {
            let skip = switched.skip(ev.action.element());
            let fill = |poly: &mut [f64]| {
                poly.copy_from_slice(shared);
                poly[0] += ev.c;
            };
            if switched.at_restart() && skip == 0.0 {
                fill(poly);
                if crosses_at_start(poly, ev.dir, instant) {
                    return Some(Some((0.0, k)));
                }
                if bounds.exclude(ev.c) {
                    continue;
                }
            } else if bounds.exclude(ev.c) {
                continue;
            } else {
                fill(poly);
            }
            match crossing_near(poly, ev.dir, skip) {
                Search::At(x) if first.is_none_or(|(f, _)| x < f) => first = Some((x, k)),
                Search::Undecided => return None,
                _ => {}
            }
        }
        start += group.len();
    }
    Some(first)
}

/// Jorba and Zou's step size from the last two coefficients of `series` (Sect. 3.2), the
/// norm scaled componentwise by `atol + rtol |yᵢ|`: `safety · min_k ‖Y_k‖^(−1/k)` taken as
/// `exp(min_k −ln ‖Y_k‖ / k)` (two logarithms and one exponential instead of two powers).
fn step_size(series: &Series, y: &[f64], rtol: f64, atol: f64) -> f64 {
    let p = series.order();
    let (last, before) = (series.row(p), series.row(p - 1));
    let (mut norm_p, mut norm_before) = (0.0_f64, 0.0_f64);
    for ((c, d), yi) in last.iter().zip(before).zip(y) {
        let scale = 1.0 / (atol + rtol * yi.abs());
        norm_p = norm_p.max(c.abs() * scale);
        norm_before = norm_before.max(d.abs() * scale);
    }
    let exponent = |norm: f64, k: usize| -norm.ln() / k as f64;
    TAYLOR_SAFETY * exponent(norm_before, p - 1).min(exponent(norm_p, p)).exp()
}
