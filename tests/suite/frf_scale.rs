//! `continue frf` at the size of the contacts (issue 14): the condensed balance assembles its
//! nonlinear forces on the kept coefficients only (`Balance::nonlinear_in`), the modal sums
//! serve a fine beam mesh, and Hill's memory estimate follows the method that will run.

use crate::common::*;
use nsd::solve::cont::{linearised, newton, Problem};
use nsd::solve::hb::{Balance, Condensed};

/// `bench/beam_contacts.nsd` (the stdlib cantilever with five friction pads) with `n`
/// elements (2n DOFs), at H harmonics.
fn beam(n: usize, h: usize) -> Balance {
    let prog = nsd::lang::Program::load(&root().join("bench/beam_contacts.nsd")).expect("loads");
    let sets = [format!("n={n}"), "Omega=1700".into()]
        .map(|s| nsd::lang::parse_override(&s).expect("override"));
    let sys =
        nsd::model::assemble(&nsd::lang::resolve(&prog, "beam_contacts", &sets).expect("resolves"));
    let mut hb = Balance::new(&sys, h, (8 * h + 8).next_power_of_two()).expect("balance");
    hb.level = 20.0;
    hb
}

/// The branch of the condensed balance is the full balance's: at three frequencies around
/// the slipping resonance of a 120-DOF beam (H = 3, 840 full unknowns), Newton on the
/// condensed problem (5 kept DOFs, 35 unknowns), expanded, is polished by Newton on the full
/// balance and moves by at most 1e-8 of its size (measured ≤ 1e-12: both solve the same
/// equations; the bound leaves room for the beam's conditioning, ω_max²/ω₁² ≈ 1e9).
#[test]
fn condensed_branch_points_are_the_full_balance_s() {
    let hb = beam(60, 3);
    let c = Condensed::new(&hb).expect("condenses onto the pads");
    assert_eq!(c.dim(), 5 * 7);
    assert!(c.is_modal());
    for omega in [1500.0, 1735.0, 2000.0] {
        let (qc, _) = newton(&c, linearised(&c, omega), omega, 1e-10).expect("converges");
        let q = c.expand(&qc, omega);
        let (full, _) = newton(&hb, q.clone(), omega, 1e-12).expect("the full balance converges");
        let moved = (&full - &q).amax() / q.amax();
        assert!(moved <= 1e-8, "Ω = {omega}: moved by {moved:e}");
    }
}

/// The 1000-DOF bench beam condenses by modal sums: its rotations' modes reach 2.7e-13 of the
/// largest ω², which the rigid-mode test took for rigid before (then every harmonic block of
/// 2000 × 2000 was factorised at every frequency: 60 s for 26 points instead of 1.6 s).
#[test]
fn the_thousand_dof_beam_condenses_by_modal_sums() {
    let hb = beam(500, 1);
    let c = Condensed::new(&hb).expect("condenses onto the pads");
    assert!(c.is_modal(), "a fine mesh is not rigid");
}

/// Hill's memory is estimated for the method that runs: the 1000-DOF beam at H = 5 with
/// stability on (condensed Hill, ~50 MB) is not refused — the full companion matrix's
/// estimate was 5.4 GiB, over the 4 GiB limit — and with a discrete damper added (no longer
/// proportional: Hill falls back to the full matrix, certainly) it is refused. The monitored
/// DOF named is not in the model: a request the check passes stops at once on that instead.
#[test]
fn hill_memory_follows_the_method_that_runs() {
    let frf = "continue frf beam_contacts as short { param = Omega in 1700..1701, harmonics = 5, excitation = 20, dof = \"nowhere\" }";
    let dir = std::env::temp_dir().join(format!("nsd-frf-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let base = std::fs::read_to_string(root().join("bench/beam_contacts.nsd"))
        .expect("reads")
        .replace("\"../stdlib/beam.nsd\"", "\"beam.nsd\"");
    let run = |extra: &str| {
        let file = dir.join("case.nsd");
        let text = base.replace(
            "  force beam.b[n].y",
            &format!("{extra}  force beam.b[n].y"),
        );
        std::fs::write(&file, format!("{text}\n{frf}\n")).expect("writes");
        let out = dir.join("out");
        nsd(&[
            "run",
            file.to_str().expect("utf-8"),
            "--only",
            "short",
            "--out",
            out.to_str().expect("utf-8"),
        ])
    };
    let (code, _, err) = run("");
    assert_ne!(code, 0);
    assert!(err.contains("not a DOF of the model"), "{err}");
    let (code, _, err) = run("  damper beam.b[10].y -- ground { c = 1 }\n");
    assert_ne!(code, 0);
    assert!(err.contains("5.4 GiB"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The branch's own memory is estimated where it is not condensed: the 1000-DOF beam at
/// H = 7 without stability runs condensed (no refusal; it stops on the unknown DOF instead),
/// while `condense = false` would hold dense Jacobians of 15,000 unknowns (3 × 1.7 GiB) and
/// is refused, pointing at `condense`; `reduce = modes(20)` makes the same request small.
#[test]
fn an_uncondensed_branch_s_memory_is_checked() {
    let base = std::fs::read_to_string(root().join("bench/beam_contacts.nsd"))
        .expect("reads")
        .replace("\"../stdlib/beam.nsd\"", "\"beam.nsd\"");
    let run = |extra: &str, tag: &str| {
        let frf = format!("continue frf beam_contacts as short {{ param = Omega in 1700..1701, harmonics = 7, stability = false, dof = \"nowhere\"{extra} }}");
        run_text(
            &format!("{base}\n{frf}\n"),
            &format!("frf_scale/{tag}"),
            &["--only", "short"],
        )
    };
    let (code, _, err, _) = run("", "condensed");
    assert_eq!(code, 1);
    assert!(err.contains("not a DOF of the model"), "{err}");
    let (code, _, err, _) = run(", condense = false", "uncondensed");
    assert_eq!(code, 1);
    assert!(
        err.contains("GiB of memory") && err.contains("condense = true"),
        "{err}"
    );
    let (code, _, err, _) = run(", condense = false, reduce = modes(20)", "reduced");
    assert_eq!(code, 1);
    assert!(err.contains("not a DOF of the model"), "{err}");
}
