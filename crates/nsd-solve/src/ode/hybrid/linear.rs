//! The linear part `f −= K x + C ẋ` of the right-hand side, stored in the layout whose
//! product is cheapest for the system at hand: dense rows `[K | C]` for small systems, the
//! nonzero diagonals of `K` and `C` for banded ones (chains, beams: every product a
//! contiguous, vectorised sweep), the assembled CSR rows otherwise.
//!
//! Every layout sums each row's terms in ascending column order, the order of the CSR rows,
//! so the three give the same forces (up to the sign of an exact zero): switching layout
//! changes the cost of an evaluation, not the trajectory.

use nsd_model::system::System;
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

/// A square matrix by its nonzero diagonals (DIA storage), in ascending offset order. A
/// diagonal below the main one that mirrors the one above (a symmetric `K` or `C`, equal bit
/// for bit) is read from the upper one's storage: the product then streams one vector less
/// per mirrored pair.
pub(super) struct Diagonals {
    diags: Vec<Diagonal>,
    /// The stored diagonals.
    stores: Vec<Vec<f64>>,
}

/// One diagonal `o`: `A[i, i + o] = stores[store][i − shift]` for `0 ≤ i + o < n`.
struct Diagonal {
    o: isize,
    store: usize,
    shift: usize,
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
        let mut full: Vec<Vec<f64>> = offsets.iter().map(|_| vec![0.0; n]).collect();
        for (v, (i, j)) in a.iter() {
            let o = j as isize - i as isize;
            if let Ok(k) = offsets.binary_search(&o) {
                full[k][i] += *v;
            }
        }
        // `A[i, i − o] = A[i − o, i]`: the lower diagonal −o is the upper one shifted by o.
        let mirror = |k: usize| -> Option<usize> {
            let o = -offsets[k];
            let up = offsets.binary_search(&o).ok().filter(|_| o > 0)?;
            let o = o as usize;
            let same = (o..n).all(|i| full[k][i].to_bits() == full[up][i - o].to_bits());
            same.then_some(up)
        };
        let mirrors: Vec<Option<usize>> = (0..offsets.len()).map(mirror).collect();
        let mut stores = Vec::new();
        let mut store_of = vec![usize::MAX; offsets.len()];
        for (k, d) in full.into_iter().enumerate() {
            if mirrors[k].is_none() {
                store_of[k] = stores.len();
                stores.push(d);
            }
        }
        let diags = offsets
            .iter()
            .enumerate()
            .map(|(k, &o)| match mirrors[k] {
                Some(up) => Diagonal {
                    o,
                    store: store_of[up],
                    shift: o.unsigned_abs(),
                },
                None => Diagonal {
                    o,
                    store: store_of[k],
                    shift: 0,
                },
            })
            .collect();
        Some(Diagonals { diags, stores })
    }

    /// The entries `A[i, i + o]` of diagonal `d` for the rows `first..last` (all inside it).
    fn entries(&self, d: &Diagonal, first: usize, last: usize) -> &[f64] {
        &self.stores[d.store][first - d.shift..last - d.shift]
    }

    /// `acc = (A z)[lo .. lo + acc.len()]`, diagonal by diagonal in ascending offset (= each
    /// row's ascending column order).
    fn product_rows(&self, z: &[f64], lo: usize, acc: &mut [f64]) {
        let n = z.len() as isize;
        let hi = (lo + acc.len()) as isize;
        acc.fill(0.0);
        for d in &self.diags {
            let o = d.o;
            // The rows `i` of the block whose column `i + o` is inside the matrix.
            let first = (lo as isize).max(-o);
            let last = hi.min(n - o);
            if first >= last {
                continue;
            }
            let (first, last) = (first as usize, last as usize);
            let col = (first as isize + o) as usize;
            let rows = last - first;
            for ((a, dv), zv) in acc[first - lo..last - lo]
                .iter_mut()
                .zip(self.entries(d, first, last))
                .zip(&z[col..col + rows])
            {
                *a += dv * zv;
            }
        }
    }
}

/// Rows per block of the banded product: the block's partial sums `K x` stay in the
/// first-level cache (a 1 KiB buffer).
const BAND_BLOCK_ROWS: usize = 128;
/// Most diagonals of one matrix summed in a single pass over a block (chains have three,
/// Euler–Bernoulli beams' DOF-interleaved bands more: those take one pass per diagonal).
const FUSED_DIAGONALS_MAX: usize = 4;

/// The diagonals of one matrix over the rows of one block, each with the slice of the vector
/// it multiplies there (`d[j][r]` times `z[j][r]`).
struct BlockTerms<'a> {
    d: [&'a [f64]; FUSED_DIAGONALS_MAX],
    z: [&'a [f64]; FUSED_DIAGONALS_MAX],
    count: usize,
}

impl Diagonals {
    /// The terms of the rows `lo..hi` when all the diagonals are whole there (every row of
    /// the block has every diagonal's entry) and there are at most `FUSED_DIAGONALS_MAX`.
    fn block_terms<'a>(&'a self, z: &'a [f64], lo: usize, hi: usize) -> Option<BlockTerms<'a>> {
        if self.diags.len() > FUSED_DIAGONALS_MAX {
            return None;
        }
        let n = z.len() as isize;
        let mut terms = BlockTerms {
            d: [&[]; FUSED_DIAGONALS_MAX],
            z: [&[]; FUSED_DIAGONALS_MAX],
            count: self.diags.len(),
        };
        for (j, d) in self.diags.iter().enumerate() {
            let (a, b) = (lo as isize + d.o, hi as isize + d.o);
            if a < 0 || b > n {
                return None;
            }
            terms.d[j] = self.entries(d, lo, hi);
            terms.z[j] = &z[a as usize..b as usize];
        }
        Some(terms)
    }
}

impl Diagonals {
    /// How far below the main diagonal the band reaches (the first rows miss those terms).
    fn reach_back(&self) -> usize {
        self.diags.first().map_or(0, |d| (-d.o).max(0) as usize)
    }

    /// How far above the main diagonal the band reaches (the last rows miss those terms).
    fn reach_forward(&self) -> usize {
        self.diags.last().map_or(0, |d| d.o.max(0) as usize)
    }
}

impl BlockTerms<'_> {
    /// `out[r] = ((0 + d₀z₀) + d₁z₁) + …`, the sum `product_rows` makes, in one pass.
    fn sum(&self, out: &mut [f64]) {
        self.apply(|_, o, s| *o = s, out);
    }

    /// `f[r] −= kx[r] + (C ẋ)[r]` with this block's `C ẋ` summed as in `sum`.
    fn subtract_with(&self, kx: &[f64], f: &mut [f64]) {
        let kx = &kx[..f.len()];
        self.apply(|r, o, s| *o -= kx[r] + s, f);
    }

    /// `put(out[r], row sum r)` for every row, the count of diagonals a constant of the loop.
    fn apply(&self, put: impl FnMut(usize, &mut f64, f64), out: &mut [f64]) {
        let (d, z) = (&self.d, &self.z);
        match self.count {
            0 => rows::<0>([], [], put, out),
            1 => rows::<1>([d[0]], [z[0]], put, out),
            2 => rows::<2>([d[0], d[1]], [z[0], z[1]], put, out),
            3 => rows::<3>([d[0], d[1], d[2]], [z[0], z[1], z[2]], put, out),
            _ => rows::<4>(*d, *z, put, out),
        }
    }
}

/// `put(r, out[r], ((0 + d₀[r]z₀[r]) + d₁[r]z₁[r]) + …)` for `T` diagonals.
#[inline(always)]
fn rows<const T: usize>(
    d: [&[f64]; T],
    z: [&[f64]; T],
    mut put: impl FnMut(usize, &mut f64, f64),
    out: &mut [f64],
) {
    let m = out.len();
    let (d, z) = (d.map(|s| &s[..m]), z.map(|s| &s[..m]));
    for (r, o) in out.iter_mut().enumerate() {
        put(r, o, (0..T).fold(0.0, |acc, j| acc + d[j][r] * z[j][r]));
    }
}

/// `K` and `C` in the layout of their product (see the module docs).
pub(super) enum LinearPart {
    /// Small systems: the rows `[K | C]` dense (row-major, `2n` per row).
    Dense(Vec<f64>),
    /// Banded systems: the diagonals of `K` and `C`.
    Diagonals { k: Diagonals, c: Diagonals },
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
            (Some(k), Some(c)) if csr => LinearPart::Diagonals { k, c },
            _ => LinearPart::Rows,
        }
    }

    /// `f −= K x + C ẋ`. Inlined where it is called: the dense rows of a small system are
    /// a few products, fewer than a call's cost (the Taylor recurrence takes them once per
    /// order); the other layouts in `subtract_sparse`.
    #[inline]
    pub(super) fn subtract(&mut self, sys: &System, x: &[f64], v: &[f64], f: &mut [f64]) {
        let n = x.len();
        if let LinearPart::Dense(kc) = self {
            for (row, fr) in kc.chunks_exact(2 * n).zip(f.iter_mut()) {
                let (kr, cr) = row.split_at(n);
                let kx: f64 = kr.iter().zip(x).map(|(a, b)| a * b).sum();
                let cv: f64 = cr.iter().zip(v).map(|(a, b)| a * b).sum();
                *fr -= kx + cv;
            }
            return;
        }
        self.subtract_sparse(sys, x, v, f);
    }

    /// `subtract` in the banded and CSR layouts.
    fn subtract_sparse(&mut self, sys: &System, x: &[f64], v: &[f64], f: &mut [f64]) {
        let n = x.len();
        match self {
            // Taken by `subtract`.
            LinearPart::Dense(_) => {}
            LinearPart::Diagonals { k, c } => {
                // Block by block, so that the partial sums never leave the cache.
                let (mut kx, mut cv) = ([0.0; BAND_BLOCK_ROWS], [0.0; BAND_BLOCK_ROWS]);
                // Inside the band's ends each row has all its terms: one pass per matrix. The
                // rows of the ends (as many as the widest offsets) are blocks of their own.
                let head = k.reach_back().max(c.reach_back()).min(n);
                let tail = k.reach_forward().max(c.reach_forward()).min(n - head);
                let blocks = [(0, head), (head, n - tail), (n - tail, n)]
                    .into_iter()
                    .flat_map(|(a, b)| {
                        (a..b)
                            .step_by(BAND_BLOCK_ROWS)
                            .map(move |lo| (lo, (lo + BAND_BLOCK_ROWS).min(b)))
                    });
                for (lo, hi) in blocks {
                    let (fb, m) = (&mut f[lo..hi], hi - lo);
                    match k.block_terms(x, lo, lo + m) {
                        Some(t) => t.sum(&mut kx[..m]),
                        None => k.product_rows(x, lo, &mut kx[..m]),
                    }
                    if let Some(t) = c.block_terms(v, lo, lo + m) {
                        t.subtract_with(&kx[..m], fb);
                        continue;
                    }
                    c.product_rows(v, lo, &mut cv[..m]);
                    for ((fr, a), b) in fb.iter_mut().zip(&kx[..m]).zip(&cv[..m]) {
                        *fr -= a + b;
                    }
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
        // Whole, and in blocks of 3 rows (the last one short).
        for block in [n, 3] {
            let mut acc = vec![0.0; n];
            for (b, chunk) in acc.chunks_mut(block).enumerate() {
                dia.product_rows(&z, b * block, chunk);
            }
            for (row, r) in a.outer_iterator().enumerate() {
                let want: f64 = r.iter().map(|(j, v)| v * z[j]).sum();
                assert_eq!(acc[row], want, "row {row}: same terms in the same order");
            }
        }
        // The one-pass sum of an interior block (rows 2..5: every diagonal whole there).
        assert!(
            dia.block_terms(&z, 1, 4).is_none(),
            "offset −2 leaves row 1"
        );
        let terms = dia.block_terms(&z, 2, 5).expect("an interior block");
        let (mut one_pass, mut swept) = (vec![0.0; 3], vec![0.0; 3]);
        terms.sum(&mut one_pass);
        dia.product_rows(&z, 2, &mut swept);
        assert_eq!(one_pass, swept);
    }

    /// A symmetric band keeps one store per mirrored pair, with the same products.
    #[test]
    fn mirrored_diagonals_share_their_store() {
        let n = 9;
        let mut t = TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 2.0 + i as f64);
            if i + 1 < n {
                t.add_triplet(i, i + 1, -1.0 - 0.1 * i as f64);
                t.add_triplet(i + 1, i, -1.0 - 0.1 * i as f64);
            }
            if i + 3 < n {
                t.add_triplet(i, i + 3, 0.5);
                t.add_triplet(i + 3, i, 0.25);
            }
        }
        let a: CsMat<f64> = t.to_csr();
        let dia = Diagonals::new(&a, n).expect("a band");
        assert_eq!(dia.diags.len(), 5);
        assert_eq!(dia.stores.len(), 4, "−1 mirrors +1; −3 differs from +3");
        let z: Vec<f64> = (0..n).map(|i| (i as f64 * 1.3).cos()).collect();
        let mut acc = vec![0.0; n];
        dia.product_rows(&z, 0, &mut acc);
        for (row, r) in a.outer_iterator().enumerate() {
            let want: f64 = r.iter().map(|(j, v)| v * z[j]).sum();
            assert_eq!(acc[row], want, "row {row}");
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
