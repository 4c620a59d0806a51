//! One step of DOP853 (Dormand–Prince 8(5,3)) with its error norm and its 7th-order dense
//! output (the `OneStep` interface), its step-size controller and Hairer's initial-step
//! heuristic.
//!
//! The error norm combines the 5th- and 3rd-order estimators as Hairer's code does:
//! `err = |h| ‖e5‖² / √(‖e5‖² + 0.01 ‖e3‖²)` with each component scaled by
//! `atol + rtol · max(|y₀|, |y₁|)`, RMS over the components.
//!
//! # References
//! Hairer, Nørsett and Wanner, *Solving Ordinary Differential Equations I*, 2nd ed., Springer
//! 1993, Sect. II.4 (step-size control, eq. 4.12–4.13) and II.10 (DOP853).

use super::dense::DenseStep;
use super::step::{Attempt, Controller, OneStep, Rhs, StepResult, Trial};
use super::tableau::{A, B, C, D, E3, E5, STAGES, STAGES_EXTENDED};

/// Kept at its old path: callers configure the integration with `dop853::Tolerances`.
pub use super::step::Tolerances;

/// Hairer's controller for DOP853: exponent 1/8 (error estimate of order 7), the step
/// shrinks at most to 0.333 and grows at most sixfold from one step to the next.
pub(crate) const CONTROLLER: Controller = Controller {
    exponent: 1.0 / 8.0,
    shrink: 0.333,
    grow: 6.0,
};

/// Scaled RMS norm of `y₀` or `f₀` below which the starting-step heuristic has no scale to
/// work from and probes with `FALLBACK_START_STEP` (dimensionless).
const NEGLIGIBLE_START_NORM: f64 = 1e-5;
/// The probe step when `y₀` or `f₀` is negligible, and the floor of the starting step when
/// the derivatives are (s).
const FALLBACK_START_STEP: f64 = 1e-6;
/// Fraction of the tolerance the starting step aims at: the probe moves `y` by 1 % of its
/// scale, and the start keeps the estimated local error near 1 % of the tolerance
/// (dimensionless).
const START_FRACTION: f64 = 0.01;
/// Scaled norm of `f₀` (1/s) and of the probe's second-derivative estimate (1/s²) below
/// which both count as zero: Hairer's test compares their maximum with it.
const NEGLIGIBLE_START_DERIVATIVES: f64 = 1e-15;
/// Factor on the probe step when the derivatives are negligible (dimensionless).
const FALLBACK_PROBE_SHRINK: f64 = 1e-3;
/// Largest ratio of the starting step to the probe step (dimensionless).
const MAX_START_GROWTH: f64 = 100.0;

/// Vectors up to this length are summed by `short_sum` (the same operations in the same
/// order): the grouped sweeps' set-up costs more than they save on small models.
const SHORT_SUM_LEN: usize = 16;

/// Components per block of the step's end sums (y₁ and the two error estimators): the
/// blocks of the eight stages they read, 8 × 1 KiB, stay in the first-level cache.
const ESTIMATOR_BLOCK: usize = 128;

/// Reusable stage storage for one system size (no allocation per stage).
pub(crate) struct Dop853 {
    n: usize,
    work: Vec<f64>,
    /// Stage derivatives k₁ … k₁₆ of the latest attempt (k₁₃ = f(t + h, y₁)).
    k: Vec<Vec<f64>>,
    /// The 5th- and 3rd-order error estimators `Σ E5_s k_s`, `Σ E3_s k_s` of the latest
    /// attempt (before scaling), one block of components at a time.
    e5: Vec<f64>,
    e3: Vec<f64>,
}

/// `out = base + Σ_j c_j k_j` (`base` 0 when `None`) over whole vectors, skipping the zero
/// coefficients: each component gets `((base + c₀k₀) + c₁k₁) + …`, the same terms in the
/// same order as the component-wise sum of Hairer's code, but in contiguous (vectorised)
/// sweeps of up to four terms each, the base read in the first one, so that `out` is stored
/// once per four terms. The stage sums are most of a step's arithmetic on large models.
pub(super) fn sum_terms(
    out: &mut [f64],
    base: Option<&[f64]>,
    k: &[Vec<f64>],
    coef: impl IntoIterator<Item = f64>,
) {
    sum_terms_at(out, base, k, 0, coef);
}

/// `sum_terms` on the components `lo .. lo + out.len()` of the `k_j` (`base` is that block).
fn sum_terms_at(
    out: &mut [f64],
    base: Option<&[f64]>,
    k: &[Vec<f64>],
    lo: usize,
    coef: impl IntoIterator<Item = f64>,
) {
    let hi = lo + out.len();
    let mut terms: [(f64, &[f64]); STAGES_EXTENDED] = [(0.0, &[]); STAGES_EXTENDED];
    let mut m = 0;
    for (kj, c) in k.iter().zip(coef) {
        if c != 0.0 {
            terms[m] = (c, &kj[lo..hi]);
            m += 1;
        }
    }
    if out.len() <= SHORT_SUM_LEN {
        short_sum(out, base, &terms[..m]);
        return;
    }
    let mut groups = terms[..m].chunks(4);
    match (base, groups.next()) {
        (Some(b), Some(first)) => sweep(out, Start::From(b), first),
        (Some(b), None) => out.copy_from_slice(b),
        (None, Some(first)) => sweep(out, Start::Zero, first),
        (None, None) => out.fill(0.0),
    }
    for group in groups {
        sweep(out, Start::Accumulate, group);
    }
}

/// `sum_terms` for a few components: the base copied, then four terms per pass and the rest
/// one per pass (the same operations in the same order; fewer branches per pass than the
/// grouped sweeps, which pays on small models).
fn short_sum(out: &mut [f64], base: Option<&[f64]>, terms: &[(f64, &[f64])]) {
    let mut rest = terms;
    match (base, rest.split_first()) {
        (Some(b), _) => out.copy_from_slice(b),
        (None, Some(((c, kj), tail))) => {
            for (o, v) in out.iter_mut().zip(*kj) {
                *o = c * v;
            }
            rest = tail;
        }
        (None, None) => out.fill(0.0),
    }
    let mut quads = rest.chunks_exact(4);
    for q in &mut quads {
        let ((c0, k0), (c1, k1), (c2, k2), (c3, k3)) = (q[0], q[1], q[2], q[3]);
        for ((((o, a), b), c), d) in out.iter_mut().zip(k0).zip(k1).zip(k2).zip(k3) {
            *o = *o + c0 * a + c1 * b + c2 * c + c3 * d;
        }
    }
    for &(c, kj) in quads.remainder() {
        for (o, v) in out.iter_mut().zip(kj) {
            *o += c * v;
        }
    }
}

/// What the first term of a `sweep` is added to.
#[derive(Clone, Copy)]
enum Start<'a> {
    /// Nothing: the sum starts with the first product.
    Zero,
    /// This vector.
    From(&'a [f64]),
    /// The current `out`.
    Accumulate,
}

/// `out = start + c₀k₀ + c₁k₁ + …` (left to right) for one to four terms, in one pass.
fn sweep(out: &mut [f64], start: Start<'_>, terms: &[(f64, &[f64])]) {
    match terms {
        [(c0, k0)] => sweep_n(out, start, [*c0], [*k0]),
        [(c0, k0), (c1, k1)] => sweep_n(out, start, [*c0, *c1], [*k0, *k1]),
        [(c0, k0), (c1, k1), (c2, k2)] => {
            sweep_n(out, start, [*c0, *c1, *c2], [*k0, *k1, *k2]);
        }
        [(c0, k0), (c1, k1), (c2, k2), (c3, k3)] => {
            sweep_n(out, start, [*c0, *c1, *c2, *c3], [*k0, *k1, *k2, *k3]);
        }
        _ => unreachable!("a sweep adds one to four terms"),
    }
}

/// `sweep` for `T` terms (unrolled by the compiler).
#[inline(always)]
fn sweep_n<const T: usize>(out: &mut [f64], start: Start<'_>, c: [f64; T], k: [&[f64]; T]) {
    let n = out.len();
    let k = k.map(|kj| &kj[..n]);
    let rest = |i: usize, first: f64| (1..T).fold(first, |acc, j| acc + c[j] * k[j][i]);
    match start {
        Start::Zero => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = rest(i, c[0] * k[0][i]);
            }
        }
        Start::From(b) => {
            let b = &b[..n];
            for (i, o) in out.iter_mut().enumerate() {
                *o = rest(i, b[i] + c[0] * k[0][i]);
            }
        }
        Start::Accumulate => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = rest(i, *o + c[0] * k[0][i]);
            }
        }
    }
}

impl Dop853 {
    pub(crate) fn new(n: usize) -> Dop853 {
        Dop853 {
            n,
            work: vec![0.0; n],
            k: vec![vec![0.0; n]; STAGES_EXTENDED],
            e5: vec![0.0; n.min(ESTIMATOR_BLOCK)],
            e3: vec![0.0; n.min(ESTIMATOR_BLOCK)],
        }
    }

    /// Hairer's stiffness indicator of the attempt just made: `h·ρ` with `ρ` the Lipschitz
    /// estimate `‖f(t+h, y₁) − f(t+h, Y₁₂)‖ / ‖y₁ − Y₁₂‖` between the solution and the last
    /// stage (both at `t + h`). Steps limited by stability rather than accuracy have `h·ρ`
    /// near the edge of DOP853's stability region (≈ 6.1 on the real axis); call it before
    /// `dense`, which overwrites the stage state.
    pub(crate) fn stiffness(&self, h: f64, y1: &[f64]) -> f64 {
        let (last, f1) = (&self.k[STAGES - 1], &self.k[STAGES]);
        let num: f64 = f1.iter().zip(last).map(|(a, b)| (a - b).powi(2)).sum();
        let den: f64 = y1
            .iter()
            .zip(&self.work)
            .map(|(a, b)| (a - b).powi(2))
            .sum();
        if den > 0.0 {
            h.abs() * (num / den).sqrt()
        } else {
            0.0
        }
    }
}

/// The dense output in two parts, so that a step whose interpolant is read only along a few
/// event functions builds no coefficient vectors: the three extra stages (`extra_stages`,
/// the evaluations), then either the seven vectors `F0 … F6` (`fill_dense`) or the
/// polynomial of one linear combination of the state from the stages directly
/// (`linear_poly`), equal bit for bit to the one read from the filled vectors.
impl Dop853 {
    /// The three extra stages k₁₄ … k₁₆ of the continuous extension of the attempt just made
    /// from `trial` (three evaluations); call it after `stiffness`, which reads the stage
    /// state it overwrites.
    pub(crate) fn extra_stages(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>) {
        self.stages(rhs, trial, STAGES + 1..C.len());
    }

    /// The stages `range` of the tableau from `trial`: each stage state `y + h Σ a_sj k_j`,
    /// then `k_s` there.
    fn stages(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, range: std::ops::Range<usize>) {
        let (t, y, h) = (trial.t, trial.y, trial.h);
        for s in range {
            sum_terms(
                &mut self.work,
                Some(y),
                &self.k[..s],
                A[s].iter().map(|a| h * a),
            );
            rhs.eval(t + C[s] * h, &self.work, &mut self.k[s]);
        }
    }

    /// The coefficient vectors `F0 … F6` of the step `out` (begun from its start state over
    /// its size) whose attempt gave `a`, after `extra_stages`.
    pub(crate) fn fill_dense(&self, a: &Attempt, out: &mut DenseStep) {
        let h = out.h;
        let f0 = &self.k[0];
        let (y, f) = (&out.y0, &mut out.f);
        for i in 0..self.n {
            let dy = a.y1[i] - y[i];
            f[0][i] = dy;
            f[1][i] = h * f0[i] - dy;
            f[2][i] = 2.0 * dy - h * (a.f1[i] + f0[i]);
        }
        for (fr, drow) in f[3..].iter_mut().zip(&D) {
            sum_terms(fr, None, &self.k, drow.iter().copied());
            for v in fr.iter_mut() {
                *v *= h;
            }
        }
    }

    /// `DenseStep::linear_poly` of the step `out` (begun, not filled) whose attempt gave `a`,
    /// after `extra_stages`: each coefficient `F_k[i]` it reads is computed alone, with the
    /// operations of `fill_dense` in the same order.
    pub(crate) fn linear_poly(
        &self,
        a: &Attempt,
        out: &DenseStep,
        w: &[(usize, f64)],
        c: f64,
    ) -> [f64; 8] {
        let (h, y) = (out.h, &out.y0);
        let coef_at = |k: usize, i: usize| -> f64 {
            let f0 = self.k[0][i];
            let dy = a.y1[i] - y[i];
            match k {
                0 => dy,
                1 => h * f0 - dy,
                2 => 2.0 * dy - h * (a.f1[i] + f0),
                _ => {
                    // `sum_terms` without a base: the first nonzero term, then the others.
                    let mut terms = self
                        .k
                        .iter()
                        .zip(D[k - 3])
                        .filter(|(_, d)| *d != 0.0)
                        .map(|(kj, d)| d * kj[i]);
                    let first = terms.next().unwrap_or(0.0);
                    terms.fold(first, |acc, v| acc + v) * h
                }
            }
        };
        super::dense::linear_poly_of(w, c, y, coef_at)
    }
}

impl OneStep for Dop853 {
    /// One trial step (12 evaluations); never singular.
    fn attempt(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, out: &mut Attempt) -> StepResult {
        let (n, t, y, h, tol) = (self.n, trial.t, trial.y, trial.h, trial.tol);
        self.k[0].copy_from_slice(trial.f0);
        self.stages(rhs, trial, 1..STAGES);
        // y₁ and the two error estimators read the same eight stages (neither estimator
        // weighs k₁₃ = f(t + h, y₁): `estimators_skip_the_last_stage`), so they are summed
        // together block by block while those stages' blocks are in the cache; the error
        // norm (Hairer's DOP853: err5² / √(err5² + 0.01 err3²), RMS, times |h|) is summed
        // in component order.
        let y1 = &mut out.y1;
        let (mut e5, mut e3) = (0.0, 0.0);
        for lo in (0..n).step_by(ESTIMATOR_BLOCK) {
            let hi = (lo + ESTIMATOR_BLOCK).min(n);
            let (y1b, yb) = (&mut y1[lo..hi], &y[lo..hi]);
            let (e5b, e3b) = (&mut self.e5[..hi - lo], &mut self.e3[..hi - lo]);
            let stages = &self.k[..STAGES];
            sum_terms_at(y1b, None, stages, lo, B);
            for (y1i, yi) in y1b.iter_mut().zip(yb) {
                *y1i = yi + h * *y1i;
            }
            sum_terms_at(e5b, None, stages, lo, E5);
            sum_terms_at(e3b, None, stages, lo, E3);
            for (((y0i, y1i), a), b) in yb.iter().zip(y1b.iter()).zip(e5b.iter()).zip(e3b.iter()) {
                let scale = tol.atol + tol.rtol * y0i.abs().max(y1i.abs());
                let (a, b) = (a / scale, b / scale);
                e5 += a * a;
                e3 += b * b;
            }
        }
        rhs.eval(t + h, y1, &mut out.f1);
        self.k[STAGES].copy_from_slice(&out.f1);
        let err = if e5 == 0.0 && e3 == 0.0 {
            0.0
        } else {
            h.abs() * e5 / ((e5 + 0.01 * e3) * n as f64).sqrt()
        };
        StepResult::Computed { err }
    }

    /// The 7th-order dense output (three more evaluations).
    fn dense(&mut self, rhs: &mut impl Rhs, trial: &Trial<'_>, a: &Attempt, out: &mut DenseStep) {
        self.extra_stages(rhs, trial);
        out.begin(trial.t, trial.h, trial.y);
        self.fill_dense(a, out);
    }

    fn next_step(&self, h: f64, err: f64, rejected_before: bool) -> f64 {
        CONTROLLER.next_step(h, err, rejected_before)
    }
}

/// Hairer's starting step: from ‖y‖, ‖f‖ and one explicit Euler probe (HNW I, Sect. II.4).
pub(crate) fn initial_step(
    rhs: &mut impl Rhs,
    t: f64,
    y: &[f64],
    f0: &[f64],
    tol: &Tolerances,
) -> f64 {
    let n = y.len().max(1) as f64;
    let scale = |i: usize, v: f64| tol.atol + tol.rtol * v.abs().max(y[i].abs());
    let d0 = (y
        .iter()
        .enumerate()
        .map(|(i, v)| (v / scale(i, *v)).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    let d1 = (f0
        .iter()
        .enumerate()
        .map(|(i, v)| (v / scale(i, y[i])).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    let h0 = if d0 < NEGLIGIBLE_START_NORM || d1 < NEGLIGIBLE_START_NORM {
        FALLBACK_START_STEP
    } else {
        START_FRACTION * d0 / d1
    };
    let h0 = h0.min(tol.max_step);
    let y1: Vec<f64> = y.iter().zip(f0).map(|(a, b)| a + h0 * b).collect();
    let mut f1 = vec![0.0; y.len()];
    rhs.eval(t + h0, &y1, &mut f1);
    let d2 = (f1
        .iter()
        .zip(f0)
        .enumerate()
        .map(|(i, (a, b))| ((a - b) / scale(i, y[i])).powi(2))
        .sum::<f64>()
        / n)
        .sqrt()
        / h0;
    let h1 = if d1.max(d2) <= NEGLIGIBLE_START_DERIVATIVES {
        (h0 * FALLBACK_PROBE_SHRINK).max(FALLBACK_START_STEP)
    } else {
        (START_FRACTION / d1.max(d2)).powf(CONTROLLER.exponent)
    };
    (MAX_START_GROWTH * h0).min(h1).min(tol.max_step)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y'' = −y as a first-order system; exact solution (cos t, −sin t).
    fn oscillator(_t: f64, y: &[f64], dy: &mut [f64]) {
        dy[0] = y[1];
        dy[1] = -y[0];
    }

    fn fixed_step_error(steps: usize) -> (f64, f64) {
        let tol = Tolerances {
            rtol: 1e-6,
            atol: 1e-6,
            max_step: 1.0,
        };
        let mut rk = Dop853::new(2);
        let mut rhs = oscillator;
        let (mut t, mut y) = (0.0, vec![1.0, 0.0]);
        let h = 2.0 / steps as f64;
        let mut dense_err: f64 = 0.0;
        let (mut a, mut d) = (Attempt::new(2), DenseStep::new(2));
        for _ in 0..steps {
            let mut f0 = vec![0.0; 2];
            rhs(t, &y, &mut f0);
            let trial = Trial {
                t,
                y: &y,
                f0: &f0,
                h,
                tol: &tol,
            };
            rk.attempt(&mut rhs, &trial, &mut a);
            rk.dense(&mut rhs, &trial, &a, &mut d);
            // Dense output at a mid-step point against the exact solution.
            let tm = t + 0.37 * h;
            dense_err = dense_err.max((d.eval(tm)[0] - tm.cos()).abs());
            let p = d.linear_poly(&[(0, 1.0)], 0.0);
            let x: f64 = 0.37;
            let via_poly: f64 = p.iter().rev().fold(0.0, |acc, c| acc * x + c);
            assert!(
                (via_poly - d.component_at(0, x)).abs() < 1e-14,
                "monomial form agrees with the nested form"
            );
            y.copy_from_slice(&a.y1);
            t += h;
        }
        (
            (y[0] - t.cos()).abs().max((y[1] + t.sin()).abs()),
            dense_err,
        )
    }

    /// The error estimators weigh only the stages y₁ does: `attempt` sums all three before
    /// evaluating k₁₃ = f(t + h, y₁).
    #[test]
    fn estimators_skip_the_last_stage() {
        assert_eq!((E5[STAGES], E3[STAGES]), (0.0, 0.0));
        for s in 0..STAGES {
            assert_eq!(B[s] == 0.0, E5[s] == 0.0, "stage {s}");
            assert_eq!(B[s] == 0.0, E3[s] == 0.0, "stage {s}");
        }
    }

    /// The whole-vector stage sums give the component-wise sums of Hairer's code bit for
    /// bit (same terms, same order), with and without a base, over a tableau row with zeros.
    #[test]
    fn stage_sums_equal_the_componentwise_sums() {
        // Short vectors (`short_sum`) and long ones (the grouped sweeps).
        for n in [9, 301] {
            stage_sums_of_length(n);
        }
    }

    fn stage_sums_of_length(n: usize) {
        let k: Vec<Vec<f64>> = (0..STAGES_EXTENDED)
            .map(|s| (0..n).map(|i| ((s * n + i) as f64 * 0.37).sin()).collect())
            .collect();
        let y: Vec<f64> = (0..n).map(|i| (i as f64).cos()).collect();
        let mut out = vec![0.0; n];
        for row in [&D[0][..], &E5[..], &A[9][..]] {
            let terms = row.len();
            sum_terms(&mut out, None, &k[..terms], row.iter().copied());
            for (i, o) in out.iter().enumerate() {
                let want: f64 = (0..terms).map(|s| row[s] * k[s][i]).sum();
                assert_eq!(*o, want, "component {i}");
            }
            sum_terms(&mut out, Some(&y), &k[..terms], row.iter().copied());
            for (i, o) in out.iter().enumerate() {
                let want = (0..terms)
                    .filter(|&s| row[s] != 0.0)
                    .fold(y[i], |acc, s| acc + row[s] * k[s][i]);
                assert_eq!(*o, want, "component {i} with base");
            }
        }
    }

    /// An event function's polynomial read from the stages equals, bit for bit, the one
    /// read from the filled coefficient vectors.
    #[test]
    fn event_polynomials_from_the_stages_equal_the_filled_ones() {
        let tol = Tolerances {
            rtol: 1e-6,
            atol: 1e-6,
            max_step: 1.0,
        };
        let mut rk = Dop853::new(2);
        let mut rhs = |t: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -y[0] - 0.3 * y[1] * y[1] + t.sin();
        };
        let (y, mut f0) = (vec![0.3, -1.1], vec![0.0; 2]);
        rhs(0.2, &y, &mut f0);
        let trial = Trial {
            t: 0.2,
            y: &y,
            f0: &f0,
            h: 0.37,
            tol: &tol,
        };
        let (mut a, mut d) = (Attempt::new(2), DenseStep::new(2));
        rk.attempt(&mut rhs, &trial, &mut a);
        rk.extra_stages(&mut rhs, &trial);
        d.begin(trial.t, trial.h, trial.y);
        let w = [(0, 1.0), (1, -0.7)];
        let from_stages = rk.linear_poly(&a, &d, &w, 0.05);
        rk.fill_dense(&a, &mut d);
        assert_eq!(from_stages, d.linear_poly(&w, 0.05));
    }

    #[test]
    fn eighth_order_steps_and_seventh_order_dense_output() {
        let (e1, d1) = fixed_step_error(10);
        let (e2, d2) = fixed_step_error(20);
        // Halving h divides the global error by 2⁸ = 256 (order 8) and the dense-output
        // error by at least 2⁷ = 128 (order 7); we allow 20 % slack for the asymptotics.
        let order = (e1 / e2).log2();
        let dense_order = (d1 / d2).log2();
        assert!(
            order > 7.6,
            "observed order {order} (errors {e1:e}, {e2:e})"
        );
        assert!(
            dense_order > 6.6,
            "observed dense order {dense_order} (errors {d1:e}, {d2:e})"
        );
    }
}
