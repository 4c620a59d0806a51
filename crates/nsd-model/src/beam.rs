//! Euler–Bernoulli beam element matrices with cubic Hermite shape functions, and the
//! two-node bar for the optional axial DOF.
//!
//! DOF order per element: (w₁, θ₁, w₂, θ₂) with θ = dw/dx. Consistent mass matrix.
//!
//! # References
//! Przemieniecki, *Theory of Matrix Structural Analysis*, 1968, ch. 5 and 11.

/// Bending stiffness matrix `EI/L³ · [...]`.
pub(crate) fn bending_stiffness(ei: f64, l: f64) -> [[f64; 4]; 4] {
    let a = ei / l.powi(3);
    let (l2, l1) = (l * l, l);
    [
        [12.0 * a, 6.0 * l1 * a, -12.0 * a, 6.0 * l1 * a],
        [6.0 * l1 * a, 4.0 * l2 * a, -6.0 * l1 * a, 2.0 * l2 * a],
        [-12.0 * a, -6.0 * l1 * a, 12.0 * a, -6.0 * l1 * a],
        [6.0 * l1 * a, 2.0 * l2 * a, -6.0 * l1 * a, 4.0 * l2 * a],
    ]
}

/// Consistent mass matrix `ρA L/420 · [...]`.
pub(crate) fn bending_mass(rho_a: f64, l: f64) -> [[f64; 4]; 4] {
    let a = rho_a * l / 420.0;
    let l2 = l * l;
    [
        [156.0 * a, 22.0 * l * a, 54.0 * a, -13.0 * l * a],
        [22.0 * l * a, 4.0 * l2 * a, 13.0 * l * a, -3.0 * l2 * a],
        [54.0 * a, 13.0 * l * a, 156.0 * a, -22.0 * l * a],
        [-13.0 * l * a, -3.0 * l2 * a, -22.0 * l * a, 4.0 * l2 * a],
    ]
}

/// Consistent load of a uniform transverse load `q` (N/m): `qL/2, qL²/12, qL/2, −qL²/12`.
pub(crate) fn uniform_load(q: f64, l: f64) -> [f64; 4] {
    [
        q * l / 2.0,
        q * l * l / 12.0,
        q * l / 2.0,
        -q * l * l / 12.0,
    ]
}

/// Axial bar: stiffness `EA/L [[1, −1], [−1, 1]]` and consistent mass `ρAL/6 [[2, 1], [1, 2]]`.
pub(crate) fn bar(ea: f64, rho_a: f64, l: f64) -> ([[f64; 2]; 2], [[f64; 2]; 2]) {
    let k = ea / l;
    let m = rho_a * l / 6.0;
    ([[k, -k], [-k, k]], [[2.0 * m, m], [m, 2.0 * m]])
}
