//! Paper 004, Sect. 7: the serial impact oscillator's linear frequencies (stop open).

use crate::common::*;

/// Fixed–free chain of n masses 1/n and springs n: ω_j = 2n sin((2j − 1)π / (2(2n + 1))).
fn chain(n: usize) -> Vec<f64> {
    (1..=n)
        .map(|j| {
            2.0 * n as f64
                * ((2 * j - 1) as f64 * std::f64::consts::PI / (2.0 * (2 * n + 1) as f64)).sin()
        })
        .collect()
}

#[test]
fn n5_and_n50_match_the_closed_form() {
    let v = check_json("models/seed4/serial_impact.nsd", &[]);
    assert_rel(&frequencies(&v), &chain(5), 1e-12, "n = 5");
    assert_eq!(v["dofs"].as_array().map(Vec::len), Some(5));
    let v = check_json("models/seed4/serial_impact.nsd", &["n=50"]);
    // 50 DOFs: dense solve of a matrix with condition ~1e3, relative error ~1e-13.
    assert_rel(&frequencies(&v), &chain(50), 1e-10, "n = 50");
}

#[test]
fn large_chains_use_the_sparse_solver_for_the_lowest_modes() {
    let v = check_json("models/seed4/serial_impact.nsd", &["n=2000"]);
    let f = frequencies(&v);
    assert_eq!(f.len(), 10, "the lowest 10 of a large model");
    // Lanczos converged to a residual of 1e-10 |θ|; eigenvalues are then accurate to ~1e-12.
    assert_rel(&f, &chain(2000)[..10], 1e-9, "n = 2000");
}
