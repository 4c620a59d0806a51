//! Hill's problem condensed onto the nonlinear DOFs: the Floquet exponents from a problem
//! whose size is set by the contacts' coefficients and the few modes that resonate within the
//! harmonics, not by the model.
//!
//! In complex harmonic coordinates (`z_k = (c_k − i s_k)/2`, `z_{−k} = conj`, k = −H..H)
//! the linear part of Hill's quadratic problem (`Balance::floquet`) is block diagonal,
//! `D(s + ikω) = (s + ikω)² M + (s + ikω) C + K` on block k, and the nonlinear Jacobian
//! `B` acts on the kept DOFs only. Condensing the others out (as `condense.rs` does for the
//! balance) leaves the nonlinear eigenproblem `(I + R(s) B) z_c = 0` of size
//! `n_c (2H + 1)`, with the receptance `R(s) = blockdiag_k [D(s + ikω)⁻¹]_cc`; under
//! proportional damping it is the modal sum (undamped shapes `φ_r`, modal damping `c_r`)
//!
//! `[D(λ)⁻¹]_cc = Σ_r φ_rc φ_rcᵀ / ((λ − λ_r⁺)(λ − λ_r⁻))`, `λ_r^± = (−c_r ± √(c_r² − 4ω_r²))/2`,
//!
//! whose poles in `s` are `μ = λ_r^± − ikω`. The poles within `KEEP_BAND` ω of the segment
//! `|Im s| ≤ (H + ½)ω` of the imaginary axis (where the full matrix's `2n` smallest `|Im s|`
//! lie; a few modes per harmonic) are kept as states `η` with residues
//! `±φ_rc φ_rcᵀ/(λ_r⁺ − λ_r⁻)` (partial fractions), the rest `R_rest(s)` is analytic there.
//! With `R_rest` frozen at `s₀` the problem is the standard eigenproblem
//! `s η = (diag μ − Vᵀ B (I + R_rest(s₀) B)⁻¹ U) η = A(s₀) η` (`U`, `V` the residues' columns),
//! whose eigenvalues at `s₀ = 0`, each moved by re-freezing `R_rest` at itself, start Newton's method on `det(I + R(s) B)` with every mode in `R`
//! (`(log det)' = tr(T⁻¹ T')`). Its roots are exactly the full Hill matrix's (not a modal
//! truncation): the tests find them equal to 1e-8. A state the nonlinear forces do not act on
//! keeps its pole. The poles left out stand for the exponents far from the axis (overdamped
//! modes, high harmonics of stiff modes) in the selection of the `2n` (`physical`), as
//! the linear poles they perturb. Cost per point: Newton steps of `(2H + 1)` modal sums of
//! `n_c × n_c` and an LU of `n_c (2H + 1)`, plus the eigenvalues of `A`; where `A` would not
//! be smaller than the full companion matrix, or a Newton start fails or two meet, the point
//! goes to the full matrix (`Hill::exponents`). A start whose Newton root lies nearer
//! another start is moved first (`relinearised`): close roots of two modes' families would
//! otherwise be found twice and one lost.
//!
//! # References
//! Lazarus, Thomas (2010), "A harmonic-based method for computing the stability of periodic
//! solutions of dynamical systems", C. R. Mécanique 338 (Hill's problem, eq. 16). Ruhe (1973),
//! "Algorithms for the nonlinear eigenvalue problem", SIAM J. Numer. Anal. 10 (successive
//! linear problems).

use super::super::condense::{Condensed, Modal};
use super::super::tolerances::{
    DEGENERATE_MODE_TOL, DISTINCT_ROOT_TOL, KEEP_BAND, RELINEARISATIONS, TRACK_FRACTION,
};
use super::super::Balance;
use super::centre;
use super::receptance::{whole, BlockDiagonal, Coupling, ModalSums};
use super::roots::{eigenvalues, eigenvector, newton, newton_from_each};
use crate::linalg::Lu;
use nalgebra::{Complex, DMatrix, DVector};
use std::cell::RefCell;

type C64 = Complex<f64>;

/// The condensed Hill problem of a balance (module docs).
pub(super) struct Reduced<'a> {
    cond: Condensed<'a>,
    /// The receptance at the kept DOFs (harmonics, poles, mode shapes).
    sums: ModalSums,
    /// The last point's roots, the starts of the next (`tracked`).
    last: RefCell<Option<Last>>,
}

/// The roots of the last point and what they were found with.
struct Last {
    /// The frequency of the last point.
    omega: f64,
    /// The kept poles (`Kept::key`).
    keys: Vec<(usize, usize, bool)>,
    /// The uncoupled states (`uncoupled`).
    uncoupled: Vec<usize>,
    /// The coupled roots.
    roots: Vec<Root>,
}

/// A coupled root of `T(s) = I + R(s) B`.
#[derive(Clone)]
struct Root {
    s: C64,
    /// Its rate `ds/dω`.
    rate: C64,
    /// Its eigenvector on the kept DOFs (unit null vector of `T(s)`, complex layout).
    z: DVector<C64>,
}

/// One kept pole `μ = λ_r^± − ikω`: harmonic index `k + H`, mode `r`, its residue factor.
struct Kept {
    block: usize,
    mode: usize,
    mu: C64,
    residue: C64,
    /// `λ⁺` (else `λ⁻`).
    plus: bool,
}

impl Kept {
    /// Which pole: harmonic block, mode and root, the same from point to point.
    fn key(&self) -> (usize, usize, bool) {
        (self.block, self.mode, self.plus)
    }
}

/// The states the nonlinear forces do not act on (no amplitude at the kept DOFs, or a
/// harmonic the elements leave out, as friction does the static one): a zero row of `Vᵀ B`,
/// hence of `A(s₀)` but its diagonal `μ` for every `s₀`, so their poles are roots as they
/// stand — known without forming `A`.
fn uncoupled(b: &DMatrix<C64>, phi_c: &DMatrix<f64>, kept: &[Kept]) -> Vec<usize> {
    let nc = phi_c.nrows();
    (0..kept.len())
        .filter(|&i| {
            let phi = phi_c.column(kept[i].mode).map(|x| C64::new(x, 0.0));
            let row = b.rows(kept[i].block * nc, nc).tr_mul(&phi);
            row.iter().all(|v| *v == C64::new(0.0, 0.0))
        })
        .collect()
}

impl<'a> Reduced<'a> {
    /// `None` unless the balance condenses by modal sums (proportional damping, no rigid
    /// mode) and no mode is critically damped (the partial fractions need `λ⁺ ≠ λ⁻`).
    pub(crate) fn new(hb: &'a Balance) -> Option<Reduced<'a>> {
        let cond = Condensed::new(hb)?;
        let modal = cond.modal()?;
        let mut poles = Vec::with_capacity(modal.omega2.len());
        for (w2, c) in modal.omega2.iter().zip(&modal.damping) {
            let root = C64::new(c * c - 4.0 * w2, 0.0).sqrt();
            let (plus, minus) = ((-c + root) / 2.0, (-c - root) / 2.0);
            if (plus - minus).norm() <= DEGENERATE_MODE_TOL * plus.norm().max(minus.norm()) {
                return None;
            }
            poles.push((plus, minus, (plus - minus).inv()));
        }
        let sums = ModalSums::new(hb.aft.harmonics, &modal.phi_c, poles);
        Some(Reduced {
            cond,
            sums,
            last: RefCell::new(None),
        })
    }

    fn modal(&self) -> &Modal {
        self.cond.modal().expect("built only with modal data")
    }

    /// The `2n` exponents selected as `Balance::floquet` does (`physical`), or `None` where
    /// the condensed problem does not pay or a root was not reached (the caller then solves
    /// the full Hill matrix).
    pub(crate) fn exponents(&self, q: &DVector<f64>, omega: f64) -> Option<Vec<C64>> {
        let b = Coupling::new(complex_basis(
            &self.cond.nonlinear_jacobian(q, omega),
            self.sums.h,
        ));
        let kept = self.kept(omega);
        // Fewer states than the full companion matrix's `2n(2H + 1)`, or nothing to gain.
        if 2 * kept.len() >= self.sums.poles.len() * (2 * self.sums.h + 1) {
            return None;
        }
        let uncoupled = uncoupled(&b.b, &self.modal().phi_c, &kept);
        // Each root with its rate `ds/dω` (the secant from the last point where it was
        // tracked, else its eigenvector's harmonic, `harmonic_rate`) and its eigenvector.
        let found: Option<Vec<Root>> = self.tracked(&b, omega, &kept, &uncoupled).or_else(|| {
            let a0 = self.linearised(&b, &kept, omega, C64::new(0.0, 0.0))?;
            self.started(&b, omega, &kept, &a0, &uncoupled)
        });
        *self.last.borrow_mut() = found.as_ref().map(|roots| Last {
            omega,
            keys: kept.iter().map(Kept::key).collect(),
            uncoupled: uncoupled.clone(),
            roots: roots.clone(),
        });
        let found = found?;
        let mut roots: Vec<C64> = self.far(omega);
        roots.extend(found.iter().map(|r| r.s));
        roots.extend(uncoupled.iter().map(|&i| kept[i].mu));
        roots.sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        let selected = super::physical(roots, 2 * self.modal().omega2.len(), omega);
        // The eigenvector of a root on the kept DOFs: Newton's for a coupled root, else the
        // null vector of `I + R(s) B`.
        let nc = self.modal().phi_c.nrows();
        let centre = |s: C64| {
            let z = match found.iter().find(|r| r.s == s) {
                Some(root) => root.z.clone(),
                None => centre::null_vector(
                    &self
                        .sums
                        .sum(omega, s, &|l, _, p| whole(l, p))
                        .hill_matrix(&b),
                )?,
            };
            centre::mean_harmonic(&centre::complex_layout_weights(&z, nc))
        };
        Some(centre::without_edge_copies(selected, centre))
    }

    /// The coupled roots from the eigenvalues of `A(0)` as Newton starts (module docs), or
    /// `None` where two starts meet or one fails (the point goes to the full matrix).
    fn started(
        &self,
        b: &Coupling,
        omega: f64,
        kept: &[Kept],
        a0: &DMatrix<C64>,
        uncoupled: &[usize],
    ) -> Option<Vec<Root>> {
        let thetas = eigenvalues(a0)?;
        // Newton from a start reached the root of another start if it lies nearer that one:
        // taken, it would be found twice and the start's own root lost.
        let own = |theta: C64, s: C64| {
            let mine = (s - theta).norm();
            thetas.iter().all(|&t| t == theta || (s - t).norm() >= mine)
        };
        // The starts taken (an uncoupled state's pole is a root as it stands, `uncoupled`),
        // each with the earlier one it is the conjugate of, if any.
        let taken: Vec<C64> = thetas
            .iter()
            .copied()
            .filter(|&theta| {
                !uncoupled.iter().any(|&i| {
                    (kept[i].mu - theta).norm() <= DISTINCT_ROOT_TOL * (theta.norm() + omega)
                })
            })
            .collect();
        let (twins, mut first) = newton_from_each(&self.sums, b, omega, &taken, &|_| None);
        let mut found: Vec<Root> = Vec::new();
        // Where each start led (`None`: dropped as beyond).
        let mut led: Vec<Option<Root>> = Vec::with_capacity(taken.len());
        for (i, &theta) in taken.iter().enumerate() {
            let known = |s: &C64| {
                found
                    .iter()
                    .any(|f| (f.s - s).norm() <= DISTINCT_ROOT_TOL * (s.norm() + omega))
            };
            // A start the frozen `R_rest(0)` placed beyond the kept segment (a stiff contact
            // pulls the stuck modes there) is dropped if it fails or meets another root:
            // there the selection's exponents are stood in for anyway (`far`).
            let beyond = !self.near(theta, omega);
            // The conjugate of a start taken leads to the conjugate of its root; else Newton
            // from the start itself first; only a start that fails, lands on a root already
            // found or nearer another start (the 100-pad beam at 1285.5 rad/s: from
            // −31.8 − 7360.3i onto −0.88 − 6889.9i, whose own start is 0.02 from it) is moved
            // closer (`relinearised`, an eigenproblem of A per move: on a reduced model every
            // mode is kept and A is as large as the modes × harmonics).
            let root = match twins[i] {
                Some(j) => led[j].as_ref().map(|r| self.conjugate(r)),
                None => first[i]
                    .take()
                    .filter(|(s, _)| !known(s) && own(theta, *s))
                    .or_else(|| {
                        self.relinearised(b, kept, omega, (a0, theta))
                            .and_then(|t| newton(&self.sums, b, omega, t, None))
                    })
                    .map(|(s, z)| Root {
                        s,
                        rate: self.harmonic_rate(&z),
                        z,
                    }),
            };
            // Two starts on one root would lose another: the point goes to the full matrix.
            let root = match root {
                Some(r) if !known(&r.s) => Some(r),
                _ if beyond => None,
                _ => return None,
            };
            found.extend(root.clone());
            led.push(root);
        }
        Some(found)
    }

    /// The conjugate of a root: `T(s̄) = J conj(T(s)) J` with `J` the reversal of the
    /// harmonic blocks (`k → −k`; the model is real), so its eigenvector is `J conj(z)`.
    fn conjugate(&self, root: &Root) -> Root {
        let nc = self.modal().phi_c.nrows();
        let blocks = 2 * self.sums.h + 1;
        let z = DVector::from_fn(root.z.len(), |i, _| {
            root.z[(blocks - 1 - i / nc) * nc + i % nc].conj()
        });
        Root {
            s: root.s.conj(),
            rate: root.rate.conj(),
            z,
        }
    }

    /// The coupled roots by Newton from the last point's, where the kept poles and the
    /// uncoupled states are the same: an exponent moves continuously along a branch, so
    /// its last value is a start a step or two from it, and no eigenproblem of `A` is
    /// solved. A root that moves more than `TRACK_FRACTION` of its distance to the nearest
    /// other last root (two roots meeting, or Newton jumping to another) or lands on one
    /// already found sends the point back to `started`.
    fn tracked(
        &self,
        b: &Coupling,
        omega: f64,
        kept: &[Kept],
        uncoupled: &[usize],
    ) -> Option<Vec<Root>> {
        let last = self.last.borrow();
        let last = last.as_ref().filter(|l| {
            l.uncoupled == uncoupled && l.keys.iter().copied().eq(kept.iter().map(Kept::key))
        })?;
        // Each root moved on at its rate.
        let shift = omega - last.omega;
        let starts: Vec<C64> = last.roots.iter().map(|r| r.s + r.rate * shift).collect();
        // Newton from the last eigenvectors.
        let (twins, mut solved) =
            newton_from_each(&self.sums, b, omega, &starts, &|i| Some(&last.roots[i].z));
        let mut found: Vec<Root> = Vec::with_capacity(starts.len());
        for (i, &from) in starts.iter().enumerate() {
            let apart = starts
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, r)| (r - from).norm())
                .chain(uncoupled.iter().map(|&k| (kept[k].mu - from).norm()))
                .fold(f64::INFINITY, f64::min);
            // The conjugate of a start tracked leads to the conjugate of its root.
            let before = &last.roots[i];
            let (s, z) = match twins[i] {
                Some(j) => {
                    let twin = self.conjugate(&found[j]);
                    (twin.s, twin.z)
                }
                None => solved[i].take()?,
            };
            let met = found
                .iter()
                .any(|f| (f.s - s).norm() <= DISTINCT_ROOT_TOL * (s.norm() + omega));
            if met || (s - from).norm() > TRACK_FRACTION * apart {
                return None;
            }
            let rate = if shift == 0.0 {
                before.rate
            } else {
                (s - before.s) / shift
            };
            found.push(Root { s, rate, z });
        }
        Some(found)
    }

    /// A root's rate `ds/dω ≈ −ik̄`, `k̄` the mean harmonic of its eigenvector `z` (the null
    /// vector of `I + R(s) B`): a root near the pole `λ_r − ikω` lives on harmonic `k` and
    /// moves with it. (The nearest pole would do only where poles of different harmonics
    /// are far apart; on a beam they are not.)
    fn harmonic_rate(&self, z: &DVector<C64>) -> C64 {
        let nc = self.modal().phi_c.nrows();
        centre::mean_harmonic(&centre::complex_layout_weights(z, nc))
            .map_or(C64::new(0.0, 0.0), |k| C64::new(0.0, -k))
    }

    /// Whether a pole `μ` lies within `KEEP_BAND` ω of the segment `{iy : |y| ≤ (H + ½)ω}`
    /// (where the full Hill matrix's `2n` smallest `|Im s|` are taken from).
    fn near(&self, mu: C64, omega: f64) -> bool {
        let beyond = (mu.im.abs() - (self.sums.h as f64 + 0.5) * omega).max(0.0);
        mu.re.hypot(beyond) <= KEEP_BAND * omega
    }

    /// The poles not `near` the axis, standing for the exponents they become: those lie
    /// beyond `KEEP_BAND` ω of the segment the selection takes its `2n` from, and only fill
    /// its count (the full matrix takes them with the overdamped modes' real poles and the
    /// truncation's edge copies).
    fn far(&self, omega: f64) -> Vec<C64> {
        let h = self.sums.h as i64;
        (-h..=h)
            .flat_map(|k| {
                self.sums.poles.iter().flat_map(move |&(plus, minus, _)| {
                    let shift = C64::new(0.0, k as f64 * omega);
                    [plus - shift, minus - shift]
                })
            })
            .filter(|mu| !self.near(*mu, omega))
            .collect()
    }

    /// The poles `near` the imaginary axis.
    fn kept(&self, omega: f64) -> Vec<Kept> {
        let h = self.sums.h as i64;
        let mut kept = Vec::new();
        for (block, k) in (-h..=h).enumerate() {
            for (mode, &(plus, minus, inv)) in self.sums.poles.iter().enumerate() {
                for (lambda, residue, upper) in [(plus, inv, true), (minus, -inv, false)] {
                    let mu = lambda - C64::new(0.0, k as f64 * omega);
                    if self.near(mu, omega) {
                        kept.push(Kept {
                            block,
                            mode,
                            mu,
                            residue,
                            plus: upper,
                        });
                    }
                }
            }
        }
        kept
    }

    /// `A(s₀) = diag μ − Vᵀ B (I + R_rest(s₀) B)⁻¹ U` (module docs), in the complex layout.
    fn linearised(&self, b: &Coupling, kept: &[Kept], omega: f64, s0: C64) -> Option<DMatrix<C64>> {
        let modal = self.modal();
        let nc = modal.phi_c.nrows();
        let dim = b.b.nrows();
        let rest = self.rest(omega, s0);
        let mut u = DMatrix::<C64>::zeros(dim, kept.len());
        for (j, p) in kept.iter().enumerate() {
            for a in 0..nc {
                u[(p.block * nc + a, j)] = C64::new(modal.phi_c[(a, p.mode)], 0.0);
            }
        }
        let w = Lu::new(&rest.hill_matrix(b)).solve_columns(&u)?;
        let coupling = u.transpose() * &b.b * w;
        Some(DMatrix::from_fn(kept.len(), kept.len(), |i, j| {
            let diag = if i == j {
                kept[i].mu
            } else {
                C64::new(0.0, 0.0)
            };
            diag - kept[i].residue * coupling[(i, j)]
        }))
    }

    /// `R_rest(s)`: the receptance at the kept DOFs without the kept poles, block diagonal
    /// over `k` (complex layout). A mode with neither pole kept enters whole,
    /// `1/((λ − λ⁺)(λ − λ⁻))`, which is better conditioned than its two fractions.
    fn rest(&self, omega: f64, s: C64) -> BlockDiagonal {
        self.sums
            .sum(omega, s, &|lambda, shift, (plus, minus, inv)| match (
                self.near(plus - shift, omega),
                self.near(minus - shift, omega),
            ) {
                (false, false) => whole(lambda, (plus, minus, inv)),
                (true, false) => -inv / (lambda - minus),
                (false, true) => inv / (lambda - plus),
                (true, true) => C64::new(0.0, 0.0),
            })
    }

    /// A Newton start moved closer: `RELINEARISATIONS` times to the eigenvalue of `A(s)`
    /// (`R_rest` frozen at the start instead of at 0: a start far up the axis, where
    /// `R_rest(0)` is a poor stand-in, could otherwise reach a root another start owns) whose
    /// eigenvector overlaps most the start's in `A(0)`. The nearest eigenvalue would not do
    /// where roots of two modes lie close: on the 100-pad beam at 1526 rad/s the start
    /// −32.0 − 6680.0i of the second mode's family (its root −33.9 − 6953.5i) is 31 from a
    /// root of the first's.
    fn relinearised(
        &self,
        b: &Coupling,
        kept: &[Kept],
        omega: f64,
        (a0, mut s): (&DMatrix<C64>, C64),
    ) -> Option<C64> {
        let mut eta = eigenvector(a0, s, omega)?;
        for _ in 0..RELINEARISATIONS {
            let a = self.linearised(b, kept, omega, s)?;
            let overlap = |v: &DVector<C64>| v.dotc(&eta).norm();
            let (theta, v) = eigenvalues(&a)?
                .into_iter()
                .filter_map(|t| eigenvector(&a, t, omega).map(|v| (t, v)))
                .max_by(|x, y| overlap(&x.1).total_cmp(&overlap(&y.1)))?;
            (s, eta) = (theta, v);
        }
        Some(s)
    }
}

/// The real-layout Jacobian `B` (coefficient `p` of kept DOF `a` at `p·n_c + a`, `p` =
/// constant, then `c_k`, `s_k`) in the complex layout (`z_k` of DOF `a` at
/// `(k + H)·n_c + a`): `P B P⁻¹` with `z_{±k} = (c_k ∓ i s_k)/2`, `c_k = z_k + z_{−k}`,
/// `s_k = i (z_k − z_{−k})`. `P` and `P⁻¹` have at most two entries per row and column:
/// each entry of the result is a sum of at most four of `B`'s (the dense products cost
/// `2 (n_c (2H + 1))³`, more than the whole Hill problem of a point).
fn complex_basis(b: &DMatrix<f64>, h: usize) -> DMatrix<C64> {
    let dim = b.nrows();
    let nc = dim / (2 * h + 1);
    let (one, half, i) = (C64::new(1.0, 0.0), C64::new(0.5, 0.0), C64::new(0.0, 1.0));
    // Row j of P and column j of P⁻¹ as (real-layout index, factor).
    let mut p_row = vec![Vec::with_capacity(2); dim];
    let mut inverse_column = vec![Vec::with_capacity(2); dim];
    for a in 0..nc {
        p_row[h * nc + a].push((a, one));
        inverse_column[h * nc + a].push((a, one));
        for k in 1..=h {
            let (plus, minus) = ((h + k) * nc + a, (h - k) * nc + a);
            let (c, s) = ((2 * k - 1) * nc + a, 2 * k * nc + a);
            p_row[plus].extend([(c, half), (s, -half * i)]);
            p_row[minus].extend([(c, half), (s, half * i)]);
            inverse_column[plus].extend([(c, one), (s, i)]);
            inverse_column[minus].extend([(c, one), (s, -i)]);
        }
    }
    DMatrix::from_fn(dim, dim, |j, l| {
        p_row[j]
            .iter()
            .flat_map(|&(r, alpha)| {
                inverse_column[l]
                    .iter()
                    .map(move |&(c, beta)| alpha * beta * b[(r, c)])
            })
            .sum()
    })
}
