//! The one-step interface shared by DOP853, RODAS and the driver's choice between them: a
//! trial step from a start point (`Trial`) into a reused buffer (`Attempt`), its dense output
//! (`DenseStep`), and the next step size from Hairer's controller (`Controller`).
//!
//! # References
//! Hairer, Nørsett and Wanner, *Solving Ordinary Differential Equations I*, 2nd ed., Springer
//! 1993, Sect. II.4 (step-size control, eqs. 4.12–4.13).

use super::dense::DenseStep;

/// Safety factor of the step-size controller: the step aims at 0.9 of the tolerated error
/// (dimensionless).
const CONTROLLER_SAFETY: f64 = 0.9;

/// A right-hand side `y' = f(t, y)`.
pub(crate) trait Rhs {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]);

    /// The exact linearisation at `(t, y)` when `f` is a second-order system (below), else
    /// `None` (the stiff method then takes finite differences).
    fn tangent(&mut self, _t: f64, _y: &[f64]) -> Option<&SecondOrder> {
        None
    }
}

/// The linearisation of a second-order right-hand side `y = [x, v]`,
/// `f = [v, M⁻¹ F(t, x, v)]`: `∂f/∂y = [[0, I], [−M⁻¹K̃, −M⁻¹C̃]]` with the tangent stiffness
/// `K̃ = −∂F/∂x` and damping `C̃ = −∂F/∂v`, all three sparse and symmetric on one CSR
/// pattern (the values of `K̃` and `C̃` are stored in the order of `m`'s).
pub(crate) struct SecondOrder {
    /// The mass matrix `M`, whose pattern holds those of `K̃` and `C̃`.
    pub(crate) m: sprs::CsMat<f64>,
    /// `K̃` on `m`'s pattern.
    pub(crate) k: Vec<f64>,
    /// `C̃` on `m`'s pattern.
    pub(crate) c: Vec<f64>,
}

impl<F: FnMut(f64, &[f64], &mut [f64])> Rhs for F {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self(t, y, dy)
    }
}

/// Tolerances and limits of the adaptive integration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    pub rtol: f64,
    pub atol: f64,
    /// Largest step allowed (also the cap on the first step).
    pub max_step: f64,
}

/// One trial step: from `(t, y)`, where `f0 = f(t, y)`, over `h`, its error measured against
/// `tol`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Trial<'a> {
    pub(crate) t: f64,
    pub(crate) y: &'a [f64],
    pub(crate) f0: &'a [f64],
    pub(crate) h: f64,
    pub(crate) tol: &'a Tolerances,
}

/// The result of one attempted step (one buffer reused for every attempt).
pub(crate) struct Attempt {
    pub(crate) y1: Vec<f64>,
    /// f(t + h, y1), reused as the next step's first stage when the step is accepted.
    pub(crate) f1: Vec<f64>,
}

impl Attempt {
    pub(crate) fn new(n: usize) -> Attempt {
        Attempt {
            y1: vec![0.0; n],
            f1: vec![0.0; n],
        }
    }
}

/// What a trial step produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum StepResult {
    /// The step is in the `Attempt`; `err` is its scaled error norm, acceptable when ≤ 1.
    Computed { err: f64 },
    /// The stiff method's stage matrix is singular (or a stage is not finite): no step was
    /// made and the caller shortens it.
    Singular,
}

/// A one-step method with an error estimate and a dense output.
pub(crate) trait OneStep {
    /// One trial step into `out`.
    fn attempt(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, out: &mut Attempt) -> StepResult;

    /// The dense output of the attempt just made (from `trial`, with result `a`) into `out`;
    /// call it before the next `attempt`, which overwrites the stages.
    fn dense(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, a: &Attempt, out: &mut DenseStep);

    /// The next step size after an attempt of size `h` with error norm `err`; no growth right
    /// after a rejection.
    fn next_step(&self, h: f64, err: f64, rejected_before: bool) -> f64;
}

/// Hairer's step-size controller of one method: `h · 0.9 err^(−exponent)` within
/// `[shrink, grow]` (eq. 4.13), the largest factor for a zero error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Controller {
    /// `1/(q + 1)` for an error estimate of order `q`.
    pub(crate) exponent: f64,
    /// Smallest factor of one step to the next (dimensionless).
    pub(crate) shrink: f64,
    /// Largest factor of one step to the next (dimensionless).
    pub(crate) grow: f64,
}

impl Controller {
    /// The next step size after a step `h` with error norm `err`; no growth right after a
    /// rejection.
    pub(crate) fn next_step(&self, h: f64, err: f64, rejected_before: bool) -> f64 {
        let factor = if err == 0.0 {
            self.grow
        } else {
            (CONTROLLER_SAFETY * err.powf(-self.exponent)).clamp(self.shrink, self.grow)
        };
        h * if rejected_before {
            factor.min(1.0)
        } else {
            factor
        }
    }
}
