//! Multibody `simulate` by the `timestepping` backend (paper 002, Sect. 2.1.4, issue 19): the
//! paper's half-implicit scheme with rigid contact, Gauss's principle per step solved as a
//! QP, the step size in [h_min, h_max], positions projected after every step.
//!
//! What is checked, each against its source: Fig. 30's ordering of the energy lost by the
//! clearance pendulum over the step-size ranges; the constraint violation "≤ 1e-10 upon
//! contact" (Sect. 5) for the cylindrical slider; z̈ = F_z/m of the frictionless prismatic
//! slider (Sect. 5.2: "the acceleration is constant"); first-order convergence to the
//! `events` backend on the ideal pendulum; the restitution law and the diagnostics (friction:
//! `p002_friction.rs`).

use crate::common::*;
use serde_json::Value;

/// The JSON object of each analysis of `text` (exit code 0 asserted).
fn run(text: &str, tag: &str) -> Vec<Value> {
    run_json(text, &format!("p002_timestepping/{tag}"), &[])
}

/// A seed model file without its analyses and expectations.
fn seed(file: &str) -> String {
    std::fs::read_to_string(root().join("models/seed2").join(file))
        .expect("model")
        .lines()
        .filter(|l| !l.starts_with("simulate") && !l.starts_with("expect"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fig. 30 (Sect. 5.3): the total mechanical energy of the clearance pendulum (rigid,
/// inelastic contact, released from the horizontal) over 2 s for four step-size ranges.
/// The paper: the lower range [5e-4, 1e-3] conserves energy better than the baseline
/// [1e-3, 2e-3], and with h_max fixed a smaller h_min loses less. Checked as orderings of
/// the energy lost (initial minus final total energy), each strict by at least 2 % of the
/// larger loss, and every loss positive (nothing feeds energy in).
#[test]
fn energy_loss_orders_as_fig_30() {
    let ranges = [
        ("base", 1e-3, 2e-3),
        ("wide_base", 5e-4, 2e-3),
        ("low", 5e-4, 1e-3),
        ("wide_low", 2e-4, 1e-3),
    ];
    let mut text = seed("pendulum_clearance.nsd");
    for (name, lo, hi) in ranges {
        text += &format!(
            "\nsimulate pendulum_clearance_rigid as {name} {{ t = 0..2, method = timestepping, h_min = {lo:e}, h_max = {hi:e}, output = every(0.01) }}"
        );
    }
    let out = run(&(text + "\n"), "fig30");
    let lost: Vec<f64> = out[out.len() - 4..]
        .iter()
        .map(|v| number(v, "energy_dissipated"))
        .collect();
    let larger = |a: f64, b: f64, what: &str| {
        assert!(a > 1.02 * b && b > 0.0, "{what}: {a} J vs {b} J ({lost:?})");
    };
    larger(lost[0], lost[2], "baseline vs lower range");
    larger(lost[0], lost[1], "h_max = 2e-3: h_min 1e-3 vs 5e-4");
    larger(lost[2], lost[3], "h_max = 1e-3: h_min 5e-4 vs 2e-4");
}

/// Sect. 5: "the constraint violation was observed ≤ 1e-10 upon the contact formation" and
/// the equations of motion "satisfied within 1e-9". The cylindrical slider (c = 0.1 mm) in
/// the paper's range h ∈ [1e-3, 1e-2]: at every step with a closed contact, the violation
/// after the projection (joints, penetration, |p| − 1) is ≤ 1e-10 and the residual of the
/// discrete equations of motion ≤ 1e-9 N; the slider does come to rest on the rod.
#[test]
fn cylindrical_slider_keeps_its_contacts_to_1e_10() {
    let text = seed("cylindrical_slider.nsd")
        + "\nsimulate cylindrical_slider as ts { t = 0..1, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = every(0.01) }\n";
    let out = run(&text, "cylindrical");
    let steps = table(&out[0], "steps.csv");
    let (closed, violation, residual) = (
        column(&steps, "closed contacts"),
        column(&steps, "violation"),
        column(&steps, "eom residual [N]"),
    );
    let in_contact: Vec<usize> = (0..closed.len()).filter(|&i| closed[i] > 0.0).collect();
    assert!(
        in_contact.len() > closed.len() / 2,
        "{} of {} steps in contact",
        in_contact.len(),
        closed.len()
    );
    for i in in_contact {
        assert!(
            violation[i] <= 1e-10,
            "step {i}: violation {:e}",
            violation[i]
        );
        assert!(residual[i] <= 1e-9, "step {i}: residual {:e}", residual[i]);
    }
    assert_eq!(number(&out[0], "contacts_closed"), 2.0);
}

/// Sect. 5.2: frictionless guide faces are parallel to the axis, so the constant axial
/// force gives z̈ = F_z/m whatever the contacts do. The triangular slider (F = 5 N, m = 1 kg)
/// over 1 s with every step sampled: after it settles on its faces (t > 0.2 s, the paper's
/// "steady contact around t = 0.2 s") the difference quotient of v_z between consecutive
/// steps is F/m to 1e-6 relative (the scheme updates v_z by h F/m exactly, so only
/// round-off remains), with contacts closed throughout.
#[test]
fn prismatic_slider_accelerates_at_f_over_m() {
    let text = seed("prismatic_slider.nsd")
        + "\nsimulate prismatic_slider as ts { t = 0..1, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = steps }\n";
    let out = run(&text, "prismatic");
    let t = table(&out[0], "trajectory.csv");
    let (ts, vz) = (column(&t, "t [s]"), column(&t, "slider.vz [m/s]"));
    let steps = table(&out[0], "steps.csv");
    let (st, closed) = (column(&steps, "t [s]"), column(&steps, "closed contacts"));
    let mut checked = 0;
    for i in 1..ts.len() {
        if ts[i - 1] < 0.2 {
            continue;
        }
        let zdd = (vz[i] - vz[i - 1]) / (ts[i] - ts[i - 1]);
        assert!((zdd - 5.0).abs() <= 1e-6 * 5.0, "t = {}: z̈ = {zdd}", ts[i]);
        checked += 1;
    }
    assert!(checked > 50, "{checked} steps checked");
    for (t, c) in st.iter().zip(&closed) {
        assert!(*t < 0.2 || *c > 0.0, "no contact at t = {t}");
    }
}

/// A trial whose position projection does not converge is retried at half the step
/// (down to `h_min`) instead of ending the run. With `drift = 1` (m) every trial passes the
/// drift test, so the clearance pendulum's steps of h_max = 1e-2 reach the projection with
/// drifts beyond its 0.1 mm clearance, where Newton fails near the bottom of the swing (the
/// loop that ended a run on its first failed projection stopped at t = 0.15 s). The run
/// reaches t = 1 s; the retried steps are halved (h ≤ h_max/2); every step still ends on its
/// constraints to 1e-10.
#[test]
fn failed_projection_is_retried_at_half_the_step() {
    let text = seed("pendulum_clearance.nsd")
        + "\nsimulate pendulum_clearance_rigid as coarse { t = 0..1, method = timestepping, h_min = 1e-4, h_max = 1e-2, drift = 1, output = every(0.01) }\n";
    let out = run(&text, "retried");
    assert_eq!(number(&out[0], "final_time"), 1.0);
    let steps = table(&out[0], "steps.csv");
    let (h, trials, violation) = (
        column(&steps, "h [s]"),
        column(&steps, "trials"),
        column(&steps, "violation"),
    );
    let retried: Vec<usize> = (0..h.len()).filter(|&i| trials[i] > 1.0).collect();
    assert!(!retried.is_empty(), "no step was retried");
    for i in retried {
        assert!(
            h[i] <= 5e-3,
            "step {i}: h = {} after {} trials",
            h[i],
            trials[i]
        );
    }
    assert!(violation.iter().all(|v| *v <= 1e-10));
}

/// The angle about Z of the final orientation of `pendulum` in a run.
fn final_angle(v: &Value) -> f64 {
    let e = |k: &str| {
        v["summary"]["final"][format!("pendulum.{k}")]
            .as_f64()
            .expect("final")
    };
    2.0 * e("e3").atan2(e("e0"))
}

/// The half-implicit scheme is first order (eqs. 22b–22d): on the ideal pendulum (released
/// from the horizontal) at fixed steps h = 1e-3 and 5e-4 (h_min = h_max, the paper's Sect. 5.4
/// fixed-step studies), its angle at t = 1 s differs from the `events` run (rtol = 1e-12) by
/// an error that halves with h: the ratio lies in [1.7, 2.3]; and the smaller error is below
/// 1e-2 rad. Both runs keep the joint at position and velocity level to 1e-10.
#[test]
fn ideal_pendulum_converges_at_first_order() {
    let mut text = seed("pendulum_ideal.nsd");
    text += "\nsimulate pendulum_ideal as exact { t = 0..1, rtol = 1e-12, atol = 1e-12, output = every(0.1) }";
    for (name, h) in [("coarse", 1e-3), ("fine", 5e-4)] {
        text += &format!(
            "\nsimulate pendulum_ideal as {name} {{ t = 0..1, method = timestepping, h_min = {h:e}, h_max = {h:e}, output = every(0.1) }}"
        );
    }
    let out = run(&(text + "\n"), "ideal");
    let exact = final_angle(&out[0]);
    let errors: Vec<f64> = out[1..]
        .iter()
        .map(|v| (final_angle(v) - exact).abs())
        .collect();
    let ratio = errors[0] / errors[1];
    assert!(
        (1.7..=2.3).contains(&ratio),
        "errors {errors:?}, ratio {ratio}"
    );
    assert!(errors[1] < 1e-2, "{errors:?}");
    // The velocities are projected after each step too (`timestep.rs`): without it the
    // step's velocity left |Φ_q q̇| ≈ 1.6e-2 m/s at h = 1e-3.
    for v in &out[1..] {
        assert!(number(v, "max_constraint_violation") < 1e-10);
        assert!(number(v, "max_velocity_violation") <= 1e-10);
    }
}

/// A clearance joint with the rigid `impact(e)` law: the `events` backend refuses it with
/// friction (naming `mu`); the `timestepping` backend runs it (Newton's restitution at
/// velocity level), keeps its constraints to 1e-10 and, with e = 0.8, loses less energy than
/// the inelastic contact (e = 0) of the same pendulum. h_min > h_max is a `bad_option`
/// (`tests/diagnostics/simulate_h_min_above_h_max.nsd` holds its golden report).
#[test]
fn impact_law_runs_and_bad_options_are_diagnosed() {
    let model = |name: &str, law: &str| {
        format!(
            "model {name} {{\n  gravity = (0, -9.81, 0)\n  body pendulum {{ mass = 1, inertia = (1e-3, 1e-2, 1e-2), at = (0.2, 0, 0) }}\n  joint hinge: revolute ground -- pendulum {{ at = (0, 0, 0), axis = (0, 0, 1), radius = 5 mm, clearance = 1 mm, {law} }}\n}}\n"
        )
    };
    let mut text = model("bouncy", "law = impact(e = 0.8)") + &model("dead", "law = impact(e = 0)");
    for m in ["bouncy", "dead"] {
        text += &format!("simulate {m} as {m}_run {{ t = 0..1, method = timestepping, h_min = 2e-4, h_max = 1e-3, output = every(0.01) }}\n");
    }
    let out = run(&text, "impact");
    for v in &out {
        assert!(number(v, "max_step_violation") <= 1e-10);
        assert!(number(v, "contact_switches") > 0.0);
    }
    let (bouncy, dead) = (
        number(&out[0], "energy_dissipated"),
        number(&out[1], "energy_dissipated"),
    );
    assert!(bouncy < dead, "e = 0.8 loses {bouncy} J, e = 0 {dead} J");
    let refused = [
        (
            "simulate friction { t = 0..1 }",
            "has friction (`mu`) at a rigid",
        ),
        (
            "simulate dead { t = 0..1, method = timestepping, h_min = 2e-3, h_max = 1e-3 }",
            "nsd::analysis::bad_option",
        ),
        (
            "simulate dead { t = 0..1, method = timestepping, rtol = 1e-6 }",
            "has no effect",
        ),
    ];
    for (i, (analysis, expected)) in refused.iter().enumerate() {
        let text = model("bouncy", "law = impact(e = 0.8)")
            + &model("dead", "law = impact(e = 0)")
            + &model("friction", "law = impact(e = 0), mu = 0.1")
            + analysis
            + "\n";
        let (code, _, stderr, _) = run_text(&text, &format!("p002_timestepping/refused{i}"), &[]);
        assert_ne!(code, 0, "{analysis}");
        assert!(stderr.contains(expected), "{analysis}: {stderr}");
    }
}
