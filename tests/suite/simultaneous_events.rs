//! Simultaneous switches (issue 43, item 1.1): two identical parts started alike cross their
//! switching surfaces at the same instant, and every element whose event function changes
//! sign there (or within the instant's rounding) must switch — not only the first found.
//! Before the fix the second twin's crossing fell in the restart's skipped sliver (or its
//! value was already a hair past zero), so it stayed in its old mode: one Hertz stop was
//! passed through, and the twins ended in different states with exit 0.
//!
//! Each analysis that locates events is run on twins: `simulate` (DOP853 loop), `sweep
//! bifurcation` (Taylor lanes and DOP853), `basins` (Taylor lanes) and `continue periodic`
//! (shooting through the segments' switch signatures). The twins are uncoupled, or coupled
//! symmetrically, so that exchanging `m1` and `m2` maps a motion onto a motion: started on the
//! symmetric subspace, both must stay equal to round-off (1e-9 leaves room for the
//! integrators' own error, which is the same for both parts).
//!
//! Item 1.2 is the same instant seen by one element: a two-sided gap of zero clearance leaves
//! one side exactly where it enters the other. Before the fix `simulate` never entered the
//! other side (amplitude 0.15 where the linear closed form gives 0.033), `sweep bifurcation`
//! found periods 3 and 2 in a linear system, and `continue frf` never ended (the exact gap's
//! root isolation halved forever a cell whose every point was on the clearance).

use crate::common::*;
use serde_json::Value;

/// Two identical uncoupled oscillators with a stop each (`law`, `sides`), undamped.
fn twins(law: &str, sides: &str) -> String {
    format!(
        "model twin {{
  mass m1 = 1
  mass m2 = 1
  spring ground -- m1 {{ k = 1 }}
  spring ground -- m2 {{ k = 1 }}
  gap g1: m1 -- ground {{ clearance = 0.05, sides = {sides}, law = {law} }}
  gap g2: m2 -- ground {{ clearance = 0.05, sides = {sides}, law = {law} }}
}}
"
    )
}

/// Two identical forced free-play oscillators with cubic springs (polynomial: the Taylor
/// engine runs them), uncoupled.
const FORCED_TWINS: &str = "model ftwin(Omega = 1.2) {
  mass m1 = 1
  mass m2 = 1
  spring ground -- m1 { k = 1, k3 = 0.1 }
  spring ground -- m2 { k = 1, k3 = 0.1 }
  damper ground -- m1 { c = 0.02 }
  damper ground -- m2 { c = 0.02 }
  gap g1: m1 -- ground { clearance = 0.05, sides = both, law = linear(10) }
  gap g2: m2 -- ground { clearance = 0.05, sides = both, law = linear(10) }
  force m1 = 0.1 * cos(Omega * t)
  force m2 = 0.1 * cos(Omega * t)
}
";

/// Runs `text`; the JSON objects of its analyses (exit 0 asserted).
fn run(text: &str, tag: &str) -> Vec<Value> {
    let (code, stdout, stderr, _) = run_text(text, &format!("simultaneous/{tag}"), &["--json"]);
    assert_eq!(code, 0, "{tag}: {stderr}");
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

/// The position of the column `name` in a table's header.
fn index_of(head: &[String], name: &str) -> usize {
    head.iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {head:?}"))
}

/// The summary's `final` state as (m1.x, m2.x, v(m1.x), v(m2.x)).
fn final_state(v: &Value) -> [f64; 4] {
    let f = &v["summary"]["final"];
    ["m1.x", "m2.x", "v(m1.x)", "v(m2.x)"].map(|k| f[k].as_f64().expect("a number"))
}

/// Asserts the twins' final states agree to 1e-9 and the energy is kept to 1e-8.
fn assert_twins_agree(v: &Value, what: &str) {
    let [x1, x2, v1, v2] = final_state(v);
    assert!(
        (x1 - x2).abs() < 1e-9 && (v1 - v2).abs() < 1e-9,
        "{what}: m1 ({x1}, {v1}) and m2 ({x2}, {v2}) differ"
    );
    let drift = v["summary"]["energy_drift"].as_f64().expect("energy_drift");
    assert!(drift.abs() < 1e-8, "{what}: energy drift {drift:e}");
}

/// The Hertz twins (each mass leaves its stop's side open towards it): before the
/// fix the second stop's entry at the first one's instant was lost and the masses ended
/// 0.16 apart.
#[test]
fn hertz_twins_switch_together() {
    let text = twins("hertz(100)", "positive")
        + "simulate twin as sim { t = 0..30, v0 = { m1 = 0.3, m2 = 0.3 }, rtol = 1e-10, atol = 1e-12, output = at(30) }\n";
    let out = run(&text, "hertz");
    assert_twins_agree(&out[0], "hertz twins");
    // Every contact entry and exit is logged for both.
    assert_eq!(out[0]["summary"]["events"].as_u64(), Some(32));
}

/// The two-sided linear twins, started inside their stops: the exits at t = 0.468
/// and every later switch come in pairs at one instant.
#[test]
fn two_sided_linear_twins_switch_together() {
    let text = twins("linear(10)", "both")
        + "simulate twin as sim { t = 0..30, x0 = { m1 = 0.3, m2 = 0.3 }, rtol = 1e-10, atol = 1e-12, output = at(30) }\n";
    let out = run(&text, "linear");
    assert_twins_agree(&out[0], "linear twins");
    let events = table(&out[0], "events.csv").1;
    assert!(events.len() > 100, "{} events", events.len());
    for pair in events.chunks(2) {
        assert_eq!(
            pair[0][0], pair[1][0],
            "a switch without its twin: {pair:?}"
        );
    }
}

/// A symmetric coupled pair (ground – m1 – m2 – ground, a stop on each): exchanging the
/// masses and flipping the sign maps motions onto motions, so a start with x1 = −x2 stays
/// antisymmetric.
#[test]
fn symmetric_coupled_pair_keeps_its_symmetry() {
    let text = "model pair {
  mass m1 = 1
  mass m2 = 1
  spring ground -- m1 { k = 1 }
  spring m1 -- m2 { k = 0.5 }
  spring m2 -- ground { k = 1 }
  gap g1: m1 -- ground { clearance = 0.05, sides = both, law = linear(10) }
  gap g2: m2 -- ground { clearance = 0.05, sides = both, law = linear(10) }
}
simulate pair as sim { t = 0..30, x0 = { m1 = 0.3, m2 = -0.3 }, rtol = 1e-10, atol = 1e-12, output = at(30) }
";
    let out = run(text, "pair");
    let [x1, x2, v1, v2] = final_state(&out[0]);
    assert!(
        (x1 + x2).abs() < 1e-9 && (v1 + v2).abs() < 1e-9,
        "m1 ({x1}, {v1}) and m2 ({x2}, {v2}) are not mirror images"
    );
}

/// `sweep bifurcation` by both engines: every kept section point of the twins started alike
/// has m1 = m2 and ṁ1 = ṁ2.
#[test]
fn bifurcation_sweeps_keep_the_twins_equal() {
    let sweep = |name: &str, method: &str| {
        format!(
            "sweep bifurcation ftwin as {name} {{ param = Omega in 0.8..2.0 by 0.1, section = stroboscopic, method = {method}, transient = 100, keep = 20, starts = {{ pp = {{ m1 = 0.2, m2 = 0.2 }} }} }}\n"
        )
    };
    let text = FORCED_TWINS.to_string() + &sweep("taylor", "auto") + &sweep("dop", "dop853");
    for v in run(&text, "bifurcation") {
        let (head, rows) = table(&v, "data.csv");
        let col = |name: &str| index_of(&head, name);
        let (x1, x2, v1, v2) = (col("m1.x"), col("m2.x"), col("v(m1.x)"), col("v(m2.x)"));
        assert!(rows.len() >= 200, "{} points", rows.len());
        for r in &rows {
            let gap = (r[x1] - r[x2]).abs() + (r[v1] - r[v2]).abs();
            assert!(
                gap < 1e-9,
                "{}: twins differ by {gap:e} in {r:?}",
                v["name"]
            );
        }
    }
}

/// `basins` over (x1, x2): the map is symmetric under exchanging the masses (each attractor
/// goes to its mirror image), and every diagonal cell ends on a symmetric attractor.
#[test]
fn basin_map_of_twins_is_symmetric() {
    let text = FORCED_TWINS.to_string()
        + "basins ftwin(Omega = 1.2) as bas { grid = { m1 = -1..1 by 0.2, m2 = -1..1 by 0.2 }, transient = 300 }\n";
    let v = &run(&text, "basins")[0];
    // Each attractor's cycle of stroboscopic points (section.csv: id, t, m1, m2, ṁ1, ṁ2).
    let (_, points) = table(v, "section.csv");
    let cycle = |id: f64| -> Vec<[f64; 4]> {
        let of = points.iter().filter(|p| p[0] == id);
        of.map(|p| [p[2], p[3], p[4], p[5]]).collect()
    };
    let ids: Vec<f64> = table(v, "attractors.csv").1.iter().map(|a| a[0]).collect();
    let close = |a: &[f64; 4], b: &[f64; 4]| (0..4).all(|i| (a[i] - b[i]).abs() < 1e-6);
    // The attractor whose cycle is `id`'s with the masses exchanged.
    let mirror = |id: f64| -> f64 {
        let swapped: Vec<[f64; 4]> = cycle(id).iter().map(|p| [p[1], p[0], p[3], p[2]]).collect();
        let image = ids.iter().find(|&&other| {
            let theirs = cycle(other);
            swapped.iter().all(|p| theirs.iter().any(|q| close(p, q)))
        });
        *image.expect("every attractor's mirror image is an attractor")
    };
    let (head, cells) = table(v, "data.csv");
    let col = |name: &str| index_of(&head, name);
    let (x1, x2, label) = (col("m1.x"), col("m2.x"), col("attractor"));
    let key = |a: f64, b: f64| ((a * 10.0).round() as i64, (b * 10.0).round() as i64);
    let labels: std::collections::HashMap<_, f64> = cells
        .iter()
        .map(|c| (key(c[x1], c[x2]), c[label]))
        .collect();
    assert_eq!(labels.len(), 121);
    for (&(a, b), &id) in &labels {
        assert_eq!(
            mirror(id),
            labels[&(b, a)],
            "cell ({a}, {b}) → {id}, its mirror → {}",
            labels[&(b, a)]
        );
        if a == b {
            assert_eq!(
                mirror(id),
                id,
                "diagonal cell ({a}, {a}) off the symmetric subspace"
            );
        }
    }
}

/// `continue periodic` from a symmetric start: every orbit of the branch has the same
/// amplitude on both masses, and its switch signature lists both twins' switches.
#[test]
fn periodic_branch_of_twins_is_symmetric() {
    let text = FORCED_TWINS.to_string()
        + "continue periodic ftwin as per { param = Omega in 1.1..1.3, x0 = { m1 = 0.2, m2 = 0.2 }, transient = 300 }\n";
    let v = &run(&text, "periodic")[0];
    let (head, rows) = table(v, "data.csv");
    let col = |name: &str| index_of(&head, name);
    let (a1, a2, switches) = (col("max|m1.x|"), col("max|m2.x|"), col("switches"));
    assert!(rows.len() >= 5, "{} orbits", rows.len());
    for r in &rows {
        assert!((r[a1] - r[a2]).abs() < 1e-9, "amplitudes differ: {r:?}");
        assert_eq!(r[switches] % 2.0, 0.0, "switches come in pairs: {r:?}");
    }
}

/// A mass on `k = 1` with a two-sided `linear(3)` gap of zero clearance: a linear oscillator
/// of stiffness 4, `x = F/|4 − Ω² + icΩ|` at steady state.
const ZERO_CLEARANCE: &str = "model c0(Omega = 1.5) {
  mass m1 = 1
  spring ground -- m1 { k = 1 }
  damper ground -- m1 { c = 0.05 }
  gap g: m1 -- ground { clearance = 0, sides = both, law = linear(3) }
  force m1 = 0.1 * cos(Omega * t)
}
";

/// The closed-form amplitude of `ZERO_CLEARANCE` at `omega`.
fn zero_clearance_amplitude(omega: f64) -> f64 {
    0.1 / ((4.0 - omega * omega).powi(2) + (0.05 * omega).powi(2)).sqrt()
}

/// `simulate`: after 700 s (the transient decays as e^(−0.025 t)), the largest |x| of samples
/// every 0.01 s is the closed form to the sampling error `1 − cos(Ω · 0.005)` ≈ 3e-5.
#[test]
fn zero_clearance_gap_simulates_the_linear_oscillator() {
    let text = ZERO_CLEARANCE.to_string()
        + "simulate c0 as sim { t = 0..800, output = every(0.01), rtol = 1e-10, atol = 1e-12 }\n";
    let v = &run(&text, "zero_clearance_simulate")[0];
    let (head, rows) = table(v, "data.csv");
    assert_eq!(head[1], "m1.x");
    let peak = rows
        .iter()
        .filter(|r| r[0] > 700.0)
        .map(|r| r[1].abs())
        .fold(0.0, f64::max);
    let exact = zero_clearance_amplitude(1.5);
    assert!(
        (peak / exact - 1.0).abs() < 5e-5,
        "amplitude {peak} against {exact}"
    );
}

/// `sweep bifurcation` by both engines: period 1 at every Ω, the amplitude the closed form
/// within the documented sampling bound of the tabled amplitude (1.2e-3).
#[test]
fn zero_clearance_gap_sweeps_period_one() {
    let sweep = |name: &str, method: &str| {
        format!("sweep bifurcation c0 as {name} {{ param = Omega in 0.5..3.0 by 0.25, transient = 200, keep = 10, method = {method} }}\n")
    };
    let text = ZERO_CLEARANCE.to_string() + &sweep("taylor", "auto") + &sweep("dop", "dop853");
    for v in run(&text, "zero_clearance_sweep") {
        let (head, rows) = table(&v, "values.csv");
        let col = |name: &str| index_of(&head, name);
        let (omega, period, amplitude) = (col("Omega"), col("period"), col("amplitude"));
        assert_eq!(rows.len(), 11);
        for r in &rows {
            assert_eq!(r[period], 1.0, "{}: {r:?}", v["name"]);
            let exact = zero_clearance_amplitude(r[omega]);
            assert!(
                (r[amplitude] / exact - 1.0).abs() < 1.3e-3,
                "{}: {r:?} vs {exact}",
                v["name"]
            );
        }
    }
}

/// `continue frf` ends (it ran without end) and its branch is the closed form to 1e-9.
#[test]
fn zero_clearance_gap_response_is_linear() {
    let text = ZERO_CLEARANCE.to_string()
        + "continue frf c0 as frf { param = Omega in 0.5..3.0, harmonics = 5 }\n";
    let start = std::time::Instant::now();
    let v = &run(&text, "zero_clearance_frf")[0];
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
    let (head, rows) = table(v, "data.csv");
    let col = |name: &str| index_of(&head, name);
    let (omega, amplitude) = (col("Omega [rad/s]"), col("max|m1.x|"));
    assert!(rows.len() >= 20, "{} points", rows.len());
    for r in &rows {
        let exact = zero_clearance_amplitude(r[omega]);
        assert!(
            (r[amplitude] / exact - 1.0).abs() < 1e-9,
            "{r:?} vs {exact}"
        );
    }
}
