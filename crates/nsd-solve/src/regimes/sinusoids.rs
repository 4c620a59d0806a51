//! Sums of sinusoids and the guaranteed first exit of one from a band: the event functions
//! of the closed-form stick–slip segments (`exact`), isolated with a Taylor bound on the
//! second derivative so that a crossing and a touch inside one step are both found.

use super::tolerances::{
    CROSSING_REFINE_MAX_ITERATIONS, EVENT_NOISE, POSITIVE_FLOOR, SAFE_STEP_FLOOR, SAFE_STEP_MARGIN,
    TOUCH_BUDGET, TOUCH_TOL,
};

/// `Σ (α_k cos ν_k τ + β_k sin ν_k τ) + constant`.
#[derive(Debug, Clone, Default)]
pub(super) struct Sinusoids {
    pub(super) terms: Vec<(f64, f64, f64)>,
    pub(super) constant: f64,
}

impl Sinusoids {
    pub(super) fn push(&mut self, alpha: f64, beta: f64, nu: f64) {
        self.terms.push((alpha, beta, nu));
    }

    /// Value and first derivative.
    pub(super) fn eval(&self, tau: f64) -> (f64, f64) {
        self.terms
            .iter()
            .fold((self.constant, 0.0), |(f, d), &(a, b, nu)| {
                let (s, c) = (nu * tau).sin_cos();
                (f + a * c + b * s, d + nu * (b * c - a * s))
            })
    }

    /// A bound on `|f''|`.
    fn curvature_bound(&self) -> f64 {
        self.terms
            .iter()
            .map(|&(a, b, nu)| a.hypot(b) * nu * nu)
            .sum()
    }

    /// The shortest period among the terms (the natural time scale of root isolation).
    pub(super) fn shortest_period(&self) -> f64 {
        self.terms
            .iter()
            .map(|t| t.2.abs())
            .fold(0.0, f64::max)
            .recip()
            * std::f64::consts::TAU
    }
}

/// A level `f` must stay on one side of: `sign · (f − level) > 0` until the event. The level
/// is moved by the rounding noise of the problem, `EVENT_NOISE` of its scale: inwards for a
/// sliding contact (a velocity that only rounding separates from zero has reached it),
/// outwards for a stuck one (a force that reaches the slip force only to rounding does not
/// break it).
#[derive(Debug, Clone, Copy)]
pub(super) struct Bound {
    pub(super) level: f64,
    pub(super) sign: f64,
}

impl Bound {
    pub(super) fn new(level: f64, sign: f64, scale: f64) -> Bound {
        Bound {
            level: level + sign * EVENT_NOISE * scale,
            sign,
        }
    }
}

/// The first `τ ∈ [start, end]` where `f` reaches one of the bounds (crosses or touches it),
/// located to machine precision (touches count as `touch` says). Steps are safe by Taylor:
/// from `(f, f')`, the bound is not reached within `h` while
/// `sign·(f − level + f'h) − L₂h²/2 > 0` (`L₂ ≥ |f''|`). Within `SAFE_STEP_FLOOR` of the
/// shortest period from a bound, the next such length is checked for a sign change and for a
/// touch (`touch`).
pub(super) fn first_exit(
    f: &Sinusoids,
    bounds: &[Bound],
    touches: bool,
    start: f64,
    end: f64,
) -> Option<f64> {
    let l2 = f.curvature_bound().max(POSITIVE_FLOOR);
    let floor = SAFE_STEP_FLOOR * f.shortest_period().min(end - start).max(POSITIVE_FLOOR);
    let gap = |b: &Bound, v: f64| b.sign * (v - b.level);
    let mut tau = start;
    let (mut v, mut d) = f.eval(tau);
    if bounds.iter().any(|b| gap(b, v) <= 0.0) {
        return Some(tau);
    }
    while tau < end {
        let safe = bounds
            .iter()
            .map(|b| {
                let (sv, sd) = (gap(b, v), b.sign * d);
                (sd + (sd * sd + 2.0 * l2 * sv).sqrt()) / l2
            })
            .fold(f64::INFINITY, f64::min);
        if safe > floor {
            tau = (tau + safe * (1.0 - SAFE_STEP_MARGIN)).min(end);
            (v, d) = f.eval(tau);
            if bounds.iter().any(|b| gap(b, v) <= 0.0) {
                return Some(tau);
            }
            continue;
        }
        let next = (tau + floor).min(end);
        let (nv, nd) = f.eval(next);
        let hit = bounds
            .iter()
            .filter_map(|b| {
                if gap(b, nv) <= 0.0 {
                    Some(refine(f, *b, tau, next))
                } else {
                    touch(f, *b, tau, next, l2, touches)
                }
            })
            .fold(f64::INFINITY, f64::min);
        if hit.is_finite() {
            return Some(hit);
        }
        (tau, v, d) = (next, nv, nd);
    }
    None
}

/// A bound reached inside `[a, b]` although both ends are clear of it: the deviation from the
/// chord is at most `L₂(b − a)²/8`, so halving until that excludes a crossing or the interval
/// is at rounding level. There, a touch within `TOUCH_TOL` of the scale is an event if
/// `touches` (a slip that comes to rest for an instant) and not otherwise (a stuck contact
/// whose force only reaches the slip force keeps sticking). At most `TOUCH_BUDGET`
/// evaluations.
fn touch(f: &Sinusoids, bound: Bound, a: f64, b: f64, l2: f64, touches: bool) -> Option<f64> {
    let gap = |x: f64| bound.sign * (f.eval(x).0 - bound.level);
    let scale = f.terms.iter().map(|t| t.0.hypot(t.1)).sum::<f64>() + f.constant.abs();
    // Depth-first over the intervals not yet excluded, earliest first.
    let mut stack = vec![(a, b, gap(a), gap(b))];
    let mut budget = TOUCH_BUDGET;
    while let Some((a, b, ga, gb)) = stack.pop() {
        if ga.min(gb) > l2 * (b - a).powi(2) / 8.0 {
            continue;
        }
        let m = 0.5 * (a + b);
        let gm = gap(m);
        if gm <= 0.0 {
            return Some(refine(f, bound, a, m));
        }
        budget -= 1;
        if m <= a || m >= b || budget == 0 {
            return (touches && gm <= TOUCH_TOL * scale).then_some(m);
        }
        stack.push((m, b, gm, gb));
        stack.push((a, m, ga, gm));
    }
    None
}

/// The crossing of `bound` in `[a, b]` (`a` clear of it, `b` not), by Newton steps kept inside
/// the bracket (bisection when a step leaves it); returns the first point not clear.
fn refine(f: &Sinusoids, bound: Bound, mut a: f64, mut b: f64) -> f64 {
    let mut x = 0.5 * (a + b);
    for _ in 0..CROSSING_REFINE_MAX_ITERATIONS {
        let (v, d) = f.eval(x);
        let g = bound.sign * (v - bound.level);
        if g > 0.0 {
            a = x;
        } else {
            b = x;
        }
        let newton = x - (v - bound.level) / d;
        x = if newton > a && newton < b && d != 0.0 {
            newton
        } else {
            0.5 * (a + b)
        };
        if x <= a || x >= b {
            break;
        }
    }
    b
}
