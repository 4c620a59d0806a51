//! `simulate`'s contact forces (`forces.csv`), impulses (`events.csv`) and their summary
//! (issue 21, item 12), each checked against the closed form of the contact's physics or
//! against the state the same sample reports.

use crate::common::*;
use serde_json::Value;
use std::path::PathBuf;

/// Gravity of the models (m/s²).
const G: f64 = 9.81;
/// The ball's mass (kg).
const M: f64 = 2.0;

/// Runs the analyses `analyses` appended to `tests/models/simulate_forces.nsd`; the JSON
/// object of each analysis (exit code 0 asserted).
fn run(analyses: &str, tag: &str) -> Vec<Value> {
    let model =
        std::fs::read_to_string(root().join("tests/models/simulate_forces.nsd")).expect("model");
    run_json(&(model + analyses), &format!("simulate_forces/{tag}"), &[])
}

/// The header and the rows of a CSV file of an analysis's folder (cells as text).
fn csv(v: &Value, file: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let path = PathBuf::from(v["out"].as_str().expect("out")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect());
    let header = lines.next().expect("header");
    (header, lines.collect())
}

/// The rows of a numeric CSV file.
fn numbers(v: &Value, file: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let (header, rows) = csv(v, file);
    let rows = rows
        .iter()
        .map(|r| r.iter().map(|x| x.parse().expect("number")).collect())
        .collect();
    (header, rows)
}

/// A plastic ball (e = 0) dropped from 0.5 m lands at √(2h/g) = 0.3193 s and is held there:
/// `floor.N` is 0 before and m g = 19.62 N on every sample after, to round-off (the holding
/// force solves `wᵀM⁻¹w λ = −wᵀM⁻¹f` for one DOF: exact up to a few ulps; tolerance 1e-12
/// relative). Placed on the floor at rest, it is held from the contact located at t = 0
/// (within round-off): every sample shows m g, the one at t = 0 included (a sample at a
/// switch's instant shows the forces from then on). The impact's impulse is m √(2gh).
#[test]
fn ball_on_a_rigid_floor_is_held_by_its_weight() {
    let out = run(
        "simulate ball as drop { t = 0..2, x0 = { b = 0.5 }, output = every(0.05) }\n\
         simulate ball as rest { t = 0..1, output = every(0.05) }\n",
        "ball_held",
    );
    let t_land = (2.0 * 0.5 / G).sqrt();
    for v in &out {
        let (header, rows) = numbers(v, "forces.csv");
        assert_eq!(header, ["t [s]", "floor.N [N]"]);
        let (_, data) = numbers(v, "data.csv");
        assert_eq!(rows.len(), data.len(), "one row per sample of data.csv");
        for (r, d) in rows.iter().zip(&data) {
            assert_eq!(r[0], d[0], "same times as data.csv");
            let expected = if r[0] > t_land || v["name"] == "rest" {
                M * G
            } else {
                0.0
            };
            assert!(
                (r[1] - expected).abs() <= 1e-12 * M * G,
                "{}: {r:?}",
                v["name"]
            );
        }
        let largest = v["summary"]["max_contact_force"]["floor.N"]
            .as_f64()
            .expect("max");
        assert!((largest - M * G).abs() <= 1e-12 * M * G, "{largest}");
    }
    let drop = &out[0];
    let (header, events) = csv(drop, "events.csv");
    assert_eq!(header.last().map(String::as_str), Some("impulse [N s]"));
    let impact = events.iter().find(|e| e[2] == "impact").expect("an impact");
    let impulse: f64 = impact[7].parse().expect("impulse");
    let expected = M * (2.0 * G * 0.5_f64).sqrt();
    assert!(
        (impulse - expected).abs() < 1e-9 * expected,
        "{impulse} vs {expected}"
    );
    let hold = events.iter().find(|e| e[2] == "hold").expect("held");
    assert_eq!(hold[7], "", "a hold is not an impact: empty impulse");
    let max = drop["summary"]["max_impulse"]["floor"]
        .as_f64()
        .expect("max_impulse");
    assert!((max - expected).abs() < 1e-9 * expected);
}

/// A bouncing ball (e = 0.9, dropped from 1 m): every impact's impulse is m (1 + e)|v⁻| with
/// v⁻ the logged approach velocity (Newton's law, paper 004 Prop. 2.1, for one DOF: the
/// same numbers, so 1e-12 relative), and the first one is m (1 + e) √(2 g h) (the located
/// impact time is exact to ~1e-15 s, so 1e-9 relative). The largest is the first.
#[test]
fn impact_impulse_is_m_one_plus_e_approach_speed() {
    let out = run(
        "simulate bouncy as bounce { t = 0..2, x0 = { b = 1 }, output = every(0.1) }\n",
        "ball_bounce",
    )
    .remove(0);
    let e = 0.9;
    let (_, events) = csv(&out, "events.csv");
    let impacts: Vec<(f64, f64)> = events
        .iter()
        .filter(|r| r[2] == "impact")
        .map(|r| (r[5].parse().expect("v"), r[7].parse().expect("impulse")))
        .collect();
    assert!(impacts.len() >= 3, "{events:?}");
    for (v, p) in &impacts {
        let expected = M * (1.0 + e) * v.abs();
        assert!((p - expected).abs() < 1e-12 * expected, "{p} vs {expected}");
    }
    let first = M * (1.0 + e) * (2.0 * G).sqrt();
    assert!((impacts[0].1 - first).abs() < 1e-9 * first);
    let max = out["summary"]["max_impulse"]["floor"]
        .as_f64()
        .expect("max");
    assert_eq!(max, impacts[0].1);
    // Between impacts the rigid floor carries no force.
    let (_, forces) = numbers(&out, "forces.csv");
    assert!(forces.iter().all(|r| r[1] == 0.0), "{forces:?}");
}

/// The Coulomb oscillator: sliding, `c1.T = F sign(v)` (the friction opposes the motion,
/// acting −T on the mass); stuck for good after 22.4236 s, `c1.T = −k x`, the spring force
/// it holds (the solved sticking force of paper 001 eq. 11 for one DOF: exact to round-off,
/// 1e-12 absolute on forces of order 1 N).
#[test]
fn coulomb_friction_force_slips_at_f_and_holds_the_spring_when_stuck() {
    let out = run(
        "simulate osc as osc { t = 0..30, x0 = { m = 12 }, v0 = { m = 6 }, rtol = 1e-10, atol = 1e-10, output = every(0.25) }\n",
        "coulomb",
    )
    .remove(0);
    let (header, forces) = numbers(&out, "forces.csv");
    assert_eq!(header, ["t [s]", "c1.T [N]"]);
    let (_, data) = numbers(&out, "data.csv");
    let t_stick = (6.0_f64 / 13.0).atan() + 7.0 * std::f64::consts::PI;
    let mut stuck = 0;
    for (f, d) in forces.iter().zip(&data) {
        let (t, x, v, friction) = (d[0], d[1], d[2], f[1]);
        if t > t_stick + 1e-6 {
            stuck += 1;
            assert!(
                (friction + x).abs() < 1e-12,
                "t = {t}: T = {friction}, x = {x}"
            );
        } else if v.abs() > 1e-6 {
            assert_eq!(friction, v.signum(), "t = {t}: sliding at v = {v}");
        }
    }
    assert!(stuck > 20, "{stuck} stuck samples");
    let largest = out["summary"]["max_contact_force"]["c1.T"]
        .as_f64()
        .expect("max");
    assert_eq!(largest, 1.0);
    assert!(out["summary"].get("max_impulse").is_none(), "no impacts");
}

/// A compliant `linear(k)` gap's force is k · penetration on every sample in contact and 0
/// open (the same state as data.csv's row, so 1e-12 relative); the run enters contact.
#[test]
fn compliant_gap_force_is_k_times_penetration() {
    let out = run(
        "simulate soft_stop as soft { t = 0..10, v0 = { m = 1 }, output = every(0.01) }\n",
        "soft_stop",
    )
    .remove(0);
    let (header, forces) = numbers(&out, "forces.csv");
    assert_eq!(header, ["t [s]", "g1.F [N]"]);
    let (_, data) = numbers(&out, "data.csv");
    let mut in_contact = 0;
    for (f, d) in forces.iter().zip(&data) {
        let penetration = (d[1] - 0.5).max(0.0);
        in_contact += usize::from(penetration > 1e-9);
        let expected = 100.0 * penetration;
        assert!(
            (f[1] - expected).abs() <= 1e-12 * expected.max(1e-3),
            "{f:?} {d:?}"
        );
    }
    assert!(in_contact > 10, "{in_contact} samples in contact");
}

/// A Jenkins element released from x0 = 1 at rest sticks first with its force kt (x − x0)
/// (the slider stays at z = x0), until it reaches the slip force 0.5 N; then it slides at
/// ±0.5 N. Its force never exceeds the slip force (beyond round-off).
#[test]
fn jenkins_force_is_its_spring_while_stuck_and_the_slip_force_while_sliding() {
    let out = run(
        "simulate jenkins as j { t = 0..10, x0 = { x = 1 }, output = every(0.01) }\n",
        "jenkins",
    )
    .remove(0);
    let (header, forces) = numbers(&out, "forces.csv");
    assert_eq!(header, ["t [s]", "j.T [N]"]);
    let (_, data) = numbers(&out, "data.csv");
    let (_, events) = csv(&out, "events.csv");
    let first_slip: f64 = events
        .iter()
        .find(|e| e[2] == "slip")
        .map(|e| e[0].parse().expect("t"))
        .expect("a slip event");
    let mut sliding = 0;
    for (f, d) in forces.iter().zip(&data) {
        assert!(f[1].abs() <= 0.5 * (1.0 + 1e-12), "{f:?}");
        if d[0] < first_slip {
            assert!((f[1] - 3.0 * (d[1] - 1.0)).abs() < 1e-12, "{f:?} {d:?}");
        } else if (f[1].abs() - 0.5).abs() < 1e-15 {
            sliding += 1;
        }
    }
    assert!(sliding > 0, "some samples slide");
}

/// A model without contact elements writes no `forces.csv` and no force summary.
#[test]
fn no_contact_elements_no_forces_file() {
    let out = run(
        "simulate plain as plain { t = 0..1, x0 = { m = 1 } }\n",
        "plain",
    )
    .remove(0);
    let dir = PathBuf::from(out["out"].as_str().expect("out"));
    assert!(dir.join("data.csv").exists());
    assert!(!dir.join("forces.csv").exists());
    assert!(out["summary"].get("max_contact_force").is_none());
}

/// The bouncing ball (e = 0.9, from 0.9 m) settles by a Zeno accumulation at
/// t* = t₁ (1 + 2e/(1 − e)) = 8.14 s (t₁ = √(2h/g)): the `zeno` row's impulse is the last
/// impact's net of the rebound removed, m |v⁻| (the plastic impulse; 1e-9 relative), and from
/// the next sample on the floor holds the ball's weight, N = m g to round-off (1e-12).
#[test]
fn settled_ball_after_zeno_is_held_by_its_weight() {
    let out = run(
        "simulate bouncy as zeno { t = 0..10, x0 = { b = 0.9 }, output = every(0.1) }\n",
        "ball_zeno",
    )
    .remove(0);
    let (_, events) = csv(&out, "events.csv");
    let zeno = events.iter().find(|e| e[2] == "zeno").expect("a zeno row");
    let (t_zeno, v, impulse): (f64, f64, f64) = (
        zeno[0].parse().expect("t"),
        zeno[5].parse().expect("v"),
        zeno[7].parse().expect("impulse"),
    );
    assert!(
        (impulse - M * v.abs()).abs() <= 1e-9 * M * v.abs(),
        "{zeno:?}"
    );
    let t_star = (2.0 * 0.9 / G).sqrt() * (1.0 + 2.0 * 0.9 / 0.1);
    assert!(t_zeno < t_star + 1e-3, "{t_zeno} vs t* = {t_star}");
    let (_, forces) = numbers(&out, "forces.csv");
    let held: Vec<&Vec<f64>> = forces.iter().filter(|r| r[0] > t_zeno).collect();
    assert!(held.len() > 10, "{} samples held", held.len());
    for r in held {
        assert!((r[1] - M * G).abs() <= 1e-12 * M * G, "{r:?}");
    }
}

/// Against the moving base: the mass on the belt sticks at π/12 s and, while it rides with
/// the belt, the friction holds the spring, `f.T = −k x` (1e-12 absolute: one DOF, the
/// sticking force is exact to round-off); sliding, `f.T = ±F` against the relative velocity
/// `v − V`.
#[test]
fn friction_against_the_moving_base_holds_the_spring_while_stuck() {
    let out = run(
        "simulate belt as belt { t = 0..1.5, rtol = 1e-10, atol = 1e-10, output = every(0.01) }\n",
        "belt",
    )
    .remove(0);
    let (header, forces) = numbers(&out, "forces.csv");
    assert_eq!(header, ["t [s]", "f.T [N]"]);
    let (_, data) = numbers(&out, "data.csv");
    let mut stuck = 0;
    for (f, d) in forces.iter().zip(&data) {
        let (x, s) = (d[1], d[2] - 0.5);
        if s.abs() < 1e-8 && d[0] > 0.0 {
            stuck += 1;
            assert!((f[1] + 4.0 * x).abs() < 1e-12, "{f:?} {d:?}");
        } else if s.abs() > 1e-6 {
            assert_eq!(f[1], 2.0 * s.signum(), "{f:?} {d:?}");
        }
    }
    assert!(stuck > 10, "{stuck} stuck samples");
}
