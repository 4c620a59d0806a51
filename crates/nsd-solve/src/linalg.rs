//! Dense LU factorisations by faer on nalgebra matrices: faer's is blocked and runs at the
//! machine's speed where nalgebra's is not (on this 2-core machine a 280-square complex LU
//! 2.0 vs 9.1 ms, 560-square 11.9 vs 75.4 ms); the copies in and out cost `O(n²)` against
//! `O(n³)`. Complex (`Lu`, Hill's condensed problem) and real (`solve`, the continuation's
//! corrector and starts).
//! The undamped modes of a structure with no rigid mode by the eigenproblem of `K⁻¹ M`
//! (`flexibility_eigen`).

use faer::linalg::solvers::{PartialPivLu, Solve};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Mat, Par, Side};
use nalgebra::{Complex, DMatrix, DVector};

type C64 = Complex<f64>;

/// Real systems from this size up are solved by faer's blocked LU, smaller ones by
/// nalgebra's, whose call costs less than faer's copies and set-up there (a 1-DOF balance
/// has 3 to 31 unknowns).
const BLOCKED_FROM: usize = 64;

/// `A⁻¹ b` by an LU with partial pivoting, `None` where `A` is singular (a zero pivot, or a
/// solution that is not finite).
pub(crate) fn solve(a: DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    if a.nrows() < BLOCKED_FROM {
        return a.lu().solve(b);
    }
    let x = to_faer(&a)
        .partial_piv_lu()
        .solve(Mat::from_fn(b.len(), 1, |r, _| b[r]));
    let x = DVector::from_fn(b.len(), |r, _| x[(r, 0)]);
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// An LU factorisation with partial pivoting of a complex square matrix.
pub(crate) struct Lu(PartialPivLu<C64>);

impl Lu {
    pub(crate) fn new(a: &DMatrix<C64>) -> Lu {
        Lu(to_faer(a).partial_piv_lu())
    }

    /// `A⁻¹ b`, `None` where it is not finite (a singular `A`).
    pub(crate) fn solve(&self, b: &DVector<C64>) -> Option<DVector<C64>> {
        self.solve_columns(&DMatrix::from_column_slice(b.len(), 1, b.as_slice()))
            .map(|x| x.column(0).into_owned())
    }

    /// `A⁻¹ B`, `None` where it is not finite.
    pub(crate) fn solve_columns(&self, b: &DMatrix<C64>) -> Option<DMatrix<C64>> {
        let x = self.0.solve(to_faer(b));
        let x = DMatrix::from_fn(b.nrows(), b.ncols(), |r, c| x[(r, c)]);
        x.iter()
            .all(|v| v.re.is_finite() && v.im.is_finite())
            .then_some(x)
    }
}

/// The eigenpairs of `K⁻¹ M w = μ w` (`K`, `M` symmetric positive definite), `μ`
/// descending (`λ = 1/μ` of `K φ = λ M φ` ascending), `wᵀ K w = 1`: the symmetric
/// eigenproblem of `B = L⁻¹ M L⁻ᵀ` (`K = L Lᵀ`), `w = L⁻ᵀ u`. Its error is about `ε` of the
/// largest `μ`, `1/λ₁`, so the low modes, which carry the dynamics, come out to `ε` relative
/// where the route through `L_M⁻¹ K L_M⁻ᵀ` leaves them `ε λ_max` (the 1000-element
/// cantilever's first ω² 1.4e-3 off, 3.4e-6 this way, against the closed form); the highest
/// `μ` are then only known to ~1e-13 of `μ₁` and may even come out negative. `None` where
/// `K` is not positive definite (a rigid mode) or the eigensolver fails.
pub(crate) fn flexibility_eigen(
    m: &DMatrix<f64>,
    k: &DMatrix<f64>,
) -> Option<(Vec<f64>, DMatrix<f64>)> {
    let llt = to_faer(k).llt(Side::Lower).ok()?;
    let l = llt.L();
    // B = L⁻¹ M L⁻ᵀ: Y = L⁻¹ M, then B = L⁻¹ Yᵀ (M symmetric: Yᵀ = M L⁻ᵀ).
    let mut y = to_faer(m);
    solve_lower_triangular_in_place(l, y.as_mut(), Par::Seq);
    let mut b = y.transpose().to_owned();
    solve_lower_triangular_in_place(l, b.as_mut(), Par::Seq);
    let eig = b.self_adjoint_eigen(Side::Lower).ok()?;
    let mu = eig.S().column_vector();
    let mut order: Vec<usize> = (0..m.nrows()).collect();
    order.sort_by(|&i, &j| mu[j].total_cmp(&mu[i]));
    let mut w = Mat::from_fn(m.nrows(), m.nrows(), |r, c| eig.U()[(r, order[c])]);
    solve_upper_triangular_in_place(l.transpose(), w.as_mut(), Par::Seq);
    let mu: Vec<f64> = order.iter().map(|&i| mu[i]).collect();
    mu.iter()
        .all(|v| v.is_finite())
        .then(|| (mu, from_faer(&w)))
}

fn to_faer<T: Copy + nalgebra::Scalar>(a: &DMatrix<T>) -> Mat<T> {
    Mat::from_fn(a.nrows(), a.ncols(), |r, c| a[(r, c)])
}

fn from_faer<T: Copy + nalgebra::Scalar>(a: &Mat<T>) -> DMatrix<T> {
    DMatrix::from_fn(a.nrows(), a.ncols(), |r, c| a[(r, c)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A solve reproduces the right-hand side; a singular matrix gives `None`.
    #[test]
    fn lu_solves_and_refuses_a_singular_matrix() {
        let a = DMatrix::from_fn(3, 3, |r, c| {
            C64::new((r * 3 + c) as f64 + 1.0, (r == c) as u8 as f64)
        });
        let b = DVector::from_fn(3, |i, _| C64::new(i as f64, 1.0));
        let x = Lu::new(&a).solve(&b).expect("regular");
        assert!((&a * x - &b).norm() <= 1e-12 * b.norm());
        let singular = DMatrix::from_fn(3, 3, |r, c| C64::new((r * 3 + c) as f64, 0.0));
        assert!(Lu::new(&singular).solve(&b).is_none());
    }

    /// The real solve on both sides of `BLOCKED_FROM` agrees with nalgebra's LU to round-off
    /// and refuses a singular matrix.
    #[test]
    fn real_solve_matches_nalgebra_s_lu_and_refuses_a_singular_matrix() {
        for n in [5, BLOCKED_FROM, 150] {
            let a = DMatrix::from_fn(n, n, |r, c| {
                ((r * 7 + c * 13) % 17) as f64 - 8.0 + if r == c { 40.0 } else { 0.0 }
            });
            let b = DVector::from_fn(n, |i, _| (i as f64).sin());
            let x = solve(a.clone(), &b).expect("regular");
            let reference = a.clone().lu().solve(&b).expect("regular");
            assert!((&x - &reference).norm() <= 1e-13 * reference.norm(), "{n}");
            assert!((&a * &x - &b).norm() <= 1e-13 * b.norm(), "{n}");
            let mut singular = a;
            let first = singular.row(0).into_owned();
            singular.row_mut(1).copy_from(&first);
            assert!(solve(singular, &b).is_none(), "{n}");
        }
    }

    /// A 500-element steel cantilever (200 × 10 × 10 mm, cubic Hermite elements): the first
    /// `ω² = 1.8751⁴ EI/(ρA L⁴)` to 5e-6 (1.1e-6 here; the route through `L_M⁻¹ K L_M⁻ᵀ`
    /// left it 7.4e-5 off: the assembled `K`'s own round-off, amplified like the mesh's
    /// `(L/l)⁴`, bounds both).
    #[test]
    fn flexibility_eigen_resolves_a_fine_cantilevers_first_mode() {
        let (n, length) = (500, 0.2);
        let (ei, rho_a) = (210e9 * 1e-8 / 12.0, 7830.0 * 1e-4);
        let l = length / n as f64;
        let ke = DMatrix::from_row_slice(
            4,
            4,
            &[
                12.0,
                6.0 * l,
                -12.0,
                6.0 * l,
                6.0 * l,
                4.0 * l * l,
                -6.0 * l,
                2.0 * l * l,
                -12.0,
                -6.0 * l,
                12.0,
                -6.0 * l,
                6.0 * l,
                2.0 * l * l,
                -6.0 * l,
                4.0 * l * l,
            ],
        ) * (ei / l.powi(3));
        let me = DMatrix::from_row_slice(
            4,
            4,
            &[
                156.0,
                22.0 * l,
                54.0,
                -13.0 * l,
                22.0 * l,
                4.0 * l * l,
                13.0 * l,
                -3.0 * l * l,
                54.0,
                13.0 * l,
                156.0,
                -22.0 * l,
                -13.0 * l,
                -3.0 * l * l,
                -22.0 * l,
                4.0 * l * l,
            ],
        ) * (rho_a * l / 420.0);
        let d = 2 * n;
        let (mut k, mut m) = (DMatrix::zeros(d + 2, d + 2), DMatrix::zeros(d + 2, d + 2));
        for e in 0..n {
            let mut kv = k.view_mut((2 * e, 2 * e), (4, 4));
            kv += &ke;
            let mut mv = m.view_mut((2 * e, 2 * e), (4, 4));
            mv += &me;
        }
        // Clamped at the first node.
        let (k, m) = (
            k.view((2, 2), (d, d)).into_owned(),
            m.view((2, 2), (d, d)).into_owned(),
        );
        let (mu, w) = flexibility_eigen(&m, &k).expect("definite");
        let beta = 1.875_104_068_711_96_f64;
        let closed = beta.powi(4) * ei / (rho_a * length.powi(4));
        assert!(
            (1.0 / mu[0] / closed - 1.0).abs() <= 5e-6,
            "{}",
            1.0 / mu[0] / closed - 1.0
        );
        // `wᵀ K w` of a smooth shape cancels to `ε λ_max/λ₁` and is not checked; `M` is
        // well conditioned: `wᵀ M w = μ`, and the first two shapes are `M`-orthogonal.
        let (w0, w1) = (w.column(0), w.column(1));
        assert!(((w0.transpose() * &m * w0)[0] / mu[0] - 1.0).abs() <= 1e-10);
        assert!((w0.transpose() * &m * w1)[0].abs() <= 1e-10 * (mu[0] * mu[1]).sqrt());
        assert!(mu.windows(2).all(|p| p[0] >= p[1]));
    }
}
