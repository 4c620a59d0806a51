//! Harmonic balance core (issue 6, first slice): AFT transforms, the residual of the
//! assembled system and its exact Jacobian, Newton at fixed frequency.

use crate::common::*;
use nalgebra::DVector;
use nsd::lang::{parse_override, resolve, Program};
use nsd::model::{assemble, System};
use nsd::solve::hb::Aft;
use nsd::solve::hb::Balance;

fn system(model: &str, sets: &[&str]) -> System {
    let prog = Program::load(&root().join("tests/models/duffing.nsd")).expect("loads");
    let ov: Vec<_> = sets
        .iter()
        .map(|s| parse_override(s).expect("override"))
        .collect();
    assemble(&resolve(&prog, model, &ov).expect("resolves"))
}

#[test]
fn aft_round_trip_and_derivative() {
    // Coefficients → samples → coefficients is the identity (1e-14); the derivative samples
    // are those of the differentiated series.
    let aft = Aft::new(5, 32).expect("enough samples");
    let q = noise(1, 11);
    let back = aft.to_coefficients(&aft.to_time(&q, None));
    assert_rel(&back, &q, 1e-13, "round trip");
    let d = aft.to_time(&q, Some(2.0));
    for (j, dj) in d.iter().enumerate() {
        let th = std::f64::consts::TAU * j as f64 / 32.0;
        let exact: f64 = (1..=5)
            .map(|k| {
                let k_ = k as f64;
                2.0 * k_ * (-q[2 * k - 1] * (k_ * th).sin() + q[2 * k] * (k_ * th).cos())
            })
            .sum();
        assert!((dj - exact).abs() < 1e-12, "{dj} vs {exact}");
    }
    assert!(
        Aft::new(5, 10).is_err(),
        "10 samples cannot hold 5 harmonics"
    );
}

#[test]
fn aft_peak_is_the_maximum_between_the_samples() {
    // A cos(θ − φ) + 0.3 A cos(3θ − 2φ) on 16 samples: the refined peak is the maximum of a
    // 2¹⁶-point reconstruction (the largest sample alone can be ~2 % low).
    let aft = Aft::new(3, 16).expect("samples");
    for phi in [0.0f64, 0.1, 0.37, 1.0, 2.5] {
        let q = [
            0.0,
            phi.cos(),
            phi.sin(),
            0.0,
            0.0,
            0.3 * (2.0 * phi).cos(),
            0.3 * (2.0 * phi).sin(),
        ];
        let fine = Aft::new(3, 1 << 16).expect("samples");
        let exact = fine
            .to_time(&q, None)
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(
            (aft.peak(&q) - exact).abs() < 1e-8,
            "φ = {phi}: {} vs {exact}",
            aft.peak(&q)
        );
    }
}

#[test]
fn duffing_one_harmonic_is_the_describing_function_relation() {
    // With H = 1 the cubic's first harmonic is exact on 16 samples, so the amplitude A of
    // the HB solution satisfies [(k − Ω² + ¾ k3 A²)² + (cΩ)²] A² = F² to rounding (1e-8
    // asked; measured ~1e-15), on both sides of the resonance.
    for omega in [0.6, 0.95, 1.1, 1.6] {
        let sys = system("duffing", &[&format!("Omega={omega}")]);
        let hb = Balance::new(&sys, 1, 16).expect("balance");
        let (q, iterations) = hb
            .solve(hb.linear_guess(omega), omega, 1e-13)
            .expect("converges");
        assert!(iterations < 20);
        let a2 = q[1] * q[1] + q[2] * q[2];
        let lhs = ((1.0 - omega * omega + 0.75 * 0.1 * a2).powi(2) + (0.05 * omega).powi(2)) * a2;
        assert!(
            (lhs - 0.01).abs() < 1e-8 * 0.01,
            "Ω = {omega}: {lhs} vs 0.01"
        );
        assert!(q[0].abs() < 1e-14, "no static part for an odd force");
    }
}

#[test]
fn jacobian_matches_central_differences() {
    // Random states of the 2-DOF model with cubic, quadratic and free-play forces (H = 3,
    // 64 samples): the analytic Jacobian against central differences, 1e-6 relative.
    let sys = system("two_dof_freeplay", &[]);
    let hb = Balance::new(&sys, 3, 64).expect("balance");
    let omega = 1.2;
    let (mut kinks, mut checked) = (0, 0);
    for seed in 0..20 {
        let q = DVector::from_vec(noise(seed, hb.dim())) * 0.2;
        let jac = hb.jacobian(&q, omega);
        let h = 1e-6;
        for col in 0..hb.dim() {
            let mut qp = q.clone();
            qp[col] += h;
            let mut qm = q.clone();
            qm[col] -= h;
            let fd = (hb.residual(&qp, omega) - hb.residual(&qm, omega)) / (2.0 * h);
            let err = (jac.column(col) - &fd).amax();
            let size = jac.column(col).amax().max(1.0);
            // A sample crossing the gap's kink inside ±h makes the difference quotient
            // meaningless there; those columns are rare and show as O(k) errors.
            assert!(
                err < 1e-6 * size || err > 1e-2,
                "seed {seed}, column {col}: {err}"
            );
            kinks += usize::from(err > 1e-2);
            checked += 1;
        }
    }
    assert!(kinks * 20 < checked, "{kinks} of {checked} columns off");
}

#[test]
fn freeplay_two_harmonics_converge_and_the_excitation_lands_on_its_harmonic() {
    // The m2 force 0.03 sin(2Ωt) goes to harmonic 2 (+0.03 in the s2 row); Newton converges
    // from the linear guess with H = 5.
    let sys = system("two_dof_freeplay", &[]);
    let hb = Balance::new(&sys, 5, 64).expect("balance");
    assert_eq!(hb.fundamental, 1.2);
    let f = hb.excitation();
    let n = 2;
    assert_eq!(f[n], 0.1, "c1 of m1");
    assert!(
        (f[4 * n + 1] - 0.03).abs() < 1e-15,
        "s2 of m2: {}",
        f[4 * n + 1]
    );

    let (q, _) = hb
        .solve(hb.linear_guess(1.2), 1.2, 1e-12)
        .expect("converges");
    assert!(hb.residual(&q, 1.2).norm() < 1e-11);
}

/// The Duffing relation `G(A, Ω) = [(1 − Ω² + ¾k3A²)² + (cΩ)²]A² − F²` of `duffing`.
fn duffing_relation(a2: f64, omega: f64) -> f64 {
    ((1.0 - omega * omega + 0.075 * a2).powi(2) + (0.05 * omega).powi(2)) * a2 - 0.01
}

/// The closed-form fold of `duffing` near `(A², Ω)`: Newton on `G = 0`, `∂G/∂(A²) = 0`.
fn duffing_fold(a2: f64, omega: f64) -> (f64, f64) {
    let (mut a2, mut w) = (a2, omega);
    let dg = |a2: f64, w: f64| {
        let e = 1.0 - w * w + 0.075 * a2;
        e * e + (0.05 * w).powi(2) + 2.0 * e * 0.075 * a2
    };
    for _ in 0..50 {
        let (g, d) = (duffing_relation(a2, w), dg(a2, w));
        let h = 1e-7;
        let (ga, gw) = (
            (duffing_relation(a2 + h, w) - g) / h,
            (duffing_relation(a2, w + h) - g) / h,
        );
        let (da, dw) = ((dg(a2 + h, w) - d) / h, (dg(a2, w + h) - d) / h);
        let det = ga * dw - gw * da;
        a2 -= (g * dw - gw * d) / det;
        w -= (ga * d - g * da) / det;
    }
    (a2, w)
}

#[test]
fn continue_frf_locates_the_folds_on_the_branch() {
    // The analysis reports each fold where it lies between its neighbouring points
    // (bisection on the secant, corrected onto the branch): with H = 1 the balance is the
    // closed-form relation, so the folds must be its folds.
    let (code, stdout, stderr, _) = frf_run(
        "tests/models/duffing.nsd",
        "continue frf duffing as frf { param = Omega in 0.5..2, harmonics = 1, stability = false }",
        "frf-folds",
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("json")).expect("json");
    let folds = v["summary"]["folds"].as_array().expect("folds");
    assert_eq!(folds.len(), 2, "{v}");
    for f in folds {
        let (w, a) = (
            f["Omega"].as_f64().expect("Ω"),
            f["amplitude"].as_f64().expect("A"),
        );
        let (a2, w_exact) = duffing_fold(a * a, w);
        assert!(
            (w - w_exact).abs() < 1e-8,
            "fold at Ω = {w}, closed form {w_exact}"
        );
        // (Measured 3e-10: `max|x|` is the refined maximum, not the largest of 16 samples.)
        assert!(
            (a - a2.sqrt()).abs() < 1e-8 * a,
            "amplitude {a} vs {}",
            a2.sqrt()
        );
    }
}

#[test]
fn duffing_frf_passes_both_folds() {
    // Pseudo-arclength continuation of the H = 1 balance over Ω ∈ [0.5, 2]: every point on
    // the closed-form relation (1e-8 relative), both folds passed, and the closed-form fold
    // (where ∂G/∂A² = 0 as well, found here by Newton on the pair) next to the points
    // around the sign change of dΩ/ds.
    let (_, branch) = duffing_branch(1, 16);
    assert!(branch.last().expect("points").p > 2.0, "reached the end");
    for pt in &branch {
        let a2 = pt.x[1].powi(2) + pt.x[2].powi(2);
        assert!(
            duffing_relation(a2, pt.p).abs() < 1e-8 * 0.01,
            "Ω = {}: {}",
            pt.p,
            duffing_relation(a2, pt.p)
        );
    }
    let folds: Vec<usize> = (0..branch.len()).filter(|&i| branch[i].fold).collect();
    assert_eq!(folds.len(), 2, "two folds");
    for &i in &folds {
        let a2_0 = branch[i].x[1].powi(2) + branch[i].x[2].powi(2);
        let (_, w) = duffing_fold(a2_0, branch[i].p);
        let (lo, hi) = (
            branch[i - 1].p.min(branch[i].p),
            branch[i - 1].p.max(branch[i].p),
        );
        // Ω is extremal at a fold, so it lies beyond both points, by less than their spacing
        // (folds are marked, not yet refined: located to the step).
        let width = (hi - lo).max(1e-12);
        assert!(
            w >= lo - width && w <= hi + width,
            "fold at Ω = {w}, bracket [{lo}, {hi}]"
        );
        assert!(width < 1e-3, "the step shrinks at the fold: {width}");
    }
}

#[test]
fn hill_method_finds_the_middle_duffing_branch_unstable() {
    // H = 3 (the exponents need a few harmonics to settle): along the FRF, the points between
    // the two folds are unstable (a real exponent > 0), the others stable, away from the
    // folds themselves where an exponent crosses zero. Off resonance the exponents are the
    // linear ones, −c/2 ± i√(k − c²/4) (shifted into the fundamental band).
    let (hb, branch) = duffing_branch(3, 32);
    let folds: Vec<usize> = (0..branch.len()).filter(|&i| branch[i].fold).collect();
    assert_eq!(folds.len(), 2);
    let (f1, f2) = (folds[0], folds[1]);
    let mut counted = [0usize; 2];
    for (i, pt) in branch.iter().enumerate() {
        let near_fold = folds.iter().any(|&f| i + 2 >= f && i <= f + 1);
        if near_fold {
            continue;
        }
        let stable = hb.is_stable(&pt.x, pt.p, 1e-7);
        assert_eq!(
            stable,
            !(i >= f1 && i < f2),
            "point {i} at Ω = {}: {:?}",
            pt.p,
            hb.floquet(&pt.x, pt.p)
        );
        counted[usize::from(stable)] += 1;
    }
    assert!(
        counted[0] >= 3 && counted[1] >= 10,
        "unstable/stable points checked: {counted:?}"
    );
    // At Ω = 0.5 the response is small: exponents ≈ the linear ones, Re = −c/2 = −0.025.
    let first = hb.floquet(&branch[0].x, branch[0].p);
    assert_eq!(first.len(), 2);
    for s in first {
        assert!((s.re + 0.025).abs() < 2e-3, "{s}");
    }
}

#[test]
fn continue_frf_analysis_writes_the_curve_with_folds_and_stability() {
    let (code, stdout, stderr, dir) = frf_run(
        "tests/models/duffing.nsd",
        "continue frf duffing as frf { param = Omega in 0.5..2, harmonics = 3 }",
        "frf",
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("line")).expect("JSON");
    let s = &v["summary"];
    assert_eq!(s["folds"].as_array().expect("folds").len(), 2, "{s}");
    assert!(s["points"].as_u64().expect("points") > 20);
    // The peak lies on the closed-form relation of the first harmonic to H = 3 accuracy.
    let peak = s["peak"]["Omega"].as_f64().expect("peak");
    assert!(peak > 1.05 && peak < 1.2, "{s}");
    let data = std::fs::read_to_string(dir.join("frf/data.csv")).expect("data");
    assert!(data.starts_with("Omega [rad/s],converged,max|x.x|,phase(x.x) [rad],A0(x.x),A1(x.x),A2(x.x),A3(x.x),stable,fold,bifurcation\n"));
    let column = |l: &str, from_end: usize| l.rsplit(',').nth(from_end).map(str::to_string);
    let unstable = data
        .lines()
        .skip(1)
        .filter(|l| column(l, 2).as_deref() == Some("0"))
        .count();
    assert!(unstable > 3, "the middle branch is marked unstable");
    // Both turning points are where a real exponent crosses: folds, and nothing else.
    let kinds: Vec<&str> = s["bifurcations"]
        .as_array()
        .expect("bifurcations")
        .iter()
        .map(|b| b["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["fold", "fold"], "{s}");
    let marked = data.lines().filter(|l| l.ends_with(",fold")).count();
    assert_eq!(marked, 2, "the bifurcation column marks them");
    assert!(dir.join("frf/frf.svg").exists());
}

#[test]
fn continue_frf_keeps_the_branch_when_it_stops_early() {
    // The tour's free-play oscillator with a minimum step too coarse for its superharmonic
    // folds near Ω = 0.38: the step cannot shrink enough, so the run exits with 2 and writes
    // the points before, with `stopped` (why, and where) in the summary.
    let (code, _, stderr, dir) = frf_run(
        "models/tour.nsd",
        "continue frf freeplay as frf { param = Omega in 0.3..2.5, harmonics = 5, step = 0.02, min_step = 0.01, max_step = 0.02 }",
        "frf-partial",
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("nsd::analysis::numerical_failure"),
        "{stderr}"
    );
    let meta = std::fs::read_to_string(dir.join("frf/meta.json")).expect("meta");
    assert!(meta.contains("\"stopped\""), "{meta}");
    let rows = std::fs::read_to_string(dir.join("frf/data.csv"))
        .expect("data")
        .lines()
        .count();
    assert!(rows > 5, "{rows} rows");
}

#[test]
fn continue_frf_at_low_excitation_is_the_linear_resonance() {
    // `excitation = 0.01` (F = 0.001): the Duffing response is nearly linear, so the peak
    // is the damped SDOF one, Ω = √(1 − c²/2), |X| = F/(c√(1 − c²/4)), with no fold.
    let (code, stdout, stderr, _) = frf_run(
        "tests/models/duffing.nsd",
        "continue frf duffing as frf { param = Omega in 0.5..2, harmonics = 3, excitation = 0.01, max_step = 0.002 }",
        "frf-low",
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("line")).expect("JSON");
    let s = &v["summary"];
    assert!(s["folds"].as_array().expect("folds").is_empty(), "{s}");
    let (w, a) = (
        s["peak"]["Omega"].as_f64().expect("Ω"),
        s["peak"]["amplitude"].as_f64().expect("A"),
    );
    let c: f64 = 0.05;
    assert!((w - (1.0 - c * c / 2.0).sqrt()).abs() < 2e-3, "{s}");
    let linear = 0.001 / (c * (1.0 - c * c / 4.0).sqrt());
    assert!((a - linear).abs() < 0.01 * linear, "{a} vs {linear}");
}

/// The Duffing balance with `h` harmonics on `n` samples, followed over Ω ∈ [0.5, 2].
fn duffing_branch(h: usize, n: usize) -> (Balance, Vec<nsd::solve::cont::Point>) {
    use nsd::solve::cont::{follow, Scale, Settings};
    let sys = system("duffing", &["Omega=0.5"]);
    let hb = Balance::new(&sys, h, n).expect("balance");
    let settings = Settings {
        range: (0.5, 2.0),
        step: 0.05,
        min_step: 1e-6,
        max_step: 0.1,
        max_points: 2000,
        tol: 1e-12,
        scale: Scale::UNIT,
    };
    let branch = follow(&hb, hb.linear_guess(0.5), 0.5, &settings)
        .expect("branch")
        .points;
    (hb, branch)
}

#[test]
fn duffing_peak_with_seven_harmonics_is_the_simulated_steady_state() {
    // The FRF's largest response (H = 7, upper branch just before the fold) is a periodic
    // orbit: started on it, `simulate` must stay on it. Compare the amplitude over the last
    // of 300 periods with the balance's (reconstructed on 4096 points) to 1e-4.
    let (hb, branch) = duffing_branch(7, 64);
    let n_fine = 4096;
    let series = |q: &DVector<f64>, omega: f64, t: f64| -> (f64, f64) {
        let (mut x, mut v) = (q[0], 0.0);
        for k in 1..=7 {
            let (kf, (s, c)) = (k as f64, (k as f64 * omega * t).sin_cos());
            x += q[2 * k - 1] * c + q[2 * k] * s;
            v += kf * omega * (-q[2 * k - 1] * s + q[2 * k] * c);
        }
        (x, v)
    };
    let amplitude = |q: &DVector<f64>, omega: f64| {
        (0..n_fine)
            .map(|i| {
                series(
                    q,
                    omega,
                    std::f64::consts::TAU / omega * i as f64 / n_fine as f64,
                )
                .0
                .abs()
            })
            .fold(0.0, f64::max)
    };
    let top = branch
        .iter()
        .max_by(|a, b| amplitude(&a.x, a.p).total_cmp(&amplitude(&b.x, b.p)))
        .expect("points");
    let (omega, hb_amp) = (top.p, amplitude(&top.x, top.p));
    assert!(
        hb.is_stable(&top.x, omega, 1e-7),
        "the peak point is on the stable branch"
    );
    let (x0, v0) = series(&top.x, omega, 0.0);
    let period = std::f64::consts::TAU / omega;
    let dir = root().join("target/test-out/p003_hb_duffing_h7");
    let file = dir.join("run.nsd");
    std::fs::create_dir_all(&dir).expect("dir");
    let model = std::fs::read_to_string(root().join("tests/models/duffing.nsd")).expect("model");
    std::fs::write(
        &file,
        format!(
            "{model}\nsimulate duffing as steady {{ t = 0..{t1}, x0 = {{ x = {x0:e} }}, v0 = {{ x = {v0:e} }}, rtol = 1e-12, atol = 1e-12, output = every({dt:e}) }}\n",
            t1 = 300.0 * period,
            dt = period / 2000.0
        ),
    )
    .expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--set",
        &format!("Omega={omega:e}"),
        "--only",
        "steady",
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let csv = std::fs::read_to_string(dir.join("steady/data.csv")).expect("data");
    let rows: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let mut it = l.split(',').map(|v| v.parse::<f64>().expect("number"));
            (it.next().expect("t"), it.next().expect("x"))
        })
        .collect();
    let t_end = rows.last().expect("rows").0;
    let sim_amp = rows
        .iter()
        .filter(|(t, _)| *t >= t_end - period)
        .map(|(_, x)| x.abs())
        .fold(0.0, f64::max);
    assert!(
        (sim_amp - hb_amp).abs() < 1e-4 * hb_amp,
        "Ω = {omega}: simulated {sim_amp} vs balance {hb_amp}"
    );
}

#[test]
fn smoothed_gap_jacobian_matches_central_differences() {
    // A smooth law has no kinks: every column agrees, on 10 random states.
    let sys = system("two_dof_smoothed", &[]);
    let hb = Balance::new(&sys, 3, 64).expect("a smoothed gap is in the balance");
    for seed in 0..10 {
        let q = DVector::from_vec(noise(seed, hb.dim())) * 0.2;
        let jac = hb.jacobian(&q, 1.2);
        let h = 1e-6;
        for col in 0..hb.dim() {
            let (mut qp, mut qm) = (q.clone(), q.clone());
            qp[col] += h;
            qm[col] -= h;
            let fd = (hb.residual(&qp, 1.2) - hb.residual(&qm, 1.2)) / (2.0 * h);
            let err = (jac.column(col) - &fd).amax();
            assert!(
                err < 1e-6 * jac.column(col).amax().max(1.0),
                "seed {seed}, column {col}: {err}"
            );
        }
    }
}

#[test]
fn continue_frf_monitors_the_excited_dof_by_default() {
    // Issue 21, item 11: without `dof`, the peak, the folds and the plot follow the DOF with
    // the largest harmonic load (here `m2`, 0.1 against 0.05 on `m1`, the first DOF), and
    // the summary names it.
    let (code, stdout, stderr, dir) = frf_run(
        "tests/models/duffing.nsd",
        "continue frf loaded_second as frf { param = Omega in 0.5..2, harmonics = 3, stability = false }",
        "frf-excited",
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("line")).expect("JSON");
    let s = &v["summary"];
    assert_eq!(s["dof"], "m2.x", "{s}");
    // The summary's peak is the largest `max|m2.x|` in the table, not `m1`'s.
    let data = std::fs::read_to_string(dir.join("frf/data.csv")).expect("data");
    let header: Vec<&str> = data.lines().next().expect("header").split(',').collect();
    let column = |name: &str| {
        let j = header.iter().position(|h| *h == name).expect(name);
        data.lines()
            .skip(1)
            .map(|l| {
                l.split(',')
                    .nth(j)
                    .expect("cell")
                    .parse::<f64>()
                    .expect("number")
            })
            .fold(0.0, f64::max)
    };
    let (m1, m2) = (column("max|m1.x|"), column("max|m2.x|"));
    let peak = s["peak"]["amplitude"].as_f64().expect("peak");
    assert!(
        (m1 - m2).abs() > 0.1 * m2,
        "the two DOFs differ: {m1} vs {m2}"
    );
    assert!(
        peak >= m2 && peak < m2 * 1.01,
        "peak {peak} vs max|m2.x| {m2}"
    );
    let svg = std::fs::read_to_string(dir.join("frf/frf.svg")).expect("svg");
    assert!(svg.contains("max|m2.x|"), "the plot's axis names the DOF");
}

#[test]
fn continue_frf_of_the_cantilever_monitors_the_tip_by_default() {
    // Issue 21, item 11: the cantilever's first DOF is the node next to the clamp; its load
    // acts at the tip, which is what the paper watches (Fig. 4).
    let (code, stdout, stderr, _) = frf_run(
        "models/seed3/cantilever_pad.nsd",
        "continue frf cantilever_pad as frf { param = Omega in 1250..1380, excitation = 1e3, max_step = 10, harmonics = 1, stability = false }",
        "frf-cantilever-tip",
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("line")).expect("JSON");
    assert_eq!(v["summary"]["dof"], "beam.b[20].y", "{}", v["summary"]);
}

#[test]
fn continue_frf_names_the_first_column_after_the_swept_parameter() {
    // Issue 21, item 16: `param = W in …` gives `W [rad/s]` (docs: the parameter's name as
    // written), never a fixed `omega`.
    let (code, _, stderr, dir) = frf_run(
        "tests/models/duffing.nsd",
        "continue frf duffing_w as frf { param = W in 0.5..2, harmonics = 1, stability = false }",
        "frf-param-w",
    );
    assert_eq!(code, 0, "{stderr}");
    let data = std::fs::read_to_string(dir.join("frf/data.csv")).expect("data");
    assert!(
        data.starts_with("W [rad/s],converged,max|x.x|,"),
        "{data:.80}"
    );
    let svg = std::fs::read_to_string(dir.join("frf/frf.svg")).expect("svg");
    assert!(svg.contains("W [rad/s]"), "the plot's axis names it too");
}

#[test]
fn jenkins_force_is_continuous_where_the_stick_just_reaches_the_slip_limit() {
    // Issue 21, item 3: on NLvib's example 07 (H = 7, 64 samples) the Jenkins element j1
    // reached its slip limit near Ω = 1.6674 between two points of the transition search
    // grid; the slip was missed until the excursion straddled a grid point, and its force
    // jumped by 1.05e-4 there (one-sided differences off by 1.05e-4/h). The full balance's
    // branch stalled at Ω = 1.66739; it now reaches Ω = 2 with the residual continuous.
    use nsd::solve::cont::{follow, Scale, Settings};
    let sys = system("nlvib07", &[]);
    let hb = Balance::new(&sys, 7, 64).expect("balance");
    let settings = Settings {
        range: (0.5, 2.0),
        step: 0.015,
        min_step: 1.5e-8,
        max_step: 0.075,
        max_points: 5000,
        tol: 1e-10,
        scale: Scale {
            x: 1.0,
            p: 1.5,
            r: 1.0,
        },
    };
    let branch = follow(&hb, hb.linear_guess(0.5), 0.5, &settings).expect("branch");
    let last = branch.points.last().expect("points");
    assert!(
        branch.stopped.is_none() && last.p > 2.0,
        "{:?} at {}",
        branch.stopped,
        last.p
    );
    // Continuity along the branch across the onset: one-sided differences at every point
    // between 1.66 and 1.68. The Jacobian may change at the onset (a kink: an error of the
    // order of kt = 20, measured 5.4), a jump may not (it gave 1.05e-4 / h = 1e5).
    let h = 1e-9;
    for pt in branch.points.iter().filter(|p| p.p > 1.66 && p.p < 1.68) {
        let jac = hb.jacobian(&pt.x, pt.p);
        for col in 0..hb.dim() {
            let mut qp = pt.x.clone();
            qp[col] += h;
            let fwd = (hb.residual(&qp, pt.p) - hb.residual(&pt.x, pt.p)) / h;
            let err = (jac.column(col) - &fwd).amax();
            assert!(err < 50.0, "Ω = {}, column {col}: {err}", pt.p);
        }
    }
}
