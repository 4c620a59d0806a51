//! The gap functions of joints with clearance (paper 002, Sect. 3, eqs. 33–42): where each
//! contact point is, its gap `g ≥ 0`, the gap's Jacobian (a `Row` whose `phi` is the gap) and
//! the bilateral rows the joint keeps.
//!
//! Side 0 of the joint is the paper's outer body `j` (bearing, guide, rod), side 1 the inner
//! body `i` (hub, slider). With the joint point `X`, axis `u`, journal length `L`:
//! - **radial** (revolute, cylindrical; eqs. 34–37): at each rim `z = ±L/2` (one rim at `z = 0`
//!   when `L = 0`) side 1's centre-line point `B = X + z u_b` against side 0's axis through
//!   `A = X + z u_a`: `e = (I − u_a u_aᵀ)(B − A)`, the true point-to-axis distance (ERRATA
//!   for eq. 34), `g = c − |e|`, normal `n = e/|e|`, contact point on the journal surface
//!   `A + (u_a·(B − A)) u_a + R n` (eq. 37);
//! - **axial** (revolute with `axial_clearance = c_a`; eqs. 40–41): each end `E± = X ± (L/2) u`
//!   of side 1's centre line may move `c_a` along `u_a` from side 0's: `g = c_a ∓ u_a·(E±_b − E±_a)`;
//! - **faces** (prismatic, eqs. 38–39): the `section` polygon is side 1's cross-section
//!   (section axes: global X projected normal to the axis, then `u × x`); the guide is that
//!   polygon grown by `c`. Each vertex at both ends `z = ±L/2` against the guide's two faces
//!   adjacent to it: `g = n·(P − Q)` with the inward face normal `n` fixed on side 0, 4N gaps.
//!
//! What stays bilateral (`bilateral`): the gaps free the directions they bound. A revolute
//! keeps `u_a·(P_b − P_a) = 0` unless it has an axial clearance; a revolute or cylindrical
//! joint of zero length has one rim only, which cannot hold the axes parallel, so it keeps
//! the two parallel-axes rows (a planar clearance joint); a prismatic joint keeps nothing.

use super::joints::{plane_row, Bilateral, Geometry, Row, Side};
use super::tolerances::NORMAL_UNDEFINED;
use nalgebra::Vector3;
use nsd_model::flat::{Joint, JointKind};

type V3 = Vector3<f64>;

/// One contact point of a clearance joint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Spec {
    /// A rim at `z` along the axis (radial clearance `c`, journal radius `R`).
    Radial { z: f64, c: f64, radius: f64 },
    /// An end at `z = ±L/2` (`sign` ±1) with the axial clearance `c`.
    Axial { sign: f64, z: f64, c: f64 },
    /// A slider vertex (side 1's frame, from its centre of mass) against a guide face through
    /// `q` with inward normal `n` (side 0's frame).
    Face { vertex: V3, q: V3, n: V3 },
}

/// A gap at the current state: the gap and its Jacobian in `row` (`row.phi = g`; a normal
/// force `F` acts as the generalised force `F ∇g`, `F row.jr[1]` on side 1), and the
/// contact point (global), where the friction force acts.
#[derive(Debug, Clone, Copy)]
pub struct Gap {
    pub(crate) row: Row,
    pub(crate) point: V3,
}

/// The bilateral rows a joint with clearance keeps (module doc), `None` for a kind whose
/// clearance is not modelled (spherical, fixed).
pub(crate) fn bilateral(j: &Joint) -> Option<Bilateral> {
    let none = Bilateral {
        point: false,
        parallel: false,
        on_axis: false,
        twist: false,
        axial: false,
    };
    match j.kind {
        JointKind::Revolute => Some(Bilateral {
            parallel: j.length == 0.0,
            axial: j.axial_clearance.is_none(),
            ..none
        }),
        JointKind::Cylindrical => Some(Bilateral {
            parallel: j.length == 0.0,
            ..none
        }),
        JointKind::Prismatic { .. } => Some(none),
        JointKind::Spherical | JointKind::Fixed => None,
    }
}

/// The section's in-plane axes for the unit axis `u`: global X projected normal to `u`
/// (global Y when `u` is nearer X), and `u × x`.
fn section_axes(u: &V3) -> (V3, V3) {
    let e = if u.x.abs() > std::f64::consts::FRAC_1_SQRT_2 {
        V3::y()
    } else {
        V3::x()
    };
    let x = (e - u * u.dot(&e)).normalize();
    (x, u.cross(&x))
}

/// The contact points of joint `j` (with a clearance), with a label each (`rim-`, `rim+`,
/// `end-`, `end+`, `v2b.face3`: vertex 2 at the back end against face 3). `sides` are the
/// joint's sides at the initial pose.
pub(crate) fn specs(j: &Joint, sides: [&Side; 2]) -> Vec<(String, Spec)> {
    let half = 0.5 * j.length;
    let ends: &[(f64, &str)] = if j.length == 0.0 {
        &[(0.0, "")]
    } else {
        &[(-half, "-"), (half, "+")]
    };
    let mut out = Vec::new();
    if let JointKind::Prismatic { section } = &j.kind {
        let c = j.radial_clearance.unwrap_or(0.0);
        faces(section, c, j, sides, &mut out);
        return out;
    }
    if let Some(c) = j.radial_clearance {
        for (z, name) in ends {
            let radius = j.radius;
            out.push((format!("rim{name}"), Spec::Radial { z: *z, c, radius }));
        }
    }
    if let (JointKind::Revolute, Some(c)) = (&j.kind, j.axial_clearance) {
        for sign in [-1.0, 1.0] {
            let name = if sign < 0.0 { "end-" } else { "end+" };
            out.push((name.into(), Spec::Axial { sign, z: half, c }));
        }
    }
    out
}

/// The 4N vertex–face gaps of a polygonal prismatic joint (module doc), at the initial pose.
fn faces(
    section: &[[f64; 2]],
    c: f64,
    j: &Joint,
    sides: [&Side; 2],
    out: &mut Vec<(String, Spec)>,
) {
    let (u, x0) = (V3::from(j.axis), V3::from(j.at));
    let (ex, ey) = section_axes(&u);
    let n = section.len();
    let at = |k: usize| ex * section[k % n][0] + ey * section[k % n][1];
    // Orientation of the polygon: +1 counter-clockwise about u.
    let area: f64 = (0..n).map(|k| at(k).cross(&at(k + 1)).dot(&u)).sum();
    let turn = area.signum();
    for (z, end) in [(-0.5 * j.length, "b"), (0.5 * j.length, "f")] {
        for v in 0..n {
            // The faces adjacent to vertex v: edges (v−1, v) and (v, v+1).
            for face in [(v + n - 1) % n, v] {
                let (p0, p1) = (at(face), at(face + 1));
                let inward = turn * u.cross(&(p1 - p0)).normalize();
                let q = x0 + p0 - inward * c;
                let vertex = x0 + at(v) + u * z;
                out.push((
                    format!("v{}{end}.face{}", v + 1, face + 1),
                    Spec::Face {
                        vertex: sides[1].a.transpose() * (vertex - sides[1].r),
                        q: sides[0].a.transpose() * (q - sides[0].r),
                        n: sides[0].a.transpose() * inward,
                    },
                ));
            }
        }
    }
}

impl Spec {
    /// The gap, its Jacobian and the contact point at the state `sides` of a joint whose
    /// ideal geometry is `geo`.
    pub(crate) fn gap(&self, geo: &Geometry, sides: &[Side; 2]) -> Gap {
        let ua = sides[0].a * geo.u[0];
        let ub = sides[1].a * geo.u[1];
        let [xa, xb] = geo.arms(sides);
        match *self {
            Spec::Radial { z, c, radius } => {
                let (sa, sb) = (xa + ua * z, xb + ub * z);
                let d = sides[1].r + sb - sides[0].r - sa;
                let along = ua.dot(&d);
                let e = d - ua * along;
                let norm = e.norm();
                // Centred journal: any radial direction is the normal; take the first
                // perpendicular so that the Jacobian stays finite.
                let n = if norm > NORMAL_UNDEFINED {
                    e / norm
                } else {
                    sides[0].a * geo.f[0]
                };
                let row = Row {
                    phi: c - norm,
                    jr: [n, -n],
                    jt: [sa.cross(&n) + ua.cross(&n) * along, -sb.cross(&n)],
                    gamma: 0.0,
                };
                let point = sides[0].r + sa + ua * along + n * radius;
                Gap { row, point }
            }
            Spec::Axial { sign, z, c } => {
                let arms = [xa + ua * (sign * z), xb + ub * (sign * z)];
                let mut row = plane_row(sides, &(-sign * ua), arms);
                row.phi += c;
                let point = sides[1].r + arms[1];
                Gap { row, point }
            }
            Spec::Face { vertex, q, n } => {
                let arms = [sides[0].a * q, sides[1].a * vertex];
                let row = plane_row(sides, &(sides[0].a * n), arms);
                let point = sides[1].r + arms[1];
                Gap { row, point }
            }
        }
    }
}

impl Spec {
    /// The gap's row with its acceleration term `γ` (`plane_row`'s for the axial and face
    /// gaps; `radial_gamma` for a radial one, which `gap` leaves at zero: only a gap held as
    /// a bilateral row needs it, `impacts.rs`).
    pub(crate) fn held_row(&self, geo: &Geometry, sides: &[Side; 2]) -> Row {
        let mut row = self.gap(geo, sides).row;
        if let Spec::Radial { z, c, .. } = *self {
            let ua = sides[0].a * geo.u[0];
            let [xa, xb] = geo.arms(sides);
            let (sa, sb) = (xa + ua * z, xb + sides[1].a * geo.u[1] * z);
            let d = sides[1].r + sb - sides[0].r - sa;
            row.gamma = radial_gamma(sides, [sa, sb], &ua, (&d, &row.jr[0], c - row.phi));
        }
        row
    }
}

/// `γ = −g̈` at `v̇ = 0` for the radial gap `g = c − |e|`, `e = (I − u_a u_aᵀ) d` with
/// `d = P_b − P_a` between the rims' centre-line points (arms `sa`, `sb`): with
/// `ė_⊥ = ė − n(n·ė)`, `g̈ = −n·ë − |ė_⊥|²/|e|`, and since `n·u_a = 0`,
/// `n·ë = n·d̈ − (n·ü_a)(u_a·d) − 2(n·u̇_a)(u̇_a·d + u_a·ḋ)`, each second derivative taken at
/// zero accelerations (the centripetal terms). Needed only when the gap is held as a
/// bilateral row (a rigid contact at rest, `impacts.rs`); zero for a centred journal.
fn radial_gamma(
    sides: &[Side; 2],
    [sa, sb]: [V3; 2],
    ua: &V3,
    (d, n, norm): (&V3, &V3, f64),
) -> f64 {
    if norm <= NORMAL_UNDEFINED {
        return 0.0;
    }
    let (s0, s1) = (&sides[0], &sides[1]);
    let d_dot = s1.v + s1.w.cross(&sb) - s0.v - s0.w.cross(&sa);
    let d_ddot = s1.centripetal(&sb) - s0.centripetal(&sa);
    let ua_dot = s0.w.cross(ua);
    let ua_ddot = s0.centripetal(ua);
    let along_dot = ua_dot.dot(d) + ua.dot(&d_dot);
    let e_dot = d_dot - ua_dot * ua.dot(d) - ua * along_dot;
    let n_e_ddot = n.dot(&d_ddot) - n.dot(&ua_ddot) * ua.dot(d) - 2.0 * n.dot(&ua_dot) * along_dot;
    let e_perp = e_dot - n * n.dot(&e_dot);
    n_e_ddot + e_perp.norm_squared() / norm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multibody::joints::tests::moving_pair;

    /// The radial and axial gaps between two moving bodies (a journal well off centre):
    /// `ġ = D v` and, with `v̇ = 0`, `g̈ = −γ` (the held row's acceleration term, `held_row`), against
    /// central differences along the motion (step 1e-4 s; tolerance 1e-6, as the joints').
    #[test]
    fn gap_rates_and_gamma_match_differences() {
        let at = moving_pair;
        let start = at(-0.3);
        let kind = JointKind::Revolute;
        let set = Bilateral::ideal(&kind);
        let axis = V3::new(0.2, 0.6, 0.8).normalize();
        let geometry = Geometry::new(set, V3::new(0.3, 0.0, 0.1), axis, [&start[0], &start[1]]);
        let h = 1e-4;
        for spec in [
            Spec::Radial {
                z: 0.01,
                c: 1e-3,
                radius: 5e-3,
            },
            Spec::Radial {
                z: -0.02,
                c: 1e-3,
                radius: 5e-3,
            },
            Spec::Axial {
                sign: 1.0,
                z: 0.01,
                c: 2e-4,
            },
        ] {
            let g = |t: f64| spec.held_row(&geometry, &at(t));
            let (minus, row, plus) = (g(-h).phi, g(0.0), g(h).phi);
            let sides = at(0.0);
            let rate: f64 = (0..2)
                .map(|k| row.jr[k].dot(&sides[k].v) + row.jt[k].dot(&sides[k].w))
                .sum();
            let (d1, d2) = (
                (plus - minus) / (2.0 * h),
                (plus - 2.0 * row.phi + minus) / (h * h),
            );
            assert!((rate - d1).abs() < 1e-6, "{spec:?}: ġ {rate} vs {d1}");
            assert!(
                (-row.gamma - d2).abs() < 1e-6,
                "{spec:?}: −γ {} vs {d2}",
                -row.gamma
            );
        }
    }
}
