//! Paper 001: the analytic regime boundaries from the assembled system, for the three walls,
//! against the paper's stated values and, on a second route, against exact stick–slip
//! simulation.

use crate::common::*;
use nsd::lang::{parse_override, resolve, Program};
use nsd::model::{assemble, System};
use nsd::solve::regimes::{continuous_limit, StopFactor};
use nsd::solve::regimes::{holding_force, peaks_and_antiresonances};
use nsd::solve::regimes::{setup, Wall};
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
        assert!(
            (holding_force(&sys, &s).abs() - 1.0).abs() < 1e-12,
            "r = {r}"
        );
    }
}

/// The holding force's peaks and zeros along `r1 ∈ (0, 3]` (step 0.01), the model resolved
/// at each point.
fn features_in_r1(file: &str, model: &str, sets: &[&str]) -> (Vec<f64>, Vec<f64>) {
    let xs: Vec<f64> = (1..=300).map(|i| i as f64 * 0.01).collect();
    peaks_and_antiresonances(&xs, |r1| {
        let r1 = format!("r1={r1}");
        let mut all = sets.to_vec();
        all.push(&r1);
        let sys = system(file, model, &all);
        holding_force(&sys, &setup(&sys).expect("setup"))
    })
}

#[test]
fn two_dof_upper_contact_peak_and_low_frequency_limit() {
    for (gamma, kappa) in [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3)] {
        let sets = [format!("gamma={gamma}"), format!("kappa={kappa}")];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        // Eq. 63: the peak is at r1 = √(1 + κ), and there is no antiresonance.
        let (peaks, zeros) = features_in_r1("models/seed1/ground_upper.nsd", "ground_upper", &sets);
        assert_rel(&peaks, &[(1.0f64 + kappa).sqrt()], 1e-12, "peak");
        assert!(zeros.is_empty(), "{zeros:?}");
        let low = system(
            "models/seed1/ground_upper.nsd",
            "ground_upper",
            &[sets[0], sets[1], "r1=1e-4"],
        );
        let limit = holding_force(&low, &setup(&low).expect("setup")).abs();
        assert!(
            (limit - kappa / (1.0 + kappa)).abs() < 1e-6,
            "r1 → 0: {limit} vs κ/(1+κ)"
        );
    }
}

#[test]
#[allow(clippy::approx_constant)] // 1.4142 is the paper's printed value, kept as printed.
fn five_dof_chains_peaks() {
    let (p, _) = features_in_r1("models/seed1/chain5_ground_m4.nsd", "chain5_ground_m4", &[]);
    for (got, want) in p.iter().zip([0.7654, 1.4142, 1.8478]) {
        assert!((got - want).abs() < 1e-4, "{p:?}");
    }
    assert_eq!(
        p.len(),
        3,
        "the mass above the contact does not make a peak: {p:?}"
    );
    let (p, _) = features_in_r1("models/seed1/chain5_ground_m2.nsd", "chain5_ground_m2", &[]);
    assert_rel(&p, &[2f64.sqrt()], 1e-12, "contact on mass 2");
}

#[test]
fn ten_dof_chain_peaks_are_the_lower_subsystem_eigenvalues() {
    // A chain the paper never drew: 10 unit masses, contact on mass 7. Held, masses 1–6 form
    // a fixed–fixed chain: ω_j = 2 sin(jπ/14), computed here as the eigenvalues of its
    // assembled K and M (unit masses at r1 = 1) and, for the closed form, by the sine formula.
    let dir = root().join("target/test-out/regimes");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("chain10.nsd");
    std::fs::write(&file, "model chain10(r1 = 1, beta = 0.2) {\n  mass x[1..10] = r1^2\n  spring base -- x[1] { k = 1 }\n  spring x[i-1] -- x[i] { k = 1 } for i in 2..10\n  friction wall: x[7] -- ground { force = beta }\n  base = cos(t)\n}\n").expect("write");
    let sys = system(file.to_str().expect("utf-8"), "chain10", &[]);
    let k = nalgebra::DMatrix::from_fn(10, 10, |i, j| sys.k.get(i, j).copied().unwrap_or(0.0));
    let lower = k.view((0, 0), (6, 6)).clone_owned();
    let mut eigen: Vec<f64> = lower
        .symmetric_eigenvalues()
        .iter()
        .map(|l| l.sqrt())
        .collect();
    eigen.sort_by(f64::total_cmp);
    let closed: Vec<f64> = (1..=6)
        .map(|j| 2.0 * (j as f64 * std::f64::consts::PI / 14.0).sin())
        .collect();
    assert_rel(&eigen, &closed, 1e-12, "lower subsystem");
    // In r1 the peak sits where the unit-frequency excitation meets ω_j/r1 = 1.
    let (peaks, _) = features_in_r1(file.to_str().expect("utf-8"), "chain10", &[]);
    assert_rel(&peaks, &eigen, 1e-10, "10-DOF chain");
}

#[test]
fn threshold_agrees_with_exact_stick_slip_simulation() {
    // Second route: starting on the held steady state (m1 at X1 = 1/(1 + κ − r1²), at rest,
    // m2 held), just above the computed threshold the contact mass never moves; just below
    // it, it does. (From rest the undamped transient would add to the holding force.)
    let x1 = 1.0 / (2.0 - 0.64);
    let sys = system("models/seed1/ground_upper.nsd", "ground_upper", &["r1=0.8"]);
    let threshold = holding_force(&sys, &setup(&sys).expect("setup")).abs();
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
    for r in [0.4, 0.9, 1.3, 2.0, 3.5] {
        let sys = system("models/seed1/sdof.nsd", "sdof", &[&format!("r={r}")]);
        let got = continuous_limit(&sys, &setup(&sys).expect("setup"), StopFactor::Unit);
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
        let got = continuous_limit(&sys, &setup(&sys).expect("setup"), StopFactor::Unit);
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
    for r1 in [1.2, 2.0] {
        let sys = system(
            "models/seed1/ground_lower.nsd",
            "ground_lower",
            &[&format!("r1={r1}")],
        );
        let lim = continuous_limit(&sys, &setup(&sys).expect("setup"), StopFactor::Unit);
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

/// `--set` strings for γ, κ (and r1).
fn sets(gamma: f64, kappa: f64, r1: Option<f64>) -> Vec<String> {
    let mut s = vec![format!("gamma={gamma}"), format!("kappa={kappa}")];
    s.extend(r1.map(|r| format!("r1={r}")));
    s
}

fn as_strs(s: &[String]) -> Vec<&str> {
    s.iter().map(String::as_str).collect()
}

/// The 2-DOF open-contact frequencies of eq. 24 (rad per unit τ).
fn eq24(gamma: f64, kappa: f64, r1: f64) -> [f64; 2] {
    let s = gamma + kappa + gamma * kappa;
    let d = (s * s - 4.0 * gamma * kappa).sqrt();
    [
        (s - d).sqrt() / (r1 * (2.0 * gamma).sqrt()),
        (s + d).sqrt() / (r1 * (2.0 * gamma).sqrt()),
    ]
}

#[test]
fn base_fixed_walls_threshold_peak_and_antiresonance() {
    for (gamma, kappa) in [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3)] {
        let s = sets(gamma, kappa, None);
        // Lower mass on the moving wall: eq. 89, peak √(κ/γ), antiresonance eq. 90.
        let (peaks, zeros) =
            features_in_r1("models/seed1/base_lower.nsd", "base_lower", &as_strs(&s));
        assert_rel(&peaks, &[(kappa / gamma).sqrt()], 1e-10, "eq. 89 peak");
        assert_rel(
            &zeros,
            &[(kappa * (1.0 + gamma) / gamma).sqrt()],
            1e-10,
            "eq. 90",
        );
        // Upper mass: eq. 94, peak √(1 + κ), antiresonance eq. 95.
        let (peaks, zeros) =
            features_in_r1("models/seed1/base_upper.nsd", "base_upper", &as_strs(&s));
        assert_rel(&peaks, &[(1.0 + kappa).sqrt()], 1e-10, "eq. 94 peak");
        assert_rel(
            &zeros,
            &[((gamma + gamma * kappa + kappa) / gamma).sqrt()],
            1e-10,
            "eq. 95",
        );
        for r1 in [0.3, 0.9, 1.7, 2.6] {
            let s = sets(gamma, kappa, Some(r1));
            let r2 = r1 * r1;
            for (file, model, closed) in [
                (
                    "base_lower",
                    "base_lower",
                    (kappa * (1.0 + gamma) * r2 - gamma * r2 * r2) / (kappa - gamma * r2),
                ),
                (
                    "base_upper",
                    "base_upper",
                    ((gamma + gamma * kappa + kappa) * r2 - gamma * r2 * r2) / (1.0 + kappa - r2),
                ),
            ] {
                let sys = system(&format!("models/seed1/{file}.nsd"), model, &as_strs(&s));
                let st = setup(&sys).expect("setup");
                assert_eq!(st.wall, Wall::Base);
                let got = holding_force(&sys, &st).abs();
                assert!(
                    (got - closed.abs()).abs() < 1e-12 * closed.abs().max(1.0),
                    "{model} r1={r1}: {got} vs {closed}"
                );
            }
        }
    }
}

#[test]
fn mass_fixed_wall_threshold_peak_and_limit() {
    for (gamma, kappa) in [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3)] {
        // Eq. 128; the peak of eq. 129; the limit β∞ of eq. 130.
        let (peaks, zeros) = features_in_r1(
            "models/seed1/mass_fixed.nsd",
            "mass_fixed",
            &as_strs(&sets(gamma, kappa, None)),
        );
        assert_rel(&peaks, &[(1.0 / (1.0 + gamma)).sqrt()], 1e-10, "eq. 129");
        assert!(zeros.is_empty(), "{zeros:?}");
        for r1 in [0.2, 0.6, 1.1, 2.5, 1e3] {
            let sys = system(
                "models/seed1/mass_fixed.nsd",
                "mass_fixed",
                &as_strs(&sets(gamma, kappa, Some(r1))),
            );
            let st = setup(&sys).expect("setup");
            assert_eq!(st.wall, Wall::Mass);
            let closed = gamma * r1 * r1 / (1.0 - (1.0 + gamma) * r1 * r1).abs();
            let got = holding_force(&sys, &st).abs();
            assert!(
                (got - closed).abs() < 1e-10 * closed.max(1.0),
                "r1={r1}: {got} vs {closed}"
            );
        }
        let far = gamma * 1e6 / ((1.0 + gamma) * 1e6 - 1.0);
        assert!((far - gamma / (1.0 + gamma)).abs() < 1e-5, "eq. 130");
    }
}

#[test]
fn mass_fixed_continuous_limit_matches_eq_123() {
    // The paper's equivalent system (eqs. 115–123) against the relative-coordinate route.
    for (gamma, kappa, r1) in [(1.0f64, 1.0f64, 0.8f64), (0.5, 2.0, 1.3), (2.0, 0.3, 2.2)] {
        let g = gamma / (1.0 + gamma);
        let (mut vd, mut ud) = (0.0, 0.0);
        for om in eq24(gamma, kappa, r1) {
            let phi = 1.0 / (1.0 - (1.0 + gamma) * om * om * r1 * r1); // eq. 118
            let r = 1.0 / om;
            let w = 1.0 / (1.0 + gamma * phi * phi) * (r / r1).powi(2);
            vd += (1.0 + gamma) * phi * r1 * r1 * w / (1.0 - r * r); // eq. 121
            ud += w * (std::f64::consts::PI / (2.0 * r)).tan() / r; // eq. 122
        }
        let closed = g * (vd * vd / (ud * ud + r1.powi(-4))).sqrt(); // eq. 123
        assert_continuous_limit("mass_fixed", (gamma, kappa, r1), closed);
    }
}

#[test]
fn base_fixed_continuous_limit_matches_the_equivalent_system() {
    // Eq. 77: the z = x − y system has the same M, K and loads r1² cos τ, γ r1² cos τ; V is
    // the response of z1 (a 2×2 solve), U eq. 55, the boundary eq. 56.
    for (gamma, kappa, r1) in [(1.0f64, 1.0f64, 0.8f64), (0.5, 2.0, 1.3), (2.0, 0.3, 2.2)] {
        let r2 = r1 * r1;
        let (a11, a12, a22) = (1.0 + kappa - r2, -kappa, kappa - gamma * r2);
        let v = (r2 * a22 - a12 * gamma * r2) / (a11 * a22 - a12 * a12);
        let mut u = 0.0;
        for om in eq24(gamma, kappa, r1) {
            let phi = 1.0 / (1.0 - gamma / kappa * om * om * r1 * r1);
            let r = 1.0 / om;
            u += 1.0 / (1.0 + gamma * phi * phi)
                * (r / r1).powi(2)
                * (std::f64::consts::PI / (2.0 * r)).tan()
                / r;
        }
        let closed = (v * v / (u * u + r1.powi(-4))).sqrt();
        assert_continuous_limit("base_lower", (gamma, kappa, r1), closed);
    }
}

#[test]
fn exact_stop_factor_is_eq_16_for_one_dof() {
    // S of eq. 16 by brute force (10⁵ samples of τ), then β_lim of eq. 13 with that S.
    for r in [0.3, 0.45, 0.7, 1.5, 2.5] {
        let u = (std::f64::consts::PI / (2.0 * r)).tan() / r;
        let s = (1..100_000)
            .map(|k| {
                let tau = std::f64::consts::PI * k as f64 / 1e5;
                r * ((tau / r).sin() + u * r * (tau.cos() - (tau / r).cos())) / tau.sin()
            })
            .fold(1.0f64, f64::max);
        let v = 1.0 / (1.0 - r * r);
        let closed = (v * v / (u * u + (s / (r * r)).powi(2))).sqrt();
        let sys = system("models/seed1/sdof.nsd", "sdof", &[&format!("r={r}")]);
        let got = continuous_limit(&sys, &setup(&sys).expect("setup"), StopFactor::Exact);
        assert!(
            (got - closed).abs() < 1e-6 * closed,
            "r = {r}: {got} vs {closed} (S = {s})"
        );
        let unit = continuous_limit(&sys, &setup(&sys).expect("setup"), StopFactor::Unit);
        assert!(got <= unit * (1.0 + 1e-12), "S ≥ 1 lowers the boundary");
    }
}

#[test]
fn closed_form_stick_slip_matches_the_event_driven_integrator() {
    // Second route for the closed-form segments: the same switches (time, from, to) as the
    // DOP853 hybrid integrator at rtol = atol = 1e-12 over 20 cycles, to 1e-7 in time
    // (the integrator's event times carry its global error, ~1e-9 here).
    use nsd::solve::ode::Hybrid;
    use nsd::solve::ode::Tolerances;
    use nsd::solve::ode::{integrate, Config, Method, Output};
    use nsd::solve::regimes::ClosedForm as Problem;
    let cases = [
        ("ground_lower", "r1=1.3", "beta=0.4"),
        ("ground_lower", "r1=0.5", "beta=0.05"),
        ("ground_upper", "r1=0.8", "beta=0.3"),
        ("base_lower", "r1=1.5", "beta=0.5"),
        ("base_upper", "r1=0.9", "beta=0.2"),
        ("mass_fixed", "r1=1.2", "beta=0.3"),
        ("chain5_ground_m4", "r1=1.1", "beta=0.2"),
    ];
    for (model, r1, beta) in cases {
        let sys = system(&format!("models/seed1/{model}.nsd"), model, &[r1, beta]);
        let st = setup(&sys).expect("setup");
        let t1 = 20.0 * std::f64::consts::TAU;
        let (closed, _) = Problem::new(&sys, &st)
            .expect("applies")
            .simulate(t1)
            .expect("runs");
        let mut h = Hybrid::new(&sys, false).expect("integrable");
        let cfg = Config {
            t0: 0.0,
            t1,
            y0: vec![0.0; h.dim()],
            tol: Tolerances {
                rtol: 1e-12,
                atol: 1e-12,
                max_step: t1,
            },
            output: Output::At(vec![t1]),
            method: Method::Dop853,
        };
        let traj = integrate(&mut h, &cfg, &mut |_| {}).expect("integrates");
        let numeric: Vec<_> = traj.events.iter().map(|e| (e.t, e.from, e.to)).collect();
        assert!(closed.len() > 10, "{model}: only {} switches", closed.len());
        assert_eq!(
            closed.len(),
            numeric.len(),
            "{model} {r1} {beta}: {closed:?}\nvs {numeric:?}"
        );
        for (a, b) in closed.iter().zip(&numeric) {
            assert!(
                (a.0 - b.0).abs() < 1e-7 && a.1 == b.1 && a.2 == b.2,
                "{model}: {a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn dimensional_force_driven_sdof_is_den_hartog() {
    // Den Hartog's own setting, in units: m = 2 kg, k = 800 N/m (ω_n = 20 rad/s), a force
    // P cos ωt with P = 8 N (static deflection X_st = P/k = 0.01 m). The boundaries in
    // newtons, over P, are the non-dimensional eq. 13 and β = 1 at r = ω/ω_n.
    let dir = root().join("target/test-out/regimes");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("den_hartog_si.nsd");
    std::fs::write(
        &file,
        "model dh(w = 10 rad/s, F = 1 N) {\n  mass x = 2 kg\n  spring x -- ground { k = 800 N/m }\n  friction wall: x -- ground { force = F }\n  force x = 8 N * cos(w * t)\n}\n",
    )
    .expect("write");
    for w in [6.0, 14.0, 26.0, 47.0] {
        let sys = system(file.to_str().expect("utf-8"), "dh", &[&format!("w={w}")]);
        let st = setup(&sys).expect("a force-driven contact");
        assert_eq!(st.wall, Wall::Ground);
        let r = w / 20.0;
        let cont = continuous_limit(&sys, &st, StopFactor::Unit) / 8.0;
        assert!(
            (cont - den_hartog(r)).abs() < 1e-12 * den_hartog(r).max(1.0),
            "r = {r}: {cont}"
        );
        assert!((holding_force(&sys, &st).abs() / 8.0 - 1.0).abs() < 1e-12);
    }
}

/// The S = 1 continuous limit of a seed1 2-DOF model at (γ, κ, r1) against a closed form, 1e-10.
fn assert_continuous_limit(model: &str, (gamma, kappa, r1): (f64, f64, f64), closed: f64) {
    let sys = system(
        &format!("models/seed1/{model}.nsd"),
        model,
        &as_strs(&sets(gamma, kappa, Some(r1))),
    );
    let got = continuous_limit(&sys, &setup(&sys).expect("setup"), StopFactor::Unit);
    assert!(
        (got - closed).abs() < 1e-10 * closed.max(1.0),
        "{model} γ={gamma} κ={kappa} r1={r1}: {got} vs {closed}"
    );
}
