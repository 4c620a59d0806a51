//! The exact linearisation of the hybrid right-hand side in the current modes, for the stiff
//! method: `f = [v, M⁻¹F]` with `F = f(t) − K x − C v − f_nl`, so
//! `K̃ = −∂F/∂x = K + Σₑ kₑ wₑwₑᵀ` and `C̃ = −∂F/∂v = C + Σₑ cₑ wₑwₑᵀ`, where each
//! nonlinear element adds its law's tangent `(kₑ, cₑ) = (∂fₑ/∂u, ∂fₑ/∂u̇)` along its weights
//! `wₑ` (rank one, at its DOFs): polynomial springs `2k₂u + 3k₃u²`, gaps in contact the
//! law's tangent (smoothed gaps the sigmoid force's slope, paper 000 eq. 8), Jenkins
//! elements `kt` while stuck; sliding Coulomb contacts and open gaps add nothing. A 2-D
//! friction contact (paper 003, eqs. 24–25) adds `kt t tᵀ + kn n nᵀ` stuck (`t`, `n` the
//! weights of `u_t`, `u_n`), `kn n nᵀ` sliding and nothing separated.
//!
//! Stuck Coulomb contacts and held stops act through constraint forces solved with the
//! state (`constraints.rs`); there the tangent is not given and RODAS takes finite
//! differences. So is it while a 2-D contact with a variable load slides: its tangent
//! `ξ μ kn t nᵀ` is not symmetric, and the stage solve is an LDLᵀ. So is it for a model whose `M`, `K` or `C` is not symmetric (the sparse
//! stage solve is an LDLᵀ).

use super::contact2d::Contact2d;
use super::laws::GapMode;
use super::Hybrid;
use crate::ode::step::{Rhs, SecondOrder};
use nsd_model::flat::ContactLaw;
use nsd_model::system::System;
use sprs::CsMat;
use std::collections::BTreeSet;

/// The positions of `w wᵀ`'s entries in the common pattern, with their values `wᵢwⱼ`.
type Slots = Vec<(usize, f64)>;

/// An element's DOF weights `w` (its relative coordinate is `Σ wᵢ xᵢ`).
type Weights = Vec<(usize, f64)>;

/// The common pattern of `M`, `K`, `C` and the elements' `w wᵀ`, with `K`, `C` on it and the
/// slots of each element.
pub(super) struct TangentForm {
    lin: SecondOrder,
    k0: Vec<f64>,
    c0: Vec<f64>,
    poly: Vec<Slots>,
    gaps: Vec<Slots>,
    jenkins: Vec<Slots>,
    /// The 2-D contacts' `t tᵀ` and `n nᵀ`.
    contacts: Vec<(Slots, Slots)>,
}

/// Whether `a` equals its transpose exactly.
fn symmetric(a: &CsMat<f64>) -> bool {
    a.iter().all(|(v, (i, j))| a.get(j, i) == Some(v))
}

impl TangentForm {
    /// The form of `sys` with the elements' weights (`[poly, gaps, jenkins]`, in the
    /// hybrid form's order) and the 2-D contacts; `None` when `M`, `K` or `C` is not
    /// symmetric.
    pub(super) fn new(
        sys: &System,
        [poly, gaps, jenkins]: [&[Weights]; 3],
        contacts: &[Contact2d],
    ) -> Option<TangentForm> {
        if ![&sys.m, &sys.k, &sys.c].into_iter().all(symmetric) {
            return None;
        }
        let n = sys.n();
        let mut entries: BTreeSet<(usize, usize)> = BTreeSet::new();
        for a in [&sys.m, &sys.k, &sys.c] {
            entries.extend(a.iter().map(|(_, (i, j))| (i, j)));
        }
        entries.extend((0..n).map(|i| (i, i)));
        // A contact's t and n share its DOFs: its block couples all of them.
        let blocks = contacts
            .iter()
            .map(|c| c.tw.iter().chain(&c.nw).copied().collect::<Weights>());
        for w in poly
            .iter()
            .chain(gaps)
            .chain(jenkins)
            .cloned()
            .chain(blocks)
        {
            for &(i, _) in &w {
                entries.extend(w.iter().map(|&(j, _)| (i, j)));
            }
        }
        let mut indptr = vec![0; n + 1];
        for &(i, _) in &entries {
            indptr[i + 1] += 1;
        }
        for i in 0..n {
            indptr[i + 1] += indptr[i];
        }
        let indices: Vec<usize> = entries.iter().map(|&(_, j)| j).collect();
        let slot = |i: usize, j: usize| {
            let row = &indices[indptr[i]..indptr[i + 1]];
            indptr[i]
                + row
                    .binary_search(&j)
                    .expect("every entry is in the pattern")
        };
        let on_pattern = |a: &CsMat<f64>| {
            let mut data = vec![0.0; indices.len()];
            for (v, (i, j)) in a.iter() {
                data[slot(i, j)] += *v;
            }
            data
        };
        let (m, k0, c0) = (on_pattern(&sys.m), on_pattern(&sys.k), on_pattern(&sys.c));
        let outer = |w: &Weights| -> Slots {
            w.iter()
                .flat_map(|&(i, wi)| w.iter().map(move |&(j, wj)| (i, j, wi * wj)))
                .map(|(i, j, v)| (slot(i, j), v))
                .collect()
        };
        let slots = |list: &[Weights]| -> Vec<Slots> { list.iter().map(outer).collect() };
        let (poly, gaps, jenkins) = (slots(poly), slots(gaps), slots(jenkins));
        let contacts = contacts
            .iter()
            .map(|c| (outer(&c.tw), outer(&c.nw)))
            .collect();
        let m = CsMat::new((n, n), indptr, indices, m);
        Some(TangentForm {
            lin: SecondOrder {
                m,
                k: k0.clone(),
                c: c0.clone(),
            },
            k0,
            c0,
            poly,
            gaps,
            jenkins,
            contacts,
        })
    }
}

/// Adds `value · w wᵀ` (given by its slots) to `data`.
fn add(data: &mut [f64], slots: &Slots, value: f64) {
    if value != 0.0 {
        for &(s, w) in slots {
            data[s] += value * w;
        }
    }
}

impl Hybrid<'_> {
    /// `K̃` and `C̃` at `(t, y)` in the current modes, or `None` where a bilateral
    /// constraint acts (a stuck Coulomb contact, a held stop), a 2-D contact's tangent is not
    /// symmetric, or the model has no form.
    fn tangent_at(&mut self, t: f64, y: &[f64]) -> Option<&SecondOrder> {
        let state = &self.state;
        let constrained = state.friction.iter().any(|mode| {
            !matches!(
                mode,
                super::FrictionMode::SlipPos | super::FrictionMode::SlipNeg
            )
        }) || state.any_held();
        let contacts = self.form.contacts.iter().zip(&state.contacts);
        if constrained || !contacts.clone().all(|(ct, s)| ct.symmetric_tangent(s.mode)) {
            return None;
        }
        let mut tangent = self.form.tangent.take()?;
        let form = &self.form;
        let (x, v) = y.split_at(form.n);
        tangent.lin.k.copy_from_slice(&tangent.k0);
        tangent.lin.c.copy_from_slice(&tangent.c0);
        let (k, c) = (&mut tangent.lin.k, &mut tangent.lin.c);
        for (&(a, b, k2, k3), slots) in form.poly.iter().zip(&tangent.poly) {
            let u = form.relative(a, b, t, x);
            add(k, slots, 2.0 * k2 * u + 3.0 * k3 * u * u);
        }
        let gaps = form.gaps.iter().zip(&state.gaps).zip(&state.entry_speed);
        for (((gap, mode), &entry), slots) in gaps.zip(&tangent.gaps) {
            let u = form.relative(gap.a, gap.b, t, x);
            let rate = form.rate(gap.a, t, v) - form.rate(gap.b, t, v);
            let (ku, cu) = match (gap.smooth, gap.law, mode) {
                (Some(s), ContactLaw::Linear { k }, _) => {
                    let slope = nsd_model::smoothing::gap_force(k, gap.g, gap.sides, s, u).1;
                    (slope, 0.0)
                }
                (_, _, GapMode::Open) => (0.0, 0.0),
                (_, _, GapMode::Plus) => gap.normal_tangent(entry, u - gap.g, rate),
                // F = −N(−(u + g), −u̇): the two sign changes cancel in the tangent.
                (_, _, GapMode::Minus) => gap.normal_tangent(entry, -(u + gap.g), -rate),
            };
            add(k, slots, ku);
            add(c, slots, cu);
        }
        for ((jk, s), slots) in form
            .jenkins
            .iter()
            .zip(&state.jenkins)
            .zip(&tangent.jenkins)
        {
            add(k, slots, jk.stiffness(s.mode));
        }
        for ((ct, s), (t_slots, n_slots)) in contacts.zip(&tangent.contacts) {
            let (kt, kn) = ct.stiffness(s.mode);
            add(k, t_slots, kt);
            add(k, n_slots, kn);
        }
        self.form.tangent = Some(tangent);
        self.form.tangent.as_ref().map(|f| &f.lin)
    }
}

impl Rhs for Hybrid<'_> {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.rhs(t, y, dy);
    }

    fn tangent(&mut self, t: f64, y: &[f64]) -> Option<&SecondOrder> {
        self.tangent_at(t, y)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ContactMode;
    use super::*;

    /// Masses with a polynomial spring, gaps in contact by four laws (one smoothed, one on
    /// its negative side), a stuck Jenkins element and Rayleigh damping.
    const MODEL: &str = "model t {
      mass a = 1
      mass b = 2
      mass c = 0.5
      mass d = 1.5
      spring ground -- a { k = 3, k2 = 0.7, k3 = 2 }
      spring a -- b { k = 5 }
      spring b -- c { k = 2 }
      spring c -- d { k = 1 }
      gap g1: b -- ground { clearance = 0.01, law = hertz(40, 1.5) }
      gap g2: c -- a { clearance = 0.02, sides = both, law = kelvin_voigt(30, 0.4) }
      gap g3: d -- ground { clearance = 0.01, law = hunt_crossley(50, 0.6) }
      gap g4: a -- d { clearance = 0.01, sides = both, law = linear(20), smooth = sigmoid(50) }
      friction j: d -- b { law = jenkins, kt = 7, force = 100 }
      damping rayleigh { alpha = 0.1, beta = 0.01 }
    }";

    /// `K̃` and `C̃` against central differences of the right-hand side's accelerations,
    /// `−M⁻¹K̃ = ∂a/∂x`, `−M⁻¹C̃ = ∂a/∂v`, to 1e-6 relative to the largest entry: the
    /// increment 1e-6 leaves a truncation error `O(1e-12 f''')` and a round-off `O(1e-10)`.
    #[test]
    fn tangent_matches_central_differences() {
        let sys = system(MODEL);
        let mut h = Hybrid::new(&sys, false).expect("integrable");
        // a = 0.1, b = 0.05 (g1 closed), c = −0.02 (g2: c − a = −0.12, closed on its negative
        // side), d = 0.03 (g3 closed), and velocities of both signs.
        let y = [0.1, 0.05, -0.02, 0.03, 0.3, -0.2, 0.1, 0.25];
        h.set_modes_from_state(0.0, &y);
        h.enter(2, 0.5);
        assert!(
            h.state.gaps[..3].iter().all(|m| *m != GapMode::Open),
            "{:?}",
            h.state.gaps
        );
        assert_tangent(&mut h, &sys, &y);
    }

    /// A planar mass on a 2-D contact at an angle (normal free) and a mass on one whose
    /// normal is held, Rayleigh damping.
    const CONTACTS: &str = "model t {
      mass p = 1 { dofs = (x, y) }
      mass q = 2
      spring ground -- p.x { k = 3 }
      spring ground -- p.y { k = 2 }
      spring p.x -- q { k = 5 }
      friction c1: p -- ground { law = contact2d, kt = 7, kn = 11, mu = 0.4, N0 = 1, angle = 0.3 }
      friction c2: q -- ground { law = contact2d, kt = 13, kn = 17, mu = 0.3, N0 = 2 }
      damping rayleigh { alpha = 0.1, beta = 0.01 }
    }";

    /// The 2-D contacts' tangent (paper 003, eqs. 24–25) against central differences, as
    /// above: both stuck (`kt t tᵀ + kn n nᵀ`), the first separated and the held one
    /// sliding (`kn n nᵀ` with `n` empty: nothing); and none while the free one slides (its
    /// `ξ μ kn t nᵀ` is not symmetric).
    #[test]
    fn contact2d_tangent_matches_central_differences() {
        let sys = system(CONTACTS);
        let mut h = Hybrid::new(&sys, false).expect("integrable");
        let y = [0.1, 0.05, -0.02, 0.3, -0.2, 0.1];
        h.set_friction_from_state(0.0, &mut y.clone());
        h.state.contacts[0].w -= 0.01;
        assert_eq!(h.state.contacts[0].mode, ContactMode::Stick);
        assert_tangent(&mut h, &sys, &y);
        h.state.contacts[0].mode = ContactMode::Separated;
        h.state.contacts[1].mode = ContactMode::SlipPos;
        assert_tangent(&mut h, &sys, &y);
        h.state.contacts[0].mode = ContactMode::SlipNeg;
        assert!(h.tangent(0.0, &y).is_none());
    }

    /// The assembled system of the model `t` in `src`.
    fn system(src: &str) -> System {
        let prog = nsd_lang::Program::from_source("<t>", src, None).expect("parses");
        let model = nsd_lang::resolve(&prog, "t", &[]).expect("resolves");
        nsd_model::assemble(&model)
    }

    /// `K̃` and `C̃` of `h` at `y` against central differences of its accelerations.
    fn assert_tangent(h: &mut Hybrid, sys: &System, y: &[f64]) {
        let n = sys.n();
        let mass: Vec<f64> = (0..n)
            .map(|i| sys.m.get(i, i).copied().unwrap_or(0.0))
            .collect();
        let lin = h.tangent(0.0, y).expect("no constraint acts");
        let (k, c, m) = (lin.k.clone(), lin.c.clone(), lin.m.clone());
        let dense = |vals: &[f64]| {
            let mut out = vec![vec![0.0; n]; n];
            for (v, (i, j)) in CsMat::new(
                m.shape(),
                m.indptr().raw_storage().to_vec(),
                m.indices().to_vec(),
                vals.to_vec(),
            )
            .iter()
            {
                out[i][j] += v;
            }
            out
        };
        let (kd, cd) = (dense(&k), dense(&c));
        let eps = 1e-6;
        let mut worst: f64 = 0.0;
        let mut scale: f64 = 0.0;
        for col in 0..2 * n {
            let (mut yp, mut ym) = (y.to_vec(), y.to_vec());
            yp[col] += eps;
            ym[col] -= eps;
            let (mut fp, mut fm) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
            h.eval(0.0, &yp, &mut fp);
            h.eval(0.0, &ym, &mut fm);
            for row in 0..n {
                let fd = -(fp[n + row] - fm[n + row]) / (2.0 * eps) * mass[row];
                let exact = if col < n {
                    kd[row][col]
                } else {
                    cd[row][col - n]
                };
                worst = worst.max((fd - exact).abs());
                scale = scale.max(exact.abs());
            }
        }
        assert!(
            worst < 1e-6 * scale,
            "largest deviation {worst:e} of {scale:e}"
        );
    }
}
