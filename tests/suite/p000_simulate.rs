//! `simulate` (issue 4, first slice): DOP853 with dense output and exact gap events, checked
//! against closed forms and against an independent SciPy reference for paper 000's system.

use crate::common::*;
use serde_json::Value;

/// Runs the analyses of a model file (with extra analysis text appended) and returns their
/// JSON summaries by name.
fn run(file: &str, analyses: &str) -> Vec<Value> {
    let dir = root().join("target/test-out/simulate");
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(root().join(file)).expect("model") + analyses;
    let tmp = dir.join(format!("{}.nsd", analyses.len()));
    std::fs::write(&tmp, text).expect("write");
    let (code, stdout, stderr) = nsd(&[
        "run",
        tmp.to_str().expect("utf-8"),
        "--json",
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // Only the appended analyses (the model file may carry its own).
    let all: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    all.into_iter()
        .filter(|v| v["kind"] == "simulate")
        .collect()
}

fn events_csv(v: &Value) -> Vec<Vec<String>> {
    let path = std::path::PathBuf::from(v["out"].as_str().expect("out")).join("events.csv");
    std::fs::read_to_string(path)
        .expect("events.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn data_rows(v: &Value) -> Vec<Vec<f64>> {
    let path = std::path::PathBuf::from(v["out"].as_str().expect("out")).join("data.csv");
    std::fs::read_to_string(path)
        .expect("data.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().expect("number")).collect())
        .collect()
}

/// The SciPy reference of bench/reference_freeplay.py: DOP853 at rtol = atol = 1e-13 with
/// restart at every gap event (events refined by brentq to 1e-15); x1, x2 at t = 50 and 100.
const REF_50: [f64; 2] = [-0.06713147301535471, 0.046901155959579346];
const REF_100: [f64; 2] = [-0.040417318065292925, 0.021660738556520592];
/// Mode changes of the free-play gap up to t = 50 in that reference (also 39 at 1e-9).
const REF_EVENTS_TO_50: usize = 39;

#[test]
fn freeplay_matches_the_scipy_reference() {
    let out = run(
        "models/seed0/two_mass_freeplay.nsd",
        "\nsimulate two_mass_freeplay as tight { t = 0..100, rtol = 1e-12, atol = 1e-12, output = at(50, 100) }\n\
         simulate two_mass_freeplay as loose { t = 0..50, rtol = 1e-9, atol = 1e-9 }\n",
    );
    let rows = data_rows(&out[0]);
    // 1e-8 is the bar; the agreement measured is ~3e-11.
    for (row, reference) in rows.iter().zip([REF_50, REF_100]) {
        assert!(
            (row[1] - reference[0]).abs() < 1e-8 && (row[2] - reference[1]).abs() < 1e-8,
            "t = {}: {:?} vs {reference:?}",
            row[0],
            &row[1..3]
        );
    }
    let to_50 = events_csv(&out[0])
        .iter()
        .filter(|e| e[0].parse::<f64>().expect("t") <= 50.0)
        .count();
    assert_eq!(to_50, REF_EVENTS_TO_50, "tight run");
    assert_eq!(
        out[1]["summary"]["events"].as_u64(),
        Some(REF_EVENTS_TO_50 as u64),
        "no incursion missed at 1e-9"
    );
    // The contact force continues smoothly past the exit (the mode decides when it acts), so
    // a step over a switch is not rejected for a kink: 29 rejections in 215 attempts here,
    // 165 in 448 when the force was clamped at zero past the exit.
    let rejected = out[1]["summary"]["rejected"].as_u64().expect("rejected");
    assert!(rejected < 60, "{rejected} rejected steps");
}

#[test]
fn contact_entry_matches_the_closed_form() {
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate one_stop as stop { t = 0..1, v0 = { m = 1 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = &events_csv(&out[0])[0];
    let (t, v): (f64, f64) = (ev[0].parse().expect("t"), ev[5].parse().expect("v"));
    assert_eq!((ev[3].as_str(), ev[4].as_str()), ("open", "contact+"));
    assert!((t - 0.5f64.asin()).abs() < 1e-10, "entry at {t}");
    assert!((v - 0.5f64.asin().cos()).abs() < 1e-10, "velocity {v}");
}

#[test]
fn an_incursion_inside_one_large_step_is_found() {
    // Loose tolerances make the steps ~1 s long; the contact lasts 0.028 s around t = π/2.
    let out = run("tests/models/simulate_cases.nsd", "\nsimulate graze as graze { t = 0..3, x0 = { m = 0 }, v0 = { m = 1 }, rtol = 1e-3, atol = 1e-3 }\n");
    let s = &out[0]["summary"];
    assert!(
        s["steps"].as_u64().expect("steps") < 12,
        "steps should be long: {s}"
    );
    let ev = events_csv(&out[0]);
    assert_eq!(ev.len(), 2, "entry and exit: {ev:?}");
    let entry: f64 = ev[0][0].parse().expect("t");
    assert!(
        (entry - 0.9999f64.asin()).abs() < 1e-2,
        "entry at {entry} (integration accuracy at rtol = 1e-3)"
    );
}

#[test]
fn convergence_order_on_the_linear_oscillator() {
    // Steps capped at h and h/2 with tolerances that never bind: the error of x(10) against
    // cos(10) must fall by ~2⁸ (DOP853 is 8th order); we require 2^7.
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate oscillator as coarse { t = 0..10, x0 = { m = 1 }, rtol = 1, atol = 1, max_step = 0.5, output = at(10) }\n\
         simulate oscillator as fine { t = 0..10, x0 = { m = 1 }, rtol = 1, atol = 1, max_step = 0.25, output = at(10) }\n",
    );
    let err = |v: &Value| (data_rows(v)[0][1] - 10f64.cos()).abs();
    let (e1, e2) = (err(&out[0]), err(&out[1]));
    assert!(e1 / e2 > 128.0, "errors {e1:e} → {e2:e}, ratio {}", e1 / e2);
}

#[test]
fn rigid_stop_impact_matches_the_closed_form() {
    // x = sin t from rest at 0 with v = 1: impact at asin(g), u̇⁻ = cos(asin g), u̇⁺ = −e u̇⁻.
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate rigid_stop as hit { t = 0..1, v0 = { m = 1 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = &events_csv(&out[0])[0];
    assert_eq!(ev[2], "impact");
    let (t, before, after): (f64, f64, f64) = (
        ev[0].parse().expect("t"),
        ev[5].parse().expect("v-"),
        ev[6].parse().expect("v+"),
    );
    let (te, ve) = (0.5f64.asin(), 0.5f64.asin().cos());
    assert!(
        (t - te).abs() < 1e-10 && (before - ve).abs() < 1e-10 && (after + 0.8 * ve).abs() < 1e-10,
        "{ev:?}"
    );
}

#[test]
fn serial_impact_oscillator_conserves_energy_over_1000_impacts() {
    // Paper 004, Sect. 7, n = 5, e = 1: the impact law keeps kinetic energy; between impacts
    // DOP853 at 1e-12 keeps the total to ~4e-10 over 3000 time units (1166 impacts).
    let out = run("models/seed4/serial_impact.nsd", "\nsimulate serial_impact as long { t = 0..3000, v0 = { c.x[5] = 10 }, rtol = 1e-12, atol = 1e-12, output = every(1) }\n");
    let s = &out[0]["summary"];
    assert!(s["impacts"].as_u64().expect("impacts") >= 1000, "{s}");
    let drift = s["energy_drift"]
        .as_f64()
        .expect("a conservative model reports its drift");
    assert!(drift < 1e-9, "energy drift {drift:e}");
}

#[test]
fn bouncing_ball_impacts_follow_the_closed_form_until_zeno() {
    // Dropped from h = 0.9 with e = 0.9: t_1 = √(2h/g), v_1 = g t_1, flight k lasts
    // 2 e^k v_1 / g, so impacts accumulate at t* = t_1 (1 + 2e/(1 − e)) ≈ 8.139 s.
    let (g, h, e) = (9.81f64, 0.9f64, 0.9f64);
    let t1 = (2.0 * h / g).sqrt();
    let t_star = t1 * (1.0 + 2.0 * e / (1.0 - e));
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate ball as bounce { t = 0..8, x0 = { b = 0.9 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let events = events_csv(&out[0]);
    let mut expected = t1;
    for (k, ev) in events.iter().enumerate() {
        let t: f64 = ev[0].parse().expect("t");
        assert!((t - expected).abs() < 1e-9, "impact {k}: {t} vs {expected}");
        expected += 2.0 * e.powi(k as i32 + 1) * g * t1 / g;
    }
    assert!(
        expected > 8.0,
        "every impact before t = 8 was found ({} of them)",
        events.len()
    );

    // Past t*: persistent contact, the ball ends at rest on the floor without penetrating.
    let out = run("tests/models/simulate_cases.nsd", "\nsimulate ball as past { t = 0..10, x0 = { b = 0.9 }, rtol = 1e-12, atol = 1e-12, output = every(0.01) }\n");
    let s = &out[0]["summary"];
    let zeno = s["zeno"].as_array().expect("zeno list");
    assert_eq!(zeno.len(), 1, "{s}");
    let reported = zeno[0].as_f64().expect("t*");
    assert!(
        (reported - t_star).abs() < 1e-6,
        "t* = {reported} vs {t_star}"
    );
    let rows = data_rows(&out[0]);
    let lowest = rows.iter().map(|r| r[1]).fold(f64::INFINITY, f64::min);
    assert!(lowest > -1e-9, "penetration {lowest:e}");
    let last = rows.last().expect("rows");
    assert!(
        last[0] == 10.0 && last[1].abs() < 1e-9 && last[2].abs() < 1e-9,
        "at rest on the floor: {last:?}"
    );
}

#[test]
fn compliant_contacts_enter_and_leave_with_the_expected_rebound() {
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate hertz_hit as hz { t = 0..1, v0 = { m = 1 }, rtol = 1e-11, atol = 1e-11 }\n\
         simulate hc_hit as hc { t = 0..1, v0 = { m = 1 }, rtol = 1e-11, atol = 1e-11 }\n\
         simulate ln_hit as ln { t = 0..1, v0 = { m = 1 }, rtol = 1e-11, atol = 1e-11 }\n",
    );
    for (v, e_expected, tol) in [
        (&out[0], 1.0, 1e-8),
        (&out[1], 0.9, 0.03),
        (&out[2], 0.9, 0.03),
    ] {
        let ev = events_csv(v);
        assert_eq!(ev.len(), 2, "entry and exit: {ev:?}");
        let entry: f64 = ev[0][5].parse().expect("entry velocity");
        let exit: f64 = ev[1][5].parse().expect("exit velocity");
        assert!((entry - 1.0).abs() < 1e-10 && ev[0][0].parse::<f64>().expect("t") > 0.0999999);
        // Hertz is elastic (rebound speed = impact speed); Hunt–Crossley and Lankarani–
        // Nikravesh give an effective restitution close to their e for e near 1.
        assert!(
            (-exit / entry - e_expected).abs() < tol,
            "{}: rebound ratio {}",
            v["name"],
            -exit / entry
        );
    }
    assert!(
        out[0]["summary"]["energy_drift"]
            .as_f64()
            .expect("Hertz is conservative")
            < 1e-8
    );
}

#[test]
fn plastic_contact_holds_until_the_loads_pull_it_off() {
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate lift as lift { t = 0..2.5, x0 = { b = 0.2 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = events_csv(&out[0]);
    let kinds: Vec<&str> = ev.iter().map(|e| e[2].as_str()).collect();
    assert_eq!(kinds, vec!["impact", "hold", "lift-off"], "{ev:?}");
    let t_lift: f64 = ev[2][0].parse().expect("t");
    assert!((t_lift - 9.81 / 5.0).abs() < 1e-9, "lift-off at {t_lift}");
}

#[test]
fn a_motion_starting_on_the_contact_boundary_enters_contact() {
    // x0 = g exactly, moving into the stop: the contact must start at t = 0, not be skipped.
    let out = run("tests/models/simulate_cases.nsd", "\nsimulate one_stop as edge { t = 0..0.5, x0 = { m = 0.5 }, v0 = { m = 1 }, rtol = 1e-12, atol = 1e-12 }\n");
    let ev = events_csv(&out[0]);
    assert_eq!(
        (ev[0][3].as_str(), ev[0][4].as_str()),
        ("open", "contact+"),
        "{ev:?}"
    );
    assert!(ev[0][0].parse::<f64>().expect("t") < 1e-9);
}

#[test]
fn belt_sticks_exactly_as_long_as_the_closed_form_says() {
    let out = run("tests/models/simulate_cases.nsd", "\nsimulate belt as belt { t = 0..1.5, rtol = 1e-12, atol = 1e-12, output = every(0.01) }\n");
    let ev = events_csv(&out[0]);
    let kinds: Vec<(&str, &str)> = ev.iter().map(|e| (e[2].as_str(), e[4].as_str())).collect();
    assert_eq!(kinds, vec![("stick", "stick"), ("slip", "slip-")], "{ev:?}");
    let t_stick = std::f64::consts::PI / 12.0;
    let x_stick = 0.5 * (1.0 - (2.0 * t_stick).cos());
    let t_slip = t_stick + (0.5 - x_stick) / 0.5;
    let (ts, tl): (f64, f64) = (ev[0][0].parse().expect("t"), ev[1][0].parse().expect("t"));
    assert!(
        (ts - t_stick).abs() < 1e-10 && (tl - t_slip).abs() < 1e-9,
        "stick {ts} vs {t_stick}, slip {tl} vs {t_slip}"
    );
    // While stuck the mass rides with the belt exactly (no creep): x = x_stick + V (t − t_stick).
    for row in data_rows(&out[0]).iter().filter(|r| r[0] > ts && r[0] < tl) {
        assert!(
            (row[1] - (x_stick + 0.5 * (row[0] - t_stick))).abs() < 1e-9
                && (row[2] - 0.5).abs() < 1e-9,
            "{row:?}"
        );
    }
}

/// Den Hartog's continuous / stick–slip boundary (paper 001, eq. 13 with S = 1; ERRATA: U
/// evaluated as tan(π/2r)/r).
fn den_hartog(r: f64) -> f64 {
    let v = 1.0 / (1.0 - r * r);
    let u = (std::f64::consts::PI / (2.0 * r)).tan() / r;
    (v * v / (u * u + r.powi(-4))).sqrt()
}

#[test]
fn den_hartog_sdof_regimes_on_each_side_of_the_closed_form_boundaries() {
    // 100 excitation cycles (τ = 0..630); the regime is read from the last ten.
    for r in [1.5f64, 2.0] {
        let lim = den_hartog(r);
        let cases = [
            (0.9 * lim, "continuous"),
            (1.1 * lim, "stick-slip"),
            (1.05, "no motion"),
        ];
        for (beta, regime) in cases {
            let text = "\nsimulate sdof as dh { t = 0..630, rtol = 1e-9, atol = 1e-9, output = every(0.5) }\n";
            let model = std::fs::read_to_string(root().join("models/seed1/sdof.nsd"))
                .expect("model")
                .replace(
                    "model sdof(r = 1, beta = 0.5)",
                    &format!("model sdof(r = {r}, beta = {beta})"),
                );
            let dir = root().join("target/test-out/simulate");
            std::fs::create_dir_all(&dir).expect("dir");
            let file = dir.join(format!("dh_{r}_{beta}.nsd"));
            std::fs::write(&file, model + text).expect("write");
            let (code, stdout, stderr) = nsd(&[
                "run",
                file.to_str().expect("utf-8"),
                "--only",
                "dh",
                "--json",
                "--out",
                dir.join(format!("dh_{r}_{beta}")).to_str().expect("utf-8"),
            ]);
            assert_eq!(code, 0, "{stderr}");
            let v: Value =
                serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
            let late: Vec<Vec<String>> = events_csv(&v)
                .into_iter()
                .filter(|e| e[0].parse::<f64>().expect("t") > 630.0 - 20.0 * std::f64::consts::PI)
                .collect();
            let sticks = late.iter().filter(|e| e[2] == "stick").count();
            match regime {
                "continuous" => assert!(
                    sticks == 0 && !late.is_empty(),
                    "r = {r}, β = {beta}: {late:?}"
                ),
                "stick-slip" => assert!(
                    sticks >= 10,
                    "r = {r}, β = {beta}: {sticks} stops in ten cycles"
                ),
                _ => assert!(
                    v["summary"]["events"] == 0 && v["summary"]["final"]["x.x"] == 0.0,
                    "r = {r}, β = {beta}: {}",
                    v["summary"]
                ),
            }
        }
    }
}

#[test]
fn jenkins_free_decay_matches_the_closed_form() {
    // m = k = 1, kt = 3, F = 0.5, x0 = 1 (slider at z = 1). Stuck: ω² = k + kt = 4 about
    // x_eq = kt x0/(k + kt) = 0.75; the spring force kt (x − 1) reaches −F when
    // 1 − cos ωt = F/(kt (1 − x_eq)). Then sliding (ω0 = 1 about F/k, force +F) until ẋ = 0,
    // where the slider sticks at z = x + F/kt and the element is stuck again.
    let (w, x_eq) = (2.0f64, 0.75f64);
    let t1 = (1.0f64 - 0.5 / (3.0 * (1.0 - x_eq))).acos() / w;
    let (x1, v1) = (
        x_eq + (1.0 - x_eq) * (w * t1).cos(),
        -(1.0 - x_eq) * w * (w * t1).sin(),
    );
    let theta = (v1 / (x1 - 0.5)).atan().rem_euclid(std::f64::consts::PI);
    let t2 = t1 + theta;
    let x2 = 0.5 + (x1 - 0.5) * theta.cos() + v1 * theta.sin();
    // After t2, stuck again: ω = 2 about the new equilibrium (k x + kt (x − z) = 0).
    let z = x2 + 0.5 / 3.0;
    let eq = 3.0 * z / 4.0;
    let t3 = t2 + 0.3;
    let x3 = eq + (x2 - eq) * (w * 0.3).cos();
    let v = run(
        "tests/models/jenkins_sdof.nsd",
        &format!("\nsimulate jenkins_sdof as jenkins {{ t = 0..{t3}, x0 = {{ x = 1 }}, rtol = 1e-12, atol = 1e-12, output = at({t2}) }}\n"),
    );
    let ev = events_csv(&v[0]);
    let times: Vec<f64> = ev.iter().map(|e| e[0].parse().expect("t")).collect();
    assert_eq!(
        ev[0][1..5],
        ["j", "slip", "stick", "slip-"].map(String::from)
    );
    assert_eq!(
        ev[1][1..5],
        ["j", "stick", "slip-", "stick"].map(String::from)
    );
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!((times[0] - t1).abs() < 1e-10, "{} vs {t1}", times[0]);
    assert!((times[1] - t2).abs() < 1e-10, "{} vs {t2}", times[1]);
    let fin = v[0]["summary"]["final"]["x.x"].as_f64().expect("final x");
    assert!((fin - x3).abs() < 1e-9, "x(t3) = {fin} vs {x3}");
}

/// Rows of data.csv keyed by the printed time.
fn rows_by_time(v: &Value) -> std::collections::HashMap<String, Vec<f64>> {
    let path = std::path::PathBuf::from(v["out"].as_str().expect("out")).join("data.csv");
    std::fs::read_to_string(path)
        .expect("data.csv")
        .lines()
        .skip(1)
        .map(|l| {
            let mut it = l.split(',');
            let t = it.next().expect("t").to_string();
            (t, it.map(|x| x.parse().expect("number")).collect())
        })
        .collect()
}

#[test]
fn two_coulomb_contacts_uncoupled_are_two_single_runs() {
    // Without coupling each mass is its own Coulomb oscillator, so each contact's events are
    // Den Hartog's free decay: velocity zeros every half period π/ω, the amplitude about the
    // current ±F/k centre dropping by 2F/k each time, and a stop once the spring force at rest
    // no longer exceeds F.
    let sim = "t = 0..40, x0 = { m1 = 1, m2 = -0.8 }, rtol = 1e-12, atol = 1e-12";
    let both = run(
        "tests/models/two_contacts.nsd",
        &format!("\nsimulate two_free_contacts as both {{ {sim} }}\n"),
    );
    let ev = events_csv(&both[0]);
    assert!(ev.iter().filter(|e| e[1] == "c1").count() >= 4, "{ev:?}");
    assert!(ev.iter().filter(|e| e[1] == "c2").count() >= 4, "{ev:?}");
    for (name, m, k, f, x0) in [
        ("c1", 1.0f64, 1.0f64, 0.1f64, 1.0f64),
        ("c2", 2.0, 3.0, 0.15, -0.8),
    ] {
        let w = (k / m).sqrt();
        // |x| at each velocity zero: x0, then |x| − 2F/k each half period, while k|x| > F.
        let (mut x, mut t, mut expected) = (x0.abs(), 0.0, Vec::new());
        while k * x > f {
            t += std::f64::consts::PI / w;
            x -= 2.0 * f / k;
            expected.push(t);
        }
        let stops: Vec<f64> = ev
            .iter()
            .filter(|e| e[1] == name && e[4] == "stick")
            .map(|e| e[0].parse().expect("t"))
            .collect();
        let reversals: Vec<f64> = ev
            .iter()
            .filter(|e| e[1] == name && e[2] == "slip" && e[3] != "stick")
            .map(|e| e[0].parse().expect("t"))
            .collect();
        let mut all: Vec<f64> = stops.iter().chain(&reversals).copied().collect();
        all.sort_by(f64::total_cmp);
        assert_eq!(all.len(), expected.len(), "{name}: {all:?} vs {expected:?}");
        for (a, e) in all.iter().zip(&expected) {
            assert!((a - e).abs() < 1e-9, "{name}: {a} vs {e}");
        }
    }
}

#[test]
fn two_coulomb_contacts_coupled_balance_energy_and_do_not_creep() {
    // Coupled free decay from x0. The energy lost equals Σ F_i × (slid distance of i); while a
    // contact sticks its mass does not move at all.
    let v = run(
        "tests/models/two_contacts.nsd",
        "\nsimulate two_contacts as coupled { t = 0..30, x0 = { m1 = 1.2, m2 = -0.9 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = events_csv(&v[0]);
    let rows = rows_by_time(&v[0]);
    let energy = |r: &[f64]| {
        let (x1, x2, v1, v2) = (r[0], r[1], r[2], r[3]);
        0.5 * (v1 * v1 + 2.0 * v2 * v2) + 0.5 * (x1 * x1 + 3.0 * x2 * x2 + (x1 - x2).powi(2))
    };
    // Slid distance: sum of |Δx| between consecutive switches of each contact while sliding.
    let mut dissipated = 0.0;
    let mut stuck_at: [Option<f64>; 2] = [None, None];
    for (i, (name, f)) in [("c1", 0.2), ("c2", 0.3)].into_iter().enumerate() {
        let mut last = (0.0f64, [1.2, -0.9][i], false);
        for e in ev.iter().filter(|e| e[1] == name) {
            let x = rows.get(&e[0]).expect("a row at the event")[i];
            if !last.2 {
                dissipated += f * (x - last.1).abs();
            } else if let Some(x_stuck) = stuck_at[i] {
                assert!(
                    (x - x_stuck).abs() < 1e-12,
                    "{name} crept while stuck: {x} vs {x_stuck}"
                );
            }
            last = (0.0, x, e[4] == "stick");
            stuck_at[i] = (e[4] == "stick").then_some(x);
        }
    }
    let fin = &v[0]["summary"]["final"];
    let xf: Vec<f64> = ["m1.x", "m2.x", "v(m1.x)", "v(m2.x)"]
        .iter()
        .map(|k| fin[*k].as_f64().expect("final"))
        .collect();
    let e0 = energy(&[1.2, -0.9, 0.0, 0.0]);
    // Both end stuck (the second one stopping while the first holds): no creep to t1.
    for (i, x_stuck) in stuck_at.iter().enumerate() {
        let x_stuck = x_stuck.expect("both contacts end stuck");
        assert!(
            (xf[i] - x_stuck).abs() < 1e-12,
            "mass {i} crept: {} vs {x_stuck}",
            xf[i]
        );
        assert_eq!(xf[2 + i], 0.0, "mass {i} moves while stuck");
    }
    assert!(
        (e0 - energy(&xf) - dissipated).abs() < 1e-9,
        "E0 − E = {} vs dissipated {dissipated}",
        e0 - energy(&xf)
    );
}

#[test]
fn gap_to_a_moving_base_matches_the_relative_coordinate_model() {
    // The base-fixed gap's events (displacement fitted over each step like the wall velocity
    // of friction events) against the same motion in z = x − y with a ground gap.
    let sim = "t = 0..40, rtol = 1e-12, atol = 1e-12";
    let v = run(
        "tests/models/base_gap.nsd",
        // At rest in the fixed frame is ż(0) = −ẏ(0) = −Y w in the relative one.
        &format!("\nsimulate base_gap as moving {{ {sim} }}\nsimulate relative_gap as relative {{ {sim}, v0 = {{ z = -0.36 }} }}\n"),
    );
    let (moving, relative) = (events_csv(&v[0]), events_csv(&v[1]));
    assert!(moving.len() >= 6, "{moving:?}");
    assert_eq!(moving.len(), relative.len(), "{moving:?}\nvs {relative:?}");
    for (a, b) in moving.iter().zip(&relative) {
        let (ta, tb): (f64, f64) = (a[0].parse().expect("t"), b[0].parse().expect("t"));
        assert!(
            (ta - tb).abs() < 1e-9 && a[3..5] == b[3..5],
            "{a:?} vs {b:?}"
        );
        // The recorded rate is the relative one in both.
        let (va, vb): (f64, f64) = (a[5].parse().expect("v"), b[5].parse().expect("v"));
        assert!((va - vb).abs() < 1e-8, "{a:?} vs {b:?}");
    }
    let x = v[0]["summary"]["final"]["x.x"].as_f64().expect("x");
    let z = v[1]["summary"]["final"]["z.x"].as_f64().expect("z");
    assert!(
        (x - 0.3 * (1.2f64 * 40.0).sin() - z).abs() < 1e-8,
        "x − y = {} vs z = {z}",
        x - 0.3 * (1.2f64 * 40.0).sin()
    );
}

#[test]
fn stiff_linear_decay_matches_the_closed_form_with_rodas_and_auto() {
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate overdamped as od_ros { t = 0..5, x0 = { m = 1 }, method = rodas, rtol = 1e-8, atol = 1e-10 }\n\
         simulate overdamped as od_auto { t = 0..5, x0 = { m = 1 }, rtol = 1e-8, atol = 1e-10 }\n\
         simulate overdamped as od_rk { t = 0..5, x0 = { m = 1 }, method = dop853, rtol = 1e-8, atol = 1e-10 }\n",
    );
    let (c, k) = (1e4_f64, 1e4_f64);
    let root = (c * c - 4.0 * k).sqrt();
    let (s1, s2) = ((-c + root) / 2.0, (-c - root) / 2.0);
    let exact = |t: f64| (s2 * (s1 * t).exp() - s1 * (s2 * t).exp()) / (s2 - s1);
    for v in &out {
        let x = v["summary"]["final"]["m.x"].as_f64().expect("final x");
        // Global error of a few rtol on a decaying solution: 1e-7 relative.
        assert!(
            (x - exact(5.0)).abs() < 1e-7 * exact(5.0),
            "{}: {x} vs {}",
            v["name"],
            exact(5.0)
        );
    }
    let evals = |i: usize| out[i]["summary"]["rhs_evals"].as_u64().expect("evals");
    let stiff_steps = |i: usize| out[i]["summary"]["stiff_steps"].as_u64().expect("steps");
    // The explicit method is stability-bound (~5/6e-4 ≈ 8000 steps); RODAS is not.
    assert!(
        evals(0) * 20 < evals(2),
        "rodas {} vs dop853 {}",
        evals(0),
        evals(2)
    );
    assert!(
        evals(1) * 10 < evals(2),
        "auto {} vs dop853 {}",
        evals(1),
        evals(2)
    );
    assert_eq!(stiff_steps(2), 0);
    assert_eq!(
        out[1]["summary"]["stiff_switches"]
            .as_array()
            .expect("list")
            .len(),
        1
    );
    assert_eq!(
        stiff_steps(0),
        out[0]["summary"]["steps"].as_u64().expect("steps")
    );
}

#[test]
fn a_stiff_compliant_contact_switches_to_rodas_and_back() {
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate soft_floor as floor_auto { t = 0..1, x0 = { b = 0.9 }, rtol = 1e-9, atol = 1e-12 }\n\
         simulate soft_floor as floor_rk { t = 0..1, x0 = { b = 0.9 }, method = dop853, rtol = 1e-9, atol = 1e-12 }\n",
    );
    let t_contact = (2.0 * 0.9 / 9.81_f64).sqrt();
    let switches = out[0]["summary"]["stiff_switches"]
        .as_array()
        .expect("list");
    assert_eq!(switches.len(), 1, "{switches:?}");
    let ts = switches[0].as_f64().expect("t");
    // The test needs 15 stability-bound steps in contact (~1e-4 s each) to fire.
    assert!(ts > t_contact && ts < t_contact + 1e-2, "stiff from {ts}");
    // Both settle at δ = m g / k (the slow mode e^{−100 t} has decayed by t = 1).
    for v in &out {
        let x = v["summary"]["final"]["b.x"].as_f64().expect("x");
        assert!((x + 9.81e-7).abs() < 1e-11, "{}: {x:e}", v["name"]);
    }
    let evals = |i: usize| out[i]["summary"]["rhs_evals"].as_u64().expect("evals");
    assert!(
        evals(0) * 10 < evals(1),
        "auto {} vs dop853 {}",
        evals(0),
        evals(1)
    );
    // Before the contact the explicit method integrates the free fall.
    assert!(out[0]["summary"]["stiff_steps"].as_u64() < out[0]["summary"]["steps"].as_u64());
}

#[test]
fn rigid_stop_on_a_moving_table_matches_the_relative_coordinate_model() {
    // Impacts against the vibrating table take Newton's law on the velocity relative to it.
    let sim = "t = 0..3, rtol = 1e-12, atol = 1e-12";
    let v = run(
        "tests/models/base_gap.nsd",
        // At rest in the fixed frame is ż(0) = −ẏ(0) = −Y w = −1 in the table's frame.
        &format!("\nsimulate table_ball as table_moving {{ {sim}, x0 = {{ b = 0.1 }} }}\n\
                  simulate relative_ball as table_relative {{ {sim}, x0 = {{ z = 0.1 }}, v0 = {{ z = -1 }} }}\n"),
    );
    let (moving, relative) = (events_csv(&v[0]), events_csv(&v[1]));
    assert!(moving.len() >= 8 && relative.len() >= 8, "{moving:?}");
    // The bouncing is chaotic (differences grow ~10× per bounce): the first four impacts.
    for (a, b) in moving.iter().zip(&relative).take(4) {
        let num = |r: &Vec<String>, i: usize| r[i].parse::<f64>().expect("number");
        assert!((num(a, 0) - num(b, 0)).abs() < 1e-10, "{a:?} vs {b:?}");
        for col in [5, 6] {
            assert!((num(a, col) - num(b, col)).abs() < 1e-9, "{a:?} vs {b:?}");
        }
        assert!(
            (num(a, 6) + 0.8 * num(a, 5)).abs() < 1e-12,
            "u̇⁺ = −e u̇⁻: {a:?}"
        );
    }
}

#[test]
fn a_plastic_landing_on_a_vibrating_table_lifts_off_when_the_table_drops_faster_than_g() {
    // e = 0: the ball lands, rides with the table and leaves it where the table's acceleration
    // −Y w² sin(wt) reaches −g, i.e. sin(wt) = g/(Y w²) on its rising branch.
    let v = run(
        "tests/models/base_gap.nsd",
        "\nsimulate table_plastic as table_plastic { t = 0..0.5, x0 = { b = 0.1 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = events_csv(&v[0]);
    // The first landing meets the table dropping faster than g (no hold: the ball leaves it
    // at once); the table catches it again, and then it rides.
    let hold = ev.iter().position(|e| e[2] == "hold").expect("a hold");
    assert_eq!(ev[hold + 1][2], "lift-off", "{ev:?}");
    let t_land: f64 = ev[hold][0].parse().expect("t");
    let t_lift: f64 = ev[hold + 1][0].parse().expect("t");
    let (w, gamma) = (20.0_f64, 9.81_f64 / (0.05 * 400.0));
    let tau = std::f64::consts::TAU;
    let phase = gamma.asin();
    let k = ((w * t_land - phase) / tau).ceil();
    let expected = (phase + k * tau) / w;
    assert!(
        (t_lift - expected).abs() < 1e-9,
        "lift-off {t_lift} vs {expected}"
    );
}

#[test]
fn simultaneous_impacts_of_coupled_stops_follow_the_closed_form_and_keep_energy() {
    // Both stops are hit at the same instants (bitwise): one impulse problem for the pair.
    let v = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate twin_stops as twins { t = 0..1700, v0 = { m1 = 1, m2 = -1 }, rtol = 1e-12, atol = 1e-12, output = every(1) }\n",
    );
    let ev = events_csv(&v[0]);
    assert!(ev.len() >= 1000, "{} impacts", ev.len());
    let omega = 2.0_f64.sqrt();
    let phi = (0.5 * omega).asin();
    for (k, pair) in ev.chunks(2).take(20).enumerate() {
        let expected = (phi + k as f64 * (std::f64::consts::PI + 2.0 * phi)) / omega;
        let mut elements = Vec::new();
        for e in pair {
            let (t, before, after): (f64, f64, f64) = (
                e[0].parse().expect("t"),
                e[5].parse().expect("v"),
                e[6].parse().expect("v"),
            );
            assert!(
                (t - expected).abs() < 1e-10,
                "impact {k}: {t} vs {expected}"
            );
            assert!((before.abs() - phi.cos()).abs() < 1e-10 && (after + before).abs() < 1e-12);
            elements.push(e[1].clone());
        }
        elements.sort();
        assert_eq!(elements, ["s1", "s2"], "{pair:?}");
    }
    let drift = v[0]["summary"]["energy_drift"]
        .as_f64()
        .expect("conservative");
    assert!(
        drift < 1e-9,
        "energy drift {drift:e} over {} impacts",
        ev.len()
    );
}

#[test]
fn contacts_coming_to_rest_together_settle_together() {
    // Den Hartog's free decay of the equivalent oscillator (k = 2, F = 0.1) for both contacts:
    // velocity zeros every π/√2, |x| dropping by 2F/k = 0.1, a final stick once 2|x| ≤ F.
    let v = run(
        "tests/models/two_contacts.nsd",
        "\nsimulate twin_contacts as twin_rest { t = 0..30, x0 = { m1 = 0.43, m2 = -0.43 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = events_csv(&v[0]);
    let (k, f) = (2.0_f64, 0.1_f64);
    let (mut x, mut t, mut expected) = (0.43_f64, 0.0, Vec::new());
    while k * x > f {
        t += std::f64::consts::PI / k.sqrt();
        x -= 2.0 * f / k;
        expected.push(t);
    }
    for name in ["c1", "c2"] {
        let times: Vec<f64> = ev
            .iter()
            .filter(|e| e[1] == name)
            .map(|e| e[0].parse().expect("t"))
            .collect();
        assert_eq!(times.len(), expected.len(), "{name}: {ev:?}");
        for (a, e) in times.iter().zip(&expected) {
            assert!((a - e).abs() < 1e-9, "{name}: {a} vs {e}");
        }
        let last = ev.iter().rfind(|e| e[1] == name).expect("events");
        assert_eq!(last[4], "stick", "{name} ends stuck: {ev:?}");
    }
    let fin = &v[0]["summary"]["final"];
    let (x1, x2) = (
        fin["m1.x"].as_f64().expect("x"),
        fin["m2.x"].as_f64().expect("x"),
    );
    assert!(
        (x1 + x2).abs() < 1e-12 && (x1.abs() - x).abs() < 1e-9,
        "{x1}, {x2} vs ±{x}"
    );
}

#[test]
fn thread_count_does_not_change_a_simulation() {
    // The tour file (six analyses, one simulate with events) run with 1 and 2 worker
    // threads: the simulate outputs are byte-identical.
    let read = |threads: &str| {
        let dir = root().join(format!("target/test-out/simulate_threads_{threads}"));
        let _ = std::fs::remove_dir_all(&dir);
        let (code, _, stderr) = nsd_with_env(
            &[
                "run",
                "models/tour.nsd",
                "--out",
                dir.to_str().expect("utf-8"),
            ],
            &[("RAYON_NUM_THREADS", threads)],
        );
        assert_eq!(code, 0, "{stderr}");
        ["data.csv", "events.csv"]
            .map(|f| std::fs::read(dir.join("freeplay_run").join(f)).expect(f))
    };
    assert!(
        read("1") == read("2"),
        "simulate outputs differ between 1 and 2 threads"
    );
}

#[test]
fn oscillator_between_two_rigid_stops_matches_the_closed_form() {
    // Flight from a stop at ±g leaving with speed e·v: x = R cos(τ + ψ) about the stop, with
    // R = √(g² + e²v²), ψ = atan2(e v, g); it reaches the other stop at τ = acos(−g/R) − ψ
    // with speed e·v.
    let out = run(
        "tests/models/simulate_cases.nsd",
        "\nsimulate two_stops as between { t = 0..30, v0 = { m = 1 }, rtol = 1e-12, atol = 1e-12 }\n",
    );
    let ev = events_csv(&out[0]);
    let (g, e) = (0.5_f64, 0.8_f64);
    let (mut t, mut v) = (g.asin(), g.asin().cos());
    assert!(ev.len() >= 10, "{ev:?}");
    for (k, row) in ev.iter().take(10).enumerate() {
        let num = |i: usize| row[i].parse::<f64>().expect("number");
        let side = if k % 2 == 0 { 1.0 } else { -1.0 };
        assert!(
            (num(0) - t).abs() < 1e-10,
            "impact {k} at {} vs {t}",
            num(0)
        );
        assert!(
            (num(5) - side * v).abs() < 1e-10,
            "impact {k}: u̇⁻ {} vs {}",
            num(5),
            side * v
        );
        assert!(
            (num(6) + side * e * v).abs() < 1e-10,
            "impact {k}: u̇⁺ {}",
            num(6)
        );
        let r = (g * g + e * e * v * v).sqrt();
        t += (-g / r).acos() - (e * v).atan2(g);
        v *= e;
    }
}
