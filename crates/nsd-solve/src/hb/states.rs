//! The state of each nonlinear element over a periodic response: for a friction contact the
//! fractions of the period stuck, slipping and separated (its exact cycle, `friction.rs`),
//! for a gap the fraction in contact (sampled), nothing for a smooth spring.

use super::elements::{Element, Law};
use super::Balance;
use nalgebra::DVector;

/// Samples per period for a gap's contact fraction (resolution 1/2048 of the period).
const GAP_SAMPLES: usize = 2048;

/// What an element does over the period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ElementState {
    /// Fractions of the period stuck, slipping, separated.
    Friction([f64; 3]),
    /// Fraction of the period in contact.
    Gap(f64),
    Smooth,
}

impl Balance {
    /// Each nonlinear element's state over the response `q` (full layout), in the system's
    /// order.
    pub fn element_states(&self, q: &DVector<f64>) -> Vec<ElementState> {
        let n = self.n;
        let h2 = 2 * self.aft.harmonics;
        let project = |w: &[(usize, f64)]| -> Vec<f64> {
            (1..=h2)
                .map(|p| w.iter().map(|&(i, wi)| wi * q[p * n + i]).sum())
                .collect()
        };
        self.elements
            .iter()
            .map(|e| match e {
                Element::Friction {
                    tangent,
                    normal,
                    contact,
                } => ElementState::Friction(
                    contact.state_fractions(&project(tangent), &project(normal)),
                ),
                Element::Sampled { a, b, law } => match *law {
                    Law::Gap { g, sides, .. } | Law::Smoothed { g, sides, .. } => {
                        let side = |d: Option<usize>, p: usize| d.map_or(0.0, |i| q[p * n + i]);
                        let u: Vec<f64> = (0..=h2).map(|p| side(*a, p) - side(*b, p)).collect();
                        ElementState::Gap(contact_fraction(&u, g, sides))
                    }
                    Law::Polynomial { .. } => ElementState::Smooth,
                },
            })
            .collect()
    }
}

/// The fraction of `GAP_SAMPLES` instants where `u(θ)` (coefficients `[u0, c1, s1, …]`)
/// is beyond the clearance on an active side.
fn contact_fraction(u: &[f64], g: f64, sides: nsd_model::flat::Sides) -> f64 {
    use nsd_model::flat::Sides;
    let touching = (0..GAP_SAMPLES)
        .filter(|&j| {
            let th = std::f64::consts::TAU * j as f64 / GAP_SAMPLES as f64;
            let x = u[0]
                + u[1..]
                    .chunks(2)
                    .enumerate()
                    .map(|(k, cs)| {
                        let (s, c) = ((k + 1) as f64 * th).sin_cos();
                        cs[0] * c + cs[1] * s
                    })
                    .sum::<f64>();
            (x > g && sides != Sides::Negative) || (x < -g && sides != Sides::Positive)
        })
        .count();
    touching as f64 / GAP_SAMPLES as f64
}
