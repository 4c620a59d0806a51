//! The friction contact element with normal load variation in the frequency domain (paper
//! 003, Sect. 4.1, after Yang and Petrov–Ewins): exact contact-state transition times,
//! Fourier coefficients integrated piecewise, and the analytic stiffness matrix.
//!
//! Given the harmonics `X`, `Y` (`[c₁, s₁, …, c_H, s_H]`) of the relative tangential and
//! normal displacements `x(τ)`, `y(τ)` over one period `τ = ωt ∈ [0, 2π)`, the forces are
//! (eqs. 24–25) `f_y = N₀ + k_y y` in contact (0 when separated) and `f_x = c + k_x x` stuck
//! (`c = f_x⁰ − k_x x₀` fixed at the onset of the stick), `ξ μ f_y` slipping (`ξ = ±1`), 0
//! separated. Transitions (eqs. 26–29): stick → slip where `c + k_x x = ±μ f_y`; slip → stick
//! where `ξ k_x ẋ − μ k_y ẏ` falls through zero; contact → separation where `f_y` falls
//! through zero; separation → stick where it rises again (with `f_x⁰ = 0`). The state is
//! marched over two periods from a stick at τ = 0 centred in the friction band (`centred_stick`);
//! any slip or separation in the first one erases that guess, so the second is the converged
//! hysteresis cycle. A cycle that never
//! slips is the stuck spring (its mean force, a static term, does not enter).
//!
//! Roots are isolated on a sampling of each transition function (32 points per harmonic and
//! period, every sign change found unless two roots lie closer than that) and refined to
//! round-off (Illinois regula falsi). The coefficients of each interval follow from the closed-form
//! integrals `W_j = (1/π)∫ H₊H₋ᵀ`, `w_j = (1/π)∫ H₊` (eqs. 30–36), and the stiffness from
//! eqs. 37–43. Since the forces are continuous at every transition, the interval limits'
//! own derivatives cancel between neighbours; what remains is the dependence of each stick
//! constant `c` on its onset: from slip, `∂c/∂X = −k_x H(τ)`, `∂c/∂Y = ξ μ k_y H(τ)` (eq. 41
//! with eq. 42, whose `∂τ` terms cancel because `ξ k_x ẋ = μ k_y ẏ` there); from separation,
//! `∂c/∂X = −k_x H(τ)`, `∂c/∂Y = k_x ẋ H(τ) / ẏ` (eqs. 41 and 43).
//!
//! The static component is not considered (as in the paper): `X`, `Y` hold harmonics 1…H only
//! and the element adds nothing to the mean. A Jenkins element is the special case `k_y = 0`,
//! `μ N₀ = F`, `Y = 0`.

use super::tolerances::{
    EXTREMUM_NEWTON_ITERATIONS, FRICTION_CELLS_PER_HARMONIC, TRANSITIONS_PER_HARMONIC,
    TRANSITION_SEARCH_OFFSET,
};
use super::transition::first_rise;
use super::trig::Trig;
use nalgebra::{DMatrix, DVector};
use std::cell::OnceCell;
use std::f64::consts::{PI, TAU};

/// Parameters of one contact: tangential and normal stiffness, friction coefficient, preload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FrictionContact {
    pub(crate) kx: f64,
    pub(crate) ky: f64,
    pub(crate) mu: f64,
    pub(crate) n0: f64,
}

/// The harmonics of the contact forces and their derivatives (eq. 37; `∂F_y/∂X = 0`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContactForces {
    pub(crate) fx: Vec<f64>,
    pub(crate) fy: Vec<f64>,
    pub(crate) dfx_dx: DMatrix<f64>,
    pub(crate) dfx_dy: DMatrix<f64>,
    pub(crate) dfy_dy: DMatrix<f64>,
}

/// How a stick phase began, for the derivative of its constant `c`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Onset {
    /// The initial guess, never released within the cycle: `c` is arbitrary (a mean term).
    Assumed,
    FromSlip {
        tau: f64,
        xi: f64,
    },
    FromSeparation {
        tau: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum State {
    Stick { c: f64, onset: Onset },
    Slip { xi: f64 },
    Separated,
}

/// The largest value over the period `[0, 2π)` of the smooth periodic `g` (`g(τ, order)`
/// its value and derivatives): the best point of a grid of spacing `step`, refined by
/// Newton's method on `g'` while it stays within a cell.
fn largest(g: &dyn Fn(f64, usize) -> f64, step: f64) -> f64 {
    let cells = (TAU / step).round() as usize;
    let best = (0..cells)
        .map(|i| i as f64 * step)
        .max_by(|a, b| g(*a, 0).total_cmp(&g(*b, 0)))
        .unwrap_or(0.0);
    let mut t = best;
    for _ in 0..EXTREMUM_NEWTON_ITERATIONS {
        let curvature = g(t, 2);
        if curvature >= 0.0 {
            break;
        }
        let next = t - g(t, 1) / curvature;
        if (next - best).abs() > step {
            break;
        }
        t = next;
    }
    g(t, 0).max(g(best, 0))
}

/// A converged cycle: `(start, end, state)` intervals covering `[2π, 4π]`.
pub(super) type Cycle = Vec<(f64, f64, State)>;

/// One contact's cycle at one displacement (kept by `cycles.rs`).
pub(super) struct Marched {
    /// The tangential and normal motions, tabulated on the search grid (`Trig::pair`).
    pub(crate) x: Trig,
    pub(crate) y: Trig,
    pub(crate) cycle: Cycle,
    /// The forces and their stiffness integrated over the cycle, once asked.
    pub(crate) forces: OnceCell<ContactForces>,
}

/// `H(τ) = [cos τ, sin τ, …, cos Hτ, sin Hτ]`.
pub(super) fn basis(h: usize, tau: f64) -> Vec<f64> {
    (1..=h)
        .flat_map(|k| {
            let (s, c) = (k as f64 * tau).sin_cos();
            [c, s]
        })
        .collect()
}

/// `W = (1/π)∫_a^b H Hᵀ` and `w = (1/π)∫_a^b H` (eq. 34): the harmonic part of
/// `aft::interval_gram` (`H` is its basis without the constant).
pub(super) fn interval_weights(h: usize, a: f64, b: f64) -> (DMatrix<f64>, Vec<f64>) {
    let gram = super::aft::interval_gram(h, a, b) / PI;
    let w = gram.view((1, 0), (2 * h, 1)).iter().copied().collect();
    (gram.view((1, 1), (2 * h, 2 * h)).into_owned(), w)
}

impl FrictionContact {
    /// `k_y y` (`order` 0) or its rate: nothing to evaluate for a constant load (Jenkins).
    fn load_change(&self, y: &Trig, tau: f64, order: usize) -> f64 {
        if self.ky == 0.0 {
            0.0
        } else {
            self.ky * y.at(tau, order)
        }
    }

    /// `N₀` for the value (`order` 0), nothing for a rate.
    fn constant(&self, order: usize) -> f64 {
        if order == 0 {
            self.n0
        } else {
            0.0
        }
    }

    /// The normal load `N₀ + k_y y`.
    fn normal(&self, y: &Trig, tau: f64) -> f64 {
        self.n0 + self.load_change(y, tau, 0)
    }

    /// The state entered at `tau` (a transition into contact or stick, or the initial one).
    /// At a touch-down the load starts from zero, so the contact sticks only if the
    /// tangential force it would take grows no faster than the friction limit
    /// (`|k_x ẋ| ≤ μ k_y ẏ`); otherwise it slides from the start.
    fn stick_from(&self, x: &Trig, y: &Trig, tau: f64, onset: Onset) -> State {
        if let Onset::FromSeparation { .. } = onset {
            let (rate, limit) = (
                self.kx * x.at(tau, 1),
                self.mu * self.load_change(y, tau, 1),
            );
            if rate.abs() > limit {
                return State::Slip { xi: rate.signum() };
            }
        }
        let f0 = match onset {
            Onset::FromSlip { xi, .. } => xi * self.mu * self.normal(y, tau),
            _ => 0.0,
        };
        State::Stick {
            c: f0 - self.kx * x.at(tau, 0),
            onset,
        }
    }

    /// The initial stick constant `c`: the middle of the constants whose stuck force
    /// `c + k_x x` stays within `±μ f_y` over the whole period, `[max(−μ f_y − k_x x),
    /// min(μ f_y − k_x x)]` (extrema on the search grid of spacing `step`, refined by Newton
    /// on the rate). Below the onset of slip the cycle is then the stuck one with margin on
    /// both sides, the limit of a mode grown from rest; a stick assumed with zero force at
    /// τ = 0 slipped in the first period once `k_x (max x − min x) > μ f_y` and left the
    /// second touching the limit exactly at its extremum, where round-off decided between
    /// stick and a sliver of slip (the dNNM of a Jenkins oscillator stalled there at H = 3).
    /// Where no constant fits, the first period slips and erases the guess.
    fn centred_stick(&self, x: &Trig, y: &Trig, step: f64) -> f64 {
        let limit = |t: f64, o: usize| self.mu * (self.load_change(y, t, o) + self.constant(o));
        let kx = self.kx;
        let lower = |t: f64, o: usize| -limit(t, o) - kx * x.at(t, o);
        let upper = |t: f64, o: usize| -(limit(t, o) - kx * x.at(t, o));
        let lo = largest(&lower, step);
        let hi = -largest(&upper, step);
        0.5 * (lo + hi)
    }

    /// The next transition after `from` (before `to`) in `state`, and the state it leads to.
    /// Each later search stops at the earliest transition found so far.
    fn next(
        &self,
        x: &Trig,
        y: &Trig,
        state: State,
        from: f64,
        to: f64,
        step: f64,
    ) -> Option<(f64, State)> {
        let kx = self.kx;
        let normal_falls = |t: f64, o: usize| -self.load_change(y, t, o) - self.constant(o);
        let touches = |t: f64, o: usize| self.load_change(y, t, o) + self.constant(o);
        let mut best: Option<(f64, State)> = None;
        let mut consider = |g: &dyn Fn(f64, usize) -> f64, next: &dyn Fn(f64) -> State| {
            let limit = best.map_or(to, |(t, _)| t);
            if let Some(t) = first_rise(g, from, limit, step) {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, next(t)));
                }
            }
        };
        match state {
            State::Stick { c, .. } => {
                let c0 = |o: usize| if o == 0 { c } else { 0.0 };
                let limit =
                    |t: f64, o: usize| self.mu * (self.load_change(y, t, o) + self.constant(o));
                let up = |t: f64, o: usize| c0(o) + kx * x.at(t, o) - limit(t, o);
                let down = |t: f64, o: usize| -(c0(o) + kx * x.at(t, o)) - limit(t, o);
                consider(&up, &|_| State::Slip { xi: 1.0 });
                consider(&down, &|_| State::Slip { xi: -1.0 });
                consider(&normal_falls, &|_| State::Separated);
            }
            State::Slip { xi } => {
                let sticks = |t: f64, o: usize| {
                    -(xi * kx * x.at(t, o + 1) - self.mu * self.load_change(y, t, o + 1))
                };
                consider(&sticks, &|t| {
                    self.stick_from(x, y, t, Onset::FromSlip { tau: t, xi })
                });
                consider(&normal_falls, &|_| State::Separated);
            }
            State::Separated => {
                consider(&touches, &|t| {
                    self.stick_from(x, y, t, Onset::FromSeparation { tau: t })
                });
            }
        }
        best
    }

    /// The converged cycle as `(start, end, state)` intervals covering `[2π, 4π]` (the
    /// second period marched).
    pub(super) fn cycle(&self, x: &Trig, y: &Trig, h: usize) -> Cycle {
        let step = TAU / (FRICTION_CELLS_PER_HARMONIC * h.max(1)) as f64;
        // A stick at τ = 0 (separated if the preload is gone there).
        let mut state = if self.normal(y, 0.0) > 0.0 {
            State::Stick {
                c: self.centred_stick(x, y, step),
                onset: Onset::Assumed,
            }
        } else {
            State::Separated
        };
        let mut tau = 0.0;
        let mut out = Vec::new();
        // Transitions per period are bounded by the roots of the transition functions.
        for _ in 0..TRANSITIONS_PER_HARMONIC * (h + 1) {
            // A small offset keeps the search off the root just found.
            let from = tau + TRANSITION_SEARCH_OFFSET * TAU;
            let hit = self.next(x, y, state, from, 2.0 * TAU, step);
            let end = hit.map_or(2.0 * TAU, |(t, _)| t);
            if end > TAU {
                out.push((tau.max(TAU), end, state));
            }
            match hit {
                Some((t, next)) => (tau, state) = (t, next),
                None => break,
            }
        }
        out
    }

    /// `forces` over the cycle `m` of the displacement harmonics `x`, `y`.
    pub(super) fn integrated(&self, m: &Marched, x: &[f64], y: &[f64]) -> ContactForces {
        let h = x.len() / 2;
        let (xt, yt) = (&m.x, &m.y);
        let mut out = ContactForces {
            fx: vec![0.0; 2 * h],
            fy: vec![0.0; 2 * h],
            dfx_dx: DMatrix::zeros(2 * h, 2 * h),
            dfx_dy: DMatrix::zeros(2 * h, 2 * h),
            dfy_dy: DMatrix::zeros(2 * h, 2 * h),
        };
        let (xv, yv) = (DVector::from_column_slice(x), DVector::from_column_slice(y));
        for &(a, b, state) in &m.cycle {
            let (big, w) = interval_weights(h, a, b);
            let (wx, wy) = (&big * &xv, &big * &yv);
            let in_contact = !matches!(state, State::Separated);
            if in_contact {
                for r in 0..2 * h {
                    out.fy[r] += self.n0 * w[r] + self.ky * wy[r];
                }
                out.dfy_dy += self.ky * &big;
            }
            match state {
                State::Stick { c, onset } => {
                    for r in 0..2 * h {
                        out.fx[r] += self.kx * wx[r] + c * w[r];
                    }
                    out.dfx_dx += self.kx * &big;
                    // w (∂c/∂X)ᵀ and w (∂c/∂Y)ᵀ (eqs. 38–39).
                    let (dc_dx, dc_dy) = self.onset_derivatives(xt, yt, h, onset);
                    let wv = DVector::from_column_slice(&w);
                    out.dfx_dx.ger(1.0, &wv, &DVector::from_vec(dc_dx), 1.0);
                    out.dfx_dy.ger(1.0, &wv, &DVector::from_vec(dc_dy), 1.0);
                }
                State::Slip { xi } => {
                    for r in 0..2 * h {
                        out.fx[r] += xi * self.mu * (self.n0 * w[r] + self.ky * wy[r]);
                    }
                    out.dfx_dy += xi * self.mu * self.ky * &big;
                }
                State::Separated => {}
            }
        }
        out
    }

    /// `∂c/∂X`, `∂c/∂Y` of a stick phase's constant (eqs. 41–43, see the module docs).
    pub(super) fn onset_derivatives(
        &self,
        x: &Trig,
        y: &Trig,
        h: usize,
        onset: Onset,
    ) -> (Vec<f64>, Vec<f64>) {
        match onset {
            Onset::Assumed => (vec![0.0; 2 * h], vec![0.0; 2 * h]),
            Onset::FromSlip { tau, xi } => {
                let hb = basis(h, tau);
                (
                    hb.iter().map(|v| -self.kx * v).collect(),
                    hb.iter().map(|v| xi * self.mu * self.ky * v).collect(),
                )
            }
            Onset::FromSeparation { tau } => {
                let hb = basis(h, tau);
                let ratio = self.kx * x.at(tau, 1) / y.at(tau, 1);
                (
                    hb.iter().map(|v| -self.kx * v).collect(),
                    hb.iter().map(|v| ratio * v).collect(),
                )
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A deterministic stream of numbers in [−1, 1) (a linear congruential generator).
    pub(in crate::hb) fn stream(seed: u64) -> impl FnMut() -> f64 {
        let mut s = seed;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        }
    }

    #[test]
    fn jenkins_is_the_closed_form_describing_function() {
        // x = A cos τ through a spring kt in series with a slider F: stuck from τ = 0 (the
        // reversal) until kt A (1 − cos θ*) = 2F, then sliding at −F until τ = π.
        let (kt, f) = (3.0, 0.7);
        let jenkins = FrictionContact {
            kx: kt,
            ky: 0.0,
            mu: 1.0,
            n0: f,
        };
        for a in [0.1, 0.5, 1.0, 3.0, 20.0] {
            let out = jenkins.forces(&[a, 0.0], &[0.0, 0.0]);
            let (a1, b1) = if kt * a <= f {
                (kt * a, 0.0)
            } else {
                let th = (1.0 - 2.0 * f / (kt * a)).acos();
                let (s, c) = th.sin_cos();
                (
                    2.0 / PI
                        * ((f - kt * a) * s + kt * a * (th / 2.0 + (2.0 * th).sin() / 4.0) + f * s),
                    2.0 / PI * ((f - kt * a) * (1.0 - c) + kt * a * s * s / 2.0 - f * (1.0 + c)),
                )
            };
            assert!(
                (out.fx[0] - a1).abs() < 1e-10 * a1.abs().max(1.0)
                    && (out.fx[1] - b1).abs() < 1e-10 * a1.abs().max(1.0),
                "A = {a}: ({}, {}) vs ({a1}, {b1})",
                out.fx[0],
                out.fx[1]
            );
        }
    }

    /// Below the onset of slip the cycle is the stuck spring with margin on both sides,
    /// whatever the waveform: `x = A(cos τ + 0.1 cos 3τ)` swings ±1.1A, so a Jenkins element
    /// (kt = 0.25, F = 0.2) sticks up to A = 0.727. A stick assumed with zero force at the
    /// reversal τ = 0 slipped in the first period from A = 0.36 on and left a sliver of slip
    /// (1.2e-9 of the period) where the second touched the limit.
    #[test]
    fn a_cycle_below_the_onset_of_slip_is_stuck_throughout() {
        let jenkins = FrictionContact {
            kx: 0.25,
            ky: 0.0,
            mu: 1.0,
            n0: 0.2,
        };
        for a in [0.3, 0.5, 0.7, 0.727] {
            let x = [a, 0.0, 0.0, 0.0, 0.1 * a, 0.0];
            let y = [0.0; 6];
            assert_eq!(jenkins.state_fractions(&x, &y), [1.0, 0.0, 0.0], "A = {a}");
            let out = jenkins.forces(&x, &y);
            for (f, x) in out.fx.iter().zip(&x) {
                assert!((f - 0.25 * x).abs() < 1e-15, "A = {a}: {:?}", out.fx);
            }
        }
        // Just past the onset it slips.
        let x = [0.73, 0.0, 0.0, 0.0, 0.073, 0.0];
        assert!(jenkins.state_fractions(&x, &[0.0; 6])[1] > 0.0);
    }

    /// The contact forces by marching eqs. 24–29 on `samples` points per period (return
    /// mapping: elastic predictor, projected on the friction cone of the current normal
    /// load), three periods, coefficients of the last one by the rectangle rule.
    fn sampled(c: &FrictionContact, x: &[f64], y: &[f64], samples: usize) -> (Vec<f64>, Vec<f64>) {
        let (xt, yt) = (Trig::new(x), Trig::new(y));
        let h = x.len() / 2;
        let (mut fx, mut fy) = (vec![0.0; 2 * h], vec![0.0; 2 * h]);
        let mut f = 0.0;
        let mut x_prev = xt.at(0.0, 0);
        for i in 1..=3 * samples {
            let tau = TAU * i as f64 / samples as f64;
            let (xv, n) = (xt.at(tau, 0), c.n0 + c.ky * yt.at(tau, 0));
            let (ft, nt) = if n <= 0.0 {
                (0.0, 0.0)
            } else {
                let trial = f + c.kx * (xv - x_prev);
                (trial.clamp(-c.mu * n, c.mu * n), n)
            };
            (f, x_prev) = (ft, xv);
            if i > 2 * samples {
                for (k, b) in basis(h, tau).iter().enumerate() {
                    fx[k] += 2.0 / samples as f64 * ft * b;
                    fy[k] += 2.0 / samples as f64 * nt * b;
                }
            }
        }
        (fx, fy)
    }

    #[test]
    fn coefficients_match_a_fine_time_march() {
        // Stick, slip and separation in one cycle: N = 2 + 5y falls below zero.
        let c = FrictionContact {
            kx: 10.0,
            ky: 5.0,
            mu: 0.3,
            n0: 2.0,
        };
        let x = [1.0, 0.0, 0.0, 0.3, 0.1, 0.0];
        let y = [0.8 * 0.5f64.cos(), -0.8 * 0.5f64.sin(), 0.0, 0.0, 0.0, 0.2];
        let exact = c.forces(&x, &y);
        let (fx, fy) = sampled(&c, &x, &y, 1 << 18);
        for k in 0..6 {
            assert!(
                (exact.fx[k] - fx[k]).abs() < 1e-8,
                "fx[{k}]: {} vs {}",
                exact.fx[k],
                fx[k]
            );
            assert!(
                (exact.fy[k] - fy[k]).abs() < 1e-8,
                "fy[{k}]: {} vs {}",
                exact.fy[k],
                fy[k]
            );
        }
    }

    #[test]
    fn stiffness_matches_central_differences_on_drawn_states() {
        let mut draw = stream(7);
        let mut regimes = std::collections::BTreeSet::new();
        for case in 0..60 {
            let h = 1 + case % 3;
            // Amplitudes from stuck (small) to sliding and separating (large).
            let scale = 10f64.powf(-2.0 + 2.5 * (draw() + 1.0) / 2.0);
            let x: Vec<f64> = (0..2 * h).map(|_| scale * draw()).collect();
            let y: Vec<f64> = (0..2 * h)
                .map(|_| scale * draw() * (case % 2) as f64)
                .collect();
            let c = FrictionContact {
                kx: 10.0,
                ky: 6.0 * (case % 2) as f64,
                mu: 0.3,
                n0: 1.0,
            };
            let cycle = c.cycle(&Trig::new(&x), &Trig::new(&y), h);
            for (_, _, s) in &cycle {
                regimes.insert(match s {
                    State::Stick { .. } => "stick",
                    State::Slip { .. } => "slip",
                    State::Separated => "separation",
                });
            }
            let out = c.forces(&x, &y);
            let dh = 1e-6 * scale;
            for col in 0..2 * h {
                for (which, analytic) in [(0, &out.dfx_dx), (1, &out.dfx_dy)] {
                    let (mut xp, mut xm, mut yp, mut ym) =
                        (x.clone(), x.clone(), y.clone(), y.clone());
                    if which == 0 {
                        xp[col] += dh;
                        xm[col] -= dh;
                    } else {
                        yp[col] += dh;
                        ym[col] -= dh;
                    }
                    let (p, m) = (c.forces(&xp, &yp), c.forces(&xm, &ym));
                    for row in 0..2 * h {
                        let fd_x = (p.fx[row] - m.fx[row]) / (2.0 * dh);
                        let size = analytic.abs().max() + c.kx;
                        assert!(
                            (fd_x - analytic[(row, col)]).abs() < 1e-6 * size,
                            "case {case} d fx[{row}]/d{}[{col}]: {} vs {fd_x}",
                            ["X", "Y"][which],
                            analytic[(row, col)]
                        );
                        if which == 1 {
                            let fd_y = (p.fy[row] - m.fy[row]) / (2.0 * dh);
                            assert!((fd_y - out.dfy_dy[(row, col)]).abs() < 1e-6 * size);
                        }
                    }
                }
            }
        }
        assert_eq!(regimes.len(), 3, "drawn cycles cover {regimes:?}");
    }
}
