//! One step of DOP853 (Dormand–Prince 8(5,3)) with its error norm and its 7th-order dense
//! output, plus the adaptive step-size controller and Hairer's initial-step heuristic.
//!
//! The error norm combines the 5th- and 3rd-order estimators as Hairer's code does:
//! `err = |h| ‖e5‖² / √(‖e5‖² + 0.01 ‖e3‖²)` with each component scaled by
//! `atol + rtol · max(|y₀|, |y₁|)`, RMS over the components.
//!
//! # References
//! Hairer, Nørsett and Wanner, *Solving Ordinary Differential Equations I*, 2nd ed., Springer
//! 1993, Sect. II.4 (step-size control, eq. 4.12–4.13) and II.10 (DOP853).

use super::tableau::{A, B, C, D, E3, E5, STAGES, STAGES_EXTENDED};

/// A right-hand side `y' = f(t, y)`.
pub trait Rhs {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]);
}

impl<F: FnMut(f64, &[f64], &mut [f64])> Rhs for F {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self(t, y, dy)
    }
}

/// The continuous extension over one accepted step `[t0, t0 + h]`:
/// `y(t0 + θh) = y0 + θ(F0 + (1−θ)(F1 + θ(F2 + (1−θ)(F3 + θ(F4 + (1−θ)(F5 + θ F6))))))`.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseStep {
    pub t0: f64,
    pub h: f64,
    pub y0: Vec<f64>,
    /// The seven coefficient vectors F0 … F6.
    pub f: [Vec<f64>; 7],
}

impl DenseStep {
    /// Storage for the steps of an `n`-state system, filled by the methods' `dense`.
    pub fn new(n: usize) -> DenseStep {
        DenseStep {
            t0: 0.0,
            h: 0.0,
            y0: vec![0.0; n],
            f: std::array::from_fn(|_| vec![0.0; n]),
        }
    }

    /// Starts refilling for the step from `(t0, y0)` over `h`, all coefficients zero (one
    /// buffer serves every step of an integration: no allocation per step).
    pub(super) fn reset(&mut self, t0: f64, h: f64, y0: &[f64]) {
        self.t0 = t0;
        self.h = h;
        self.y0.copy_from_slice(y0);
        for f in &mut self.f {
            f.fill(0.0);
        }
    }

    pub fn t1(&self) -> f64 {
        self.t0 + self.h
    }

    /// The state at time `t` (inside the step) into `out`.
    pub fn eval_into(&self, t: f64, out: &mut [f64]) {
        let x = (t - self.t0) / self.h;
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.component_at(i, x);
        }
    }

    pub fn eval(&self, t: f64) -> Vec<f64> {
        let mut out = vec![0.0; self.y0.len()];
        self.eval_into(t, &mut out);
        out
    }

    /// Component `i` at the normalised time `x = (t − t0)/h`.
    pub fn component_at(&self, i: usize, x: f64) -> f64 {
        let mut y = 0.0;
        for (k, f) in self.f.iter().enumerate().rev() {
            y += f[i];
            // Coefficients alternate between the factors x and 1 − x, F6 first.
            y *= if (6 - k) % 2 == 0 { x } else { 1.0 - x };
        }
        self.y0[i] + y
    }

    /// Monomial coefficients `p[0] + p[1] x + … + p[7] x⁷` in `x = (t − t0)/h` of the linear
    /// combination `Σ w_i y_i(x) + c` (for event functions that are linear in the state).
    pub fn linear_poly(&self, w: &[(usize, f64)], c: f64) -> [f64; 8] {
        let coef = |k: usize| -> f64 { w.iter().map(|&(i, wi)| wi * self.f[k][i]).sum() };
        // Horner in polynomial arithmetic, innermost (F6) first, as in `component_at`.
        let mut p = [0.0; 8];
        for k in (0..7).rev() {
            p[0] += coef(k);
            let by_x = (6 - k) % 2 == 0;
            let mut q = [0.0; 8];
            for d in 0..7 {
                if by_x {
                    q[d + 1] += p[d];
                } else {
                    q[d] += p[d];
                    q[d + 1] -= p[d];
                }
            }
            p = q;
        }
        p[0] += c + w.iter().map(|&(i, wi)| wi * self.y0[i]).sum::<f64>();
        p
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

/// The result of one attempted step (one buffer reused for every attempt).
pub struct Attempt {
    pub y1: Vec<f64>,
    /// f(t + h, y1), reused as the next step's first stage when the step is accepted.
    pub f1: Vec<f64>,
    /// Scaled error norm; the step is acceptable when ≤ 1.
    pub err: f64,
}

impl Attempt {
    pub fn new(n: usize) -> Attempt {
        Attempt {
            y1: vec![0.0; n],
            f1: vec![0.0; n],
            err: f64::INFINITY,
        }
    }
}

/// Reusable stage storage for one system size (no allocation per stage).
pub struct Dop853 {
    n: usize,
    work: Vec<f64>,
    /// Stage derivatives k₁ … k₁₆ of the latest attempt (k₁₃ = f(t + h, y₁)).
    k: Vec<Vec<f64>>,
}

/// `work = y + h Σ_j a_sj k_j` (stage by stage over whole vectors, skipping the tableau's
/// zeros).
fn stage_state(k: &[Vec<f64>], work: &mut [f64], s: usize, y: &[f64], h: f64) {
    work.copy_from_slice(y);
    for (j, kj) in k.iter().enumerate().take(s) {
        let a = h * A[s][j];
        if a != 0.0 {
            for (w, kv) in work.iter_mut().zip(kj) {
                *w += a * kv;
            }
        }
    }
}

impl Dop853 {
    pub fn new(n: usize) -> Dop853 {
        Dop853 {
            n,
            work: vec![0.0; n],
            k: vec![vec![0.0; n]; STAGES_EXTENDED],
        }
    }

    /// One trial step of size `h` from `(t, y)` with `f0 = f(t, y)` (12 evaluations), into
    /// `out`.
    #[allow(clippy::too_many_arguments)]
    pub fn attempt(
        &mut self,
        rhs: &mut impl Rhs,
        t: f64,
        y: &[f64],
        f0: &[f64],
        h: f64,
        tol: &Tolerances,
        out: &mut Attempt,
    ) {
        let n = self.n;
        self.k[0].copy_from_slice(f0);
        for (s, c) in C.iter().enumerate().take(STAGES).skip(1) {
            stage_state(&self.k, &mut self.work, s, y, h);
            rhs.eval(t + c * h, &self.work, &mut self.k[s]);
        }
        let k = &self.k;
        let (y1, f1) = (&mut out.y1, &mut out.f1);
        for (i, y1i) in y1.iter_mut().enumerate() {
            *y1i = y[i] + h * (0..STAGES).map(|s| B[s] * k[s][i]).sum::<f64>();
        }
        rhs.eval(t + h, y1, f1);
        self.k[STAGES].copy_from_slice(f1);
        let k = &self.k;
        // Error norm (Hairer's DOP853: err5² / √(err5² + 0.01 err3²), RMS, times |h|).
        let (mut e5, mut e3) = (0.0, 0.0);
        for i in 0..n {
            let scale = tol.atol + tol.rtol * y[i].abs().max(y1[i].abs());
            let a: f64 = (0..=STAGES).map(|s| E5[s] * k[s][i]).sum::<f64>() / scale;
            let b: f64 = (0..=STAGES).map(|s| E3[s] * k[s][i]).sum::<f64>() / scale;
            e5 += a * a;
            e3 += b * b;
        }
        out.err = if e5 == 0.0 && e3 == 0.0 {
            0.0
        } else {
            h.abs() * e5 / ((e5 + 0.01 * e3) * n as f64).sqrt()
        };
    }

    /// Hairer's stiffness indicator of the attempt just made: `h·ρ` with `ρ` the Lipschitz
    /// estimate `‖f(t+h, y₁) − f(t+h, Y₁₂)‖ / ‖y₁ − Y₁₂‖` between the solution and the last
    /// stage (both at `t + h`). Steps limited by stability rather than accuracy have `h·ρ`
    /// near the edge of DOP853's stability region (≈ 6.1 on the real axis); call it before
    /// `dense`, which overwrites the stage state.
    pub fn stiffness(&self, h: f64, y1: &[f64]) -> f64 {
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

    /// The dense output of the attempt just made into `out` (three more evaluations); call
    /// it before the next `attempt`, which overwrites the stages.
    pub fn dense(
        &mut self,
        rhs: &mut impl Rhs,
        t: f64,
        y: &[f64],
        h: f64,
        a: &Attempt,
        out: &mut DenseStep,
    ) {
        let n = self.n;
        for (s, c) in C.iter().enumerate().skip(STAGES + 1) {
            stage_state(&self.k, &mut self.work, s, y, h);
            rhs.eval(t + c * h, &self.work, &mut self.k[s]);
        }
        let k = &self.k;
        let f0 = &k[0];
        out.reset(t, h, y);
        let f = &mut out.f;
        for i in 0..n {
            let dy = a.y1[i] - y[i];
            f[0][i] = dy;
            f[1][i] = h * f0[i] - dy;
            f[2][i] = 2.0 * dy - h * (a.f1[i] + f0[i]);
            for (r, drow) in D.iter().enumerate() {
                f[3 + r][i] = h * (0..STAGES_EXTENDED).map(|s| drow[s] * k[s][i]).sum::<f64>();
            }
        }
    }
}

/// The next step size after an attempt with error norm `err` (Hairer's controller with
/// exponent 1/8, safety 0.9, growth in [0.333, 6]; no growth right after a rejection).
pub fn next_step(h: f64, err: f64, rejected_before: bool) -> f64 {
    controlled(h, err, rejected_before, 1.0 / 8.0, (0.333, 6.0))
}

/// Hairer's step-size controller shared by the methods: `h · 0.9 err^(−exponent)` within
/// `limits`, the largest factor for a zero error, no growth right after a rejection.
pub(super) fn controlled(
    h: f64,
    err: f64,
    rejected_before: bool,
    exponent: f64,
    (shrink, grow): (f64, f64),
) -> f64 {
    let factor = if err == 0.0 {
        grow
    } else {
        (0.9 * err.powf(-exponent)).clamp(shrink, grow)
    };
    h * if rejected_before {
        factor.min(1.0)
    } else {
        factor
    }
}

/// Hairer's starting step: from ‖y‖, ‖f‖ and one explicit Euler probe (HNW I, Sect. II.4).
pub fn initial_step(rhs: &mut impl Rhs, t: f64, y: &[f64], f0: &[f64], tol: &Tolerances) -> f64 {
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
    let h0 = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
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
    let h1 = if d1.max(d2) <= 1e-15 {
        (h0 * 1e-3).max(1e-6)
    } else {
        (0.01 / d1.max(d2)).powf(1.0 / 8.0)
    };
    (100.0 * h0).min(h1).min(tol.max_step)
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
            rk.attempt(&mut rhs, t, &y, &f0, h, &tol, &mut a);
            rk.dense(&mut rhs, t, &y, h, &a, &mut d);
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
