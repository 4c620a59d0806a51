//! One step of RODAS (Hairer and Wanner's L-stable, stiffly accurate Rosenbrock method of
//! order 4 with an embedded order-3 estimate and a 3rd-order dense output): the stiff
//! fallback of the event-driven integration (stiff compliant contacts, steep smoothing).
//!
//! Each stage solves `(I/(γh) − J) kᵢ = f(t + cᵢh, y + Σⱼ aᵢⱼkⱼ) + Σⱼ cᵢⱼkⱼ/h + dᵢ h ∂f/∂t`
//! with one LU factorisation per step; `y₁ = y + Σ a₅ⱼkⱼ + k₅ + k₆` and `k₆` is the error
//! estimate (stiffly accurate pair). A second-order right-hand side that gives its exact
//! tangent (`Rhs::tangent`, the hybrid form outside bilateral constraints) has its stages
//! solved sparsely in the second-order block form (`sparse_stage.rs`); otherwise `J = ∂f/∂y`
//! is taken by forward differences and the dense `I/(γh) − J` is factored. `∂f/∂t` is a
//! forward difference (one evaluation); a rejected step reuses it.
//!
//! The dense output `y(t₀ + θh) = (1 − θ)y₀ + θ(y₁ + (1 − θ)(q₁ + θq₂))` is written in the
//! same nested form as DOP853's (`F₀ = y₁ − y₀, F₁ = q₁, F₂ = q₂`, the rest zero), so the event
//! search works on it unchanged.
//!
//! # References
//! Hairer and Wanner, *Solving Ordinary Differential Equations II*, 2nd ed., Springer 1996,
//! Sect. IV.7 (Rosenbrock methods, eq. 7.4; the RODAS coefficients and dense output).

use super::dense::DenseStep;
use super::dop853::sum_terms;
use super::sparse_stage::SparseStages;
use super::step::{Attempt, Controller, OneStep, Rhs, StepResult, Trial};
use nalgebra::{DMatrix, DVector};

/// The order-4 controller: exponent 1/4 (error estimate of order 3), the step shrinks at most
/// to 1/6 and grows at most fivefold from one step to the next.
const CONTROLLER: Controller = Controller {
    exponent: 0.25,
    shrink: 1.0 / 6.0,
    grow: 5.0,
};

/// Floor of `|yᵢ|` and `|t|` in the forward-difference increments `√(ε max(1e-5, |yᵢ|))`, so
/// that a zero component still gets a usable increment (the component's unit).
const INCREMENT_FLOOR: f64 = 1e-5;

/// The diagonal `γ` of the method.
const GAMMA: f64 = 0.25;
/// Stage times `cᵢ` (stages 5 and 6 at `t + h`).
const C: [f64; 6] = [0.0, 0.386, 0.21, 0.63, 1.0, 1.0];
/// `dᵢ`, the weights of `h ∂f/∂t` in the stages.
const D: [f64; 4] = [0.25, -0.1043, 0.1035, -0.3620000000000023e-01];
/// `aᵢⱼ` (stage states), rows 2…5.
const A: [[f64; 4]; 4] = [
    [1.544, 0.0, 0.0, 0.0],
    [0.9466785280815826, 0.2557011698983284, 0.0, 0.0],
    [
        3.314825187068521,
        2.896124015972201,
        0.9986419139977817,
        0.0,
    ],
    [
        1.221224509226641,
        6.019134481288629,
        12.53708332932087,
        -0.687886036105895,
    ],
];
/// `cᵢⱼ` (stage couplings), rows 2…6.
const CC: [[f64; 5]; 5] = [
    [-5.6688, 0.0, 0.0, 0.0, 0.0],
    [-2.430093356833875, -0.2063599157091915, 0.0, 0.0, 0.0],
    [
        -0.1073529058151375,
        -9.594562251023355,
        -20.47028614809616,
        0.0,
        0.0,
    ],
    [
        7.496443313967647,
        -10.24680431464352,
        -33.99990352819905,
        11.7089089320616,
        0.0,
    ],
    [
        8.083246795921522,
        -7.981132988064893,
        -31.52159432874371,
        16.31930543123136,
        -6.058818238834054,
    ],
];
/// Dense-output weights of `k₁ … k₅` for `q₁` and `q₂`.
const DENSE: [[f64; 5]; 2] = [
    [
        10.12623508344586,
        -7.487995877610167,
        -34.80091861555747,
        -7.992771707568823,
        1.025137723295662,
    ],
    [
        -0.6762803392801253,
        6.087714651680015,
        16.43084320892478,
        24.76722511418386,
        -6.594389125716872,
    ],
];

/// Index in `Rodas::k` of `∂f/∂t`, stored after the six stage increments so that a stage's
/// right-hand side is one sum over the list.
const DFDT: usize = 6;

/// Stage storage and the linearisations of the latest step's start point (no allocation per
/// step on the sparse path).
pub(crate) struct Rodas {
    n: usize,
    /// `k₁ … k₆` of the latest attempt, then `∂f/∂t` at its start point (`DFDT`).
    k: Vec<Vec<f64>>,
    /// The stage state.
    work: Vec<f64>,
    /// `f` at the stage state.
    fwork: Vec<f64>,
    /// The stage's right-hand side `f + Σ cᵢⱼkⱼ/h + dᵢ h ∂f/∂t`.
    b: Vec<f64>,
    /// `∂f/∂y` by forward differences at the start point of the last attempt (right-hand
    /// sides without a tangent).
    dense_jac: Option<(f64, Vec<f64>, DMatrix<f64>)>,
    /// The start point `(t, y)` where `k[DFDT]` was taken.
    dfdt_at: Option<(f64, Vec<f64>)>,
    /// The sparse second-order stage systems (right-hand sides with a tangent).
    sparse: Option<SparseStages>,
    /// The latest step solved its stages densely (finite-difference Jacobian).
    dense_last: bool,
}

/// How the stage systems of one step are solved.
enum StageSolve {
    /// The dense LU of `I/(γh) − J`.
    Dense(nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>),
    /// `SparseStages`, prepared for this step.
    Sparse,
}

/// The coefficients of stage `s` (from 0) on `Rodas::k` for a step `h`: its state
/// `y + Σ aₛⱼkⱼ` and its right-hand side `f + Σ cₛⱼkⱼ/h + dₛ h ∂f/∂t`. Stage 6's state is
/// stage 5's plus `k₅` (the attempt adds it to the state it has).
fn stage_coefficients(s: usize, h: f64) -> ([f64; 7], [f64; 7]) {
    let (mut state, mut rhs) = ([0.0; 7], [0.0; 7]);
    if s > 0 {
        let row = &A[s.min(4) - 1];
        state[..s.min(4)].copy_from_slice(&row[..s.min(4)]);
        for (r, cc) in rhs.iter_mut().zip(&CC[s - 1][..s]) {
            *r = cc / h;
        }
    }
    if let Some(d) = D.get(s) {
        rhs[DFDT] = d * h;
    }
    (state, rhs)
}

impl Rodas {
    pub(crate) fn new(n: usize) -> Rodas {
        Rodas {
            n,
            k: vec![vec![0.0; n]; 7],
            work: vec![0.0; n],
            fwork: vec![0.0; n],
            b: vec![0.0; n],
            dense_jac: None,
            dfdt_at: None,
            sparse: None,
            dense_last: false,
        }
    }

    /// The cost of the latest step relative to a DOP853 step's 12 evaluations. Sparse
    /// stages: 6 evaluations, 6 sparse solves and a factorisation of `S` cost about as much
    /// as 12 evaluations (0.34 ms against 0.36 ms per attempt on the 1000-mass chain of
    /// `bench/chain_scaling.nsd`), so 1. Dense stages: the `n` evaluations of the
    /// finite-difference Jacobian on top of the 7 of the step (the LU left out).
    pub(crate) fn step_cost(&self) -> f64 {
        if self.dense_last {
            (self.n + 7) as f64 / 12.0
        } else {
            1.0
        }
    }

    /// Numeric factorisations of the sparse stage matrix so far.
    pub(crate) fn factorisations(&self) -> usize {
        self.sparse.as_ref().map_or(0, |s| s.factorisations)
    }

    /// `∂f/∂y` at `(t, y)` by forward differences with Hairer's increments
    /// `√(ε max(1e-5, |yᵢ|))` (n evaluations), reused while the start point is the same.
    fn dense_jacobian(&mut self, rhs: &mut impl Rhs, t: f64, y: &[f64], f0: &[f64]) {
        if matches!(&self.dense_jac, Some((t0, y0, _)) if *t0 == t && y0 == y) {
            return;
        }
        let n = self.n;
        let mut j = DMatrix::zeros(n, n);
        let mut yp = y.to_vec();
        for c in 0..n {
            let delta = (f64::EPSILON * y[c].abs().max(INCREMENT_FLOOR)).sqrt();
            yp[c] = y[c] + delta;
            rhs.eval(t, &yp, &mut self.fwork);
            for r in 0..n {
                j[(r, c)] = (self.fwork[r] - f0[r]) / delta;
            }
            yp[c] = y[c];
        }
        self.dense_jac = Some((t, y.to_vec(), j));
    }

    /// `∂f/∂t` at `(t, y)` into `k[DFDT]` by a forward difference (one evaluation), kept
    /// while the start point is the same (a rejected step's retries).
    fn time_derivative(&mut self, rhs: &mut impl Rhs, t: f64, y: &[f64], f0: &[f64]) {
        match &mut self.dfdt_at {
            Some((t0, y0)) if *t0 == t && y0 == y => return,
            Some((t0, y0)) => {
                *t0 = t;
                y0.copy_from_slice(y);
            }
            None => self.dfdt_at = Some((t, y.to_vec())),
        }
        let dt = (f64::EPSILON * t.abs().max(INCREMENT_FLOOR)).sqrt();
        rhs.eval(t + dt, y, &mut self.fwork);
        for ((d, f), f0) in self.k[DFDT].iter_mut().zip(&self.fwork).zip(f0) {
            *d = (f - f0) / dt;
        }
    }

    /// The stage solver of a step of size `h` from `(t, y)`: the sparse second-order form
    /// when `rhs` gives its tangent, else the dense LU of `I/(γh) − J` with `J` by finite
    /// differences; `None` when the stage matrix is singular.
    fn stage_solver(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>) -> Option<StageSolve> {
        let rate = 1.0 / (GAMMA * trial.h);
        self.dense_last = false;
        if let Some(lin) = rhs.tangent(trial.t, trial.y) {
            let sparse = self.sparse.get_or_insert_with(|| SparseStages::new(lin));
            return sparse.prepare(lin, rate).then_some(StageSolve::Sparse);
        }
        self.dense_last = true;
        self.dense_jacobian(rhs, trial.t, trial.y, trial.f0);
        let (_, _, j) = self.dense_jac.as_ref()?;
        let mut e = -j.clone();
        for i in 0..self.n {
            e[(i, i)] += rate;
        }
        Some(StageSolve::Dense(e.lu()))
    }

    /// Solves stage `s`'s system for `k[s]` from its right-hand side `b`; `false` when the
    /// solve fails or gives a non-finite increment.
    fn solve_stage(&mut self, solver: &StageSolve, s: usize) -> bool {
        let ks = &mut self.k[s];
        let solved = match solver {
            StageSolve::Dense(lu) => {
                lu.solve(&DVector::from_column_slice(&self.b))
                    .is_some_and(|k| {
                        ks.copy_from_slice(k.as_slice());
                        true
                    })
            }
            StageSolve::Sparse => self.sparse.as_mut().is_some_and(|sp| sp.solve(&self.b, ks)),
        };
        solved && ks.iter().all(|v| v.is_finite())
    }

    /// The coefficient vectors `F0 … F2` of the step `out` (begun from its start state over
    /// its size) whose attempt gave `a`, the others zero: `F0 = y₁ − y₀`, `F₁ = q₁`,
    /// `F₂ = q₂` (no further evaluations).
    pub(crate) fn fill_dense(&self, a: &Attempt, out: &mut DenseStep) {
        for (f0, (y1, y0)) in out.f[0].iter_mut().zip(a.y1.iter().zip(&out.y0)) {
            *f0 = y1 - y0;
        }
        for (fr, w) in out.f[1..3].iter_mut().zip(&DENSE) {
            sum_terms(fr, None, &self.k[..5], w.iter().copied());
        }
        for f in &mut out.f[3..] {
            f.fill(0.0);
        }
    }

    /// `DenseStep::linear_poly` of the step `out` (begun, not filled) whose attempt gave `a`:
    /// each coefficient it reads is computed alone, with the operations of `fill_dense` in
    /// the same order.
    pub(crate) fn linear_poly(
        &self,
        a: &Attempt,
        out: &DenseStep,
        w: &[(usize, f64)],
        c: f64,
    ) -> [f64; 8] {
        let coef_at = |r: usize, i: usize| -> f64 {
            match r {
                0 => a.y1[i] - out.y0[i],
                1 | 2 => {
                    let (k, wr) = (&self.k, &DENSE[r - 1]);
                    (1..5).fold(wr[0] * k[0][i], |acc, s| acc + wr[s] * k[s][i])
                }
                _ => 0.0,
            }
        };
        super::dense::linear_poly_of(w, c, &out.y0, coef_at)
    }
}

impl OneStep for Rodas {
    /// One trial step; `Singular` when the stage matrix is (the caller shortens the step).
    /// Each stage is two whole-vector sums over `k` (its state and its right-hand side), one
    /// evaluation and one solve.
    fn attempt(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, out: &mut Attempt) -> StepResult {
        let (n, t, y, f0, h, tol) = (self.n, trial.t, trial.y, trial.f0, trial.h, trial.tol);
        let Some(solver) = self.stage_solver(rhs, trial) else {
            return StepResult::Singular;
        };
        self.time_derivative(rhs, t, y, f0);
        for (s, c) in C.iter().enumerate() {
            let (state, coupling) = stage_coefficients(s, h);
            if s == 5 {
                // Stage 6's state is stage 5's (still in `work`) plus k₅.
                for (w, k) in self.work.iter_mut().zip(&self.k[4]) {
                    *w += k;
                }
            } else if s > 0 {
                sum_terms(&mut self.work, Some(y), &self.k, state);
            }
            if s > 0 {
                rhs.eval(t + c * h, &self.work, &mut self.fwork);
            }
            let f = if s == 0 { f0 } else { &self.fwork[..] };
            sum_terms(&mut self.b, Some(f), &self.k, coupling);
            if !self.solve_stage(&solver, s) {
                return StepResult::Singular;
            }
        }
        // y₁ = (stage-6 state) + k₆, the stage-6 state being y + Σ a₅ⱼkⱼ + k₅ (in `work`).
        let (y1, f1) = (&mut out.y1, &mut out.f1);
        for ((y1i, w), k) in y1.iter_mut().zip(&self.work).zip(&self.k[5]) {
            *y1i = w + k;
        }
        rhs.eval(t + h, y1, f1);
        let err = ((0..n)
            .map(|i| {
                let scale = tol.atol + tol.rtol * y[i].abs().max(y1[i].abs());
                (self.k[5][i] / scale).powi(2)
            })
            .sum::<f64>()
            / n.max(1) as f64)
            .sqrt();
        StepResult::Computed { err }
    }

    /// The 3rd-order dense output (no further evaluations).
    fn dense(&mut self, _rhs: &mut impl Rhs, trial: &Trial<'_>, a: &Attempt, out: &mut DenseStep) {
        out.begin(trial.t, trial.h, trial.y);
        self.fill_dense(a, out);
    }

    fn next_step(&self, h: f64, err: f64, rejected_before: bool) -> f64 {
        CONTROLLER.next_step(h, err, rejected_before)
    }
}

#[cfg(test)]
mod tests {
    use super::super::step::Tolerances;
    use super::*;

    /// y'' = −y − 0.1 y' + sin(2t) as a first-order system (non-autonomous, so the ∂f/∂t
    /// terms matter); reference from DOP853 at 1e-14.
    fn forced(t: f64, y: &[f64], dy: &mut [f64]) {
        dy[0] = y[1];
        dy[1] = -y[0] - 0.1 * y[1] + (2.0 * t).sin();
    }

    /// The end state after `steps` fixed steps over [0, 2] of `f` from (1, 0), and the largest
    /// dense-output error at θ = 0.37 against `exact` where one is given.
    fn fixed_step(
        f: &mut impl Rhs,
        steps: usize,
        exact: Option<fn(f64) -> f64>,
    ) -> (Vec<f64>, f64) {
        let tol = Tolerances {
            rtol: 1e-6,
            atol: 1e-6,
            max_step: 1.0,
        };
        let mut ros = Rodas::new(2);
        let (mut t, mut y) = (0.0, vec![1.0, 0.0]);
        let h = 2.0 / steps as f64;
        let mut dense_err: f64 = 0.0;
        let (mut a, mut d) = (Attempt::new(2), DenseStep::new(2));
        for _ in 0..steps {
            let mut f0 = vec![0.0; 2];
            f.eval(t, &y, &mut f0);
            let trial = Trial {
                t,
                y: &y,
                f0: &f0,
                h,
                tol: &tol,
            };
            assert_ne!(ros.attempt(f, &trial, &mut a), StepResult::Singular);
            ros.dense(f, &trial, &a, &mut d);
            assert!(
                (d.eval(t + h)[0] - a.y1[0]).abs() < 1e-15,
                "dense output ends at y1"
            );
            if let Some(x) = exact {
                let tm = t + 0.37 * h;
                dense_err = dense_err.max((d.eval(tm)[0] - x(tm)).abs());
            }
            y.copy_from_slice(&a.y1);
            t += h;
        }
        (y, dense_err)
    }

    #[test]
    fn third_order_dense_output() {
        let mut oscillator = |_t: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -y[0];
        };
        let (_, d1) = fixed_step(&mut oscillator, 20, Some(f64::cos));
        let (_, d2) = fixed_step(&mut oscillator, 40, Some(f64::cos));
        let order = (d1 / d2).log2();
        assert!(order > 3.5, "observed dense order {order} ({d1:e}, {d2:e})");
    }

    #[test]
    fn fourth_order_steps() {
        let exact = {
            let mut rk = super::super::dop853::Dop853::new(2);
            let tol = Tolerances {
                rtol: 1e-14,
                atol: 1e-14,
                max_step: 1.0,
            };
            let (mut t, mut y) = (0.0, vec![1.0, 0.0]);
            let h = 2.0 / 400.0;
            let mut a = Attempt::new(2);
            for _ in 0..400 {
                let mut f0 = vec![0.0; 2];
                forced(t, &y, &mut f0);
                let trial = Trial {
                    t,
                    y: &y,
                    f0: &f0,
                    h,
                    tol: &tol,
                };
                rk.attempt(&mut forced, &trial, &mut a);
                y.copy_from_slice(&a.y1);
                t += h;
            }
            y
        };
        let err = |n: usize| {
            let (y, _) = fixed_step(&mut forced, n, None);
            (y[0] - exact[0]).abs().max((y[1] - exact[1]).abs())
        };
        let (e1, e2) = (err(20), err(40));
        // Halving h divides the error by 2⁴ = 16 (order 4); 20 % slack for the asymptotics.
        let order = (e1 / e2).log2();
        assert!(
            order > 3.5,
            "observed order {order} (errors {e1:e}, {e2:e})"
        );
    }

    #[test]
    fn stiff_decay_is_stable_at_steps_far_beyond_the_explicit_limit() {
        // y' = −1e6 (y − cos t): explicit methods need h < ~3e-6; RODAS takes h = 0.1.
        let mut f = |t: f64, y: &[f64], dy: &mut [f64]| dy[0] = -1e6 * (y[0] - t.cos());
        let tol = Tolerances {
            rtol: 1e-6,
            atol: 1e-6,
            max_step: 1.0,
        };
        let mut ros = Rodas::new(1);
        let (mut t, mut y) = (0.0, vec![0.0]);
        let mut a = Attempt::new(1);
        for _ in 0..10 {
            let mut f0 = vec![0.0];
            f(t, &y, &mut f0);
            let trial = Trial {
                t,
                y: &y,
                f0: &f0,
                h: 0.1,
                tol: &tol,
            };
            assert_ne!(ros.attempt(&mut f, &trial, &mut a), StepResult::Singular);
            y.copy_from_slice(&a.y1);
            t += 0.1;
        }
        // The solution follows cos t + O(1e-6 sin t).
        assert!((y[0] - t.cos()).abs() < 1e-5, "{} vs {}", y[0], t.cos());
    }
}
