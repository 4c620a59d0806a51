//! Paper 001: the motion / no-motion boundary from the assembled system (issue 5, first
//! part), against the paper's stated values and, on a second route, against exact stick–slip
//! simulation.

mod common;
use common::*;
use nsd::lang::{parse_override, resolve, Program};
use nsd::model::{assemble, System};
use nsd::solve::regimes::no_motion::{holding_force, peaks, setup};
use std::path::Path;

fn system(file: &str, model: &str, sets: &[&str]) -> System {
    let prog = Program::load(Path::new(file)).expect("loads");
    let ov: Vec<_> = sets
        .iter()
        .map(|s| parse_override(s).expect("override"))
        .collect();
    assemble(&resolve(&prog, model, &ov).expect("resolves"))
}

#[test]
fn sdof_no_motion_for_beta_at_least_one() {
    // Den Hartog: the static friction must exceed the excitation amplitude: β ≥ 1 at every r.
    for r in ["0.3", "1.7", "4"] {
        let sys = system("models/seed1/sdof.nsd", "sdof", &[&format!("r={r}")]);
        let s = setup(&sys).expect("one contact, harmonic base");
        assert!((holding_force(&sys, &s) - 1.0).abs() < 1e-12, "r = {r}");
    }
}

#[test]
fn two_dof_upper_contact_peak_and_low_frequency_limit() {
    for (gamma, kappa) in [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3)] {
        let sets = [format!("gamma={gamma}"), format!("kappa={kappa}")];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let sys = system("models/seed1/ground_upper.nsd", "ground_upper", &sets);
        let s = setup(&sys).expect("setup");
        // Peaks in r1 are the held subsystem's frequencies at r1 = 1: here √(1 + κ).
        assert_rel(&peaks(&sys, &s), &[(1.0f64 + kappa).sqrt()], 1e-12, "peak");
        let low = system(
            "models/seed1/ground_upper.nsd",
            "ground_upper",
            &[sets[0], sets[1], "r1=1e-4"],
        );
        let limit = holding_force(&low, &setup(&low).expect("setup"));
        assert!(
            (limit - kappa / (1.0 + kappa)).abs() < 1e-6,
            "r1 → 0: {limit} vs κ/(1+κ)"
        );
    }
}

#[test]
#[allow(clippy::approx_constant)] // 1.4142 is the paper's printed value, kept as printed.
fn five_dof_chains_peaks() {
    let sys = system("models/seed1/chain5_ground_m4.nsd", "chain5_ground_m4", &[]);
    let p = peaks(&sys, &setup(&sys).expect("setup"));
    for (got, want) in p.iter().zip([0.7654, 1.4142, 1.8478]) {
        assert!((got - want).abs() < 1e-4, "{p:?}");
    }
    assert_eq!(
        p.len(),
        3,
        "the mass above the contact does not make a peak: {p:?}"
    );
    let sys = system("models/seed1/chain5_ground_m2.nsd", "chain5_ground_m2", &[]);
    let p = peaks(&sys, &setup(&sys).expect("setup"));
    assert_rel(&p, &[2f64.sqrt()], 1e-12, "contact on mass 2");
}

#[test]
fn ten_dof_chain_peaks_are_the_lower_subsystem_eigenvalues() {
    // A chain the paper never drew: 10 unit masses, contact on mass 7. Held, masses 1–6 form
    // a fixed–fixed chain: ω_j = 2 sin(jπ/14).
    let dir = root().join("target/test-out/regimes");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("chain10.nsd");
    std::fs::write(&file, "model chain10(r1 = 1, beta = 0.2) {\n  mass x[1..10] = r1^2\n  spring base -- x[1] { k = 1 }\n  spring x[i-1] -- x[i] { k = 1 } for i in 2..10\n  friction wall: x[7] -- ground { force = beta }\n  base = cos(t)\n}\n").expect("write");
    let sys = system(file.to_str().expect("utf-8"), "chain10", &[]);
    let expected: Vec<f64> = (1..=6)
        .map(|j| 2.0 * (j as f64 * std::f64::consts::PI / 14.0).sin())
        .collect();
    assert_rel(
        &peaks(&sys, &setup(&sys).expect("setup")),
        &expected,
        1e-10,
        "10-DOF chain",
    );
}

#[test]
fn threshold_agrees_with_exact_stick_slip_simulation() {
    // Second route: starting on the held steady state (m1 at X1 = 1/(1 + κ − r1²), at rest,
    // m2 held), just above the computed threshold the contact mass never moves; just below
    // it, it does. (From rest the undamped transient would add to the holding force.)
    let x1 = 1.0 / (2.0 - 0.64);
    let sys = system("models/seed1/ground_upper.nsd", "ground_upper", &["r1=0.8"]);
    let threshold = holding_force(&sys, &setup(&sys).expect("setup"));
    for (factor, moves) in [(1.02, false), (0.98, true)] {
        let beta = factor * threshold;
        let out = root().join("target/test-out/regimes");
        std::fs::create_dir_all(&out).expect("dir");
        let file = out.join("sim.nsd");
        let text = std::fs::read_to_string(root().join("models/seed1/ground_upper.nsd")).expect("model") + "\nsimulate ground_upper as sim { t = 0..100, x0 = { m1 = X1 }, rtol = 1e-10, atol = 1e-10 }\n";
        let text = text.replace("X1", &format!("{x1:.17}"));
        std::fs::write(&file, text).expect("write");
        let (code, stdout, stderr) = nsd(&[
            "run",
            file.to_str().expect("utf-8"),
            "--only",
            "sim",
            "--set",
            "r1=0.8",
            "--set",
            &format!("beta={beta}"),
            "--json",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let v: serde_json::Value =
            serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
        let x2 = v["summary"]["final"]["m2.x"].as_f64().expect("m2.x");
        assert_eq!(
            x2.abs() > 1e-12 || v["summary"]["events"] != 0,
            moves,
            "β = {factor} × threshold: {}",
            v["summary"]
        );
    }
}

/// Den Hartog's SDOF boundary, eq. 13 with S = 1 (ERRATA: U = tan(π/2r)/r).
fn den_hartog(r: f64) -> f64 {
    let v = 1.0 / (1.0 - r * r);
    let u = (std::f64::consts::PI / (2.0 * r)).tan() / r;
    (v * v / (u * u + r.powi(-4))).sqrt()
}

#[test]
fn modal_superposition_reduces_to_den_hartog_for_one_dof() {
    use nsd::solve::regimes::stick_slip::continuous_limit;
    for r in [0.4, 0.9, 1.3, 2.0, 3.5] {
        let sys = system("models/seed1/sdof.nsd", "sdof", &[&format!("r={r}")]);
        let got = continuous_limit(&sys, &setup(&sys).expect("setup")).expect("modes");
        assert!(
            (got - den_hartog(r)).abs() < 1e-12 * den_hartog(r).max(1.0),
            "r = {r}: {got} vs {}",
            den_hartog(r)
        );
    }
}

#[test]
fn two_dof_boundary_matches_the_papers_closed_form() {
    // Eqs. 24, 46, 55, 56 written out for the lower-mass contact, against the assembled route.
    use nsd::solve::regimes::stick_slip::continuous_limit;
    for (gamma, kappa, r1) in [(1.0f64, 1.0f64, 2.0f64), (0.5, 2.0, 1.2), (2.0, 0.3, 0.7)] {
        let s = gamma + kappa + gamma * kappa;
        let d = (s * s - 4.0 * gamma * kappa).sqrt();
        let (mut v, mut u) = (0.0, 0.0);
        for om in [
            (s - d).sqrt() / (r1 * (2.0 * gamma).sqrt()),
            (s + d).sqrt() / (r1 * (2.0 * gamma).sqrt()),
        ] {
            let phi = 1.0 / (1.0 - gamma / kappa * om * om * r1 * r1);
            let r = 1.0 / om;
            let w = 1.0 / (1.0 + gamma * phi * phi) * (r / r1).powi(2);
            v += w / (1.0 - r * r);
            u += w * (std::f64::consts::PI / (2.0 * r)).tan() / r;
        }
        let closed = (v * v / (u * u + r1.powi(-4))).sqrt();
        let sets = [
            format!("gamma={gamma}"),
            format!("kappa={kappa}"),
            format!("r1={r1}"),
        ];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let sys = system("models/seed1/ground_lower.nsd", "ground_lower", &sets);
        let got = continuous_limit(&sys, &setup(&sys).expect("setup")).expect("modes");
        assert!(
            (got - closed).abs() < 1e-10 * closed.max(1.0),
            "γ={gamma} κ={kappa} r1={r1}: {got} vs {closed}"
        );
    }
}

#[test]
fn two_dof_boundary_agrees_with_exact_stick_slip_simulation() {
    // Second route for the lower-mass contact (γ = κ = 1): 200 excitation cycles from rest,
    // the regime read from the last 20: continuous at 0.9 β_lim, stick–slip at 1.1 β_lim.
    use nsd::solve::regimes::stick_slip::continuous_limit;
    for r1 in [1.2, 2.0] {
        let sys = system(
            "models/seed1/ground_lower.nsd",
            "ground_lower",
            &[&format!("r1={r1}")],
        );
        let lim = continuous_limit(&sys, &setup(&sys).expect("setup")).expect("modes");
        for (factor, stick_slip) in [(0.9, false), (1.1, true)] {
            let out = root().join("target/test-out/regimes");
            std::fs::create_dir_all(&out).expect("dir");
            let file = out.join(format!("gl_{r1}_{factor}.nsd"));
            let text = std::fs::read_to_string(root().join("models/seed1/ground_lower.nsd")).expect("model") + "\nsimulate ground_lower as sim { t = 0..1260, rtol = 1e-9, atol = 1e-9, output = every(1) }\n";
            std::fs::write(&file, text).expect("write");
            let dir = out.join(format!("gl_{r1}_{factor}"));
            let beta = format!("beta={}", factor * lim);
            let (code, stdout, stderr) = nsd(&[
                "run",
                file.to_str().expect("utf-8"),
                "--only",
                "sim",
                "--set",
                &format!("r1={r1}"),
                "--set",
                &beta,
                "--json",
                "--out",
                dir.to_str().expect("utf-8"),
            ]);
            assert_eq!(code, 0, "{stderr}");
            let v: serde_json::Value =
                serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
            let events = std::fs::read_to_string(
                std::path::PathBuf::from(v["out"].as_str().expect("out")).join("events.csv"),
            )
            .expect("events");
            let late_sticks = events
                .lines()
                .skip(1)
                .filter(|l| {
                    l.split(',')
                        .next()
                        .and_then(|t| t.parse::<f64>().ok())
                        .is_some_and(|t| t > 1260.0 - 40.0 * std::f64::consts::PI)
                        && l.contains(",stick,")
                })
                .count();
            assert_eq!(
                late_sticks > 0,
                stick_slip,
                "r1 = {r1}, β = {factor} β_lim: {late_sticks} stops in the last 20 cycles"
            );
        }
    }
}
