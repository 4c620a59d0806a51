//! Issue 43, section 2: requests whose memory or work has no bound are refused before the run
//! with the estimate and the option to change (`nsd::analysis::bad_option` on the value), or,
//! where no estimate holds before the run, stop early with their partial results (exit 2) —
//! never an abort in an allocation or a run without end. Each case is bounded by a wall-time
//! limit.

use crate::common::run_text;
use std::time::{Duration, Instant};

/// A forced one-DOF oscillator with a gap.
const FORCED: &str = r#"
model osc(Omega = 1) {
  mass m = 1
  spring ground -- m { k = 1 }
  damper ground -- m { c = 0.1 }
  gap g: m -- ground { clearance = 0.1, law = linear(10) }
  force m = 0.1 * cos(Omega * t)
}
"#;

/// Runs `FORCED` plus `analysis` within `limit`, returning (code, stderr, output folder).
fn run_within(analysis: &str, tag: &str, limit: Duration) -> (i32, String, std::path::PathBuf) {
    let started = Instant::now();
    let (code, _, stderr, dir) = run_text(&format!("{FORCED}{analysis}\n"), tag, &[]);
    assert!(
        started.elapsed() < limit,
        "{analysis}: took {:?}",
        started.elapsed()
    );
    (code, stderr, dir)
}

/// Asserts a refusal of `key` before the run: `bad_option`, exit 1, the estimate in words.
fn assert_refused(analysis: &str, tag: &str, key: &str, words: &str) {
    let (code, stderr, _) = run_within(analysis, tag, Duration::from_secs(20));
    assert_eq!(code, 1, "{analysis}:\n{stderr}");
    assert!(stderr.contains("nsd::analysis::bad_option"), "{stderr}");
    assert!(
        stderr.contains(&format!("bad value for `{key}`")),
        "{stderr}"
    );
    assert!(stderr.contains(words), "{stderr}");
}

#[test]
fn a_harmonic_balance_too_large_for_memory_is_refused_wherever_it_is_built() {
    for (i, option) in [
        "start = harmonic_balance",
        "compare = (harmonic_balance)",
        "compare = harmonic_balance",
    ]
    .iter()
    .enumerate()
    {
        assert_refused(
            &format!(
                "continue periodic osc {{ param = Omega in 1.0..1.2, {option}, harmonics = 1000000 }}"
            ),
            &format!("bounded-hb-{i}"),
            "harmonics",
            "TiB of memory (H = 1000000",
        );
    }
    assert_refused(
        "continue frf osc { param = Omega in 0.8..1.2, harmonics = 1000000 }",
        "bounded-hb-frf",
        "harmonics",
        "of memory",
    );
}

#[test]
fn the_backend_refuses_an_aft_past_the_memory_limit_without_allocating() {
    let prog = nsd::lang::Program::from_source("<osc>", FORCED, None).expect("parses");
    let sys = nsd::model::assemble(&nsd::lang::resolve(&prog, "osc", &[]).expect("resolves"));
    let error = nsd::solve::hb::Balance::new(&sys, 1_000_000, 8_388_608)
        .err()
        .expect("refused");
    assert!(
        error
            .to_string()
            .contains("244.1 TiB for the sampled bases"),
        "{error}"
    );
}

#[test]
fn a_simulation_too_long_for_its_forcing_is_refused_before_it_runs() {
    assert_refused(
        "simulate osc { t = 0..1e308, output = steps }",
        "bounded-steps",
        "t",
        "output rows",
    );
    assert_refused(
        "simulate osc { t = 0..1e308, output = at(30) }",
        "bounded-at",
        "t",
        "steps (one per 6.28",
    );
    assert_refused(
        "simulate osc { t = 0..100, max_step = 1e-7, output = steps }",
        "bounded-max-step",
        "max_step",
        "output rows",
    );
}

#[test]
fn an_unforced_run_without_end_stops_at_its_pace_with_partial_results() {
    let started = Instant::now();
    let (code, _, stderr, dir) = run_text(
        "model free {\n  mass m = 1\n  spring ground -- m { k = 1 }\n}\nsimulate free as long { t = 0..1e308, x0 = { m = 1 }, output = at(30) }\n",
        "bounded-pace",
        &[],
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let text = stderr.replace('\n', " ");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        text.contains("at this pace the run needs about"),
        "{stderr}"
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("long/meta.json")).expect("partial results"),
    )
    .expect("JSON");
    assert!(summary["summary"]["failed"]
        .as_str()
        .is_some_and(|s| s.contains("steps")));
}

#[test]
fn periodic_orbits_and_transients_past_their_limits_are_refused() {
    assert_refused(
        "continue periodic osc { param = Omega in 1.0..1.2, periods = 100000 }",
        "bounded-periods",
        "periods",
        "more than 1000 forcing periods",
    );
    assert_refused(
        "continue periodic osc { param = Omega in 1.0..1.2, transient = 1e12 }",
        "bounded-transient",
        "transient",
        "longest transient",
    );
    assert_refused(
        "continue periodic osc { param = Omega in 1.0..1.2, periods = 1000, transient = 1001 }",
        "bounded-transient-orbits",
        "transient",
        "1000 orbits",
    );
}
