//! Exact Hessian products of the harmonic balance's nonlinear forces (paper 003, Sect. 4.2,
//! eqs. 44–63; issue 15, item 1): `Balance::hessian_adjoint` = `∂(J_nl(Q)ᵀλ)/∂Q` against
//! central differences of the analytic Jacobian `Balance::jacobian` (D(ω) is linear in Q and
//! cancels in the difference), on whole models; and its cost against one Jacobian on the
//! paper-003 cantilever with its pad.

use crate::common::*;
use nalgebra::{DMatrix, DVector};
use nsd::solve::cont::{linearised, newton};
use nsd::solve::hb::{Balance, Condensed};

/// Column `b` of `(J(Q + h e_b) − J(Q − h e_b))ᵀλ / 2h`.
fn difference_column(
    hb: &Balance,
    q: &DVector<f64>,
    w: f64,
    l: &DVector<f64>,
    b: usize,
    h: f64,
) -> DVector<f64> {
    let (mut qp, mut qm) = (q.clone(), q.clone());
    qp[b] += h;
    qm[b] -= h;
    (hb.jacobian(&qp, w) - hb.jacobian(&qm, w)).transpose() * l / (2.0 * h)
}

/// Checks `hessian_adjoint` against differences on the `draws` states `scale · noise` and
/// returns (accepted draws, worst relative error). A draw is skipped as degenerate (a
/// transition or contact boundary that appears or vanishes within the step, where the
/// Jacobian is not differentiable) when some column's difference quotients at steps h and
/// h/2 disagree by more than 1e-7 of the Hessian's largest entry; the rest must agree to
/// 1e-6 of it.
fn check(hb: &Balance, w: f64, scale: f64, draws: u64) -> (usize, f64) {
    let (mut accepted, mut worst) = (0, 0.0f64);
    for seed in 0..draws {
        let q = DVector::from_vec(noise(seed, hb.dim())) * scale;
        let l = DVector::from_vec(noise(1000 + seed, hb.dim()));
        let hess = hb.hessian_adjoint(&q, w, &l);
        let size = hess.amax().max(1e-9);
        let h = 1e-6 * scale;
        let mut fd = DMatrix::zeros(hb.dim(), hb.dim());
        let mut degenerate = false;
        for b in 0..hb.dim() {
            let (full, half) = (
                difference_column(hb, &q, w, &l, b, h),
                difference_column(hb, &q, w, &l, b, h / 2.0),
            );
            degenerate |= (&full - &half).amax() > 1e-7 * size;
            fd.set_column(b, &full);
        }
        if degenerate {
            continue;
        }
        let err = (&hess - &fd).amax() / size;
        assert!(err < 1e-6, "seed {seed}: relative error {err:e}");
        assert!(
            (&hess - hess.transpose()).amax() < 1e-9 * size,
            "seed {seed}: symmetric"
        );
        worst = worst.max(err);
        accepted += 1;
    }
    (accepted, worst)
}

#[test]
fn hessian_products_of_a_three_dof_model_match_differences_of_the_jacobian() {
    // The plane mass's 2-D contact (stick, slip, separation, touch-down), a Jenkins element,
    // an exact free-play gap and a cubic spring, at H = 1, 3, 5; amplitudes from mostly stuck
    // to separating.
    let sys = system_at("tests/models/friction2d.nsd", "three", 1.3);
    for (h, samples) in [(1, 16), (3, 64), (5, 64)] {
        let hb = Balance::new(&sys, h, samples).expect("balance");
        let mut total = 0;
        for scale in [0.03, 0.2, 0.6] {
            let (accepted, worst) = check(&hb, 1.3, scale, 6);
            eprintln!("H = {h}, scale {scale}: {accepted}/6 accepted, worst {worst:e}");
            total += accepted;
        }
        assert!(
            total >= 12,
            "H = {h}: only {total} of 18 draws were not degenerate"
        );
    }
}

#[test]
fn hessian_products_of_polynomial_springs_and_a_smoothed_gap_match_differences() {
    // Quadratic and cubic springs and a sigmoid-smoothed gap, all by AFT (smooth laws: no
    // draw is degenerate).
    let prog = nsd::lang::Program::load(&root().join("tests/models/duffing.nsd")).expect("loads");
    let sys = nsd::model::assemble(
        &nsd::lang::resolve(&prog, "two_dof_smoothed", &[]).expect("resolves"),
    );
    for h in [1, 3, 5] {
        let hb = Balance::new(&sys, h, 64).expect("balance");
        let (accepted, worst) = check(&hb, 1.2, 0.1, 10);
        eprintln!("H = {h}: worst {worst:e}");
        assert_eq!(accepted, 10, "H = {h}");
    }
}

#[test]
fn hessian_products_of_the_cantilever_with_its_pad_and_their_cost() {
    // The paper-003 cantilever at H = 3, slipping on its pad (tip force 30 N, Ω = 1300):
    // the columns of the pad's DOFs against differences, then one `hessian_adjoint` timed
    // against one `jacobian` (both dense 280 × 280) and one residual (printed, not asserted:
    // the machine is shared).
    let sys = system_at("models/seed3/cantilever_pad.nsd", "cantilever_pad", 1300.0);
    let mut hb = Balance::new(&sys, 3, 32).expect("balance");
    hb.level = 30.0;
    let w = 1300.0;
    let q = {
        let c = Condensed::new(&hb).expect("condenses");
        let (qc, _) = newton(&c, linearised(&c, w), w, 1e-10).expect("converges");
        c.expand(&qc, w)
    };
    let l = DVector::from_vec(noise(5, hb.dim()));
    let hess = hb.hessian_adjoint(&q, w, &l);
    let size = hess.amax();
    assert!(size > 0.0, "the pad slips: the Hessian is not zero");
    let scale = q.amax();
    for b in (0..hb.dim()).filter(|b| hess.column(*b).amax() > 0.0) {
        // The better of two steps: at 1e-6 a column's quotient can sit at the Jacobian's
        // round-off (1.2e-6 of the largest entry after the modes' route changed; 4.9e-8
        // at 1e-5), at 1e-5 another's at its truncation (2.2e-6; below 1.2e-6 at 1e-6). A wrong
        // column fails both.
        let err = [1e-6, 1e-5]
            .map(|h| {
                (hess.column(b) - difference_column(&hb, &q, w, &l, b, h * scale)).amax() / size
            })
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        assert!(err < 1e-6, "column {b}: relative error {err:e}");
    }
    let time = |f: &dyn Fn()| {
        let runs = 200;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            f();
        }
        start.elapsed().as_secs_f64() / runs as f64
    };
    let tj = time(&|| {
        std::hint::black_box(hb.jacobian(&q, w));
    });
    let th = time(&|| {
        std::hint::black_box(hb.hessian_adjoint(&q, w, &l));
    });
    let tr = time(&|| {
        std::hint::black_box(hb.residual(&q, w));
    });
    eprintln!(
        "cantilever H = 3 ({} unknowns): jacobian {:.1} µs, hessian_adjoint {:.1} µs \
         (ratio {:.2}), residual {:.1} µs",
        hb.dim(),
        tj * 1e6,
        th * 1e6,
        th / tj,
        tr * 1e6
    );
}
