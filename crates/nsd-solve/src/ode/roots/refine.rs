//! The root of a bracketed sign change of a polynomial, refined to the last representable
//! split (`roots`'s searches end here), and the bisection that also serves the driver's
//! searches on functions that are not polynomials.

use super::eval;

/// Most halvings of a root's bracket; bisection stops earlier, at the last representable
/// split.
const ROOT_HALVINGS: usize = 200;
/// Newton steps of at most this many rounding units of the iterate end the refinement
/// (then probes and bisection close the bracket over the few units left).
const ROUND_OFF_STEPS: f64 = 4.0;

/// The end beyond the sign change of `p` (values `fa`, `fb` at the ends) in `[a, b]` once
/// the bracket is split to the last representable point, as bisection would give it.
/// From the secant point, Newton's steps (value and slope from one Horner pass) shrink the
/// bracket, the midpoint taken instead of a step that leaves it or is not half the last
/// one; once a step is down to round-off, the bracket's far end is brought in by
/// probes beyond the iterate at growing distances, and bisection ends it. On the free-play
/// basin map an event costs 11.5 evaluations of its polynomial (the end values included)
/// instead of 31.5 with regula falsi (Illinois) and bisection, whose steps stall on the
/// side of the root where the curve bends away.
pub(super) fn refine(p: &[f64], mut a: f64, mut b: f64, fa: f64, fb: f64) -> f64 {
    let neg_at_a = fa < 0.0;
    let on_a_side = |f: f64| (f < 0.0) == neg_at_a;
    if on_a_side(fb) || fa == 0.0 || fb == 0.0 {
        return bisect(a, b, ROOT_HALVINGS, |m| on_a_side(eval(p, m))).1;
    }
    let mut x = (a * fb - b * fa) / (fb - fa);
    let mut moved = b - a;
    let mut landed_a = true;
    for _ in 0..ROOT_HALVINGS {
        if !(x > a && x < b) {
            x = 0.5 * (a + b);
            if x <= a || x >= b {
                return b;
            }
        }
        let (f, slope) = eval_with_slope(p, x);
        landed_a = on_a_side(f);
        if landed_a {
            a = x;
        } else {
            b = x;
        }
        let step = f / slope;
        if step.abs() <= ROUND_OFF_STEPS * f64::EPSILON * x.abs().max(f64::MIN_POSITIVE) {
            break;
        }
        // A step that does not halve the last one is not converging: the midpoint instead.
        let next = if step.abs() <= 0.5 * moved {
            x - step
        } else {
            f64::NAN
        };
        let next = if next > a && next < b {
            next
        } else {
            0.5 * (a + b)
        };
        moved = (next - x).abs();
        x = next;
    }
    // The root is within round-off of the last iterate: probe past it toward the far end.
    let mut reach = ROUND_OFF_STEPS * f64::EPSILON * a.abs().max(b.abs());
    while reach < b - a {
        let probe = if landed_a { a + reach } else { b - reach };
        if on_a_side(eval(p, probe)) {
            a = probe;
        } else {
            b = probe;
        }
        reach *= 4.0;
    }
    bisect(a, b, ROOT_HALVINGS, |m| on_a_side(eval(p, m))).1
}

/// `p(x)` and `p′(x)` by one Horner pass (fused multiply–adds, as `eval`).
fn eval_with_slope(p: &[f64], x: f64) -> (f64, f64) {
    p.iter()
        .rev()
        .fold((0.0, 0.0), |(v, d), c| (v.mul_add(x, *c), d.mul_add(x, v)))
}

/// Bisection of the bracket `[a, b]` to the last representable split or `halvings` halvings:
/// the midpoint replaces `a` where `on_a_side` holds, else `b`. Returns the final bracket.
pub(crate) fn bisect(
    mut a: f64,
    mut b: f64,
    halvings: usize,
    mut on_a_side: impl FnMut(f64) -> bool,
) -> (f64, f64) {
    for _ in 0..halvings {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if on_a_side(m) {
            a = m;
        } else {
            b = m;
        }
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refined root is where the computed sign of `p` changes between two neighbouring
    /// floating-point numbers, also when Newton's steps come from the side where the curve
    /// bends away or the root is near an end of the bracket.
    #[test]
    fn a_refined_root_is_a_sign_change_between_neighbours() {
        let mut signed = super::super::tests::signed_uniform(0x2d35_8dcc_aa6c_78a5);
        let mut uniform = || 0.5 * (signed() + 1.0);
        for _ in 0..2000 {
            let root = uniform().powi(3);
            let bend = 10.0 * (uniform() - 0.5);
            // (x − r)(1 + bend x) + small higher terms: one simple root in [0, 1].
            let mut p = vec![-root, 1.0 - bend * root, bend, 0.0, 0.0, 0.0];
            p[3] = 0.01 * (uniform() - 0.5);
            if (0..=1000).any(|i| {
                let x = i as f64 * 1e-3;
                (1.0 + bend * x) * (1.0 + bend * (x + 1e-3)) <= 0.0
            }) {
                continue;
            }
            let (fa, fb) = (eval(&p, 0.0), eval(&p, 1.0));
            if (fa < 0.0) == (fb < 0.0) {
                continue;
            }
            let x = refine(&p, 0.0, 1.0, fa, fb);
            let before = f64::from_bits(x.to_bits() - 1);
            assert!((eval(&p, x) < 0.0) != (fa < 0.0), "{p:?}: {x}");
            assert!((eval(&p, before) < 0.0) == (fa < 0.0), "{p:?}: {x}");
        }
    }
}
