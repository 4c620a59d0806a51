//! The accept/reject bookkeeping of an adaptive integration, shared by every loop that steps
//! an embedded pair (the event-driven driver, the multibody `events` backend, the variational
//! equations of shooting): the size of the next trial, the verdict on it, and the proposal
//! after it — Hairer's controller, with no growth right after a rejection (HNW I, Sect. II.4,
//! eqs. 4.12–4.13).
//!
//! Each loop keeps its own floor on the step (the time scales differ) and its own reading of
//! an unusable trial: the driver halves the step (Hairer's RODAS on a singular matrix), the
//! multibody loop, whose degenerate joints make NaN stages, shrinks it as far as DOP853's
//! controller allows, shooting stops.

use super::step::{OneStep, StepResult};

/// What a trial step's result means for the loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Verdict {
    /// The error norm `err` is at most 1: the step may be taken.
    Accepted { err: f64 },
    /// The error test failed, or the trial gave no usable norm (a singular stage matrix, a
    /// non-finite norm): the next proposal is shorter.
    Rejected,
}

/// The proposed size of the next trial and whether the latest trial was rejected.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepControl {
    proposed: f64,
    rejected_last: bool,
    /// Factor on a step whose trial gave no usable error norm (dimensionless).
    unusable_cut: f64,
}

impl StepControl {
    /// Control starting from the step `first`; a trial without a usable norm shortens the
    /// step by `unusable_cut`.
    pub(crate) fn new(first: f64, unusable_cut: f64) -> StepControl {
        StepControl {
            proposed: first,
            rejected_last: false,
            unusable_cut,
        }
    }

    /// The size of the next trial from `t`: the proposal, cut to the end time `t1` and to the
    /// largest step.
    pub(crate) fn size(&self, t: f64, t1: f64, max_step: f64) -> f64 {
        self.proposed.min(t1 - t).min(max_step)
    }

    /// The verdict on a trial of `size` by `method` that gave `result`. On a rejection the
    /// next proposal is the controller's for a finite norm, `unusable_cut` of the size
    /// otherwise, and the one after it may not grow.
    pub(crate) fn judge(
        &mut self,
        method: &impl OneStep,
        size: f64,
        result: StepResult,
    ) -> Verdict {
        match result {
            StepResult::Computed { err } if err <= 1.0 => return Verdict::Accepted { err },
            StepResult::Computed { err } if err.is_finite() => {
                self.proposed = method.next_step(size, err, true);
            }
            _ => self.proposed = self.unusable_cut * size,
        }
        self.rejected_last = true;
        Verdict::Rejected
    }

    /// The state moved over an accepted step of size `h` and error norm `err`: the
    /// controller proposes the next size (not larger than `h` right after a rejection).
    pub(crate) fn advanced(&mut self, method: &impl OneStep, h: f64, err: f64) -> f64 {
        self.proposed = method.next_step(h, err, self.rejected_last);
        self.rejected_last = false;
        self.proposed
    }

    /// The next trial tries `size` (a passed step retried shorter); an earlier rejection
    /// still limits growth.
    pub(crate) fn shorten(&mut self, size: f64) {
        self.proposed = size;
    }

    /// The next trial tries `size`, as after an event: an earlier rejection no longer
    /// limits growth.
    pub(crate) fn restart_from(&mut self, size: f64) {
        self.proposed = size;
        self.rejected_last = false;
    }

    /// An earlier rejection no longer limits growth (a restart that keeps the proposal).
    pub(crate) fn resume(&mut self) {
        self.rejected_last = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ode::dop853::Dop853;

    const CUT: f64 = 0.5;

    #[test]
    fn a_rejection_shrinks_and_forbids_growth_on_the_next_step() {
        let dop = Dop853::new(1);
        let mut control = StepControl::new(1.0, CUT);
        assert_eq!(control.size(0.0, 10.0, 0.5), 0.5);
        assert_eq!(control.size(9.8, 10.0, 5.0), 10.0 - 9.8);
        let verdict = control.judge(&dop, 1.0, StepResult::Computed { err: 4.0 });
        assert_eq!(verdict, Verdict::Rejected);
        let shrunk = control.size(0.0, 10.0, 10.0);
        assert!(shrunk < 1.0);
        // A tiny error after the rejection: the step may not grow past the one just made.
        let Verdict::Accepted { err } =
            control.judge(&dop, shrunk, StepResult::Computed { err: 1e-6 })
        else {
            panic!("a small error is accepted")
        };
        assert_eq!(control.advanced(&dop, shrunk, err), shrunk);
        // The next small error may grow it.
        assert!(control.advanced(&dop, shrunk, 1e-6) > shrunk);
    }

    #[test]
    fn an_unusable_trial_cuts_the_step_by_its_factor() {
        let dop = Dop853::new(1);
        let mut control = StepControl::new(1.0, CUT);
        for result in [StepResult::Singular, StepResult::Computed { err: f64::NAN }] {
            assert_eq!(control.judge(&dop, 0.8, result), Verdict::Rejected);
            assert_eq!(control.size(0.0, 10.0, 10.0), CUT * 0.8);
        }
    }
}
