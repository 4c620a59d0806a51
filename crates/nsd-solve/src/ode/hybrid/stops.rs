//! Rigid stops: Newton's impact law for a general mass matrix (paper 004, Prop. 2.1), for
//! one stop or several closing at the same instant, against ground, another mass or the
//! moving base; persistent contact after a Zeno accumulation or a plastic impact, and the
//! lift-off test.
//!
//! Several stops closing together (a symmetric structure, a chain already in contact) take
//! their impulses from the multi-contact form of the law: with normals `n_i` (pointing away
//! from each stop), normal velocities `γ_i = n_iᵀv + wall terms` (negative when closing) and
//! `G = [n_iᵀM⁻¹n_j]` (the Delassus matrix), the impulses `Λ ≥ 0` solve the linear
//! complementarity problem `z = GΛ + (1 + e)γ⁻ ≥ 0, Λ ≥ 0, Λᵀz = 0`: each stop either
//! rebounds with exactly `γ⁺ = −eγ⁻` or receives no impulse and separates at least that
//! fast. For one stop this is Prop. 2.1 (with `e`); with `e = 1` on every active stop the
//! kinetic energy is kept (`ΔT = Λᵀγ⁻ + ½ΛᵀGΛ = 0`).

use super::constraints::Bilateral;
use super::laws::Held;
use super::{Action, EventFn, Hybrid};
use crate::ode::roots::Direction;
use crate::ode::tolerances::ON_STOP;
use nalgebra::{DMatrix, DVector};
use nsd_model::flat::Sides;

/// One stop's velocity jump at an impact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Jump {
    /// The stop (index into `stops`).
    pub(crate) stop: usize,
    /// The element's relative velocity `u̇` (walls included) before and after.
    pub(crate) before: f64,
    pub(crate) after: f64,
    /// The impulse `Λ ≥ 0` the stop gave, along its normal (N s for translational DOFs).
    pub(crate) impulse: f64,
}

/// Largest number of simultaneous stops whose complementarity problem is solved by
/// enumerating the active sets (2ᵐ small solves); beyond it, projected Gauss–Seidel.
const ENUMERATE_UP_TO: usize = 10;
/// Violation of complementarity (`Λ ≥ 0`, `z ≥ 0`, and projected Gauss–Seidel's last change)
/// accepted as round-off, relative to the largest `|(1 + e)γ|` (dimensionless).
const COMPLEMENTARITY: f64 = 1e-12;
/// Most projected Gauss–Seidel sweeps over the contacts.
const GAUSS_SEIDEL_SWEEPS: usize = 10_000;

impl Hybrid<'_> {
    /// The stops (indices into `events`) that take part in the impact located for
    /// `events[first]` at `(t, y)`: that one and every other stop closed at `t` (within the
    /// rounding of a located event, `ON_STOP` of the clearance scale) and closing.
    pub(crate) fn simultaneous(
        &self,
        events: &[EventFn],
        first: usize,
        t: f64,
        y: &[f64],
    ) -> Vec<usize> {
        let mut set = vec![first];
        for (k, ev) in events.iter().enumerate() {
            let Action::Impact { .. } = ev.action else {
                continue;
            };
            if k == first {
                continue;
            }
            let closed = self.event_value(ev, t, y).abs() <= ON_STOP * ev.c.abs().max(1.0);
            let rate = self.event_rate(ev, t, y);
            let closing = match ev.dir {
                Direction::Rising => rate > 0.0,
                Direction::Falling => rate < 0.0,
            };
            if closed && closing {
                set.push(k);
            }
        }
        set
    }

    /// Applies Newton's law to the stops `events[set]` at once (see the module docs) and
    /// returns each one's jump. A stop that is opening takes no impulse.
    pub(crate) fn impacts(
        &self,
        events: &[EventFn],
        set: &[usize],
        t: f64,
        y: &mut [f64],
    ) -> Vec<Jump> {
        let n = self.form.n;
        let stop_of = |ev: &EventFn| match ev.action {
            Action::Impact { stop } => stop,
            _ => unreachable!("simultaneous() keeps impacts only"),
        };
        // Normals pointing away from each stop: −w on the positive side, +w on the negative.
        let sign = |ev: &EventFn| match ev.dir {
            Direction::Rising => -1.0,
            Direction::Falling => 1.0,
        };
        let normals: Vec<Vec<f64>> = set
            .iter()
            .map(|&k| {
                let mut nv = vec![0.0; n];
                for &(i, wi) in &events[k].w {
                    nv[i] += sign(&events[k]) * wi;
                }
                nv
            })
            .collect();
        let minv_n: Vec<Vec<f64>> = normals.iter().map(|nv| self.form.mass.solve(nv)).collect();
        let g = DMatrix::from_fn(set.len(), set.len(), |i, j| {
            normals[i].iter().zip(&minv_n[j]).map(|(a, b)| a * b).sum()
        });
        let before: Vec<f64> = set
            .iter()
            .map(|&k| self.event_rate(&events[k], t, y))
            .collect();
        let gamma: Vec<f64> = set
            .iter()
            .zip(&before)
            .map(|(&k, u)| sign(&events[k]) * u)
            .collect();
        let e: Vec<f64> = set
            .iter()
            .map(|&k| self.form.stops[stop_of(&events[k])].e)
            .collect();
        let impulses = newton_impulses(&g, &gamma, &e);
        for (l, m) in impulses.iter().zip(&minv_n) {
            for i in 0..n {
                y[n + i] += l * m[i];
            }
        }
        set.iter()
            .zip(before)
            .zip(impulses)
            .map(|((&k, u), impulse)| Jump {
                stop: stop_of(&events[k]),
                before: u,
                after: self.event_rate(&events[k], t, y),
                impulse,
            })
            .collect()
    }

    /// For a held stop, the contact force in the pushing direction: positive while the stop
    /// pushes, negative when it would have to pull (lift-off).
    pub(crate) fn holding_force(&mut self, stop: usize, t: f64, y: &[f64]) -> f64 {
        let Some(Held { side }) = self.state.stops[stop] else {
            return 0.0;
        };
        -side * self.constraint_force(Bilateral::Held(stop), t, y)
    }

    /// Puts a stop into persistent contact at `(t, y)` (`ev` one of its event functions,
    /// whose `w` is the stop's): the normal relative velocity `u̇` is removed (a plastic
    /// impact) and the constraint holds from now on. Returns the impulse that removal took,
    /// positive when pushing: `side·u̇ / wᵀM⁻¹w` (N s).
    pub(crate) fn hold(&mut self, ev: &EventFn, stop: usize, t: f64, y: &mut [f64]) -> f64 {
        let n = self.form.n;
        let minv_w = &self.form.stops[stop].minv_w;
        let wmw: f64 = ev.w.iter().map(|&(i, wi)| wi * minv_w[i]).sum();
        let un = self.event_rate(ev, t, y);
        for i in 0..n {
            y[n + i] -= un / wmw * minv_w[i];
        }
        let side = if ev.dir == Direction::Rising {
            1.0
        } else {
            -1.0
        };
        self.state.stops[stop] = Some(Held { side });
        side * un / wmw
    }

    /// The first open rigid stop that the state `y` at `t` penetrates beyond round-off.
    pub fn penetrated(&self, t: f64, y: &[f64]) -> Option<usize> {
        let mut stops = self.form.stops.iter().zip(&self.state.stops);
        stops.position(|(st, held)| {
            if held.is_some() {
                return false;
            }
            let u = self.form.relative(st.a, st.b, t, y);
            let tol = ON_STOP * st.g.abs().max(1.0);
            (st.sides != Sides::Negative && u - st.g > tol)
                || (st.sides != Sides::Positive && u + st.g < -tol)
        })
    }

    /// Releases a held stop (lift-off).
    pub(crate) fn release(&mut self, stop: usize) {
        self.state.stops[stop] = None;
    }

    /// Indices of the stops in persistent contact.
    pub(crate) fn held_stops(&self) -> Vec<usize> {
        self.state
            .stops
            .iter()
            .enumerate()
            .filter(|(_, held)| held.is_some())
            .map(|(i, _)| i)
            .collect()
    }
}

/// The impulses `Λ ≥ 0` of Newton's law for several contacts: the solution of
/// `z = GΛ + (1 + e)γ ≥ 0, Λ ≥ 0, Λᵀz = 0` (unique when `G` is positive definite). Up to
/// `ENUMERATE_UP_TO` contacts the active sets are enumerated (largest first) and the first
/// one whose solve is complementary is taken; otherwise, or when none is (a singular `G`),
/// projected Gauss–Seidel iterates to round-off.
fn newton_impulses(g: &DMatrix<f64>, gamma: &[f64], e: &[f64]) -> Vec<f64> {
    let m = gamma.len();
    let q: Vec<f64> = gamma
        .iter()
        .zip(e)
        .map(|(gi, ei)| (1.0 + ei) * gi)
        .collect();
    let scale = q
        .iter()
        .fold(0.0_f64, |a, v| a.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let tol = COMPLEMENTARITY * scale;
    if m <= ENUMERATE_UP_TO {
        let mut masks: Vec<u32> = (1..1u32 << m).collect();
        masks.sort_by_key(|mask| std::cmp::Reverse(mask.count_ones()));
        for mask in masks {
            let active: Vec<usize> = (0..m).filter(|i| mask >> i & 1 == 1).collect();
            let ga = DMatrix::from_fn(active.len(), active.len(), |r, c| g[(active[r], active[c])]);
            let rhs = DVector::from_iterator(active.len(), active.iter().map(|&i| -q[i]));
            let Some(sol) = ga.lu().solve(&rhs) else {
                continue;
            };
            let mut lambda = vec![0.0; m];
            for (&i, l) in active.iter().zip(sol.iter()) {
                lambda[i] = *l;
            }
            let complementary = (0..m).all(|i| {
                let z: f64 = (0..m).map(|j| g[(i, j)] * lambda[j]).sum::<f64>() + q[i];
                lambda[i] >= -tol / g[(i, i)].max(f64::MIN_POSITIVE) && z >= -tol
            });
            if complementary {
                return lambda.into_iter().map(|l| l.max(0.0)).collect();
            }
        }
        if q.iter().all(|v| *v >= 0.0) {
            return vec![0.0; m];
        }
    }
    // Projected Gauss–Seidel: Λ_i ← max(0, Λ_i − z_i / G_ii).
    let mut lambda = vec![0.0; m];
    for _ in 0..GAUSS_SEIDEL_SWEEPS {
        let mut change = 0.0_f64;
        for i in 0..m {
            if g[(i, i)] <= 0.0 {
                continue;
            }
            let z: f64 = (0..m).map(|j| g[(i, j)] * lambda[j]).sum::<f64>() + q[i];
            let new = (lambda[i] - z / g[(i, i)]).max(0.0);
            change = change.max((new - lambda[i]).abs() * g[(i, i)]);
            lambda[i] = new;
        }
        if change <= tol {
            break;
        }
    }
    lambda
}

#[cfg(test)]
mod tests {
    use super::*;

    fn z(g: &DMatrix<f64>, gamma: &[f64], e: &[f64], l: &[f64]) -> Vec<f64> {
        (0..l.len())
            .map(|i| (0..l.len()).map(|j| g[(i, j)] * l[j]).sum::<f64>() + (1.0 + e[i]) * gamma[i])
            .collect()
    }

    #[test]
    fn one_stop_is_prop_2_1() {
        // G = wᵀM⁻¹w = 0.5, γ⁻ = −2, e = 0.8: Λ = −(1 + e)γ/G = 7.2.
        let g = DMatrix::from_element(1, 1, 0.5);
        assert_eq!(newton_impulses(&g, &[-2.0], &[0.8]), vec![7.2]);
        // An opening stop takes nothing.
        assert_eq!(newton_impulses(&g, &[1.0], &[0.8]), vec![0.0]);
    }

    #[test]
    fn coupled_stops_keep_complementarity() {
        // Two stops coupled through the masses; the second one approaches slowly and the
        // first's impulse throws it off: it takes no impulse and separates (z > 0).
        let g = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
        let (gamma, e) = ([-1.0, -0.1], [1.0, 1.0]);
        let l = newton_impulses(&g, &gamma, &e);
        let zs = z(&g, &gamma, &e, &l);
        assert!(l[0] > 0.0 && l[1] == 0.0, "{l:?}");
        assert!((zs[0]).abs() < 1e-14 && zs[1] > 0.0, "{zs:?}");
        // Both approaching equally: both act, both rebound exactly.
        let (gamma, e) = ([-1.0, -1.0], [0.5, 0.5]);
        let l = newton_impulses(&g, &gamma, &e);
        assert!(l.iter().all(|v| *v > 0.0));
        assert!(z(&g, &gamma, &e, &l).iter().all(|v| v.abs() < 1e-14));
    }

    #[test]
    fn gauss_seidel_agrees_with_enumeration() {
        // A 12-contact chain (beyond enumeration) against the same problem cut to 10.
        let m = 12;
        let g = DMatrix::from_fn(m, m, |i, j| match i.abs_diff(j) {
            0 => 2.0,
            1 => -1.0,
            _ => 0.0,
        });
        let gamma: Vec<f64> = (0..m).map(|i| -1.0 + 0.3 * (i as f64).sin()).collect();
        let e = vec![0.9; m];
        let l = newton_impulses(&g, &gamma, &e);
        let zs = z(&g, &gamma, &e, &l);
        for i in 0..m {
            assert!(l[i] >= 0.0 && zs[i] >= -1e-10 && (l[i] * zs[i]).abs() < 1e-10);
        }
    }
}
