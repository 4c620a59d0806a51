//! Reading an analysis statement's options block against the model's parameters: unknown
//! keys with "did you mean", numbers with units, names (`contacts = stuck`), intervals and
//! parameter sweeps.
//!
//! Keys are checked, found and matched as bare names by the language's option reader
//! (`lang::options`); this module adds what only analyses read (counts, DOF names, choices,
//! time intervals, swept parameters, initial values, output calls) and reports with the
//! analysis error codes.

use super::diagnostics::AnalysisError;
use nsd_lang::ast::{Analysis, Expr, ExprKind, Options, Value};
use nsd_lang::diagnostics::{suggest, ResolveError};
use nsd_lang::eval::{self, Scope};
use nsd_lang::options::{self, bare_name, check_keys, Bound};
use nsd_lang::span::Span;
use nsd_model::Model;

pub(crate) mod balance;
mod dofs;
pub(crate) mod poincare;
pub(crate) mod section;

pub(crate) use dofs::dof_by_path;

/// Largest leftover of the step count `(b − a)/h` from a whole number, relative to that
/// count (at least 1), for which a sweep step still divides its range (dimensionless).
const STEP_DIVIDES_TOLERANCE: f64 = 1e-9;

/// Most steps a swept axis may have (about a million grid points).
const MAX_SWEEP_STEPS: f64 = 1e6;

/// Largest magnitude of an initial value: about the square root of the largest `f64`, so the
/// state's squares (its energy, the integrators' error norms) stay finite.
const MAX_STATE: f64 = 1e150;

/// The options of one analysis statement, with the model's parameters in scope.
pub(crate) struct OptionReader<'a> {
    options: Option<&'a Options>,
    kind: &'static str,
    span: Span,
    scope: Scope,
}

type R<T> = Result<T, AnalysisError>;

impl<'a> OptionReader<'a> {
    /// Checks every key against `allowed` and makes the model's parameters visible.
    pub(crate) fn new(a: &'a Analysis, model: &Model, allowed: &[&str]) -> R<Self> {
        let kind = a.kind.keyword();
        // The same key check as element options; unknown keys keep the analysis code.
        check_keys(a.options.as_ref(), allowed, &format!("`{kind}`")).map_err(|e| match e {
            ResolveError::UnknownOption { name, at, help, .. } => AnalysisError::UnknownOption {
                name,
                kind: kind.into(),
                at,
                help,
            },
            other => AnalysisError::Resolve(other),
        })?;
        let mut scope = Scope::default();
        for (n, v) in &model.params {
            scope.params.insert(n.clone(), eval::Num::free(*v));
        }
        Ok(OptionReader {
            options: a.options.as_ref(),
            kind,
            span: a.span,
            scope,
        })
    }

    /// The options without the key check, for the checks made before an analysis runs
    /// (`preflight`): the analysis itself reports unknown keys.
    pub(crate) fn unchecked(a: &'a Analysis, model: &Model) -> Self {
        let mut scope = Scope::default();
        for (n, v) in &model.params {
            scope.params.insert(n.clone(), eval::Num::free(*v));
        }
        OptionReader {
            options: a.options.as_ref(),
            kind: a.kind.keyword(),
            span: a.span,
            scope,
        }
    }

    /// The span of `key`'s value, if the key is given.
    pub(crate) fn span_of(&self, key: &str) -> Option<Span> {
        self.get(key).map(Value::span)
    }

    /// The value of `key` as written, if the key is given.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        options::value(self.options, key)
    }

    fn bad(&self, key: &str, at: Span, reason: &str, help: &str) -> AnalysisError {
        AnalysisError::BadOption {
            name: key.into(),
            reason: reason.into(),
            at,
            help: help.into(),
        }
    }

    /// The expression of `key`, or a "expected …" error naming an example (`None` if absent).
    fn expr(&self, key: &str, expected: &str, example: &str) -> R<Option<&'a Expr>> {
        options::expression(self.options, key).map_err(|v| {
            self.bad(
                key,
                v.span(),
                expected,
                &format!("write `{key} = {example}`"),
            )
        })
    }

    /// A whole number ≥ `min`.
    pub(crate) fn count(&self, key: &str, min: i64) -> R<Option<usize>> {
        let Some(e) = self.expr(key, "expected a whole number", "10")? else {
            return Ok(None);
        };
        let n = eval::integer(e, &self.scope).map_err(|_| {
            self.bad(
                key,
                e.span,
                "not a whole number",
                &format!("write `{key} = 10`"),
            )
        })?;
        if n < min {
            return Err(self.bad(
                key,
                e.span,
                &format!("must be at least {min}"),
                &format!("`{key}` counts something; use a value ≥ {min}"),
            ));
        }
        Ok(Some(n as usize))
    }

    /// `count`, refused above `max` with `reason` and `help` (a bound on the work a request
    /// may ask for).
    pub(crate) fn count_at_most(
        &self,
        key: &str,
        (min, max): (i64, usize),
        reason: &str,
        help: &str,
    ) -> R<Option<usize>> {
        let n = self.count(key, min)?;
        match (n, self.span_of(key)) {
            (Some(n), Some(at)) if n > max => Err(self.bad(key, at, reason, help)),
            _ => Ok(n),
        }
    }

    /// A boolean option, `true` or `false` (`default` when absent); anything else is refused
    /// on the value with the two choices.
    pub(crate) fn flag(&self, key: &str, default: bool) -> R<bool> {
        Ok(self
            .choice(key, &["true", "false"])?
            .map_or(default, |c| c == "true"))
    }

    /// A bare name out of `choices`.
    pub(crate) fn choice(&self, key: &str, choices: &[&'static str]) -> R<Option<&'static str>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let list = choices
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if let Value::Expr(e) = v {
            if let Some(name) = bare_name(e) {
                if let Some(c) = choices.iter().find(|c| **c == name.name) {
                    return Ok(Some(c));
                }
                let help = suggest(&name.name, choices.iter().copied(), "the choices are");
                return Err(self.bad(key, e.span, &format!("expected one of {list}"), &help));
            }
        }
        Err(self.bad(
            key,
            v.span(),
            &format!("expected one of {list}"),
            &format!("write `{key} = {}`", choices[0]),
        ))
    }

    /// A number (with unit check) or `None` when absent.
    pub(crate) fn number(&self, key: &str, dim: nsd_lang::units::Dim) -> R<Option<f64>> {
        let Some(e) = self.expr(key, "expected a number", "1e-9")? else {
            return Ok(None);
        };
        eval::quantity(e, &self.scope, key, dim)
            .map(Some)
            .map_err(AnalysisError::Resolve)
    }

    /// `key = (a, b, …)` (or one number): positive numbers of dimension `dim`, `None` when
    /// absent.
    pub(crate) fn numbers(&self, key: &str, dim: nsd_lang::units::Dim) -> R<Option<Vec<f64>>> {
        let Some(e) = self.expr(key, "expected a list of numbers", "(0.1, 1, 10)")? else {
            return Ok(None);
        };
        let items = match &e.kind {
            nsd_lang::ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![e],
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let v = eval::quantity(item, &self.scope, key, dim).map_err(AnalysisError::Resolve)?;
            if !(v > 0.0 && v.is_finite()) {
                return Err(self.bad(
                    key,
                    item.span,
                    "every entry must be a positive number",
                    &format!("e.g. `{key} = (0.1, 1, 10)`"),
                ));
            }
            out.push(v);
        }
        Ok(Some(out))
    }

    /// A positive number (with unit check), `default` when absent; `example` shows a value
    /// in the help of the "must be positive" error.
    pub(crate) fn positive(
        &self,
        key: &str,
        dim: nsd_lang::units::Dim,
        default: f64,
        example: &str,
    ) -> R<f64> {
        let v = self.number(key, dim)?.unwrap_or(default);
        if v > 0.0 {
            Ok(v)
        } else {
            Err(self.bad(
                key,
                self.span_of(key).unwrap_or(self.span),
                "must be positive",
                &format!("e.g. `{key} = {example}`"),
            ))
        }
    }

    /// A given first `step` below the continuation's `min_step` (given or default) is
    /// refused on the step: the continuation would stop at its first point with "the step
    /// fell below its minimum", a failure the request made.
    pub(crate) fn step_above_minimum(&self, step: f64, min_step: f64) -> R<()> {
        match self.span_of("step") {
            Some(at) if step < min_step => Err(self.bad(
                "step",
                at,
                &format!("step = {step:e} is below min_step = {min_step:e}"),
                "the steps must satisfy min_step ≤ step ≤ max_step: raise `step` or lower `min_step`",
            )),
            _ => Ok(()),
        }
    }

    /// `key = a..b` (times) as `(a, b)` with `a < b`.
    pub(crate) fn interval(&self, key: &str) -> R<Option<(f64, f64)>> {
        self.interval_in(key, nsd_lang::units::Dim::TIME)
    }

    /// `key = a..b` (times) as `(a, b)` with `0 < a < b`, for periods and durations: the
    /// start checked by `Bound::Positive` as the model's quantities are, refused on its value.
    pub(crate) fn positive_interval(
        &self,
        key: &str,
        subject: &str,
        help: &str,
    ) -> R<Option<(f64, f64)>> {
        let range = self.interval(key)?;
        if let (Some((a, _)), Some(Value::Range(r))) = (range, self.get(key)) {
            self.bounded(key, Bound::Positive, a, subject, r.from.span, help)?;
        }
        Ok(range)
    }

    /// `value`, written at `at`, checked against `bound` by `Bound::check` (the rule the
    /// model's quantities obey); a refusal is this analysis's `bad_option` on `key`.
    pub(crate) fn bounded(
        &self,
        key: &str,
        bound: Bound,
        value: f64,
        subject: &str,
        at: Span,
        help: &str,
    ) -> R<f64> {
        bound
            .check(value, subject, at, help)
            .map_err(|e| AnalysisError::out_of_bound(key, e))
    }

    /// `key = a..b` in the dimension `dim` as `(a, b)` with `a < b`.
    pub(crate) fn interval_in(
        &self,
        key: &str,
        dim: nsd_lang::units::Dim,
    ) -> R<Option<(f64, f64)>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let Value::Range(r) = v else {
            return Err(self.bad(
                key,
                v.span(),
                "expected a range",
                &format!("write `{key} = 0..100`"),
            ));
        };
        let a = eval::quantity(&r.from, &self.scope, key, dim).map_err(AnalysisError::Resolve)?;
        let b = eval::quantity(&r.to, &self.scope, key, dim).map_err(AnalysisError::Resolve)?;
        if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) {
            return Err(self.bad(
                key,
                r.span,
                "the end must come after the start",
                &format!("write `{key} = 0..100`"),
            ));
        }
        Ok(Some((a, b)))
    }

    /// `key = p in a..b [by h]`: a model parameter, the interval, the optional step, and the
    /// spans of the value and of its range.
    #[allow(clippy::type_complexity)]
    fn parameter_range(
        &self,
        key: &str,
        params: &[(String, f64)],
        example: &str,
    ) -> R<Option<(String, f64, f64, Option<f64>, Span, Span)>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let Value::Sweep { param, range, span } = v else {
            return Err(self.bad(key, v.span(), "expected a swept parameter", example));
        };
        if !params.iter().any(|(n, _)| *n == param.name) {
            let help = suggest(
                &param.name,
                params.iter().map(|(n, _)| n.as_str()),
                "the model's parameters are",
            );
            return Err(self.bad(
                key,
                param.span,
                &format!("`{}` is not a parameter of the model", param.name),
                &help,
            ));
        }
        let num = |e| {
            eval::eval(e, &self.scope)
                .map(|n| n.v)
                .map_err(AnalysisError::Resolve)
        };
        let (a, b) = (num(&range.from)?, num(&range.to)?);
        let h = range.step.as_ref().map(num).transpose()?;
        Ok(Some((param.name.clone(), a, b, h, *span, range.span)))
    }

    /// `key = p in a..b` (a ≠ b, either way round: `b < a` runs downward; a step, if given,
    /// is ignored): the parameter and interval as written.
    pub(crate) fn parameter_interval(
        &self,
        key: &str,
        params: &[(String, f64)],
    ) -> R<Option<(String, f64, f64, Span)>> {
        let example = format!("write `{key} = Omega in 0.5..2`");
        let Some((name, a, b, _, span, range)) = self.parameter_range(key, params, &example)?
        else {
            return Ok(None);
        };
        if !(a.is_finite() && b.is_finite()) || a == b {
            return Err(self.bad(
                key,
                range,
                "the range needs two different finite ends",
                &example,
            ));
        }
        Ok(Some((name, a, b, span)))
    }

    /// `key = p in a..b by h`: the swept parameter (one of the model's), its grid
    /// `min, min + h, …, max` (either way round) and the value's span. The step must divide the range (up to
    /// `STEP_DIVIDES_TOLERANCE`).
    pub(crate) fn sweep(
        &self,
        key: &str,
        params: &[(String, f64)],
    ) -> R<Option<(String, Vec<f64>, Span)>> {
        let example = format!("write `{key} = r1 in 0..2.5 by 0.01`");
        let Some((name, a, b, h, span, range_span)) =
            self.parameter_range(key, params, &example)?
        else {
            return Ok(None);
        };
        let Some(h) = h else {
            return Err(self.bad(key, range_span, "the sweep needs a step", &example));
        };
        // Each point of a map is computed on its own: a downward range gives the same map.
        let (a, b) = (a.min(b), a.max(b));
        let count = (b - a) / h;
        if !(h > 0.0 && b > a && count.is_finite())
            || (count - count.round()).abs() > STEP_DIVIDES_TOLERANCE * count.max(1.0)
        {
            return Err(self.bad(
                key,
                range_span,
                "expected two different ends and a step h > 0 that divides their distance",
                &example,
            ));
        }
        if count.round() > MAX_SWEEP_STEPS {
            return Err(self.bad(
                key,
                range_span,
                "more than a million points",
                "use a coarser step",
            ));
        }
        let n = count.round() as usize;
        let grid = (0..=n)
            .map(|i| if i == n { b } else { a + i as f64 * h })
            .collect();
        Ok(Some((name, grid, span)))
    }

    /// A block of `node[.dir] = value` entries, keys rendered as node paths (`m1`, `c.x[3].x`).
    pub(crate) fn assignments(&self, key: &str) -> R<Vec<(String, f64, Span)>> {
        let Some(v) = self.get(key) else {
            return Ok(vec![]);
        };
        let Value::Block(o) = v else {
            return Err(self.bad(
                key,
                v.span(),
                "expected a block",
                &format!("write `{key} = {{ m1 = 0.1 }}`"),
            ));
        };
        let mut out = Vec::new();
        for e in &o.entries {
            let path = self.path_of(&e.key.segments)?;
            let Value::Expr(x) = &e.value else {
                return Err(self.bad(
                    key,
                    e.value.span(),
                    "expected a number",
                    "initial values are numbers",
                ));
            };
            let val = eval::eval(x, &self.scope)
                .map_err(AnalysisError::Resolve)?
                .v;
            if !val.is_finite() {
                return Err(AnalysisError::Resolve(ResolveError::NonFinite {
                    at: x.span,
                    value: val,
                }));
            }
            if val.abs() > MAX_STATE {
                return Err(self.bad(
                    key,
                    x.span,
                    &format!("{val:e} is too large for a state: its square (energies, error norms) overflows"),
                    &format!("initial values must be below {MAX_STATE:e} in magnitude"),
                ));
            }
            out.push((path, val, e.key.span));
        }
        Ok(out)
    }

    /// A call value `name(args…)`: its name, its evaluated positional arguments with their
    /// spans, and its span.
    #[allow(clippy::type_complexity)]
    pub(crate) fn call(&self, key: &str) -> R<Option<(String, Vec<(f64, Span)>, Span)>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v {
            Value::Expr(e) => match &e.kind {
                ExprKind::Call { name, args } => {
                    let vals = args
                        .iter()
                        .map(|a| eval::eval(&a.value, &self.scope).map(|n| (n.v, a.value.span)))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(AnalysisError::Resolve)?;
                    Ok(Some((name.name.clone(), vals, e.span)))
                }
                ExprKind::Var { name, index: None } => {
                    Ok(Some((name.name.clone(), vec![], e.span)))
                }
                _ => Err(self.bad(
                    key,
                    e.span,
                    "expected a name or a call",
                    "e.g. `output = every(0.1)`",
                )),
            },
            _ => Err(self.bad(
                key,
                v.span(),
                "expected a name or a call",
                "e.g. `output = every(0.1)`",
            )),
        }
    }

    pub(crate) fn bad_value(&self, key: &str, at: Span, reason: &str, help: &str) -> AnalysisError {
        self.bad(key, at, reason, help)
    }

    /// The span of the analysis statement.
    pub(crate) fn statement_span(&self) -> Span {
        self.span
    }

    pub(crate) fn kind(&self) -> &'static str {
        self.kind
    }
}
