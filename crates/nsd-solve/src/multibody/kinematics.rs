//! Rigid-body kinematics with Euler parameters (paper 002, eqs. 5–9): the rotation matrix
//! `A(p)`, the Euler-parameter rates of a body-frame angular velocity, small rotations for
//! the projection, and the rotation-vector form of an orientation for output.
//!
//! `p = [e₀, e]` is a unit quaternion; `A(p) = (2e₀² − 1) I + 2(e eᵀ + e₀ ẽ)` maps body-frame
//! vectors to the global frame. The rates follow eq. 9 with the body-frame angular velocity
//! `ω'`: `ṗ = ½ Lᵀ(p) ω'` with `L(p) = [−e, −ẽ + e₀ I]`, which is the quaternion product
//! `½ p ⊗ (0, ω')` written below. Because `pᵀ Lᵀ = 0`, these rates keep `|p|` constant:
//! the norm constraint (eq. 14) is met at velocity level by construction, and only its
//! position-level drift needs the projection of `dynamics.rs`.

use nalgebra::{Matrix3, Vector3};

/// The rotation matrix `A(p)` of (possibly not exactly unit) Euler parameters, computed from
/// `p / |p|` so that it is orthogonal to round-off whatever the drift of `|p|`.
pub(crate) fn rotation(p: &[f64]) -> Matrix3<f64> {
    let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]).sqrt();
    let (e0, e1, e2, e3) = (p[0] / n, p[1] / n, p[2] / n, p[3] / n);
    Matrix3::new(
        2.0 * (e0 * e0 + e1 * e1) - 1.0,
        2.0 * (e1 * e2 - e0 * e3),
        2.0 * (e1 * e3 + e0 * e2),
        2.0 * (e1 * e2 + e0 * e3),
        2.0 * (e0 * e0 + e2 * e2) - 1.0,
        2.0 * (e2 * e3 - e0 * e1),
        2.0 * (e1 * e3 - e0 * e2),
        2.0 * (e2 * e3 + e0 * e1),
        2.0 * (e0 * e0 + e3 * e3) - 1.0,
    )
}

/// The quaternion product `a ⊗ b`.
fn product(a: &[f64], b: &[f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// `ṗ = ½ Lᵀ(p) ω'` (eq. 9) for the body-frame angular velocity `ω'`.
pub(crate) fn rates(p: &[f64], w_body: &Vector3<f64>) -> [f64; 4] {
    product(p, &[0.0, w_body.x, w_body.y, w_body.z]).map(|x| 0.5 * x)
}

/// `p` turned by the small body-frame rotation `δπ'` and renormalised: `p ⊗ (1, δπ'/2)`
/// (first order in `δπ'`, which is all a Newton correction needs).
pub(crate) fn turned(p: &[f64], d: &Vector3<f64>) -> [f64; 4] {
    let q = product(p, &[1.0, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z]);
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    q.map(|x| x / n)
}

/// The rotation vector `θ n` (θ ∈ [0, π], rad) of the orientation `p`: the axis–angle form
/// written to `trajectory.csv` for viewers that do not read quaternions.
pub(crate) fn rotation_vector(p: &[f64]) -> [f64; 3] {
    // `p` and `−p` are the same orientation: take e₀ ≥ 0 so that θ ≤ π.
    let s = if p[0] < 0.0 { -1.0 } else { 1.0 };
    let e = Vector3::new(s * p[1], s * p[2], s * p[3]);
    let sin_half = e.norm();
    if sin_half == 0.0 {
        return [0.0; 3];
    }
    let theta = 2.0 * sin_half.atan2(s * p[0]);
    let v = e * (theta / sin_half);
    [v.x, v.y, v.z]
}

/// Two unit vectors `f`, `g` completing the unit vector `u` to a right-handed orthonormal
/// frame `(f, g, u)`: the reference directions of a joint's angular constraints.
pub(crate) fn perpendiculars(u: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    // Cross with the global axis least aligned with `u`, so that `f` is never ill-conditioned.
    let k = u.iamin();
    let mut e = Vector3::zeros();
    e[k] = 1.0;
    let f = e.cross(u).normalize();
    (f, u.cross(&f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quarter turn about z maps x to y; its rotation vector is (0, 0, π/2).
    #[test]
    fn quarter_turn_about_z() {
        let h = std::f64::consts::FRAC_PI_4;
        let p = [h.cos(), 0.0, 0.0, h.sin()];
        let a = rotation(&p);
        assert!((a * Vector3::x() - Vector3::y()).norm() < 1e-15);
        let v = rotation_vector(&p);
        assert!((v[2] - 2.0 * h).abs() < 1e-15 && v[0] == 0.0 && v[1] == 0.0);
    }

    /// `ṗ` from eq. 9 agrees with the derivative of `A(p)`: `Ȧ = A ω̃'`, by central
    /// differences along `ṗ` (to 1e-8, the differences' truncation).
    #[test]
    fn rates_match_the_rotation_derivative() {
        let p = [0.8, 0.2, -0.4, 0.4];
        let w = Vector3::new(0.3, -1.2, 0.7);
        let dp = rates(&p, &w);
        let eps = 1e-6;
        let shifted = |s: f64| -> Vec<f64> { (0..4).map(|i| p[i] + s * eps * dp[i]).collect() };
        let da = (rotation(&shifted(1.0)) - rotation(&shifted(-1.0))) / (2.0 * eps);
        let expected = rotation(&p) * w.cross_matrix();
        assert!((da - expected).norm() < 1e-8, "{da} vs {expected}");
        let along: f64 = (0..4).map(|i| p[i] * dp[i]).sum();
        assert!(along.abs() < 1e-15, "the rates keep |p|");
    }

    #[test]
    fn perpendiculars_form_a_right_handed_frame() {
        let u = Vector3::new(1.0, 2.0, -2.0).normalize();
        let (f, g) = perpendiculars(&u);
        assert!(f.dot(&u).abs() < 1e-15 && g.dot(&u).abs() < 1e-15 && f.dot(&g).abs() < 1e-15);
        assert!((f.cross(&g) - u).norm() < 1e-15);
    }
}
