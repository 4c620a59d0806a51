//! Contact laws and gaps: `linear(k)`, `hertz(k, n)`, `kelvin_voigt(k, c)`,
//! `hunt_crossley(k, e, n)`, `lankarani_nikravesh(k, e, n)` and `impact(e)` read against
//! their argument schemas, checked for physical sense (k > 0, 0 ≤ e ≤ 1, μ ≥ 0); and the
//! `gap` options around them (clearance, sides, smoothing of piecewise-linear laws).

use super::R;
use crate::ast::{Expr, ExprKind, Options, Value};
use crate::diagnostics::{suggest, ResolveError};
use crate::eval::Scope;
use crate::flat::{ContactLaw, Gap, Sides, Smoothing};
use crate::options::{
    self, boolean, call_args, check_keys, identifier, missing, non_physical, required, value_span,
    Bound,
};
use crate::span::Span;
use crate::units::Dim;

/// A contact law: `linear(k)`, `hertz(k, n = 1.5)`, `kelvin_voigt(k, c)`, `hunt_crossley(k, e, n = 1.5)`,
/// `lankarani_nikravesh(k, e, n = 1.5)`, `impact(e)`.
pub(super) fn contact_law(v: &Value, s: &Scope) -> R<ContactLaw> {
    let laws = [
        "linear",
        "hertz",
        "kelvin_voigt",
        "hunt_crossley",
        "lankarani_nikravesh",
        "impact",
    ];
    let (name, args, span) = match v {
        Value::Expr(Expr {
            kind: ExprKind::Call { name, args },
            span,
        }) => (name, args.as_slice(), *span),
        Value::Expr(Expr {
            kind: ExprKind::Var { name, index: None },
            span,
        }) => (name, &[][..], *span),
        _ => {
            return Err(ResolveError::WrongType {
                expected: "a contact law".into(),
                found: "something else".into(),
                at: v.span(),
                help: "e.g. `law = linear(1e5)` or `law = impact(e = 0.8)`".into(),
            })
        }
    };
    let k_hertz = Dim([1, 0, -2]); // nominal; the Hertz constant's unit depends on n, so it is checked only for n = 1.
    let law = match name.name.as_str() {
        "linear" => ContactLaw::Linear {
            k: call_args(args, s, "linear", &[("k", None, Dim::STIFFNESS)], span)?[0],
        },
        "hertz" => {
            let x = call_args(
                args,
                s,
                "hertz",
                &[("k", None, k_hertz), ("n", Some(1.5), Dim::NONE)],
                span,
            )?;
            ContactLaw::Hertz { k: x[0], n: x[1] }
        }
        "kelvin_voigt" => {
            let x = call_args(
                args,
                s,
                "kelvin_voigt",
                &[("k", None, Dim::STIFFNESS), ("c", None, Dim::DAMPING)],
                span,
            )?;
            ContactLaw::KelvinVoigt {
                k: x[0],
                c: x[1],
                tension: false,
            }
        }
        "hunt_crossley" | "lankarani_nikravesh" => {
            let x = call_args(
                args,
                s,
                &name.name,
                &[
                    ("k", None, k_hertz),
                    ("e", None, Dim::NONE),
                    ("n", Some(1.5), Dim::NONE),
                ],
                span,
            )?;
            check_restitution(x[1], span)?;
            if name.name == "hunt_crossley" {
                ContactLaw::HuntCrossley {
                    k: x[0],
                    n: x[2],
                    e: x[1],
                }
            } else {
                ContactLaw::LankaraniNikravesh {
                    k: x[0],
                    n: x[2],
                    e: x[1],
                }
            }
        }
        "impact" => {
            let e = call_args(args, s, "impact", &[("e", None, Dim::NONE)], span)?[0];
            check_restitution(e, span)?;
            ContactLaw::Impact { e }
        }
        other => {
            return Err(ResolveError::UnknownLaw {
                name: other.to_string(),
                owner: "contact law".into(),
                at: name.span,
                help: suggest(other, laws, "contact laws are"),
            })
        }
    };
    let k = match law {
        ContactLaw::Linear { k }
        | ContactLaw::Hertz { k, .. }
        | ContactLaw::KelvinVoigt { k, .. } => k,
        ContactLaw::HuntCrossley { k, .. } | ContactLaw::LankaraniNikravesh { k, .. } => k,
        // Newton's impact law has no stiffness; any positive stand-in passes.
        ContactLaw::Impact { .. } => 1.0,
    };
    Bound::Positive.check(
        k,
        "a contact stiffness",
        span,
        "contact laws push the bodies apart: k > 0",
    )?;
    Ok(law)
}

/// A coefficient of restitution must lie in [0, 1].
fn check_restitution(e: f64, at: Span) -> R<()> {
    if (0.0..=1.0).contains(&e) {
        Ok(())
    } else {
        Err(non_physical(
            "a coefficient of restitution must lie in [0, 1]",
            at,
            e,
            "e = 1 is elastic, e = 0 plastic; values outside [0, 1] create or reverse energy",
        ))
    }
}

/// `gap` options: clearance, sides, law, smooth, tension.
pub(super) fn gap(opts: Option<&Options>, s: &Scope, span: Span) -> R<Gap> {
    check_keys(
        opts,
        &["clearance", "sides", "law", "smooth", "tension"],
        "gap",
    )?;
    let clearance = required(opts, "clearance", s, "a clearance", Dim::LENGTH, || {
        missing(
            "clearance",
            "gap",
            "the free distance before contact, in m",
            span,
        )
    })?;
    Bound::NonNegative.check(
        clearance,
        "a clearance",
        value_span(opts, "clearance", span),
        "the clearance is the free distance before contact (≥ 0); an interference fit is a preloaded spring",
    )?;
    let sides = match options::value(opts, "sides") {
        None => Sides::Positive,
        Some(v) => match identifier(v, "a side")? {
            "positive" => Sides::Positive,
            "negative" => Sides::Negative,
            "both" => Sides::Both,
            other => {
                return Err(ResolveError::UnknownLaw {
                    name: other.into(),
                    owner: "gap side".into(),
                    at: v.span(),
                    help: suggest(other, ["positive", "negative", "both"], "gap sides are"),
                })
            }
        },
    };
    let mut law = contact_law(
        options::value(opts, "law").ok_or_else(|| {
            missing(
                "law",
                "gap",
                "e.g. `law = linear(1e5)` or `law = impact(e = 0.8)`",
                span,
            )
        })?,
        s,
    )?;
    if let Some(v) = options::value(opts, "tension") {
        let ContactLaw::KelvinVoigt { tension, .. } = &mut law else {
            return Err(ResolveError::Invalid {
                what: "`tension` applies to `kelvin_voigt` gaps only".into(),
                at: v.span(),
                help: "the other compliant laws never pull; drop `tension`".into(),
            });
        };
        *tension = boolean(v)?;
    }
    let smooth = match options::value(opts, "smooth") {
        None => None,
        Some(v) => Some(smoothing(v, s, &law)?),
    };
    Ok(Gap {
        clearance,
        sides,
        law,
        smooth,
    })
}

/// `smooth = sigmoid(δ)` or `tanh(δ)`: a smoothed piecewise-linear `law` (paper 000, eq. 8).
fn smoothing(v: &Value, s: &Scope, law: &ContactLaw) -> R<Smoothing> {
    let Value::Expr(Expr {
        kind: ExprKind::Call { name, args },
        span: at,
    }) = v
    else {
        return Err(ResolveError::WrongType {
            expected: "a smoothing".into(),
            found: "something else".into(),
            at: v.span(),
            help: "write `smooth = sigmoid(1500)` or `smooth = tanh(1500)`".into(),
        });
    };
    let delta = call_args(
        args,
        s,
        &name.name,
        &[("delta", None, Dim([0, -1, 0]))],
        *at,
    )?[0];
    Bound::Positive.check(
        delta,
        "the smoothing sharpness δ",
        *at,
        "larger δ is closer to the exact piecewise law (paper 000, eq. 8)",
    )?;
    if !matches!(law, ContactLaw::Linear { .. }) {
        return Err(ResolveError::Invalid {
            what: "smoothing applies to piecewise-linear gaps only".into(),
            at: *at,
            help: "use `law = linear(k)` with `smooth`, or drop `smooth`".into(),
        });
    }
    match name.name.as_str() {
        "sigmoid" => Ok(Smoothing::Sigmoid { delta }),
        "tanh" => Ok(Smoothing::Tanh { delta }),
        other => Err(ResolveError::UnknownLaw {
            name: other.into(),
            owner: "smoothing".into(),
            at: name.span,
            help: suggest(other, ["sigmoid", "tanh"], "smoothings are"),
        }),
    }
}

/// A friction coefficient, when given, must not be negative.
pub(super) fn check_mu(mu: Option<f64>, opts: Option<&Options>, span: Span) -> R<()> {
    if let Some(mu) = mu {
        Bound::NonNegative.check(
            mu,
            "a friction coefficient",
            value_span(opts, "mu", span),
            "μ ≥ 0 (typical values 0.1–1)",
        )?;
    }
    Ok(())
}
