//! Times `simulate` on the chain of `bench/chain_scaling.nsd` (issue 14, items 1 and 4) for
//! n = 10, 100, 1000, 10 000 and fits the growth exponent of the cost in n between 100 and
//! 10 000 (least squares on log time against log n):
//! `cargo run --release --example stiff_scaling -- [METHOD] [T_END] [TOL] [N ...]`, with
//! METHOD `auto` (default), `rodas` or `dop853`, T_END 10 s and TOL 1e-6 by default.
//!
//! The cost is the thread's CPU time (Linux `/proc/thread-self/schedstat`; the wall time
//! elsewhere), the median of up to `REPEATS` runs within `REPEAT_BUDGET`: on a shared
//! machine the wall time of the small runs is mostly other processes', and the fitted
//! exponent would be noise.

use nsd::solve::ode::{integrate, Config, Hybrid, Method, Output, Tolerances};
use std::time::Instant;

/// The model file, relative to the crate root.
const MODEL: &str = "bench/chain_scaling.nsd";
/// Most runs per size (the median is reported).
const REPEATS: usize = 5;
/// CPU seconds after which a size is not run again.
const REPEAT_BUDGET: f64 = 2.0;

/// CPU time of this thread so far (s), where the kernel reports it.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let method = match args.first().map(String::as_str) {
        Some("rodas") => Method::Rodas,
        Some("dop853") => Method::Dop853,
        _ => Method::Auto,
    };
    let t_end: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let tol: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1e-6);
    let mut sizes: Vec<usize> = args.iter().skip(3).filter_map(|s| s.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![10, 100, 1000, 10_000];
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MODEL);
    let prog = nsd::lang::Program::load(&path).expect("the benchmark model loads");
    let mut fit = Vec::new();
    for n in sizes {
        let set = nsd::lang::parse_override(&format!("n={n}")).expect("a valid override");
        let model = nsd::lang::resolve(&prog, "chain_gap", &[set]).expect("the model resolves");
        let sys = nsd::model::assemble(&model);
        let (mut cpu, mut wall) = (Vec::new(), Vec::new());
        let mut traj = None;
        while cpu.len() < REPEATS && cpu.iter().sum::<f64>() < REPEAT_BUDGET {
            let (c0, w0) = (cpu_seconds(), Instant::now());
            let mut hybrid = Hybrid::new(&sys, false).expect("the chain integrates");
            let cfg = Config {
                t0: 0.0,
                t1: t_end,
                y0: vec![0.0; 2 * sys.n()],
                tol: Tolerances {
                    rtol: tol,
                    atol: tol,
                    max_step: t_end,
                },
                output: Output::Every(0.01),
                method,
            };
            traj = Some(integrate(&mut hybrid, &cfg, &mut |_| {}));
            let w = w0.elapsed().as_secs_f64();
            wall.push(w);
            cpu.push(cpu_seconds().zip(c0).map_or(w, |(c1, c0)| c1 - c0));
        }
        let (secs, wall) = (median(&mut cpu), median(&mut wall));
        match traj.expect("one run at least") {
            Ok(tr) => {
                println!(
                    "n = {n:>6}: {secs:8.3} s CPU ({wall:.3} s wall, median of {}), {} steps ({} stiff, {} rejected), {} rhs evals, {} factorisations, {} events, x_n(t1) = {:.9}",
                    cpu.len(),
                    tr.steps,
                    tr.stiff_steps,
                    tr.rejected,
                    tr.rhs_evals,
                    tr.factorisations,
                    tr.events.len(),
                    tr.final_state[sys.n() - 1]
                );
                if n >= 100 {
                    fit.push(((n as f64).ln(), secs.ln()));
                }
            }
            Err(f) => println!("n = {n:>6}: failed after {secs:.3} s: {}", f.error),
        }
    }
    if fit.len() >= 2 {
        let k = fit.len() as f64;
        let (sx, sy) = fit.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0, b + p.1));
        let (mx, my) = (sx / k, sy / k);
        let num: f64 = fit.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let den: f64 = fit.iter().map(|p| (p.0 - mx).powi(2)).sum();
        println!(
            "growth exponent of the CPU time (n ≥ 100): {:.3}",
            num / den
        );
    }
}

/// The median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
