//! Backbones (issue 15, paper 003 Sects. 2–3): the ridge against the peaks of separately
//! solved responses, the damped nonlinear modes against closed forms (Duffing's undamped
//! backbone, Jenkins' describing function), the three methods converging as the damping
//! vanishes, and the linear operators behind them.

use crate::common;

use crate::common::{balance_of, system_at};
use nalgebra::{DMatrix, DVector};
use nsd::solve::backbone::{self, amplitude, Forced, Settings, Spacing};
use nsd::solve::hb::{Balance, Operator};

const FILE: &str = "tests/models/backbone.nsd";

fn settings(levels: (f64, f64), window: (f64, f64)) -> Settings {
    Settings {
        levels,
        window,
        spacing: Spacing::Log,
        amplitudes: None,
        step: 0.02,
        min_step: 1e-9,
        max_step: 0.05,
        max_points: 2000,
        tol: 1e-11,
        restarts: 4,
    }
}

#[test]
fn operators_products_matrices_and_derivatives_agree() {
    let sys = system_at("tests/models/duffing.nsd", "nlvib07", 1.0);
    let hb = Balance::new(&sys, 3, 32).expect("balance");
    let q = DVector::from_fn(hb.dim(), |i, _| ((i * 7 + 3) % 11) as f64 / 11.0 - 0.4);
    let w = 1.7;
    for op in [
        Operator::Dynamic,
        Operator::Rate,
        Operator::RateTransposed,
        Operator::Curvature,
        Operator::MassInput,
        Operator::MassInputRate,
        Operator::Mass,
        Operator::Damping,
    ] {
        let direct = hb.apply(op, &q, w);
        let assembled = hb.matrix(op, w) * &q;
        assert!((direct - assembled).amax() < 1e-12, "{op:?}");
    }
    let h = 1e-6;
    let diff = |op: Operator| (hb.matrix(op, w + h) - hb.matrix(op, w - h)) / (2.0 * h);
    let close = |a: DMatrix<f64>, b: DMatrix<f64>| (a - b).amax() < 1e-7;
    assert!(close(diff(Operator::Dynamic), hb.matrix(Operator::Rate, w)));
    assert!(close(
        diff(Operator::Rate),
        hb.matrix(Operator::Curvature, w)
    ));
    assert!(close(
        diff(Operator::MassInput),
        hb.matrix(Operator::MassInputRate, w)
    ));
    assert_eq!(
        hb.matrix(Operator::Rate, w).transpose(),
        hb.matrix(Operator::RateTransposed, w)
    );
}

/// Undamped Duffing, one harmonic: the mode's frequency is ω² = 1 + ¾ k3 A² (A the
/// amplitude), to round-off.
#[test]
fn undamped_duffing_dnnm_is_the_closed_form_backbone() {
    let hb = balance_of(FILE, "duffing", 1, &["c=0", "k3=0.1"]);
    let f = Forced::new(&hb, 0, Spacing::Log).expect("forced");
    let mut s = settings((1e-3, 1.0), (0.5, 1.5));
    s.amplitudes = Some((0.01, 3.0));
    let curve = backbone::dnnm(&f, &s).expect("dnnm");
    assert!(curve.points.len() > 10, "{} points", curve.points.len());
    let mut top: f64 = 0.0;
    for pt in &curve.points {
        let a = pt.q[1].hypot(pt.q[2]);
        top = top.max(a);
        let expected = (1.0 + 0.75 * 0.1 * a * a).sqrt();
        assert!(
            (pt.omega - expected).abs() < 1e-10 * expected,
            "A = {a}: ω = {} vs {expected}",
            pt.omega
        );
        assert!(pt.xi.expect("xi").abs() < 1e-12);
    }
    // The branch ends on the range's end, not a step past it.
    assert!((top - 3.0).abs() < 1e-9, "ends at A = {top}");
}

/// Issue 43, item 1.5: over levels, the dNNM backbone of a damped Duffing oscillator
/// (c = 0.05, k3 = 0.5, H = 3, levels 0.1..2) ends on the last level itself — before, its
/// continuation stepped past level 2 and the backbone stopped at 1.35 with nothing said —
/// and a branch that reaches it has no `stopped`.
#[test]
fn damped_duffing_dnnm_reaches_its_last_level() {
    let hb = balance_of(FILE, "duffing", 3, &["c=0.05", "k3=0.5", "F=0.1"]);
    let f = Forced::new(&hb, 0, Spacing::Log).expect("forced");
    let s = settings((0.1, 2.0), (0.5, 3.0));
    let curve = backbone::dnnm(&f, &s).expect("dnnm");
    assert!(curve.stopped.is_none(), "{:?}", curve.stopped);
    let last = curve.points.last().expect("points").level;
    assert!((last - 2.0).abs() < 1e-8, "ends at level {last}");
    let first = curve.points.first().expect("points").level;
    assert!((0.1..2.0).contains(&first), "starts at level {first}");
}

/// Jenkins element (kt = 3, slip force 0.5) on a unit oscillator, one harmonic: the mode's
/// frequency follows the describing function, ω² = 1 + k_eq(A) with k_eq = kt below the
/// slip amplitude F/kt and (kt/π)(θ − ½ sin 2θ), cos θ = 1 − 2F/(kt A), above — from
/// √((k + kt)/m) stuck to √(k/m) in gross slip.
#[test]
fn jenkins_dnnm_follows_the_describing_function() {
    let hb = balance_of(FILE, "jenkins", 1, &[]);
    let f = Forced::new(&hb, 0, Spacing::Log).expect("forced");
    let mut s = settings((1e-3, 1.0), (1.5, 2.5));
    s.amplitudes = Some((0.01, 100.0));
    let curve = backbone::dnnm(&f, &s).expect("dnnm");
    let (kt, slip) = (3.0, 0.5);
    let k_eq = |a: f64| {
        if kt * a <= slip {
            kt
        } else {
            let th = (1.0 - 2.0 * slip / (kt * a)).acos();
            kt / std::f64::consts::PI * (th - 0.5 * (2.0 * th).sin())
        }
    };
    for pt in &curve.points {
        let a = pt.q[1].hypot(pt.q[2]);
        let expected = (1.0 + k_eq(a)).sqrt();
        assert!(
            (pt.omega - expected).abs() < 1e-8 * expected,
            "A = {a}: ω = {} vs {expected}",
            pt.omega
        );
    }
    let (first, last) = (&curve.points[0], curve.points.last().expect("points"));
    assert!((first.omega - 2.0).abs() < 1e-12, "stuck: {}", first.omega);
    assert!(
        (last.omega - 1.0).abs() < 1e-3,
        "gross slip: {}",
        last.omega
    );
}

/// The damped mode of a Jenkins oscillator (m = k = 1, Rayleigh α = 0.01, kt = 0.25,
/// F = 0.2) passes the onset of slip at every harmonic count, from the stuck ω = √1.25 to
/// gross slip ω → 1 over seven decades of modal amplitude (tmdsimpy's EPMC test): at H = 3
/// it stopped at the onset (Am 0.55, "step fell below its minimum").
#[test]
fn jenkins_dnnm_passes_the_onset_of_slip_at_every_harmonic_count() {
    let text = "model jen(Omega = 1, F = 0.1) {
  mass m1 = 1
  spring ground -- m1 { k = 1 }
  damping rayleigh { alpha = 0.01 }
  friction j: m1 -- ground { law = jenkins, kt = 0.25, force = 0.2 }
  force m1 = F * cos(Omega * t)
}
"
    .to_string()
        + &[1, 2, 3, 5]
            .map(|h| format!("continue backbone jen as h{h} {{ method = dnnm, param = Omega in 0.8..1.3, amplitude = 1e-2..1e5, harmonics = {h} }}\n"))
            .concat();
    for run in common::run_json(&text, "backbone_jenkins_onset", &[]) {
        let s = &run["summary"];
        assert!(s.get("stopped").is_none(), "{run}");
        let at = |end: &str, key: &str| s[end][key].as_f64().expect("a number");
        assert!(
            (at("first", "Omega") - 1.25_f64.sqrt()).abs() < 1e-12,
            "{run}"
        );
        assert!((at("last", "Omega") - 1.0).abs() < 1e-6, "{run}");
        assert!(at("last", "Am") > 7e4, "{run}");
    }
}

/// The largest `Am` over ω at the level of `level` near `omega` (golden section, each
/// response solved by Newton from `q`): the second route to a ridge point.
fn peak_by_search(
    model: &str,
    set: &[&str],
    h: usize,
    level: f64,
    q: &DVector<f64>,
    omega: f64,
) -> f64 {
    let mut hb = balance_of(FILE, model, h, set);
    hb.level = level;
    let am = |w: f64| {
        let (sol, _) = hb.solve(q.clone(), w, 1e-13).expect("solves");
        amplitude(&hb, &sol, 0)
    };
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut a, mut b) = (omega * (1.0 - 2e-3), omega * (1.0 + 2e-3));
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (am(c), am(d));
    while b - a > 1e-11 * omega {
        if fc > fd {
            (b, d, fd) = (d, c, fc);
            c = b - g * (b - a);
            fc = am(c);
        } else {
            (a, c, fc) = (c, d, fd);
            d = a + g * (b - a);
            fd = am(d);
        }
    }
    0.5 * (a + b)
}

/// Duffing (c = 0.05, k3 = 0.1): every ridge point is the peak of the response at its
/// level, found separately by a search over ω (5 levels, 1e-6 relative).
#[test]
fn duffing_ridge_is_the_locus_of_response_peaks() {
    for h in [1, 3] {
        let hb = balance_of(FILE, "duffing", h, &[]);
        let f = Forced::new(&hb, 0, Spacing::Log).expect("forced");
        let curve = backbone::ridge(&f, &settings((1e-3, 0.1), (0.8, 1.3))).expect("ridge");
        assert!(curve.stopped.is_none(), "{:?}", curve.stopped);
        let ridge: Vec<_> = curve.points.iter().filter(|p| p.stage == 3).collect();
        assert!(ridge.len() >= 10, "{} points", ridge.len());
        let last = ridge.last().expect("points");
        assert!((last.level - 0.1).abs() < 0.02, "ends at {}", last.level);
        for i in 0..5 {
            let pt = ridge[i * (ridge.len() - 1) / 4];
            let w = peak_by_search("duffing", &[], h, pt.level, &pt.q, pt.omega);
            assert!(
                (pt.omega - w).abs() < 1e-6 * w,
                "H = {h}, level {}: ridge ω = {} vs peak {w}",
                pt.level,
                pt.omega
            );
        }
    }
}

/// ω of a backbone at `level` (linear in ln α between its points).
fn omega_at(curve: &backbone::Curve, level: f64) -> f64 {
    let pts: Vec<_> = curve.points.iter().filter(|p| p.stage == 3).collect();
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if (a.level - level) * (b.level - level) <= 0.0 {
            let t = (level.ln() - a.level.ln()) / (b.level.ln() - a.level.ln());
            return a.omega + t * (b.omega - a.omega);
        }
    }
    panic!("level {level} not on the curve");
}

/// Duffing: ridge, phase resonance and dNNM differ by the damping's effect and meet as
/// c → 0.
#[test]
fn the_three_methods_meet_as_damping_vanishes() {
    let mut spreads = Vec::new();
    for c in [0.05, 0.01, 0.002] {
        let set = [format!("c={c}")];
        let set: Vec<&str> = set.iter().map(|s| s.as_str()).collect();
        let hb = balance_of(FILE, "duffing", 1, &set);
        let f = Forced::new(&hb, 0, Spacing::Log).expect("forced");
        let levels = (1e-3 * c / 0.05, 0.05 * c / 0.05);
        // Fine steps: the comparison interpolates between points.
        let s = Settings {
            max_step: 0.001,
            ..settings(levels, (0.8, 1.3))
        };
        let curves = [
            backbone::ridge(&f, &s).expect("ridge"),
            backbone::phase_resonance(&f, &s).expect("phase"),
            backbone::dnnm(&f, &s).expect("dnnm"),
        ];
        let level = (levels.0 * levels.1).sqrt();
        let w: Vec<f64> = curves.iter().map(|cv| omega_at(cv, level)).collect();
        let spread =
            w.iter().copied().fold(f64::MIN, f64::max) - w.iter().copied().fold(f64::MAX, f64::min);
        spreads.push(spread);
    }
    assert!(
        spreads[0] > spreads[1] && spreads[1] > spreads[2],
        "{spreads:?}"
    );
    assert!(spreads[2] < 2e-6, "{spreads:?}");
}

/// A 1,000-DOF chain with a cubic spring: the backbone is solved on the full balance, so the
/// request is refused up front with its memory estimate (not left to allocate gigabytes).
#[test]
fn a_backbone_too_large_for_the_full_balance_is_refused_with_its_estimate() {
    let model = |n: usize| {
        format!(
            "import \"chain.nsd\"\n\
             model big(Omega = 1, F = 1) {{\n  use chain as c(n = {n}, m = 1, k = 1)\n  \
             spring c.x[{n}] -- ground {{ k3 = 0.1 }}\n  damper c.x[{n}] -- ground {{ c = 0.05 }}\n  \
             force c.x[{n}] = F * cos(Omega * t)\n}}\n\
             continue backbone big {{ param = Omega in 0.001..0.01, level = 1e-3..1e-2, harmonics = 5 }}\n"
        )
    };
    let start = std::time::Instant::now();
    let (code, _, stderr, _) = common::run_text(&model(1000), "backbone_big", &[]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("nsd::analysis::bad_option") && stderr.contains("memory"),
        "{stderr}"
    );
    assert!(start.elapsed().as_secs_f64() < 10.0, "refused late");
}

/// The backbone's `stable` column runs in parallel chunks (`report.rs`): the cantilever's
/// `backbone_h3` (condensed Hill problem, exponents tracked within each chunk, the roots'
/// Newton iterations in parallel too, `hill/reduced.rs`) writes the same `data.csv`, byte
/// for byte, on one thread and on two.
#[test]
fn stability_column_does_not_depend_on_the_thread_count() {
    let run = |threads: &str| {
        let dir = common::root().join(format!("target/test-out/backbone_threads_{threads}"));
        let _ = std::fs::remove_dir_all(&dir);
        let file = common::root().join("models/seed3/cantilever_pad.nsd");
        let (code, _, stderr) = common::nsd_with_env(
            &[
                "run",
                file.to_str().expect("utf-8"),
                "--only",
                "backbone_h3",
                "--out",
                dir.to_str().expect("utf-8"),
            ],
            &[("RAYON_NUM_THREADS", threads)],
        );
        assert_eq!(code, 0, "{stderr}");
        std::fs::read_to_string(dir.join("backbone_h3/data.csv")).expect("data.csv")
    };
    let one = run("1");
    // `stable`, `xi`, `zeta`, then the `transitions` text.
    let judged = |l: &&str| l.contains(",1,NaN,NaN,") || l.contains(",0,NaN,NaN,");
    assert!(one.lines().filter(judged).count() > 20, "stability judged");
    assert_eq!(one, run("2"));
}
