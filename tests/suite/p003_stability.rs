//! Stability and bifurcations of harmonic-balance branches (issue 6): Hill's Floquet
//! multipliers against the monodromy matrix of `simulate`, period doubling on an asymmetric
//! oscillator, Neimark–Sacker on the free-play pair, symmetry-breaking branch points.

use crate::common::*;
use nalgebra::{Complex, DMatrix, DVector};
use nsd::solve::cont::{follow, Scale, Settings};
use nsd::solve::hb::{Balance, Unstable};

const MODELS: &str = "tests/models/duffing.nsd";

/// The balance at `omega` and its periodic solution (Newton from the harmonic ramp).
fn periodic(model: &str, omega: f64, h: usize) -> (Balance, DVector<f64>) {
    let sys = system_at(MODELS, model, omega);
    let hb = Balance::new(&sys, h, (8 * h + 8).next_power_of_two()).expect("balance");
    let (q, _) = hb
        .solve(hb.ramped_guess(omega), omega, 1e-12)
        .expect("converges");
    (hb, q)
}

/// The monodromy matrix of the periodic motion through `y0` by central differences
/// (δ = 1e-6) of `simulate` over one period (rtol = atol = 1e-12: entries to ~1e-6).
fn monodromy(model: &str, masses: &[&str], omega: f64, y0: &[f64], tag: &str) -> DMatrix<f64> {
    let dim = y0.len();
    let delta = 1e-6;
    let starts: Vec<Vec<f64>> = (0..dim)
        .flat_map(|j| {
            [1.0, -1.0].map(|sign| {
                let mut y = y0.to_vec();
                y[j] += sign * delta;
                y
            })
        })
        .collect();
    let period = std::f64::consts::TAU / omega;
    let ends = simulate_to(MODELS, model, masses, omega, &starts, period, tag);
    DMatrix::from_fn(dim, dim, |r, c| {
        (ends[2 * c][r] - ends[2 * c + 1][r]) / (2.0 * delta)
    })
}

/// Hill's multipliers `e^{sT}` and the monodromy's eigenvalues, each sorted by argument
/// then modulus, and the largest distance between the two lists.
fn multipliers_gap(
    hb: &Balance,
    q: &DVector<f64>,
    omega: f64,
    mono: &DMatrix<f64>,
) -> (f64, Vec<Complex<f64>>) {
    let period = std::f64::consts::TAU / omega;
    let key = |z: &Complex<f64>| (z.im.atan2(z.re) * 1e6).round() as i64;
    let mut hill: Vec<Complex<f64>> = hb
        .floquet(q, omega)
        .iter()
        .map(|s| (s * period).exp())
        .collect();
    let mut sim: Vec<Complex<f64>> = mono.complex_eigenvalues().iter().copied().collect();
    for list in [&mut hill, &mut sim] {
        list.sort_by(|a, b| key(a).cmp(&key(b)).then(a.norm().total_cmp(&b.norm())));
    }
    let gap = hill
        .iter()
        .zip(&sim)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    (gap, hill)
}

#[test]
fn hill_multipliers_are_the_monodromy_of_simulate_at_a_period_doubling() {
    // The quadratic–cubic oscillator at Ω = 2 pumps its 1/2-subharmonic: a multiplier below
    // −1 (measured −1.047974856 both ways, 3e-10 apart); at Ω = 1.9, outside the tongue, a
    // complex pair inside the unit circle (1e-10 apart).
    for (omega, outside) in [(2.0, false), (1.9, true)] {
        let (hb, q) = periodic("quadratic", omega, 8);
        let y0 = periodic_state(&q, 1, 8, omega, 0.0);
        let mono = monodromy(
            "quadratic",
            &["x"],
            omega,
            &y0,
            &format!("p003_mono_quadratic_{omega}"),
        );
        let (gap, hill) = multipliers_gap(&hb, &q, omega, &mono);
        assert!(gap < 1e-7, "Ω = {omega}: Hill {hill:?} vs monodromy {mono}");
        let worst = hill.iter().map(|z| z.norm()).fold(0.0, f64::max);
        assert_eq!(worst < 1.0, outside, "Ω = {omega}: {hill:?}");
        if !outside {
            assert!(
                hill.iter().any(|z| z.re < -1.0 && z.im.abs() < 1e-9),
                "{hill:?}"
            );
        }
    }
}

#[test]
fn hill_multipliers_are_the_monodromy_of_simulate_past_a_neimark_sacker_point() {
    // The free-play pair at Ω = 1.3 lies on the part of its branch that a Neimark–Sacker
    // point destabilises: a complex pair of modulus 1.43. The balance converges slowly in H
    // for a kinked force (6e-4 at H = 15); with H = 30 Hill and the monodromy of the
    // event-driven simulation agree to 3e-6.
    let omega = 1.3;
    let (hb, q) = periodic("two_dof_freeplay", omega, 30);
    let y0 = periodic_state(&q, 2, 30, omega, 0.0);
    let mono = monodromy(
        "two_dof_freeplay",
        &["m1", "m2"],
        omega,
        &y0,
        "p003_mono_freeplay",
    );
    let (gap, hill) = multipliers_gap(&hb, &q, omega, &mono);
    assert!(gap < 2e-5, "Hill {hill:?} vs monodromy {mono}");
    let outside: Vec<_> = hill.iter().filter(|z| z.norm() > 1.0).collect();
    assert_eq!(outside.len(), 2, "{hill:?}");
    assert!(outside[0].im.abs() > 0.1, "a complex pair: {hill:?}");
    // Along the branch from Ω = 1: a multiplier below −1 (−1.187 at 1.005, −1.073 at 1.07,
    // H = 15 and 30 alike) returns inside the unit circle near 1.08 — a period doubling —
    // and the complex pair leaves it near 1.155 (H = 9, 15 and 30): `continue frf` marks
    // exactly these two, each on the first point past it.
    let kinds = marked(
        "continue frf two_dof_freeplay as frf { param = Omega in 1.0..1.3, harmonics = 15 }",
        "p003_ns_marks",
    );
    let names: Vec<&str> = kinds.iter().map(|k| k.0.as_str()).collect();
    assert_eq!(names, ["period doubling", "Neimark-Sacker"], "{kinds:?}");
    assert!((1.07..1.11).contains(&kinds[0].1), "{kinds:?}");
    assert!((1.15..1.19).contains(&kinds[1].1), "{kinds:?}");
}

/// The kinds marked by `continue frf` (JSON summary) for `analysis` on the test models.
fn marked(analysis: &str, tag: &str) -> Vec<(String, f64)> {
    let (code, stdout, stderr, _) = frf_run(MODELS, analysis, tag);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("json")).expect("json");
    v["summary"]["bifurcations"]
        .as_array()
        .expect("bifurcations")
        .iter()
        .map(|b| {
            (
                b["kind"].as_str().expect("kind").to_string(),
                b["Omega"].as_f64().expect("Omega"),
            )
        })
        .collect()
}

#[test]
fn period_doubling_is_marked_where_the_subharmonic_tongue_begins_and_ends() {
    // Mathieu's first tongue around 2ω₀ with the pump 2 k2 |X| ≈ 0.1 and damping c = 0.02
    // spans about Ω ∈ [1.95, 2.05]; the branch is marked exactly twice, unstable between.
    let kinds = marked(
        "continue frf quadratic as frf { param = Omega in 1.9..2.1, harmonics = 8 }",
        "p003_pd_marks",
    );
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert!(
        kinds.iter().all(|(k, _)| k == "period doubling"),
        "{kinds:?}"
    );
    assert!(
        (kinds[0].1 - 1.95).abs() < 0.02 && (kinds[1].1 - 2.05).abs() < 0.02,
        "{kinds:?}"
    );
}

#[test]
fn symmetry_breaking_branch_points_are_where_the_even_harmonic_block_is_singular() {
    // The tour's free-play pair is symmetric (odd springs, a two-sided gap, one cos load):
    // its branch has only odd harmonics, and its Jacobian splits into an odd-harmonic block
    // (singular at folds) and an even-harmonic one (singular where a symmetry-breaking
    // branch bifurcates). Every branch point marked from the Hill exponents must be a sign
    // change of det(J_even) between the neighbouring points and every fold one of
    // det(J_odd) — and conversely.
    let sys = system_at("models/tour.nsd", "freeplay", 0.4);
    let h = 5;
    let hb = Balance::new(&sys, h, 64).expect("balance");
    let settings = Settings {
        range: (0.4, 1.0),
        step: 0.005,
        min_step: 1e-9,
        max_step: 0.01,
        max_points: 5000,
        tol: 1e-11,
        scale: Scale::UNIT,
    };
    let branch = follow(&hb, hb.ramped_guess(0.4), 0.4, &settings)
        .expect("branch")
        .points;
    let n = hb.dofs();
    let harmonic = |p: usize| p.div_ceil(2);
    let block = |odd: bool| -> Vec<usize> {
        (0..2 * h + 1)
            .filter(|&p| (harmonic(p) % 2 == 1) == odd)
            .flat_map(|p| (0..n).map(move |i| p * n + i))
            .collect()
    };
    let (odd, even) = (block(true), block(false));
    let sign = |j: &DMatrix<f64>, idx: &[usize]| {
        DMatrix::from_fn(idx.len(), idx.len(), |r, c| j[(idx[r], idx[c])])
            .determinant()
            .signum()
    };
    let mut last: Option<(Unstable, f64, f64)> = None;
    let (mut branch_points, mut folds) = (0, 0);
    for pt in &branch {
        let even_part = even.iter().map(|&i| pt.x[i].abs()).fold(0.0, f64::max);
        assert!(
            even_part < 1e-12,
            "the branch stays symmetric at Ω = {}",
            pt.p
        );
        let j = hb.jacobian(&pt.x, pt.p);
        let now = (
            Unstable::of(&hb.floquet(&pt.x, pt.p), pt.p, 1e-7),
            sign(&j, &odd),
            sign(&j, &even),
        );
        if let Some((before, odd_before, even_before)) = last {
            let kind = before.change_to(now.0, pt.fold);
            let (odd_flip, even_flip) = (odd_before != now.1, even_before != now.2);
            assert_eq!(
                kind == Some("branch point"),
                even_flip && !pt.fold,
                "Ω = {}: {kind:?}",
                pt.p
            );
            assert_eq!(
                pt.fold, odd_flip,
                "Ω = {}: fold by the tangent vs det(J_odd)",
                pt.p
            );
            branch_points += usize::from(kind == Some("branch point"));
            folds += usize::from(pt.fold);
        }
        last = Some(now);
    }
    assert!(
        branch_points >= 4 && folds >= 2,
        "{branch_points} branch points, {folds} folds"
    );
}

#[test]
fn a_real_multiplier_through_minus_one_is_a_period_doubling() {
    // NLvib's example 03 at H = 21: past the resonance peak the branch loses stability to one
    // real multiplier below −1 (≈ 0.739 to 0.756), which Hill's truncation splits into a
    // conjugate pair 5e-3 rad off the negative axis — once labelled Neimark–Sacker. Near
    // Ω = 0.6 a complex pair leaves the unit circle: a Neimark–Sacker point.
    let kinds = marked(
        "continue frf nlvib03 as frf { param = Omega in 0.5..0.8, harmonics = 21 }",
        "p003_nlvib03",
    );
    let crossings: Vec<(&str, f64)> = kinds
        .iter()
        .filter(|k| k.0 != "fold")
        .map(|k| (k.0.as_str(), k.1))
        .collect();
    let names: Vec<&str> = crossings.iter().map(|k| k.0).collect();
    assert_eq!(
        names,
        [
            "Neimark-Sacker",
            "Neimark-Sacker",
            "period doubling",
            "period doubling"
        ],
        "{kinds:?}"
    );
    assert!((crossings[2].1 - 0.739).abs() < 2e-3, "{kinds:?}");
    assert!((crossings[3].1 - 0.756).abs() < 2e-3, "{kinds:?}");
    // Second route: the monodromy of `simulate` over one period from the balance's orbit.
    // Between the period doublings (Ω = 0.75, upper branch) one real multiplier is below −1;
    // between the Neimark–Sacker points (Ω = 0.6) a complex pair is outside the unit circle.
    let h = 21;
    let sys = system_at(MODELS, "nlvib03", 0.5);
    let hb = Balance::new(&sys, h, 256).expect("balance");
    let settings = Settings {
        range: (0.5, 0.8),
        step: 0.01,
        min_step: 1e-7,
        max_step: 0.02,
        max_points: 2000,
        tol: 1e-12,
        scale: Scale::UNIT,
    };
    let branch = follow(&hb, hb.linear_guess(0.5), 0.5, &settings)
        .expect("branch")
        .points;
    for (omega, flip) in [(0.6, false), (0.75, true)] {
        // The first point past Ω on the way up (before the fold), corrected onto Ω.
        let near = branch
            .iter()
            .find(|p| p.p >= omega)
            .expect("the branch reaches Ω");
        let (q, _) = hb.solve(near.x.clone(), omega, 1e-12).expect("converges");
        let y0 = periodic_state(&q, 2, h, omega, 0.0);
        let mono = monodromy(
            "nlvib03",
            &["m1", "m2"],
            omega,
            &y0,
            &format!("p003_mono_nlvib03_{omega}"),
        );
        let outside: Vec<Complex<f64>> = mono
            .complex_eigenvalues()
            .iter()
            .copied()
            .filter(|z| z.norm() > 1.0)
            .collect();
        if flip {
            assert_eq!(outside.len(), 1, "{outside:?}");
            assert!(
                outside[0].re < -1.0 && outside[0].im.abs() < 1e-6,
                "{outside:?}"
            );
        } else {
            assert_eq!(outside.len(), 2, "{outside:?}");
            assert!(outside[0].im.abs() > 0.1, "a complex pair: {outside:?}");
        }
    }
}
