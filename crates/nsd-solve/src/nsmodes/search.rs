//! Solutions with `k ≥ 3` impacts per period (paper 004 Sect. 7.4): at a fixed period `T`, the
//! impact times `t₁ < … < t_{k−1} < T` where `λ = −g₀Σ⁻¹𝟙` also satisfies `Πλ = 0` (Theorems
//! 3.1, 3.2). Of the `k` equations `Πλ = 0` one is redundant (`λᵀΠλ = 0`, Sect. 5), so they are
//! solved together by Gauss–Newton in the `k − 1` unknowns (consistent: quadratic convergence),
//! from the previous period's solutions and from seeded random starts, as the paper suggests.
//! One orbit appears `k` times, once per impact taken as `t = 0`: solutions are kept in the
//! rotation of their flight sequence that is smallest lexicographically.

use super::orbit::Orbit;
use super::spectral::{Oscillator, Period};
use super::tolerances::{
    SEARCH_DISTINCT, SEARCH_MAX_ITERATIONS, SEARCH_MIN_FLIGHT, SEARCH_RESIDUAL, SEARCH_STEP,
};
use nalgebra::{DMatrix, DVector};

/// The impulses `μ = λ/s*` and the residual `Π̃μ` at the period `at` for impact times
/// `times` (last = T).
fn residual(at: &Period, g0: f64, times: &[f64]) -> Option<(Vec<f64>, DVector<f64>)> {
    let k = times.len();
    let mu = at
        .sigma_matrix(times)
        .lu()
        .solve(&DVector::from_element(k, -g0))?;
    let r = at.pi_matrix(times) * &mu;
    Some((mu.iter().copied().collect(), r))
}

/// Gauss–Newton from `guess` (`t₁ … t_{k−1}`) at period `period`, with a central-difference
/// Jacobian; `None` unless it converges to ordered times with flights above
/// `SEARCH_MIN_FLIGHT` of the period (shorter flights are orbits with fewer impacts) whose
/// sequence does not repeat (`repeats`).
pub(crate) fn solve<'a>(osc: &'a Oscillator, period: f64, guess: &[f64]) -> Option<Orbit<'a>> {
    let mut s = DVector::from_column_slice(guess);
    let with_period = |s: &DVector<f64>| -> Vec<f64> {
        s.iter().copied().chain(std::iter::once(period)).collect()
    };
    let h = SEARCH_STEP * period;
    // The period's functions, formed once for every residual of the search.
    let at = osc.at(period);
    for _ in 0..SEARCH_MAX_ITERATIONS {
        let times = with_period(&s);
        if !ordered(&times, period) {
            return None;
        }
        let (mu, r) = residual(&at, osc.g0, &times)?;
        let size = mu
            .iter()
            .fold(0.0, |m: f64, x| m.max(x.abs()))
            .max(f64::MIN_POSITIVE);
        if r.amax() <= SEARCH_RESIDUAL * size {
            let orbit = Orbit { at, times, mu };
            return (!repeats(&orbit.flights(), period)).then_some(orbit);
        }
        let mut jac = DMatrix::zeros(r.len(), s.len());
        for c in 0..s.len() {
            let (mut up, mut down) = (s.clone(), s.clone());
            up[c] += h;
            down[c] -= h;
            let (_, ru) = residual(&at, osc.g0, &with_period(&up))?;
            let (_, rd) = residual(&at, osc.g0, &with_period(&down))?;
            jac.set_column(c, &((ru - rd) / (2.0 * h)));
        }
        let step = jac.svd(true, true).solve(&r, f64::EPSILON).ok()?;
        s -= step;
    }
    None
}

/// Whether the flight sequence repeats itself after `r < k` flights (all flights equal, for
/// instance): then the orbit is an `r`-impact orbit of period `T r/k` run `k/r` times, found
/// by the `r`-impact family.
fn repeats(flights: &[f64], period: f64) -> bool {
    let k = flights.len();
    let tol = SEARCH_DISTINCT * period;
    (1..k)
        .filter(|r| k.is_multiple_of(*r))
        .any(|r| (0..k).all(|i| (flights[i] - flights[(i + r) % k]).abs() <= tol))
}

/// Whether `0 < t₁ < … < t_k = T` with every flight at least `SEARCH_MIN_FLIGHT` of `T`.
fn ordered(times: &[f64], period: f64) -> bool {
    let mut prev = 0.0;
    times.iter().all(|&t| {
        let ok = t - prev >= SEARCH_MIN_FLIGHT * period;
        prev = t;
        ok
    })
}

/// The orbit re-timed so that its flight sequence is the smallest of its rotations.
pub(crate) fn canonical<'a>(orbit: &Orbit<'a>) -> Orbit<'a> {
    let flights = orbit.flights();
    let k = flights.len();
    let rotation = (0..k)
        .min_by(|&a, &b| {
            let f = &flights;
            let key = |r: usize| (0..k).map(move |i| f[(r + i) % k]);
            key(a)
                .zip(key(b))
                .map(|(x, y)| x.total_cmp(&y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    let mut t = 0.0;
    let times = (0..k)
        .map(|i| {
            t += flights[(rotation + i) % k];
            t
        })
        .collect();
    let mu = (0..k).map(|i| orbit.mu[(rotation + i) % k]).collect();
    Orbit {
        at: orbit.at.clone(),
        times,
        mu,
    }
}

/// Whether two canonical orbits of one period are the same (flights within
/// `SEARCH_DISTINCT` of the period).
pub(crate) fn same(a: &Orbit, b: &Orbit) -> bool {
    let tol = SEARCH_DISTINCT * a.period();
    a.times.len() == b.times.len()
        && a.times
            .iter()
            .zip(&b.times)
            .all(|(x, y)| (x - y).abs() <= tol)
}

/// Seeded starts: `count` sorted draws of `k − 1` times in `(0, T)` (a fixed linear
/// congruential sequence, so runs are reproducible).
pub(crate) fn starts(k: usize, period: f64, count: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut draw = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| {
            let mut t: Vec<f64> = (0..k - 1).map(|_| period * draw()).collect();
            t.sort_by(f64::total_cmp);
            t
        })
        .collect()
}
