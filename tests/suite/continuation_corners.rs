//! Continuation across corners of nonsmooth branches (issue 21, item 3): where an element
//! changes state the residual has a kink and the branch may leave it turned by more than 90°
//! in the continuation's variables; the corrector then 2-cycles across the kink at every step
//! length, and the branch used to stop there with a step underflow.

use crate::common::*;
use nalgebra::{DMatrix, DVector};
use nsd::solve::cont::{follow, Problem, Scale, Settings};
use serde_json::Value;

/// `R(x, p) = p − a·min(x, 0) − b·max(x, 0)`: the branch is `p = a x` for `x < 0` and
/// `p = b x` for `x > 0`, a corner at the origin. With `a = 2`, `b = −2` the branch turns by
/// 127° there (a fold at the corner: `p` rises to 0, then falls).
struct Vee {
    a: f64,
    b: f64,
}

impl Problem for Vee {
    fn dim(&self) -> usize {
        1
    }
    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        DVector::from_element(1, p - self.a * x[0].min(0.0) - self.b * x[0].max(0.0))
    }
    fn jacobian(&self, x: &DVector<f64>, _: f64) -> DMatrix<f64> {
        DMatrix::from_element(1, 1, if x[0] < 0.0 { -self.a } else { -self.b })
    }
    fn param_derivative(&self, _: &DVector<f64>, _: f64) -> DVector<f64> {
        DVector::from_element(1, 1.0)
    }
}

/// Continuation of `Vee` from `p = −2` over `[−3, 1]`, unscaled.
const SETTINGS: Settings = Settings {
    range: (-3.0, 1.0),
    step: 0.1,
    min_step: 1e-8,
    max_step: 0.5,
    max_points: 500,
    tol: 1e-12,
    scale: Scale::UNIT,
};

#[test]
fn a_branch_that_turns_back_at_a_corner_is_followed_through_it() {
    let vee = Vee { a: 2.0, b: -2.0 };
    let branch = follow(&vee, DVector::from_element(1, -1.0), -2.0, &SETTINGS).expect("starts");
    assert!(branch.stopped.is_none(), "{:?}", branch.stopped);
    let corners: Vec<_> = branch.points.iter().filter(|p| p.corner).collect();
    assert_eq!(corners.len(), 1, "one corner");
    assert!(corners[0].fold, "p turns back at the corner");
    // Every point on the exact branch, and the branch left along the new line to p < −3.
    for pt in &branch.points {
        let x = pt.x[0];
        let slope = if x < 0.0 { 2.0 } else { -2.0 };
        assert!(
            (pt.p - slope * x).abs() < 1e-12,
            "({x}, {}) off the branch",
            pt.p
        );
    }
    let last = branch.points.last().expect("points");
    assert!(
        last.x[0] > 1.4 && last.p < -3.0,
        "ends at ({}, {})",
        last.x[0],
        last.p
    );
}

#[test]
fn a_branch_that_turns_by_less_than_a_right_angle_needs_no_corner_step() {
    // a = 2, b = 0.5: the slope changes at the corner but p keeps rising (the hyperplane
    // meets the new line): no corner step, no fold.
    let vee = Vee { a: 2.0, b: 0.5 };
    let branch = follow(&vee, DVector::from_element(1, -1.0), -2.0, &SETTINGS).expect("starts");
    assert!(branch.stopped.is_none());
    assert!(branch.points.iter().all(|p| !p.corner && !p.fold));
}

/// NLvib's example 07 (`nlvib07`: three masses, two Jenkins elements, cubic springs, a
/// unilateral spring), H = 7, stability off, as the issue ran it.
const NLVIB07_FRF: &str =
    "continue frf nlvib07 as frf { param = Omega in 0.5..2, harmonics = 7, stability = false }";

#[test]
fn nlvib07_frf_steps_across_the_stick_slip_corner_and_reports_it() {
    // Before: exit 2 at Ω = 1.66739 after 53 points (step underflow; the condensed balance's
    // corrector 2-cycled across the kink where j1 starts to slip: the branch turns back by
    // 127° in the scaled variables there).
    let (code, stdout, stderr, dir) =
        frf_run("tests/models/duffing.nsd", NLVIB07_FRF, "nlvib07_corner");
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).expect("json");
    let bifurcations = v["summary"]["bifurcations"]
        .as_array()
        .expect("list")
        .clone();
    let corners: Vec<f64> = bifurcations
        .iter()
        .filter(|b| b["kind"] == "corner")
        .map(|b| b["Omega"].as_f64().expect("Omega"))
        .collect();
    assert_eq!(corners.len(), 1, "{bifurcations:?}");
    assert!(
        (corners[0] - 1.667390).abs() < 1e-5,
        "corner at {}",
        corners[0]
    );
    let csv = std::fs::read_to_string(dir.join("frf/data.csv")).expect("data");
    let at = csv
        .lines()
        .next()
        .and_then(|h| h.split(',').position(|c| c == "bifurcation"))
        .expect("a bifurcation column");
    assert!(
        csv.lines().any(|l| l.split(',').nth(at) == Some("corner")),
        "marked in data.csv"
    );
    let last: f64 = csv
        .lines()
        .last()
        .and_then(|l| l.split(',').next())
        .and_then(|s| s.parse().ok())
        .expect("last Ω");
    assert!(
        last >= 2.0,
        "the branch reaches the end of the range: {last}"
    );
}

#[test]
fn nlvib07_response_past_the_corner_matches_simulate() {
    // Second route for the branch beyond the corner: at Ω = 1.7 the branch has one point (it
    // comes back from the fold at 1.5588 after the corner at 1.6674); `simulate` from rest
    // for 1500 s (≈ 400 periods, transients decayed to e^{-0.01·1500}) settles on the same
    // motion. Half the swing of m1 over the last 5 periods (not the peak: a Jenkins element
    // that never slips keeps the offset of its history) against the balance's at H = 41
    // (H = 7 is 3.8e-4 off: truncation). Measured 3.9e-6 apart; samples every 0.01 s miss an
    // extreme by at most 1 − cos(1.7 · 0.005) = 9e-6 of the amplitude.
    let omega = 1.7;
    const H: usize = 41;
    let sys = system_at("tests/models/duffing.nsd", "nlvib07", omega);
    let hb =
        nsd::solve::hb::Balance::new(&sys, H, (8 * H + 8).next_power_of_two()).expect("balance");
    let (q, _) = hb
        .solve(hb.ramped_guess(omega), omega, 1e-12)
        .expect("converges");
    let period = std::f64::consts::TAU / omega;
    let samples: Vec<f64> = (0..4096)
        .map(|k| periodic_state(&q, hb.dofs(), H, omega, period * k as f64 / 4096.0)[0])
        .collect();
    let balance_swing = half_swing(&samples);
    let model = std::fs::read_to_string(root().join("tests/models/duffing.nsd")).expect("model");
    let run = "simulate nlvib07 as settle { t = 0..1500, output = every(0.01) }";
    let (code, _, stderr, dir) = run_text(
        &format!("{model}\n{run}\n"),
        "nlvib07_simulate",
        &["--only", "settle", "--set", "Omega=1.7"],
    );
    assert_eq!(code, 0, "{stderr}");
    let csv = std::fs::read_to_string(dir.join("settle/data.csv")).expect("data");
    let window = 1500.0 - 5.0 * std::f64::consts::TAU / omega;
    let simulated: Vec<f64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut cells = l.split(',').map(|c| c.parse::<f64>().expect("number"));
            let t = cells.next()?;
            (t >= window).then(|| cells.next()).flatten()
        })
        .collect();
    let simulated_swing = half_swing(&simulated);
    let gap = (balance_swing - simulated_swing).abs() / simulated_swing;
    assert!(gap < 3e-5, "{balance_swing} vs {simulated_swing}: {gap:e}");
}

/// Half the peak-to-peak swing of a sampled signal.
fn half_swing(samples: &[f64]) -> f64 {
    let (lo, hi) = samples
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    0.5 * (hi - lo)
}
