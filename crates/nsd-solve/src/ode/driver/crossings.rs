//! The crossing searches on one accepted step's dense output: the earliest crossing of the
//! current modes' event functions (guaranteed root isolation on the step's polynomial,
//! `roots/`; against a moving wall, the wall's motion is fitted by a polynomial over the
//! step and the root polished on the true motion), the first instant a stuck contact needs
//! more than its slip force, and the lift-off of a held stop.

use super::super::dense::DenseStep;
use super::super::dop853::Tolerances;
use super::super::hybrid::{Element, EventFn, FrictionMode, Hybrid, JustSwitched};
use super::super::roots::{self, bisect, first_crossing, Direction, Search};
use super::super::tolerances::{FORCE_FIT_MISFIT, INSTANT_ROUNDING, TINY};
use super::stepper::Stepper;

/// Most Newton iterations polishing a root against a moving wall.
const POLISH_ITERATIONS: usize = 8;
/// Newton step in normalised step time below which the polishing has converged (four
/// rounding units).
const POLISH_CONVERGED: f64 = 4.0 * f64::EPSILON;
/// Half-width, in normalised step time, of the bracket around a fitted stick-break in which
/// the true force is bisected.
const STICK_BREAK_BRACKET: f64 = 0.01;
/// Most halvings of a bracket on a non-polynomial function (a held stop's contact force, a
/// stuck contact's force); bisection stops earlier, at the last representable split.
const BRACKET_HALVINGS: usize = 100;

/// A located crossing: normalised step time `x` in `[skip, 1]`, and `which` event function
/// (index into the events) or stuck contact (index into `friction`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Crossing {
    pub(crate) x: f64,
    pub(crate) which: usize,
}

/// What the event search of one step found.
pub(super) struct EventSearch {
    /// The earliest crossing of any event function.
    pub(crate) first: Option<Crossing>,
    /// A crossing could not be decided, or a moving wall's fit misses the wall by more than
    /// the tolerances: the step should be shortened.
    pub(crate) undecided: bool,
}

/// What the stick-break search of one step found.
pub(super) enum StickBreaks {
    /// A stuck contact's needed force is fitted too poorly over this step to search it.
    PoorFit,
    /// The earliest instant a stuck contact needs more than its slip force, if any.
    First(Option<Crossing>),
}

/// The earliest crossing of any of `events` on the accepted step of `step`, each searched
/// from its element's `JustSwitched::skip` (on the step's polynomials of the event
/// functions: its coefficient vectors are not built).
pub(super) fn first_event(
    h: &Hybrid,
    events: &[EventFn],
    step: &Stepper,
    switched: &JustSwitched,
    tol: &Tolerances,
) -> EventSearch {
    let mut found = EventSearch {
        first: None,
        undecided: false,
    };
    for (which, ev) in events.iter().enumerate() {
        let skip = switched.skip(ev.action.element());
        let (search, poor_fit) = event_crossing(h, ev, step, skip, tol);
        found.undecided |= poor_fit;
        match search {
            Search::At(x) => {
                if found.first.is_none_or(|f| x < f.x) {
                    found.first = Some(Crossing { x, which });
                }
            }
            Search::Undecided => found.undecided = true,
            Search::None => {}
        }
    }
    found
}

/// The first crossing of one event function on the step, and whether its moving wall's fit
/// is worse than the tolerances.
fn event_crossing(
    h: &Hybrid,
    ev: &EventFn,
    step: &Stepper,
    skip: f64,
    tol: &Tolerances,
) -> (Search, bool) {
    let mut p = step.event_poly(&ev.w, ev.c);
    // From the step's start, a function on its switching surface and heading through it
    // crosses there (`roots::crosses_at_start`); an element just switched is searched from
    // past its restart point instead (its own surfaces are where it starts, and its rate
    // there may be round-off: a slider stuck at the instant its sliding stopped).
    let (t0, size) = step.span();
    let instant = INSTANT_ROUNDING * t0.abs().max(1.0) / size;
    let search_from = |p: &[f64]| {
        if skip == 0.0 && roots::crosses_at_start(p, ev.dir, instant) {
            Search::At(0.0)
        } else {
            first_crossing(p, ev.dir, skip)
        }
    };
    let Some((d, coef, order)) = ev.wall else {
        return (search_from(&p), false);
    };
    let motion = |x: f64| h.form.wall_motion(d, t0 + x * size, order);
    let wall = fit(motion);
    // The fit must be as good as the integration, or a crossing could be found in the wrong
    // place (or missed): otherwise the step is shortened.
    let poor_fit = wall.misfit > tol.atol + tol.rtol * wall.size;
    for (pk, wk) in p.iter_mut().zip(wall.poly) {
        *pk += coef * wk;
    }
    let search = match search_from(&p) {
        // Against a moving wall the root is polished on the true wall motion (the fit is only
        // good to its interpolation error, ~(ωh/2)⁸/8!/2⁷).
        Search::At(x) => Search::At(polish(&p, x, skip, |x| {
            coef * (motion(x) - roots::eval(&wall.poly, x))
        })),
        other => other,
    };
    (search, poor_fit)
}

/// Some contact is stuck: the stick-break search reads the state inside the step.
pub(super) fn any_stuck(h: &Hybrid) -> bool {
    h.state.friction.contains(&FrictionMode::Stick)
}

/// The earliest instant on the step `dense`, each contact searched from its
/// `JustSwitched::skip`, at which a stuck contact needs more than its slip force: the force
/// sticking needs is fitted by a polynomial over the step, whose first crossing of `±F` is
/// refined by bisection on the true force. A poor fit asks for a shorter step when
/// `may_shorten`.
pub(super) fn first_stick_break(
    h: &mut Hybrid,
    dense: &DenseStep,
    switched: &JustSwitched,
    may_shorten: bool,
) -> StickBreaks {
    let sticking: Vec<usize> = (0..h.state.friction.len())
        .filter(|&c| h.state.friction[c] == FrictionMode::Stick)
        .collect();
    let mut first: Option<Crossing> = None;
    for c in sticking {
        let skip = switched.skip(Element::Friction(c));
        let slip = h.form.friction[c].slip;
        let mut need = |x: f64| {
            h.stick_force(
                c,
                dense.t0 + x * dense.h,
                &dense.eval(dense.t0 + x * dense.h),
            )
        };
        let force = fit(&mut need);
        if force.misfit > FORCE_FIT_MISFIT * slip.max(TINY) && may_shorten {
            return StickBreaks::PoorFit;
        }
        let mut above = force.poly;
        above[0] -= slip;
        let mut below = force.poly;
        below[0] += slip;
        let candidates = [
            first_crossing(&above, Direction::Rising, skip),
            first_crossing(&below, Direction::Falling, skip),
        ];
        for candidate in candidates {
            if let Search::At(x) = candidate {
                let x = refine_stick_break(x, skip, slip, &mut need);
                if first.is_none_or(|f| x < f.x) {
                    first = Some(Crossing { x, which: c });
                }
            }
        }
    }
    StickBreaks::First(first)
}

/// The stick-break near the fitted crossing `x`: where `|need| − F` changes sign on the
/// true force within `STICK_BREAK_BRACKET` of `x` (bisection), or `x` itself when no sign
/// change brackets it.
fn refine_stick_break(x: f64, skip: f64, slip: f64, need: &mut impl FnMut(f64) -> f64) -> f64 {
    let mut excess = |x: f64| need(x).abs() - slip;
    let (a, b) = (
        (x - STICK_BREAK_BRACKET).max(skip),
        (x + STICK_BREAK_BRACKET).min(1.0),
    );
    if excess(a) <= 0.0 && excess(b) > 0.0 {
        bisect(a, b, BRACKET_HALVINGS, |m| excess(m) <= 0.0).1
    } else {
        x
    }
}

/// The first held stop whose contact force changes sign within the step, and where
/// (bisection on the dense output; the force is a smooth function of the state there).
pub(super) fn lift_off(h: &mut Hybrid, d: &DenseStep) -> Option<(usize, f64)> {
    let t1 = d.t1();
    for stop in h.held_stops() {
        if h.holding_force(stop, t1, &d.eval(t1)) >= 0.0 {
            continue;
        }
        let (pushing, _) = bisect(d.t0, t1, BRACKET_HALVINGS, |m| {
            h.holding_force(stop, m, &d.eval(m)) >= 0.0
        });
        return Some((stop, pushing));
    }
    None
}

/// A polynomial fit of a function over the step, checked between its nodes.
struct Fit {
    /// Monomial coefficients in the normalised step time.
    poly: [f64; 8],
    /// The largest deviation from the function at the midpoints of eight equal parts of the
    /// step.
    misfit: f64,
    /// The largest magnitude of the function there.
    size: f64,
}

/// The fit of `f` on `[0, 1]` (`fit_poly`) and its check.
fn fit(mut f: impl FnMut(f64) -> f64) -> Fit {
    let poly = fit_poly(&mut f);
    let (misfit, size) =
        (0..8)
            .map(|k| (k as f64 + 0.5) / 8.0)
            .fold((0.0_f64, 0.0_f64), |(m, s), x| {
                let v = f(x);
                (m.max((roots::eval(&poly, x) - v).abs()), s.max(v.abs()))
            });
    Fit { poly, misfit, size }
}

/// Monomial coefficients (degree 7) of `f` on `[0, 1]`, interpolated at the Chebyshev
/// nodes: a moving wall's motion over one step, so that events against it are polynomial
/// like the others (interpolation error ~ (h/2)⁸ f⁽⁸⁾/8!/2⁷; a step whose fit misses the
/// wall by more than the tolerances is shortened).
fn fit_poly(mut f: impl FnMut(f64) -> f64) -> [f64; 8] {
    let nodes: Vec<f64> = (0..8)
        .map(|k| 0.5 - 0.5 * ((2 * k + 1) as f64 * std::f64::consts::PI / 16.0).cos())
        .collect();
    let v = nalgebra::DMatrix::from_fn(8, 8, |r, c| power(nodes[r], c as u32));
    let rhs = nalgebra::DVector::from_iterator(8, nodes.iter().map(|x| f(*x)));
    let sol = v
        .lu()
        .solve(&rhs)
        .unwrap_or_else(|| nalgebra::DVector::zeros(8));
    let mut p = [0.0; 8];
    p.copy_from_slice(sol.as_slice());
    p
}

/// `x^k` by square and multiply. This is the rounding sequence of `powi` at run time, fixed
/// here because `powi` may round otherwise where the optimiser knows its exponent, which
/// made the fit, and the located events, depend on inlining.
fn power(mut x: f64, mut k: u32) -> f64 {
    let mut p = 1.0;
    loop {
        if k & 1 == 1 {
            p *= x;
        }
        k >>= 1;
        if k == 0 {
            return p;
        }
        x *= x;
    }
}

/// Newton's iteration for the root near `x` (in `[skip, 1]`) of `p(x) + correction(x)`, with
/// the slope of `p`: the event function on the true wall motion, `p` carrying its fit.
fn polish(p: &[f64; 8], mut x: f64, skip: f64, correction: impl Fn(f64) -> f64) -> f64 {
    for _ in 0..POLISH_ITERATIONS {
        let slope: f64 = (1..8).rev().fold(0.0, |acc, k| acc * x + k as f64 * p[k]);
        if slope == 0.0 {
            break;
        }
        let next = (x - (roots::eval(p, x) + correction(x)) / slope).clamp(skip, 1.0);
        let done = (next - x).abs() <= POLISH_CONVERGED;
        x = next;
        if done {
            break;
        }
    }
    x
}
