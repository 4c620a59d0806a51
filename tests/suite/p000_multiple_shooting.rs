//! Multiple shooting with one segment per mode (paper 000, Appendix A; issue 18): the
//! residual's exact Jacobian against central differences, and its orbits and multipliers
//! against single shooting's, on an impact oscillator, a free-play oscillator and a
//! stick–slip oscillator.

use crate::common;

use nalgebra::{DMatrix, DVector};
use nsd::solve::cont::Problem;
use nsd::solve::ode::Tolerances;
use nsd::solve::periodic::multiple::MultipleShooting;
use nsd::solve::periodic::shoot;
use nsd::solve::poincare::forcing_period;

const FILE: &str = "tests/models/periodic.nsd";

const TIGHT: Tolerances = Tolerances {
    rtol: 1e-12,
    atol: 1e-12,
    max_step: f64::INFINITY,
};

/// The state at phase 0 after `transient` forcing periods from rest.
fn settled(model: &str, omega: f64, transient: usize) -> Vec<f64> {
    let sys = common::system_at(FILE, model, omega);
    let period = forcing_period(&sys).expect("forced");
    let n2 = 2 * sys.n();
    shoot(
        &sys,
        false,
        (0.0, transient as f64 * period),
        &vec![0.0; n2],
        &TIGHT,
    )
    .expect("transient")
    .end()
    .to_vec()
}

/// Central differences of the residual in the unknowns.
fn differenced(pr: &MultipleShooting, u: &DVector<f64>, p: f64) -> DMatrix<f64> {
    let n = u.len();
    let mut m = DMatrix::zeros(n, n);
    for j in 0..n {
        let step = 1e-6 * u[j].abs().max(1e-2);
        let (mut up, mut down) = (u.clone(), u.clone());
        up[j] += step;
        down[j] -= step;
        m.set_column(
            j,
            &((pr.residual(&up, p) - pr.residual(&down, p)) / (2.0 * step)),
        );
    }
    m
}

fn jacobian_check(model: &str, omega: f64) {
    let y0 = settled(model, omega, 200);
    let system_at = |p: f64| Ok(common::system_at(FILE, model, p));
    let (pr, u) =
        MultipleShooting::from_run(&system_at, 1, false, TIGHT, &y0, omega).expect("a signature");
    let j = pr.jacobian(&u, omega);
    let fd = differenced(&pr, &u, omega);
    let err = (&j - &fd).norm() / fd.norm();
    println!(
        "{model}: {} segments, |R| = {:.2e}, |J − J_fd|/|J_fd| = {err:.2e}",
        pr.segments(),
        pr.residual(&u, omega).norm()
    );
    assert!(pr.segments() > 1, "{model}: one segment");
    assert!(err < 1e-6, "{model}: Jacobian off by {err:e}\n{j}\n{fd}");
}

#[test]
fn freeplay_jacobian_matches_differences() {
    jacobian_check("freeplay", 1.3);
}

#[test]
fn impact_oscillator_jacobian_matches_differences() {
    jacobian_check("impact_oscillator", 0.8);
}

#[test]
fn stick_slip_jacobian_matches_differences() {
    jacobian_check("stick_slip", 0.5);
}

/// Newton on the segments converges to the orbit single shooting finds: the states at phase 0
/// agree to 1e-9 of the orbit's size.
fn same_orbit(model: &str, omega: f64) {
    use nsd::solve::cont::newton;
    use nsd::solve::periodic::shooting::Shooting;
    let y0 = settled(model, omega, 200);
    let system_at = |p: f64| Ok(common::system_at(FILE, model, p));
    let single = Shooting::new(&system_at, y0.len(), 1, false, TIGHT);
    let (x, _) = newton(&single, DVector::from_vec(y0.clone()), omega, 1e-11).expect("single");
    let (pr, u) =
        MultipleShooting::from_run(&system_at, 1, false, TIGHT, &y0, omega).expect("a signature");
    let (u, _) = newton(&pr, u, omega, 1e-11).expect("multiple");
    assert!(
        pr.admissible(&u, omega),
        "{model}: the orbit switches otherwise"
    );
    let (y, _) = pr.section(&u, omega).expect("the state at phase 0");
    let err = (&y - &x).amax() / x.amax();
    println!(
        "{model}: {} segments, |y − y_single|/|y| = {err:.2e}",
        pr.segments()
    );
    assert!(err < 1e-9, "{model}: {y} vs {x}");
}

#[test]
fn freeplay_orbit_matches_single_shooting() {
    same_orbit("freeplay", 1.3);
}

#[test]
fn impact_oscillator_orbit_matches_single_shooting() {
    same_orbit("impact_oscillator", 0.8);
}

#[test]
fn stick_slip_orbit_matches_single_shooting() {
    same_orbit("stick_slip", 0.5);
}

/// The free-play main branch by multiple shooting (`shooting = multiple`) passes both
/// grazings by re-segmenting, and finds single shooting's folds and Neimark–Sacker points
/// and grazings (measured: 1e-10 in Ω and 2.3e-9 for the first grazing); it also locates
/// the branch point on the unstable middle branch (Ω ≈ 1.20174, a real multiplier through
/// +1 without a fold) that single shooting's bisection misses there.
#[test]
fn freeplay_branch_by_multiple_shooting_matches_single_shooting() {
    let text = format!(
        "import \"{}/models/seed0/two_mass_freeplay.nsd\"\n\
         continue periodic two_mass_freeplay as single {{ param = Omega in 1.1..1.45, start = harmonic_balance }}\n\
         continue periodic two_mass_freeplay as multiple {{ param = Omega in 1.1..1.45, start = harmonic_balance, shooting = multiple }}\n",
        common::root().display()
    );
    let v = common::run_json(&text, "p000_multiple_shooting", &[]);
    let (single, multiple) = (&v[0]["summary"], &v[1]["summary"]);
    let omegas = |s: &serde_json::Value, key: &str, kind: Option<&str>| -> Vec<f64> {
        s[key]
            .as_array()
            .expect("a list")
            .iter()
            .filter(|b| kind.is_none_or(|k| b["kind"] != k))
            .map(|b| b["Omega"].as_f64().expect("Omega"))
            .collect()
    };
    let (bs, bm) = (
        omegas(single, "bifurcations", Some("branch_point")),
        omegas(multiple, "bifurcations", Some("branch_point")),
    );
    println!("single {bs:?}\nmultiple {bm:?}");
    assert_eq!(bs.len(), 4, "{single}");
    assert_eq!(bm.len(), bs.len(), "{multiple}");
    for (a, b) in bs.iter().zip(&bm) {
        assert!((a - b).abs() < 1e-8, "{a} vs {b}");
    }
    let (gs, gm) = (
        omegas(single, "grazings", None),
        omegas(multiple, "grazings", None),
    );
    println!("grazings: single {gs:?}, multiple {gm:?}");
    assert_eq!(gm.len(), 2, "{multiple}");
    for (a, b) in gs.iter().zip(&gm) {
        assert!((a - b).abs() < 1e-8, "{a} vs {b}");
    }
    let points = |s: &serde_json::Value| s["last"]["Omega"].as_f64().expect("last");
    assert!(points(multiple) > 1.45, "{multiple}");
}
