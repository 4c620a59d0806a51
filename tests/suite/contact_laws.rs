//! Compliant contact laws against closed forms (paper 002, eqs. 1–3).

use crate::common::*;

/// The final state of each analysis of `file` (`run --json`), by analysis name.
fn finals(file: &str, tag: &str) -> Vec<(String, f64, f64)> {
    let out = format!("target/test-out/{tag}");
    let (code, stdout, stderr) = nsd(&["run", file, "--json", "--out", &out]);
    assert_eq!(code, 0, "{stderr}");
    stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            let f = &v["summary"]["final"];
            (
                v["name"].as_str().expect("name").to_string(),
                f["b.x"].as_f64().expect("x"),
                f["v(b.x)"].as_f64().expect("v"),
            )
        })
        .collect()
}

#[test]
fn kelvin_voigt_with_tension_is_the_damped_oscillator_until_the_contact_opens() {
    // Closed form (the model file's header): exit speed e^{−c π / (2 ω_d)}, then free flight
    // to t = 1. The event-driven run at rtol = atol = 1e-12 meets it to 1e-10.
    let (k, c): (f64, f64) = (100.0, 4.0);
    let wd = (k - c * c / 4.0).sqrt();
    let t_exit = std::f64::consts::PI / wd;
    let v_exit = (-c * t_exit / 2.0).exp();
    let runs = finals("tests/models/kelvin_voigt_floor.nsd", "kelvin_voigt");
    let (_, x, v) = &runs[0];
    assert!((v - v_exit).abs() < 1e-10, "{v} vs {v_exit}");
    assert!((x - v_exit * (1.0 - t_exit)).abs() < 1e-10, "{x}");
    // Without tension the law lets go once k δ + c δ̇ would pull: the mass leaves earlier
    // and faster (0.5717 against 0.5266).
    let (_, _, v_clamped) = &runs[1];
    assert!(v_clamped - v_exit > 0.04, "{v_clamped} vs {v_exit}");
}
