//! The dense output of one accepted step in DOP853's nested form, shared by both methods
//! (RODAS fills the first three coefficients only): evaluation at a time inside the step, and
//! the monomial coefficients of a linear combination of the state, on which the event search
//! isolates its roots (`roots/`).
//!
//! # References
//! Hairer, Nørsett and Wanner, *Solving Ordinary Differential Equations I*, 2nd ed., Springer
//! 1993, Sect. II.6 (dense output) and II.10 (DOP853's continuous extension).

/// The continuous extension over one accepted step `[t0, t0 + h]`:
/// `y(t0 + θh) = y0 + θ(F0 + (1−θ)(F1 + θ(F2 + (1−θ)(F3 + θ(F4 + (1−θ)(F5 + θ F6))))))`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DenseStep {
    pub(crate) t0: f64,
    pub(crate) h: f64,
    pub(crate) y0: Vec<f64>,
    /// The seven coefficient vectors F0 … F6.
    pub(crate) f: [Vec<f64>; 7],
}

impl DenseStep {
    /// Storage for the steps of an `n`-state system, filled by the methods' `dense`.
    pub(crate) fn new(n: usize) -> DenseStep {
        DenseStep {
            t0: 0.0,
            h: 0.0,
            y0: vec![0.0; n],
            f: std::array::from_fn(|_| vec![0.0; n]),
        }
    }

    /// Starts the step from `(t0, y0)` over `h`, the coefficients left as they are (one
    /// buffer serves every step of an integration; the methods overwrite all seven when
    /// asked).
    pub(super) fn begin(&mut self, t0: f64, h: f64, y0: &[f64]) {
        self.t0 = t0;
        self.h = h;
        self.y0.copy_from_slice(y0);
    }

    pub(crate) fn t1(&self) -> f64 {
        self.t0 + self.h
    }

    /// The state at time `t` (inside the step) into `out`.
    pub(crate) fn eval_into(&self, t: f64, out: &mut [f64]) {
        let x = (t - self.t0) / self.h;
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.component_at(i, x);
        }
    }

    pub(crate) fn eval(&self, t: f64) -> Vec<f64> {
        let mut out = vec![0.0; self.y0.len()];
        self.eval_into(t, &mut out);
        out
    }

    /// Component `i` at the normalised time `x = (t − t0)/h`.
    pub(crate) fn component_at(&self, i: usize, x: f64) -> f64 {
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
    pub(crate) fn linear_poly(&self, w: &[(usize, f64)], c: f64) -> [f64; 8] {
        linear_poly_of(w, c, &self.y0, |k, i| self.f[k][i])
    }
}

/// `DenseStep::linear_poly` with the coefficient `F_k[i]` given by `coef_at(k, i)`: a method
/// that can give the few components an event function reads without building the seven
/// vectors gets the same polynomial, bit for bit.
pub(super) fn linear_poly_of(
    w: &[(usize, f64)],
    c: f64,
    y0: &[f64],
    coef_at: impl Fn(usize, usize) -> f64,
) -> [f64; 8] {
    let coef = |k: usize| -> f64 { w.iter().map(|&(i, wi)| wi * coef_at(k, i)).sum() };
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
    p[0] += c + w.iter().map(|&(i, wi)| wi * y0[i]).sum::<f64>();
    p
}
