//! Two-node elements: springs (k, k2, k3), dampers (c), gaps (read in `laws.rs`) and
//! friction contacts (Coulomb with a slip force or μN, Jenkins with a series stiffness, the
//! 2-D contact with normal load). Each is checked for physical sense and placed along the
//! directions its endpoints share (`names.rs`).

use super::laws::{check_mu, gap};
use super::names::dir_names;
use super::{Frame, Resolver, R};
use crate::ast::{self, ElementKind as Kind, NodeRef, Options, Value};
use crate::diagnostics::{suggest, ResolveError};
use crate::eval::Scope;
use crate::flat::{Dir, Element, ElementKind, Endpoint, Friction, NodeId};
use crate::options::{
    self, check_keys, directions, identifier, missing, number, required, value_span, Bound,
};
use crate::span::Span;
use crate::units::Dim;

impl Resolver<'_> {
    /// `spring | damper | gap | friction [label:] a -- b { options }`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn element(
        &mut self,
        f: &Frame,
        kind: Kind,
        label: Option<&ast::Label>,
        ra: &NodeRef,
        rb: &NodeRef,
        opts: Option<&Options>,
        span: Span,
    ) -> R<()> {
        let a = self.node_ref(f, ra)?;
        let b = self.node_ref(f, rb)?;
        let kw = kind.keyword();
        if a.0 == b.0 && (a.1 == b.1 || a.1.is_none() || b.1.is_none()) {
            return Err(ResolveError::SelfLoop {
                kind: kw.into(),
                node: self.nodes[a.0 .0].name.clone(),
                at: ra.span.join(rb.span),
            });
        }
        if self.nodes[a.0 .0].is_support() && self.nodes[b.0 .0].is_support() {
            return Err(ResolveError::Invalid {
                what: format!("{kw} between two supports"),
                at: ra.span.join(rb.span),
                help: "`ground` and `base` have no DOFs; connect at least one mass".into(),
            });
        }
        let s = &f.scope;
        let element_kind: ElementKind = match kind {
            Kind::Spring => spring(opts, s, span)?,
            Kind::Damper => {
                check_keys(opts, &["c"], "damper")?;
                let c = required(
                    opts,
                    "c",
                    s,
                    "a damping coefficient c",
                    Dim::DAMPING,
                    || missing("c", "damper", "c is in N·s/m", span),
                )?;
                Bound::NonNegative.check(
                    c,
                    "a damping coefficient",
                    value_span(opts, "c", span),
                    "c ≥ 0 dissipates energy; use a force expression for active elements",
                )?;
                ElementKind::Damper { c }
            }
            Kind::Gap => ElementKind::Gap(gap(opts, s, span)?),
            Kind::Friction => ElementKind::Friction(self.friction(opts, s, span, a.0, b.0)?),
        };
        let ElementKind::Friction(Friction::Contact2d { .. }) = &element_kind else {
            let dirs = self.element_dirs(kw, a, b, ra, rb)?;
            let base_name = self.element_name(f, label, kw, a.0, b.0)?;
            let multi = dirs.len() > 1;
            for (da, db) in dirs {
                let name = if multi {
                    format!("{base_name}.{da}")
                } else {
                    base_name.clone()
                };
                let (ea, eb) = (
                    Endpoint {
                        node: a.0,
                        dir: Some(da),
                    },
                    Endpoint {
                        node: b.0,
                        dir: Some(db),
                    },
                );
                self.elements.push(Element {
                    name,
                    kind: element_kind.clone(),
                    a: ea,
                    b: eb,
                    span,
                });
            }
            return Ok(());
        };
        // The 2-D contact acts along its own two directions on both nodes.
        let name = self.element_name(f, label, kw, a.0, b.0)?;
        self.elements.push(Element {
            name,
            kind: element_kind.clone(),
            a: Endpoint {
                node: a.0,
                dir: None,
            },
            b: Endpoint {
                node: b.0,
                dir: None,
            },
            span,
        });
        Ok(())
    }

    /// `friction` options: the law (`coulomb` by default, `jenkins`, `contact2d`) and its
    /// parameters.
    fn friction(
        &self,
        opts: Option<&Options>,
        s: &Scope,
        span: Span,
        a: NodeId,
        b: NodeId,
    ) -> R<Friction> {
        let law = match options::value(opts, "law") {
            None => "coulomb",
            Some(v) => identifier(v, "a friction law")?,
        };
        match law {
            "coulomb" => {
                check_keys(
                    opts,
                    &["law", "force", "mu", "normal"],
                    "friction (coulomb)",
                )?;
                Ok(Friction::Coulomb {
                    slip_force: slip_force(opts, s, span)?,
                })
            }
            "jenkins" => {
                check_keys(
                    opts,
                    &["law", "force", "mu", "normal", "kt"],
                    "friction (jenkins)",
                )?;
                let kt = required(
                    opts,
                    "kt",
                    s,
                    "a tangential stiffness",
                    Dim::STIFFNESS,
                    || {
                        missing(
                            "kt",
                            "a Jenkins element",
                            "kt is the stiffness in series with the slider",
                            span,
                        )
                    },
                )?;
                Bound::Positive.check(
                    kt,
                    "the tangential stiffness",
                    value_span(opts, "kt", span),
                    "kt > 0; for a rigid slider use the default `coulomb` law",
                )?;
                // A zero slip force would let the stuck spring carry load it cannot hold: the
                // element transmits nothing, so it is refused rather than run wrongly.
                let at = match options::value(opts, "force") {
                    Some(_) => value_span(opts, "force", span),
                    None => value_span(opts, "mu", span),
                };
                let slip_force = Bound::Positive.check(
                    slip_force(opts, s, span)?,
                    "the slip force of a Jenkins element",
                    at,
                    "a slider of zero slip force carries no force at all: remove the element",
                )?;
                Ok(Friction::Jenkins { kt, slip_force })
            }
            "contact2d" => self.contact2d(opts, s, span, a, b),
            other => Err(ResolveError::UnknownLaw {
                name: other.to_string(),
                owner: "friction law".into(),
                at: options::value(opts, "law").map_or(span, Value::span),
                help: suggest(
                    other,
                    ["coulomb", "jenkins", "contact2d"],
                    "friction laws are",
                ),
            }),
        }
    }

    /// The 2-D friction contact between nodes `a` and `b`: penalty stiffnesses `kt`, `kn`,
    /// friction coefficient `mu`, normal preload `N0`, contact `angle`, and the
    /// `directions = (tangent, normal)` it acts along.
    fn contact2d(
        &self,
        opts: Option<&Options>,
        s: &Scope,
        span: Span,
        a: NodeId,
        b: NodeId,
    ) -> R<Friction> {
        check_keys(
            opts,
            &["law", "kt", "kn", "mu", "N0", "angle", "directions"],
            "friction (contact2d)",
        )?;
        let need = |k: &str, what: &str, d: Dim| -> R<f64> {
            required(opts, k, s, what, d, || {
                missing(
                    k,
                    "a 2-D contact",
                    "contact2d needs kt, kn, mu and N0",
                    span,
                )
            })
        };
        let kt = need("kt", "a tangential stiffness", Dim::STIFFNESS)?;
        let kn = need("kn", "a normal stiffness", Dim::STIFFNESS)?;
        let mu = need("mu", "a friction coefficient", Dim::NONE)?;
        let n0 = need("N0", "a normal preload", Dim::FORCE)?;
        check_mu(Some(mu), opts, span)?;
        // μ = 0 leaves a normal contact that transmits no tangential force; its stick mode
        // would hold the tangent by the penalty spring, so it is refused.
        Bound::Positive.check(
            mu,
            "the friction coefficient of a 2-D contact",
            value_span(opts, "mu", span),
            "mu = 0 transmits no tangential force: model the normal contact alone with a `gap` (law = linear(kn))",
        )?;
        for (k, v) in [("kt", kt), ("kn", kn)] {
            Bound::Positive.check(
                v,
                "contact stiffnesses",
                value_span(opts, k, span),
                "kt and kn are penalty stiffnesses > 0",
            )?;
        }
        let angle = number(opts, "angle", s, "a contact angle", Dim::NONE)?.unwrap_or(0.0);
        let (tangent, normal) = match options::value(opts, "directions") {
            None => (Dir::X, Dir::Y),
            Some(v) => match directions(v)?[..] {
                [t, n] => (t, n),
                _ => {
                    return Err(ResolveError::WrongType {
                        expected: "two directions".into(),
                        found: "another list".into(),
                        at: v.span(),
                        help: "write `directions = (tangent, normal)`, e.g. `(x, y)`".into(),
                    })
                }
            },
        };
        // The tangent must be a DOF of each node; a node without the normal direction
        // is held in it (a fixed pad: the normal load stays N0 on that side).
        for node in [a, b] {
            let n = &self.nodes[node.0];
            if !n.is_support() && !n.dirs.contains(&tangent) {
                return Err(ResolveError::MissingDirection {
                    node: n.name.clone(),
                    dir: tangent.to_string(),
                    dirs: dir_names(&n.dirs),
                    at: span,
                });
            }
        }
        Ok(Friction::Contact2d {
            kt,
            kn,
            mu,
            n0,
            angle,
            tangent,
            normal,
        })
    }
}

/// `spring` options: the force is k·u + k2·u² + k3·u³, at least one coefficient given.
fn spring(opts: Option<&Options>, s: &Scope, span: Span) -> R<ElementKind> {
    check_keys(opts, &["k", "k2", "k3"], "spring")?;
    let k = number(opts, "k", s, "a stiffness k", Dim::STIFFNESS)?;
    let k2 = number(opts, "k2", s, "a quadratic stiffness k2", Dim::STIFFNESS2)?;
    let k3 = number(opts, "k3", s, "a cubic stiffness k3", Dim::STIFFNESS3)?;
    if k.is_none() && k2.is_none() && k3.is_none() {
        return Err(missing(
            "k",
            "spring",
            "the force is k·u + k2·u² + k3·u³",
            span,
        ));
    }
    Ok(ElementKind::Spring {
        k: k.unwrap_or(0.0),
        k2: k2.unwrap_or(0.0),
        k3: k3.unwrap_or(0.0),
    })
}

/// The slip force of a Coulomb or Jenkins slider: `force = …`, or `mu = …` with
/// `normal = …` (then μN).
fn slip_force(opts: Option<&Options>, s: &Scope, span: Span) -> R<f64> {
    let force = number(opts, "force", s, "a slip force", Dim::FORCE)?;
    let mu = number(opts, "mu", s, "a friction coefficient", Dim::NONE)?;
    let normal = number(opts, "normal", s, "a normal force", Dim::FORCE)?;
    check_mu(mu, opts, span)?;
    match (force, mu, normal) {
        (Some(f), None, None) => Bound::NonNegative.check(
            f,
            "a slip force",
            value_span(opts, "force", span),
            "the slip force μN is ≥ 0",
        ),
        (None, Some(mu), Some(n)) => {
            let n = Bound::NonNegative.check(
                n,
                "a normal force",
                value_span(opts, "normal", span),
                "contacts push, they do not pull: N ≥ 0",
            )?;
            Ok(mu * n)
        }
        (None, Some(_), None) => Err(missing(
            "normal",
            "friction",
            "the slip force is mu·normal",
            span,
        )),
        (None, None, _) => Err(missing(
            "force",
            "friction",
            "give the slip force (`force = …`) or `mu` and `normal`",
            span,
        )),
        _ => Err(ResolveError::Invalid {
            what: "friction with both `force` and `mu`".into(),
            at: span,
            help: "give either the slip force `force = …` or `mu = …` with `normal = …`".into(),
        }),
    }
}
