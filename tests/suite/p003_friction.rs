//! Paper 003 friction contacts in `continue frf`: the exact contact element in the harmonic
//! balance on the cantilever with a pad (Sect. 5.1) and the blade–damper–blade model
//! (Sect. 5.2) — the low- and high-excitation limits of their frequency responses.

use crate::common::*;
use serde_json::Value;

/// Runs `analyses` appended to a seed-3 model (its own analyses and expectations dropped) and
/// returns their JSON lines.
fn frf(model: &str, analyses: &str, tag: &str) -> Vec<Value> {
    let dir = root().join("target/test-out/p003_friction").join(tag);
    std::fs::create_dir_all(&dir).expect("dir");
    let text =
        std::fs::read_to_string(root().join(format!("models/seed3/{model}.nsd"))).expect("model");
    // The file up to the end of its model: its own analyses and expectations dropped.
    let end = text.find("\n}\n").expect("a model block") + 3;
    let own = &text[..end];
    let path = root().join("models/seed3").join(format!(".{tag}.nsd"));
    std::fs::write(&path, format!("{own}\n{analyses}\n")).expect("write");
    let (code, stdout, stderr) = nsd(&[
        "run",
        path.to_str().expect("utf-8"),
        "--json",
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0, "{stderr}");
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

fn peak(v: &Value) -> (f64, f64) {
    let p = &v["summary"]["peak"];
    (
        p["Omega"].as_f64().expect("Omega"),
        p["amplitude"].as_f64().expect("amplitude"),
    )
}

fn first_mode(model: &str, stuck: bool) -> f64 {
    let name = if stuck { "stuck_modes" } else { "modes" };
    let (code, stdout, stderr) = nsd(&[
        "run",
        &format!("models/seed3/{model}.nsd"),
        "--only",
        name,
        "--json",
        "--out",
        root()
            .join(format!("target/test-out/p003_friction/modes_{model}"))
            .to_str()
            .expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .find(|v| v["name"] == name)
        .expect("modes");
    v["summary"]["natural_frequencies"][0].as_f64().expect("ω1")
}

#[test]
fn cantilever_peak_is_stuck_at_low_and_free_at_high_excitation() {
    let (stuck, free) = (
        first_mode("cantilever_pad", true),
        first_mode("cantilever_pad", false),
    );
    let tip = "dof = \"beam.b[20].y\", harmonics = 1";
    let out = frf(
        "cantilever_pad",
        &format!(
            "continue frf cantilever_pad as low1 {{ param = Omega in 7000..7250, excitation = 1e-3, max_step = 20, {tip} }}\n\
             continue frf cantilever_pad as low2 {{ param = Omega in 7000..7250, excitation = 1e-4, max_step = 20, {tip} }}\n\
             continue frf cantilever_pad as high {{ param = Omega in 1250..1380, excitation = 1e3, max_step = 10, {tip} }}"
        ),
        "cantilever",
    );
    let ((w1, a1), (w2, a2), (wh, _)) = (peak(&out[0]), peak(&out[1]), peak(&out[2]));
    // Stuck (kt = 2e8 N/m at the pad, 12 N slip force far away): the linear peak, whose
    // damping shift (ζ ≈ 0.4 %) is ~1e-5 of ω; the response is linear in the level.
    assert!(
        (w1 - stuck).abs() < 1e-4 * stuck,
        "low peak {w1} vs stuck {stuck}"
    );
    assert!(
        (w1 - w2).abs() < 1e-4 * stuck && (a1 / a2 - 10.0).abs() < 1e-3,
        "linear: {a1} / {a2}"
    );
    // At 1 kN the 12 N of friction hardly matter: the free beam's first resonance.
    assert!(
        (wh - free).abs() < 2e-4 * free,
        "high peak {wh} vs free {free}"
    );
    for v in &out {
        assert!(v["summary"].get("failed").is_none(), "{v}");
    }
}

#[test]
fn blade_damper_blade_peak_is_stuck_at_low_excitation_and_level_free_at_high() {
    let (stuck, free) = (
        first_mode("blade_damper_blade", true),
        first_mode("blade_damper_blade", false),
    );
    let common = "param = Omega in 1150..1450, harmonics = 1, dof = \"s.platform_r.x\"";
    let out = frf(
        "blade_damper_blade",
        &format!(
            "continue frf blade_damper_blade as low1 {{ {common}, excitation = 1e-2 }}\n\
             continue frf blade_damper_blade as low2 {{ {common}, excitation = 1e-3 }}\n\
             continue frf blade_damper_blade as high1 {{ {common}, excitation = 1e5 }}\n\
             continue frf blade_damper_blade as high2 {{ {common}, excitation = 1e7 }}"
        ),
        "blade",
    );
    let p: Vec<(f64, f64)> = out.iter().map(peak).collect();
    // Stuck: the peak of the two close stuck bending modes (1280 and 1328 rad/s; damping
    // ζ ≈ 1 % and the second mode pull it by 0.2 %), linear in the level.
    assert!(
        (p[0].0 - stuck).abs() < 3e-3 * stuck,
        "low peak {} vs stuck {stuck}",
        p[0].0
    );
    assert!((p[0].0 - p[1].0).abs() < 1e-6 * stuck && (p[0].1 / p[1].1 - 10.0).abs() < 1e-6);
    // Driven hard, preload and friction vanish against the motion: the response becomes
    // homogeneous (peak frequency independent of the level), with the normal springs acting
    // only while compressed — between the free (1228) and stuck (1280) first modes.
    assert!(
        (p[2].0 - p[3].0).abs() < 1e-4 * free,
        "{} vs {}",
        p[2].0,
        p[3].0
    );
    assert!(
        (p[3].1 / p[2].1 - 100.0).abs() < 0.1,
        "amplitude ∝ level: {}",
        p[3].1 / p[2].1
    );
    assert!(
        p[3].0 > free && p[3].0 < stuck,
        "high peak {} in ({free}, {stuck})",
        p[3].0
    );
}

/// The cantilever with a pad, assembled.
fn cantilever() -> nsd::model::System {
    let prog =
        nsd::lang::Program::load(&root().join("models/seed3/cantilever_pad.nsd")).expect("loads");
    nsd::model::assemble(&nsd::lang::resolve(&prog, "cantilever_pad", &[]).expect("resolves"))
}

#[test]
fn condensation_onto_the_contact_is_exact() {
    use nsd::solve::cont::Problem;
    use nsd::solve::hb::Balance;
    use nsd::solve::hb::Condensed;
    for (harmonics, level, omega) in [(1, 30.0, 1300.0), (3, 30.0, 1290.0)] {
        let (sys, h) = (cantilever(), harmonics);
        let mut hb = Balance::new(&sys, h, 64).expect("balance");
        hb.level = level;
        let c = Condensed::new(&hb).expect("one contact DOF of 40");
        assert_eq!(c.dim(), 2 * h + 1);
        // Newton on the condensed problem, expanded, is the full solution: the full
        // residual vanishes to round-off of its terms.
        let mut qc = c.restrict(&hb.free_guess(omega));
        for _ in 0..40 {
            let step = c
                .jacobian(&qc, omega)
                .lu()
                .solve(&c.residual(&qc, omega))
                .expect("regular");
            qc -= &step;
            if step.norm() <= 1e-14 * qc.norm() {
                break;
            }
        }
        let q = c.expand(&qc, omega);
        // The size of the cancelling terms Σ_j |D_ij q_j|.
        let scale = (hb.dynamic_stiffness(omega).abs() * q.abs()).amax();
        let full = hb.residual(&q, omega).amax();
        assert!(
            full < 1e-12 * scale,
            "H = {h}: full residual {full:e} of {scale:e}"
        );
        // ∂R_c/∂ω against a central difference (a step of 1e-5 ω: smaller ones drown in the
        // round-off of the residual's cancelling 1e9 N/m terms).
        let dw = 1e-5 * omega;
        let fd = (c.residual(&qc, omega + dw) - c.residual(&qc, omega - dw)) / (2.0 * dw);
        let an = c.param_derivative(&qc, omega);
        assert!(
            (&fd - &an).amax() < 1e-6 * an.amax(),
            "H = {h}: {fd} vs {an}"
        );
        // Rayleigh damping: the modal sums serve; they equal the factorised blocks.
        assert!(c.is_modal());
        let f = Condensed::factorised(&hb).expect("factorised");
        // Agreement relative to the size of the terms: both routes carry the beam's
        // conditioning (ω_max²/ω_1² ~ 1e8 times ε); measured ≤ 4e-9.
        let close =
            |a: &nalgebra::DMatrix<f64>, b: &nalgebra::DMatrix<f64>, size: f64, what: &str| {
                assert!((a - b).amax() <= 1e-7 * size, "H = {h}, {what}: {a} vs {b}");
            };
        let column = |v: nalgebra::DVector<f64>| {
            nalgebra::DMatrix::from_column_slice(v.len(), 1, v.as_slice())
        };
        // (Off the solution, where the residual is not round-off.)
        let off = &qc * 1.1;
        let jac = f.jacobian(&off, omega);
        let terms = (jac.abs() * off.abs()).amax();
        close(&c.jacobian(&off, omega), &jac, jac.amax(), "S + J");
        close(
            &column(c.residual(&off, omega)),
            &column(f.residual(&off, omega)),
            terms,
            "residual",
        );
        let rate = f.param_derivative(&off, omega);
        close(
            &column(c.param_derivative(&off, omega)),
            &column(rate.clone()),
            rate.amax(),
            "dR/dω",
        );
        let full = f.expand(&qc, omega);
        close(
            &column(c.expand(&qc, omega)),
            &column(full.clone()),
            full.amax(),
            "expansion",
        );
    }
}

/// The stdlib's `underplatform_damper` between two lumped platforms is the blade–damper–blade
/// model (its damper numbered after the platforms): the same stuck and free modes and the same
/// partially slipping response peak at H = 5, to round-off (measured 2e-15 and 1.3e-15).
#[test]
fn the_underplatform_damper_component_rebuilds_blade_damper_blade() {
    let text = "import \"blade_damper.nsd\"\nimport \"underplatform_damper.nsd\"\n\
        model original(f = 1, Omega = 2000) {\n  use blade_damper as s()\n\
          damping rayleigh { beta = 1.5e-5 }\n  force s.platform_l.x = f * cos(Omega * t)\n}\n\
        model rebuilt(f = 1, Omega = 2000) {\n\
          mass blade_l = 0.1\n  mass platform_l = 0.1 { dofs = (x, y) }\n\
          mass platform_r = 0.1 { dofs = (x, y) }\n  mass blade_r = 0.1\n\
          spring blade_l -- platform_l.x { k = 3.95e5 }\n  spring platform_l.x -- ground { k = 3.95e5 }\n\
          spring platform_l.y -- ground { k = 3.95e5 }\n  spring platform_r.x -- ground { k = 3.95e5 }\n\
          spring platform_r.y -- ground { k = 3.95e5 }\n  spring blade_r -- platform_r.x { k = 3.95e5 }\n\
          use underplatform_damper as d(left = platform_l, right = platform_r)\n\
          damping rayleigh { beta = 1.5e-5 }\n  force platform_l.x = f * cos(Omega * t)\n}\n";
    let mut analyses = String::from(text);
    for (model, dof) in [("original", "s.platform_l.x"), ("rebuilt", "platform_l.x")] {
        analyses += &format!(
            "modes {model} as {model}_stuck {{ contacts = stuck }}\n\
             modes {model} as {model}_free {{ contacts = open }}\n\
             continue frf {model} as {model}_frf {{ param = Omega in 1240..1380, harmonics = 5, \
             excitation = 10, dof = \"{dof}\", stability = false }}\n"
        );
    }
    let runs = run_json(&analyses, "underplatform_damper", &[]);
    let by_name = |name: &str| {
        runs.iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("{name} ran"))
    };
    for kind in ["stuck", "free"] {
        let (a, b) = (
            frequencies(&by_name(&format!("original_{kind}"))["summary"]),
            frequencies(&by_name(&format!("rebuilt_{kind}"))["summary"]),
        );
        assert_rel(&b, &a, 1e-12, kind);
    }
    let (a, b) = (peak(by_name("original_frf")), peak(by_name("rebuilt_frf")));
    assert!(
        (a.0 - b.0).abs() < 1e-10 * a.0 && (a.1 - b.1).abs() < 1e-9 * a.1,
        "peaks {a:?} vs {b:?}"
    );
    let slips = |v: &Value| v["summary"]["transitions"].as_u64().expect("transitions");
    assert!(
        slips(by_name("original_frf")) > 0,
        "the level slips the contacts"
    );
}
