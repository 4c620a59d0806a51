//! Model-level checks that need files beside the model: MatrixMarket substructures.

use crate::common::*;

#[test]
fn matrix_market_substructure_assembles_with_lumped_parts() {
    let v = check_json("tests/models/substructure.nsd", &[]);
    assert_eq!(
        v["dofs"],
        serde_json::json!(["fe.1", "fe.2", "fe.3", "extra.x"])
    );
    // Independent route: the same 4×4 problem assembled by hand (unit masses, so the
    // standard symmetric eigenproblem of K), solved directly by nalgebra.
    let k = nalgebra::DMatrix::<f64>::from_row_slice(
        4,
        4,
        &[
            3.0, -1.0, 0.0, -1.0, -1.0, 2.0, -1.0, 0.0, 0.0, -1.0, 1.0, 0.0, -1.0, 0.0, 0.0, 1.0,
        ],
    );
    let mut expected: Vec<f64> = k
        .symmetric_eigenvalues()
        .iter()
        .map(|l: &f64| l.sqrt())
        .collect();
    expected.sort_by(f64::total_cmp);
    assert_rel(&frequencies(&v), &expected, 1e-12, "substructure");
}
