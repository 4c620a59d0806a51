//! Guaranteed location of the first sign change of a polynomial on `[x0, 1]` — the event
//! functions over one dense-output step (degree 7 in the normalised step time for DOP853,
//! up to `MAX_DEGREE` for the Taylor steps of `taylor.rs`).
//!
//! The polynomial is bounded on each subinterval by its Bernstein coefficients (the curve
//! lies in their convex hull). A subinterval whose coefficients share a strict sign holds no
//! root; the others are halved (de Casteljau) until one sign change is isolated, then the
//! root is refined to machine precision. So an incursion that enters and leaves inside one
//! step — two roots close together — is found whenever its depth exceeds the rounding error
//! of evaluating the polynomial (~1e-15 of its coefficients' size). A touch without a sign
//! change (grazing) is not an event. If the subdivision budget is exhausted (a polynomial
//! hugging zero), the caller is told to shrink the step. Cheap bounds come first: a
//! polynomial kept from zero by its low-degree part is excluded at once, and one whose
//! derivative is so kept (monotone: one crossing at most) is decided by its end values.
//!
//! `bisect` (`refine.rs`), the bracket halving that ends the isolation, also serves the
//! driver's searches on functions that are not polynomials (a held stop's contact force, a
//! stuck contact's force).

mod bounds;
mod refine;

pub(crate) use bounds::Bounds;
pub(crate) use refine::bisect;
use refine::refine;

/// Which sign change counts as the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From negative to positive.
    Rising,
    /// From positive to negative.
    Falling,
}

/// The outcome of a search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Search {
    None,
    /// The first crossing in the wanted direction, at normalised time `x`.
    At(f64),
    /// A crossing could not be excluded within the subdivision budget.
    Undecided,
}

/// Highest degree searched (the Taylor steps' order, `taylor.rs`, stays below it).
pub(crate) const MAX_DEGREE: usize = 31;

/// Most Bernstein subintervals one search may examine before it reports `Undecided` (a
/// polynomial hugging zero); the caller then shortens the step.
const SUBDIVISION_BUDGET: usize = 4000;
/// Fraction of the coefficients' total size within which the value at the start of the
/// search counts as on the switching surface (dimensionless, a few rounding errors).
const ON_BOUNDARY: f64 = 1e-14;
/// Width in normalised step time below which a subinterval is not split further: its sign
/// change is bisected as it is.
const NARROWEST_SUBINTERVAL: f64 = 1e-13;
/// Largest `a · degree` for which the shift of a polynomial to start at `a` keeps the first
/// order in `a` only (dimensionless): the rest is below `(a · degree)² Σ|p_k|`, here under
/// 1e-20 of the coefficients, far below their rounding.
const FIRST_ORDER_SHIFT: f64 = 1e-10;

/// Evaluates `p[0] + p[1] x + … + p[d] xᵈ` (Horner's rule with fused multiply–adds: one
/// rounding per degree and a shorter chain of dependent operations, which bounds the
/// searches' and the refinement's many evaluations). At `x = 0` it is `p[0]`, as Horner's
/// rule gives it for finite coefficients, without the chain (a search from a step's start).
pub(crate) fn eval(p: &[f64], x: f64) -> f64 {
    if x == 0.0 {
        return p.first().copied().unwrap_or(0.0);
    }
    p.iter().rev().fold(0.0, |acc, c| acc.mul_add(x, *c))
}

/// `Σ |p_k|` in four interleaved partial sums (the bounds of the exclusions, on every
/// search: one running sum waited on each addition and was not vectorised).
fn abs_sum(p: &[f64]) -> f64 {
    let mut parts = [0.0; 4];
    let quads = p.chunks_exact(4);
    let tail: f64 = quads.remainder().iter().map(|c| c.abs()).sum();
    for quad in quads {
        for (part, c) in parts.iter_mut().zip(quad) {
            *part += c.abs();
        }
    }
    (parts[0] + parts[1]) + (parts[2] + parts[3]) + tail
}

/// The exponents `k = 1 … MAX_DEGREE` as numbers: the derivative's factors.
const POWERS: [f64; MAX_DEGREE] = {
    let mut k = [0.0; MAX_DEGREE];
    let mut i = 0;
    while i < MAX_DEGREE {
        k[i] = (i + 1) as f64;
        i += 1;
    }
    k
};

/// Bernstein coefficients of `p` (degree `d = p.len() − 1 ≤ MAX_DEGREE`) on `[a, b]`, in
/// the first `d + 1` entries.
fn bernstein(p: &[f64], a: f64, b: f64) -> [f64; MAX_DEGREE + 1] {
    let degree = p.len() - 1;
    // Taylor shift to x = a + (b − a) s: q(s) = p(a + w s).
    let w = b - a;
    // From a = 0 the shift adds zeros and with w = 1 the scaling multiplies by ones: both
    // skipped (a search from the step's start), the coefficients the same.
    let mut q = [0.0; MAX_DEGREE + 1];
    q[..p.len()].copy_from_slice(p);
    if a != 0.0 && a * degree as f64 <= FIRST_ORDER_SHIFT {
        // q_j = Σ_k C(k, j) a^(k−j) p_k: the terms past the first order are below
        // (a d)² Σ|p_k|, under the rounding of the sums (a restart's skip, `RESTART_SKIP`).
        for j in 0..degree {
            q[j] += a * ((j + 1) as f64 * p[j + 1]);
        }
    } else if a != 0.0 {
        for i in 0..degree {
            for j in (i..degree).rev() {
                q[j] += a * q[j + 1];
            }
        }
    }
    if w != 1.0 {
        let mut scale = 1.0;
        for c in q[..p.len()].iter_mut() {
            *c *= scale;
            scale *= w;
        }
    }
    // Monomial → Bernstein: b_i = Σ_{k ≤ i} C(i, k) / C(n, k) q_k.
    // Column by column, each b_i summed over k in ascending order from −0 (as `Sum` does),
    // the rows independent of each other.
    let columns = conversion(degree);
    let mut out = [-0.0; MAX_DEGREE + 1];
    for (k, qk) in q[..p.len()].iter().enumerate() {
        let column = &columns[k * p.len()..(k + 1) * p.len()];
        for (o, r) in out[k..p.len()].iter_mut().zip(&column[k..]) {
            *o += r * qk;
        }
    }
    out
}

/// The factors `C(i, k) / C(n, k)` of the conversion to Bernstein form of degree `n`,
/// column `k` at `k (n + 1)`, each binomial the product `Π_{j<k} (n − j)/(j + 1)` in this
/// order; computed once per degree (the search runs them for every subinterval).
fn conversion(n: usize) -> &'static [f64] {
    static TABLES: [std::sync::OnceLock<Vec<f64>>; MAX_DEGREE + 1] =
        [const { std::sync::OnceLock::new() }; MAX_DEGREE + 1];
    TABLES[n].get_or_init(|| {
        let binom = |n: usize, k: usize| -> f64 {
            (0..k).fold(1.0, |acc, j| acc * (n - j) as f64 / (j + 1) as f64)
        };
        let mut table = vec![0.0; (n + 1) * (n + 1)];
        for i in 0..=n {
            for k in 0..=i {
                table[k * (n + 1) + i] = binom(i, k) / binom(n, k);
            }
        }
        table
    })
}

/// The first crossing of `p` (monomial coefficients, degree at most `MAX_DEGREE`) in
/// direction `dir` on `[x0, 1]`.
pub(crate) fn first_crossing(p: &[f64], dir: Direction, x0: f64) -> Search {
    assert!(
        !p.is_empty() && p.len() <= MAX_DEGREE + 1,
        "degree within MAX_DEGREE"
    );
    if Bounds::of(p).exclude(0.0) {
        return Search::None;
    }
    crossing_near(p, dir, x0)
}

/// Whether `p` starts within round-off of zero, on either side, and its slope there heads
/// through zero in direction `dir` by more than round-off: the crossing is at the start.
/// Round-off is `ON_BOUNDARY` of the coefficients' size plus the slope times `instant`, the
/// rounding of the start time in normalised step time. At a restart this is the crossing of
/// another element at the switch's instant (two identical parts started alike), which a
/// search would miss when rounding has already put its value a hair past zero: the hull of
/// values of one sign excludes it.
pub(crate) fn crosses_at_start(p: &[f64], dir: Direction, instant: f64) -> bool {
    let (Some(&value), Some(&slope)) = (p.first(), p.get(1)) else {
        return false;
    };
    let size = abs_sum(p);
    let heading = match dir {
        Direction::Rising => slope > ON_BOUNDARY * size,
        Direction::Falling => slope < -ON_BOUNDARY * size,
    };
    heading && value.abs() <= ON_BOUNDARY * size + slope.abs() * instant
}

/// `first_crossing` of a `p` that the cheap bounds did not exclude (`Bounds::exclude`):
/// callers that search several constants added to one polynomial (a two-sided gap's
/// events) exclude them with one `Bounds` and search the rest here.
pub(crate) fn crossing_near(p: &[f64], dir: Direction, x0: f64) -> Search {
    // A function identically zero over the step (a stuck contact's margin that nothing
    // moves) never changes sign: no event, rather than subdividing to the budget at every
    // step.
    if p.iter().all(|c| *c == 0.0) {
        return Search::None;
    }
    if let Some(found) = monotone_crossing(p, dir, x0) {
        return found;
    }
    bernstein_search(p, dir, x0)
}

/// The Bernstein search of `p` on `[x0, 1]` (the module header).
fn bernstein_search(p: &[f64], dir: Direction, x0: f64) -> Search {
    let mut budget = SUBDIVISION_BUDGET;
    let bern = bernstein(p, x0, 1.0);
    search(p, dir, x0, (x0, 1.0), &bern, &mut budget)
}

/// The crossing of `p` on `[x0, 1]` when its derivative has no zero on `[0, 1]` (the two
/// exclusions applied to `p′`), `None` when that is not shown: `p` is then strictly
/// monotone, so it crosses at most once, in the direction of its slope, exactly when its
/// values at the ends say so, and the root is refined at once. This decides in `O(degree)`
/// most steps that end at an event (a motion going through a switching surface) and most
/// that start on one (a restart, `p(x0)` within round-off of zero), which the Bernstein
/// search would subdivide at `O(degree²)` per subinterval.
fn monotone_crossing(p: &[f64], dir: Direction, x0: f64) -> Option<Search> {
    let degree = p.len() - 1;
    if degree == 0 {
        return None;
    }
    let mut slope = [0.0; MAX_DEGREE];
    for ((s, c), k) in slope[..degree].iter_mut().zip(&p[1..]).zip(&POWERS) {
        *s = k * c;
    }
    let slope = &slope[..degree];
    if !Bounds::of(slope).exclude(0.0) {
        return None;
    }
    let (fa, fb) = (eval(p, x0), eval(p, 1.0));
    // A start on the switching surface is left to the search (its rule for such a start).
    if on_boundary(p, fa) {
        return None;
    }
    // Values of one strict sign bound the range: no root (the search's hull test).
    let one_sign = fa > 0.0 && fb > 0.0 || fa < 0.0 && fb < 0.0;
    Some(if !one_sign && crosses(p, dir, fa, fb, false) {
        Search::At(refine(p, x0, 1.0, fa, fb))
    } else {
        Search::None
    })
}

/// Whether `p`, valued `fa` and `fb` at the ends of a subinterval with one root at most,
/// crosses in direction `dir` there. At the start of the search (`at_start`), a value on the
/// boundary counts as the side the crossing leaves, so a motion that begins on the
/// switching surface and goes through it is still an event.
fn crosses(p: &[f64], dir: Direction, fa: f64, fb: f64, at_start: bool) -> bool {
    let on_boundary = at_start && on_boundary(p, fa);
    match dir {
        Direction::Rising => (fa < 0.0 || on_boundary) && fb > 0.0 || fa < 0.0 && fb == 0.0,
        Direction::Falling => (fa > 0.0 || on_boundary) && fb < 0.0 || fa > 0.0 && fb == 0.0,
    }
}

/// A value of `p` within round-off of zero (`ON_BOUNDARY` of its coefficients' size).
fn on_boundary(p: &[f64], value: f64) -> bool {
    value.abs() <= ON_BOUNDARY * abs_sum(p)
}

/// The first crossing of `p` in `[a, b]`, whose Bernstein coefficients there are `full`
/// (the first `p.len()`); a subinterval with more than one sign change is halved, its
/// halves' coefficients by de Casteljau's midpoint subdivision.
fn search(
    p: &[f64],
    dir: Direction,
    start: f64,
    (a, b): (f64, f64),
    full: &[f64; MAX_DEGREE + 1],
    budget: &mut usize,
) -> Search {
    if *budget == 0 {
        return Search::Undecided;
    }
    *budget -= 1;
    let bern = &full[..p.len()];
    let (lo, hi) = bern
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), c| {
            (l.min(*c), h.max(*c))
        });
    if lo > 0.0 || hi < 0.0 {
        return Search::None;
    }
    let (fa, fb) = (eval(p, a), eval(p, b));
    let sign_changes = bern
        .windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count();
    let crossing = crosses(p, dir, fa, fb, a == start);
    // One Bernstein sign change means exactly one root (Descartes' rule for Bernstein form).
    if sign_changes == 1 || b - a < NARROWEST_SUBINTERVAL {
        return if crossing {
            Search::At(refine(p, a, b, fa, fb))
        } else {
            Search::None
        };
    }
    let mid = 0.5 * (a + b);
    let (left, right) = halves(bern);
    match search(p, dir, start, (a, mid), &left, budget) {
        Search::None => search(p, dir, start, (mid, b), &right, budget),
        found => found,
    }
}

/// The Bernstein coefficients of both halves of an interval from those of the whole (de
/// Casteljau's algorithm at the midpoint: the averages of neighbours, level by level, the
/// left half's from each level's first, the right half's from its last).
fn halves(bern: &[f64]) -> ([f64; MAX_DEGREE + 1], [f64; MAX_DEGREE + 1]) {
    let d = bern.len() - 1;
    let mut work = [0.0; MAX_DEGREE + 1];
    work[..=d].copy_from_slice(bern);
    let (mut left, mut right) = ([0.0; MAX_DEGREE + 1], [0.0; MAX_DEGREE + 1]);
    (left[0], right[d]) = (work[0], work[d]);
    for r in 1..=d {
        for i in 0..=d - r {
            work[i] = 0.5 * (work[i] + work[i + 1]);
        }
        (left[r], right[d - r]) = (work[0], work[d - r]);
    }
    (left, right)
}

#[cfg(test)]
mod tests {
    use super::super::tolerances::RESTART_SKIP;
    use super::*;

    /// Pseudo-random numbers in [−1, 1) from `seed` (a linear congruential generator: the
    /// tests' random polynomials the same on every run).
    pub(super) fn signed_uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    /// The shift to a restart's start `a = RESTART_SKIP` kept to the first order in `a`
    /// gives the Bernstein coefficients of the full shift (Horner's nested passes, here in
    /// the test) to a few rounding errors, on a degree-20 series with Taylor-like
    /// coefficients.
    #[test]
    fn the_first_order_shift_is_the_full_one() {
        let p: Vec<f64> = (0..=20)
            .map(|k| (0.7 * k as f64 + 0.3).sin() * 0.8_f64.powi(k))
            .collect();
        let a = 1e-12;
        let mut q = p.clone();
        for i in 0..20 {
            for j in (i..20).rev() {
                q[j] += a * q[j + 1];
            }
        }
        let mut scale = 1.0;
        for c in q.iter_mut() {
            *c *= scale;
            scale *= 1.0 - a;
        }
        let full = bernstein(&q, 0.0, 1.0);
        let first = bernstein(&p, a, 1.0);
        let size: f64 = p.iter().map(|c| c.abs()).sum();
        for (x, y) in full.iter().zip(&first).take(21) {
            assert!((x - y).abs() <= 1e-15 * size, "{x} vs {y}");
        }
    }

    /// A polynomial identically zero never changes sign: no event, decided at once.
    #[test]
    fn the_zero_polynomial_has_no_crossing() {
        for dir in [Direction::Rising, Direction::Falling] {
            assert_eq!(first_crossing(&[0.0; 8], dir, 0.0), Search::None);
        }
    }

    fn from_roots(roots: &[f64], scale: f64) -> [f64; 8] {
        let mut p = [0.0; 8];
        p[0] = scale;
        for r in roots {
            let mut q = [0.0; 8];
            for d in 0..7 {
                q[d + 1] += p[d];
                q[d] -= r * p[d];
            }
            p = q;
        }
        p
    }

    #[test]
    fn finds_the_first_crossing_in_the_wanted_direction() {
        // (x − 0.2)(x − 0.7): positive, falls at 0.2, rises at 0.7.
        let p = from_roots(&[0.2, 0.7], 1.0);
        assert!(
            matches!(first_crossing(&p, Direction::Falling, 0.0), Search::At(x) if (x - 0.2).abs() < 1e-15)
        );
        assert!(
            matches!(first_crossing(&p, Direction::Rising, 0.0), Search::At(x) if (x - 0.7).abs() < 1e-15)
        );
        assert_eq!(first_crossing(&p, Direction::Falling, 0.3), Search::None);
    }

    #[test]
    fn a_short_incursion_inside_the_step_is_found() {
        // Enters at 0.5 and leaves at 0.5 + 2e-4 (depth 1e-8): a 100-point sampling of the
        // step would miss it.
        let p = from_roots(&[0.5, 0.5 + 2e-4], -1.0);
        let found = first_crossing(&p, Direction::Rising, 0.0);
        assert!(
            matches!(found, Search::At(x) if (x - 0.5).abs() < 1e-12),
            "{found:?}"
        );
    }

    #[test]
    fn a_tangency_is_not_a_crossing() {
        let p = from_roots(&[0.4, 0.4], 1.0);
        assert_eq!(first_crossing(&p, Direction::Falling, 0.0), Search::None);
        assert_eq!(first_crossing(&p, Direction::Rising, 0.0), Search::None);
    }

    /// Where the slope test applies (the derivative has no zero on [0, 1]), the shortcut
    /// finds the crossing the Bernstein search finds, in both directions and from a restart
    /// on the surface (pseudo-random degree-20 series with Taylor-like decaying coefficients,
    /// about half of them crossing zero).
    #[test]
    fn the_monotone_shortcut_finds_what_the_search_finds() {
        let mut uniform = signed_uniform(0x5851_f42d_4c95_7f2d_u64);
        let (mut decided, mut found) = (0, 0);
        for case in 0..4000 {
            let mut p: Vec<f64> = (0..21).map(|k| uniform() * 0.5_f64.powi(k)).collect();
            p[1] = 2.0 * uniform();
            let x0 = if case % 2 == 0 { 0.0 } else { RESTART_SKIP };
            if case % 4 == 1 {
                p[0] = -x0 * p[1] * (1.0 + 1e-3 * uniform());
            }
            for dir in [Direction::Rising, Direction::Falling] {
                let Some(short) = monotone_crossing(&p, dir, x0) else {
                    continue;
                };
                decided += 1;
                let full = bernstein_search(&p, dir, x0);
                match (short, full) {
                    (Search::At(a), Search::At(b)) => {
                        found += 1;
                        assert!((a - b).abs() <= 1e-14, "{a} vs {b}")
                    }
                    (a, b) => assert_eq!(a, b, "{p:?}"),
                }
            }
        }
        assert!(
            decided > 2000 && found > 500,
            "{decided} decided, {found} found"
        );
    }

    /// A motion that starts exactly on the switching surface and goes through it crosses at
    /// the start, though its event function is monotone (the shortcut leaves it to the
    /// search's rule for such a start).
    #[test]
    fn a_start_on_the_surface_going_through_it_is_an_event() {
        let p = [0.0, 1.0, -0.2, 0.01];
        let found = first_crossing(&p, Direction::Rising, 0.0);
        assert!(matches!(found, Search::At(x) if x < 1e-9), "{found:?}");
        assert_eq!(first_crossing(&p, Direction::Falling, 0.0), Search::None);
    }
}
