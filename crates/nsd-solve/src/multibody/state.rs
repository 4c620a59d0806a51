//! Where each body's coordinates sit in the multibody vectors, named in one place so that no
//! module spells out offsets such as `7 nb + 6 i + 3` by hand.
//!
//! The state of `nb` bodies is `y = [q₀ … q_{nb−1}, v₀ … v_{nb−1}]`: seven pose entries per
//! body, `qᵢ = [rᵢ, pᵢ]` (centre of mass, Euler parameters), then six velocity coordinates,
//! `vᵢ = [ṙᵢ, ω'ᵢ]` (`Layout`). Every other per-body vector (accelerations `v̇`, forces `Q`,
//! displacements `δ = (δr, δπ')`, a Jacobian's columns) runs over the velocity coordinates,
//! six per body (`twist`, `linear`, `angular`). Everything here is a range to index with, so
//! it inlines to the arithmetic it replaces.

use std::ops::{Range, RangeFrom};

/// Pose entries per body: `r` (3) then `p` (4).
const POSE: usize = 7;
/// Velocity coordinates per body: `ṙ` (3) then `ω'` (3).
pub(crate) const TWIST: usize = 6;

/// The position `r` within a body's pose `qᵢ`.
pub(crate) const POSITION: Range<usize> = 0..3;
/// The Euler parameters `p` within a body's pose `qᵢ`.
pub(crate) const ORIENTATION: Range<usize> = 3..7;
/// The linear part (`ṙ`, a force, `δr`) within a body's six velocity coordinates.
pub(crate) const LINEAR: Range<usize> = 0..3;
/// The angular part (`ω'`, a body-frame torque, `δπ'`) within a body's six coordinates.
pub(crate) const ANGULAR: Range<usize> = 3..6;

#[inline]
fn shifted(r: Range<usize>, by: usize) -> Range<usize> {
    r.start + by..r.end + by
}

/// The state vector `y` of `nb` bodies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub(crate) nb: usize,
}

impl Layout {
    /// The length of `y`: 13 per body.
    #[inline]
    pub(crate) fn state_len(self) -> usize {
        (POSE + TWIST) * self.nb
    }

    /// The number of velocity coordinates, six per body: the length of `v`, `v̇`, `Q`, `δ`
    /// and of a Jacobian's rows.
    #[inline]
    pub(crate) fn dofs(self) -> usize {
        TWIST * self.nb
    }

    /// Body `i`'s pose `qᵢ = [rᵢ, pᵢ]` in `y`.
    #[inline]
    pub(crate) fn pose(self, i: usize) -> Range<usize> {
        shifted(0..POSE, POSE * i)
    }

    /// Body `i`'s position `rᵢ` in `y`.
    #[inline]
    pub(crate) fn position(self, i: usize) -> Range<usize> {
        shifted(POSITION, POSE * i)
    }

    /// Body `i`'s Euler parameters `pᵢ` in `y`.
    #[inline]
    pub(crate) fn orientation(self, i: usize) -> Range<usize> {
        shifted(ORIENTATION, POSE * i)
    }

    /// All the velocities `[v₀ … v_{nb−1}]` in `y`: the tail after the poses, laid out as
    /// every other six-per-body vector (so it copies to and from one as a whole).
    #[inline]
    pub(crate) fn velocities(self) -> RangeFrom<usize> {
        POSE * self.nb..
    }

    /// Body `i`'s velocity `vᵢ = [ṙᵢ, ω'ᵢ]` in `y`.
    #[inline]
    pub(crate) fn velocity(self, i: usize) -> Range<usize> {
        shifted(twist(i), POSE * self.nb)
    }
}

/// Body `i`'s six coordinates in a vector over the velocity coordinates (`v`, `v̇`, `Q`,
/// `δ`, a Jacobian's columns).
#[inline]
pub(crate) fn twist(i: usize) -> Range<usize> {
    shifted(0..TWIST, TWIST * i)
}

/// Body `i`'s linear part (`ṙ`, force, `δr`) in a vector over the velocity coordinates.
#[inline]
pub(crate) fn linear(i: usize) -> Range<usize> {
    shifted(LINEAR, TWIST * i)
}

/// Body `i`'s angular part (`ω'`, body-frame torque, `δπ'`) in a vector over the velocity
/// coordinates.
#[inline]
pub(crate) fn angular(i: usize) -> Range<usize> {
    shifted(ANGULAR, TWIST * i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of the module doc, written out once: the poses then the velocities tile
    /// `y`, and the six-per-body ranges are the velocities' with the poses taken off.
    #[test]
    fn the_ranges_are_the_documented_layout() {
        let (nb, l) = (3, Layout { nb: 3 });
        assert_eq!(
            (l.state_len(), l.dofs(), l.velocities()),
            (13 * nb, 6 * nb, 7 * nb..)
        );
        for i in 0..nb {
            assert_eq!(l.pose(i), 7 * i..7 * i + 7);
            assert_eq!(
                (l.position(i), l.orientation(i)),
                (7 * i..7 * i + 3, 7 * i + 3..7 * i + 7)
            );
            assert_eq!(l.velocity(i), 7 * nb + 6 * i..7 * nb + 6 * i + 6);
            assert_eq!(twist(i), 6 * i..6 * i + 6);
            assert_eq!(
                (linear(i), angular(i)),
                (6 * i..6 * i + 3, 6 * i + 3..6 * i + 6)
            );
        }
    }
}
