//! The Taylor coefficients of `LANES` motions of one small model at once: the recurrence of
//! `series.rs` compiled for the model (its linear part, mass inverse, polynomial springs,
//! gaps and loads as flat tables, no dispatch per element) and run lane by lane on arrays of
//! `LANES` numbers, which the compiler maps onto the processor's vector registers (two AVX2
//! registers of four `f64`). Each lane has its own start `(t0, y0)` and gap modes — a gap's
//! force is `a (k u + c u̇) − s k g` with `a ∈ {0, 1}` and `s = ±1` per lane, so the lanes
//! run the same instructions —, and each lane's numbers come from the same operations
//! whatever the other lanes hold: a motion's series does not depend on the lane it ran in
//! or its neighbours.
//!
//! The `basins` map runs its cells through it (`poincare::run_strobes`), `LANES` cells per
//! recurrence instead of one.
//!
//! # References
//! À. Jorba and M. Zou, "A software package for the numerical integration of ODEs by means of
//! high-order Taylor methods", Experimental Mathematics 14 (2005) 99–117, Sect. 2 (the
//! recurrences); F. Biscani and D. Izzo, "Revisiting high-order Taylor methods for
//! astrodynamics and celestial mechanics", MNRAS 504 (2021) 2614–2628, Sect. 5 (the batch
//! mode: several trajectories in the vector lanes).

use super::laws::GapMode;
use super::mass::MassSolver;
use super::trig::cos_sin;
use super::{weights, Hybrid, Series};
use nsd_model::flat::ContactLaw;
use nsd_model::system::Attach;
use nsd_model::time_fn::{Harmonic, Prepared};

/// Motions per recurrence: eight `f64`, two AVX2 registers. The recurrence is a chain of
/// short dependent sums, bound by the latency of its additions rather than their number,
/// so two independent registers per operation fill the gaps: on the free-play basin map
/// eight lanes take ~8 % less time than four (the map byte for byte the same); sixteen
/// overflow the registers.
pub(crate) const LANES: usize = 8;

/// Largest DOF count compiled into a tape: its linear part and mass inverse are kept as
/// dense rows' nonzeros, which stay cheaper than the banded and sparse layouts of
/// `linear.rs` and `mass.rs` only on small models (the basin maps' few DOFs).
const TAPE_MAX_DOFS: usize = 32;

/// One number per lane.
pub(super) type Lane = [f64; LANES];

/// A row's nonzero entries `(column, value)`.
type Row = Vec<(usize, f64)>;

/// Polynomial springs taken `S` at a time: each one's stretch `u = wᵀx` and force
/// `k2 u² + k3 u³`, with the coefficients `u_k` and `(u²)_k` of the block's springs side by
/// side, so that one pass over `j` sums the Cauchy products of all `S` (independent sums
/// that do not wait on each other, each pair of terms loaded once per spring).
struct Springs<const S: usize> {
    w: [Row; S],
    k2: [f64; S],
    k3: [f64; S],
    u: Vec<[Lane; S]>,
    u2: Vec<[Lane; S]>,
}

/// The springs in blocks of three, the last of one or two (the kernels compiled per size).
enum SpringBlock {
    One(Springs<1>),
    Two(Springs<2>),
    Three(Springs<3>),
}

/// An exact gap with a law affine in `(δ, δ̇)`: force `k δ + c δ̇`.
struct Gap {
    w: Row,
    k: f64,
    c: f64,
    g: f64,
}

/// Where one lane's motion starts: time, state and the gaps' modes.
#[derive(Clone, Copy)]
pub(crate) struct LaneStart<'a> {
    pub(crate) t0: f64,
    pub(crate) y: &'a [f64],
    pub(crate) modes: &'a [GapMode],
}

/// The model compiled for the lanes, with the recurrence's work arrays.
pub(crate) struct Tape {
    n: usize,
    order: usize,
    /// `M⁻¹(−[K | C])` row by row: `ẍ_i += Σ r_ij y_j` over the state `y = [x, ẋ]`.
    linear: Vec<Row>,
    /// `M⁻¹` times the elements' directions row by row: `ẍ_i += Σ d_ie f_e` over the
    /// elements' forces (`forces`: the harmonics, the polynomial springs, the gaps).
    elements: Vec<Row>,
    /// `M⁻¹` times the constant force (static load and the loads' constant terms).
    constant: Vec<f64>,
    /// Per harmonic: its phase data and `A ωᵏ/k!` for `k = 0 … order`.
    harmonics: Vec<(Harmonic, Vec<f64>)>,
    springs: Vec<SpringBlock>,
    gaps: Vec<Gap>,
    /// `Y_k` at `k · 2n + i`.
    coef: Vec<Lane>,
    /// Per gap and lane: `a` (acting or not) and `s k g` (the clearance's force), from the
    /// lanes' modes at their starts.
    modes: Vec<(Lane, Lane)>,
    /// Per harmonic: `cos`, `sin` of its phase at each lane's start.
    phases: Vec<[Lane; 2]>,
    /// The current coefficient of each element's force in every lane, in the order of
    /// `elements`' columns: computed first, then summed row by row in registers (added into
    /// the rows element by element, each addition waited on the store of the one before).
    forces: Vec<Lane>,
}

impl Tape {
    /// The tape of `h` for series of `order`, or `None` when the model is not polynomial
    /// (`Hybrid::not_polynomial`), has more than `TAPE_MAX_DOFS` DOFs or a sparse mass
    /// factor.
    pub(crate) fn new(h: &mut Hybrid, order: usize) -> Option<Tape> {
        let n = h.form.n;
        if h.not_polynomial().is_some()
            || n > TAPE_MAX_DOFS
            || matches!(h.form.mass, MassSolver::Sparse(_))
        {
            return None;
        }
        let mut unit = vec![0.0; 2 * n];
        let mut columns = Vec::with_capacity(2 * n);
        for j in 0..2 * n {
            unit[j] = 1.0;
            let mut f = vec![0.0; n];
            let (x, v) = unit.split_at(n);
            h.form.linear.subtract(h.form.sys, x, v, &mut f);
            columns.push(f);
            unit[j] = 0.0;
        }
        let mass = &h.form.mass;
        let linear = rows(
            n,
            &columns.iter().map(|f| mass.solve(f)).collect::<Vec<_>>(),
        );
        let mut constant = h.form.sys.static_load.clone();
        let mut harmonics = Vec::new();
        let mut directions = Vec::new();
        for (dof, load) in &h.form.loads {
            let Prepared::Harmonics(c0, hs) = load else {
                return None;
            };
            constant[*dof] += c0;
            // A harmonic of zero amplitude adds nothing (the seed model's `Q2 = 0`).
            for hm in hs.iter().filter(|hm| hm.amplitude != 0.0) {
                let mut scale = hm.amplitude;
                let scales = (0..=order)
                    .map(|k| {
                        if k > 0 {
                            scale *= hm.omega / k as f64;
                        }
                        scale
                    })
                    .collect();
                harmonics.push((*hm, scales));
                directions.push(mass.solve_sparse(n, &[(*dof, 1.0)]));
            }
        }
        let constant = mass.solve(&constant);
        // An element's force `f` acts as `−f` on side a's DOF and `+f` on side b's: the
        // negated stretch weights.
        let direction = |a: Attach, b: Attach| {
            let sides: Vec<_> = weights(a, b).iter().map(|&(i, w)| (i, -w)).collect();
            mass.solve_sparse(n, &sides)
        };
        for &(a, b, ..) in &h.form.poly {
            directions.push(direction(a, b));
        }
        let springs = h
            .form
            .poly
            .chunks(3)
            .map(|c| SpringBlock::new(c, order))
            .collect();
        // `not_polynomial` admits the laws affine in `(δ, δ̇)` only.
        let mut gaps = Vec::new();
        for g in &h.form.gaps {
            let (k, c) = match g.law {
                ContactLaw::Linear { k } => (k, 0.0),
                ContactLaw::KelvinVoigt { k, c, .. } => (k, c),
                _ => return None,
            };
            let w = weights(g.a, g.b);
            gaps.push(Gap { w, k, c, g: g.g });
            directions.push(direction(g.a, g.b));
        }
        Some(Tape {
            n,
            order,
            linear,
            elements: rows(n, &directions),
            constant,
            modes: vec![([0.0; LANES], [0.0; LANES]); gaps.len()],
            phases: vec![[[0.0; LANES]; 2]; harmonics.len()],
            harmonics,
            springs,
            gaps,
            coef: vec![[0.0; LANES]; (order + 1) * 2 * n],
            forces: vec![[0.0; LANES]; directions.len()],
        })
    }

    /// The series of each started lane's motion, in its modes, into `out[lane]` (each of
    /// `order + 1` coefficients); a lane without a start computes zeros and is not read.
    pub(crate) fn fill(&mut self, starts: &[Option<LaneStart>; LANES], out: &mut [Series]) {
        let m = 2 * self.n;
        for (l, start) in starts.iter().enumerate() {
            for i in 0..m {
                self.coef[i][l] = start.map_or(0.0, |s| s.y[i]);
            }
        }
        for (slot, (hm, _)) in self.phases.iter_mut().zip(&self.harmonics) {
            let phase = starts.map(|start| hm.omega * start.map_or(0.0, |s| s.t0) + hm.phase);
            (slot[0], slot[1]) = cos_sin(&phase);
        }
        for (gi, (gap, (acting, clearance))) in self.gaps.iter().zip(&mut self.modes).enumerate() {
            for (l, start) in starts.iter().enumerate() {
                let side = match start.map(|s| s.modes[gi]) {
                    Some(GapMode::Plus) => 1.0,
                    Some(GapMode::Minus) => -1.0,
                    _ => 0.0,
                };
                (acting[l], clearance[l]) = (side * side, side * gap.k * gap.g);
            }
        }
        let n = self.n;
        for k in 0..self.order {
            self.element_forces(k);
            let inv = 1.0 / (k + 1) as f64;
            let (done, next) = self.coef.split_at_mut((k + 1) * m);
            let (yk, (x1, v1)) = (&done[k * m..], next[..m].split_at_mut(n));
            for i in 0..n {
                let mut acc = [if k == 0 { self.constant[i] } else { 0.0 }; LANES];
                for &(j, r) in &self.linear[i] {
                    add_scaled(&mut acc, r, &yk[j]);
                }
                for &(e, d) in &self.elements[i] {
                    add_scaled(&mut acc, d, &self.forces[e]);
                }
                for l in 0..LANES {
                    x1[i][l] = yk[n + i][l] * inv;
                    v1[i][l] = acc[l] * inv;
                }
            }
        }
        let started = starts.iter().zip(out.iter_mut()).enumerate();
        for (l, (_, series)) in started.filter(|(_, (start, _))| start.is_some()) {
            for (c, v) in series.coef.iter_mut().zip(&self.coef) {
                *c = v[l];
            }
        }
    }

    /// The `k`-th coefficient of every element's force in every lane into `self.forces`
    /// (`series.rs`'s `force_coefficient`, lane-wise, before `M⁻¹`).
    fn element_forces(&mut self, k: usize) {
        let (n, m) = (self.n, 2 * self.n);
        let yk = &self.coef[k * m..(k + 1) * m];
        let (harmonic, rest) = self.forces.split_at_mut(self.harmonics.len());
        let (mut spring, gap) = rest.split_at_mut(rest.len() - self.gaps.len());
        let phases = self.harmonics.iter().zip(&self.phases);
        for (f, ((_, scales), [cos, sin])) in harmonic.iter_mut().zip(phases) {
            // d^k/dt^k cos(θ) = cos(θ + kπ/2): cos, −sin, −cos, sin in turn.
            let (trig, sign) = match k % 4 {
                0 => (cos, 1.0),
                1 => (sin, -1.0),
                2 => (cos, -1.0),
                _ => (sin, 1.0),
            };
            *f = [0.0; LANES];
            add_scaled(f, sign * scales[k], trig);
        }
        for block in &mut self.springs {
            let (now, later) = spring.split_at_mut(block.len());
            block.forces(k, yk, now);
            spring = later;
        }
        for (f, (g, (acting, clearance))) in gap.iter_mut().zip(self.gaps.iter().zip(&self.modes)) {
            let u = combine(&g.w, yk);
            let rate = combine(&g.w, &yk[n..]);
            for l in 0..LANES {
                let constant = if k == 0 { clearance[l] } else { 0.0 };
                f[l] = acting[l] * (g.k * u[l] + g.c * rate[l]) - constant;
            }
        }
    }
}

impl SpringBlock {
    /// The block of the springs `(a, b, k2, k3)` (one to three), for series of `order`.
    fn new(springs: &[(Attach, Attach, f64, f64)], order: usize) -> SpringBlock {
        fn block<const S: usize>(
            springs: &[(Attach, Attach, f64, f64)],
            order: usize,
        ) -> Springs<S> {
            Springs {
                w: std::array::from_fn(|s| weights(springs[s].0, springs[s].1)),
                k2: std::array::from_fn(|s| springs[s].2),
                k3: std::array::from_fn(|s| springs[s].3),
                u: vec![[[0.0; LANES]; S]; order + 1],
                u2: vec![[[0.0; LANES]; S]; order + 1],
            }
        }
        match springs.len() {
            1 => SpringBlock::One(block(springs, order)),
            2 => SpringBlock::Two(block(springs, order)),
            _ => SpringBlock::Three(block(springs, order)),
        }
    }

    fn len(&self) -> usize {
        match self {
            SpringBlock::One(_) => 1,
            SpringBlock::Two(_) => 2,
            SpringBlock::Three(_) => 3,
        }
    }

    /// The `k`-th coefficient of the block's spring forces into `out` (its springs' slots).
    fn forces(&mut self, k: usize, yk: &[Lane], out: &mut [Lane]) {
        match self {
            SpringBlock::One(b) => b.forces(k, yk, out),
            SpringBlock::Two(b) => b.forces(k, yk, out),
            SpringBlock::Three(b) => b.forces(k, yk, out),
        }
    }
}

impl<const S: usize> Springs<S> {
    /// (u²)_k = 2 Σ_{j < k−j} u_j u_{k−j} + u_{k/2}² (k even), (u³)_k = Σ_j (u²)_j u_{k−j},
    /// force `k2 (u²)_k + k3 (u³)_k`, for the block's springs at once.
    #[inline(always)]
    fn forces(&mut self, k: usize, yk: &[Lane], out: &mut [Lane]) {
        for s in 0..S {
            self.u[k][s] = combine(&self.w[s], yk);
        }
        let half = k.div_ceil(2);
        let sq = cauchy(&self.u[..half], &self.u[k + 1 - half..=k]);
        let middle = if k.is_multiple_of(2) {
            self.u[k / 2]
        } else {
            [[0.0; LANES]; S]
        };
        for ((u2, sq), middle) in self.u2[k].iter_mut().zip(&sq).zip(&middle) {
            for l in 0..LANES {
                u2[l] = 2.0 * sq[l] + middle[l] * middle[l];
            }
        }
        let cube = cauchy(&self.u2[..=k], &self.u[..=k]);
        for (s, f) in out.iter_mut().enumerate() {
            for l in 0..LANES {
                f[l] = self.k2[s] * self.u2[k][s][l] + self.k3[s] * cube[s][l];
            }
        }
    }
}

/// The nonzero rows of the matrix whose columns are `columns` (each of length `n`).
fn rows(n: usize, columns: &[Vec<f64>]) -> Vec<Row> {
    (0..n)
        .map(|i| {
            let entries = columns.iter().enumerate().map(|(j, c)| (j, c[i]));
            entries.filter(|(_, v)| *v != 0.0).collect()
        })
        .collect()
}

/// `acc += r · y`, lane-wise, summed in a copy: written in place, each lane was stored
/// before the next one's load (`acc` might alias `y` for all the compiler knows), and the
/// sums stayed scalar.
#[inline(always)]
fn add_scaled(acc: &mut Lane, r: f64, y: &Lane) {
    let mut sum = *acc;
    for l in 0..LANES {
        sum[l] = r.mul_add(y[l], sum[l]);
    }
    *acc = sum;
}

/// `acc += a · b`, lane-wise.
#[inline(always)]
fn add_product(acc: &mut Lane, a: &Lane, b: &Lane) {
    for l in 0..LANES {
        acc[l] = a[l].mul_add(b[l], acc[l]);
    }
}

/// `Σ_j a_j b_{n−1−j}` lane-wise for each of `S` series side by side, over `n = a.len() =
/// b.len()` pairs (a Cauchy product's coefficient, `b` read backwards), in two interleaved
/// partial sums per series: with the `S` series, `2 S` sums that do not wait on each other.
#[inline(always)]
fn cauchy<const S: usize>(a: &[[Lane; S]], b: &[[Lane; S]]) -> [Lane; S] {
    let mut parts = [[[0.0; LANES]; S]; 2];
    let (a2, b2) = (a.chunks_exact(2), b.rchunks_exact(2));
    let (ra, rb) = (a2.remainder(), b2.remainder());
    for (x, y) in a2.zip(b2) {
        for s in 0..S {
            add_product(&mut parts[0][s], &x[0][s], &y[1][s]);
            add_product(&mut parts[1][s], &x[1][s], &y[0][s]);
        }
    }
    for (x, y) in ra.iter().zip(rb) {
        for s in 0..S {
            add_product(&mut parts[0][s], &x[s], &y[s]);
        }
    }
    std::array::from_fn(|s| std::array::from_fn(|l| parts[0][s][l] + parts[1][s][l]))
}

/// `Σ wᵢ yᵢ`, lane-wise.
#[inline(always)]
fn combine(w: &[(usize, f64)], y: &[Lane]) -> Lane {
    let mut out = [0.0; LANES];
    for &(i, wi) in w {
        add_scaled(&mut out, wi, &y[i]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The free-play oscillator of paper 000 (cubic springs, a two-sided gap, harmonic
    /// loads on both masses) and a Kelvin–Voigt gap with tension on a consistent mass.
    const MODEL: &str = r#"
model freeplay {
  mass m1 = 1
  mass m2 = 1.5
  spring ground -- m1 { k = 1, k3 = 0.1 }
  spring ground -- m2 { k = 1.2, k3 = 0.2, k2 = 0.05 }
  damper ground -- m1 { c = 0.02 }
  spring m1 -- m2 { k = 0.5, k3 = 0.05 }
  damper m1 -- m2 { c = 0.01 }
  gap g: m1 -- ground { clearance = 0.05, sides = both, law = linear(10) }
  gap h: m2 -- m1 { clearance = 0.1, sides = both, law = kelvin_voigt(20, 0.3), tension = true }
  force m1 = 0.1 * cos(1.2 * t) + 0.02
  force m2 = 0.3 * cos(2.4 * t + 0.3) - 0.1 * sin(1.2 * t)
}
"#;

    /// Every lane's series equals `Hybrid::taylor`'s for the same start and modes, to a
    /// few rounding errors of the coefficients' size (the sums run in another order), and
    /// whatever the other lanes hold.
    #[test]
    fn lanes_match_the_scalar_recurrence() {
        let prog = nsd_lang::Program::from_source("t.nsd", MODEL, None).expect("parses");
        let model = nsd_lang::resolve(&prog, "freeplay", &[]).expect("resolves");
        let sys = nsd_model::assemble(&model);
        let mut h = Hybrid::new(&sys, false).expect("integrable");
        let order = 20;
        let mut tape = Tape::new(&mut h, order).expect("polynomial");
        // Starts and modes that differ from lane to lane.
        let base = [
            [0.3, -0.2, 0.5, 0.1],
            [-0.7, 0.4, -0.2, 0.9],
            [0.01, 0.02, -0.03, 0.0],
        ];
        let states: Vec<[f64; 4]> = (0..LANES)
            .map(|l| base[l % 3].map(|v| v * (1.0 + 0.3 * l as f64)))
            .collect();
        let mode_pairs = [
            [GapMode::Plus, GapMode::Open],
            [GapMode::Minus, GapMode::Plus],
            [GapMode::Open, GapMode::Open],
            [GapMode::Plus, GapMode::Minus],
        ];
        let modes: Vec<[GapMode; 2]> = (0..LANES).map(|l| mode_pairs[l % 4]).collect();
        let times: Vec<f64> = (0..LANES).map(|l| 12.3 * l as f64 + 0.1).collect();
        let starts: [Option<LaneStart>; LANES] = std::array::from_fn(|l| {
            Some(LaneStart {
                t0: times[l],
                y: &states[l],
                modes: &modes[l],
            })
        });
        let mut out: Vec<Series> = (0..LANES).map(|_| Series::new(&h, order)).collect();
        tape.fill(&starts, &mut out);
        let mut alone: Vec<Series> = (0..LANES).map(|_| Series::new(&h, order)).collect();
        let lone = |l: usize| -> [Option<LaneStart>; LANES] {
            std::array::from_fn(|m| if m == l { starts[l] } else { None })
        };
        let mut scalar = Series::new(&h, order);
        for l in 0..LANES {
            h.state.gaps = modes[l].to_vec();
            h.taylor(times[l], &states[l], &mut scalar);
            tape.fill(&lone(l), &mut alone);
            for (k, (a, b)) in scalar.rows().zip(out[l].rows()).enumerate() {
                let size = a.iter().fold(1e-300_f64, |s, v| s.max(v.abs()));
                for (x, y) in a.iter().zip(b) {
                    assert!((x - y).abs() <= 1e-13 * size, "lane {l}, k {k}: {x} vs {y}");
                }
            }
            assert_eq!(out[l].coef, alone[l].coef, "lane {l} alone");
        }
    }
}
