//! Families of potential solutions over the period: one impact per period in closed form
//! (Sect. 7.2: `λ = g₀/φ_T(T)` in the contact coordinate), two impacts per period from the
//! roots of `Υ_T(T − 2t₁)` (Sect. 7.3, eq. 7.19) with `λ = −g₀ Σ⁻¹𝟙` (eq. 7.23), and the
//! roots of `φ_T(T)` and the edges of admissibility located by bisection; `Tracker` follows
//! them over the period, with `k ≥ 3` from `search`.

use super::orbit::Orbit;
use super::search::{canonical, same, solve, starts};
use super::spectral::Oscillator;
use super::tolerances::{EDGE_TOL, ROOT_BISECTIONS, SCAN_PER_PERIOD};
use nalgebra::DVector;

/// Two-impact roots at neighbouring periods belong to one branch when their first impact
/// times differ by less than this fraction of the period.
const BRANCH_LINK: f64 = 0.02;

/// `k ≥ 3`: random starts are drawn at the first period and every this many periods (count).
const RESEED_EVERY: usize = 10;

/// Members of a bridge continuum listed (count, odd: the middle one is `λ₁ = λ₂`).
const BRIDGE_MEMBERS: usize = 11;

/// `k ≥ 3`: random starts per impact at a reseeding period (count).
const STARTS_PER_IMPACT: usize = 24;

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
    let shortest = osc.shortest_period();
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
    let shortest = osc.shortest_period();
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
fn roots(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64, step: f64) -> Vec<f64> {
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
fn bisect(f: &dyn Fn(f64) -> f64, (mut a, fa): (f64, f64), mut b: f64) -> f64 {
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
    let la = lambda(a);
    if la * lambda(b) < 0.0 {
        return bisect(&lambda, (a, la), b);
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

/// Follows the families with `k` impacts per period over increasing periods and numbers their
/// branches: `k = 1` is one branch; `k = 2` links each root `t₁` to the nearest one of the
/// previous period (within `BRANCH_LINK` of the period); `k ≥ 3` continues every solution
/// from the previous period's times (scaled to the new period) and looks for new ones from
/// seeded random starts at the first period and every `RESEED_EVERY` periods.
pub struct Tracker<'a> {
    osc: &'a Oscillator,
    impacts: usize,
    /// The last period's solutions: branch and impact times.
    last: Vec<(usize, Vec<f64>)>,
    branches: usize,
    steps: usize,
}

impl<'a> Tracker<'a> {
    pub fn new(osc: &'a Oscillator, impacts: usize) -> Tracker<'a> {
        Tracker {
            osc,
            impacts,
            last: Vec::new(),
            branches: 0,
            steps: 0,
        }
    }

    /// The solutions at `period`, each with its branch.
    pub fn at(&mut self, period: f64) -> Vec<(usize, Orbit<'a>)> {
        let found: Vec<(Option<usize>, Orbit<'a>)> = match self.impacts {
            1 => one_impact(self.osc, period)
                .map(|o| (Some(0), o))
                .into_iter()
                .collect(),
            2 => two_impacts(self.osc, period)
                .into_iter()
                .map(|o| (None, o))
                .collect(),
            _ => self.searched(period),
        };
        let mut out: Vec<(usize, Orbit<'a>)> = Vec::new();
        for (branch, orbit) in found {
            let branch = branch
                .or_else(|| self.nearest(&orbit, period, &out))
                .unwrap_or_else(|| {
                    self.branches += 1;
                    self.branches - 1
                });
            out.push((branch, orbit));
        }
        self.branches = self.branches.max(1);
        self.last = out.iter().map(|(b, o)| (*b, o.times.clone())).collect();
        self.steps += 1;
        out
    }

    /// The previous period's branch whose first impact time is nearest (two impacts), not
    /// already taken.
    fn nearest(&self, orbit: &Orbit, period: f64, taken: &[(usize, Orbit)]) -> Option<usize> {
        let t1 = orbit.times[0];
        self.last
            .iter()
            .filter(|(b, t)| {
                (t[0] - t1).abs() < BRANCH_LINK * period && !taken.iter().any(|(n, _)| n == b)
            })
            .min_by(|x, y| (x.1[0] - t1).abs().total_cmp(&(y.1[0] - t1).abs()))
            .map(|(b, _)| *b)
    }

    /// `k ≥ 3`: continued solutions (with their branch) then new ones from random starts.
    fn searched(&self, period: f64) -> Vec<(Option<usize>, Orbit<'a>)> {
        let mut out: Vec<(Option<usize>, Orbit<'a>)> = Vec::new();
        let mut keep = |branch: Option<usize>, orbit: Option<Orbit<'a>>| {
            if let Some(o) = orbit.map(|o| canonical(&o)) {
                if !out.iter().any(|(_, q)| same(q, &o)) {
                    out.push((branch, o));
                }
            }
        };
        for (branch, times) in &self.last {
            let previous = times.last().copied().unwrap_or(period);
            let guess: Vec<f64> = times[..times.len() - 1]
                .iter()
                .map(|t| t * period / previous)
                .collect();
            keep(Some(*branch), solve(self.osc, period, &guess));
        }
        if self.steps.is_multiple_of(RESEED_EVERY) {
            let count = STARTS_PER_IMPACT * self.impacts;
            for guess in starts(self.impacts, period, count, self.steps as u64 + 1) {
                keep(None, solve(self.osc, period, &guess));
            }
        }
        out
    }
}

/// A non-generic two-impact continuum (Sect. 7.3.3, eq. 7.30: a *bridge*): on the line
/// `t₁ = T/2`, where `α = β` (`φ_T(T) = φ_T(0)` in the contact coordinate), `Σ` is singular
/// and every `λ` with `λ₁ + λ₂ = −g₀/α` (ERRATA eq. 7.23) is a potential solution at the same
/// impact times; `λ₁ = λ₂` is the one-impact orbit of period `T/2`.
pub struct Bridge<'a> {
    pub period: f64,
    /// `λ₁ + λ₂`.
    pub lambda_sum: f64,
    /// Members at `BRIDGE_MEMBERS` evenly spaced `λ₁ ∈ [0, λ₁ + λ₂]`.
    pub members: Vec<Orbit<'a>>,
}

/// The bridges with periods in `[lo, hi]`.
pub fn bridges(osc: &Oscillator, lo: f64, hi: f64) -> Vec<Bridge<'_>> {
    let shortest = osc.shortest_period();
    let difference = |t: f64| {
        let at = osc.at(t);
        (at.phi_contact(t) - at.phi_contact(0.0)) / at.scale
    };
    roots(&difference, lo, hi, shortest / SCAN_PER_PERIOD)
        .into_iter()
        .filter_map(|period| {
            let at = osc.at(period);
            let alpha = -at.phi_contact(period);
            // A sign change through a pole (a harmonic) is not a root: there the bisection
            // ends on a value larger than its neighbours'.
            let h = 1e-3 * shortest;
            let near = difference(period - h)
                .abs()
                .max(difference(period + h).abs());
            if difference(period).abs() > near {
                return None;
            }
            let mu_sum = -osc.g0 / alpha;
            let members = (0..BRIDGE_MEMBERS)
                .map(|i| {
                    let mu1 = mu_sum * i as f64 / (BRIDGE_MEMBERS - 1) as f64;
                    Orbit {
                        at: at.clone(),
                        times: vec![0.5 * period, period],
                        mu: vec![mu1, mu_sum - mu1],
                    }
                })
                .collect();
            Some(Bridge {
                period,
                lambda_sum: mu_sum * at.scale,
                members,
            })
        })
        .collect()
}
