//! The event-driven integration loop. Each pass makes one adaptive step (`stepper.rs`) with
//! DOP853, or with RODAS on the segments Hairer's stiffness test finds stiff (`MethodChoice`,
//! here); the accepted step's dense output is searched for the earliest crossing of the
//! current modes' event functions and for a stuck contact starting to slip
//! (`crossings.rs`). The earliest crossing ends the step there, its action switches the modes
//! (`actions.rs`) and the integration restarts from the located state; where a crossing
//! cannot be decided, the step is shortened and retried. Output samples are taken from the
//! dense output (`sampler.rs`), and so are Poincaré section points (`section.rs`).
//!
//! The choice between the two methods under `Method::Auto` is in `choice.rs`.

mod actions;
mod choice;
mod crossings;
pub(crate) mod peak;
mod sampler;
mod section;
mod stepper;

pub use actions::Event;
pub use section::{Section, SectionPoint};

use super::dop853::{initial_step, Tolerances};
use super::hybrid::{Element, EventFn, Hybrid, JustSwitched, ModeState, Unsupported};
use super::tolerances::{
    MAX_STEPS, MIN_SHORTENED_STEP, MIN_STEP, PACE_FACTOR, PACE_STEPS, POOR_FIT_STEP_CUT,
    RESTART_SKIP, UNDECIDED_STEP_CUT,
};
pub(crate) use actions::ZenoWatch;
use choice::MethodChoice;
use crossings::StickBreaks;
use sampler::Sampler;
pub(crate) use section::{SectionSampler, StepCurve};
use stepper::{Accepted, Stepper};

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

#[derive(Debug, Clone, Default)]
pub struct Trajectory {
    pub t: Vec<f64>,
    pub y: Vec<Vec<f64>>,
    /// The contact forces at each sample (`Hybrid::contact_forces`, in the order of
    /// `Hybrid::contact_force_names`); empty unless `Recording::forces_at_samples`.
    pub forces: Vec<Vec<f64>>,
    pub events: Vec<Event>,
    pub steps: usize,
    pub rejected: usize,
    pub impacts: usize,
    /// Estimated accumulation times of Zeno sequences, passed in persistent contact.
    pub zeno: Vec<f64>,
    pub rhs_evals: usize,
    /// Accepted steps taken by the stiff method (RODAS).
    pub stiff_steps: usize,
    /// Numeric factorisations of RODAS's sparse stage matrix (one per step size and modes
    /// while the tangent is constant).
    pub factorisations: usize,
    /// Times where `Method::Auto` found the segment stiff and switched to RODAS.
    pub stiff_switches: Vec<f64>,
    /// The state at `t0` (the initial friction states settled), whatever the output times.
    pub initial_state: Vec<f64>,
    /// The state at `t1`.
    pub final_state: Vec<f64>,
    /// The Poincaré section points, in time order (`integrate_with_section`).
    pub section: Vec<SectionPoint>,
    /// The largest |x| of `Hybrid::peak_dof` over the run, on the dense output (`peak.rs`);
    /// 0 when none is tracked.
    pub peak: f64,
    /// Every switch of modes, the start first (when `Recording::switches`).
    pub(crate) switches: Vec<Switch>,
}

/// What started a smooth segment of the motion.
#[derive(Debug, Clone)]
pub(crate) enum Cause {
    /// The initial point.
    Start,
    /// The crossing of an event function of the modes before.
    Event(EventFn),
    /// A stuck Coulomb contact starts to slip (its stick force reaches the limit).
    StickBreak { contact: usize },
    /// A held stop lets go (its holding force reaches zero).
    LiftOff { stop: usize },
}

/// A switch of modes at `t` and the state after it (`y` after any jump): the start of a
/// smooth segment, integrated in `modes` up to the next switch.
#[derive(Debug, Clone)]
pub(crate) struct Switch {
    pub(crate) t: f64,
    pub(crate) cause: Cause,
    pub(crate) y: Vec<f64>,
    pub(crate) modes: ModeState,
}

/// Why the hybrid flow of a model could not be run: its elements cannot be integrated, or the
/// integration failed (with its time).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FlowError {
    #[error("{0}")]
    Unsupported(Unsupported),
    #[error("{0}")]
    Integration(SimError),
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error("step size underflow at t = {t} (h = {h:e}): the solution is not smooth enough here for the tolerances")]
    StepSizeUnderflow { t: f64, h: f64 },
    #[error("non-finite state at t = {t}")]
    NonFinite { t: f64 },
    #[error("`{element}` is penetrated at t = {t} without a located contact (the motion started on the stop's boundary)")]
    MissedContact { t: f64, element: String },
    #[error("stopped at t = {t} after {steps} steps: at this pace the run needs about {projected:.1e} steps, and the most one integration may take is {:.0e}", super::tolerances::MAX_STEPS as f64)]
    StepBudget {
        t: f64,
        steps: usize,
        projected: f64,
    },
    #[error("stopped at t = {t}: the output reached {rows} rows ({}), the most a run may hold (the limits are {:.0e} rows and {})", crate::bytes_text(*.bytes), crate::MAX_OUTPUT_ROWS, crate::bytes_text(crate::MAX_REQUEST_BYTES))]
    OutputLimit { t: f64, rows: usize, bytes: f64 },
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
    integrate_with_section(h, cfg, None, progress)
}

/// `integrate`, recording the points of `section` (if any) in `Trajectory::section`.
pub fn integrate_with_section(
    h: &mut Hybrid,
    cfg: &Config,
    section: Option<&Section>,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, Box<Failed>> {
    let mut run = Run::start(h, cfg, section);
    while run.t < cfg.t1 {
        if run.reaches_end() {
            break;
        }
        match run.pass() {
            Err(error) => return Err(run.fail(error)),
            Ok(Pass::Advanced) => {
                progress(run.t);
                if run.y.iter().any(|v| !v.is_finite()) {
                    let t = run.t;
                    return Err(run.fail(SimError::NonFinite { t }));
                }
                if let Some(error) = run.over_budget() {
                    return Err(run.fail(error));
                }
            }
            Ok(Pass::Retried | Pass::Restarted) => {}
        }
    }
    Ok(run.finish())
}

/// What one pass of the loop did.
enum Pass {
    /// The step was rejected or shortened; it is retried from the same state.
    Retried,
    /// The integration restarted at a located switch that does not count as moving on (a
    /// stuck contact starting to slip, a contact found at rest sliding on).
    Restarted,
    /// The state moved on: to the end of an ordinary step, to an event or to a lift-off.
    Advanced,
}

/// The integration in progress: the system, the stepper, the trajectory so far and the
/// current state.
struct Run<'r, 's> {
    h: &'r mut Hybrid<'s>,
    cfg: &'r Config,
    stepper: Stepper,
    traj: Trajectory,
    out: Sampler,
    /// The Poincaré section being recorded, if any.
    section: Option<SectionSampler>,
    zeno: ZenoWatch,
    /// The event functions of the current modes (built once per smooth segment).
    events: Vec<EventFn>,
    t: f64,
    y: Vec<f64>,
    /// `f(t, y)`, the next attempt's first stage.
    f0: Vec<f64>,
    /// The elements switched at the point the next step starts from, whose searches start
    /// just past it.
    switched: JustSwitched,
}

impl<'r, 's> Run<'r, 's> {
    /// The initial modes and friction states from `cfg.y0`, the first step from Hairer's
    /// heuristic, the first output sample.
    fn start(h: &'r mut Hybrid<'s>, cfg: &'r Config, section: Option<&Section>) -> Run<'r, 's> {
        let n2 = h.dim();
        let methods = MethodChoice::new(cfg.method, n2);
        let mut traj = Trajectory::default();
        let (t, mut y) = (cfg.t0, cfg.y0.clone());
        h.set_modes_from_state(t, &y);
        h.set_friction_from_state(t, &mut y);
        let events = h.events();
        let mut f0 = vec![0.0; n2];
        h.rhs(t, &y, &mut f0);
        let first = {
            let mut rhs = |t: f64, y: &[f64], dy: &mut [f64]| h.rhs(t, y, dy);
            initial_step(&mut rhs, t, &y, &f0, &cfg.tol)
        };
        let mut out = Sampler::new(cfg);
        out.record_initial(&mut traj, h, t, &y);
        traj.initial_state = y.clone();
        if h.record.switches {
            traj.switches.push(Switch {
                t,
                cause: Cause::Start,
                y: y.clone(),
                modes: h.state.clone(),
            });
        }
        let mut section = section.map(SectionSampler::new);
        if let Some(s) = &mut section {
            s.record_initial(&mut traj.section, t, &y);
        }
        if let Some(tracked) = h.peak_dof() {
            peak::record_state(&mut traj.peak, tracked, &y);
        }
        let stepper = Stepper::new(methods, first, h);
        Run {
            h,
            cfg,
            stepper,
            traj,
            out,
            section,
            zeno: ZenoWatch::default(),
            events,
            t,
            y,
            f0,
            switched: JustSwitched::default(),
        }
    }

    /// One pass: a trial step, the crossing searches on it if accepted, then the earliest
    /// crossing's action, a lift-off, or the move to the step's end.
    fn pass(&mut self) -> Result<Pass, SimError> {
        let Some(step) = self
            .stepper
            .try_step(self.h, self.t, &self.y, &self.f0, self.cfg)?
        else {
            self.traj.rejected += 1;
            return Ok(Pass::Retried);
        };
        if step.switched_to_stiff {
            self.traj.stiff_switches.push(self.stepper.t1());
        }
        let may_shorten = step.h > MIN_SHORTENED_STEP * self.t.abs().max(1.0);
        let found = crossings::first_event(
            self.h,
            &self.events,
            &self.stepper,
            &self.switched,
            &self.cfg.tol,
        );
        if found.undecided && may_shorten {
            return Ok(self.retry(UNDECIDED_STEP_CUT * step.h));
        }
        let breaks = if crossings::any_stuck(self.h) {
            let dense = self.stepper.dense();
            crossings::first_stick_break(self.h, dense, &self.switched, may_shorten)
        } else {
            StickBreaks::First(None)
        };
        let stick_break = match breaks {
            StickBreaks::PoorFit => return Ok(self.retry(POOR_FIT_STEP_CUT * step.h)),
            StickBreaks::First(at) => at,
        };
        self.traj.steps += 1;
        self.traj.stiff_steps += usize::from(step.stiff);
        if let Some(at) = stick_break.filter(|b| found.first.is_none_or(|e| b.x < e.x)) {
            self.break_stick(at, &step);
            self.stepper.resume();
            return Ok(Pass::Restarted);
        }
        if let Some(at) = found.first.filter(|e| e.x < 1.0) {
            return Ok(self.on_event(at, &step));
        }
        if self.h.state.any_held() && crossings::lift_off(self.h, self.stepper.dense()).is_some() {
            // A held stop lets go inside this step: located by bisection on its contact force.
            // The search runs again to return the stop; folding the two would lower the
            // reported `rhs_evals`.
            let (stop, tl) =
                crossings::lift_off(self.h, self.stepper.dense()).expect("found just above");
            self.lift_off(stop, tl);
            self.stepper.resume();
            return Ok(Pass::Advanced);
        }
        if let Some(stop) = self
            .h
            .penetrated(self.stepper.t1(), &self.stepper.attempt.y1)
        {
            // A stop is on its forbidden side at the end of a step without a located
            // crossing (the state started on its boundary): never continue silently.
            return Err(SimError::MissedContact {
                t: self.stepper.t1(),
                element: self.h.form.stops[stop].name.clone(),
            });
        }
        self.advance(&step);
        Ok(Pass::Advanced)
    }

    /// Ends the run at `t1` when what remains of the interval is below the step floor
    /// `MIN_STEP` (an event or a step that ended within round-off of `t1`): no step that
    /// short can be made, so the state is carried to `t1` by one Euler step, whose error
    /// `½ (t1 − t)² |y''|` is far below round-off of the state; the output samples still due
    /// are taken there. Returns whether the run ended.
    fn reaches_end(&mut self) -> bool {
        let rest = self.cfg.t1 - self.t;
        if rest > MIN_STEP * self.t.abs().max(1.0) {
            return false;
        }
        for (y, f) in self.y.iter_mut().zip(&self.f0) {
            *y += rest * f;
        }
        self.t = self.cfg.t1;
        self.out.record_end(&mut self.traj, self.h, self.t, &self.y);
        if let Some(s) = &mut self.section {
            s.record_end(&mut self.traj.section, self.t, &self.y);
        }
        if let Some(tracked) = self.h.peak_dof() {
            peak::record_state(&mut self.traj.peak, tracked, &self.y);
        }
        true
    }

    /// Retries the step from the same state with the size `size`.
    fn retry(&mut self, size: f64) -> Pass {
        self.traj.rejected += 1;
        self.stepper.shorten(size);
        Pass::Retried
    }

    /// Moves to the end of an accepted step without events.
    fn advance(&mut self, step: &Accepted) {
        let t1 = self.stepper.t1();
        self.sample_until(t1);
        self.t = t1;
        std::mem::swap(&mut self.y, &mut self.stepper.attempt.y1);
        std::mem::swap(&mut self.f0, &mut self.stepper.attempt.f1);
        self.switched.clear();
        self.stepper.advanced(step);
    }

    /// Output samples of the accepted step up to `t` (an event or the step's end); the
    /// step's coefficients are built only when a sample or a section is due in it.
    fn sample_until(&mut self, t: f64) {
        if self.out.due(t) {
            self.out
                .record_until(&mut self.traj, self.h, self.stepper.dense(), t);
        }
        if let Some(s) = &mut self.section {
            s.record_until(&mut self.traj.section, self.stepper.dense(), t);
        }
        if let Some(tracked) = self.h.peak_dof() {
            peak::record_until(&mut self.traj.peak, tracked, self.stepper.dense(), t);
        }
    }

    /// Restarts the integration at a located switch `(t, y)` of the elements `switched` in
    /// the new modes: the event functions of the new modes and the first stage are
    /// recomputed, the method choice starts afresh and the next search of the switched
    /// elements' crossings starts just past the restart point (of the others', at it); returns
    /// the step remembered for the new modes. (Modes change only here, so the event
    /// functions are built once per smooth segment.) The switch is recorded with its `cause`
    /// when the system asks for it.
    fn restart(
        &mut self,
        t: f64,
        y: Vec<f64>,
        cause: Cause,
        switched: Vec<Element>,
    ) -> Option<f64> {
        if self.h.record.switches {
            self.traj.switches.push(Switch {
                t,
                cause,
                y: y.clone(),
                modes: self.h.state.clone(),
            });
        }
        self.events = self.h.events();
        self.h.rhs(t, &y, &mut self.f0);
        Sampler::refresh_forces(&mut self.traj, self.h, t, &y);
        let (t0, size) = self.stepper.span();
        let same_instant = t0 == self.t && t - t0 <= RESTART_SKIP * size;
        self.switched.record(switched, same_instant);
        (self.t, self.y) = (t, y);
        self.stepper.restart(self.h)
    }

    /// Whether the run has used up its step budget (`MAX_STEPS`, or at its pace after
    /// `PACE_STEPS` steps it would need `PACE_FACTOR` times that), or its output has grown
    /// past `MAX_OUTPUT_ROWS` rows or `MAX_REQUEST_BYTES` (samples, contact forces, events
    /// and section points, 8 bytes a number): the bound that holds whatever the request.
    fn over_budget(&self) -> Option<SimError> {
        let traj = &self.traj;
        let (t0, t1) = (self.cfg.t0, self.cfg.t1);
        let projected = (traj.steps as f64 * ((t1 - t0) / (self.t - t0))).min(f64::MAX);
        let hopeless = traj.steps >= PACE_STEPS && projected > PACE_FACTOR * MAX_STEPS as f64;
        if traj.steps >= MAX_STEPS || hopeless {
            return Some(SimError::StepBudget {
                t: self.t,
                steps: traj.steps,
                projected,
            });
        }
        let width = |row: Option<&Vec<f64>>| row.map_or(0, Vec::len);
        let sample = 1 + width(traj.y.first()) + width(traj.forces.first());
        let rows = traj.t.len() + traj.events.len() + traj.section.len();
        let numbers =
            traj.t.len() * sample + (traj.events.len() + traj.section.len()) * self.y.len();
        let bytes = (numbers * std::mem::size_of::<f64>()) as f64;
        (rows as f64 > crate::MAX_OUTPUT_ROWS || bytes > crate::MAX_REQUEST_BYTES).then_some(
            SimError::OutputLimit {
                t: self.t,
                rows,
                bytes,
            },
        )
    }

    /// The failure with the trajectory up to the last good state.
    fn fail(self, error: SimError) -> Box<Failed> {
        Box::new(Failed {
            error,
            partial: self.finish(),
        })
    }

    /// The trajectory with its final state and count of evaluations.
    fn finish(self) -> Trajectory {
        let mut traj = self.traj;
        traj.rhs_evals = self.h.evals;
        traj.factorisations = self.stepper.factorisations();
        traj.final_state = self.y;
        traj
    }
}
