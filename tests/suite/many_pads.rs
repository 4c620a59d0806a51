//! Many friction contacts (issue 45): `continue frf` in receptance form (`hb::Compliance`)
//! solves the same balance as the full and the condensed-stiffness forms, and carries the
//! 40-pad beam — whose condensed stiffness's round-off floor stalled the branch after two
//! points — over the whole range, on the branch a ten-times finer run follows.

use crate::common::*;
use nalgebra::DVector;
use nsd::solve::cont::{linearised, newton, Problem, Settings};
use nsd::solve::hb::frf::{continued, default_settings};
use nsd::solve::hb::{Balance, Compliance, Condensed};
use std::path::PathBuf;

/// `bench/beam_pads.nsd` with `n` elements, `np` pads pressed by `n0` newtons, at H = 3
/// (32 samples, as `continue frf` takes by default) and the 20 N tip force.
fn beam(n: usize, np: usize, n0: f64) -> Balance {
    let prog = nsd::lang::Program::load(&root().join("bench/beam_pads.nsd")).expect("loads");
    let sets = [format!("n={n}"), format!("np={np}"), format!("N0={n0}")]
        .map(|s| nsd::lang::parse_override(&s).expect("override"));
    let sys =
        nsd::model::assemble(&nsd::lang::resolve(&prog, "beam_pads", &sets).expect("resolves"));
    let mut hb = Balance::new(&sys, 3, 32).expect("balance");
    hb.level = 20.0;
    hb
}

/// The receptance form's solutions are the balance's: on a 120-DOF beam with 10 pads, at
/// three frequencies across the slipping resonance, Newton on the 70 kept coefficients,
/// expanded, moves by at most 5e-8 of its size when polished on the full balance (840
/// unknowns; measured 1.2e-8, as much as the condensed-stiffness form's point moves: the
/// full balance's own conditioning, ω_max²/ω₁² ≈ 1e9 — its two polished points differ by
/// 7e-10), and equals the condensed-stiffness form's solution to 1e-8.
#[test]
fn receptance_points_are_the_full_balance_s() {
    let hb = beam(60, 10, 4.0);
    let r = Compliance::new(&hb).expect("modal: proportional damping");
    let c = Condensed::new(&hb).expect("condenses onto the pads");
    assert_eq!(r.dim(), 10 * 7);
    for omega in [1500.0, 1900.0, 2400.0] {
        let (qr, _) = newton(&r, linearised(&r, omega), omega, 1e-12).expect("converges");
        let q = r.expand(&qr, omega);
        let (full, _) = newton(&hb, q.clone(), omega, 1e-12).expect("the full balance converges");
        let moved = (&full - &q).amax() / q.amax();
        assert!(moved <= 5e-8, "Ω = {omega}: moved by {moved:e}");
        let (qc, _) = newton(&c, qr.clone(), omega, 1e-10).expect("converges");
        let apart = (&qc - &qr).amax() / qr.amax();
        assert!(
            apart <= 1e-8,
            "Ω = {omega}: the two forms differ by {apart:e}"
        );
    }
}

/// The 40-pad beam (400 DOFs, pads 5 mm apart, 280 kept coefficients) runs over 1200..3000
/// with the default steps — the pads go from stuck to slipping and back — and every point of
/// it lies on the branch a run with ten times smaller steps follows: Newton at the point's
/// frequency from the finer run's nearest point lands on it to 1e-6 of the amplitude. Every
/// point's residual is below 1e-9 of the residual at rest (the condensed-stiffness form's
/// floor on this beam was 1e-5).
#[test]
fn forty_pads_run_through_on_the_finer_run_s_branch() {
    let hb = beam(200, 40, 4.0);
    let r = Compliance::new(&hb).expect("modal: proportional damping");
    let coarse_settings = default_settings((1200.0, 3000.0));
    let coarse = continued(&hb, true, &coarse_settings)
        .curve
        .expect("starts");
    assert_eq!(coarse.stopped, None);
    assert!(coarse.points.last().expect("points").p >= 3000.0);
    let fine_settings = Settings {
        max_step: coarse_settings.max_step / 10.0,
        ..coarse_settings
    };
    let fine = continued(&hb, true, &fine_settings).curve.expect("starts");
    assert_eq!(fine.stopped, None);
    assert!(fine.points.len() > 5 * coarse.points.len());
    let rest = r
        .residual(&r.restrict(&DVector::zeros(hb.dim())), 1200.0)
        .norm();
    for pt in coarse.points.iter().filter(|pt| pt.p <= 3000.0) {
        let qc = r.restrict(&pt.x);
        let floor = r.residual(&qc, pt.p).norm() / rest;
        assert!(floor <= 1e-9, "Ω = {}: residual {floor:e}", pt.p);
        let near = fine
            .points
            .iter()
            .min_by(|a, b| (a.p - pt.p).abs().total_cmp(&(b.p - pt.p).abs()))
            .expect("points");
        let (there, _) = newton(&r, r.restrict(&near.x), pt.p, 1e-12).expect("converges");
        let apart = (&there - &qc).amax() / qc.amax();
        assert!(
            apart <= 1e-6,
            "Ω = {}: {apart:e} off the finer branch",
            pt.p
        );
    }
}

/// Every regime change of every contact between neighbouring points is in `data.csv`'s
/// `transitions` column (`name: old→new`) and counted in the summary, and each contact's
/// stuck, slipping and separated fractions share the period: on the 40-pad beam pressed by
/// 4 N, pads 17 down to 11 start to slip one after another as the response grows towards
/// the slipping resonance (10 changes over 1200..3000, measured).
#[test]
fn every_contact_transition_is_marked() {
    let text = std::fs::read_to_string(root().join("bench/beam_pads.nsd"))
        .expect("reads")
        .replace("\"../stdlib/beam.nsd\"", "\"beam.nsd\"")
        .replace("excitation = 20 }", "excitation = 20, stability = false }");
    let sets = ["--set", "N0=4"];
    let runs = run_json(&text, "many_pads/transitions", &sets);
    let csv = std::fs::read_to_string(
        PathBuf::from(runs[0]["out"].as_str().expect("out")).join("data.csv"),
    )
    .expect("data.csv");
    let marks = marks(&csv, |_| true);
    assert_eq!(
        marks.len() as f64,
        number(&runs[0], "transitions"),
        "{marks:?}"
    );
    assert!(
        marks
            .iter()
            .filter(|m| m.ends_with("stuck→stuck-slipping"))
            .count()
            >= 3,
        "{marks:?}"
    );
    let t = table(&runs[0], "data.csv");
    for j in 1..=40 {
        let shares: Vec<Vec<f64>> = ["stuck", "slipping", "separated"]
            .iter()
            .map(|s| column(&t, &format!("p[{j}] {s}")))
            .collect();
        for i in 0..shares[0].len() {
            let total: f64 = shares.iter().map(|s| s[i]).sum();
            assert!((total - 1.0).abs() <= 1e-12, "p[{j}], row {i}: {total}");
        }
    }
}

/// The backbone marks its contacts' transitions too, by every method: along the cantilever's
/// backbone (pad at node 4, from the stuck first mode to the free one) the pad goes from
/// stuck to stuck–slipping on the way, and each change is in `transitions` and counted.
#[test]
fn every_backbone_method_marks_the_pad_s_transitions() {
    let file = root().join("models/seed3/cantilever_pad.nsd");
    let out = root().join("target/test-out/many_pads/backbone");
    for name in ["backbone_h3", "backbone_dnnm", "backbone_phase"] {
        let (code, stdout, stderr) = nsd(&[
            "run",
            file.to_str().expect("utf-8"),
            "--only",
            name,
            "--json",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON");
        let csv = std::fs::read_to_string(out.join(name).join("data.csv")).expect("data.csv");
        let marks = marks(&csv, |l| l.starts_with('3'));
        assert_eq!(
            marks.len() as f64,
            number(&v, "transitions"),
            "{name}: {marks:?}"
        );
        assert!(
            marks.iter().any(|m| m.contains("stuck→stuck-slipping")),
            "{name}: {marks:?}"
        );
    }
}

/// The entries of `data.csv`'s `transitions` column (`csv`, its text) on the rows `keep`
/// accepts.
fn marks(csv: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let at = header
        .iter()
        .position(|c| *c == "transitions")
        .expect("column");
    csv.lines()
        .skip(1)
        .filter(|l| keep(l))
        .flat_map(|l| {
            let cell = l.split(',').nth(at).unwrap_or("");
            cell.split("; ")
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}
