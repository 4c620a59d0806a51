//! Paper 003's backbones on its two models (issue 15): the ridge of the cantilever with pad
//! runs from the stuck-system resonance to the free one and passes through the peaks of
//! separately solved responses; on the blade–damper–blade model the ridge passes through the
//! response peaks past its singular points, and the three methods disagree at the paper's
//! damping (β = 1.5e-5) and meet as β falls (Figs. 12–15).

use crate::common;

use nsd::solve::backbone::{self, amplitude, Curve, Forced, Settings, Spacing};

fn settings(levels: (f64, f64), window: (f64, f64)) -> Settings {
    Settings {
        levels,
        window,
        spacing: Spacing::Log,
        amplitudes: None,
        step: 0.01,
        min_step: 1e-5,
        max_step: 0.05,
        max_points: 2000,
        tol: 1e-10,
        restarts: 10,
    }
}

/// The ω of the largest `Am` of the response at `level` computed separately: continued in
/// ω over ±0.1 % around `omega` (`backbone::frequency_response`, as `continue frf`), its
/// largest point refined by the parabola through it and its neighbours.
fn separate_peak(f: &Forced, level: f64, omega: f64) -> f64 {
    let window = (omega * (1.0 - 1e-3), omega * (1.0 + 1e-3));
    let s = Settings {
        max_points: 5000,
        ..settings((level, level), window)
    };
    let frc = backbone::frequency_response(f, level, window, &s).expect("response");
    let am: Vec<f64> = frc
        .iter()
        .map(|(q, _)| amplitude(f.hb, q, f.monitored))
        .collect();
    let i = (1..am.len() - 1)
        .max_by(|&a, &b| am[a].total_cmp(&am[b]))
        .expect("interior peak");
    let [(x0, y0), (x1, y1), (x2, y2)] = [i - 1, i, i + 1].map(|j| (frc[j].1, am[j]));
    let (d1, d2) = ((y1 - y0) / (x1 - x0), (y2 - y1) / (x2 - x1));
    let curvature = (d2 - d1) / (x2 - x0);
    let slope = d1 + curvature * (x1 - x0);
    x1 - slope / (2.0 * curvature)
}

/// Five backbone points spread over its levels, each checked against the peak found by
/// searching the responses at its level (relative `tol` in ω).
fn ridge_meets_peaks(curve: &Curve, f: &Forced, tol: f64) {
    let ridge: Vec<_> = curve.points.iter().filter(|p| p.stage == 3).collect();
    for i in 0..5 {
        let pt = ridge[i * (ridge.len() - 1) / 4];
        let w = separate_peak(f, pt.level, pt.omega);
        assert!(
            (pt.omega - w).abs() < tol * w,
            "level {}: ridge ω = {} vs peak {w}",
            pt.level,
            pt.omega
        );
    }
}

const CANTILEVER: &str = "models/seed3/cantilever_pad.nsd";
const BLADES: &str = "models/seed3/blade_damper_blade.nsd";

/// The cantilever with the pad at node 4 (H = 1): the ridge starts on the stuck first mode
/// (1802.84 rad/s) and ends on the free one (1314.10 rad/s), within 1e-4, and meets the
/// response peaks at five levels within 1e-6 (the issue asks 1e-4; measured below 1e-7).
#[test]
fn cantilever_ridge_runs_from_the_stuck_to_the_free_resonance() {
    let hb = common::balance_of(CANTILEVER, "cantilever_pad", 1, &["pad=4"]);
    let dof = hb.excited_dof().expect("loaded");
    let f = Forced::new(&hb, dof, Spacing::Log).expect("forced");
    let curve = backbone::ridge(&f, &settings((1e-4, 1e4), (1700.0, 1900.0))).expect("ridge");
    assert!(curve.stopped.is_none(), "{:?}", curve.stopped);
    let ridge: Vec<_> = curve.points.iter().filter(|p| p.stage == 3).collect();
    let (first, last) = (ridge[0], ridge[ridge.len() - 1]);
    let (stuck, free) = (1802.841447344089, 1314.1015501467116);
    assert!(
        (first.omega - stuck).abs() < 1e-4 * stuck,
        "stuck end {}",
        first.omega
    );
    assert!(
        (last.omega - free).abs() < 1e-4 * free,
        "free end {}",
        last.omega
    );
    ridge_meets_peaks(&curve, &f, 1e-6);
}

/// Blade–damper–blade (H = 1): the ridge passes its singular points (restarts) and meets the
/// response peaks within 1e-6 (measured below 1e-7).
#[test]
fn blade_damper_blade_ridge_meets_the_response_peaks() {
    let hb = common::balance_of(BLADES, "blade_damper_blade", 1, &[]);
    let dof = hb.excited_dof().expect("loaded");
    let f = Forced::new(&hb, dof, Spacing::Log).expect("forced");
    let curve = backbone::ridge(&f, &settings((0.1, 100.0), (1240.0, 1380.0))).expect("ridge");
    assert!(curve.stopped.is_none(), "{:?}", curve.stopped);
    let restarts = curve.points.iter().map(|p| p.segment).max().unwrap_or(0);
    assert!(restarts >= 1, "no singular point passed");
    ridge_meets_peaks(&curve, &f, 1e-6);
}

/// The spread of the three methods' ω in the stuck range (level 0.01) at damping β.
fn stuck_spread(beta: f64) -> (f64, [f64; 3]) {
    let set = format!("beta={beta}");
    let hb = common::balance_of(BLADES, "blade_damper_blade", 1, &[set.as_str()]);
    let dof = hb.excited_dof().expect("loaded");
    let f = Forced::new(&hb, dof, Spacing::Log).expect("forced");
    let s = settings((0.01, 0.02), (1240.0, 1380.0));
    let first = |c: Curve| c.points.iter().find(|p| p.stage == 3).expect("point").omega;
    let w = [
        first(backbone::ridge(&f, &s).expect("ridge")),
        first(backbone::dnnm(&f, &s).expect("dnnm")),
        first(backbone::phase_resonance(&f, &s).expect("phase")),
    ];
    let spread =
        w.iter().copied().fold(f64::MIN, f64::max) - w.iter().copied().fold(f64::MAX, f64::min);
    (spread, w)
}

/// Sect. 5.2: at β = 1.5e-5 the closely spaced stuck modes make the methods disagree (the
/// ridge on the monitored peak, phase resonance and the dNNM elsewhere); as β falls to
/// 8e-6 and 3e-6 they close in.
#[test]
fn blade_damper_blade_methods_diverge_with_damping_and_meet_without() {
    let spreads: Vec<(f64, [f64; 3])> = [1.5e-5, 8e-6, 3e-6]
        .iter()
        .map(|&b| stuck_spread(b))
        .collect();
    assert!(
        spreads[0].0 > 2.0 * spreads[1].0 && spreads[1].0 > 2.0 * spreads[2].0,
        "{spreads:?}"
    );
    let [ridge, dnnm, phase] = spreads[0].1;
    assert!(ridge < dnnm && dnnm < phase, "{:?}", spreads[0].1);
}

/// The receptance form's `H` is the kept block of `D(ω)⁻¹`, its ω-derivatives those of
/// central differences, and the response it expands solves `D Q = F` (no nonlinear force).
#[test]
fn receptance_is_the_kept_block_of_the_inverse_dynamic_stiffness() {
    let hb = common::balance_of(CANTILEVER, "cantilever_pad", 2, &["pad=4"]);
    let keep = vec![3, 8, 39];
    let rec = nsd::solve::hb::Receptance::new(&hb, keep.clone()).expect("proportional damping");
    let omega = 1750.0;
    let d = hb.dynamic_stiffness(omega);
    let d_inv = d.clone().try_inverse().expect("regular");
    let (n, nc, width) = (hb.dofs(), keep.len(), hb.aft.width());
    let h = rec.matrix(omega, 0);
    let scale = h.amax();
    for p in 0..width {
        for q in 0..width {
            for (a, &i) in keep.iter().enumerate() {
                for (b, &j) in keep.iter().enumerate() {
                    let (x, y) = (h[(p * nc + a, q * nc + b)], d_inv[(p * n + i, q * n + j)]);
                    assert!((x - y).abs() < 1e-8 * scale, "H {x:e} vs D⁻¹ {y:e}");
                }
            }
        }
    }
    let step = 1e-3;
    for order in 1..=2 {
        let diff = (&*rec.matrix(omega + step, order - 1) - &*rec.matrix(omega - step, order - 1))
            / (2.0 * step);
        let exact = rec.matrix(omega, order);
        assert!(
            (diff - &*exact).amax() < 1e-5 * exact.amax(),
            "derivative {order}"
        );
    }
    let load = hb.excitation();
    let q = rec.expand(
        &rec.modal(&load),
        &nalgebra::DVector::zeros(rec.dim()),
        omega,
    );
    assert!((d * &q - &load).amax() < 1e-8 * load.amax());
}
