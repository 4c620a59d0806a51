//! The transition times of the exact friction contact (`friction.rs`): the first upward
//! zero crossing of a transition function on a grid, with the humps between grid points
//! found from the function's rate, refined to round-off by Illinois regula falsi.

use super::tolerances::{
    HUMP_MIN_EXCESS, HUMP_PROBES, HUMP_SKIP_MARGIN, HUMP_START_GAP, TRANSITION_BRACKET_TOL,
    TRANSITION_REFINE_MAX_ITERATIONS,
};

/// The first τ in `(from, to]` where `g` (`g(τ, 0)`, its rate `g(τ, 1)`) crosses zero
/// upwards (from < 0 to ≥ 0), found on `from`, the grid points `j·step` inside and `to`,
/// and refined to round-off; `None` if there is none. A cell whose ends are both below zero
/// but whose rate falls through zero inside holds a maximum: it is located and, when it
/// reaches zero, the rise before it is the crossing. Without this a short excursion (a
/// stick that just reaches the slip limit) is missed until it straddles a grid point, and
/// the contact force jumps there (issue 21, item 3).
pub(super) fn first_rise(
    g: &dyn Fn(f64, usize) -> f64,
    from: f64,
    to: f64,
    step: f64,
) -> Option<f64> {
    let value = |t: f64| g(t, 0);
    let mut a = from;
    let (mut ga, mut ra) = (g(a, 0), g(a, 1));
    let mut j = (from / step).floor() + 1.0;
    loop {
        let b = (j * step).min(to);
        let (gb, rb) = (g(b, 0), g(b, 1));
        if ga < 0.0 && gb >= 0.0 {
            return Some(refine(&value, (a, ga), (b, gb)));
        }
        if ga < 0.0 && gb < 0.0 && ra > 0.0 && rb < 0.0 && may_reach_zero((ga, ra), (gb, rb), b - a)
        {
            let top = refine(&|t| -g(t, 1), (a, -ra), (b, -rb));
            let gt = g(top, 0);
            // A maximum on the search's start is the transition just made (a stick that
            // begins where the slip velocity vanishes starts at its limit with zero rate).
            // A top at the limit to round-off is the periodic cycle's own tangency (the
            // limit touched where the last slip ended, one period on): no excursion.
            let excess = HUMP_MIN_EXCESS * ga.abs().max(gb.abs());
            if gt > excess && top - from > HUMP_START_GAP {
                return Some(refine(&value, (a, ga), (top, gt)));
            }
        }
        if b >= to {
            return None;
        }
        (a, ga, ra) = (b, gb, rb);
        j += 1.0;
    }
}

/// Whether a cell's maximum can reach zero: the cubic Hermite interpolant of the ends'
/// values and rates (accurate to ~(2π/32)⁴ ≈ 1.5e-3 of the amplitude on a cell of 1/32 of the
/// highest harmonic's period) stays below zero by more than `HUMP_SKIP_MARGIN` of the ends'
/// values: then the maximum is far below the limit and is not refined.
fn may_reach_zero((ga, ra): (f64, f64), (gb, rb): (f64, f64), h: f64) -> bool {
    let (m0, m1) = (ra * h, rb * h);
    let top = (1..HUMP_PROBES)
        .map(|i| {
            let s = i as f64 / HUMP_PROBES as f64;
            let (s2, s3) = (s * s, s * s * s);
            (2.0 * s3 - 3.0 * s2 + 1.0) * ga
                + (s3 - 2.0 * s2 + s) * m0
                + (-2.0 * s3 + 3.0 * s2) * gb
                + (s3 - s2) * m1
        })
        .fold(f64::MIN, f64::max);
    top + HUMP_SKIP_MARGIN * (ga.abs() + gb.abs()) >= 0.0
}

/// The root of `g` in the bracket `[lo, hi]` (`g(lo) < 0 ≤ g(hi)`) to round-off: the
/// Illinois variant of regula falsi (the kept end's value halved when the same end moves
/// twice), bisection where the secant leaves the bracket; ~10 evaluations where bisection
/// took ~50. Returns the upper end (`g ≥ 0`).
pub(super) fn refine(
    g: &dyn Fn(f64) -> f64,
    (mut lo, mut glo): (f64, f64),
    (mut hi, mut ghi): (f64, f64),
) -> f64 {
    let mut last = 0i8;
    for _ in 0..TRANSITION_REFINE_MAX_ITERATIONS {
        if hi - lo <= TRANSITION_BRACKET_TOL * hi.abs().max(1.0) {
            break;
        }
        let secant = (lo * ghi - hi * glo) / (ghi - glo);
        let mid = if secant > lo && secant < hi {
            secant
        } else {
            0.5 * (lo + hi)
        };
        if mid <= lo || mid >= hi {
            break;
        }
        let gm = g(mid);
        if gm < 0.0 {
            (lo, glo) = (mid, gm);
            if last == -1 {
                ghi *= 0.5;
            }
            last = -1;
        } else {
            (hi, ghi) = (mid, gm);
            if gm == 0.0 {
                break;
            }
            if last == 1 {
                glo *= 0.5;
            }
            last = 1;
        }
    }
    hi
}
