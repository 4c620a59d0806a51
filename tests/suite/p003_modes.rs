//! Paper 003: the cantilever of Table 1 against Euler–Bernoulli theory, and the
//! blade–damper–blade model's symmetry.

use crate::common::*;

#[test]
fn cantilever_bending_frequencies_within_half_a_percent() {
    let v = check_json("models/seed3/cantilever_pad.nsd", &[]);
    let f = frequencies(&v);
    // ω_n = (β_n L)² √(EI / (ρ A L⁴)), Table 1: E = 210 GPa, ρ = 7830, 10 × 10 mm, L = 200 mm.
    let (e, rho, b, h, l): (f64, f64, f64, f64, f64) = (210e9, 7830.0, 0.01, 0.01, 0.2);
    let (i, a) = (b * h * h * h / 12.0, b * h);
    let scale = (e * i / (rho * a * l.powi(4))).sqrt();
    let theory: Vec<f64> = [1.8751_f64, 4.6941, 7.8548]
        .iter()
        .map(|bl| bl * bl * scale)
        .collect();
    // 20 consistent-mass Hermite elements converge from above, well inside 0.5 %.
    assert_rel(&f[..3], &theory, 0.005, "cantilever");
    assert_eq!(
        v["dofs"].as_array().map(Vec::len),
        Some(40),
        "20 free nodes × (w, θ)"
    );
}

/// ω1 of the seed cantilever's `modes` analysis `name` (run alone: the file's backbones are
/// slower).
fn first_frequency(name: &str) -> f64 {
    let (code, stdout, stderr) = nsd(&[
        "run",
        "models/seed3/cantilever_pad.nsd",
        "--only",
        name,
        "--json",
        "--out",
        "target/test-out/p003",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON");
    line["summary"]["natural_frequencies"][0]
        .as_f64()
        .expect("ω1")
}

#[test]
fn stuck_pad_stiffens_the_first_mode() {
    let (open, stuck) = (first_frequency("modes"), first_frequency("stuck_modes"));
    assert!(
        stuck > 1.05 * open,
        "a tangential spring of 2e8 N/m at 70 % span must raise ω1: {open} → {stuck}"
    );
}

#[test]
fn blade_damper_blade_has_symmetric_pairs_when_open() {
    let f = frequencies(&check_json("models/seed3/blade_damper_blade.nsd", &[]));
    assert_eq!(f.len(), 8);
    // With the damper detached the left and right blade–platform halves are identical.
    for pair in [(0, 1), (2, 3), (4, 5)] {
        assert!((f[pair.0] - f[pair.1]).abs() < 1e-9 * f[pair.1], "{f:?}");
    }
}
