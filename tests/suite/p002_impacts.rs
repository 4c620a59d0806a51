//! Rigid impacts (`law = impact(e)`) in the multibody `events` backend (issue 19): a ball on
//! an axial-clearance end stop along gravity (the floor of `bench/bouncing_body.nsd`, made
//! rigid) against the closed form of its geometric series of bounces, its accumulation
//! (Zeno) and rest, energy conservation at `e = 1`, the `timestepping` backend's rebound
//! times, and a clearance pendulum whose journal hits its bearing.
//!
//! Closed form (drop `h = c_a`, `v₁ = √(2 g h)`, `t₁ = v₁/g`): the k-th rebound speed is
//! `eᵏ v₁`, the impacts `t_{k+1} = t_k + 2 eᵏ v₁/g`, the apex heights shrink by `e²`, and the
//! impacts accumulate at `t∞ = t₁ (1 + e)/(1 − e)`. Tolerances: impact times 1e-9 s over the
//! first 30 bounces (flights above 1e-6 m; below ~1e-16 m, the gap's round-off near 0.5 m,
//! the times carry that round-off over the speed), rebound `γ⁺ = −e γ⁻` to 1e-12 relative,
//! `t∞` 1e-6 s, the holding force `m g` to 1e-9 relative, energy at `e = 1` to 1e-9 of
//! `m g h`; against `timestepping` (first order in h: its impacts fall at step ends and
//! its restitution acts on the step's velocities) each of the first five rebounds within
//! 2h, at h = 1e-4 s and 1e-3 s, the error shrinking with h.

use crate::common::*;
use serde_json::Value;

/// Gravity (m/s²), the ball's mass (kg) and drop (m).
const G: f64 = 9.81;
const M: f64 = 1.0;
const DROP: f64 = 0.5;

/// The ball on a rigid end stop `ca` below it, restitution `e`.
const BALL: &str = "model ball(e = 0.8, ca = 0.5) {
  gravity = (0, -9.81, 0)
  body ball { mass = 1, inertia = (1e-3, 1e-3, 1e-3), at = (0, 0, 0) }
  joint floor: revolute ground -- ball {
    at = (0, 0, 0), axis = (0, 1, 0), axial_clearance = ca, law = impact(e = e)
  }
}
";

/// The JSON object of each analysis of `text` (exit code 0 asserted).
fn run(text: &str, tag: &str) -> Vec<Value> {
    run_json(text, &format!("p002_impacts/{tag}"), &[])
}

/// One row of `events.csv`.
struct Event {
    t: f64,
    kind: String,
    before: f64,
    after: f64,
}

/// The rows of an analysis's `events.csv`.
fn events(v: &Value) -> Vec<Event> {
    let path = std::path::PathBuf::from(v["out"].as_str().expect("out")).join("events.csv");
    let text = std::fs::read_to_string(path).expect("events.csv");
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            let num = |i: usize| c[i].parse().unwrap_or(f64::NAN);
            Event {
                t: num(0),
                kind: c[2].to_string(),
                before: num(5),
                after: num(6),
            }
        })
        .collect()
}

/// The impact times of the closed form, the first `n`.
fn closed_form(e: f64, n: usize) -> Vec<f64> {
    let v1 = (2.0 * G * DROP).sqrt();
    let mut t = vec![v1 / G];
    for k in 1..n {
        t.push(t[k - 1] + 2.0 * e.powi(k as i32) * v1 / G);
    }
    t
}

/// e = 0.8: the bounces against the closed form, each rebound exactly `−e` times its
/// approach, apex heights in the ratio e², the accumulation at `t∞` detected as Zeno and
/// the ball then at rest on the stop with the normal force `m g`.
#[test]
fn bounces_follow_the_geometric_series_then_rest() {
    let e = 0.8;
    let text = format!(
        "{BALL}simulate ball as bounce {{ t = 0..4, rtol = 1e-12, atol = 1e-12, output = every(0.01) }}\n"
    );
    let out = run(&text, "bounce");
    let log = events(&out[0]);
    let impacts: Vec<&Event> = log.iter().filter(|r| r.kind == "impact").collect();
    assert!(impacts.len() > 30, "{} impacts", impacts.len());
    for (k, (i, t)) in impacts.iter().zip(closed_form(e, 30)).enumerate() {
        assert!((i.t - t).abs() < 1e-9, "impact {k} at {} vs {t}", i.t);
    }
    for i in &impacts {
        let miss = (i.after + e * i.before).abs() / i.before.abs();
        assert!(
            miss < 1e-12,
            "rebound {} after {} (rel. {miss:e})",
            i.after,
            i.before
        );
    }
    // The apex heights v²/2g of successive flights.
    for w in impacts[..30].windows(2) {
        let ratio = (w[1].after / w[0].after).powi(2);
        assert!((ratio - e * e).abs() < 1e-9, "apex ratio {ratio}");
    }
    let t_inf = closed_form(e, 1)[0] * (1.0 + e) / (1.0 - e);
    let zeno = out[0]["summary"]["zeno"].as_array().expect("zeno");
    assert_eq!(zeno.len(), 1, "{zeno:?}");
    let t_star = zeno[0].as_f64().expect("t*");
    assert!((t_star - t_inf).abs() < 1e-6, "t* = {t_star} vs {t_inf}");
    let held = log.iter().find(|r| r.kind == "zeno").expect("a zeno row");
    assert!(
        (held.t - t_inf).abs() < 1e-6,
        "held at {} vs {t_inf}",
        held.t
    );
    assert!(!log.iter().any(|r| r.kind == "lift-off"));
    // At rest from t∞ on: on the stop, the normal force m g.
    let c = table(&out[0], "contacts.csv");
    let (ts, gap, normal) = (
        column(&c, "t [s]"),
        column(&c, "floor.end-.gap [m]"),
        column(&c, "floor.end-.normal [N]"),
    );
    let after: Vec<usize> = (0..ts.len()).filter(|&i| ts[i] > t_inf).collect();
    assert!(after.len() > 100);
    for i in after {
        assert!(gap[i].abs() < 1e-12, "gap {} at {}", gap[i], ts[i]);
        assert!(
            (normal[i] - M * G).abs() < 1e-9 * M * G,
            "normal {} at {}",
            normal[i],
            ts[i]
        );
    }
}

/// e = 1: the total energy over five impacts stays within 1e-9 of m g h, and no Zeno.
#[test]
fn elastic_impacts_keep_the_energy() {
    let text = format!(
        "{BALL}simulate ball(e = 1) as elastic {{ t = 0..3, rtol = 1e-12, atol = 1e-12, output = every(0.001) }}\n"
    );
    let out = run(&text, "elastic");
    assert!(number(&out[0], "impacts") >= 4.0);
    let e = table(&out[0], "energy.csv");
    let total = column(&e, "total [J]");
    let spread = total
        .iter()
        .fold(0.0_f64, |a, v| a.max((v - total[0]).abs()));
    assert!(spread < 1e-9 * M * G * DROP, "energy spread {spread:e} J");
    assert!(out[0]["summary"]["zeno"]
        .as_array()
        .expect("zeno")
        .is_empty());
}

/// The same ball by `timestepping` at fixed h = 1e-3 and 1e-4 s: its first five rebounds
/// (the step ends where the vertical velocity turns from falling to rising) within 2h of
/// the `events` backend's impacts, and closer at the smaller step (first order).
#[test]
fn rebounds_agree_with_timestepping_to_its_order() {
    let mut text = format!(
        "{BALL}simulate ball as events {{ t = 0..2, rtol = 1e-12, atol = 1e-12, output = every(0.01) }}\n"
    );
    for (name, h) in [("coarse", 1e-3), ("fine", 1e-4)] {
        text += &format!("simulate ball as {name} {{ t = 0..2, method = timestepping, h_min = {h:e}, h_max = {h:e}, output = steps }}\n");
    }
    let out = run(&text, "timestepping");
    let exact: Vec<f64> = events(&out[0])
        .iter()
        .filter(|r| r.kind == "impact")
        .map(|r| r.t)
        .take(5)
        .collect();
    let mut worst = Vec::new();
    for (v, h) in out[1..].iter().zip([1e-3, 1e-4]) {
        let t = table(v, "trajectory.csv");
        let (ts, vy) = (column(&t, "t [s]"), column(&t, "ball.vy [m/s]"));
        let rebounds: Vec<f64> = (1..ts.len())
            .filter(|&i| vy[i - 1] < 0.0 && vy[i] > 0.0)
            .map(|i| ts[i])
            .collect();
        assert!(rebounds.len() >= 5, "{rebounds:?}");
        let err = exact
            .iter()
            .zip(&rebounds)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(
            err <= 2.0 * h,
            "h = {h}: rebounds {rebounds:?} vs {exact:?}"
        );
        worst.push(err);
    }
    assert!(worst[1] < 0.25 * worst[0], "{worst:?}");
}

/// The planar clearance pendulum (c = 0.1 mm) with a rigid journal: at e = 1 hundreds of
/// rim impacts keep the energy to 1e-9 of the largest kinetic energy; at e = 0 the first impact holds the journal
/// on the bearing (persistent contact), where it slides for the rest of the swing within
/// the clearance; friction at a rigid contact is refused by name.
#[test]
fn clearance_pendulum_impacts_and_sliding_contact() {
    let model = "model pc(law_e = 1, mu = 0) {
  gravity = (0, -9.81, 0)
  body pendulum { mass = 1, inertia = (1e-3, 1e-2, 1e-2), at = (0.2, 0, 0) }
  joint hinge: revolute ground -- pendulum { at = (0, 0, 0), axis = (0, 0, 1), radius = 5 mm, clearance = 0.1 mm, law = impact(e = law_e), mu = mu }
}
";
    let text = format!(
        "{model}simulate pc as elastic {{ t = 0..1, rtol = 1e-10, atol = 1e-12, output = every(0.001) }}\n\
         simulate pc(law_e = 0) as plastic {{ t = 0..1, rtol = 1e-10, atol = 1e-12, output = every(0.001) }}\n"
    );
    let out = run(&text, "pendulum");
    // `energy_drift` is relative to the largest kinetic energy, about m g L here.
    assert!(number(&out[0], "impacts") > 100.0);
    assert!(number(&out[0], "energy_drift") < 1e-9);
    let plastic = &out[1];
    let log = events(plastic);
    assert_eq!(log.first().map(|r| r.kind.as_str()), Some("impact"));
    assert_eq!(log.get(1).map(|r| r.kind.as_str()), Some("hold"));
    assert_eq!(number(plastic, "contacts_closed"), 1.0);
    assert!(number(plastic, "max_penetration") < 1e-12);
    assert!(number(plastic, "max_energy_rise") < 1e-9);
    let c = table(plastic, "contacts.csv");
    let normal = column(&c, "hinge.rim.normal [N]");
    assert!(normal.iter().all(|n| *n >= 0.0) && normal.iter().any(|n| *n > 1.0));
    let (code, _, stderr, _) = run_text(
        &format!("{model}simulate pc(mu = 0.1) {{ t = 0..1 }}\n"),
        "p002_impacts/friction",
        &[],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("nsd::analysis::unsupported")
            && stderr.contains("joint `hinge` has friction (`mu`) at a rigid"),
        "{stderr}"
    );
}
