//! The stepper: one trial step of the size the controller proposes (cut to the end time and
//! the largest step), its error test and dense output, and the size of the step that
//! follows — from the controller after an ordinary step, from the step remembered for the
//! new modes after a switch.

use super::super::dense::DenseStep;
use super::super::hybrid::Hybrid;
use super::super::step::{Attempt, OneStep, Trial};
use super::super::step_control::{StepControl, Verdict};
use super::super::tolerances::{MIN_STEP, MIN_STEP_AFTER_EVENT, UNUSABLE_STEP_CUT};
use super::{Config, MethodChoice, SimError};
use std::collections::HashMap;

/// A trial step that passed the error test; its dense output is `Stepper::dense`.
pub(super) struct Accepted {
    /// The step size.
    pub(crate) h: f64,
    /// The scaled error norm (≤ 1).
    err: f64,
    /// RODAS made the step.
    pub(crate) stiff: bool,
    /// The stiffness test fired on this step: the next ones go to RODAS.
    pub(crate) switched_to_stiff: bool,
}

/// The one-step methods with their switching policy, the step-size state, and the buffers of
/// the latest attempt and its dense output (one each for the whole integration: no
/// allocation per step).
pub(super) struct Stepper {
    methods: MethodChoice,
    control: StepControl,
    memory: StepMemory,
    pub(super) attempt: Attempt,
    /// The accepted step's dense output: begun at once, its coefficients filled when first
    /// read (`dense`).
    dense: DenseStep,
    /// `dense` holds the accepted step's coefficients.
    filled: bool,
}

impl Stepper {
    /// The stepper of the system `h` in its initial modes, starting with the step `first`.
    pub(super) fn new(methods: MethodChoice, first: f64, h: &Hybrid) -> Stepper {
        let n2 = h.dim();
        Stepper {
            methods,
            control: StepControl::new(first, UNUSABLE_STEP_CUT),
            memory: StepMemory::new(h),
            attempt: Attempt::new(n2),
            dense: DenseStep::new(n2),
            filled: false,
        }
    }

    /// One trial step from `(t, y)`, where `f0 = f(t, y)`: the accepted step (its dense
    /// output computed), or `None` when the error test rejects it (the next proposal is then
    /// shortened); an error when the step has become negligible.
    pub(super) fn try_step(
        &mut self,
        h: &mut Hybrid,
        t: f64,
        y: &[f64],
        f0: &[f64],
        cfg: &Config,
    ) -> Result<Option<Accepted>, SimError> {
        let size = self.control.size(t, cfg.t1, cfg.tol.max_step);
        if size <= MIN_STEP * t.abs().max(1.0) {
            return Err(SimError::StepSizeUnderflow { t, h: size });
        }
        let trial = Trial {
            t,
            y,
            f0,
            h: size,
            tol: &cfg.tol,
        };
        let result = self.methods.attempt(h, &trial, &mut self.attempt);
        let Verdict::Accepted { err } = self.control.judge(&self.methods, size, result) else {
            return Ok(None);
        };
        let stiff = self.methods.is_stiff();
        self.filled = self
            .methods
            .accepted(h, &trial, &self.attempt, &mut self.dense);
        Ok(Some(Accepted {
            h: size,
            err,
            stiff,
            switched_to_stiff: !stiff && self.methods.is_stiff(),
        }))
    }

    /// The accepted step's dense output, its coefficients built on the first call: most
    /// steps are read only along their event functions (`event_poly`) and their end state.
    pub(super) fn dense(&mut self) -> &DenseStep {
        if !self.filled {
            self.methods.fill_dense(&self.attempt, &mut self.dense);
            self.filled = true;
        }
        &self.dense
    }

    /// The accepted step's start time and size.
    pub(super) fn span(&self) -> (f64, f64) {
        (self.dense.t0, self.dense.h)
    }

    /// The end of the accepted step.
    pub(super) fn t1(&self) -> f64 {
        self.dense.t1()
    }

    /// `DenseStep::linear_poly` of the accepted step, the same polynomial whether or not its
    /// coefficients are built (an event function reads a few components).
    pub(super) fn event_poly(&self, w: &[(usize, f64)], c: f64) -> [f64; 8] {
        if self.filled {
            self.dense.linear_poly(w, c)
        } else {
            self.methods.linear_poly(&self.attempt, &self.dense, w, c)
        }
    }

    /// Numeric factorisations of the stiff method's sparse stage matrix so far.
    pub(super) fn factorisations(&self) -> usize {
        self.methods.factorisations()
    }

    /// The step passed its error test but must be retried shorter (an undecided crossing,
    /// a poor fit): the next attempt tries `size`.
    pub(super) fn shorten(&mut self, size: f64) {
        self.control.shorten(size);
    }

    /// The state moved to the end of `step`: the controller proposes the next size, which is
    /// also remembered for the current modes.
    pub(super) fn advanced(&mut self, step: &Accepted) {
        let proposed = self.control.advanced(&self.methods, step.h, step.err);
        self.memory.accepted(proposed);
    }

    /// The modes changed (`h` is in the new ones): the method choice starts afresh; returns
    /// the step remembered for the new modes.
    pub(super) fn restart(&mut self, h: &Hybrid) -> Option<f64> {
        self.methods.restart();
        self.memory.switched(h)
    }

    /// After an event ended `step` at time `t`: the next attempt starts from the step
    /// remembered for the new modes, else from the step just made.
    pub(super) fn after_event(&mut self, remembered: Option<f64>, step: &Accepted, t: f64) {
        self.control.restart_from(
            remembered
                .unwrap_or(step.h)
                .max(MIN_STEP_AFTER_EVENT * t.abs().max(1.0)),
        );
    }

    /// After a restart that keeps the proposed size (a stick-break, a lift-off): an earlier
    /// rejection no longer limits growth.
    pub(super) fn resume(&mut self) {
        self.control.resume();
    }
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
            segment: h.state.key(),
            proposed: None,
        }
    }

    /// The step proposed after an accepted step of the current segment.
    fn accepted(&mut self, step: f64) {
        self.proposed = Some(step);
    }

    /// Files the ending segment's last proposal; the remembered step of the new modes.
    fn switched(&mut self, h: &Hybrid) -> Option<f64> {
        let ending = std::mem::replace(&mut self.segment, h.state.key());
        if let Some(step) = self.proposed.take() {
            self.by_modes.insert(ending, step);
        }
        self.by_modes.get(&self.segment).copied()
    }
}
