//! One potential solution: impact times `t₁ < … < t_k = T` and impulses `λ` (Theorems 3.1,
//! 3.2), its positions and velocities in closed form (Theorem 3.4, eqs. 3.5–3.6) and the
//! non-penetration check NC3 (eq. 2.12c) **proved** on every flight by bounding the gap.

use super::spectral::Period;
use super::tolerances::{NC3_MAX_HALVINGS, NC3_TOUCH, SYMMETRY_TOL};
use nalgebra::DVector;

/// A potential solution at one period.
#[derive(Debug, Clone)]
pub struct Orbit<'a> {
    pub(crate) at: Period<'a>,
    /// `t₁ < … < t_k = T`.
    pub times: Vec<f64>,
    /// `μ = λ / s*` (`Period::scale`): the impulses in the scaled functions' units.
    pub(crate) mu: Vec<f64>,
}

/// Whether NC3 holds, as proved on the flights.
#[derive(Debug, Clone, PartialEq)]
pub enum Admissibility {
    /// Every pre-impact velocity is positive and the gap is proved positive inside every
    /// flight.
    Admissible,
    /// An impulse is negative (NC2's sign test, eq. 7.14): impact `index` (1-based) would pull.
    NegativeImpulse { index: usize },
    /// The gap is negative inside flight `flight` (1-based) at time `t`.
    Penetrates { flight: usize, t: f64, gap: f64 },
    /// The gap touches zero inside a flight or an impact has zero speed (a grazing orbit at the
    /// edge of a family) within `NC3_TOUCH`.
    Grazes { t: f64 },
}

impl Admissibility {
    pub fn admissible(&self) -> bool {
        *self == Admissibility::Admissible
    }

    /// The reason, for the tables (empty when admissible).
    pub fn reason(&self) -> String {
        match self {
            Admissibility::Admissible => String::new(),
            Admissibility::NegativeImpulse { index } => {
                format!("negative pre-impact velocity at impact {index}")
            }
            Admissibility::Penetrates { flight, t, gap } => {
                format!("penetration in flight {flight} at t = {t:.6} (gap {gap:.3e})")
            }
            Admissibility::Grazes { t } => format!("grazing at t = {t:.6}"),
        }
    }
}

/// The gap on one flight as `g₀ + Σₘ aₘ cos ωₘτ + bₘ sin ωₘτ`, `τ ∈ [0, σ]`.
struct FlightGap {
    g0: f64,
    omega: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    /// `Σ ωₘ² |(aₘ, bₘ)|`: a bound on `|g''|`.
    curvature: f64,
}

impl FlightGap {
    fn value(&self, tau: f64) -> f64 {
        self.g0
            + (0..self.omega.len())
                .map(|m| {
                    let (s, c) = (self.omega[m] * tau).sin_cos();
                    self.a[m] * c + self.b[m] * s
                })
                .sum::<f64>()
    }

    fn slope(&self, tau: f64) -> f64 {
        (0..self.omega.len())
            .map(|m| {
                let (s, c) = (self.omega[m] * tau).sin_cos();
                self.omega[m] * (self.b[m] * c - self.a[m] * s)
            })
            .sum()
    }
}

impl Orbit<'_> {
    pub fn period(&self) -> f64 {
        self.at.period
    }

    /// The impulses `λ = s* μ` (eq. 7.13: `√G⁻¹` times the approach speeds).
    pub fn lambda(&self) -> Vec<f64> {
        self.mu.iter().map(|m| m * self.at.scale).collect()
    }

    /// The flight durations `σᵢ = tᵢ − tᵢ₋₁`.
    pub fn flights(&self) -> Vec<f64> {
        let mut prev = 0.0;
        self.times
            .iter()
            .map(|&t| {
                let s = t - prev;
                prev = t;
                s
            })
            .collect()
    }

    /// The arguments `2(τ + tᵢ − tⱼ) ∓ T` of eqs. 3.5–3.6 at `τ` into flight `i + 1`.
    fn arguments(&self, i: usize, tau: f64) -> impl Iterator<Item = (f64, f64)> + '_ {
        let start = if i == 0 { 0.0 } else { self.times[i - 1] };
        let t = self.period();
        self.times
            .iter()
            .zip(&self.mu)
            .enumerate()
            .map(move |(j, (&tj, &mu))| {
                let shift = if j < i { -t } else { t };
                (mu, 2.0 * (tau + start - tj) + shift)
            })
    }

    /// Positions and velocities at `τ` into flight `i + 1` (0-based `i`), eqs. 3.5–3.6.
    pub fn state_in_flight(&self, i: usize, tau: f64) -> (DVector<f64>, DVector<f64>) {
        let n = self.at.osc.n();
        let (mut u, mut v) = (DVector::zeros(n), DVector::zeros(n));
        for (mu, arg) in self.arguments(i, tau) {
            u += self.at.phi(arg) * mu;
            v += self.at.psi(arg) * mu;
        }
        (u, v)
    }

    /// Positions and velocities at time `t ∈ [0, T)`, just after the impact at 0.
    pub fn state(&self, t: f64) -> (DVector<f64>, DVector<f64>) {
        let i = self
            .times
            .iter()
            .position(|&ti| t < ti)
            .unwrap_or(self.times.len() - 1);
        let start = if i == 0 { 0.0 } else { self.times[i - 1] };
        self.state_in_flight(i, t - start)
    }

    /// The energy (constant: free flights and elastic impacts conserve it).
    pub fn energy(&self) -> f64 {
        let (u, v) = self.state_in_flight(0, 0.0);
        self.at.osc.energy(&u, &v)
    }

    /// The gap on flight `i + 1` in closed form: each term `μⱼ s* wᵀφ_T(2τ + cⱼ)` is
    /// `−μⱼ √G Σₘ ρₘ² wₘ cos(ωₘτ + ωₘcⱼ/2)/ωₘ` (`wₘ` the period's weights).
    fn flight_gap(&self, i: usize) -> FlightGap {
        let o = self.at.osc;
        let n = o.n();
        let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
        for (mu, c) in self.arguments(i, 0.0) {
            for m in 0..n {
                let amp = mu * o.sqrt_g * o.rho[m] * o.rho[m] * self.at.weight(m) / o.omega[m];
                let (s, co) = (0.5 * o.omega[m] * c).sin_cos();
                // g = g₀ − wᵀu = g₀ + Σ amp cos(ωτ + θ) = g₀ + amp (cos θ cos ωτ − sin θ sin ωτ).
                a[m] += amp * co;
                b[m] -= amp * s;
            }
        }
        let curvature = (0..n).map(|m| o.omega[m].powi(2) * a[m].hypot(b[m])).sum();
        FlightGap {
            g0: o.g0,
            omega: o.omega.clone(),
            a,
            b,
            curvature,
        }
    }

    /// NC2's sign test and NC3 on every flight. The gap is zero at both ends of a flight
    /// (NC2); near the start it is at least `g'(0)τ − Lτ²/2 > 0` for `τ < g'(0)/L` (`L`
    /// bounds `|g''|`), likewise before the end; in between, each interval is proved positive
    /// by `min(g(a), g(b)) − L(b − a)²/8 > 0` or halved (at most `NC3_MAX_HALVINGS` deep).
    pub fn admissibility(&self) -> Admissibility {
        let scale = self.at.osc.g0.abs().max(f64::MIN_POSITIVE);
        if let Some(index) = self.lambda().iter().position(|&l| l < 0.0) {
            return Admissibility::NegativeImpulse { index: index + 1 };
        }
        for (i, sigma) in self.flights().into_iter().enumerate() {
            let gap = self.flight_gap(i);
            let start = if i == 0 { 0.0 } else { self.times[i - 1] };
            let (d0, d1) = (gap.slope(0.0), -gap.slope(sigma));
            let curv = gap.curvature.max(f64::MIN_POSITIVE);
            if d0 <= NC3_TOUCH * scale / sigma || d1 <= NC3_TOUCH * scale / sigma {
                let t = if d0 <= d1 { start } else { start + sigma };
                return Admissibility::Grazes { t };
            }
            let (lo, hi) = (
                (d0 / curv).min(0.5 * sigma),
                (sigma - d1 / curv).max(0.5 * sigma),
            );
            if let Err(verdict) = proved_positive(&gap, lo, hi, scale) {
                return match verdict {
                    Disproof::Negative(tau, g) => Admissibility::Penetrates {
                        flight: i + 1,
                        t: start + tau,
                        gap: g,
                    },
                    Disproof::Touches(tau) => Admissibility::Grazes { t: start + tau },
                };
            }
        }
        Admissibility::Admissible
    }
}

/// Why a flight's gap is not proved positive.
enum Disproof {
    Negative(f64, f64),
    Touches(f64),
}

/// Proves `g > 0` on `[lo, hi]` by bisection with the curvature bound.
fn proved_positive(gap: &FlightGap, lo: f64, hi: f64, scale: f64) -> Result<(), Disproof> {
    let mut stack = vec![(lo, gap.value(lo), hi, gap.value(hi), 0usize)];
    while let Some((a, ga, b, gb, depth)) = stack.pop() {
        for (t, g) in [(a, ga), (b, gb)] {
            if g < -NC3_TOUCH * scale {
                return Err(Disproof::Negative(t, g));
            }
        }
        if ga.min(gb) - gap.curvature * (b - a).powi(2) / 8.0 > 0.0 {
            continue;
        }
        if depth >= NC3_MAX_HALVINGS {
            return Err(Disproof::Touches(0.5 * (a + b)));
        }
        let mid = 0.5 * (a + b);
        let gm = gap.value(mid);
        stack.push((a, ga, mid, gm, depth + 1));
        stack.push((mid, gm, b, gb, depth + 1));
    }
    Ok(())
}

impl Orbit<'_> {
    /// The time-reversal symmetry axes in `[0, T)` (Sect. 6, Theorem 6.4): the times `c` about
    /// which the impact times are symmetric, `{tⱼ} = {2c − tⱼ} (mod T)`, to `SYMMETRY_TOL` of
    /// the period. With `Σ` invertible the positions are then even and the velocities odd
    /// about `c` (two axes per period, `T/2` apart). Empty when the sequence of flights has no
    /// reversal symmetry.
    pub fn symmetry_axes(&self) -> Vec<f64> {
        let period = self.period();
        let tol = SYMMETRY_TOL * period;
        let on = |a: f64, b: f64| {
            let d = (a - b).rem_euclid(period);
            d.min(period - d) <= tol
        };
        let mut axes: Vec<f64> = Vec::new();
        for &a in &self.times {
            for &b in &self.times {
                for shift in [0.0, 0.5 * period] {
                    let c = (0.5 * (a + b) + shift).rem_euclid(period);
                    let mirrored = self
                        .times
                        .iter()
                        .all(|&t| self.times.iter().any(|&s| on(2.0 * c - t, s)));
                    if mirrored && !axes.iter().any(|&x| on(x, c)) {
                        axes.push(c);
                    }
                }
            }
        }
        axes.sort_by(f64::total_cmp);
        axes
    }
}
