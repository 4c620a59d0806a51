//! `simulate` of the 2-D friction contact (paper 003, Sect. 3, eqs. 24–29; issue 15, item 3):
//! the same run as a Jenkins element when the normal load is constant, separations and
//! touch-downs located where `N = 0`, the slip force `μN` along a run, the energy balance of
//! the element, and the paper's cantilever with its pad against its Jenkins equivalent.

use crate::common::*;
use serde_json::Value;
use std::path::PathBuf;

/// The models (`plane`, `held`, `held_jenkins`).
const MODELS: &str = "tests/models/friction2d.nsd";
/// `plane`'s contact: tangential and normal stiffness, friction coefficient (N0 is set per
/// test).
const KT: f64 = 10.0;
const KN: f64 = 50.0;
const MU: f64 = 0.3;

/// One analysis's results: data.csv, forces.csv and the rows of events.csv (cells as text).
struct Run {
    data: Vec<Vec<f64>>,
    forces: (Vec<String>, Vec<Vec<f64>>),
    events: Vec<Vec<String>>,
}

/// Runs `analyses` appended to the model file `file` with the parameter settings `sets`;
/// the results of each analysis in order (exit code 0 asserted).
fn run(file: &str, analyses: &str, sets: &[&str], tag: &str) -> Vec<Run> {
    let text = std::fs::read_to_string(root().join(file)).expect("model") + "\n" + analyses;
    let mut args = vec!["--json"];
    for s in sets {
        args.extend(["--set", s]);
    }
    let (code, stdout, stderr, _) = run_text(&text, &format!("simulate_friction2d/{tag}"), &args);
    assert_eq!(code, 0, "{stderr}");
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .map(|v| PathBuf::from(v["out"].as_str().expect("out")))
        // Only the simulations (a model file's own analyses also run).
        .filter(|dir| dir.join("events.csv").exists())
        .map(|dir| {
            let events = std::fs::read_to_string(dir.join("events.csv")).expect("events");
            Run {
                data: read_csv(&dir.join("data.csv")).1,
                forces: read_csv(&dir.join("forces.csv")),
                events: events
                    .lines()
                    .skip(1)
                    .map(|l| l.split(',').map(str::to_string).collect())
                    .collect(),
            }
        })
        .collect()
}

/// The contact's mode at time `t`: the mode entered by the last event at or before `t`
/// (a sample at an event's instant is taken in the new mode), `stick` before the first.
fn mode_at(events: &[Vec<String>], t: f64) -> &str {
    events
        .iter()
        .take_while(|e| e[0].parse::<f64>().expect("t") <= t)
        .last()
        .map_or("stick", |e| e[4].as_str())
}

/// `ξ = ±1` of a slip mode.
fn xi(mode: &str) -> f64 {
    if mode == "slip+" {
        1.0
    } else {
        -1.0
    }
}

/// The two runs' samples agree to 1e-9 of the largest value of each column.
fn same_motion(a: &[Vec<f64>], b: &[Vec<f64>]) {
    assert_eq!(a.len(), b.len());
    for col in 0..a[0].len() {
        let scale = a.iter().fold(0.0_f64, |m, r| m.max(r[col].abs()));
        for (ra, rb) in a.iter().zip(b) {
            assert!(
                (ra[col] - rb[col]).abs() <= 1e-9 * scale,
                "column {col}: {} vs {}",
                ra[col],
                rb[col]
            );
        }
    }
}

/// With its normal held (a mass along x only), the contact carries `N = N₀` throughout and
/// is the Jenkins element of slip force `μN₀`: the same events at the same times, the same
/// motion and the same tangential force, to 1e-9 (the two right-hand sides are the same
/// arithmetic, so the runs agree to round-off; 1e-9 leaves room for reordered sums).
#[test]
fn held_normal_is_the_jenkins_element() {
    let runs = run(
        MODELS,
        "simulate held as c2d { t = 0..30, output = every(0.01) }\n\
         simulate held_jenkins as jk { t = 0..30, output = every(0.01) }\n",
        &[],
        "held",
    );
    let (c2d, jk) = (&runs[0], &runs[1]);
    assert_eq!(c2d.forces.0, ["t [s]", "c.T [N]", "c.N [N]"]);
    assert!(c2d.events.len() >= 4, "{:?}", c2d.events);
    assert_eq!(c2d.events.len(), jk.events.len());
    for (a, b) in c2d.events.iter().zip(&jk.events) {
        let (ta, tb): (f64, f64) = (a[0].parse().expect("t"), b[0].parse().expect("t"));
        assert!(
            (ta - tb).abs() <= 1e-9 * ta.abs().max(1.0),
            "{a:?} vs {b:?}"
        );
        assert_eq!(a[2..5], b[2..5], "kind, from, to");
    }
    same_motion(&c2d.data, &jk.data);
    for (a, b) in c2d.forces.1.iter().zip(&jk.forces.1) {
        assert!((a[1] - b[1]).abs() <= 1e-9 * 0.6, "T {a:?} vs {b:?}");
        assert_eq!(a[2], 2.0, "N = N0");
        assert!(a[1].abs() <= 0.6 * (1.0 + 1e-12), "|T| ≤ μN0: {a:?}");
    }
}

/// The planar mass with its normal free, forced in both directions: every separation and
/// touch-down is located where `N = N₀ + kn·u_n` vanishes (to 1e-9 of N₀; the event is
/// refined to round-off, so this is ~1e-14 in practice), and along the run (every step and
/// event sampled) the reported forces follow the mode: `N = N₀ + kn·y`, `T = ξμN` slipping
/// (to 1e-9 of N₀), `|T| ≤ μN` stuck (to 1e-9 of N₀), `T = N = 0` separated with `N₀ + kn·y ≤ 0`.
#[test]
fn separations_and_slip_follow_the_normal_load() {
    let n0 = 1.0;
    let runs = run(
        MODELS,
        "simulate plane as steps { t = 0..30, output = steps }\n",
        &[],
        "plane",
    );
    let r = &runs[0];
    let contact: Vec<_> = r.events.iter().filter(|e| e[2] == "contact").collect();
    assert!(
        contact.iter().any(|e| e[4] == "separated") && contact.iter().any(|e| e[3] == "separated"),
        "separations and touch-downs: {:?}",
        r.events
    );
    for e in &contact {
        let t: f64 = e[0].parse().expect("t");
        let row = r
            .data
            .iter()
            .find(|d| d[0] == t)
            .expect("the event is sampled");
        let load = n0 + KN * row[2];
        assert!(load.abs() <= 1e-9 * n0, "N = {load:e} at {e:?}");
    }
    let mut seen = std::collections::BTreeSet::new();
    for (d, f) in r.data.iter().zip(&r.forces.1) {
        assert_eq!(d[0], f[0], "same samples");
        let mode = mode_at(&r.events, d[0]);
        seen.insert(mode.to_string());
        let load = n0 + KN * d[2];
        let (t_force, n_force) = (f[1], f[2]);
        match mode {
            "separated" => {
                assert_eq!((t_force, n_force), (0.0, 0.0), "{d:?}");
                assert!(load <= 1e-9 * n0, "separated with N = {load}");
            }
            slip => {
                assert!(
                    (n_force - load).abs() <= 1e-12 * load.abs().max(n0),
                    "{d:?}"
                );
                if slip == "stick" {
                    // N is 0 to round-off at a touch-down's instant.
                    let limit = MU * n_force + 1e-9 * n0;
                    assert!(t_force.abs() <= limit, "{d:?} {f:?}");
                } else {
                    let limit = xi(slip) * MU * n_force;
                    assert!((t_force - limit).abs() <= 1e-9 * n0, "{d:?} {f:?}");
                }
            }
        }
    }
    assert_eq!(seen.len(), 4, "every mode sampled: {seen:?}");
}

/// The forced planar mass (no damping): the work the contact absorbs,
/// `W = ∫ f·v dt − ΔE` with `E = ½|v|² + ½|x|²` and the forcing `f = (Fx cos Ωt, Fy sin Ωt)`,
/// equals the change of its stored energy `S = T²/2kt + N²/2kn` plus the dissipation
/// `D = ∫ μN |ẇ| dt` over the slip phases, the slider's velocity `ẇ = u̇_t − ξ μ (kn/kt) u̇_n`
/// (eqs. 24–27). The run sticks again after slipping, so a slip→stick rule other than the
/// slider's velocity vanishing would let the slider run backwards (`T ẇ < 0`) and break the
/// balance. Both integrals are trapezoid sums on a 1e-4 s grid merged with the located
/// events (each mode's phase integrated between its exact ends: error ~(h ω)²/12 ≈ 5e-9 of
/// each), so the balance holds to 1e-6 of the input work (integration at rtol 1e-11).
#[test]
fn contact_work_is_stored_plus_dissipated() {
    let (n0, fx, fy, omega) = (1.0, 2.0, 2.0, 1.3);
    let opts = "rtol = 1e-11, atol = 1e-12";
    let runs = run(
        MODELS,
        &format!(
            "simulate plane as steps {{ t = 0..20, output = steps, {opts} }}\n\
             simulate plane as grid {{ t = 0..20, output = every(1e-4), {opts} }}\n"
        ),
        &[],
        "energy",
    );
    let (steps, grid) = (&runs[0], &runs[1]);
    assert_eq!(
        steps.events, grid.events,
        "the output does not move the events"
    );
    let kinds: Vec<(&str, &str)> = steps
        .events
        .iter()
        .map(|e| (e[3].as_str(), e[4].as_str()))
        .collect();
    assert!(
        kinds.iter().any(|k| k.1 == "separated")
            && kinds
                .iter()
                .any(|k| k.0.starts_with("slip") && k.1 == "stick"),
        "{kinds:?}"
    );
    let mut rows: Vec<&Vec<f64>> = steps.data.iter().chain(&grid.data).collect();
    rows.sort_by(|a, b| a[0].total_cmp(&b[0]));
    rows.dedup_by(|a, b| a[0] == b[0]);
    let power = |d: &[f64]| fx * (omega * d[0]).cos() * d[3] + fy * (omega * d[0]).sin() * d[4];
    let rate = |d: &[f64], mode: &str| {
        let load = n0 + KN * d[2];
        let slider = d[3] - xi(mode) * MU * KN / KT * d[4];
        MU * load * slider.abs()
    };
    let (mut input, mut dissipated) = (0.0, 0.0);
    for pair in rows.windows(2) {
        let h = pair[1][0] - pair[0][0];
        input += 0.5 * h * (power(pair[0]) + power(pair[1]));
        let mode = mode_at(&steps.events, pair[0][0]);
        if mode.starts_with("slip") {
            dissipated += 0.5 * h * (rate(pair[0], mode) + rate(pair[1], mode));
        }
    }
    let energy = |d: &[f64]| 0.5 * (d[1] * d[1] + d[2] * d[2] + d[3] * d[3] + d[4] * d[4]);
    let stored = |f: &[f64]| f[1] * f[1] / (2.0 * KT) + f[2] * f[2] / (2.0 * KN);
    let (first, last) = (&steps.data[0], steps.data.last().expect("rows"));
    let (f0, f1) = (&steps.forces.1[0], steps.forces.1.last().expect("rows"));
    let work = input - (energy(last) - energy(first));
    let balance = work - (stored(f1) - stored(f0)) - dissipated;
    assert!(
        dissipated > 0.1 * input.abs(),
        "it slides: D = {dissipated}, input {input}"
    );
    assert!(
        balance.abs() <= 1e-6 * input.abs(),
        "W = {work}, ΔS = {}, D = {dissipated}: off by {balance:e}",
        stored(f1) - stored(f0)
    );
}

/// Paper 003's cantilever with its pad (`models/seed3/cantilever_pad.nsd`, the pad's normal
/// held by the beam's lack of an axial DOF) against the same beam with the equivalent
/// Jenkins element (slip force μN₀ = 12 N): the same events and the same response, to 1e-9
/// (the same arithmetic, see `held_normal_is_the_jenkins_element`), on 8 modes (the
/// reduction keeps the run short; the full beam gives the same agreement).
#[test]
fn cantilever_pad_is_its_jenkins_equivalent() {
    let jenkins = "model cantilever_jenkins(F = 1, Omega = 1300, N0 = 40) {
      param kc = 2e8, mu = 0.3
      use cantilever as beam(E = 210 GPa, rho = 7830 kg/m^3, b = 10 mm, h = 10 mm, L = 200 mm, n = 20)
      damping rayleigh { beta = 1e-6 }
      friction pad: beam.b[14].y -- ground { law = jenkins, kt = kc, force = mu * N0 }
      force beam.b[20].y = F * cos(Omega * t)
    }
    simulate cantilever_pad as c2d { t = 0..0.05, output = every(1e-4), reduce = modes(8) }
    simulate cantilever_jenkins as jk { t = 0..0.05, output = every(1e-4), reduce = modes(8) }
    ";
    let runs = run(
        "models/seed3/cantilever_pad.nsd",
        jenkins,
        &["F=20"],
        "cantilever",
    );
    let (c2d, jk) = (&runs[runs.len() - 2], &runs[runs.len() - 1]);
    assert!(c2d.events.len() > 20, "{:?}", c2d.events);
    assert_eq!(c2d.events.len(), jk.events.len());
    for (a, b) in c2d.events.iter().zip(&jk.events) {
        let (ta, tb): (f64, f64) = (a[0].parse().expect("t"), b[0].parse().expect("t"));
        assert!((ta - tb).abs() <= 1e-9 * 0.05, "{a:?} vs {b:?}");
        assert_eq!(a[2..5], b[2..5], "kind, from, to");
    }
    same_motion(&c2d.data, &jk.data);
    for (a, b) in c2d.forces.1.iter().zip(&jk.forces.1) {
        assert!((a[1] - b[1]).abs() <= 1e-9 * 12.0, "T {a:?} vs {b:?}");
        assert_eq!(a[2], 40.0, "N = N0");
    }
}

/// A periodic harmonic-balance point of the cantilever with its pad (issue 15: "equals a
/// `simulate` run started on it after 200 periods (1e-4 of the amplitude), with the contact
/// simulated exactly"), both on the same 8-mode Craig–Bampton model at Ω = 1250 rad/s,
/// F = 20 N (the pad slips both ways each period). `simulate` starts its contact stuck and
/// unstressed, so the run starts where the balance's cycle is stuck with `T = 0`: after its
/// reversal at `u_max`, where `u_t = u_max − μN₀/kt`.
///
/// "H large enough" is large here: the pad's stiffness (kt = 2·10⁸ N/m, a thousand times the
/// beam's at the node) makes each stick phase a stiff spring that the truncated series
/// ripples across, so the balance's error falls slowly until the harmonics resolve it:
/// |Δx|/|x| after 200 periods measured 3.1e-3 at H = 15, 5.4e-4 at H = 91, 1.3e-4 at
/// H = 181, 6.1e-6 at H = 363 (with kt = 2·10⁶ it is 1.6e-5 already at H = 45). The balance
/// is solved condensed onto the pad's DOF (727 unknowns at H = 363, 1.4 s), each H from the
/// last one's solution; the bar is the 1e-4 at H = 363, and H = 91's error at least
/// ten times larger (the gap is the balance's truncation, not the simulation's).
#[test]
fn cantilever_balance_point_is_the_simulated_steady_state() {
    use nsd::solve::ode::{integrate, Config, Hybrid, Method, Output, Tolerances};
    let omega = 1250.0;
    let prog =
        nsd::lang::Program::load(&root().join("models/seed3/cantilever_pad.nsd")).expect("loads");
    let sets: Vec<_> = [format!("Omega={omega:e}"), "F=20".to_string()]
        .iter()
        .map(|s| nsd::lang::parse_override(s).expect("override"))
        .collect();
    let full = nsd::model::assemble(
        &nsd::lang::resolve(&prog, "cantilever_pad", &sets).expect("resolves"),
    );
    let red = nsd::solve::reduce::craig_bampton(&full, 8, &[]).expect("reduces");
    let sys = &red.system;
    let n = sys.n();
    let pad = sys
        .dofs
        .iter()
        .position(|d| d.name == "beam.b[14].y")
        .expect("the pad's DOF is kept");
    // Balance orders solved (each from the last) and those checked against `simulate`.
    const LADDER: [usize; 4] = [15, 91, 181, 363];
    const SIMULATED: [usize; 2] = [91, 363];
    let mut errors = Vec::new();
    let mut q = nalgebra::DVector::zeros(0);
    for h in LADDER {
        let hb =
            nsd::solve::hb::Balance::new(sys, h, (8 * h + 8).next_power_of_two()).expect("balance");
        q = if h == 15 {
            hb.solve(hb.ramped_guess(omega), omega, 1e-12)
                .expect("converges")
                .0
        } else {
            let mut guess = nalgebra::DVector::zeros(hb.dim());
            guess.rows_mut(0, q.len()).copy_from(&q);
            // Residual to 2e-11 N: `Balance::solve`'s 1e-12 relative to |F_ex| = 20 N.
            let pad_only = nsd::solve::hb::Condensed::new(&hb).expect("condenses");
            let (qc, _) =
                nsd::solve::cont::newton(&pad_only, pad_only.restrict(&guess), omega, 2e-11)
                    .expect("converges");
            pad_only.expand(&qc, omega)
        };
        if !SIMULATED.contains(&h) {
            continue;
        }
        let period = std::f64::consts::TAU / omega;
        let start = unstressed_instant(&q, n, h, omega, pad, 12.0 / 2e8);
        let y0 = periodic_state(&q, n, h, omega, start);
        let t1 = start + 200.0 * period;
        let mut hyb = Hybrid::new(sys, false).expect("integrable");
        let cfg = Config {
            t0: start,
            t1,
            y0: y0.clone(),
            tol: Tolerances {
                rtol: 1e-10,
                atol: 1e-14,
                max_step: f64::INFINITY,
            },
            output: Output::At(vec![t1]),
            method: Method::Auto,
        };
        let traj = integrate(&mut hyb, &cfg, &mut |_| {}).expect("integrates");
        assert!(traj.events.len() >= 4 * 199, "slips each way every period");
        let end = traj.y.last().expect("a sample");
        let size = y0[..n].iter().map(|v| v * v).sum::<f64>().sqrt();
        let gap = y0[..n]
            .iter()
            .zip(end)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt();
        errors.push(gap / size);
    }
    assert!(errors[1] < 1e-4, "{errors:?}");
    assert!(errors[1] < errors[0] / 10.0, "{errors:?}");
}

/// The first instant after the maximum of the DOF `dof`'s periodic displacement (harmonic
/// coefficients `q`) where it has come back by `reach` (a stuck Jenkins slider's force
/// crossing zero), on a 2¹⁶-point grid refined by bisection.
fn unstressed_instant(
    q: &nalgebra::DVector<f64>,
    n: usize,
    h: usize,
    omega: f64,
    dof: usize,
    reach: f64,
) -> f64 {
    let period = std::f64::consts::TAU / omega;
    let u = |t: f64| periodic_state(q, n, h, omega, t)[dof];
    let grid: Vec<f64> = (0..1 << 16).map(|k| period * k as f64 / 65536.0).collect();
    let top = grid
        .iter()
        .copied()
        .max_by(|a, b| u(*a).total_cmp(&u(*b)))
        .expect("grid");
    let level = u(top) - reach;
    let mut lo = top;
    let step = period / 65536.0;
    while u(lo + step) > level {
        lo += step;
    }
    let mut hi = lo + step;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if u(mid) > level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A 2-D contact against the moving base is refused with a coded diagnostic (its event
/// functions would carry the wall's motion in two directions).
#[test]
fn contact_against_the_moving_base_is_unsupported() {
    let text = "model wall {
      mass p = 1 { dofs = (x, y) }
      spring ground -- p.x { k = 1 }
      spring ground -- p.y { k = 1 }
      friction c: p -- base { law = contact2d, kt = 10, kn = 50, mu = 0.3, N0 = 1 }
      base = 0.1 * cos(t)
    }
    simulate wall { t = 0..1 }
    ";
    let (code, _, stderr, _) = run_text(text, "simulate_friction2d/wall", &[]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("nsd::analysis::unsupported") && stderr.contains("moving base"),
        "{stderr}"
    );
}
