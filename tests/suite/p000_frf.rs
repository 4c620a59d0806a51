//! The free-play 2-DOF system (paper 000 form) in the frequency domain (issue 6): the FRF
//! with exact free-play gaps passes its grazing points and folds, and its periodic points
//! are the steady states `simulate` finds.

use crate::common::*;
use nsd::solve::hb::Balance;

const MODELS: &str = "tests/models/duffing.nsd";

#[test]
fn freeplay_frf_passes_its_grazing_points_and_folds() {
    // At 0.3 of the loads the response enters the clearance (0.05) on the flank of the
    // superharmonic resonance near Ω = 0.63, turns twice (folds at 0.662 and 0.644), leaves
    // it and enters it again on the main resonance near 1.05; with the AFT of the kinked
    // force the branch stalled at the first grazing.
    let (code, stdout, stderr, dir) = frf_run(
        MODELS,
        "continue frf two_dof_freeplay as frf { param = Omega in 0.6..1.6, harmonics = 9, excitation = 0.3 }",
        "p000_frf",
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("json")).expect("json");
    let folds: Vec<f64> = v["summary"]["folds"]
        .as_array()
        .expect("folds")
        .iter()
        .map(|f| f["Omega"].as_f64().expect("Omega"))
        .collect();
    assert_eq!(folds.len(), 2, "{folds:?}");
    assert!(
        (folds[0] - 0.662).abs() < 0.002 && (folds[1] - 0.644).abs() < 0.002,
        "{folds:?}"
    );
    let csv = std::fs::read_to_string(dir.join("frf/data.csv")).expect("data");
    let rows: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().expect("Omega"), f[2].parse().expect("max"))
        })
        .collect();
    let grazings = rows
        .windows(2)
        .filter(|w| (w[0].1 - 0.05) * (w[1].1 - 0.05) < 0.0)
        .count();
    assert!(grazings >= 3, "{grazings} grazing crossings");
    assert!(
        rows.last().expect("rows").0 >= 1.6,
        "the branch reaches the end of the range"
    );
}

#[test]
fn freeplay_periodic_points_are_the_simulated_steady_states() {
    // Stable periodic points (in contact) at three frequencies: `simulate` started on the
    // balance's orbit and run for 300 periods (rtol = atol = 1e-12, events located exactly)
    // must come back to the same displacements. The balance of a kinked force converges
    // slowly in H: measured |Δx| / |x| = 6.7e-4, 2.8e-4, 1.5e-4 with H = 9 and 4.8e-5,
    // 9.8e-6, 9.7e-7 with H = 25 (velocities converge one power of H slower), so the bar is
    // 1e-4 at H = 25 and the error must fall from H = 9 to H = 25.
    let masses = ["m1", "m2"];
    for omega in [0.8, 1.1, 1.55] {
        let sys = system_at(MODELS, "two_dof_freeplay", omega);
        let mut errors = Vec::new();
        for h in [9, 25] {
            let hb = Balance::new(&sys, h, (8 * h + 8).next_power_of_two()).expect("balance");
            let (q, _) = hb
                .solve(hb.ramped_guess(omega), omega, 1e-12)
                .expect("converges");
            assert!(hb.is_stable(&q, omega, 1e-7), "Ω = {omega}, H = {h}");
            let y0 = periodic_state(&q, 2, h, omega, 0.0);
            let t1 = 300.0 * std::f64::consts::TAU / omega;
            let tag = format!("p000_frf_sim_{omega}_{h}");
            let end = &simulate_to(
                MODELS,
                "two_dof_freeplay",
                &masses,
                omega,
                std::slice::from_ref(&y0),
                t1,
                &tag,
            )[0];
            // Displacements (velocities converge one order of H slower).
            let size = y0[..2].iter().map(|v| v * v).sum::<f64>().sqrt();
            let gap = y0[..2]
                .iter()
                .zip(end)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
                .sqrt();
            errors.push(gap / size);
        }
        assert!(errors[1] < 1e-4, "Ω = {omega}: {errors:?}");
        assert!(errors[1] < errors[0], "Ω = {omega}: {errors:?}");
    }
}

#[test]
fn a_downward_range_continues_from_its_upper_end_and_finds_the_same_folds() {
    // Issue 21, item 15: `param = Omega in 1.6..0.6` was rejected ("the end must come after
    // the start"). Run downward, the Duffing branch starts at 2, ends below 0.5, and its
    // folds are those of the upward run (each located by bisection on the branch: to the
    // corrector's tolerance, not to the step; measured 4e-14 apart). The ends have one
    // response each (the free-play pair has two at 1.6: downward from the linearised start
    // it follows the one out of contact to its grazing fold at 1.4791).
    let folds = |range: &str, tag: &str| -> (Vec<f64>, f64, f64) {
        let analysis =
            format!("continue frf duffing as frf {{ param = Omega in {range}, harmonics = 5 }}");
        let (code, stdout, stderr, dir) = frf_run(MODELS, &analysis, tag);
        assert_eq!(code, 0, "{stderr}");
        let v: serde_json::Value =
            serde_json::from_str(stdout.lines().last().expect("json")).expect("json");
        let mut omegas: Vec<f64> = v["summary"]["folds"]
            .as_array()
            .expect("folds")
            .iter()
            .map(|f| f["Omega"].as_f64().expect("Omega"))
            .collect();
        omegas.sort_by(f64::total_cmp);
        let csv = std::fs::read_to_string(dir.join("frf/data.csv")).expect("data");
        let omega = |line: Option<&str>| -> f64 {
            line.and_then(|l| l.split(',').next())
                .and_then(|s| s.parse().ok())
                .expect("Ω")
        };
        (omegas, omega(csv.lines().nth(1)), omega(csv.lines().last()))
    };
    let (up, up_first, up_last) = folds("0.5..2", "p000_frf_up");
    let (down, down_first, down_last) = folds("2..0.5", "p000_frf_down");
    assert!(up_first == 0.5 && up_last > 2.0, "{up_first}..{up_last}");
    assert!(
        down_first == 2.0 && down_last < 0.5,
        "{down_first}..{down_last}"
    );
    assert!(up.len() == 2 && down.len() == 2, "{up:?} vs {down:?}");
    for (a, b) in up.iter().zip(&down) {
        assert!((a - b).abs() < 1e-8, "{up:?} vs {down:?}");
    }
}

/// The seed free-play pair at Ω = 1.1, H = 25: the ramp's one-harmonic stage stalls under
/// Newton from the response linearised at rest (|R| wanders near 7e-2, a minimum of |R|
/// that is no solution; it converged at iteration 46 of 50, or failed, as round-off in the
/// start went), and falls back on continuation in the excitation level from 0
/// (`Balance::by_level`): the ramp reaches the balance's solution.
#[test]
fn a_ramp_stage_where_newton_stalls_is_reached_by_continuation_in_the_level() {
    let hb = balance_of(
        "models/seed0/two_mass_freeplay.nsd",
        "two_mass_freeplay",
        25,
        &[],
    );
    let omega = 1.1;
    let q = hb.ramped_guess(omega);
    let residual = hb.residual(&q, omega).norm();
    assert!(residual <= 1e-10, "residual {residual:e}");
}
