//! Multibody statements: a rigid `body` (mass, principal inertia, initial pose and
//! velocities, a constant applied force) becomes a six-DOF node; a `joint` (revolute,
//! cylindrical, prismatic, spherical, fixed) connects two bodies, or a body and `ground`,
//! with an optional clearance, contact law and friction inside it.

use super::laws::{check_mu, contact_law};
use super::{Frame, Resolver, R};
use crate::ast::{self, Expr, ExprKind, NodeRef, Options, Value};
use crate::diagnostics::{suggest, ResolveError};
use crate::eval::{self, Scope};
use crate::flat::{
    Body, ContactLaw, Dir, Element, ElementKind, Endpoint, Joint, JointKind, NodeKind,
};
use crate::options::{
    self, check_keys, missing, non_physical, number, polygon, required, value_span, vector, Bound,
};
use crate::span::Span;
use crate::units::Dim;

/// Smallest edge of a prismatic `section`, relative to its largest vertex distance from
/// the section's origin, and smallest sine of the turn at a vertex (dimensionless): below
/// them two vertices coincide or three lie on a line to within round-off of the
/// millimetre-sized sections written in metres, and the gap of the face between them has
/// no normal (`solve::multibody::clearance`).
const DEGENERATE: f64 = 1e-9;

/// The joint kinds, as written after `joint`.
const JOINT_KINDS: [&str; 5] = ["revolute", "cylindrical", "prismatic", "spherical", "fixed"];

/// The options of `body`.
pub const BODY_OPTIONS: [&str; 8] = [
    "mass",
    "inertia",
    "at",
    "orientation",
    "velocity",
    "angular_velocity",
    "force",
    "force_at",
];

/// The options of `joint`.
pub const JOINT_OPTIONS: [&str; 9] = [
    "at",
    "axis",
    "radius",
    "length",
    "clearance",
    "axial_clearance",
    "law",
    "mu",
    "section",
];

impl Resolver<'_> {
    /// `body NAME { mass = …, inertia = (Ixx, Iyy, Izz), … }`: a node with all six DOFs.
    pub(super) fn body(&mut self, f: &Frame, name: &ast::Ident, o: &Options, span: Span) -> R<()> {
        check_keys(Some(o), &BODY_OPTIONS, "body")?;
        let s = &f.scope;
        let o = Some(o);
        let mass = required(o, "mass", s, "a mass", Dim::MASS, || {
            missing(
                "mass",
                "body",
                "a rigid body needs its mass and principal inertia",
                span,
            )
        })?;
        Bound::Positive.check(
            mass,
            "a mass",
            value_span(o, "mass", span),
            "masses are in kg and > 0",
        )?;
        let inertia = vector(o, "inertia", s, Dim::INERTIA)?.ok_or_else(|| {
            missing(
                "inertia",
                "body",
                "principal moments `inertia = (Ixx, Iyy, Izz)`",
                span,
            )
        })?;
        // The smallest moment is non-positive exactly when any of them is.
        Bound::Positive.check(
            inertia.iter().copied().fold(f64::INFINITY, f64::min),
            "principal moments of inertia",
            value_span(o, "inertia", span),
            "each of Ixx, Iyy, Izz > 0",
        )?;
        let position = vector(o, "at", s, Dim::LENGTH)?.unwrap_or([0.0; 3]);
        let velocity = vector(o, "velocity", s, Dim([0, 1, -1]))?.unwrap_or([0.0; 3]);
        let angular_velocity =
            vector(o, "angular_velocity", s, Dim::FREQUENCY)?.unwrap_or([0.0; 3]);
        let orientation = orientation(options::value(o, "orientation"), s)?;
        let force = vector(o, "force", s, Dim::FORCE)?.unwrap_or([0.0; 3]);
        let force_at = vector(o, "force_at", s, Dim::LENGTH)?.unwrap_or([0.0; 3]);
        let body = Body {
            mass,
            inertia,
            position,
            orientation,
            velocity,
            angular_velocity,
            force,
            force_at,
        };
        let dirs = vec![Dir::X, Dir::Y, Dir::Z, Dir::Rx, Dir::Ry, Dir::Rz];
        self.add_node(
            f,
            name.name.clone(),
            NodeKind::Body(body),
            dirs,
            vec![],
            mass,
            name.span,
        )?;
        Ok(())
    }

    /// `joint [label:] KIND a -- b { … }` between two bodies, or a body and `ground`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn joint(
        &mut self,
        f: &Frame,
        label: Option<&ast::Label>,
        kind: &ast::Ident,
        ra: &NodeRef,
        rb: &NodeRef,
        o: Option<&Options>,
        span: Span,
    ) -> R<()> {
        if !JOINT_KINDS.contains(&kind.name.as_str()) {
            return Err(ResolveError::UnknownLaw {
                name: kind.name.clone(),
                owner: "joint kind".into(),
                at: kind.span,
                help: suggest(&kind.name, JOINT_KINDS, "joint kinds are"),
            });
        }
        check_keys(o, &JOINT_OPTIONS, "joint")?;
        let (a, _) = self.node_ref(f, ra)?;
        let (b, _) = self.node_ref(f, rb)?;
        for (n, r) in [(a, ra), (b, rb)] {
            if !matches!(self.nodes[n.0].kind, NodeKind::Body(_) | NodeKind::Ground) {
                return Err(ResolveError::Invalid {
                    what: format!("joint `{}` needs rigid bodies", self.nodes[n.0].name),
                    at: r.span,
                    help: "joints connect `body` nodes (or a body and `ground`); lumped masses use springs and gaps".into(),
                });
            }
        }
        if a == b {
            return Err(ResolveError::SelfLoop {
                kind: "joint".into(),
                node: self.nodes[a.0].name.clone(),
                at: ra.span.join(rb.span),
            });
        }
        let joint = joint_options(&kind.name, o, &f.scope, span)?;
        let name = self.element_name(f, label, "joint", a, b)?;
        self.elements.push(Element {
            name,
            kind: ElementKind::Joint(joint),
            a: Endpoint { node: a, dir: None },
            b: Endpoint { node: b, dir: None },
            span,
        });
        Ok(())
    }
}

/// `orientation = (e0, e1, e2, e3)`: Euler parameters, normalised to a unit quaternion;
/// the identity when absent.
fn orientation(v: Option<&Value>, s: &Scope) -> R<[f64; 4]> {
    match v {
        None => Ok([1.0, 0.0, 0.0, 0.0]),
        Some(Value::Expr(
            e @ Expr {
                kind: ExprKind::Tuple(items),
                ..
            },
        )) if items.len() == 4 => {
            let mut q = [0.0; 4];
            for (qi, x) in q.iter_mut().zip(items) {
                *qi = eval::quantity(x, s, "an Euler parameter", Dim::NONE)?;
            }
            unit(q).ok_or_else(|| {
                non_physical(
                    "Euler parameters must not all be zero",
                    e.span,
                    0.0,
                    "give a unit quaternion (e0, e1, e2, e3)",
                )
            })
        }
        Some(v) => Err(ResolveError::WrongType {
            expected: "four Euler parameters".into(),
            found: "something else".into(),
            at: v.span(),
            help: "write `orientation = (1, 0, 0, 0)`".into(),
        }),
    }
}

/// The options of a joint of kind `kind` (one of `JOINT_KINDS`): where it is, its axis,
/// journal size, clearances, contact law and friction, and the guide section of a
/// prismatic joint.
fn joint_options(kind: &str, o: Option<&Options>, s: &Scope, span: Span) -> R<Joint> {
    let at = vector(o, "at", s, Dim::LENGTH)?.unwrap_or([0.0; 3]);
    let axis = vector(o, "axis", s, Dim::NONE)?.unwrap_or([0.0, 0.0, 1.0]);
    let axis = unit(axis).ok_or_else(|| {
        non_physical(
            "a joint axis must not be zero",
            value_span(o, "axis", span),
            0.0,
            "give a direction, e.g. `axis = (0, 0, 1)`",
        )
    })?;
    let clearance = |k: &str| -> R<Option<f64>> {
        let c = number(o, k, s, "a clearance", Dim::LENGTH)?;
        if let Some(c) = c {
            Bound::NonNegative.check(
                c,
                "a clearance",
                value_span(o, k, span),
                "clearances are gaps in m (e.g. `0.1 mm`), ≥ 0",
            )?;
        }
        Ok(c)
    };
    let dimension = |k: &str| -> R<f64> {
        let v = number(o, k, s, "a length", Dim::LENGTH)?.unwrap_or(0.0);
        Bound::NonNegative.check(
            v,
            format_args!("joint `{k}`"),
            value_span(o, k, span),
            "radius and length are dimensions in m, ≥ 0",
        )
    };
    let (radius, length) = (dimension("radius")?, dimension("length")?);
    let radial_clearance = clearance("clearance")?;
    let axial_clearance = clearance("axial_clearance")?;
    let law = match options::value(o, "law") {
        Some(v) => contact_law(v, s)?,
        None => ContactLaw::Impact { e: 0.0 },
    };
    let mu = number(o, "mu", s, "a friction coefficient", Dim::NONE)?.unwrap_or(0.0);
    check_mu(Some(mu), o, span)?;
    let kind = match kind {
        "revolute" => JointKind::Revolute,
        "cylindrical" => JointKind::Cylindrical,
        "spherical" => JointKind::Spherical,
        "fixed" => JointKind::Fixed,
        _ => {
            let v = options::value(o, "section").ok_or_else(|| {
                missing(
                    "section",
                    "a prismatic joint",
                    "the polygonal guide section, `section = ((x1, y1), (x2, y2), (x3, y3))`",
                    span,
                )
            })?;
            let section = polygon(v, s)?;
            convex(&section, v.span())?;
            JointKind::Prismatic { section }
        }
    };
    Ok(Joint {
        kind,
        at,
        axis,
        radius,
        length,
        radial_clearance,
        axial_clearance,
        law,
        mu,
    })
}

/// `v` scaled to unit length, `None` for the zero vector. It is divided by its largest
/// magnitude first, so that no square overflows (`(0, 0, 1e200)`) or underflows: every
/// nonzero vector keeps its direction, whatever its scale (the entries are finite, as
/// `eval::quantity` guarantees).
fn unit<const N: usize>(v: [f64; N]) -> Option<[f64; N]> {
    let largest = v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if largest == 0.0 {
        return None;
    }
    let scaled = v.map(|x| x / largest);
    let norm = scaled.iter().map(|x| x * x).sum::<f64>().sqrt();
    Some(scaled.map(|x| x / norm))
}

/// Refuses a prismatic `section` (written at `at`) that is not a convex polygon with its
/// vertices in order: two neighbouring vertices that coincide, three that lie on a line
/// (the turn at the middle one below `DEGENERATE`), turns of both senses (concave or
/// crossing edges) or turning more than once round (a star). Each vertex's gaps are against
/// its two adjacent faces of the guide (`solve::multibody::clearance`): a face of zero
/// length has no normal, a polygon without area no inside, and on a concave or crossing
/// one the faces' half-planes are not the guide, so the slider would pass through.
fn convex(section: &[[f64; 2]], at: Span) -> R<()> {
    let n = section.len();
    let bad = |what: String| Err(ResolveError::BadGeometry { what, at });
    let size = section.iter().fold(0.0_f64, |m, p| m.max(p[0].hypot(p[1])));
    let edge = |k: usize| {
        let (p, q) = (section[k % n], section[(k + 1) % n]);
        [q[0] - p[0], q[1] - p[1]]
    };
    for k in 0..n {
        let e = edge(k);
        if e[0].hypot(e[1]) <= DEGENERATE * size {
            return bad(format!(
                "vertices {} and {} coincide",
                k + 1,
                (k + 1) % n + 1
            ));
        }
    }
    let (mut sense, mut turning) = (0.0_f64, 0.0_f64);
    for k in 0..n {
        let (a, b) = (edge(k + n - 1), edge(k));
        let cross = a[0] * b[1] - a[1] * b[0];
        let dot = a[0] * b[0] + a[1] * b[1];
        let vertex = k + 1;
        if cross.abs() <= DEGENERATE * a[0].hypot(a[1]) * b[0].hypot(b[1]) {
            return bad(format!(
                "vertex {vertex} lies on the line through its neighbours"
            ));
        }
        if sense != 0.0 && cross.signum() != sense {
            return bad(format!(
                "the boundary turns the other way at vertex {vertex} (concave, or edges crossing)"
            ));
        }
        sense = cross.signum();
        turning += cross.atan2(dot);
    }
    // A convex polygon turns once round, 2π; every turn of one sense and more is a star.
    if turning.abs() > 3.0 * std::f64::consts::PI {
        return bad("its edges wind round more than once (a star: edges crossing)".into());
    }
    Ok(())
}
