//! Second derivatives of the exact friction contact element (`friction.rs`; paper 003,
//! Sect. 4.2, eqs. 44–63) as the contracted product `Σ_p λ_p ∂²F_p/∂u∂u`, `u = (X, Y)`,
//! `F = (F_x, F_y)`: the derivative of `J(u)ᵀλ`, a 4H × 4H matrix, never a 4-index array.
//!
//! The stiffness (eqs. 37–43) is a sum over the cycle's intervals of `W_j`, `w_j` times
//! state constants, plus `w_j ∂c_jᵀ/∂u` on the stick intervals. Its derivative has two
//! parts:
//!
//! - the interval limits (eq. 49: `∂W_j/∂τ = (1/π)H(τ)H(τ)ᵀ`, `∂w_j/∂τ = (1/π)H(τ)`): at a
//!   transition τ the integrand of `Jᵀλ` jumps from `G⁻` (the state before) to `G⁺` (after),
//!   which adds `(1/π)(G⁻ − G⁺) ∂τ/∂uᵀ`. Unlike the forces, the Jacobian's integrand is not
//!   continuous at stick → slip, contact → separation and separation → contact, so these
//!   times enter. (At slip → stick it is continuous: the stick's `∂c` there cancels the
//!   jump, and the onset time enters only through `∂²c`.) Every transition time follows
//!   from the implicit function theorem on its transition function `g(τ, u) = 0`,
//!   `∂τ/∂u = −g_u / g_τ`: stick → slip `c + k_x x − ξμ(N₀ + k_y y)` (its `g_u` holds the
//!   stick's own `∂c/∂u`), slip → stick `ξ k_x ẋ − μ k_y ẏ`, contact ↔ separation
//!   `N₀ + k_y y`;
//! - the stick constants (eqs. 50–61), `(w_jᵀλ_x) ∂²c_j/∂u∂u`: from slip,
//!   `c = ξμ(N₀ + k_y y(τ)) − k_x x(τ)` whose `τ`-derivative vanishes on the onset, so
//!   `∂²c = ξ φ_u φ_uᵀ / φ_τ` with `φ = ξ k_x ẋ − μ k_y ẏ`; from separation,
//!   `c = −k_x x(τ)` with `τ(Y)` from `N₀ + k_y y(τ) = 0`, whose second derivative
//!   `τ_uu = −(ÿ τ_u τ_uᵀ + Ḣ_y τ_uᵀ + τ_u Ḣ_yᵀ)/ẏ` gives
//!   `∂²c = −k_x (Ḣ_x τ_uᵀ + τ_u Ḣ_xᵀ + ẍ τ_u τ_uᵀ + ẋ τ_uu)`.
//!
//! The paper writes `∂²c` per block through `∂²τ` (eqs. 50–53 with eqs. 54–57 for a slip
//! onset, which need `x⃛`, `y⃛`, and eqs. 58–61 for a separation onset). For a slip onset the
//! factor of `∂²τ` in `∂²c`, `ξμk_y ẏ − k_x ẋ = −ξφ`, vanishes on the onset, so the
//! third derivatives cancel and the form above has none; for a separation onset `τ_uu` above
//! is eq. 61 (eqs. 58–60: `τ` does not depend on `X`). The test against central differences
//! of the analytic stiffness decides, on every regime.

use super::cycles::marched;
use super::friction::{basis, interval_weights, FrictionContact, Onset, State};
use super::trig::Trig;
use nalgebra::{DMatrix, DVector};
use std::f64::consts::PI;

/// `Ḣ(τ) = [−sin τ, cos τ, …, −H sin Hτ, H cos Hτ]`.
fn basis_rate(h: usize, tau: f64) -> Vec<f64> {
    (1..=h)
        .flat_map(|k| {
            let kf = k as f64;
            let (s, c) = (kf * tau).sin_cos();
            [-kf * s, kf * c]
        })
        .collect()
}

/// `[a x; b y]` for two vectors of 2H (a `u = (X, Y)`-shaped vector).
fn stack(a: f64, x: &[f64], b: f64, y: &[f64]) -> DVector<f64> {
    DVector::from_iterator(
        x.len() + y.len(),
        x.iter().map(|v| a * v).chain(y.iter().map(|v| b * v)),
    )
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

impl FrictionContact {
    /// `Σ_p λx_p ∂²F_x,p/∂u∂u + λy_p ∂²F_y,p/∂u∂u` on `u = (X, Y)` (4H × 4H, symmetric) for
    /// displacement harmonics `x`, `y` and multipliers `lx`, `ly` (module docs).
    pub(crate) fn hessian_adjoint(
        &self,
        x: &[f64],
        y: &[f64],
        lx: &[f64],
        ly: &[f64],
    ) -> DMatrix<f64> {
        let h = x.len() / 2;
        let m = marched(self, x, y);
        let (xt, yt, cycle) = (&m.x, &m.y, &m.cycle);
        let mut out = DMatrix::zeros(4 * h, 4 * h);
        for &(a, b, state) in cycle {
            if let State::Stick { onset, .. } = state {
                let weight = dot(&interval_weights(h, a, b).1, lx);
                if weight != 0.0 {
                    out += weight * self.onset_curvature(xt, yt, h, onset);
                }
            }
        }
        // The interval limits inside the period (2π and 4π are fixed).
        for pair in cycle.windows(2) {
            let ((_, tau, before), after) = (pair[0], pair[1].2);
            let lambda = (lx, ly);
            let jump = self.integrand(xt, yt, tau, before, lambda)
                - self.integrand(xt, yt, tau, after, lambda);
            let rate = self.transition_rate(xt, yt, h, tau, (before, after));
            out.ger(1.0 / PI, &jump, &rate, 1.0);
        }
        out
    }

    /// The integrand of `Jᵀλ` at τ in `state` (eq. 49 with eqs. 37–39): stick
    /// `[k_x H hₓ + ∂c/∂X hₓ; ∂c/∂Y hₓ + k_y H h_y]`, slip `[0; (ξμk_y hₓ + k_y h_y) H]`,
    /// separated 0, with `hₓ = Hᵀλ_x`, `h_y = Hᵀλ_y`.
    fn integrand(
        &self,
        x: &Trig,
        y: &Trig,
        tau: f64,
        state: State,
        (lx, ly): (&[f64], &[f64]),
    ) -> DVector<f64> {
        let h = lx.len() / 2;
        let hb = basis(h, tau);
        let (hx, hy) = (dot(&hb, lx), dot(&hb, ly));
        match state {
            State::Stick { onset, .. } => {
                let (dcx, dcy) = self.onset_derivatives(x, y, h, onset);
                stack(self.kx * hx, &hb, self.ky * hy, &hb) + stack(hx, &dcx, hx, &dcy)
            }
            State::Slip { xi } => stack(0.0, &hb, xi * self.mu * self.ky * hx + self.ky * hy, &hb),
            State::Separated => DVector::zeros(4 * h),
        }
    }

    /// `∂τ/∂(X, Y)` of the transition at τ from one state to the next, `−g_u / g_τ` of its
    /// transition function (module docs); zero where `g_τ` vanishes (a tangency, where
    /// the transition time is not differentiable).
    fn transition_rate(
        &self,
        x: &Trig,
        y: &Trig,
        h: usize,
        tau: f64,
        states: (State, State),
    ) -> DVector<f64> {
        let (kx, ky, mu) = (self.kx, self.ky, self.mu);
        let (grad, rate) = match states {
            (State::Separated, _) | (_, State::Separated) => (
                stack(0.0, &basis(h, tau), ky, &basis(h, tau)),
                ky * y.at(tau, 1),
            ),
            (State::Stick { onset, .. }, State::Slip { xi }) => {
                let hb = basis(h, tau);
                let (dcx, dcy) = self.onset_derivatives(x, y, h, onset);
                (
                    stack(1.0, &dcx, 1.0, &dcy) + stack(kx, &hb, -xi * mu * ky, &hb),
                    kx * x.at(tau, 1) - xi * mu * ky * y.at(tau, 1),
                )
            }
            (State::Slip { xi }, State::Stick { .. }) => {
                let hr = basis_rate(h, tau);
                (
                    stack(xi * kx, &hr, -mu * ky, &hr),
                    xi * kx * x.at(tau, 2) - mu * ky * y.at(tau, 2),
                )
            }
            _ => (DVector::zeros(4 * h), 0.0),
        };
        if rate == 0.0 {
            return DVector::zeros(4 * h);
        }
        -grad / rate
    }

    /// `∂²c/∂u∂u` of a stick phase's constant (module docs; eqs. 50–61).
    fn onset_curvature(&self, x: &Trig, y: &Trig, h: usize, onset: Onset) -> DMatrix<f64> {
        let zero = vec![0.0; 2 * h];
        match onset {
            Onset::Assumed => DMatrix::zeros(4 * h, 4 * h),
            Onset::FromSlip { tau, xi } => {
                let hr = basis_rate(h, tau);
                let phi_u = stack(xi * self.kx, &hr, -self.mu * self.ky, &hr);
                let phi_t = xi * self.kx * x.at(tau, 2) - self.mu * self.ky * y.at(tau, 2);
                if phi_t == 0.0 {
                    return DMatrix::zeros(4 * h, 4 * h);
                }
                (xi / phi_t) * &phi_u * phi_u.transpose()
            }
            Onset::FromSeparation { tau } => {
                let (dx, ddx, dy, ddy) = (x.at(tau, 1), x.at(tau, 2), y.at(tau, 1), y.at(tau, 2));
                if dy == 0.0 {
                    return DMatrix::zeros(4 * h, 4 * h);
                }
                let hr = basis_rate(h, tau);
                let t = stack(0.0, &zero, -1.0 / dy, &basis(h, tau));
                let (hxr, hyr) = (stack(1.0, &hr, 0.0, &zero), stack(0.0, &zero, 1.0, &hr));
                let tt = &t * t.transpose();
                let hyt = &hyr * t.transpose();
                let t_uu = -(ddy * &tt + &hyt + hyt.transpose()) / dy;
                let hxt = &hxr * t.transpose();
                -self.kx * (&hxt + hxt.transpose() + ddx * tt + dx * t_uu)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::friction::tests::stream;
    use super::*;
    use std::collections::BTreeMap;

    /// The analytic stiffness `[[∂F_x/∂X, ∂F_x/∂Y], [0, ∂F_y/∂Y]]` (eq. 37).
    fn stiffness(c: &FrictionContact, x: &[f64], y: &[f64]) -> DMatrix<f64> {
        let (out, n) = (c.forces(x, y), x.len());
        let mut j = DMatrix::zeros(2 * n, 2 * n);
        j.view_mut((0, 0), (n, n)).copy_from(&out.dfx_dx);
        j.view_mut((0, n), (n, n)).copy_from(&out.dfx_dy);
        j.view_mut((n, n), (n, n)).copy_from(&out.dfy_dy);
        j
    }

    /// The cycle's sequence of states (with ξ and the onset's kind): a draw whose sequence
    /// changes within the difference step straddles a transition degeneracy.
    fn topology(c: &FrictionContact, x: &[f64], y: &[f64]) -> Vec<(u8, i8)> {
        let (xt, yt) = Trig::pair(x, y);
        c.cycle(&xt, &yt, x.len() / 2)
            .iter()
            .map(|(_, _, s)| match s {
                State::Stick { onset, .. } => match onset {
                    Onset::Assumed => (0, 0),
                    Onset::FromSlip { .. } => (0, 1),
                    Onset::FromSeparation { .. } => (0, 2),
                },
                State::Slip { xi } => (1, *xi as i8),
                State::Separated => (2, 0),
            })
            .collect()
    }

    /// `max ‖∂τ/∂u‖_∞` over the cycle's transitions: large near a tangency of a transition
    /// function (`g_τ → 0`), where the Hessian is unbounded.
    fn largest_rate(c: &FrictionContact, x: &[f64], y: &[f64]) -> f64 {
        let (xt, yt) = Trig::pair(x, y);
        let h = x.len() / 2;
        let cycle = c.cycle(&xt, &yt, h);
        cycle
            .windows(2)
            .map(|p| {
                c.transition_rate(&xt, &yt, h, p[0].1, (p[0].2, p[1].2))
                    .amax()
            })
            .fold(0.0, f64::max)
    }

    /// The regimes a cycle shows (labels for the coverage count).
    fn regimes(c: &FrictionContact, x: &[f64], y: &[f64]) -> Vec<&'static str> {
        let t = topology(c, x, y);
        let mut out = Vec::new();
        if t == [(0, 0)] {
            out.push("stuck throughout");
        }
        let slips = t.iter().any(|s| s.0 == 1);
        let separates = t.iter().any(|s| s.0 == 2);
        if c.ky == 0.0 && slips {
            out.push("Jenkins stick-slip");
        }
        if c.ky != 0.0 && slips && !separates {
            out.push("stick-slip, normal load varying");
        }
        if slips && separates {
            out.push("stick-slip-separation");
        }
        if t.contains(&(0, 2)) {
            out.push("separation-stick onset");
        }
        out
    }

    #[test]
    fn contracted_hessian_matches_central_differences_in_every_regime() {
        // Five families at H = 1, 3, 5: Jenkins (small to large amplitude), a 2-D contact
        // stuck throughout, stick-slip under a varying load, stick-slip-separation, and
        // separation with a small tangential motion (touch-downs that stick). A draw is
        // skipped (a transition degeneracy) when the cycle's sequence of states changes
        // within ± the difference step in any coordinate, or when a transition time's
        // sensitivity ‖∂τ/∂u‖_∞ exceeds 1e3 / ‖u‖_∞ (a near-tangency of its transition
        // function, where the third derivative spoils the difference quotient).
        let mut draw = stream(11);
        let (mut accepted, mut skipped, mut worst) = (0, 0, 0.0f64);
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for case in 0..150 {
            let h = [1, 3, 5][case % 3];
            let family = (case / 3) % 5;
            let (sx, sy) = match family {
                0 => (10f64.powf(-1.5 + draw() + 1.0), 0.0),
                1 => (0.005, 0.005),
                2 => (0.3, 0.02),
                3 => (0.3, 0.5),
                _ => (0.02, 0.5),
            };
            let c = FrictionContact {
                kx: 10.0,
                ky: if family == 0 { 0.0 } else { 6.0 },
                mu: if family == 0 { 1.0 } else { 0.3 },
                n0: 1.0,
            };
            let decay = |p: usize| 1.0 / (1 + p / 2) as f64;
            let x: Vec<f64> = (0..2 * h).map(|p| sx * draw() * decay(p)).collect();
            let y: Vec<f64> = (0..2 * h).map(|p| sy * draw() * decay(p)).collect();
            let lambda = DVector::from_fn(4 * h, |_, _| draw());
            let scale = x.iter().chain(&y).fold(0.0f64, |m, v| m.max(v.abs()));
            let dh = 1e-6 * scale;
            let base = topology(&c, &x, &y);
            let mut fd = DMatrix::zeros(4 * h, 4 * h);
            let mut degenerate = largest_rate(&c, &x, &y) * scale > 1e3;
            for b in 0..4 * h {
                let (mut up, mut down) = ([x.clone(), y.clone()], [x.clone(), y.clone()]);
                up[b / (2 * h)][b % (2 * h)] += dh;
                down[b / (2 * h)][b % (2 * h)] -= dh;
                degenerate |= topology(&c, &up[0], &up[1]) != base
                    || topology(&c, &down[0], &down[1]) != base;
                let diff = stiffness(&c, &up[0], &up[1]) - stiffness(&c, &down[0], &down[1]);
                fd.set_column(b, &(diff.transpose() * &lambda / (2.0 * dh)));
            }
            if degenerate {
                skipped += 1;
                continue;
            }
            let (lx, ly) = (lambda.rows(0, 2 * h), lambda.rows(2 * h, 2 * h));
            let hess = c.hessian_adjoint(&x, &y, lx.as_slice(), ly.as_slice());
            let size = hess.amax().max(1e-3 * c.kx / scale);
            let err = (&hess - &fd).amax() / size;
            assert!(
                err < 1e-6,
                "case {case} (H = {h}, {:?}): relative error {err:e}\n{hess:.4e}\nvs\n{fd:.4e}",
                regimes(&c, &x, &y)
            );
            let asym = (&hess - hess.transpose()).amax() / size;
            assert!(asym < 1e-9, "case {case}: not symmetric ({asym:e})");
            worst = worst.max(err);
            accepted += 1;
            for r in regimes(&c, &x, &y) {
                *seen.entry(r).or_default() += 1;
            }
        }
        eprintln!("accepted {accepted}, skipped {skipped}, worst relative error {worst:e}, regimes {seen:?}");
        assert!(
            accepted >= 50,
            "{accepted} draws accepted, {skipped} skipped"
        );
        assert_eq!(seen.len(), 5, "regimes covered: {seen:?}");
        assert!(seen.values().all(|n| *n >= 3), "regimes covered: {seen:?}");
    }
}
