//! `reduce = modes(m)` (issue 14, item 3): Craig–Bampton reduction for `simulate` and
//! `continue frf`, checked against the full model — exact with every interior mode kept,
//! converging as modes are added, and the paper-003 cantilever's FRF with ten modes.

use crate::common::*;
use serde_json::Value;
use std::path::PathBuf;

/// A fixed–free chain of `n` masses with a stiff free-play gap and the load at its tip
/// (`bench/chain_scaling.nsd`'s model at a small n).
const CHAIN: &str = r#"
import "chain.nsd"
model chain_gap {
  param n = 30
  use chain as c(n = n, m = 1 / n, k = n)
  gap stop: c.x[n] -- ground { clearance = 0.05, sides = both, law = linear(10 * n) }
  force c.x[n] = 0.1 * cos(1.3 * t)
  damping rayleigh { alpha = 0.01, beta = 1e-4 }
}
"#;

/// Runs `analyses` on `CHAIN`; the JSON object of each analysis, exit code 0 asserted.
fn run_chain(analyses: &str, tag: &str) -> Vec<Value> {
    run_json(&format!("{CHAIN}{analyses}"), &format!("reduce/{tag}"), &[])
}

/// The column `name` of an analysis's CSV file.
fn column(v: &Value, file: &str, name: &str) -> Vec<f64> {
    let (header, rows) = read_csv(&PathBuf::from(v["out"].as_str().expect("out")).join(file));
    let at = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    rows.iter().map(|r| r[at]).collect()
}

/// An analysis's `meta.json` (settings, summary, warnings).
fn meta(v: &Value) -> Value {
    let path = PathBuf::from(v["out"].as_str().expect("out")).join("meta.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("meta.json")).expect("JSON")
}

fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// With every interior mode kept (29 of a 30-mass chain) the reduced run is the full one in
/// other coordinates: the tip and a mid-chain mass agree to the integrators' tolerance
/// (rtol = atol = 1e-10 over 10 s and ~90 contact events: displacements measured 5e-10, bound
/// 1e-8; the tip's velocity, up to 0.42, measured 2.4e-8, bound 1e-7; the
/// motion is sensitive — the two runs drift apart exponentially, to 1e-4 by t = 30). The
/// summary accounts for the reduction, and the tables keep the physical DOFs.
#[test]
fn every_interior_mode_kept_reproduces_the_full_run() {
    let opts = "t = 0..10, rtol = 1e-10, atol = 1e-10, output = every(0.25)";
    let runs = run_chain(
        &format!(
            "simulate chain_gap as full {{ {opts} }}\nsimulate chain_gap as reduced {{ {opts}, reduce = modes(29) }}\n"
        ),
        "all_modes",
    );
    let (full, reduced) = (&runs[0], &runs[1]);
    for (dof, bound) in [
        ("c.x[30].x", 1e-8),
        ("c.x[15].x", 1e-8),
        ("v(c.x[30].x)", 1e-7),
    ] {
        let d = largest_difference(
            &column(full, "data.csv", dof),
            &column(reduced, "data.csv", dof),
        );
        assert!(d <= bound, "{dof}: {d}");
    }
    assert_eq!(full["summary"]["events"], reduced["summary"]["events"]);
    let account = &meta(reduced)["settings"]["reduce"];
    assert_eq!(account["method"], "Craig–Bampton");
    assert_eq!(account["kept_dofs"], serde_json::json!(["c.x[30].x"]));
    assert_eq!(account["unknowns"], 30);
    for f in account["natural_frequencies"].as_array().expect("list") {
        assert!(
            f["relative_error"].as_f64().expect("number").abs() <= 1e-9,
            "{f}"
        );
    }
}

/// Few modes: the error falls as modes are added (tip displacement over 8 s of a 200-mass
/// chain hitting its stop: measured 3.3e-2, 7.3e-3, 2.6e-3 for 5, 15, 40 modes, against a
/// response of 0.05 — the impacts excite the whole spectrum, so convergence is slow), and the
/// reported first dropped frequency lies above the highest kept.
#[test]
fn the_error_falls_as_modes_are_added() {
    let opts = "t = 0..8, rtol = 1e-9, atol = 1e-9, output = every(0.25)";
    let mut text = format!("simulate chain_gap as full {{ {opts} }}\n");
    for m in [5, 15, 40] {
        text += &format!("simulate chain_gap as m{m} {{ {opts}, reduce = modes({m}) }}\n");
    }
    let runs = run_json(
        &format!("{CHAIN}{text}"),
        "reduce/convergence",
        &["--set", "n=200"],
    );
    let tip = |v: &Value| column(v, "data.csv", "c.x[200].x");
    let errors: Vec<f64> = runs[1..]
        .iter()
        .map(|r| largest_difference(&tip(&runs[0]), &tip(r)))
        .collect();
    assert!(
        errors[0] > 2.0 * errors[1] && errors[1] > 2.0 * errors[2],
        "{errors:?}"
    );
    assert!(errors[2] < 4e-3, "{errors:?}");
    for r in &runs[1..] {
        let a = &meta(r)["settings"]["reduce"];
        assert!(a["first_dropped_omega"].as_f64() > a["highest_kept_omega"].as_f64());
    }
}

/// An initial state off the reduced space (an interior mass displaced alone) starts from its
/// projection, and the run says so; the rest state is in it, silently. A crossing section of an interior DOF is
/// located on the reduced run and reported on the physical one (at the level to 1e-9).
#[test]
fn initial_states_and_sections_on_the_reduced_run() {
    let runs = run_chain(
        "simulate chain_gap as inside { t = 0..5, x0 = { c.x[10] = 0.01 }, reduce = modes(8) }\n\
         simulate chain_gap as crossing { t = 0..40, reduce = modes(8), section = crossing(\"c.x[15]\", 0.01, rising) }\n",
        "start_section",
    );
    let warned = |v: &Value| {
        meta(v)["warnings"].as_array().is_some_and(|w| {
            w.iter()
                .any(|m| m.as_str().unwrap_or("").contains("projection"))
        })
    };
    assert!(warned(&runs[0]));
    assert!(!warned(&runs[1]));
    let crossings = column(&runs[1], "section.csv", "c.x[15].x");
    assert!(!crossings.is_empty());
    for x in crossings {
        assert!((x - 0.01).abs() <= 1e-9, "{x}");
    }
}

/// Paper 003's cantilever with its pad, driven hard enough to slip (F = 20 N): the FRF of the
/// model reduced to the pad, the tip and ten fixed-interface modes against the full 40-DOF
/// one — the refined peak to 1e-3 in frequency and amplitude (measured 1e-7 and 2e-7) and
/// every point within 1e-3 of the full curve interpolated at its frequency.
#[test]
fn the_cantilever_frf_with_ten_modes_is_the_full_one() {
    let frf = |extra: &str, tag: &str| {
        let (code, stdout, stderr, _) = frf_run(
            "models/seed3/cantilever_pad.nsd",
            &format!(
                "continue frf cantilever_pad as frf {{ param = Omega in 1250..1400, harmonics = 3, excitation = 20, stability = false{extra} }}"
            ),
            &format!("reduce/{tag}"),
        );
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<Value>(stdout.trim()).expect("JSON")
    };
    let full = frf("", "cantilever_full");
    let reduced = frf(", reduce = modes(10)", "cantilever_reduced");
    let peak = |v: &Value, k: &str| v["summary"]["peak"][k].as_f64().expect("peak");
    for k in ["Omega", "amplitude"] {
        let (a, b) = (peak(&full, k), peak(&reduced, k));
        assert!((a - b).abs() <= 1e-3 * a.abs(), "{k}: {a} vs {b}");
    }
    let tip = "max|beam.b[20].y|";
    let (wf, xf) = (
        column(&full, "data.csv", "Omega [rad/s]"),
        column(&full, "data.csv", tip),
    );
    let (wr, xr) = (
        column(&reduced, "data.csv", "Omega [rad/s]"),
        column(&reduced, "data.csv", tip),
    );
    for (w, x) in wr.iter().zip(&xr) {
        let Some(i) = wf.windows(2).position(|p| p[0] <= *w && *w <= p[1]) else {
            continue;
        };
        let s = (w - wf[i]) / (wf[i + 1] - wf[i]);
        let interpolated = xf[i] + s * (xf[i + 1] - xf[i]);
        assert!(
            (x - interpolated).abs() <= 1e-3 * interpolated,
            "Ω = {w}: {x} vs {interpolated}"
        );
    }
}

/// `reduce` takes `modes(m)` with a whole m ≥ 1 that the interior can give; anything else is
/// a located `bad_option` with the reason.
#[test]
fn bad_reduction_requests_are_refused() {
    for (value, reason) in [
        ("modes(0)", "whole number m ≥ 1"),
        ("modes(2.5)", "whole number m ≥ 1"),
        ("guyan", "whole number m ≥ 1"),
        (
            "modes(40)",
            "fixed-interface modes asked for, but the interior has 29 DOFs",
        ),
    ] {
        let (code, _, stderr, _) = run_text(
            &format!("{CHAIN}simulate chain_gap {{ t = 0..1, reduce = {value} }}\n"),
            "reduce/bad",
            &[],
        );
        assert_eq!(code, 1, "{value}: {stderr}");
        assert!(stderr.contains("nsd::analysis::bad_option"), "{stderr}");
        assert!(stderr.contains(reason), "{value}: {stderr}");
    }
}
