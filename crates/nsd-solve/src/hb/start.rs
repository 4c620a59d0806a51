//! Where a harmonic-balance branch starts: Newton at a fixed frequency (`cont::newton`) from
//! one of three guesses — the linear part alone (`free_guess`), the response linearised at
//! rest (`linear_guess`) or the harmonic ramp (`ramped_guess`), which adds one harmonic at a
//! time so that a higher harmonic near a resonance of the contact-stiffened system cannot
//! throw the first Newton step of the full balance far away.

use super::tolerances::RAMP_RESIDUAL_TOL;
use super::{Balance, HbError};
use crate::cont::{self, NEWTON_MAX_ITERATIONS};
use nalgebra::{DMatrix, DVector};

impl Balance {
    /// Newton's method with backtracking from `q` at fixed ω (`cont::newton`), to
    /// `|R| ≤ tol · max(|F_ex|, 1)`; returns the solution and the iterations taken.
    pub fn solve(
        &self,
        q: DVector<f64>,
        omega: f64,
        tol: f64,
    ) -> Result<(DVector<f64>, usize), HbError> {
        cont::newton(self, q.clone(), omega, tol * self.residual_scale()).ok_or_else(|| {
            HbError::NoConvergence {
                iterations: NEWTON_MAX_ITERATIONS,
                residual: self.residual(&q, omega).norm(),
            }
        })
    }

    /// The scale the Newton tolerances are relative to, `max(|F_ex|, 1)`.
    fn residual_scale(&self) -> f64 {
        self.excitation().norm().max(1.0)
    }

    /// The response of the linear part alone (nonlinear forces ignored: gaps open, friction
    /// contacts free): the guess for strongly driven contacts.
    pub fn free_guess(&self, omega: f64) -> DVector<f64> {
        self.dynamic_stiffness(omega)
            .lu()
            .solve(&self.excitation())
            .unwrap_or_else(|| DVector::zeros(self.dim()))
    }

    /// The response linearised at rest — one Newton step from `Q = 0`, so open gaps are
    /// open and friction contacts stuck (their springs `k_t`, `k_n`): the default initial
    /// guess.
    pub fn linear_guess(&self, omega: f64) -> DVector<f64> {
        cont::linearised(self, omega)
    }

    /// The solution at ω reached harmonic by harmonic from `linear_guess`: Newton with
    /// backtracking on the first `h` harmonics (the others held at zero) for `h = 1 … H`,
    /// each from the previous solution. From a one-harmonic guess, the first Newton step of
    /// the full balance can be thrown far by a higher harmonic near a resonance of the
    /// contact-stiffened system (free-play with H ≥ 5); the ramp adds them one at a time.
    /// Where a stage does not converge, the last solution reached is returned (a guess).
    pub fn ramped_guess(&self, omega: f64) -> DVector<f64> {
        let mut q = self.linear_guess(omega);
        let tol = RAMP_RESIDUAL_TOL * self.residual_scale();
        for h in 1..=self.aft.harmonics {
            let leading = Leading {
                hb: self,
                len: (2 * h + 1) * self.n,
            };
            let start = q.rows(0, leading.len).into_owned();
            let size = start.amax();
            let solved = cont::newton(&leading, start, omega, tol)
                .map(|(x, _)| x)
                .or_else(|| self.by_level(&leading, omega, size));
            match solved {
                Some(x) => q.rows_mut(0, leading.len).copy_from(&x),
                None => break,
            }
        }
        q
    }

    /// A stage of the ramp where Newton from the last stage's solution stalls, by
    /// continuation in the excitation level at ω: from the constant loads alone (level 0,
    /// Newton from rest) to `self.level` by arclength, through any fold in the level, then
    /// Newton at the level from the secant between the two points around it; `size` (the
    /// stage's start) scales the unknowns. (The free-play pair at H = 25 and Ω = 1.1: Newton
    /// on its one-harmonic stage wandered at |R| = 7e-2 and converged at iteration 46 of 50,
    /// or not, as round-off went.)
    fn by_level(&self, leading: &Leading, omega: f64, size: f64) -> Option<DVector<f64>> {
        if self.level <= 0.0 {
            return None;
        }
        let homotopy = LevelHomotopy {
            leading,
            omega,
            loads: self.harmonic_excitation().rows(0, leading.len).into_owned(),
        };
        let tol = RAMP_RESIDUAL_TOL * self.residual_scale();
        let (rest, _) = cont::newton(&homotopy, DVector::zeros(leading.len), 0.0, tol)?;
        let settings = cont::Settings {
            tol: RAMP_RESIDUAL_TOL,
            scale: cont::Scale {
                x: size.max(f64::MIN_POSITIVE),
                p: self.level,
                r: self.residual_scale(),
            },
            ..super::frf::default_settings((0.0, self.level))
        };
        let points = cont::follow(&homotopy, rest, 0.0, &settings).ok()?.points;
        let past = points.iter().position(|pt| pt.p >= self.level)?;
        let (a, b) = (&points[past.checked_sub(1)?], &points[past]);
        let guess = &a.x + (&b.x - &a.x) * ((self.level - a.p) / (b.p - a.p));
        cont::newton(leading, guess, omega, tol).map(|(x, _)| x)
    }
}

/// A ramp stage at a fixed frequency with the excitation level as the parameter:
/// `R(x; λ) = R(x) + (level − λ) F_h`, `F_h` the harmonic loads at level 1 (the constant
/// loads are not scaled), for `Balance::by_level`.
struct LevelHomotopy<'a> {
    leading: &'a Leading<'a>,
    omega: f64,
    loads: DVector<f64>,
}

impl cont::Problem for LevelHomotopy<'_> {
    fn dim(&self) -> usize {
        self.leading.len
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let r = self.leading.residual(x, self.omega);
        r + &self.loads * (self.leading.hb.level - p)
    }

    fn jacobian(&self, x: &DVector<f64>, _p: f64) -> DMatrix<f64> {
        self.leading.jacobian(x, self.omega)
    }

    fn param_derivative(&self, _x: &DVector<f64>, _p: f64) -> DVector<f64> {
        -&self.loads
    }
}

/// The balance restricted to its leading harmonics (the unknowns beyond `len` zero, their
/// equations dropped), for `Balance::ramped_guess`.
struct Leading<'a> {
    hb: &'a Balance,
    len: usize,
}

impl Leading<'_> {
    /// The full coefficients: `x` followed by zeros for the harmonics left out.
    fn padded(&self, x: &DVector<f64>) -> DVector<f64> {
        let mut q = DVector::zeros(self.hb.dim());
        q.rows_mut(0, self.len).copy_from(x);
        q
    }
}

impl cont::Problem for Leading<'_> {
    fn dim(&self) -> usize {
        self.len
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.hb
            .residual(&self.padded(x), p)
            .rows(0, self.len)
            .into_owned()
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let j = self.hb.jacobian(&self.padded(x), p);
        j.view((0, 0), (self.len, self.len)).into_owned()
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let d = self.hb.apply(super::Operator::Rate, &self.padded(x), p);
        d.rows(0, self.len).into_owned()
    }
}
