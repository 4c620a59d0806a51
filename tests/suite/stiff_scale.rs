//! Stiff integration at scale (issue 14, item 1): RODAS with the exact sparse tangent and
//! the second-order stage solve on the chain of `bench/chain_scaling.nsd`, checked against
//! DOP853 (a second route), and the reuse of the sparse factor.

use nsd::solve::ode::{integrate, Config, Hybrid, Method, Output, Tolerances};

/// The chain with `n` masses, assembled.
fn chain(n: usize) -> nsd::model::System {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/chain_scaling.nsd");
    let prog = nsd::lang::Program::load(&path).expect("loads");
    let set = nsd::lang::parse_override(&format!("n={n}")).expect("override");
    let model = nsd::lang::resolve(&prog, "chain_gap", &[set]).expect("resolves");
    nsd::model::assemble(&model)
}

/// The trajectory of `sys` from rest over `[0, t1]` at rtol = atol = `tol`.
fn run(
    sys: &nsd::model::System,
    method: Method,
    t1: f64,
    tol: f64,
    max_step: f64,
) -> nsd::solve::ode::Trajectory {
    let mut h = Hybrid::new(sys, false).expect("integrable");
    let cfg = Config {
        t0: 0.0,
        t1,
        y0: vec![0.0; 2 * sys.n()],
        tol: Tolerances {
            rtol: tol,
            atol: tol,
            max_step,
        },
        output: Output::Every(0.05),
        method,
    };
    integrate(&mut h, &cfg, &mut |_| {}).expect("integrates")
}

/// n = 300 over t = 0..0.6 (the gap closes and opens: events on the contact mass): RODAS's
/// contact-mass trajectory equals DOP853's at every sample to 2e-6, a few times the
/// tolerance 1e-7 times the number of steps' error growth (the global error of both).
#[test]
fn rodas_on_the_sparse_tangent_follows_dop853_on_a_300_mass_chain() {
    let sys = chain(300);
    let last = sys.n() - 1;
    let stiff = run(&sys, Method::Rodas, 0.6, 1e-7, 0.6);
    let explicit = run(&sys, Method::Dop853, 0.6, 1e-7, 0.6);
    assert!(!stiff.events.is_empty(), "the gap closes within the run");
    assert_eq!(stiff.t.len(), explicit.t.len());
    let worst = stiff
        .y
        .iter()
        .zip(&explicit.y)
        .map(|(a, b)| (a[last] - b[last]).abs())
        .fold(0.0, f64::max);
    assert!(worst < 2e-6, "contact mass deviates by {worst:e}");
    // The sparse path ran: a factor per step at most (the first-attempt one of each size).
    assert!(stiff.factorisations > 0);
    assert!(stiff.factorisations <= stiff.steps + stiff.rejected + 1);
}

/// With the step held at `max_step` in one mode (the gap open, small motion), `S` is the
/// same on every step: one numeric factorisation serves them all once the first steps
/// (Hairer's starting step, growing at most fivefold per step) have reached `max_step`.
#[test]
fn one_factorisation_while_step_and_modes_do_not_change() {
    let sys = chain(200);
    let tr = run(&sys, Method::Rodas, 0.05, 1e-3, 1e-3);
    assert!(tr.events.is_empty());
    assert!(tr.steps >= 50, "{} steps", tr.steps);
    assert!(
        tr.factorisations <= 5,
        "{} factorisations for {} steps",
        tr.factorisations,
        tr.steps
    );
}

/// The work per step does not grow with the model (issue 14: `simulate`'s cost linear in
/// n): on the 2000-mass chain over t = 0..1 at 1e-6, `auto` integrates mostly with RODAS,
/// each attempt costs a bounded number of evaluations (7 per RODAS attempt and one `∂f/∂t`
/// per start point, 12 to 15 per DOP853 one — a finite-difference Jacobian would add 2n)
/// and at most one numeric factorisation. Counts, not times: robust on a loaded machine.
#[test]
fn work_per_step_does_not_grow_with_the_chain() {
    let tr = run(&chain(2000), Method::Auto, 1.0, 1e-6, 1.0);
    let attempts = tr.steps + tr.rejected;
    assert!(
        2 * tr.stiff_steps >= tr.steps,
        "{} of {} steps stiff",
        tr.stiff_steps,
        tr.steps
    );
    assert!(
        tr.rhs_evals <= 16 * attempts,
        "{} evaluations for {attempts} attempts",
        tr.rhs_evals
    );
    assert!(tr.factorisations > 0 && tr.factorisations <= attempts);
}
