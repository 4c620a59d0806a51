//! The cheap exclusions before `roots`' Bernstein search: bounds on a polynomial's range
//! over `[0, 1]` from its low-degree part and the size of the rest, which decide most steps
//! in `O(degree)`.

use super::abs_sum;

/// Degree of the truncated part whose Bernstein hull, widened by the rest's bound, may
/// exclude a root before the full search (`Bounds::truncated`).
const TRUNCATED_DEGREE: usize = 6;

/// The cheap exclusions before the Bernstein search, of `p + c` for any constant `c`: on
/// `[0, 1]`, a polynomial lies within the sum `R` of its higher coefficients' sizes of its
/// low-degree part; a range of that part farther than `R` from zero leaves no root. Shifting
/// `p` by `c` shifts both ranges below by `c` (the Bernstein basis sums to one), so the
/// events of a two-sided gap, one polynomial with two constants, share them.
pub(crate) struct Bounds<'a> {
    p: &'a [f64],
    /// The quadratic part `q(x) = p₀ + p₁x + p₂x²`: its range (spanned by its values at 0,
    /// 1 and its vertex) and `R = Σ_{k≥3} |p_k|`. It decides the usual steps (far from
    /// contact, or moving away from it) in `O(degree)`; it subsumes the constant-term test
    /// `|p₀| > Σ_{k≥1} |p_k|`.
    quadratic: (f64, f64, f64),
    /// For the steps the quadratic part leaves undecided (near a switching surface): the
    /// hull of the Bernstein coefficients of the part of degree `m = TRUNCATED_DEGREE` and
    /// `R = Σ_{k>m} |p_k|`, `O(m²)` against the full search's `O(degree²)` per subinterval;
    /// computed when first asked.
    truncated: Option<(f64, f64, f64)>,
}

impl<'a> Bounds<'a> {
    pub(crate) fn of(p: &'a [f64]) -> Bounds<'a> {
        let c = |k: usize| p.get(k).copied().unwrap_or(0.0);
        let (p0, p1, p2) = (c(0), c(1), c(2));
        let rest = abs_sum(p.get(3..).unwrap_or_default());
        let (mut lo, mut hi) = (p0.min(p0 + p1 + p2), p0.max(p0 + p1 + p2));
        if p2 != 0.0 {
            let vertex = -p1 / (2.0 * p2);
            if vertex > 0.0 && vertex < 1.0 {
                let q = p0 + vertex * (p1 + vertex * p2);
                (lo, hi) = (lo.min(q), hi.max(q));
            }
        }
        Bounds {
            p,
            quadratic: (lo, hi, rest),
            truncated: None,
        }
    }

    /// Whether `p + c` has no root on `[0, 1]` by the quadratic part's bound, else the
    /// truncated part's.
    pub(crate) fn exclude(&mut self, c: f64) -> bool {
        let away = |(lo, hi, rest): (f64, f64, f64)| lo + c > rest || hi + c < -rest;
        if away(self.quadratic) {
            return true;
        }
        if self.p.len() <= TRUNCATED_DEGREE + 1 {
            return false;
        }
        let p = self.p;
        away(*self.truncated.get_or_insert_with(|| truncated_hull(p)))
    }
}

/// The quadratic exclusion alone (`Bounds::quadratic`).
#[cfg(test)]
fn quadratic_excludes(p: &[f64]) -> bool {
    let (lo, hi, rest) = Bounds::of(p).quadratic;
    lo > rest || hi < -rest
}

/// The range of the Bernstein coefficients of `p`'s part of degree `TRUNCATED_DEGREE` on
/// `[0, 1]` and the sum of the rest's sizes (`p` longer than that part).
fn truncated_hull(p: &[f64]) -> (f64, f64, f64) {
    const M: usize = TRUNCATED_DEGREE;
    let rest = abs_sum(&p[M + 1..]);
    let low: [f64; M + 1] = std::array::from_fn(|k| p[k]);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (i, row) in TRUNCATED_CONVERSION.iter().enumerate() {
        // Summed from −0 in ascending k, as `Sum` does (the table's zeros past i skipped).
        let b = row[..=i]
            .iter()
            .zip(&low)
            .fold(-0.0, |b, (r, pk)| b + r * pk);
        (lo, hi) = (lo.min(b), hi.max(b));
    }
    (lo, hi, rest)
}

/// `conversion(TRUNCATED_DEGREE)` at compile time, row `i` holding `C(i, k) / C(m, k)` at
/// `k` (the same products in the same order, so the same numbers): the truncated bound runs
/// on most steps, and a fixed-size table lets its sums unroll.
const TRUNCATED_CONVERSION: [[f64; TRUNCATED_DEGREE + 1]; TRUNCATED_DEGREE + 1] = {
    const fn binom(n: usize, k: usize) -> f64 {
        let (mut acc, mut j) = (1.0, 0);
        while j < k {
            acc = acc * (n - j) as f64 / (j + 1) as f64;
            j += 1;
        }
        acc
    }
    let m = TRUNCATED_DEGREE;
    let mut table = [[0.0; TRUNCATED_DEGREE + 1]; TRUNCATED_DEGREE + 1];
    let mut i = 0;
    while i <= m {
        let mut k = 0;
        while k <= i {
            table[i][k] = binom(i, k) / binom(m, k);
            k += 1;
        }
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::super::tests::signed_uniform;
    use super::super::{conversion, eval};
    use super::*;

    /// The quadratic-part test decides a motion moving away from the switching surface,
    /// which the constant term alone (`|p₀| > Σ_{k≥1} |p_k|`) cannot, and never excludes a
    /// polynomial that changes sign on [0, 1] (pseudo-random degree-20 series with Taylor-like
    /// decaying coefficients, each excluded one sampled at 10⁴ points).
    #[test]
    fn the_quadratic_exclusion_never_hides_a_root() {
        let away = [0.02, 0.05, -0.004, 1e-4];
        assert!(quadratic_excludes(&away));
        assert!(away[0] < away[1..].iter().map(|c| c.abs()).sum::<f64>());
        let excluded = excluded_without_a_root(0x2545_f491_4f6c_dd1d, 0.6, quadratic_excludes);
        assert!(excluded > 100, "{excluded} of 2000 excluded");
    }

    /// The compile-time table of the truncated bound is `conversion`'s, bit for bit.
    #[test]
    fn the_truncated_table_is_the_conversion() {
        let (m, columns) = (TRUNCATED_DEGREE, conversion(TRUNCATED_DEGREE));
        for (i, row) in TRUNCATED_CONVERSION.iter().enumerate() {
            for (k, r) in row.iter().enumerate().take(i + 1) {
                assert_eq!(
                    r.to_bits(),
                    columns[k * (m + 1) + i].to_bits(),
                    "({i}, {k})"
                );
            }
        }
    }

    #[test]
    fn the_truncated_exclusion_never_hides_a_root() {
        let alone = |p: &[f64]| Bounds::of(p).exclude(0.0) && !quadratic_excludes(p);
        let excluded = excluded_without_a_root(0x9e37_79b9_7f4a_7c15, 0.8, alone);
        assert!(excluded > 10, "{excluded} of 2000 excluded by it alone");
    }

    /// How many of 2000 pseudo-random degree-20 series (coefficients decaying as
    /// `decay^k`) `excludes` excludes, each checked to keep its sign at 10⁴ points.
    fn excluded_without_a_root(seed: u64, decay: f64, excludes: impl Fn(&[f64]) -> bool) -> usize {
        let mut uniform = signed_uniform(seed);
        let mut excluded = 0;
        for _ in 0..2000 {
            let p: Vec<f64> = (0..21).map(|k| uniform() * decay.powi(k)).collect();
            if excludes(&p) {
                excluded += 1;
                let sign = p[0] > 0.0;
                assert!((0..=10_000).all(|i| (eval(&p, i as f64 * 1e-4) > 0.0) == sign));
            }
        }
        excluded
    }
}
