//! Expression evaluation with dimensions: parameters, loop variables, `pi`, the functions
//! `sin cos tan exp log sqrt abs min max`, and compilation of `t`-expressions to `TimeFn`.
//!
//! A value whose dimension is `None` came from bare numbers only and is accepted anywhere;
//! a value with a unit carries its dimension through `* / ^` and must match under `+ −`.

use super::ast::{BinOp, Expr, ExprKind};
use super::diagnostics::{suggest, ResolveError};
use super::units::{self, Dim};
use crate::span::Span;
use crate::time_fn::{self as tf, Func, TimeFn};
use std::collections::HashMap;

/// A number with an optional dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num {
    pub v: f64,
    dim: Option<Dim>,
}

impl Num {
    pub fn free(v: f64) -> Num {
        Num { v, dim: None }
    }
}

/// Names visible to an expression: parameters, then loop variables on top.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub params: HashMap<String, Num>,
    locals: Vec<(String, Num)>,
}

impl Scope {
    pub(crate) fn lookup(&self, name: &str) -> Option<Num> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .or_else(|| self.params.get(name).copied())
    }

    pub(crate) fn push_local(&mut self, name: &str, v: f64) {
        self.locals.push((name.to_string(), Num::free(v)));
    }

    pub(crate) fn pop_local(&mut self) {
        self.locals.pop();
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.params
            .keys()
            .map(String::as_str)
            .chain(self.locals.iter().map(|(n, _)| n.as_str()))
            .chain(["pi"])
    }
}

type R<T> = Result<T, ResolveError>;

fn wrong_type(expected: &str, found: &str, at: Span, help: &str) -> ResolveError {
    ResolveError::WrongType {
        expected: expected.into(),
        found: found.into(),
        at,
        help: help.into(),
    }
}

/// Describes what kind of expression `e` is, for "expected …, found …".
pub(crate) fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Tuple(_) => "a vector",
        ExprKind::Str(_) => "a string",
        ExprKind::Call { .. } => "a call",
        _ => "a number",
    }
}

/// Evaluates a constant expression.
pub fn eval(e: &Expr, scope: &Scope) -> R<Num> {
    match &e.kind {
        ExprKind::Number { value, unit } => match unit {
            None => Ok(Num::free(*value)),
            Some(u) => {
                let (scale, dim) =
                    units::unit(&u.factors).ok_or_else(|| ResolveError::Invalid {
                        what: "unknown unit".into(),
                        at: u.span,
                        help: "see docs/language.md for the unit symbols".into(),
                    })?;
                Ok(Num {
                    v: value * scale,
                    dim: Some(dim),
                })
            }
        },
        ExprKind::Var { name, index } => {
            if let Some(i) = index {
                return Err(wrong_type(
                    "a number",
                    "an indexed name",
                    i.span.join(name.span),
                    "only nodes and elements are indexed; parameters are plain names",
                ));
            }
            if let Some(v) = scope.lookup(&name.name) {
                return Ok(v);
            }
            match name.name.as_str() {
                "pi" => Ok(Num::free(std::f64::consts::PI)),
                "t" => Err(ResolveError::TimeNotAllowed { at: name.span }),
                n => Err(ResolveError::UnknownName {
                    name: n.to_string(),
                    at: name.span,
                    help: suggest(n, scope.names(), "declare it with `param`"),
                }),
            }
        }
        ExprKind::Call { name, args } => {
            let f = function(&name.name, name.span)?;
            arity(f, &name.name, args.len(), e.span)?;
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                if let Some(n) = &a.name {
                    return Err(wrong_type(
                        "a positional argument",
                        "a named argument",
                        n.span,
                        "math functions take plain arguments, e.g. `sin(x)`",
                    ));
                }
                vals.push(eval(&a.value, scope)?);
            }
            call_dim(f, &vals, e.span)
        }
        ExprKind::Tuple(_) => Err(wrong_type(
            "a number",
            "a vector",
            e.span,
            "a vector is only allowed where a position, axis or list is expected",
        )),
        ExprKind::Str(_) => Err(wrong_type(
            "a number",
            "a string",
            e.span,
            "strings are file paths; remove the quotes",
        )),
        ExprKind::Neg(a) => {
            let x = eval(a, scope)?;
            Ok(Num {
                v: -x.v,
                dim: x.dim,
            })
        }
        ExprKind::Binary(op, a, b) => {
            let x = eval(a, scope)?;
            let y = eval(b, scope)?;
            binary(*op, x, y, e.span, b.span)
        }
    }
}

fn function(name: &str, at: Span) -> R<Func> {
    Func::from_name(name).ok_or_else(|| ResolveError::UnknownFunction {
        name: name.to_string(),
        at,
        help: suggest(
            name,
            [
                "sin", "cos", "tan", "exp", "log", "sqrt", "abs", "min", "max",
            ],
            "the functions are",
        ),
    })
}

fn arity(f: Func, name: &str, found: usize, at: Span) -> R<()> {
    if found == f.arity() {
        return Ok(());
    }
    let usage = if f.arity() == 2 {
        format!("`{name}(a, b)`")
    } else {
        format!("`{name}(x)`")
    };
    Err(ResolveError::Arity {
        name: name.to_string(),
        expected: f.arity(),
        found,
        usage,
        at,
    })
}

fn call_dim(f: Func, vals: &[Num], at: Span) -> R<Num> {
    let raw: Vec<f64> = vals.iter().map(|n| n.v).collect();
    let v = f.apply(&raw);
    let dim = match f {
        Func::Abs => vals[0].dim,
        Func::Min | Func::Max => merge_dims(vals[0].dim, vals[1].dim, at)?,
        Func::Sqrt => match vals[0].dim {
            Some(d) if d.0.iter().all(|e| e % 2 == 0) => {
                Some(Dim([d.0[0] / 2, d.0[1] / 2, d.0[2] / 2]))
            }
            Some(d) => {
                return Err(unit_mismatch(
                    "the argument of sqrt",
                    "a unit with even powers",
                    d,
                    at,
                ))
            }
            None => None,
        },
        _ => {
            if let Some(d) = vals[0].dim.filter(|d| *d != Dim::NONE) {
                return Err(unit_mismatch(
                    "the argument of a transcendental function",
                    "rad or no unit",
                    d,
                    at,
                ));
            }
            vals[0].dim.map(|_| Dim::NONE)
        }
    };
    Ok(Num { v, dim })
}

fn unit_mismatch(what: &str, expected: &str, found: Dim, at: Span) -> ResolveError {
    ResolveError::UnitMismatch {
        what: what.into(),
        expected: expected.into(),
        found: found.to_string(),
        at,
    }
}

fn merge_dims(a: Option<Dim>, b: Option<Dim>, at: Span) -> R<Option<Dim>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(unit_mismatch(
            "both sides of `+`, `-`, `min` and `max`",
            &x.to_string(),
            y,
            at,
        )),
        (Some(x), _) | (_, Some(x)) => Ok(Some(x)),
        _ => Ok(None),
    }
}

fn binary(op: BinOp, x: Num, y: Num, at: Span, rhs: Span) -> R<Num> {
    let both = |f: fn(Dim, Dim) -> Dim| match (x.dim, y.dim) {
        (Some(a), Some(b)) => Some(f(a, b)),
        _ => None,
    };
    Ok(match op {
        BinOp::Add => Num {
            v: x.v + y.v,
            dim: merge_dims(x.dim, y.dim, at)?,
        },
        BinOp::Sub => Num {
            v: x.v - y.v,
            dim: merge_dims(x.dim, y.dim, at)?,
        },
        BinOp::Mul => Num {
            v: x.v * y.v,
            dim: both(|a, b| a * b),
        },
        BinOp::Div => Num {
            v: x.v / y.v,
            dim: both(|a, b| a / b),
        },
        BinOp::Pow => {
            if let Some(d) = y.dim.filter(|d| *d != Dim::NONE) {
                return Err(unit_mismatch("an exponent", "no unit", d, rhs));
            }
            let dim = match x.dim {
                Some(d) if d != Dim::NONE => {
                    if y.v.fract() != 0.0 || y.v.abs() > 12.0 {
                        return Err(unit_mismatch(
                            "a quantity raised to a non-integer power",
                            "no unit",
                            d,
                            at,
                        ));
                    }
                    Some(d.pow(y.v as i8))
                }
                d => d,
            };
            Num {
                v: x.v.powf(y.v),
                dim,
            }
        }
    })
}

/// Compiles an expression of time `t` (parameters substituted, constants folded).
pub(crate) fn time_fn(e: &Expr, scope: &Scope) -> R<TimeFn> {
    if !mentions_t(e, scope) {
        return Ok(TimeFn::Const(eval(e, scope)?.v));
    }
    let b = |x: TimeFn| Box::new(x);
    Ok(match &e.kind {
        ExprKind::Var { .. } => TimeFn::T,
        ExprKind::Neg(a) => tf::neg(time_fn(a, scope)?),
        ExprKind::Binary(op, x, y) => {
            let (x, y) = (time_fn(x, scope)?, time_fn(y, scope)?);
            match op {
                BinOp::Add => tf::add(x, y),
                BinOp::Sub => tf::sub(x, y),
                BinOp::Mul => tf::mul(x, y),
                BinOp::Div => tf::div(x, y),
                BinOp::Pow => TimeFn::Pow(b(x), b(y)),
            }
        }
        ExprKind::Call { name, args } => {
            let f = function(&name.name, name.span)?;
            arity(f, &name.name, args.len(), e.span)?;
            let args = args
                .iter()
                .map(|a| time_fn(&a.value, scope))
                .collect::<R<Vec<_>>>()?;
            TimeFn::Call(f, args)
        }
        _ => {
            return Err(wrong_type(
                "a number",
                describe(e),
                e.span,
                "a force or base motion is one expression of `t`",
            ))
        }
    })
}

/// True when `e` refers to the time variable `t` (not shadowed by a parameter).
fn mentions_t(e: &Expr, scope: &Scope) -> bool {
    match &e.kind {
        ExprKind::Var { name, index: None } => name.name == "t" && scope.lookup("t").is_none(),
        ExprKind::Neg(a) => mentions_t(a, scope),
        ExprKind::Binary(_, a, b) => mentions_t(a, scope) || mentions_t(b, scope),
        ExprKind::Call { args, .. } => args.iter().any(|a| mentions_t(&a.value, scope)),
        ExprKind::Tuple(items) => items.iter().any(|a| mentions_t(a, scope)),
        _ => false,
    }
}

/// Evaluates and checks the dimension and finiteness of a quantity.
pub fn quantity(e: &Expr, scope: &Scope, what: &str, dim: Dim) -> R<f64> {
    let n = eval(e, scope)?;
    if let Some(d) = n.dim {
        if d != dim {
            return Err(ResolveError::UnitMismatch {
                what: what.into(),
                expected: dim.to_string(),
                found: d.to_string(),
                at: e.span,
            });
        }
    }
    if !n.v.is_finite() {
        return Err(ResolveError::NonFinite {
            at: e.span,
            value: n.v,
        });
    }
    Ok(n.v)
}

/// Largest magnitude read as a whole number: below 2⁵³ ≈ 9·10¹⁵, so every such f64 is an
/// exact integer and fits an `i64` (dimensionless).
const MAX_INTEGER: f64 = 1e15;

/// Evaluates a whole number (indices, loop bounds, counts).
pub fn integer(e: &Expr, scope: &Scope) -> R<i64> {
    let v = eval(e, scope)?.v;
    if v.fract() != 0.0 || !v.is_finite() || v.abs() > MAX_INTEGER {
        return Err(ResolveError::NotInteger {
            value: v,
            at: e.span,
        });
    }
    Ok(v as i64)
}
