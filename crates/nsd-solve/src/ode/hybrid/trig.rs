//! `cos` and `sin` of the lanes' forcing phases (`lanes.rs`; any fixed count of lanes), all
//! lanes in one loop of the same operations, which the compiler can keep in vector registers: the library's `sincos`,
//! called lane by lane, took ~3.5 % of a basin map's profile. Within two rounding errors of
//! the library (tested).
//!
//! The argument is reduced by the multiple `n` of π/2 nearest to it, `r = x − n π/2` with π/2
//! split in two doubles (each product taken by a fused multiply–add, so `r` is exact to a few
//! units of its last place for `|x|` up to ~10⁹), and `sin r`, `cos r` on `|r| ≤ π/4` by the
//! minimax polynomials of fdlibm's `__kernel_sin` and `__kernel_cos` (error below one unit in
//! the last place there); `n mod 4` picks the quadrant.
//!
//! # References
//! W. J. Cody and W. Waite, "Software Manual for the Elementary Functions", Prentice-Hall
//! (1980), Ch. 8 (the reduction); Sun Microsystems' fdlibm 5.3, `k_sin.c` and `k_cos.c` (the
//! polynomials' coefficients).

/// π/2 as the sum of two doubles: the nearest double and the rest.
const HALF_PI: (f64, f64) = (std::f64::consts::FRAC_PI_2, 6.123_233_995_736_766e-17);

/// `sin r = r + r³ (S₁ + r² S₂ + … + r¹⁰ S₆)` on `|r| ≤ π/4` (fdlibm's digits as published,
/// more than a double holds: each rounds to fdlibm's double).
#[allow(clippy::excessive_precision)]
const SIN: [f64; 6] = [
    -1.666_666_666_666_663_243_48e-1,
    8.333_333_333_322_489_461_24e-3,
    -1.984_126_982_985_794_931_34e-4,
    2.755_731_370_707_006_767_89e-6,
    -2.505_076_025_340_686_341_95e-8,
    1.589_690_995_211_550_102_21e-10,
];

/// `cos r = 1 − r²/2 + r⁴ (C₁ + r² C₂ + … + r¹⁰ C₆)` on `|r| ≤ π/4` (as `SIN`).
#[allow(clippy::excessive_precision)]
const COS: [f64; 6] = [
    4.166_666_666_666_660_190_37e-2,
    -1.388_888_888_887_410_957_49e-3,
    2.480_158_728_947_672_941_78e-5,
    -2.755_731_435_139_066_330_35e-7,
    2.087_572_321_298_174_827_90e-9,
    -1.135_964_755_778_819_482_65e-11,
];

/// `(cos x, sin x)` lane by lane.
pub(super) fn cos_sin<const N: usize>(x: &[f64; N]) -> ([f64; N], [f64; N]) {
    let (mut cos, mut sin) = ([0.0; N], [0.0; N]);
    for l in 0..N {
        let n = (x[l] * std::f64::consts::FRAC_2_PI).round();
        let r = (-n).mul_add(HALF_PI.1, (-n).mul_add(HALF_PI.0, x[l]));
        let z = r * r;
        let horner = |c: &[f64; 6]| c.iter().rev().fold(0.0_f64, |acc, k| acc.mul_add(z, *k));
        let s = (r * z).mul_add(horner(&SIN), r);
        // 1 − z/2 summed as fdlibm does: the rounding of 1 − z/2 carried into the tail.
        let half = 0.5 * z;
        let w = 1.0 - half;
        let c = w + (((1.0 - w) - half) + z * z * horner(&COS));
        // Quadrant n mod 4: (cos, sin) = (c, s), (−s, c), (−c, −s), (s, −c).
        let q = (n as i64).rem_euclid(4);
        let (cq, sq) = if q % 2 == 0 { (c, s) } else { (s, c) };
        cos[l] = if q == 1 || q == 2 { -cq } else { cq };
        sin[l] = if q >= 2 { -sq } else { sq };
    }
    (cos, sin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ode::hybrid::LANES;

    /// Within two units in the last place of the library's `cos` and `sin` (or 1e-16 of an
    /// absolute error near their zeros) from −10⁴ to 10⁴ rad, the forcing phases of long
    /// runs, at 1.6 million points that cross every quadrant boundary.
    #[test]
    fn lanes_cos_sin_match_the_library() {
        let mut x = [0.0; LANES];
        let check = |name: &str, x: f64, got: f64, want: f64| {
            let close = (got - want).abs() <= (2.0 * f64::EPSILON * want.abs()).max(1e-16);
            assert!(close, "{name} {x}: {got} vs {want}");
        };
        for i in 0..200_000 {
            for (l, v) in x.iter_mut().enumerate() {
                let k = (i * LANES + l) as f64;
                *v = -1e4 + k * (2e4 / (200_000 * LANES) as f64) + 1e-3 * (k * 0.7).sin();
            }
            let (c, s) = cos_sin(&x);
            for l in 0..LANES {
                check("cos", x[l], c[l], x[l].cos());
                check("sin", x[l], s[l], x[l].sin());
            }
        }
    }
}
