//! The Taylor-series flow (`solve::ode::taylor`, `method = auto` on models polynomial in the
//! state) against the event-driven DOP853 loop on paper 000's free-play oscillator (eqs. 1–2,
//! cubic springs and a linear free-play gap: every mode a polynomial vector field): states
//! and section points after many contacts, a basin map labelled alike, and the models that
//! are not polynomial left to DOP853.

use crate::common::*;
use nsd::solve::ode::{Direction, Hybrid, Section};
use nsd::solve::poincare::{distance, forcing_period, run_span, Engine};
use std::path::{Path, PathBuf};

const MODEL: &str = "models/seed0/two_mass_freeplay.nsd";
const OMEGA: f64 = 1.2;

/// Twenty forcing periods from a large start (x1 = 0.8, ẋ1 = −0.5: about eight contact
/// entries and exits per period) by both engines at rtol = atol = 1e-12: DOP853's events are
/// located on its dense output to round-off, the Taylor steps are sized for 1e-14 per step,
/// so the end states agree to 1e-9 (what is left is DOP853's global error over ~160
/// switches), and so do the stroboscopic points and the crossings of ẋ1 = 0.
#[test]
fn taylor_and_dop853_agree_after_many_contacts() {
    let sys = system_at(MODEL, "two_mass_freeplay", OMEGA);
    let t = forcing_period(&sys).expect("forced");
    let tol = (1e-12, 1e-12);
    let y0 = vec![0.8, 0.0, -0.5, 0.0];
    let span = (0.0, 20.0 * t);
    let strobe = Section::Stroboscopic {
        origin: 0.0,
        period: t,
    };
    let crossing = Section::Crossing {
        w: vec![(2, 1.0)],
        level: 0.0,
        direction: Direction::Falling,
    };
    let mut h = Hybrid::new(&sys, false).expect("integrable");
    assert_eq!(h.not_polynomial(), None, "the seed model is polynomial");
    for section in [&strobe, &crossing] {
        let run = |engine| {
            let mut h = Hybrid::new(&sys, false).expect("integrable");
            run_span(&mut h, tol, span, y0.clone(), Some(section), vec![], engine).expect("runs")
        };
        let (taylor, dop) = (run(Engine::Auto), run(Engine::Dop853));
        assert!(dop.events.len() >= 100, "{} contacts", dop.events.len());
        let e = distance(&taylor.final_state, &dop.final_state);
        assert!(e < 1e-9, "end states differ by {e:e}");
        assert_eq!(taylor.section.len(), dop.section.len(), "{section:?}");
        for (a, b) in taylor.section.iter().zip(&dop.section) {
            assert!(
                (a.t - b.t).abs() < 1e-9,
                "section times {} and {}",
                a.t,
                b.t
            );
            assert!(distance(&a.y, &b.y) < 1e-9, "section states at {}", a.t);
        }
    }
    // The samples are the series' states at the asked times.
    let samples: Vec<f64> = (0..=40).map(|i| i as f64 * t / 8.0).collect();
    let sampled = run_span(
        &mut h,
        tol,
        (0.0, 5.0 * t),
        y0.clone(),
        None,
        samples.clone(),
        Engine::Auto,
    )
    .expect("runs");
    assert_eq!(sampled.t, samples);
    let last = sampled.y.last().expect("samples");
    assert!(distance(last, &sampled.final_state) < 1e-15);
}

/// The sigmoid-smoothed model (paper 000, eq. 8) is not polynomial: `auto` runs it by
/// DOP853, so both engines give the same bytes.
#[test]
fn a_model_that_is_not_polynomial_runs_by_dop853() {
    let sys = system_at(MODEL, "two_mass_freeplay_sigmoid", OMEGA);
    let t = forcing_period(&sys).expect("forced");
    let mut h = Hybrid::new(&sys, false).expect("integrable");
    assert!(h.not_polynomial().is_some());
    let y0 = vec![0.5, 0.0, 0.0, 0.0];
    let mut run = |engine| {
        run_span(
            &mut h,
            (1e-9, 1e-9),
            (0.0, 3.0 * t),
            y0.clone(),
            None,
            vec![],
            engine,
        )
        .expect("runs")
        .final_state
    };
    assert_eq!(run(Engine::Auto), run(Engine::Dop853));
}

/// Runs `basins` of the free-play model at Ω = 1.2 on an 11 × 11 grid with `options`.
fn basins(options: &str, tag: &str) -> PathBuf {
    let dir = root().join("target/test-out/taylor").join(tag);
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("case.nsd");
    let text = std::fs::read_to_string(root().join(MODEL)).expect("model")
        + &format!(
            "\nbasins two_mass_freeplay as b {{ grid = {{ m1 = -1..1 by 0.2, v.m1 = -1..1 by 0.2 }}, {options} }}\n"
        );
    std::fs::write(&file, text).expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--set",
        &format!("Omega={OMEGA}"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    dir.join("b")
}

/// Each cell's attractor as its representative state (`attractors.csv`; the ids follow the
/// order found, which may differ between engines), empty for an unlabelled cell.
fn labels(dir: &Path) -> Vec<Vec<f64>> {
    let table = |f: &str| std::fs::read_to_string(dir.join(f)).expect("table");
    let reps: Vec<Vec<f64>> = table("attractors.csv")
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .skip(6)
                .map(|c| c.parse().expect("number"))
                .collect()
        })
        .collect();
    table("data.csv")
        .lines()
        .skip(1)
        .map(|l| {
            let id = l.split(',').nth(2).expect("id").parse::<f64>().expect("id") as usize;
            id.checked_sub(1).map_or(vec![], |k| reps[k].clone())
        })
        .collect()
}

/// The basin map by the Taylor flow (rtol 1e-9, the default) against DOP853 at rtol 1e-11
/// (issue 17: ≥ 99.5 % of the cells alike).
#[test]
fn basins_by_taylor_and_by_dop853_agree() {
    let taylor = labels(&basins("method = auto", "auto"));
    let dop = labels(&basins(
        "method = dop853, rtol = 1e-11, atol = 1e-11",
        "dop853",
    ));
    assert_eq!(taylor.len(), 121);
    assert!(taylor.iter().all(|l| !l.is_empty()), "every cell labelled");
    // The same attractor: representative states within 1e-6 (both polished to ~1e-10).
    let alike = |a: &Vec<f64>, b: &Vec<f64>| a.len() == b.len() && distance(a, b) < 1e-6;
    let same = taylor.iter().zip(&dop).filter(|(a, b)| alike(a, b)).count();
    assert!(same as f64 >= 0.995 * 121.0, "{same}/121 alike");
}
