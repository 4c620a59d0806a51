//! Families of potential solutions over the period: one impact per period in closed form
//! (Sect. 7.2: `λ = g₀/φ_T(T)` in the contact coordinate), two impacts per period from the
//! roots of `Υ_T(T − 2t₁)` (Sect. 7.3, eq. 7.19) with `λ = −g₀ Σ⁻¹𝟙` (eq. 7.23), and the
//! roots of `φ_T(T)` and the edges of admissibility located by bisection.

use super::orbit::Orbit;
use super::spectral::Oscillator;
use super::tolerances::{EDGE_TOL, ROOT_BISECTIONS, SCAN_PER_PERIOD};
use nalgebra::DVector;

/// The one-impact solution of period `T` (Sect. 7.2.2): `Σ = [−wᵀφ_T(T)]`, `μ = g₀/(s* wᵀφ_T(T))`.
/// `None` where `φ_T(T) = 0` (no potential solution for `g₀ ≠ 0`).
pub fn one_impact(osc: &Oscillator, period: f64) -> Option<Orbit<'_>> {
    let at = osc.at(period);
    let phi = at.phi_contact(period);
    (phi != 0.0).then(|| Orbit {
        mu: vec![osc.g0 / phi],
        times: vec![period],
        at,
    })
}

/// The generic two-impact solutions of period `T` (Sect. 7.3): one per root `t₁ ∈ (0, T/2)`
/// of `Υ_T(T − 2t₁)` (`t₁ = T/2` is the one-impact solution of period `T/2`, and `t₁ > T/2`
/// the same orbits shifted by `t₁`), with `μ = −g₀ (s*Σ)⁻¹ 𝟙`. Roots where `Σ` is singular
/// (`α = ±β`, eq. 7.23: a continuum at fixed impact times, or none) are left out.
pub fn two_impacts(osc: &Oscillator, period: f64) -> Vec<Orbit<'_>> {
    let at = osc.at(period);
    let shortest = osc.periods().into_iter().fold(f64::INFINITY, f64::min);
    let f = |t1: f64| at.upsilon(period - 2.0 * t1);
    // Stop short of the trivial root at T/2.
    let end = 0.5 * period - 0.5 * shortest / SCAN_PER_PERIOD;
    roots(&f, 0.0, end, shortest / SCAN_PER_PERIOD)
        .into_iter()
        .filter_map(|t1| {
            let times = vec![t1, period];
            let sigma = at.sigma_matrix(&times);
            let mu = sigma.lu().solve(&DVector::from_element(2, -osc.g0))?;
            mu.iter().all(|m| m.is_finite()).then(|| Orbit {
                at: at.clone(),
                times,
                mu: mu.iter().copied().collect(),
            })
        })
        .collect()
}

/// The roots of `φ_T(T)` in `[lo, hi]` (eq. 7.15: increasing between harmonics, so one per
/// interval between consecutive harmonics), to round-off.
pub fn phi_roots(osc: &Oscillator, lo: f64, hi: f64) -> Vec<f64> {
    let shortest = osc.periods().into_iter().fold(f64::INFINITY, f64::min);
    let unscaled = |t: f64| {
        let at = osc.at(t);
        at.phi_contact(t) / at.scale
    };
    // Rising sign changes only: the falling ones are the poles at the harmonics.
    roots(&unscaled, lo, hi, shortest / SCAN_PER_PERIOD)
        .into_iter()
        .filter(|&t| {
            let h = 1e-6 * shortest;
            unscaled(t - h) < 0.0 && unscaled(t + h) > 0.0
        })
        .collect()
}

/// The sign changes of `f` on `[lo, hi]` seen on a grid of spacing at most `step`, each
/// refined by bisection to round-off.
pub fn roots(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64, step: f64) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![];
    }
    let cells = ((hi - lo) / step).ceil().max(1.0) as usize;
    let at = |i: usize| lo + (hi - lo) * i as f64 / cells as f64;
    let mut out = Vec::new();
    let (mut a, mut fa) = (lo, f(lo));
    for i in 1..=cells {
        let b = at(i);
        let fb = f(b);
        if fa == 0.0 {
            out.push(a);
        } else if fa * fb < 0.0 {
            out.push(bisect(f, (a, fa), b));
        }
        (a, fa) = (b, fb);
    }
    out
}

/// Bisection of a bracket `[a, b]` with `f(a) = fa` and a sign change, to round-off.
pub fn bisect(f: &dyn Fn(f64) -> f64, (mut a, fa): (f64, f64), mut b: f64) -> f64 {
    let negative_at_a = fa < 0.0;
    for _ in 0..ROOT_BISECTIONS {
        let mid = 0.5 * (a + b);
        if mid <= a || mid >= b {
            break;
        }
        if (f(mid) < 0.0) == negative_at_a {
            a = mid;
        } else {
            b = mid;
        }
    }
    0.5 * (a + b)
}

/// The edge between two periods of a one-impact family where admissibility changes: where
/// `λ` changes sign (a harmonic line or a root of `φ_T(T)`) by bisection on `λ` alone, else
/// (NC3: a grazing inside the flight) by bisection on the whole verdict to `EDGE_TOL` of
/// the period.
pub fn one_impact_edge(osc: &Oscillator, a: f64, b: f64) -> f64 {
    let lambda = |t: f64| one_impact(osc, t).map_or(0.0, |o| o.lambda()[0]);
    if lambda(a) * lambda(b) < 0.0 {
        return bisect(&lambda, (a, lambda(a)), b);
    }
    let admissible = |t: f64| one_impact(osc, t).is_some_and(|o| o.admissibility().admissible());
    let before = admissible(a);
    let (mut lo, mut hi) = (a, b);
    while hi - lo > EDGE_TOL * hi {
        let mid = 0.5 * (lo + hi);
        if admissible(mid) == before {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
