//! The choice between the explicit and the stiff method under `Method::Auto`: Hairer's
//! stiffness test sends a segment to RODAS, and a cost test sends it back to DOP853 when
//! RODAS's steps, for their cost, advance slower than DOP853's stability-limited ones.
//!
//! # References
//! Hairer and Wanner, *Solving Ordinary Differential Equations II*, 2nd ed., Springer 1996,
//! Sect. IV.2 (the stiffness test of DOP853, after eq. 2.9).

use super::super::dense::DenseStep;
use super::super::dop853::Dop853;
use super::super::rodas::Rodas;
use super::super::step::{Attempt, OneStep, Rhs, StepResult, Trial};
use super::Method;

/// `h·ρ` above which an accepted DOP853 step counts as limited by stability: the edge of its
/// stability region on the negative real axis (dimensionless).
const STIFFNESS_EDGE: f64 = 6.1;
/// Stability-limited steps (without `CALM_STEPS_TO_FORGET` others in between) after which
/// `Method::Auto` switches to RODAS.
const STIFF_STEPS_TO_SWITCH: usize = 15;
/// Consecutive steps below the stability edge after which the stability-limited ones seen
/// before are forgotten.
const CALM_STEPS_TO_FORGET: usize = 6;

/// Accepted RODAS steps after a switch before its progress is compared with DOP853's; the
/// first half is left out of the comparison (the controller grows the step from the
/// switch's size, at most fivefold per step, and settles after an event's transient).
const STIFF_STEPS_TO_JUDGE: usize = 20;

/// State dimension up to which the dense output's coefficient vectors are filled on every
/// accepted step: on small models most steps hold an output sample anyway, and the event
/// functions read from the filled vectors cost less than from the stages.
const EAGER_DENSE_MAX_STATES: usize = 64;

/// The time a method advanced and the attempts it took (rejected ones included).
#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    time: f64,
    attempts: usize,
}

impl Progress {
    /// Time advanced per attempt.
    fn rate(&self) -> f64 {
        self.time / self.attempts.max(1) as f64
    }
}

/// The explicit and the stiff method with the switching policy of `Method`.
pub(super) struct MethodChoice {
    method: Method,
    explicit: Dop853,
    stiff: Rodas,
    /// RODAS is integrating the current segment.
    stiff_now: bool,
    /// Hairer's counters: stiff-looking accepted steps, and non-stiff ones since the last.
    stiff_seen: usize,
    calm_seen: usize,
    /// DOP853's progress in the current segment (stability-limited when the switch is made).
    explicit_progress: Progress,
    /// RODAS's progress since the middle of its judging steps.
    stiff_progress: Progress,
    /// Accepted RODAS steps since the switch.
    stiff_made: usize,
    /// RODAS was tried in this segment and its steps were too short for their cost.
    explicit_pays: bool,
    /// RODAS made the latest accepted step (its dense output is RODAS's).
    dense_stiff: bool,
}

impl MethodChoice {
    pub(super) fn new(method: Method, n: usize) -> MethodChoice {
        MethodChoice {
            method,
            explicit: Dop853::new(n),
            stiff: Rodas::new(n),
            stiff_now: method == Method::Rodas,
            stiff_seen: 0,
            calm_seen: 0,
            explicit_progress: Progress::default(),
            stiff_progress: Progress::default(),
            stiff_made: 0,
            explicit_pays: false,
            dense_stiff: false,
        }
    }

    /// Numeric factorisations of RODAS's sparse stage matrix so far.
    pub(super) fn factorisations(&self) -> usize {
        self.stiff.factorisations()
    }

    /// RODAS makes the next attempt.
    pub(super) fn is_stiff(&self) -> bool {
        self.stiff_now
    }

    /// Hairer's stiffness test on the explicit attempt just accepted (step `h`, end state
    /// `y1`): after enough stability-limited steps the next ones go to RODAS, unless RODAS
    /// was already found not to pay in this segment.
    fn watch_stiffness(&mut self, h: f64, y1: &[f64]) {
        self.explicit_progress.time += h;
        if self.explicit.stiffness(h, y1) > STIFFNESS_EDGE {
            self.stiff_seen += 1;
            self.calm_seen = 0;
            if self.stiff_seen >= STIFF_STEPS_TO_SWITCH && !self.explicit_pays {
                self.stiff_now = true;
                self.stiff_made = 0;
            }
        } else {
            self.calm_seen += 1;
            if self.calm_seen >= CALM_STEPS_TO_FORGET {
                self.stiff_seen = 0;
            }
        }
    }

    /// A mode change: `Method::Auto` tries the explicit method again.
    pub(super) fn restart(&mut self) {
        if self.method == Method::Auto {
            self.stiff_now = false;
            self.stiff_seen = 0;
            self.calm_seen = 0;
            self.explicit_pays = false;
            self.explicit_progress = Progress::default();
        }
    }

    /// The cost test on a RODAS step of size `h` just accepted under `Method::Auto`: after
    /// `STIFF_STEPS_TO_JUDGE` steps RODAS keeps the segment only if it advances faster per
    /// unit of work than DOP853 did in it, `τ_RODAS / cost(RODAS step) ≥ τ_DOP853`, `τ` the
    /// time advanced per attempt (rejections included); else DOP853 takes the rest of the
    /// segment (an excited fast mode must be resolved anyway, and the order-8 method may do
    /// it in fewer steps than the order-4 one).
    fn watch_cost(&mut self, h: f64) {
        self.stiff_made += 1;
        self.stiff_progress.time += h;
        if self.stiff_made == STIFF_STEPS_TO_JUDGE / 2 {
            self.stiff_progress = Progress::default();
        }
        if self.stiff_made == STIFF_STEPS_TO_JUDGE
            && self.stiff_progress.rate() < self.explicit_progress.rate() * self.stiff.step_cost()
        {
            self.stiff_now = false;
            self.explicit_pays = true;
        }
    }
}

/// The dense output of an accepted attempt in two parts (`Dop853::extra_stages`): what every
/// step needs at once, and the coefficient vectors only when the state inside the step is
/// read (event functions read a few components, `linear_poly`).
impl MethodChoice {
    /// The accepted attempt `a` from `trial`: under `Method::Auto` the stiffness or cost test
    /// runs (the stiffness test first: it reads the stage state that the extra stages
    /// overwrite); `out` is begun, DOP853 makes its extra stages, and on small models
    /// (`EAGER_DENSE_MAX_STATES`) the coefficients are filled at once. Returns whether
    /// `out` is filled; if not, `fill_dense` fills it and `linear_poly` reads it meanwhile.
    pub(super) fn accepted(
        &mut self,
        rhs: &mut impl Rhs,
        trial: &Trial<'_>,
        a: &Attempt,
        out: &mut DenseStep,
    ) -> bool {
        self.dense_stiff = self.stiff_now;
        if self.stiff_now {
            if self.method == Method::Auto {
                self.watch_cost(trial.h);
            }
        } else {
            if self.method == Method::Auto {
                self.watch_stiffness(trial.h, &a.y1);
            }
            self.explicit.extra_stages(rhs, trial);
        }
        out.begin(trial.t, trial.h, trial.y);
        if trial.y.len() <= EAGER_DENSE_MAX_STATES {
            self.fill_dense(a, out);
            return true;
        }
        false
    }

    /// Fills `out` for a step that `accepted` left unfilled.
    pub(super) fn fill_dense(&self, a: &Attempt, out: &mut DenseStep) {
        if self.dense_stiff {
            self.stiff.fill_dense(a, out);
        } else {
            self.explicit.fill_dense(a, out);
        }
    }

    /// `out.linear_poly(w, c)` of a step that `accepted` left unfilled.
    pub(super) fn linear_poly(
        &self,
        a: &Attempt,
        out: &DenseStep,
        w: &[(usize, f64)],
        c: f64,
    ) -> [f64; 8] {
        if self.dense_stiff {
            self.stiff.linear_poly(a, out, w, c)
        } else {
            self.explicit.linear_poly(a, out, w, c)
        }
    }
}

impl OneStep for MethodChoice {
    fn attempt(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, out: &mut Attempt) -> StepResult {
        if self.stiff_now {
            self.stiff_progress.attempts += 1;
            self.stiff.attempt(rhs, trial, out)
        } else {
            self.explicit_progress.attempts += 1;
            self.explicit.attempt(rhs, trial, out)
        }
    }

    /// The dense output of an accepted attempt; under `Method::Auto` the stiffness test runs
    /// first (it reads the stage state that DOP853's dense output overwrites).
    fn dense(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, a: &Attempt, out: &mut DenseStep) {
        if !self.accepted(rhs, trial, a, out) {
            self.fill_dense(a, out);
        }
    }

    /// The controller of the method that makes the next attempt.
    fn next_step(&self, h: f64, err: f64, rejected_before: bool) -> f64 {
        if self.stiff_now {
            self.stiff.next_step(h, err, rejected_before)
        } else {
            self.explicit.next_step(h, err, rejected_before)
        }
    }
}
