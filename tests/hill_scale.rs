//! Hill stability condensed onto the nonlinear DOFs (issue 14, item 2): the exponents of
//! `hill::reduced` against the full Hill matrix (`Balance::floquet`).

mod common;
use common::*;
use nalgebra::{Complex, DVector};
use nsd::solve::cont::{linearised, newton};
use nsd::solve::hb::{Balance, Condensed, Hill, Unstable};

/// The paper-003 cantilever with its pad at H harmonics, the tip force scaled by `level`, and
/// its periodic solutions at `omegas` (Newton on the condensed balance from the linearised
/// guess).
fn cantilever(h: usize, level: f64, omegas: &[f64]) -> (Balance, Vec<(f64, DVector<f64>)>) {
    let sys = system_at("models/seed3/cantilever_pad.nsd", "cantilever_pad", 1300.0);
    let mut hb = Balance::new(&sys, h, (8 * h + 8).next_power_of_two()).expect("balance");
    hb.level = level;
    let c = Condensed::new(&hb).expect("condenses");
    let points = omegas
        .iter()
        .map(|&w| {
            let (qc, _) = newton(&c, linearised(&c, w), w, 1e-10).expect("converges");
            (w, c.expand(&qc, w))
        })
        .collect();
    drop(c);
    (hb, points)
}

/// The exponents of the condensed problem are the full Hill matrix's (`Balance::floquet`,
/// a dense 560 × 560 companion eigenproblem here) on the paper-003 cantilever with its pad,
/// H = 3, slipping (tip force 30 N) across the first resonance: every exponent within ω of
/// the imaginary axis to 1e-8 · (|s| + ω) (measured ≤ 3e-10: the full matrix's round-off), the
/// largest real part, and the unstable ones by kind (which name the bifurcations). Only the
/// overdamped modes' real poles far to the left (−1.6e6, −2.6e6 rad/s) differ, by 1e-10
/// relative: the condensed problem takes them as the linear poles they perturb. Ω = 1330 and
/// 1400 have an unstable exponent near 2Ω (a truncation copy the `2n` selection keeps): the
/// condensed problem keeps it too.
#[test]
fn condensed_exponents_are_the_full_hill_matrix_s_on_the_cantilever() {
    let unstable = compare(30.0);
    assert_eq!(unstable, 2, "Ω = 1330 and 1400 are unstable for both");
}

/// The same with the pad stuck (tip force 1 N): the stiff contact pulls the stuck modes' roots
/// up the axis (|Im s| ≈ 10 Ω), the starts there are dropped, the exponents within Ω of the
/// axis still equal.
#[test]
fn condensed_exponents_are_the_full_hill_matrix_s_with_the_pad_stuck() {
    compare(1.0);
}

/// Compares the two at four frequencies (the assertions of the tests above); the number of
/// unstable points.
fn compare(level: f64) -> usize {
    let (hb, points) = cantilever(3, level, &[1250.0, 1300.0, 1330.0, 1400.0]);
    let hill = Hill::new(&hb);
    assert!(hill.is_condensed());
    let mut unstable_points = 0;
    for (w, q) in &points {
        let condensed = hill.exponents(q, *w);
        let full: Vec<Complex<f64>> = hb.floquet(q, *w);
        for f in full.iter().filter(|f| f.re >= -w) {
            let gap = condensed
                .iter()
                .map(|c| (c - f).norm())
                .fold(f64::INFINITY, f64::min);
            assert!(gap <= 1e-8 * (f.norm() + w), "Ω = {w}: {f} off by {gap:e}");
        }
        let largest = |s: &[Complex<f64>]| s.iter().map(|s| s.re).fold(f64::MIN, f64::max);
        assert!(
            (largest(&condensed) - largest(&full)).abs() <= 1e-8 * w,
            "Ω = {w}: largest real part"
        );
        let kinds = Unstable::of(&condensed, *w, 1e-7);
        assert_eq!(kinds, Unstable::of(&full, *w, 1e-7), "Ω = {w}: kinds");
        unstable_points += usize::from(kinds != Unstable::default());
    }
    unstable_points
}
