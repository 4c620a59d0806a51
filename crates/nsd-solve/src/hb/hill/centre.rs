//! Which copy of a Floquet exponent a Hill root is: the harmonic its eigenvector is centred
//! on.
//!
//! The truncated Hill problem repeats every exponent `s` as `s + ikω`, `k = −H..H`, with the
//! eigenvector's harmonics shifted by `−k`; only the copies whose eigenvectors sit well inside
//! the kept harmonics are accurate, and those at the truncation's edge can have any real
//! part. The selection by smallest `|Im s|` (`physical`) takes such an edge copy wherever the
//! model has exponents far above `Hω` — stiff modes of a beam, the constraint modes of a
//! reduced model — whose places in the `2n` go to copies of low exponents: a copy near `2ω`
//! of a stable exponent, with `Re s > 0`, then calls a stable point unstable. The remedy is
//! the eigenvector criterion of Lazarus and Thomas: a growing root whose eigenvector's mean
//! harmonic `Σ k |z_k|² / Σ |z_k|²` lies `EDGE_COPY_CENTRE` or more from 0 is an edge copy
//! and is dropped — the centred copy of a truly growing exponent is accurate, kept, and grows
//! as well. Only growing roots are examined: the verdict is all that a copy can spoil.
//!
//! # References
//! Lazarus, Thomas (2010), "A harmonic-based method for computing the stability of periodic
//! solutions of dynamical systems", C. R. Mécanique 338, Sect. 3 (the eigenvector
//! criterion). Guillot, Lazarus, Thomas, Vergez, Cochelin (2020), "A purely frequency based
//! Floquet–Hill formulation for the efficient stability computation of periodic solutions
//! of ODEs", J. Comput. Phys. 416 (the symmetry criterion compared with the imaginary-part
//! one).

use super::super::tolerances::{EDGE_COPY_CENTRE, NULL_VECTOR_SWEEPS};
use nalgebra::{Complex, DMatrix, DVector};

type C64 = Complex<f64>;

/// `exponents` without the growing edge copies; `centre(s)` gives a root's mean harmonic
/// (`None` when its eigenvector cannot be computed: the root is kept).
pub(super) fn without_edge_copies(
    exponents: Vec<C64>,
    centre: impl Fn(C64) -> Option<f64>,
) -> Vec<C64> {
    exponents
        .into_iter()
        .filter(|s| s.re <= 0.0 || centre(*s).is_none_or(|c| c.abs() < EDGE_COPY_CENTRE))
        .collect()
}

/// The mean harmonic `Σ k w_k / Σ w_k` of weights `w` indexed by `k + H`.
pub(super) fn mean_harmonic(weights: &[f64]) -> Option<f64> {
    let h = (weights.len() / 2) as f64;
    let total: f64 = weights.iter().sum();
    (total > 0.0 && total.is_finite()).then(|| {
        weights
            .iter()
            .enumerate()
            .map(|(i, w)| (i as f64 - h) * w)
            .sum::<f64>()
            / total
    })
}

/// The weights per complex harmonic `k = −H..H` of a real-layout vector (`n` DOFs; block 0
/// the constant, blocks `2k − 1`, `2k` the cosine and sine of harmonic k):
/// `z_{±k} = (c_k ∓ i s_k)/2`.
pub(super) fn real_layout_weights(v: &DVector<C64>, n: usize, h: usize) -> Vec<f64> {
    let i = C64::new(0.0, 1.0);
    let mut w = vec![0.0; 2 * h + 1];
    for dof in 0..n {
        w[h] += v[dof].norm_sqr();
        for k in 1..=h {
            let (c, s) = (v[(2 * k - 1) * n + dof], v[2 * k * n + dof]);
            w[h + k] += ((c - i * s) / 2.0).norm_sqr();
            w[h - k] += ((c + i * s) / 2.0).norm_sqr();
        }
    }
    w
}

/// The weights per block of a complex-layout vector (block `k + H` of `n` entries).
pub(super) fn complex_layout_weights(v: &DVector<C64>, n: usize) -> Vec<f64> {
    v.as_slice()
        .chunks(n.max(1))
        .map(|b| b.iter().map(|x| x.norm_sqr()).sum())
        .collect()
}

/// A null vector of a (numerically) singular matrix by inverse iteration from a constant
/// vector; an exactly singular LU is shifted by round-off of the matrix's size first.
pub(super) fn null_vector(t: &DMatrix<C64>) -> Option<DVector<C64>> {
    let n = t.nrows();
    let lu = t.clone().lu();
    let lu = if lu.is_invertible() {
        lu
    } else {
        let shift = f64::EPSILON * t.norm().max(f64::MIN_POSITIVE);
        (t + DMatrix::<C64>::identity(n, n) * C64::new(shift, 0.0)).lu()
    };
    let mut x = DVector::<C64>::from_element(n, C64::new(1.0, 0.0));
    for _ in 0..NULL_VECTOR_SWEEPS {
        x = lu.solve(&x)?;
        let norm = x.norm();
        if !(norm > 0.0 && norm.is_finite()) {
            return None;
        }
        x /= C64::new(norm, 0.0);
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vector on harmonic +2 only is centred at 2; one on ±1 equally at 0.
    #[test]
    fn mean_harmonics_of_simple_weights() {
        assert_eq!(mean_harmonic(&[0.0, 0.0, 0.0, 0.0, 1.0]), Some(2.0));
        assert_eq!(mean_harmonic(&[0.0, 1.0, 0.0, 1.0, 0.0]), Some(0.0));
        assert_eq!(mean_harmonic(&[0.0; 3]), None);
    }

    /// `cos θ` is `z_{±1} = 1/2`; `e^{iθ} = cos θ + i sin θ` is `z_1 = 1` alone.
    #[test]
    fn real_layout_weights_split_cosines_and_sines() {
        let (one, i, zero) = (C64::new(1.0, 0.0), C64::new(0.0, 1.0), C64::new(0.0, 0.0));
        let cos = DVector::from_vec(vec![zero, one, zero]);
        assert_eq!(real_layout_weights(&cos, 1, 1), vec![0.25, 0.0, 0.25]);
        let exp = DVector::from_vec(vec![zero, one, i]);
        assert_eq!(real_layout_weights(&exp, 1, 1), vec![0.0, 0.0, 1.0]);
    }

    /// The null vector of a rank-deficient matrix, to round-off.
    #[test]
    fn null_vector_of_a_singular_matrix() {
        let t = DMatrix::from_fn(3, 3, |r, c| {
            C64::new((r + 1) as f64 * (c as f64 - 1.0), 0.0)
        });
        let x = null_vector(&t).expect("found");
        assert!((&t * &x).norm() <= 1e-12);
    }

    /// A growing root centred two harmonics out is dropped; a centred or decaying one kept.
    #[test]
    fn growing_edge_copies_are_dropped() {
        let roots = vec![
            C64::new(1.0, 2500.0),
            C64::new(1.0, 10.0),
            C64::new(-1.0, 2600.0),
        ];
        let kept = without_edge_copies(roots, |s| Some(if s.im > 1000.0 { 2.0 } else { 0.1 }));
        assert_eq!(kept, vec![C64::new(1.0, 10.0), C64::new(-1.0, 2600.0)]);
    }
}
