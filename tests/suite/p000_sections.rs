//! Poincaré sections of `simulate` (issue 17, item 1): stroboscopic samples and located
//! crossings on the dense output, checked against the closed-form steady state of a linear
//! forced oscillator `m ẍ + c ẋ + k x = F cos Ωt`:
//! `x = A cos(Ωt − φ)`, `A = F / √((k − mΩ²)² + (cΩ)²)`, `φ = atan2(cΩ, k − mΩ²)`.

use crate::common::*;

const F: f64 = 0.5;
const C: f64 = 0.4;
const OMEGA: f64 = 1.3;

/// The steady state's amplitude and phase lag (m = k = 1).
fn steady() -> (f64, f64) {
    let (re, im) = (1.0 - OMEGA * OMEGA, C * OMEGA);
    (F / re.hypot(im), im.atan2(re))
}

fn model() -> String {
    format!(
        "model lin(Omega = {OMEGA}) {{\n  mass m1 = 1\n  spring m1 -- ground {{ k = 1 }}\n  damper m1 -- ground {{ c = {C} }}\n  force m1 = {F} * cos(Omega * t)\n}}\n"
    )
}

/// Runs `analyses` on the oscillator and returns `section.csv` of the analysis `name` as
/// rows of numbers (t, x, v), and the exit code with stderr.
fn section_rows(analyses: &str, name: &str, tag: &str) -> Vec<Vec<f64>> {
    let dir = root().join("target/test-out/sections").join(tag);
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("case.nsd");
    std::fs::write(&file, model() + analyses).expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::read_to_string(dir.join(name).join("section.csv"))
        .expect("section.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().expect("number")).collect())
        .collect()
}

#[test]
fn stroboscopic_section_is_the_closed_form_steady_state() {
    // From rest; the transient decays as e^{−ct/2} (e^{−30} ≈ 1e-13 by t = 150).
    let rows = section_rows(
        "simulate lin as s { t = 0..200, section = stroboscopic, rtol = 1e-12, atol = 1e-12, output = at(200) }\n\
         simulate lin as p { t = 0..200, section = stroboscopic(1.0), rtol = 1e-12, atol = 1e-12, output = at(200) }\n",
        "s",
        "strobe",
    );
    let (a, phi) = steady();
    let period = 2.0 * std::f64::consts::PI / OMEGA;
    assert_eq!(rows.len(), 42, "t = kT for k = 0..=41");
    for (k, r) in rows.iter().enumerate() {
        // Sampled exactly at t = kT.
        assert_eq!(r[0], k as f64 * period);
    }
    for r in rows.iter().filter(|r| r[0] > 150.0) {
        // x(kT) = A cos φ, v(kT) = A Ω sin φ.
        assert!((r[1] - a * phi.cos()).abs() < 1e-10, "{r:?}");
        assert!((r[2] - a * OMEGA * phi.sin()).abs() < 1e-10, "{r:?}");
    }
    // With the phase 1 rad: Ωt = 1 + 2πk, so x = A cos(1 − φ).
    let dir = root().join("target/test-out/sections/strobe/p/section.csv");
    let phased: Vec<Vec<f64>> = std::fs::read_to_string(dir)
        .expect("section.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().expect("number")).collect())
        .collect();
    assert!((phased[0][0] - 1.0 / OMEGA).abs() < 1e-15);
    for r in phased.iter().filter(|r| r[0] > 150.0) {
        assert!((r[1] - a * (1.0 - phi).cos()).abs() < 1e-10, "{r:?}");
    }
}

#[test]
fn crossings_are_located_to_round_off_on_the_closed_form_orbit() {
    // Started on the steady state: x(0) = A cos φ, v(0) = A Ω sin φ, so the motion is
    // x = A cos(Ωt − φ) from t = 0 on.
    let (a, phi) = steady();
    let (x0, v0) = (a * phi.cos(), a * OMEGA * phi.sin());
    let runs = format!(
        "simulate lin as top {{ t = 0..40, x0 = {{ m1 = {x0:e} }}, v0 = {{ m1 = {v0:e} }}, section = crossing(\"v(m1)\", 0, falling), rtol = 1e-13, atol = 1e-13, output = at(40) }}\n\
         simulate lin as level {{ t = 0..40, x0 = {{ m1 = {x0:e} }}, v0 = {{ m1 = {v0:e} }}, section = crossing(\"m1\", 0.2, rising), rtol = 1e-13, atol = 1e-13, output = at(40) }}\n"
    );
    let top = section_rows(&runs, "top", "crossing");
    // v = −AΩ sin(Ωt − φ) falls through 0 where Ωt − φ = 2πk.
    let expected: Vec<f64> = (0..)
        .map(|k| (phi + 2.0 * std::f64::consts::PI * k as f64) / OMEGA)
        .take_while(|t| *t <= 40.0)
        .collect();
    assert_eq!(top.len(), expected.len());
    for (r, t) in top.iter().zip(&expected) {
        assert!((r[0] - t).abs() < 1e-12, "{} vs {t}", r[0]);
        assert!((r[1] - a).abs() < 1e-12 && r[2].abs() < 1e-12, "{r:?}");
    }
    // x = 0.2 rising: Ωt − φ = −acos(0.2/A) + 2πk.
    let level: Vec<Vec<f64>> =
        std::fs::read_to_string(root().join("target/test-out/sections/crossing/level/section.csv"))
            .expect("section.csv")
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().expect("number")).collect())
            .collect();
    let theta = (0.2 / a).acos();
    assert!(phi > theta, "the first rising crossing is at k = 0");
    let expected: Vec<f64> = (0..)
        .map(|k| (phi - theta + 2.0 * std::f64::consts::PI * k as f64) / OMEGA)
        .take_while(|t| *t <= 40.0)
        .collect();
    assert_eq!(level.len(), expected.len());
    for (r, t) in level.iter().zip(&expected) {
        assert!((r[0] - t).abs() < 1e-12, "{} vs {t}", r[0]);
        assert!((r[1] - 0.2).abs() < 1e-12 && r[2] > 0.0, "{r:?}");
    }
}

#[test]
fn a_bad_section_is_a_located_diagnostic() {
    let text = model() + "simulate lin { t = 0..10, section = crossing(\"m9\", 0, rising) }\n";
    let (code, _, stderr, _) = run_text(&text, "sections/bad", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("nsd::analysis::bad_option"), "{stderr}");
    assert!(
        stderr.contains("expected a DOF or its velocity"),
        "{stderr}"
    );
}
