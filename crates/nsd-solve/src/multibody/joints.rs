//! Ideal joints as bilateral constraints `Φ(q) = 0` (paper 002, Sect. 2; the classical
//! forms of Nikravesh's *Computer-Aided Analysis of Mechanical Systems*, ch. 7): each row
//! with its value, its Jacobian with respect to the virtual displacements `(δr, δθ)` of the
//! two sides (global frame) and its acceleration right side `γ = Φ̈ − Φ_q q̈`.
//!
//! Three primitives build every joint, each side being a body or the ground:
//! - **point** `P_a − P_b = 0` (3 rows) with `P = r + A s'`;
//! - **perpendicular axes** `(A_a u'_a)·(A_b v'_b) = 0`;
//! - **point on a plane** `(A_a u'_a)·(P_b − P_a) = 0`.
//!
//! With the joint point `X`, axis `u` and perpendiculars `f`, `g` (fixed on each side at the
//! initial pose, so `Φ(q₀) = 0` exactly): spherical = point (3); revolute = point + `f_a·u_b`,
//! `g_a·u_b` (5); cylindrical = `f_a·u_b`, `g_a·u_b` + `f_a·d`, `g_a·d` (4); prismatic =
//! cylindrical + `g_a·f_b` (5); fixed = point + `f_a·u_b`, `g_a·u_b`, `g_a·f_b` (6).
//!
//! A joint with clearance keeps only the rows its gaps do not replace (`Bilateral`, chosen
//! in `clearance.rs`).

use super::kinematics::perpendiculars;
use nalgebra::{Matrix3, Vector3};
use nsd_model::flat::JointKind;

type V3 = Vector3<f64>;

/// One side of a joint at the current state: a body's centre of mass `r`, rotation `A`,
/// velocity `v` and global angular velocity `w`, or the ground (all zero, `A = I`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side {
    pub(crate) r: V3,
    pub(crate) a: Matrix3<f64>,
    pub(crate) v: V3,
    pub(crate) w: V3,
}

impl Side {
    pub(crate) fn ground() -> Side {
        Side {
            r: V3::zeros(),
            a: Matrix3::identity(),
            v: V3::zeros(),
            w: V3::zeros(),
        }
    }

    /// `ω × (ω × x)` for a global vector `x` fixed on this side.
    pub(super) fn centripetal(&self, x: &V3) -> V3 {
        self.w.cross(&self.w.cross(x))
    }
}

/// One constraint row: `Φ`, its Jacobian on each side (`jr`: translations, `jt`: global
/// small rotations; side 0 is the joint's first body), and `γ` (`Φ_q q̈ = γ`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub(crate) phi: f64,
    pub(crate) jr: [V3; 2],
    pub(crate) jt: [V3; 2],
    pub(crate) gamma: f64,
}

/// Which bilateral rows a joint keeps: all those of its kind when ideal, fewer when a
/// clearance frees some directions (`clearance::bilateral`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bilateral {
    /// `P_a − P_b = 0` (3 rows).
    pub(crate) point: bool,
    /// `f_a·u_b = g_a·u_b = 0`: the axes stay parallel (2 rows).
    pub(crate) parallel: bool,
    /// `f_a·(P_b − P_a) = g_a·(P_b − P_a) = 0`: side 1's point stays on side 0's axis (2 rows).
    pub(crate) on_axis: bool,
    /// `g_a·f_b = 0`: no twist about the axis (1 row).
    pub(crate) twist: bool,
    /// `u_a·(P_b − P_a) = 0`: no axial slip (1 row; only a revolute with radial clearance).
    pub(crate) axial: bool,
}

impl Bilateral {
    /// The rows of an ideal joint of kind `kind`.
    pub(crate) fn ideal(kind: &JointKind) -> Bilateral {
        let point = matches!(
            kind,
            JointKind::Spherical | JointKind::Revolute | JointKind::Fixed
        );
        let sliding = matches!(kind, JointKind::Cylindrical | JointKind::Prismatic { .. });
        Bilateral {
            point,
            parallel: *kind != JointKind::Spherical,
            on_axis: sliding,
            twist: matches!(kind, JointKind::Prismatic { .. } | JointKind::Fixed),
            axial: false,
        }
    }

    fn rows(&self) -> usize {
        3 * usize::from(self.point)
            + 2 * usize::from(self.parallel)
            + 2 * usize::from(self.on_axis)
            + usize::from(self.twist)
            + usize::from(self.axial)
    }
}

/// A joint's constant geometry on its two sides (body frames; global for the ground).
#[derive(Debug, Clone)]
pub(crate) struct Geometry {
    /// The bilateral rows it keeps.
    set: Bilateral,
    /// The joint point in each side's frame.
    s: [V3; 2],
    /// The axis `u` and its perpendiculars `f`, `g` in each side's frame.
    pub(crate) u: [V3; 2],
    pub(crate) f: [V3; 2],
    g: [V3; 2],
}

impl Geometry {
    /// The geometry of a joint at point `x` with unit axis `axis` (global), fixed on the two
    /// sides at their initial poses, keeping the rows `set`.
    pub(crate) fn new(set: Bilateral, x: V3, axis: V3, sides: [&Side; 2]) -> Geometry {
        let (f, g) = perpendiculars(&axis);
        let local = |s: &Side, v: &V3| s.a.transpose() * v;
        Geometry {
            set,
            s: sides.map(|s| s.a.transpose() * (x - s.r)),
            u: sides.map(|s| local(s, &axis)),
            f: sides.map(|s| local(s, &f)),
            g: sides.map(|s| local(s, &g)),
        }
    }

    /// How many constraint rows the joint has.
    pub(crate) fn rows(&self) -> usize {
        self.set.rows()
    }

    /// The joint point on each side, global (`A s'`, from the side's centre of mass).
    pub(crate) fn arms(&self, sides: &[Side; 2]) -> [V3; 2] {
        [sides[0].a * self.s[0], sides[1].a * self.s[1]]
    }

    /// The constraint rows at the state `sides`.
    pub(crate) fn eval(&self, sides: &[Side; 2], out: &mut Vec<Row>) {
        let ua = sides[0].a * self.u[0];
        let ub = sides[1].a * self.u[1];
        let fa = sides[0].a * self.f[0];
        let ga = sides[0].a * self.g[0];
        let fb = sides[1].a * self.f[1];
        let arms = self.arms(sides);
        if self.set.point {
            self.point(sides, out);
        }
        if self.set.parallel {
            out.push(perpendicular(sides, &fa, &ub));
            out.push(perpendicular(sides, &ga, &ub));
        }
        if self.set.on_axis {
            out.push(plane_row(sides, &fa, arms));
            out.push(plane_row(sides, &ga, arms));
        }
        if self.set.twist {
            out.push(perpendicular(sides, &ga, &fb));
        }
        if self.set.axial {
            out.push(plane_row(sides, &ua, arms));
        }
    }

    /// `P_a − P_b = 0`, three rows: `δP = δr + δθ × s`, `γ = −(ω_a×(ω_a×s_a) − ω_b×(ω_b×s_b))`.
    fn point(&self, sides: &[Side; 2], out: &mut Vec<Row>) {
        let [sa, sb] = self.arms(sides);
        let d = sides[0].r + sa - sides[1].r - sb;
        let c = sides[0].centripetal(&sa) - sides[1].centripetal(&sb);
        for k in 0..3 {
            let e = V3::ith(k, 1.0);
            out.push(Row {
                phi: d[k],
                jr: [e, -e],
                jt: [sa.cross(&e), -sb.cross(&e)],
                gamma: -c[k],
            });
        }
    }
}

/// `a · (P_b − P_a)` for a unit vector `a` fixed on side 0 and the points `P_k = r_k + arms[k]`
/// fixed on each side: the signed distance of side 1's point from side 0's plane through
/// its own point, normal to `a` (an ideal joint's row when zero; a clearance gap of eqs. 38
/// and 41 otherwise).
pub(crate) fn plane_row(sides: &[Side; 2], a: &V3, arms: [V3; 2]) -> Row {
    let [sa, sb] = arms;
    let (s0, s1) = (&sides[0], &sides[1]);
    let d = s1.r + sb - s0.r - sa;
    let d_dot = s1.v + s1.w.cross(&sb) - s0.v - s0.w.cross(&sa);
    let gamma = -(s0.centripetal(a).dot(&d)
        + 2.0 * s0.w.cross(a).dot(&d_dot)
        + a.dot(&(s1.centripetal(&sb) - s0.centripetal(&sa))));
    Row {
        phi: a.dot(&d),
        jr: [-a, *a],
        jt: [a.cross(&(d + sa)), sb.cross(a)],
        gamma,
    }
}

/// `a · b = 0` for `a` fixed on side 0 and `b` on side 1: `δ(a·b) = δθ_a·(a×b) + δθ_b·(b×a)`,
/// `γ = −(b·ω_a×(ω_a×a) + 2(ω_a×a)·(ω_b×b) + a·ω_b×(ω_b×b))`.
fn perpendicular(sides: &[Side; 2], a: &V3, b: &V3) -> Row {
    let (s0, s1) = (&sides[0], &sides[1]);
    let gamma = -(b.dot(&s0.centripetal(a))
        + 2.0 * s0.w.cross(a).dot(&s1.w.cross(b))
        + a.dot(&s1.centripetal(b)));
    Row {
        phi: a.dot(b),
        jr: [V3::zeros(), V3::zeros()],
        jt: [a.cross(b), b.cross(a)],
        gamma,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::multibody::kinematics::rotation;

    /// A body moving with constant `ṙ` and constant body-frame `ω'` (so `v̇ = 0`), at time `t`.
    fn side_at(r0: V3, p0: [f64; 4], v: V3, w_body: V3, t: f64) -> Side {
        let (half, n) = (0.5 * w_body.norm() * t, w_body.normalize());
        let q = [
            half.cos(),
            half.sin() * n.x,
            half.sin() * n.y,
            half.sin() * n.z,
        ];
        // p(t) = p₀ ⊗ q: the body frame turns about its own fixed axis ω'.
        let p = [
            p0[0] * q[0] - p0[1] * q[1] - p0[2] * q[2] - p0[3] * q[3],
            p0[0] * q[1] + p0[1] * q[0] + p0[2] * q[3] - p0[3] * q[2],
            p0[0] * q[2] - p0[1] * q[3] + p0[2] * q[0] + p0[3] * q[1],
            p0[0] * q[3] + p0[1] * q[2] - p0[2] * q[1] + p0[3] * q[0],
        ];
        let a = rotation(&p);
        Side {
            r: r0 + v * t,
            a,
            v,
            w: a * w_body,
        }
    }

    /// Two bodies in general motion (off-centre, turning about skew axes), each side at `t`:
    /// the fixture of the joints' and the clearance gaps' difference tests.
    pub(in crate::multibody) fn moving_pair(t: f64) -> [Side; 2] {
        [
            (
                V3::new(0.1, 0.2, -0.1),
                [0.8, 0.2, -0.4, 0.4],
                V3::new(0.3, -0.2, 0.5),
                V3::new(1.0, -2.0, 0.5),
            ),
            (
                V3::new(0.5, -0.1, 0.3),
                [0.5, 0.5, 0.5, 0.5],
                V3::new(-0.4, 0.1, 0.2),
                V3::new(-0.7, 0.4, 1.5),
            ),
        ]
        .map(|(r, p, v, w)| side_at(r, p, v, w, t))
    }

    /// For every joint kind between two moving bodies (off the constraint manifold, so no
    /// term vanishes by accident): `Φ̇ = Φ_q v` and, with `v̇ = 0`, `Φ̈ = −γ`, against central
    /// differences of `Φ` along the motion (step 1e-4 s: truncation ~1e-8, round-off
    /// ~1e-8; tolerance 1e-6).
    #[test]
    fn jacobians_and_gamma_match_differences() {
        let kinds = [
            JointKind::Spherical,
            JointKind::Revolute,
            JointKind::Cylindrical,
            JointKind::Prismatic { section: vec![] },
            JointKind::Fixed,
        ];
        let at = moving_pair;
        let h = 1e-4;
        for kind in kinds {
            let start = at(-0.3);
            let geometry = Geometry::new(
                Bilateral::ideal(&kind),
                V3::new(0.3, 0.0, 0.1),
                V3::new(0.2, 0.6, 0.8).normalize(),
                [&start[0], &start[1]],
            );
            let phi = |t: f64| {
                let mut rows = Vec::new();
                geometry.eval(&at(t), &mut rows);
                rows
            };
            let (minus, zero, plus) = (phi(-h), phi(0.0), phi(h));
            let sides = at(0.0);
            for (r, row) in zero.iter().enumerate() {
                let rate: f64 = (0..2)
                    .map(|k| row.jr[k].dot(&sides[k].v) + row.jt[k].dot(&sides[k].w))
                    .sum();
                let d1 = (plus[r].phi - minus[r].phi) / (2.0 * h);
                let d2 = (plus[r].phi - 2.0 * row.phi + minus[r].phi) / (h * h);
                assert!(
                    (rate - d1).abs() < 1e-6,
                    "{kind:?} row {r}: Φ̇ {rate} vs {d1}"
                );
                assert!(
                    (-row.gamma - d2).abs() < 1e-6,
                    "{kind:?} row {r}: −γ {} vs {d2}",
                    -row.gamma
                );
            }
        }
    }
}
