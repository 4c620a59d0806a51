//! The linear part `f −= K x + C ẋ` of the right-hand side, stored in the layout whose
//! product is cheapest for the system at hand: dense rows `[K | C]` for small systems, the
//! nonzero diagonals of `K` and `C` for banded ones (chains, beams: every product a
//! contiguous, vectorised sweep), the assembled CSR rows otherwise.
//!
//! Every layout sums each row's terms in ascending column order, the order of the CSR rows,
//! so the three give the same forces (up to the sign of an exact zero): switching layout
//! changes the cost of an evaluation, not the trajectory.

use crate::model::system::System;
use sprs::CsMat;

/// Largest DOF count whose `[K | C]` rows are kept dense: up to it a dense product beats the
/// sparse one (most models here are small), beyond it the dense rows' `2n²` storage and
/// work grow faster than the sparse product.
const DENSE_KC_ROWS_MAX_DOFS: usize = 32;

/// Largest ratio of the diagonal storage (`n` per nonzero diagonal) to the nonzeros of the
/// matrix for which the diagonal layout is used (dimensionless). A diagonal sweep costs about
/// half a CSR term per stored entry (no index load, two entries per vector instruction), so
/// up to this fill it is still faster; wider patterns (a far coupling that opens a long,
/// mostly empty diagonal) stay CSR.
const DIAGONAL_MAX_FILL: f64 = 2.0;

/// A square matrix by its nonzero diagonals (DIA storage), in ascending offset order.
pub(super) struct Diagonals {
    /// `(o, d)`: `d[i] = A[i, i + o]` where `0 ≤ i + o < n` (0 elsewhere).
    diags: Vec<(isize, Vec<f64>)>,
}

impl Diagonals {
    /// The diagonals of the `n × n` CSR matrix `a`, or `None` when they would store more than
    /// `DIAGONAL_MAX_FILL` times its nonzeros.
    fn new(a: &CsMat<f64>, n: usize) -> Option<Diagonals> {
        let mut offsets: Vec<isize> = a
            .iter()
            .map(|(_, (i, j))| j as isize - i as isize)
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        if (offsets.len() * n) as f64 > DIAGONAL_MAX_FILL * a.nnz().max(1) as f64 {
            return None;
        }
        let mut diags: Vec<(isize, Vec<f64>)> =
            offsets.iter().map(|&o| (o, vec![0.0; n])).collect();
        for (v, (i, j)) in a.iter() {
            let o = j as isize - i as isize;
            if let Ok(k) = offsets.binary_search(&o) {
                diags[k].1[i] += *v;
            }
        }
        Some(Diagonals { diags })
    }

    /// `acc = A z`, diagonal by diagonal in ascending offset (= each row's ascending column
    /// order).
    fn product(&self, z: &[f64], acc: &mut [f64]) {
        let n = acc.len();
        acc.fill(0.0);
        for (o, d) in &self.diags {
            let s = o.unsigned_abs().min(n);
            if *o >= 0 {
                for ((a, dv), zv) in acc[..n - s].iter_mut().zip(&d[..n - s]).zip(&z[s..]) {
                    *a += dv * zv;
                }
            } else {
                for ((a, dv), zv) in acc[s..].iter_mut().zip(&d[s..]).zip(&z[..n - s]) {
                    *a += dv * zv;
                }
            }
        }
    }
}

/// `K` and `C` in the layout of their product (see the module docs).
pub(super) enum LinearPart {
    /// Small systems: the rows `[K | C]` dense (row-major, `2n` per row).
    Dense(Vec<f64>),
    /// Banded systems: the diagonals of `K` and `C`, with the products' storage.
    Diagonals {
        k: Diagonals,
        c: Diagonals,
        kx: Vec<f64>,
        cv: Vec<f64>,
    },
    /// Any other: the assembled CSR rows of `sys.k`, `sys.c`.
    Rows,
}

impl LinearPart {
    /// The cheapest layout for `sys`.
    pub(super) fn new(sys: &System) -> LinearPart {
        let n = sys.n();
        if n <= DENSE_KC_ROWS_MAX_DOFS {
            let mut kc = vec![0.0; 2 * n * n];
            for (v, (i, j)) in sys.k.iter() {
                kc[i * 2 * n + j] += *v;
            }
            for (v, (i, j)) in sys.c.iter() {
                kc[i * 2 * n + n + j] += *v;
            }
            return LinearPart::Dense(kc);
        }
        let csr = sys.k.is_csr() && sys.c.is_csr();
        match (Diagonals::new(&sys.k, n), Diagonals::new(&sys.c, n)) {
            (Some(k), Some(c)) if csr => LinearPart::Diagonals {
                k,
                c,
                kx: vec![0.0; n],
                cv: vec![0.0; n],
            },
            _ => LinearPart::Rows,
        }
    }

    /// `f −= K x + C ẋ`.
    pub(super) fn subtract(&mut self, sys: &System, x: &[f64], v: &[f64], f: &mut [f64]) {
        let n = x.len();
        match self {
            LinearPart::Dense(kc) => {
                for (row, fr) in kc.chunks_exact(2 * n).zip(f.iter_mut()) {
                    let (kr, cr) = row.split_at(n);
                    let kx: f64 = kr.iter().zip(x).map(|(a, b)| a * b).sum();
                    let cv: f64 = cr.iter().zip(v).map(|(a, b)| a * b).sum();
                    *fr -= kx + cv;
                }
            }
            LinearPart::Diagonals { k, c, kx, cv } => {
                k.product(x, kx);
                c.product(v, cv);
                for ((fr, a), b) in f.iter_mut().zip(kx.iter()).zip(cv.iter()) {
                    *fr -= a + b;
                }
            }
            LinearPart::Rows => {
                for (row, (kr, cr)) in sys
                    .k
                    .outer_iterator()
                    .zip(sys.c.outer_iterator())
                    .enumerate()
                {
                    let kx: f64 = kr.iter().map(|(j, k)| k * x[j]).sum();
                    let cv: f64 = cr.iter().map(|(j, c)| c * v[j]).sum();
                    f[row] -= kx + cv;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    /// A banded matrix with an empty interior diagonal and a skipped entry, against the CSR
    /// product.
    #[test]
    fn diagonal_product_equals_the_csr_product() {
        let n = 7;
        let mut t = TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 2.0 + i as f64);
            if i + 2 < n {
                t.add_triplet(i, i + 2, -0.5 * i as f64 - 1.0);
                t.add_triplet(i + 2, i, 0.25);
            }
            if i + 1 < n && i != 3 {
                t.add_triplet(i, i + 1, 1.5);
            }
        }
        let a: CsMat<f64> = t.to_csr();
        let dia = Diagonals::new(&a, n).expect("a band is stored by diagonals");
        assert_eq!(dia.diags.len(), 4, "offsets −2, 0, 1, 2 (−1 is empty)");
        let z: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut acc = vec![0.0; n];
        dia.product(&z, &mut acc);
        for (row, r) in a.outer_iterator().enumerate() {
            let want: f64 = r.iter().map(|(j, v)| v * z[j]).sum();
            assert_eq!(acc[row], want, "row {row}: same terms in the same order");
        }
    }

    /// A far coupling (a ring closure) opens a mostly empty diagonal: CSR is kept.
    #[test]
    fn wide_patterns_stay_csr() {
        let n = 50;
        let mut t = TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 1.0);
        }
        for i in 0..5 {
            t.add_triplet(i, n - 1 - i, 1.0);
        }
        assert!(Diagonals::new(&t.to_csr(), n).is_none());
    }
}
