//! The second route for `nsmodes` (issue 16): the one-impact orbits of paper 004's serial
//! oscillator found by shooting on the event-driven integrator — Gauss–Newton on
//! `y(T) − y(0) = 0` from a state perturbed off the closed form, the Jacobian by central
//! differences of one-period integrations (rtol = atol = 1e-12) — against the closed form, with
//! the time of each route: `cargo run --release --example nsmodes_shooting`.

use nalgebra::{DMatrix, DVector};
use nsd::solve::nsmodes::{one_impact, Oscillator};
use nsd::solve::ode::{integrate, Config, Hybrid, Method, Output};
use std::time::Instant;

/// Periods of the admissible one-impact family between 3.75 and 3.83 (Sect. 7.2).
const PERIODS: usize = 20;

fn main() {
    let path = std::path::Path::new("models/seed4/serial_impact.nsd");
    let prog = nsd::lang::Program::load(path).expect("model file");
    let sys =
        nsd::model::assemble(&nsd::lang::resolve(&prog, "serial_impact", &[]).expect("model"));
    let dense = |a: &sprs::CsMat<f64>| {
        let mut d = DMatrix::zeros(a.rows(), a.cols());
        for (v, (i, j)) in a.iter() {
            d[(i, j)] = *v;
        }
        d
    };
    let n = sys.n();
    let mut w = DVector::zeros(n);
    w[n - 1] = 1.0;
    let osc = Oscillator::new(dense(&sys.m), dense(&sys.k), w, 1.0).expect("oscillator");
    let mut hybrid = Hybrid::new(&sys, false).expect("integrable");
    let mut flow = |y0: &[f64], t1: f64| -> Vec<f64> {
        let cfg = Config {
            t0: 0.0,
            t1,
            y0: y0.to_vec(),
            tol: nsd::solve::ode::Tolerances {
                rtol: 1e-12,
                atol: 1e-12,
                max_step: f64::INFINITY,
            },
            output: Output::At(vec![t1]),
            method: Method::Dop853,
        };
        let traj = integrate(&mut hybrid, &cfg, &mut |_| {}).expect("integrates");
        traj.y.last().expect("a sample").clone()
    };
    let (mut closed_s, mut shooting_s, mut worst) = (0.0, 0.0, 0.0_f64);
    for i in 0..PERIODS {
        let period = 3.75 + 0.08 * i as f64 / (PERIODS - 1) as f64;
        let start = Instant::now();
        let orbit = one_impact(&osc, period).expect("orbit");
        // The state half-way through the flight: no impact at either end of the shot.
        let (u, v) = orbit.state(0.5 * period);
        let exact: Vec<f64> = u.iter().chain(v.iter()).copied().collect();
        closed_s += start.elapsed().as_secs_f64();
        let start = Instant::now();
        let mut y: Vec<f64> = exact.iter().map(|x| x * (1.0 + 1e-3)).collect();
        for _ in 0..20 {
            let r = DVector::from_vec(flow(&y, period)) - DVector::from_column_slice(&y);
            if r.amax() < 1e-11 {
                break;
            }
            let h = 1e-6;
            let mut jac = DMatrix::zeros(2 * n, 2 * n);
            for c in 0..2 * n {
                let (mut up, mut down) = (y.clone(), y.clone());
                up[c] += h;
                down[c] -= h;
                let d = (DVector::from_vec(flow(&up, period))
                    - DVector::from_vec(flow(&down, period)))
                    / (2.0 * h);
                jac.set_column(
                    c,
                    &(d - DVector::from_fn(2 * n, |r, _| f64::from(u8::from(r == c)))),
                );
            }
            // The phase direction is a null vector: minimum-norm Gauss–Newton step.
            let step = jac.svd(true, true).solve(&r, 1e-9).expect("svd");
            y.iter_mut().zip(step.iter()).for_each(|(x, s)| *x -= s);
        }
        shooting_s += start.elapsed().as_secs_f64();
        // The shot orbit may have slid along its phase: compare energies and the stop's peak.
        let energy = |y: &[f64]| {
            osc.energy(
                &DVector::from_column_slice(&y[..n]),
                &DVector::from_column_slice(&y[n..]),
            )
        };
        let gap = (energy(&y) - energy(&exact)).abs() / energy(&exact);
        worst = worst.max(gap);
        println!(
            "T = {period:.5}: energy closed form {:.12e}, shooting {:.12e} (rel. {gap:.1e})",
            energy(&exact),
            energy(&y)
        );
    }
    println!(
        "{PERIODS} orbits: closed form {:.2e} s, shooting {:.2} s (ratio {:.0}); largest energy difference {worst:.1e}",
        closed_s,
        shooting_s,
        shooting_s / closed_s
    );
}
