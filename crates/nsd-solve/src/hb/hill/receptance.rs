//! The receptance of a modal model at the kept DOFs, block diagonal over the harmonics:
//! `blockdiag_k Σ_r w(s + ikω) φ_rc φ_rcᵀ` for the weights Hill's condensed problem needs
//! (the whole receptance, its derivative, the receptance without the kept poles).

use nalgebra::{Complex, DMatrix, DVector};

type C64 = Complex<f64>;

/// A weight per mode: `(λ, ikω, (λ⁺, λ⁻, 1/(λ⁺ − λ⁻)))` → the mode's factor.
pub(super) type Weight<'w> = &'w dyn Fn(C64, C64, (C64, C64, C64)) -> C64;

/// The modal sums at the kept DOFs of one balance.
pub(super) struct ModalSums {
    /// Harmonics of the balance, H.
    pub(super) h: usize,
    /// Kept DOFs, `n_c`.
    nc: usize,
    /// Per mode `(λ⁺, λ⁻, 1/(λ⁺ − λ⁻))`.
    pub(super) poles: Vec<(C64, C64, C64)>,
    /// The kept DOF pairs `(a, b)`, `a ≤ b`, of the symmetric sums.
    pairs: Vec<(usize, usize)>,
    /// `φ_ar φ_br` per pair (rows) and mode `r` (columns).
    products: DMatrix<f64>,
}

impl ModalSums {
    /// The sums of the mode shapes `phi_c` (kept DOFs × modes) with poles `poles`.
    pub(super) fn new(h: usize, phi_c: &DMatrix<f64>, poles: Vec<(C64, C64, C64)>) -> ModalSums {
        let nc = phi_c.nrows();
        let pairs: Vec<(usize, usize)> =
            (0..nc).flat_map(|a| (a..nc).map(move |b| (a, b))).collect();
        let products = DMatrix::from_fn(pairs.len(), poles.len(), |row, r| {
            let (a, b) = pairs[row];
            phi_c[(a, r)] * phi_c[(b, r)]
        });
        ModalSums {
            h,
            nc,
            poles,
            pairs,
            products,
        }
    }

    /// The whole receptance `R(s)` at the kept DOFs and its derivative `R'(s)`:
    /// `1/den`, `−(2λ + c_r)/den²` with `den = (λ − λ⁺)(λ − λ⁻)`, `λ = s + ikω`.
    pub(super) fn receptance(&self, omega: f64, s: C64) -> (BlockDiagonal, BlockDiagonal) {
        let [r, rate] = self.sums(
            omega,
            s,
            [
                &|lambda, _, p| whole(lambda, p),
                // c_r = −(λ⁺ + λ⁻).
                &|lambda, _, (plus, minus, _)| {
                    -(2.0 * lambda - plus - minus)
                        * ((lambda - plus) * (lambda - minus)).inv().powi(2)
                },
            ],
        );
        (r, rate)
    }

    /// `blockdiag_k Σ_r weight(λ, ikω, poles_r) φ_rc φ_rcᵀ` with `λ = s + ikω`.
    pub(super) fn sum(&self, omega: f64, s: C64, weight: Weight) -> BlockDiagonal {
        let [r] = self.sums(omega, s, [weight]);
        r
    }

    /// Several modal sums at once, as one real product `P W`: `P` holds `φ_ac φ_bc` per
    /// kept pair `a ≤ b` (rows) and mode (columns), `W` the real and imaginary parts of each
    /// weight per harmonic block. On a 1000-mode beam with ten kept DOFs this is the cost of
    /// a Newton step; as a matrix product it runs at the machine's speed.
    fn sums<const N: usize>(&self, omega: f64, s: C64, weights: [Weight; N]) -> [BlockDiagonal; N] {
        let (nc, blocks) = (self.nc, 2 * self.h + 1);
        let mut w = DMatrix::<f64>::zeros(self.poles.len(), 2 * blocks * N);
        for (f, weight) in weights.iter().enumerate() {
            for block in 0..blocks {
                let shift = C64::new(0.0, (block as f64 - self.h as f64) * omega);
                let col = 2 * (f * blocks + block);
                for (m, &p) in self.poles.iter().enumerate() {
                    let v = weight(s + shift, shift, p);
                    w[(m, col)] = v.re;
                    w[(m, col + 1)] = v.im;
                }
            }
        }
        let sums = &self.products * w;
        let symmetric = |col: usize| {
            let mut r = DMatrix::<f64>::zeros(nc, nc);
            for (row, &(a, b)) in self.pairs.iter().enumerate() {
                r[(a, b)] = sums[(row, col)];
                r[(b, a)] = sums[(row, col)];
            }
            r
        };
        std::array::from_fn(|f| {
            let col = |block: usize| 2 * (f * blocks + block);
            BlockDiagonal {
                re: (0..blocks).map(|k| symmetric(col(k))).collect(),
                im: (0..blocks).map(|k| symmetric(col(k) + 1)).collect(),
            }
        })
    }
}

/// A complex matrix block diagonal over the harmonics (a modal sum), kept as the real and
/// imaginary parts of its `n_c × n_c` blocks: its products are then real matrix products,
/// which run at the machine's speed (nalgebra's complex ones do not).
pub(super) struct BlockDiagonal {
    re: Vec<DMatrix<f64>>,
    im: Vec<DMatrix<f64>>,
}

/// The nonlinear Jacobian `B` in the complex layout, with its real and imaginary parts.
pub(super) struct Coupling {
    pub(super) b: DMatrix<C64>,
    re: DMatrix<f64>,
    im: DMatrix<f64>,
}

impl Coupling {
    pub(super) fn new(b: DMatrix<C64>) -> Coupling {
        Coupling {
            re: b.map(|x| x.re),
            im: b.map(|x| x.im),
            b,
        }
    }
}

impl BlockDiagonal {
    /// `T = I + R B`, block row by block row: four real products per block.
    pub(super) fn hill_matrix(&self, b: &Coupling) -> DMatrix<C64> {
        let (dim, nc) = (b.b.nrows(), self.re[0].nrows());
        let mut t = DMatrix::<C64>::zeros(dim, dim);
        let (mut re, mut im) = (DMatrix::zeros(nc, dim), DMatrix::zeros(nc, dim));
        for (block, (r_re, r_im)) in self.re.iter().zip(&self.im).enumerate() {
            let rows = block * nc;
            let (b_re, b_im) = (b.re.rows(rows, nc), b.im.rows(rows, nc));
            re.gemm(1.0, r_re, &b_re, 0.0);
            re.gemm(-1.0, r_im, &b_im, 1.0);
            im.gemm(1.0, r_re, &b_im, 0.0);
            im.gemm(1.0, r_im, &b_re, 1.0);
            for c in 0..dim {
                for a in 0..nc {
                    t[(rows + a, c)] = C64::new(re[(a, c)], im[(a, c)]);
                }
            }
        }
        for i in 0..dim {
            t[(i, i)] += C64::new(1.0, 0.0);
        }
        t
    }

    /// `R v`.
    pub(super) fn apply(&self, v: &DVector<C64>) -> DVector<C64> {
        let nc = self.re[0].nrows();
        let (v_re, v_im) = (v.map(|x| x.re), v.map(|x| x.im));
        let mut out = DVector::<C64>::zeros(v.len());
        for (block, (r_re, r_im)) in self.re.iter().zip(&self.im).enumerate() {
            let rows = block * nc;
            let (x, y) = (v_re.rows(rows, nc), v_im.rows(rows, nc));
            let (re, im) = (r_re * x - r_im * y, r_re * y + r_im * x);
            for a in 0..nc {
                out[rows + a] = C64::new(re[a], im[a]);
            }
        }
        out
    }
}

/// A mode's receptance weight `1/((λ − λ⁺)(λ − λ⁻))`.
pub(super) fn whole(lambda: C64, (plus, minus, _): (C64, C64, C64)) -> C64 {
    ((lambda - plus) * (lambda - minus)).inv()
}
