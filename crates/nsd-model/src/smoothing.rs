//! The radius of influence of a smoothed gap (paper 000, Sect. 3.3, eq. 10): how far from a
//! switching point the smoothed force differs noticeably from the exact piecewise one.
//!
//! In the units of the paper (displacement against `F_p / k_p`), the error of the sigmoid
//! smoothing at distance `s` from a switching point is `|s| σ(−δ|s|)` with the logistic `σ`,
//! whose total area on both sides is `π²/(6δ²)`. `R_i` is the distance within which 68 % of
//! that area lies (the paper's "σ₁ error"): `R_i = U*/δ`, where `∫₀^{U*} u/(1 + eᵘ) du =
//! 0.68 · π²/12`, i.e. `U* ≈ 2.578`. For `k_p = 10`, `a = 0.05`, `δ = 1500` this gives the
//! paper's `R_i = 0.0017` (3.4 % of the gap). `tanh(δx)` equals the sigmoid with `2δ`.
//!
//! Also the smoothed free-play force itself (eq. 8) and its slope, shared by the time
//! integration and the harmonic balance.

use super::flat::{Sides, Smoothing};

/// The sign approximation of paper 000 eq. 7 (ERRATA: `2/(1 + e^{−δs}) − 1`) or `tanh(δs)`,
/// and its first and second derivatives.
fn smooth_sign(s: Smoothing, x: f64) -> (f64, f64, f64) {
    match s {
        Smoothing::Sigmoid { delta } => {
            let e = (-delta * x).exp();
            let d = 1.0 + e;
            // For e = ∞ (far on the negative side) the slope and curvature are 0, not ∞/∞;
            // the curvature 2δ² e(e − 1)/(1 + e)³ is formed from ratios below 1 so that it
            // does not overflow for large finite e.
            let (slope, curvature) = if e.is_finite() {
                let (r, t) = (e / d, (e - 1.0) / d);
                (2.0 * delta * r / d, 2.0 * delta * delta * r * t / d)
            } else {
                (0.0, 0.0)
            };
            (2.0 / d - 1.0, slope, curvature)
        }
        Smoothing::Tanh { delta } => {
            let t = (delta * x).tanh();
            let slope = delta * (1.0 - t * t);
            (t, slope, -2.0 * delta * t * slope)
        }
    }
}

/// Paper 000 eq. 8: the free-play force `k[(u − g)(1 + S(u − g)) + (u + g)(1 − S(u + g))]/2`
/// with the sign function replaced by its smooth approximation `S` (one term per active
/// side), and its derivative with respect to `u`.
pub fn gap_force(k: f64, g: f64, sides: Sides, s: Smoothing, u: f64) -> (f64, f64) {
    let [f, df, _] = gap_force_derivatives(k, g, sides, s, u);
    (f, df)
}

/// The force of `gap_force` and its first and second derivatives with respect to `u`
/// (the second for the Hessian products of the harmonic balance):
/// `f'' = k[2S'(u − g) + (u − g)S''(u − g) − 2S'(u + g) − (u + g)S''(u + g)]/2`.
pub fn gap_force_derivatives(k: f64, g: f64, sides: Sides, s: Smoothing, u: f64) -> [f64; 3] {
    let mut out = [0.0; 3];
    if sides != Sides::Negative {
        let (sg, ds, dds) = smooth_sign(s, u - g);
        out[0] += (u - g) * (1.0 + sg);
        out[1] += 1.0 + sg + (u - g) * ds;
        out[2] += 2.0 * ds + (u - g) * dds;
    }
    if sides != Sides::Positive {
        let (sg, ds, dds) = smooth_sign(s, u + g);
        out[0] += (u + g) * (1.0 - sg);
        out[1] += 1.0 - sg - (u + g) * ds;
        out[2] -= 2.0 * ds + (u + g) * dds;
    }
    out.map(|v| 0.5 * k * v)
}

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

    #[test]
    fn smoothed_gap_slope_is_the_derivative_of_the_force() {
        for s in [
            Smoothing::Sigmoid { delta: 1500.0 },
            Smoothing::Tanh { delta: 40.0 },
        ] {
            for u in [
                -0.2, -0.0501, -0.05, -0.01, 0.0, 0.03, 0.0499, 0.05, 0.051, 0.3,
            ] {
                let h = 1e-7;
                let fd = (gap_force(10.0, 0.05, Sides::Both, s, u + h).0
                    - gap_force(10.0, 0.05, Sides::Both, s, u - h).0)
                    / (2.0 * h);
                let slope = gap_force(10.0, 0.05, Sides::Both, s, u).1;
                assert!(
                    (fd - slope).abs() < 1e-5 * slope.abs().max(1.0),
                    "{s:?} u = {u}: {slope} vs {fd}"
                );
            }
        }
    }

    #[test]
    fn smoothed_gap_curvature_is_the_derivative_of_the_slope() {
        // Near the switches the curvature reaches δ k (1.5e4 for the sigmoid), so the
        // difference step is 1e-8 there (round-off ~1e-8 of the slope over h, ~1e-6 relative).
        for s in [
            Smoothing::Sigmoid { delta: 1500.0 },
            Smoothing::Tanh { delta: 40.0 },
        ] {
            for sides in [Sides::Both, Sides::Positive, Sides::Negative] {
                for u in [-0.2, -0.0501, -0.05, -0.049, 0.0, 0.0499, 0.05, 0.0512, 0.3] {
                    let h = 1e-8;
                    let at = |v: f64| gap_force_derivatives(10.0, 0.05, sides, s, v);
                    let fd = (at(u + h)[1] - at(u - h)[1]) / (2.0 * h);
                    let curvature = at(u)[2];
                    assert!(
                        (fd - curvature).abs() < 1e-5 * curvature.abs().max(1.0),
                        "{s:?} {sides:?} u = {u}: {curvature} vs {fd}"
                    );
                }
            }
        }
        // Far on the negative side e = ∞: no NaN.
        let s = Smoothing::Sigmoid { delta: 1e6 };
        let far = gap_force_derivatives(10.0, 0.05, Sides::Both, s, 1.0);
        assert!(far.iter().all(|v| v.is_finite()), "{far:?}");
    }

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
