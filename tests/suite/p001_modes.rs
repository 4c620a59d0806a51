//! Paper 001: natural frequencies of the regime-map models with the contact open, from
//! `nsd check --json`, against the paper's closed forms.

use crate::common::*;

/// Eq. 24 of paper 001: Ω̄1,2 = [(γ + κ + γκ) ∓ √((γ + κ + γκ)² − 4γκ)]^½ / (r1 √(2γ)).
fn two_dof(gamma: f64, kappa: f64, r1: f64) -> [f64; 2] {
    let s = gamma + kappa + gamma * kappa;
    let d = (s * s - 4.0 * gamma * kappa).sqrt();
    [
        (s - d).sqrt() / (r1 * (2.0 * gamma).sqrt()),
        (s + d).sqrt() / (r1 * (2.0 * gamma).sqrt()),
    ]
}

#[test]
fn two_dof_models_match_eq_24() {
    let files = [
        "ground_lower",
        "ground_upper",
        "base_lower",
        "base_upper",
        "mass_fixed",
    ];
    for (gamma, kappa, r1) in [
        (1.0, 1.0, 1.0),
        (0.5, 2.0, 1.0),
        (2.0, 0.3, 0.7),
        (0.1, 10.0, 1.9),
    ] {
        for f in files {
            let sets = [
                format!("gamma={gamma}"),
                format!("kappa={kappa}"),
                format!("r1={r1}"),
            ];
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            let v = check_json(&format!("models/seed1/{f}.nsd"), &sets);
            // Tolerance: a 2×2 symmetric eigenproblem in double precision, ~1e-15 relative.
            assert_rel(
                &frequencies(&v),
                &two_dof(gamma, kappa, r1),
                1e-12,
                &format!("{f} γ={gamma} κ={kappa} r1={r1}"),
            );
        }
    }
}

#[test]
fn sdof_frequency_is_one_over_r() {
    let v = check_json("models/seed1/sdof.nsd", &["r=0.8"]);
    assert_rel(&frequencies(&v), &[1.25], 1e-14, "SDOF");
}

#[test]
fn five_dof_unit_chains_are_fixed_free() {
    // Unit masses r1² and unit springs, base at one end: Ω̄j = 2 sin((2j − 1)π / 22) / r1.
    for file in ["chain5_ground_m4", "chain5_ground_m2"] {
        for r1 in [1.0, 1.3] {
            let v = check_json(&format!("models/seed1/{file}.nsd"), &[&format!("r1={r1}")]);
            let expected: Vec<f64> = (1..=5)
                .map(|j| 2.0 * ((2 * j - 1) as f64 * std::f64::consts::PI / 22.0).sin() / r1)
                .collect();
            assert_rel(&frequencies(&v), &expected, 1e-12, file);
        }
    }
}

#[test]
fn stuck_contact_mass_leaves_the_lower_subsystem() {
    // With the contact on mass 4 stuck, masses 1–3 between the base and the held mass resonate
    // at 2 sin(jπ/8) = 0.7654, 1.4142, 1.8478 (the paper's no-motion peaks), and mass 5 alone
    // on its spring at 1.
    let (code, stdout, stderr) = nsd(&[
        "run",
        "models/seed1/chain5_ground_m4.nsd",
        "--json",
        "--out",
        "target/test-out/p001",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let first: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["kind"], "modes");
    let stuck = nsd::solve::modes::Contacts::Stuck;
    let prog = nsd::lang::Program::load(std::path::Path::new("models/seed1/chain5_ground_m4.nsd"))
        .expect("loads");
    let model = nsd::lang::resolve(&prog, "chain5_ground_m4", &[]).expect("resolves");
    let modes =
        nsd::solve::modes::modes(&nsd::model::assemble(&model), stuck, None).expect("modes");
    let mut expected: Vec<f64> = (1..=3)
        .map(|j| 2.0 * (j as f64 * std::f64::consts::PI / 8.0).sin())
        .collect();
    expected.insert(1, 1.0);
    assert_rel(&modes.omega, &expected, 1e-12, "stuck chain");
    assert!((modes.omega[0] - 0.7654).abs() < 1e-4 && (modes.omega[3] - 1.8478).abs() < 1e-4);
}
