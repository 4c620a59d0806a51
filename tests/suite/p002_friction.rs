//! Coulomb friction (`mu`) at clearance joints in the `timestepping` backend (issue 19): the
//! polyhedral cone of `solve::multibody::friction` (Stewart–Trinkle, Anitescu–Potra), solved
//! by Lemke's method in each step's programme.
//!
//! What is checked: a triangular prismatic slider on a horizontal guide sticks under an
//! axial force below `μ N` and slides at `z̈ = (F − μ N)/m` above it; the energy never
//! rises from step to step, and what it loses while sliding is the friction work plus the
//! scheme's own dissipation `Σ ½ m Δv²` exactly; with `mu = 0` the frictionless path is
//! unchanged to the bit.

use crate::common::*;
use serde_json::Value;

/// The JSON object of each analysis of `text` (exit code 0 asserted).
fn run(text: &str, tag: &str) -> Vec<Value> {
    run_json(text, &format!("p002_friction/{tag}"), &[])
}

/// A seed model file without its analyses and expectations, each `from` replaced by `to`.
fn seed(file: &str, edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(root().join("models/seed2").join(file))
        .expect("model")
        .lines()
        .filter(|l| !l.starts_with("simulate") && !l.starts_with("expect"))
        .collect::<Vec<_>>()
        .join("\n");
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    text + "\n"
}

/// The triangular slider of `prismatic_slider.nsd` (m = 1 kg, axis Z horizontal, gravity
/// −Y, the force F along Z) with rigid inelastic contact (its `mu` set by each analysis:
/// 0.3), its body given `body`'s extra options (an initial velocity).
fn slider(body: &str) -> String {
    seed(
        "prismatic_slider.nsd",
        &[
            (
                "law = hunt_crossley(k = 1e10, e = 0.5),",
                "law = impact(e = 0),",
            ),
            (
                "at = (0, 0, 0),\n    force",
                &format!("at = (0, 0, 0){body},\n    force"),
            ),
        ],
    )
}

const MU: f64 = 0.3;
const G: f64 = 9.81;

/// The slider drops through its 0.3 mm clearance onto the guide's bottom face (face 1,
/// horizontal, normal +Y): the faces are parallel to the axis and the slanted ones stay open,
/// so the bottom face's contacts carry the whole weight, N_total = m g = 9.81 N, whatever its
/// split between the vertices and ends (the force's moment shifts it). The friction bound
/// is μ N_total = 2.943 N. With F = 2 N the slider sticks: after it lands (t ≥ 0.05 s) z
/// moves by less than 1e-9 m. With F = 5 N it slides: z̈ = (F − μ m g)/m = 2.057 m/s² step
/// by step to 1e-6 relative (the axis is one of the cone's directions, so the sliding
/// friction is exactly μ N), and `contacts.csv`'s friction forces add up to μ m g to 1e-9.
#[test]
fn slider_sticks_below_and_slides_above_mu_n() {
    let text = slider("")
        + "simulate prismatic_slider(F = 2, mu = 0.3) as stick { t = 0..1, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = steps }\n"
        + "simulate prismatic_slider(F = 5, mu = 0.3) as slide { t = 0..1, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = steps }\n";
    let out = run(&text, "slider");
    let traj = |v: &Value| {
        let t = table(v, "trajectory.csv");
        (
            column(&t, "t [s]"),
            column(&t, "slider.z [m]"),
            column(&t, "slider.vz [m/s]"),
        )
    };
    let (t, z, _) = traj(&out[0]);
    let settled = t.iter().position(|t| *t >= 0.05).expect("settled");
    let moved = z[settled..]
        .iter()
        .map(|zi| (zi - z[settled]).abs())
        .fold(0.0, f64::max);
    assert!(moved < 1e-9, "stuck slider moved {moved:e} m");
    assert!(number(&out[0], "max_step_violation") <= 1e-10);

    let (t, _, vz) = traj(&out[1]);
    let expected = 5.0 - MU * G;
    for i in settled + 1..t.len() {
        let zdd = (vz[i] - vz[i - 1]) / (t[i] - t[i - 1]);
        assert!(
            (zdd - expected).abs() <= 1e-6 * expected,
            "t = {}: z̈ = {zdd}",
            t[i]
        );
    }
    let contacts = table(&out[1], "contacts.csv");
    for row in &contacts.1[settled..] {
        let sum = |what: &str| -> f64 {
            contacts
                .0
                .iter()
                .zip(row)
                .filter(|(c, _)| c.ends_with(what))
                .map(|(_, v)| v)
                .sum()
        };
        let (normal, friction) = (sum("normal [N]"), sum("friction [N]"));
        assert!((normal - G).abs() <= 1e-9 * G, "N = {normal}");
        assert!((friction - MU * G).abs() <= 1e-9 * G, "friction {friction}");
    }
}

/// The energy balance with friction on. (a) The slider launched along its axis at 1 m/s
/// without force decelerates at μ g and stops (at t ≈ 0.35 s) for good. From t = 0.05 s
/// (landed) the total energy lost equals the friction work `Σ F_f (z_n − z_{n−1})` (the
/// friction force of `contacts.csv`, axial while it slides, and the step's displacement)
/// plus the scheme's numerical dissipation `Σ ½ m (v_n − v_{n−1})²`, to 1e-12 J: the
/// discrete energy identity of a step whose only working impulse is friction's. (b) The
/// slider launched obliquely, (0.3, 0, 1) m/s, slides along no direction of the cone until
/// it meets a slanted face (inelastic, within its first step), then axially in the corner
/// of the two faces, and stops. In both, the total energy never rises from one step to the
/// next by more than 1e-12 J (round-off of a 1 J energy), and the slider ends at rest.
#[test]
fn friction_dissipates_what_it_works() {
    let text = slider(", velocity = (0, 0, 1)")
        + "simulate prismatic_slider(F = 0, mu = 0.3) as axial { t = 0..0.5, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = steps }\n"
        + &slider(", velocity = (0.3, 0, 1)").replace("model prismatic_slider", "model oblique")
        + "simulate oblique(F = 0, mu = 0.3) as oblique { t = 0..0.5, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = steps }\n";
    let out = run(&text, "energy");
    for v in &out {
        let e = column(&table(v, "energy.csv"), "total [J]");
        let rise = e.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        assert!(rise <= 1e-12, "energy rose by {rise:e} J");
        let t = table(v, "trajectory.csv");
        for c in ["vx", "vy", "vz"] {
            let last = *column(&t, &format!("slider.{c} [m/s]"))
                .last()
                .expect("rows");
            assert!(last.abs() < 1e-12, "{c} = {last}");
        }
    }
    let t = table(&out[0], "trajectory.csv");
    let (ts, z, vz) = (
        column(&t, "t [s]"),
        column(&t, "slider.z [m]"),
        column(&t, "slider.vz [m/s]"),
    );
    let e = column(&table(&out[0], "energy.csv"), "total [J]");
    let contacts = table(&out[0], "contacts.csv");
    let friction: Vec<f64> = contacts
        .1
        .iter()
        .map(|row| {
            let named = contacts.0.iter().zip(row);
            named
                .filter(|(c, _)| c.ends_with("friction [N]"))
                .map(|(_, v)| v)
                .sum()
        })
        .collect();
    let i0 = ts.iter().position(|t| *t >= 0.05).expect("landed");
    let (mut work, mut scheme) = (0.0, 0.0);
    for i in i0 + 1..ts.len() {
        work += friction[i] * (z[i] - z[i - 1]);
        scheme += 0.5 * (vz[i] - vz[i - 1]).powi(2);
    }
    let lost = e[i0] - e[e.len() - 1];
    assert!(
        (lost - work - scheme).abs() <= 1e-12,
        "lost {lost} J, friction work {work} J, scheme {scheme} J"
    );
    assert!(work > 0.9 * lost, "friction work {work} J of {lost} J");
}

/// `mu = 0` leaves the frictionless path untouched: the clearance pendulum of
/// `pendulum_clearance.nsd` (`pendulum_clearance_rigid`, the paper's default range) with `mu = 0` written out
/// ends on the same bits as before friction was built (the values pinned below are that
/// build's, commit 0dc1496), and a friction coefficient changes the motion (it loses more).
#[test]
fn mu_zero_is_the_frictionless_path() {
    let analysis = |m: &str| {
        format!("simulate {m} as {m} {{ t = 0..2, method = timestepping, h_min = 1e-3, h_max = 2e-3, output = every(0.01) }}\n")
    };
    // The rigid model of the seed file, as it stands there, with `mu` written out.
    let with = |mu: &str, name: &str| {
        format!(
            "model {name}(c = 0.1 mm, ca = 0.2 mm) {{
  param m = 1 kg, cmx = 200 mm, cmz = 50 mm, R = 5 mm, w = 20 mm
  gravity = (0, -9.81, 0)
  body pendulum {{ mass = m, inertia = (1e-3, 1.4e-2, 1.4e-2), at = (cmx, 0, cmz) }}
  joint hinge: revolute ground -- pendulum {{
    at = (0, 0, 0), axis = (0, 0, 1), radius = R, length = w, clearance = c, axial_clearance = ca, mu = {mu}
  }}
}}
"
        ) + &analysis(name)
    };
    let out = run(&(with("0", "none") + &with("0.1", "rough")), "mu_zero");
    assert_eq!(number(&out[0], "energy_dissipated"), 0.08958203374606855);
    assert_eq!(number(&out[0], "steps"), 1816.0);
    let e0 = out[0]["summary"]["final"]["pendulum.e0"].as_f64();
    assert_eq!(e0, Some(0.2521975253912427));
    let rough = number(&out[1], "energy_dissipated");
    assert!(rough > 0.0895820337460686, "μ = 0.1 loses {rough} J");
    assert!(number(&out[1], "max_step_violation") <= 1e-10);
}

/// Friction at more clearance joints than the dense friction solve handles
/// (`FRICTION_JOINTS_MAX`, 4) is refused by `timestepping` before it runs, naming the count
/// and the way out, instead of stalling (a 20-pin chain did not reach t = 0.05 s in 280 s).
#[test]
fn friction_at_many_joints_is_refused_by_timestepping() {
    let mut text = String::from("model chain5 {\n  gravity = (0, -9.81, 0)\n");
    for i in 1..=5 {
        text += &format!(
            "  body b{i} {{ mass = 0.1 kg, inertia = (1e-5, 8.3e-5, 8.3e-5), at = ({:.2}, 0, 0) }}\n",
            0.1 * i as f64 - 0.05
        );
    }
    for i in 1..=5 {
        let left = if i == 1 {
            "ground".to_string()
        } else {
            format!("b{}", i - 1)
        };
        text += &format!(
            "  joint p{i}: revolute {left} -- b{i} {{ at = ({:.1}, 0, 0), axis = (0, 0, 1), radius = 5 mm, clearance = 0.1 mm, mu = 0.1 }}\n",
            0.1 * (i - 1) as f64
        );
    }
    text += "}\nsimulate chain5 { t = 0..0.01, method = timestepping }\n";
    let (code, _, stderr, _) = run_text(&text, "p002_friction/many_joints", &[]);
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains("nsd::analysis::unsupported")
            && stderr.contains("5 clearance joints have friction")
            && stderr.contains("at most 4"),
        "{stderr}"
    );
}
