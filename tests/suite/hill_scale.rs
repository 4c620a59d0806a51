//! Hill stability condensed onto the nonlinear DOFs (issue 14, item 2): the exponents of
//! `hill::reduced` against the full Hill matrix (`Balance::floquet`).

use crate::common::*;
use nalgebra::{Complex, DVector};
use nsd::solve::cont::{linearised, newton};
use nsd::solve::hb::{full_hill_bytes, Balance, Condensed, Hill, Unresolved, Unstable};

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
/// relative: the condensed problem takes them as the linear poles they perturb. At Ω = 1330
/// and 1400 the `2n` smallest `|Im s|` include a growing root near 2Ω (1.5 ± 2643.6i at
/// 1400) whose eigenvector is centred two harmonics out: a truncation-edge copy, dropped by
/// both methods (`hill/centre.rs`), so every point is stable — as `simulate` finds at 1330
/// (`the_slipping_cantilever_is_stable_as_simulate_finds`).
#[test]
fn condensed_exponents_are_the_full_hill_matrix_s_on_the_cantilever() {
    let unstable = compare(30.0);
    assert_eq!(unstable, 0, "the edge copies near 2Ω are dropped by both");
}

/// The slipping cantilever (tip force 20 N, the pad as the equivalent Jenkins element: the
/// normal load is held) near Ω = 1330, where the edge copies used to mark a Neimark–Sacker
/// point: Hill's method calls every point stable, the full model and the model reduced to
/// ten modes alike, and `simulate` (on the model reduced to eight modes, 3 s from rest, ~630
/// periods) settles onto the balanced orbit: its tip amplitude over the last period (200
/// samples) equals the harmonic balance's at 1330 to 1 % (H = 3 against the exact motion, and
/// the reduction).
#[test]
fn the_slipping_cantilever_is_stable_as_simulate_finds() {
    let text = r#"
import "beam.nsd"
model cant_jenkins(F = 20, Omega = 1330) {
  use cantilever as beam(E = 210 GPa, rho = 7830 kg/m^3, b = 10 mm, h = 10 mm, L = 200 mm, n = 20)
  damping rayleigh { beta = 1e-6 }
  friction pad: beam.b[14].y -- ground { law = jenkins, kt = 2e8, force = 12 }
  force beam.b[20].y = F * cos(Omega * t)
}
simulate cant_jenkins as sim { t = 0..3, rtol = 1e-7, atol = 1e-10, output = at(TIMES), reduce = modes(8) }
continue frf cant_jenkins as full { param = Omega in 1300..1360, harmonics = 3, dof = "beam.b[20].y" }
continue frf cant_jenkins as reduced { param = Omega in 1300..1360, harmonics = 3, dof = "beam.b[20].y", reduce = modes(10) }
"#;
    // 200 samples over the last forcing period.
    let period = std::f64::consts::TAU / 1330.0;
    let times: Vec<String> = (0..200)
        .map(|i| format!("{:.9}", 3.0 - period * (1.0 - i as f64 / 200.0)))
        .collect();
    let text = text.replace("TIMES", &times.join(", "));
    let (code, _, stderr, dir) = run_text(&text, "hill_scale/jenkins_cantilever", &[]);
    assert_eq!(code, 0, "{stderr}");
    let table = |name: &str| read_csv(&dir.join(name).join("data.csv"));
    let mut at_1330 = Vec::new();
    for name in ["full", "reduced"] {
        let (header, rows) = table(name);
        let col = |h: &str| header.iter().position(|x| x == h).expect("column");
        let (w, x, stable) = (
            col("Omega [rad/s]"),
            col("max|beam.b[20].y|"),
            col("stable"),
        );
        assert!(
            rows.iter().all(|r| r[stable] == 1.0),
            "{name}: an unstable point"
        );
        let i = rows
            .windows(2)
            .position(|p| p[0][w] <= 1330.0 && 1330.0 <= p[1][w])
            .expect("1330");
        let s = (1330.0 - rows[i][w]) / (rows[i + 1][w] - rows[i][w]);
        at_1330.push(rows[i][x] + s * (rows[i + 1][x] - rows[i][x]));
    }
    let (header, rows) = table("sim");
    let tip = header
        .iter()
        .position(|x| x == "beam.b[20].y")
        .expect("tip");
    let simulated = rows.iter().map(|r| r[tip].abs()).fold(0.0, f64::max);
    for balanced in at_1330 {
        assert!(
            (simulated - balanced).abs() <= 1e-2 * balanced,
            "{simulated} vs {balanced}"
        );
    }
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
        let condensed = hill.exponents(q, *w).expect("resolved");
        let kinds = agree(&condensed, &hb.floquet(q, *w), *w);
        unstable_points += usize::from(kinds != Unstable::default());
    }
    unstable_points
}

/// The condensed exponents are the full matrix's at frequency `w`: every exponent within `w`
/// of the imaginary axis to 1e-8 · (|s| + w), the largest real part, and the unstable ones
/// by kind (returned).
fn agree(condensed: &[Complex<f64>], full: &[Complex<f64>], w: f64) -> Unstable {
    for f in full.iter().filter(|f| f.re >= -w) {
        let gap = condensed
            .iter()
            .map(|c| (c - f).norm())
            .fold(f64::INFINITY, f64::min);
        assert!(gap <= 1e-8 * (f.norm() + w), "Ω = {w}: {f} off by {gap:e}");
    }
    let largest = |s: &[Complex<f64>]| s.iter().map(|s| s.re).fold(f64::MIN, f64::max);
    assert!(
        (largest(condensed) - largest(full)).abs() <= 1e-8 * w,
        "Ω = {w}: largest real part"
    );
    let kinds = Unstable::of(condensed, w, 1e-7);
    assert_eq!(kinds, Unstable::of(full, w, 1e-7), "Ω = {w}: kinds");
    kinds
}

/// Where the condensed problem does not resolve a point (here it does not pay: a 2-DOF
/// model), Hill's method takes the full companion matrix, unless that matrix is over the
/// limit: then the point is `Unresolved` (never allocated: the 100-pad beam at H = 5 would
/// have taken 23 GB at 22,000 unknowns), and under the limit the exponents are the full
/// matrix's exactly.
#[test]
fn a_point_whose_full_hill_matrix_is_over_the_limit_is_unresolved() {
    let hb = balance_of(
        "models/seed0/two_mass_freeplay.nsd",
        "two_mass_freeplay",
        3,
        &[],
    );
    let q = DVector::from_element(hb.dim(), 0.01);
    let need = full_hill_bytes(hb.dim());
    assert_eq!(need, 6.0 * 8.0 * (hb.dim() * hb.dim()) as f64);
    let refused = Hill::new(&hb)
        .with_full_limit(need / 2.0)
        .exponents(&q, 1.3);
    assert_eq!(
        refused,
        Err(Unresolved {
            omega: 1.3,
            unknowns: hb.dim(),
            bytes: need,
            limit: need / 2.0
        })
    );
    let message = refused.expect_err("refused").to_string();
    assert!(
        message.contains("Ω = 1.3") && message.contains("14 unknowns"),
        "{message}"
    );
    let full = Hill::new(&hb).with_full_limit(need).exponents(&q, 1.3);
    assert_eq!(full, Ok(hb.floquet(&q, 1.3)));
}

/// The 40-pad beam on 40 elements at H = 5, slipping (tip force 20 N) at Ω = 2516.25, a
/// point of its branch: Newton from the start −33.7 + 2832.0i of the second mode's family
/// reaches −0.88 + 2825.2i, a root of the first's whose own start is nearer. Taken, that root
/// was found twice, the second family's lost, and the point sent to the full matrix; now the
/// start is moved by the eigenvector it has in the linearised problem (`relinearised`) and
/// the condensed problem resolves the point (no full matrix allowed) with the full matrix's
/// exponents (880 unknowns).
#[test]
fn a_start_that_reaches_another_start_s_root_is_moved_to_its_own() {
    let w = 2516.2472075432574;
    let mut hb = balance_of("bench/beam_pads.nsd", "beam_pads", 5, &["np=40", "n=40"]);
    hb.level = 20.0;
    let c = Condensed::new(&hb).expect("condenses");
    let (qc, _) = newton(&c, linearised(&c, w), w, 1e-10).expect("converges");
    let q = c.expand(&qc, w);
    drop(c);
    let condensed = Hill::new(&hb)
        .with_full_limit(0.0)
        .exponents(&q, w)
        .expect("resolved by the condensed problem");
    agree(&condensed, &hb.floquet(&q, w), w);
}
