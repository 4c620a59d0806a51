//! Periodic orbits by shooting on the exact hybrid flow (paper 000, Sect. 5.1; issue 18):
//! the monodromy assembled from segment sensitivities and saltation matrices against central
//! differences of the simulated period map, on an impact oscillator, a free-play oscillator
//! and a stick–slip oscillator.

use crate::common;

use nalgebra::{DMatrix, DVector};
use nsd::solve::ode::Tolerances;
use nsd::solve::periodic::{multipliers, shoot};
use nsd::solve::poincare::forcing_period;

const FILE: &str = "tests/models/periodic.nsd";

/// Tight tolerances for the period map (the differences divide its error by their step).
const TIGHT: Tolerances = Tolerances {
    rtol: 1e-13,
    atol: 1e-13,
    max_step: f64::INFINITY,
};

/// The orbit of `model` at `omega` reached by a transient of `transient` periods and
/// polished by Newton with the assembled monodromy: its state at phase 0 and monodromy.
fn orbit(
    model: &str,
    omega: f64,
    transient: usize,
) -> (nsd::model::System, Vec<f64>, DMatrix<f64>) {
    let sys = common::system_at(FILE, model, omega);
    let period = forcing_period(&sys).expect("forced");
    let n2 = 2 * sys.n();
    let warm = shoot(
        &sys,
        false,
        (0.0, transient as f64 * period),
        &vec![0.0; n2],
        &TIGHT,
    )
    .expect("transient");
    let mut y = DVector::from_column_slice(warm.end());
    for _ in 0..20 {
        let shot = shoot(&sys, false, (0.0, period), y.as_slice(), &TIGHT).expect("shot");
        let r = DVector::from_column_slice(shot.end()) - &y;
        let m = shot.monodromy(&sys, false, &TIGHT).expect("monodromy");
        if r.norm() < 1e-11 {
            return (sys, y.as_slice().to_vec(), m);
        }
        let j = &m - DMatrix::identity(n2, n2);
        y -= j.lu().solve(&r).expect("regular");
    }
    panic!("{model}: no periodic orbit at Ω = {omega}");
}

/// Central differences of the simulated period map at `y`.
fn differenced(sys: &nsd::model::System, y: &[f64]) -> DMatrix<f64> {
    let period = forcing_period(sys).expect("forced");
    let n2 = y.len();
    let step = 1e-5 * y.iter().fold(1e-3, |m: f64, v| m.max(v.abs()));
    let map = |z: &[f64]| {
        DVector::from_column_slice(
            shoot(sys, false, (0.0, period), z, &TIGHT)
                .expect("shot")
                .end(),
        )
    };
    let mut m = DMatrix::zeros(n2, n2);
    for j in 0..n2 {
        let (mut up, mut down) = (y.to_vec(), y.to_vec());
        up[j] += step;
        down[j] -= step;
        m.set_column(j, &((map(&up) - map(&down)) / (2.0 * step)));
    }
    m
}

/// The assembled monodromy agrees with the differenced one, and so do the multipliers.
fn check(model: &str, omega: f64, events: &[&str]) {
    let (sys, y, m) = orbit(model, omega, 200);
    let shot = shoot(
        &sys,
        false,
        (0.0, forcing_period(&sys).expect("forced")),
        &y,
        &TIGHT,
    )
    .expect("a shot");
    let signature = shot.signature();
    for e in events {
        assert!(signature.contains(e), "{model}: {signature} lacks {e}");
    }
    let fd = differenced(&sys, &y);
    let err = (&m - &fd).norm() / fd.norm();
    let (mu, mu_fd) = (multipliers(&m), multipliers(&fd));
    println!("{model} Ω = {omega}: {signature}\n  |M − M_fd|/|M_fd| = {err:.2e}\n  μ = {mu:?}\n  μ_fd = {mu_fd:?}");
    assert!(err < 1e-6, "{model}: monodromy off by {err:e}");
    for (a, b) in mu.iter().zip(&mu_fd) {
        assert!((a - b).norm() < 1e-6, "{model}: multiplier {a} vs {b}");
    }
}

#[test]
fn impact_oscillator_monodromy_matches_differences() {
    check("impact_oscillator", 0.8, &["stop:open>open"]);
}

#[test]
fn freeplay_monodromy_matches_differences() {
    check(
        "freeplay",
        1.3,
        &["play:open>contact+", "play:contact->open"],
    );
}

/// Smoothed gaps have no switches: the whole orbit is one segment, whose sensitivity comes
/// from the exact linearisation (the sigmoid's slope) at 100× the orbit's tolerances.
#[test]
fn smoothed_freeplay_monodromy_matches_differences() {
    check("freeplay_sigmoid", 1.3, &[]);
}

#[test]
fn stick_slip_monodromy_matches_differences() {
    check("stick_slip", 0.5, &["dry:slip+>stick", "dry:stick>"]);
}

/// The Budd–Dux (1, 1) orbit in closed form: `ẍ + 2ζẋ + x = cos Ωt` with one impact per
/// period at `x = s`, approach velocity `V`, at the forcing phase `θ = Ωt mod 2π`. Between
/// impacts the motion is the steady response plus a free decay; periodicity of the free part
/// over `T` with the jump `v → −eV` gives `V` linear in `(cos θ, sin θ)` and one equation
/// `c₀ + c₁ cos θ + c₂ sin θ = 0`. Returns each admissible `(θ, V, μ₁, μ₂)` with the
/// multipliers of `S Φ(T)` (the impact's saltation matrix times the free flow).
struct BuddDux {
    s: f64,
    e: f64,
    zeta: f64,
}

impl BuddDux {
    const PAPER: BuddDux = BuddDux {
        s: 0.1,
        e: 0.8,
        zeta: 0.05,
    };

    /// The free flow over one period, `Φ(T)`, and the steady response's `(A, B)`.
    fn flow(&self, w: f64) -> ([[f64; 2]; 2], f64, f64) {
        let z = self.zeta;
        let d = (1.0 - w * w).powi(2) + (2.0 * z * w).powi(2);
        let (a, b) = ((1.0 - w * w) / d, 2.0 * z * w / d);
        let t = 2.0 * std::f64::consts::PI / w;
        let wd = (1.0 - z * z).sqrt();
        let (ex, c, sn) = ((-z * t).exp(), (wd * t).cos(), (wd * t).sin());
        let phi = [
            [ex * (c + z / wd * sn), ex * sn / wd],
            [-ex * sn / wd, ex * (c - z / wd * sn)],
        ];
        (phi, a, b)
    }

    /// `(residual, V)` at the phase `θ`.
    fn at(&self, w: f64, th: f64) -> (f64, f64) {
        let (p, a, b) = self.flow(w);
        let xp = a * th.cos() + b * th.sin();
        let vp = w * (-a * th.sin() + b * th.cos());
        let u = self.s - xp;
        let h1 = (1.0 - p[0][0]) * u / p[0][1];
        let v = -(vp + h1) / self.e;
        (p[1][0] * u + p[1][1] * h1 - v + vp, v)
    }

    fn orbits(&self, w: f64) -> Vec<(f64, f64, f64)> {
        let r = |th: f64| self.at(w, th).0;
        let (r0, r1, r2) = (
            r(0.0),
            r(std::f64::consts::FRAC_PI_2),
            r(std::f64::consts::PI),
        );
        let (c0, c1) = ((r0 + r2) / 2.0, (r0 - r2) / 2.0);
        let c2 = r1 - c0;
        let amp = c1.hypot(c2);
        if c0.abs() > amp {
            return vec![];
        }
        let (base, d) = (c2.atan2(c1), (-c0 / amp).acos());
        [base + d, base - d]
            .into_iter()
            .map(|th| th.rem_euclid(2.0 * std::f64::consts::PI))
            .filter_map(|th| {
                let v = self.at(w, th).1;
                (v > 0.0).then(|| (th, v, self.pd_test(w, th, v)))
            })
            .collect()
    }

    /// `1 + tr M + det M`: zero where a multiplier passes −1.
    fn pd_test(&self, w: f64, th: f64, v: f64) -> f64 {
        let (p, _, _) = self.flow(w);
        let (e, z, s) = (self.e, self.zeta, self.s);
        let (am, ap) = (th.cos() - 2.0 * z * v - s, th.cos() + 2.0 * z * e * v - s);
        let s21 = (ap + e * am) / v;
        let m = [
            [-e * p[0][0], -e * p[0][1]],
            [s21 * p[0][0] - e * p[1][0], s21 * p[0][1] - e * p[1][1]],
        ];
        1.0 + m[0][0] + m[1][1] + m[0][0] * m[1][1] - m[0][1] * m[1][0]
    }

    /// The period-doubling frequency in `(lo, hi)` by bisection on `pd_test`.
    fn period_doubling(&self, (mut lo, mut hi): (f64, f64)) -> f64 {
        let f = |w: f64| self.orbits(w)[0].2;
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if f(mid) * f(lo) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// The grazing frequency: the steady amplitude `1/√D` equals `s` (above resonance).
    fn grazing(&self) -> f64 {
        let z = self.zeta;
        // (1 − u)² + 4ζ²u = 1/s², u = Ω².
        let b = 2.0 - 4.0 * z * z;
        let c = 1.0 - 1.0 / (self.s * self.s);
        ((b + (b * b - 4.0 * c).sqrt()) / 2.0).sqrt()
    }
}

/// The (1, 1) orbit along the branch from Ω = 2.1 to 3.2, by single or by multiple
/// shooting (one segment: the impact is the orbit's only switch), against the closed form:
/// phase and impact velocity to 1e-9 (measured: single 3.2e-11 rad and 5.6e-10, multiple
/// 8.0e-11 rad and 9.1e-10 — an absolute 2.7e-11 on the impact velocity of 0.03 at
/// Ω = 3.09, which vanishes at the grazing).
fn budd_dux_along_the_branch(multiple_shooting: bool) {
    use nsd::solve::cont::{follow, Scale, Settings};
    use nsd::solve::periodic::multiple;
    use nsd::solve::periodic::shooting::Shooting;
    let tol = Tolerances {
        rtol: 1e-12,
        atol: 1e-12,
        max_step: f64::INFINITY,
    };
    let system_at = |p: f64| Ok(common::system_at(FILE, "budd_dux", p));
    let shooting = Shooting::new(&system_at, 2, 1, false, tol);
    let start = common::system_at(FILE, "budd_dux", 2.1);
    let period = forcing_period(&start).expect("forced");
    let warm = shoot(&start, false, (0.0, 300.0 * period), &[0.0, 0.0], &tol).expect("transient");
    let settings = Settings {
        range: (2.1, 3.2),
        step: 0.01,
        min_step: 1e-8,
        max_step: 0.05,
        max_points: 500,
        tol: 1e-10,
        scale: Scale::UNIT,
    };
    let x0 = DVector::from_column_slice(warm.end());
    let branch = if multiple_shooting {
        multiple::part(&shooting, &x0, 2.1, &settings).expect("a branch")
    } else {
        follow(&shooting, x0, 2.1, &settings).expect("a branch")
    };
    assert!(branch.points.len() > 10 && branch.points.last().expect("points").p > 3.19);
    let mut worst: (f64, f64) = (0.0, 0.0);
    // The points in the range (the last one leaves it by up to a step, towards the grazing
    // at 3.31 where the impact velocity and its relative accuracy vanish).
    for pt in branch.points.iter().filter(|pt| pt.p <= settings.range.1) {
        let e = shooting.evaluate(&pt.x, pt.p).expect("an orbit");
        let impacts: Vec<_> = e
            .shot
            .traj
            .events
            .iter()
            .filter(|e| e.kind == "impact")
            .collect();
        assert_eq!(impacts.len(), 1, "one impact per period at Ω = {}", pt.p);
        let theta = (pt.p * impacts[0].t).rem_euclid(2.0 * std::f64::consts::PI);
        let [(th, v, _)] = BuddDux::PAPER.orbits(pt.p)[..] else {
            panic!("one closed-form orbit at Ω = {}", pt.p);
        };
        worst.0 = worst.0.max((theta - th).abs());
        worst.1 = worst.1.max((impacts[0].velocity - v).abs() / v);
    }
    println!(
        "{} points, worst phase error {:.2e} rad, velocity {:.2e}",
        branch.points.len(),
        worst.0,
        worst.1
    );
    assert!(worst.0 < 1e-9 && worst.1 < 1e-9, "{worst:?}");
}

#[test]
fn budd_dux_orbit_matches_its_closed_form_along_the_branch() {
    budd_dux_along_the_branch(false);
}

#[test]
fn budd_dux_orbit_by_multiple_shooting_matches_its_closed_form() {
    budd_dux_along_the_branch(true);
}

#[test]
fn budd_dux_period_doubling_and_grazing_are_located() {
    let v = common::run_json(
        &format!(
            "import \"{}/{FILE}\"\ncontinue periodic budd_dux as bd {{ param = Omega in 2.1..3.6 }}\n",
            common::root().display()
        ),
        "periodic_budd_dux",
        &[],
    );
    let s = &v[0]["summary"];
    let pd = &s["bifurcations"][0];
    assert_eq!(pd["kind"], "period_doubling", "{s}");
    let expected = BuddDux::PAPER.period_doubling((2.3, 2.6));
    let got = pd["Omega"].as_f64().expect("Omega");
    println!("period doubling at Ω = {got} (closed form {expected})");
    assert!(
        (got - expected).abs() < 1e-9 * expected,
        "{got} vs {expected}"
    );
    let graze = s["grazings"][0]["Omega"].as_f64().expect("a grazing");
    let expected = BuddDux::PAPER.grazing();
    println!("grazing at Ω = {graze} (closed form {expected})");
    // Located where the orbit on the far side starts to touch the stop: measured 5e-7 from
    // the closed form (the tiny excursion past the stop just below it is what decides).
    assert!(
        (graze - expected).abs() < 1e-6 * expected,
        "{graze} vs {expected}"
    );
    // Past the grazing the orbit is the linear steady state, stable.
    assert_eq!(s["last"]["stable"], true);
}

/// The free-play model's period-1 branch from its harmonic-balance orbit: shooting and
/// `continue frf` (H = 25) find the same folds and Neimark–Sacker points (1e-3 asked,
/// 1e-7 measured) with the same amplitudes there (1e-4 asked, the truncation error of H = 25;
/// 1.5e-5 measured), its stability changes lie on |μ| = 1, and the exact branch continues
/// through the two grazings of the gap.
#[test]
fn freeplay_branch_matches_harmonic_balance() {
    let text = format!(
        "import \"{}/models/seed0/two_mass_freeplay.nsd\"\n\
         continue periodic two_mass_freeplay as shooting {{ param = Omega in 1.1..1.45, start = harmonic_balance }}\n\
         continue frf two_mass_freeplay as hb {{ param = Omega in 1.1..1.45, harmonics = 25 }}\n",
        common::root().display()
    );
    let v = common::run_json(&text, "periodic_freeplay_vs_hb", &[]);
    let (shooting, hb) = (&v[0]["summary"], &v[1]["summary"]);
    let points = |s: &serde_json::Value, kinds: &[&str]| -> Vec<(f64, f64)> {
        s["bifurcations"]
            .as_array()
            .expect("bifurcations")
            .iter()
            .filter(|b| kinds.contains(&b["kind"].as_str().unwrap_or("")))
            .map(|b| {
                (
                    b["Omega"].as_f64().expect("Ω"),
                    b["amplitude"].as_f64().expect("A"),
                )
            })
            .collect()
    };
    for (ours, theirs) in [
        (&["fold"][..], &["fold"][..]),
        (&["neimark_sacker"][..], &["Neimark-Sacker"][..]),
    ] {
        let (a, b) = (points(shooting, ours), points(hb, theirs));
        assert!(!a.is_empty() && a.len() == b.len(), "{a:?} vs {b:?}");
        for (x, y) in a.iter().zip(&b) {
            println!(
                "{ours:?}: Ω {} vs {}, amplitude {} vs {}",
                x.0, y.0, x.1, y.1
            );
            assert!((x.0 - y.0).abs() < 1e-3 * y.0, "{x:?} vs {y:?}");
            assert!((x.1 - y.1).abs() < 1e-4 * y.1, "{x:?} vs {y:?}");
        }
    }
    // Every change of stability is located where its multiplier is on the unit circle (it
    // was placed at |μ| = 1 + 1e-6, 7e-8 off in Ω): measured within 1e-12.
    let data = std::fs::read_to_string(
        common::root().join("target/test-out/periodic_freeplay_vs_hb/shooting/data.csv"),
    )
    .expect("data.csv");
    let header: Vec<&str> = data.lines().next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let mut located = 0;
    for row in data
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
    {
        if !["fold", "neimark_sacker", "period_doubling"].contains(&row[col("point")]) {
            continue;
        }
        let nearest = (1..=4)
            .map(|k| {
                let re: f64 = row[col(&format!("mu{k}_re"))].parse().expect("re");
                let im: f64 = row[col(&format!("mu{k}_im"))].parse().expect("im");
                (re.hypot(im) - 1.0).abs()
            })
            .fold(f64::INFINITY, f64::min);
        assert!(nearest < 1e-9, "|μ| − 1 = {nearest:e} at {row:?}");
        located += 1;
    }
    assert_eq!(located, 4, "{data}");
    let grazings = shooting["grazings"].as_array().expect("grazings");
    assert!(grazings.len() >= 2, "{shooting}");
    for g in grazings {
        let a = g["amplitude"].as_f64().expect("amplitude");
        assert!(
            (a - 0.05).abs() < 1e-5,
            "a grazing touches the clearance a = 0.05: {g}"
        );
    }
}

/// At the Budd–Dux period doubling the analysis switches onto the doubled branch: it starts
/// at the doubling, has twice the forcing period, is stable just past it (the doubling is
/// supercritical), and doubles again further on (the cascade of the impact oscillator).
#[test]
fn budd_dux_switches_onto_the_doubled_branch() {
    let v = common::run_json(
        &format!(
            "import \"{}/{FILE}\"\ncontinue periodic budd_dux as bd {{ param = Omega in 2.1..3.0 }}\n",
            common::root().display()
        ),
        "periodic_budd_dux_doubled",
        &[],
    );
    let s = &v[0]["summary"];
    let pd = s["bifurcations"][0]["Omega"]
        .as_f64()
        .expect("a period doubling");
    let doubled = &s["doubled"][0];
    let first = &doubled["first"];
    let omega = first["Omega"].as_f64().expect("Ω");
    println!("doubled branch from Ω = {omega} (doubling at {pd}): {doubled}");
    assert!((omega - pd).abs() < 1e-3, "{omega} vs {pd}");
    let period = 2.0 * 2.0 * std::f64::consts::PI / omega;
    assert!((first["period"].as_f64().expect("period") - period).abs() < 1e-9 * period);
    assert_eq!(first["stable"], true, "{doubled}");
    assert_eq!(
        doubled["bifurcations"][0]["kind"], "period_doubling",
        "{doubled}"
    );
}

/// Paper 000, Sect. 5.1 (Fig. 15): the smoothed branch's amplitudes are larger than the exact
/// ones, most where the orbit grazes the clearance — there the smoothing error reaches the
/// orbit, within the radius of influence (Sect. 3.3: R_i = 0.0017 for δ = 1500). Measured on
/// Ω = 1.262..1.29 around the second grazing (Ω = 1.27284): smoothed − exact ≈ 1e-14 well
/// inside the clearance, 1.3e-4 just past the grazing, 5e-5 at Ω = 1.29; the harmonic balance
/// (H = 25) within 4e-5 of the exact branch.
#[test]
fn smoothed_branch_exceeds_the_exact_one_near_grazing() {
    let text = format!(
        "import \"{}/models/seed0/two_mass_freeplay.nsd\"\n\
         continue periodic two_mass_freeplay as cmp {{ param = Omega in 1.262..1.29, start = harmonic_balance,\n\
           compare = (two_mass_freeplay_sigmoid, harmonic_balance) }}\n",
        common::root().display()
    );
    let v = common::run_json(&text, "periodic_compare", &[]);
    let summary = &v[0]["summary"];
    let dir = common::root().join("target/test-out/periodic_compare/cmp");
    let (header, rows) = common::read_csv(&dir.join("data.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (p, a, point) = (col("Omega"), col("max|m1.x|"), col("point"));
    // Branch points only (special points repeat located orbits; their `point` is text).
    let exact: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r[0] == 0.0 && r[point].is_nan() && (1.262..=1.29).contains(&r[p]))
        .map(|r| (r[p], r[a]))
        .collect();
    let compared = std::fs::read_to_string(dir.join("compare.csv")).expect("compare.csv");
    let curve = |key: &str| -> Vec<(f64, f64)> {
        compared
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|c| c[0] == key)
            .map(|c| (c[1].parse().expect("Ω"), c[2].parse().expect("A")))
            .collect()
    };
    let (smooth, hb) = (
        curve("two_mass_freeplay_sigmoid"),
        curve("harmonic_balance"),
    );
    assert!(smooth.len() > 20 && hb.len() > 10, "{compared}");
    // The curve's value at Ω (no fold in this range: one crossing).
    let at = |c: &[(f64, f64)], w: f64| -> f64 {
        c.windows(2)
            .find(|s| s[0].0.min(s[1].0) <= w && w <= s[0].0.max(s[1].0))
            .map(|s| s[0].1 + (s[1].1 - s[0].1) * (w - s[0].0) / (s[1].0 - s[0].0))
            .expect("inside the compared branch")
    };
    let graze = summary["grazings"][0]["Omega"].as_f64().expect("a grazing");
    assert!((graze - 1.27284).abs() < 1e-4, "{summary}");
    let mut near = 0.0f64;
    for &(w, amp) in &exact {
        let d = at(&smooth, w) - amp;
        assert!(d > -1e-9, "smoothed below exact at Ω = {w}: {d:e}");
        if amp > 0.05 {
            assert!(
                d > 1e-5,
                "in contact the smoothed orbit is larger: Ω = {w}, {d:e}"
            );
        }
        if (graze..graze + 0.004).contains(&w) {
            near = near.max(d);
        }
        let e = (at(&hb, w) - amp).abs();
        assert!(e < 1e-4, "harmonic balance at Ω = {w}: {e:e}");
    }
    let (w_end, a_end) = *exact.last().expect("points");
    let far = at(&smooth, w_end) - a_end;
    println!("near grazing {near:e}, at Ω = {w_end}: {far:e}");
    assert!(
        near > 2.0 * far,
        "largest near grazing: {near:e} vs {far:e}"
    );
    let r = summary["radius_of_influence"][0]["radius"]
        .as_f64()
        .expect("R_i");
    assert!((r - 0.0017).abs() < 5e-5, "R_i = {r} (paper: 0.0017)");
    assert!(dir.join("periodic.svg").exists() && dir.join("periodic.png").exists());
}

/// `compare` names models of the program (or `harmonic_balance`): an unknown name is a coded
/// diagnostic at its place, before anything is integrated.
#[test]
fn compare_refuses_an_unknown_model() {
    let text = format!(
        "import \"{}/models/seed0/two_mass_freeplay.nsd\"\n\
         continue periodic two_mass_freeplay as cmp {{ param = Omega in 1.2..1.3, compare = (two_mass_freeplay_sigmod) }}\n",
        common::root().display()
    );
    let (code, _, stderr, _) = common::run_text(&text, "periodic_compare_unknown", &[]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("nsd::analysis::bad_option")
            && stderr.contains("no model `two_mass_freeplay_sigmod`"),
        "{stderr}"
    );
}

/// Shooting a 1,000-DOF model would integrate 4e6 sensitivities per orbit: refused at once,
/// pointing at `continue frf`, instead of running for hours.
#[test]
fn a_thousand_dof_model_is_refused_at_once() {
    let text = "import \"chain.nsd\"\n\
        model big {\n  param n = 1000, Omega = 1.3\n  use chain as c(n = n, m = 1 / n, k = n)\n\
          gap stop: c.x[n] -- ground { clearance = 0.05, sides = both, law = linear(10 * n) }\n\
          force c.x[n] = 0.1 * cos(Omega * t)\n}\n\
        continue periodic big as big { param = Omega in 1.2..1.3 }\n";
    let started = std::time::Instant::now();
    let (code, _, stderr, _) = common::run_text(text, "periodic_too_big", &[]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("nsd::analysis::unsupported") && stderr.contains("continue frf"),
        "{stderr}"
    );
    assert!(
        started.elapsed().as_secs_f64() < 5.0,
        "refused before integrating"
    );
}
