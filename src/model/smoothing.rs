//! The radius of influence of a smoothed gap (paper 000, Sect. 3.3, eq. 10): how far from a
//! switching point the smoothed force differs noticeably from the exact piecewise one.
//!
//! In the units of the paper (displacement against `F_p / k_p`), the error of the sigmoid
//! smoothing at distance `s` from a switching point is `|s| σ(−δ|s|)` with the logistic `σ`,
//! whose total area on both sides is `π²/(6δ²)`. `R_i` is the distance within which 68 % of
//! that area lies (the paper's "σ₁ error"): `R_i = U*/δ`, where `∫₀^{U*} u/(1 + eᵘ) du =
//! 0.68 · π²/12`, i.e. `U* ≈ 2.578`. For `k_p = 10`, `a = 0.05`, `δ = 1500` this gives the
//! paper's `R_i = 0.0017` (3.4 % of the gap). `tanh(δx)` equals the sigmoid with `2δ`.

use super::flat::Smoothing;

/// `∫₀^U u/(1 + eᵘ) du` by composite Simpson (the integrand is smooth and bounded).
fn error_area(u_max: f64) -> f64 {
    let n = 2000;
    let h = u_max / n as f64;
    let f = |u: f64| u / (1.0 + u.exp());
    let inner: f64 = (1..n)
        .map(|i| f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
        .sum();
    h / 3.0 * (f(0.0) + inner + f(u_max))
}

/// The radius of influence `R_i` (same length unit as the gap).
pub fn radius_of_influence(s: Smoothing) -> f64 {
    let delta = match s {
        Smoothing::Sigmoid { delta } => delta,
        Smoothing::Tanh { delta } => 2.0 * delta,
    };
    let target = 0.68 * std::f64::consts::PI.powi(2) / 12.0;
    let (mut lo, mut hi) = (0.0, 50.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if error_area(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi) / delta
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_000_value() {
        // Paper 000, Sect. 3.3: δ = 1500 gives R_i = 0.0017 (two significant digits printed).
        let r = radius_of_influence(Smoothing::Sigmoid { delta: 1500.0 });
        assert!((r - 0.0017).abs() < 5e-5, "R_i = {r}");
        // Independent route: SciPy quad + brentq gives U* = 2.578018704774.
        assert!(
            (r * 1500.0 - 2.578018704774).abs() < 1e-9,
            "U* = {}",
            r * 1500.0
        );
        let t = radius_of_influence(Smoothing::Tanh { delta: 750.0 });
        assert!((t - r).abs() < 1e-15, "tanh(δx) is the sigmoid with 2δ");
    }
}
