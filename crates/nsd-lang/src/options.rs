//! Option readers: what an options block `{ key = value, … }` holds, read as numbers with
//! units, bare names, booleans, directions, vectors, polygons and beam sections; the
//! arguments of calls such as `linear(k)` read against a schema; and the bounds a physical
//! quantity must respect.
//!
//! One reader for every options block: `resolve` reads element, beam, body and joint options
//! with it, and `analysis::options` builds its analysis-statement readers on the same key
//! check, lookup and name matching, so a key is found, refused or suggested one way.

use super::ast::{Arg, Expr, ExprKind, Ident, Options, Value};
use super::diagnostics::{suggest, suggest_every, ResolveError};
use super::eval::{self, describe, Scope};
use super::units::Dim;
use crate::flat::Dir;
use crate::span::Span;
use std::fmt::Display;

type R<T> = Result<T, ResolveError>;

/// The value written for `key`, if any.
pub fn value<'a>(opts: Option<&'a Options>, key: &str) -> Option<&'a Value> {
    opts?
        .entries
        .iter()
        .find(|e| e.key.simple().is_some_and(|n| n.name == key))
        .map(|e| &e.value)
}

/// Where the value of `key` is written, or `fallback` (the statement) when it is absent.
pub(crate) fn value_span(opts: Option<&Options>, key: &str, fallback: Span) -> Span {
    value(opts, key).map_or(fallback, Value::span)
}

/// Reports the first unknown or repeated option key.
pub fn check_keys(opts: Option<&Options>, allowed: &[&str], owner: &str) -> R<()> {
    let Some(opts) = opts else { return Ok(()) };
    for (n, e) in opts.entries.iter().enumerate() {
        let k = e.key.head().name.as_str();
        if !allowed.contains(&k) || e.key.simple().is_none() {
            // An option table is a closed list: all of it is the help, however long.
            let help = suggest_every(
                k,
                allowed.iter().copied(),
                &format!("the options of {owner} are"),
            );
            return Err(ResolveError::UnknownOption {
                name: k.to_string(),
                owner: owner.to_string(),
                at: e.key.span,
                help,
            });
        }
        let earlier = opts.entries[..n].iter().find(|x| x.key.head().name == k);
        if let Some(first) = earlier {
            return Err(ResolveError::Duplicate {
                name: k.to_string(),
                at: e.key.span,
                first: Some(first.key.span),
            });
        }
    }
    Ok(())
}

/// The expression written for `key` (`None` when absent), or, as the error, the value itself
/// when it is a range, a sweep or a block, so the caller can say what it expected instead.
pub fn expression<'a>(opts: Option<&'a Options>, key: &str) -> Result<Option<&'a Expr>, &'a Value> {
    match value(opts, key) {
        None => Ok(None),
        Some(Value::Expr(e)) => Ok(Some(e)),
        Some(v) => Err(v),
    }
}

/// The number written for `key` in SI units, checked to have dimension `dim` (`what` names
/// it in a unit mismatch); `None` when absent.
pub(crate) fn number(
    opts: Option<&Options>,
    key: &str,
    s: &Scope,
    what: &str,
    dim: Dim,
) -> R<Option<f64>> {
    match expression(opts, key) {
        Ok(None) => Ok(None),
        Ok(Some(e)) => eval::quantity(e, s, what, dim).map(Some),
        Err(v) => Err(ResolveError::WrongType {
            expected: "a number".into(),
            found: "a range or block".into(),
            at: v.span(),
            help: format!("write `{key} = <number>`"),
        }),
    }
}

/// Like `number`, for an option that must be given: `absent()` is the error when it is not.
pub(crate) fn required(
    opts: Option<&Options>,
    key: &str,
    s: &Scope,
    what: &str,
    dim: Dim,
    absent: impl FnOnce() -> ResolveError,
) -> R<f64> {
    number(opts, key, s, what, dim)?.ok_or_else(absent)
}

/// The values a physical quantity may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `> 0`: masses, stiffnesses, a beam's material and geometry.
    Positive,
    /// `≥ 0`: clearances, damping coefficients, slip and normal forces, friction coefficients.
    NonNegative,
}

impl Bound {
    /// `value` itself when the bound admits it; otherwise the `non_physical` error
    /// "`subject` must be positive" (or "must not be negative") at `at`, with `help`.
    /// A NaN passes (both comparisons are false), as it did before the checks were folded.
    pub fn check(self, value: f64, subject: impl Display, at: Span, help: &str) -> R<f64> {
        let (outside, rule) = match self {
            Bound::Positive => (value <= 0.0, "must be positive"),
            Bound::NonNegative => (value < 0.0, "must not be negative"),
        };
        if outside {
            return Err(non_physical(&format!("{subject} {rule}"), at, value, help));
        }
        Ok(value)
    }
}

/// The `missing_option` error: `owner` needs `name`; `hint` says what it is.
pub(crate) fn missing(name: &str, owner: &str, hint: &str, at: Span) -> ResolveError {
    ResolveError::MissingOption {
        name: name.into(),
        owner: owner.into(),
        hint: hint.into(),
        at,
    }
}

/// The `non_physical` error: `value`, written at `at`, breaks the rule `what`.
pub(crate) fn non_physical(what: &str, at: Span, value: f64, help: &str) -> ResolveError {
    ResolveError::NonPhysical {
        what: what.into(),
        at,
        value,
        help: help.into(),
    }
}

/// The name an expression is when it is a bare name (`jenkins`, `both`; not `x[1]`).
pub fn bare_name(e: &Expr) -> Option<&Ident> {
    match &e.kind {
        ExprKind::Var { name, index: None } => Some(name),
        _ => None,
    }
}

/// A value that must be a bare name (`law = jenkins`); `what` names what was expected.
pub(crate) fn identifier<'a>(v: &'a Value, what: &str) -> R<&'a str> {
    let name = match v {
        Value::Expr(e) => bare_name(e),
        _ => None,
    };
    name.map(|n| n.name.as_str())
        .ok_or_else(|| ResolveError::WrongType {
            expected: what.into(),
            found: "something else".into(),
            at: v.span(),
            help: "write a bare name, e.g. `law = jenkins`".into(),
        })
}

/// `true` or `false`.
pub(crate) fn boolean(v: &Value) -> R<bool> {
    match identifier(v, "true or false")? {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ResolveError::WrongType {
            expected: "true or false".into(),
            found: "another name".into(),
            at: v.span(),
            help: "write `true` or `false`".into(),
        }),
    }
}

/// The source text of an expression, for messages.
pub fn snippet(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var { name, .. } | ExprKind::Call { name, .. } => name.name.clone(),
        _ => describe(e).to_string(),
    }
}

/// `dofs = x` or `dofs = (x, y)`.
pub(crate) fn directions(v: &Value) -> R<Vec<Dir>> {
    let items: Vec<&Expr> = match v {
        Value::Expr(
            e @ Expr {
                kind: ExprKind::Var { .. },
                ..
            },
        ) => vec![e],
        Value::Expr(Expr {
            kind: ExprKind::Tuple(items),
            ..
        }) => items.iter().collect(),
        _ => {
            return Err(ResolveError::WrongType {
                expected: "directions".into(),
                found: "something else".into(),
                at: v.span(),
                help: "write `dofs = (x, y)`".into(),
            })
        }
    };
    let mut dirs = Vec::new();
    for e in items {
        let Some(name) = bare_name(e) else {
            return Err(ResolveError::UnknownDirection {
                dir: snippet(e),
                at: e.span,
            });
        };
        let d = Dir::parse(&name.name).ok_or_else(|| ResolveError::UnknownDirection {
            dir: name.name.clone(),
            at: name.span,
        })?;
        if dirs.contains(&d) {
            return Err(ResolveError::Duplicate {
                name: name.name.clone(),
                at: name.span,
                first: None,
            });
        }
        dirs.push(d);
    }
    Ok(dirs)
}

/// A 3-vector expression `(x, y, z)` (a 2-vector gets z = 0), each entry of dimension `dim`.
pub(crate) fn eval_vector(e: &Expr, s: &Scope, what: &str, dim: Dim) -> R<[f64; 3]> {
    let ExprKind::Tuple(items) = &e.kind else {
        return Err(ResolveError::WrongType {
            expected: "a vector".into(),
            found: describe(e).into(),
            at: e.span,
            help: format!("write {what} as `(x, y, z)`"),
        });
    };
    if items.len() > 3 {
        return Err(ResolveError::WrongType {
            expected: "a vector of 2 or 3 entries".into(),
            found: format!("{} entries", items.len()),
            at: e.span,
            help: format!("write {what} as `(x, y, z)`"),
        });
    }
    let mut v = [0.0; 3];
    for (vi, x) in v.iter_mut().zip(items) {
        *vi = eval::quantity(x, s, what, dim)?;
    }
    Ok(v)
}

/// The 3-vector written for `key`; `None` when absent.
pub(crate) fn vector(
    opts: Option<&Options>,
    key: &str,
    s: &Scope,
    dim: Dim,
) -> R<Option<[f64; 3]>> {
    match expression(opts, key) {
        Ok(None) => Ok(None),
        Ok(Some(e)) => eval_vector(e, s, key, dim).map(Some),
        Err(v) => Err(ResolveError::WrongType {
            expected: "a vector".into(),
            found: "a range or block".into(),
            at: v.span(),
            help: format!("write `{key} = (x, y, z)`"),
        }),
    }
}

/// `((x1, y1), (x2, y2), …)`, at least three vertices.
pub(crate) fn polygon(v: &Value, s: &Scope) -> R<Vec<[f64; 2]>> {
    let bad = |at| ResolveError::WrongType {
        expected: "a polygon".into(),
        found: "something else".into(),
        at,
        help: "write `section = ((x1, y1), (x2, y2), (x3, y3))` with at least three vertices"
            .into(),
    };
    let Value::Expr(Expr {
        kind: ExprKind::Tuple(items),
        span,
    }) = v
    else {
        return Err(bad(v.span()));
    };
    if items.len() < 3 {
        return Err(bad(*span));
    }
    items
        .iter()
        .map(|p| match &p.kind {
            ExprKind::Tuple(xy) if xy.len() == 2 => Ok([
                eval::quantity(&xy[0], s, "a vertex", Dim::LENGTH)?,
                eval::quantity(&xy[1], s, "a vertex", Dim::LENGTH)?,
            ]),
            _ => Err(bad(p.span)),
        })
        .collect()
}

/// `rect(b, h)` (h along the bending direction) or `circle(d)` → (area, second moment).
pub(crate) fn section(v: &Value, s: &Scope) -> R<(f64, f64)> {
    let bad = |at| ResolveError::UnknownLaw {
        name: "section".into(),
        owner: "beam section".into(),
        at,
        help: "sections are `rect(b, h)` (h in the bending plane) and `circle(d)`".into(),
    };
    let Value::Expr(Expr {
        kind: ExprKind::Call { name, args },
        span,
    }) = v
    else {
        return Err(bad(v.span()));
    };
    match name.name.as_str() {
        "rect" => {
            let x = call_args(
                args,
                s,
                "rect",
                &[("b", None, Dim::LENGTH), ("h", None, Dim::LENGTH)],
                *span,
            )?;
            Ok((x[0] * x[1], x[0] * x[1].powi(3) / 12.0))
        }
        "circle" => {
            let d = call_args(args, s, "circle", &[("d", None, Dim::LENGTH)], *span)?[0];
            let pi = std::f64::consts::PI;
            Ok((pi * d * d / 4.0, pi * d.powi(4) / 64.0))
        }
        _ => Err(bad(name.span)),
    }
}

/// One parameter of a call such as `hertz(k, n = 1.5)`: its name, its default (`None`: it
/// must be given) and its dimension.
pub(crate) type CallParam<'a> = (&'a str, Option<f64>, Dim);

/// Reads the arguments of the call `name(args…)` (positional, then by name) against
/// `schema`, in schema order; `span` is the call's.
pub(crate) fn call_args(
    args: &[Arg],
    s: &Scope,
    name: &str,
    schema: &[CallParam],
    span: Span,
) -> R<Vec<f64>> {
    let mut vals: Vec<Option<f64>> = schema.iter().map(|(_, d, _)| *d).collect();
    for (i, a) in args.iter().enumerate() {
        let slot = match &a.name {
            Some(n) => schema
                .iter()
                .position(|(k, _, _)| *k == n.name)
                .ok_or_else(|| ResolveError::UnknownOption {
                    name: n.name.clone(),
                    owner: format!("`{name}`"),
                    at: n.span,
                    help: suggest(
                        &n.name,
                        schema.iter().map(|(k, _, _)| *k),
                        &format!("the arguments of `{name}` are"),
                    ),
                })?,
            None if i < schema.len() => i,
            None => {
                return Err(ResolveError::Arity {
                    name: name.into(),
                    expected: schema.len(),
                    found: args.len(),
                    usage: usage(name, schema),
                    at: span,
                });
            }
        };
        let (k, _, dim) = schema[slot];
        vals[slot] = Some(eval::quantity(
            &a.value,
            s,
            &format!("`{k}` of {name}"),
            dim,
        )?);
    }
    vals.into_iter()
        .zip(schema)
        .map(|(v, (k, _, _))| {
            v.ok_or_else(|| {
                missing(
                    k,
                    &format!("`{name}`"),
                    &format!("write it as {}", usage(name, schema)),
                    span,
                )
            })
        })
        .collect()
}

/// How to call `name`: `` `hertz(k, n = 1.5)` ``.
fn usage(name: &str, schema: &[CallParam]) -> String {
    let parts: Vec<String> = schema
        .iter()
        .map(|(k, d, _)| {
            if let Some(d) = d {
                format!("{k} = {d}")
            } else {
                k.to_string()
            }
        })
        .collect();
    format!("`{name}({})`", parts.join(", "))
}
