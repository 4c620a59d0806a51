//! `expect` statements: a value an analysis of the file must report, checked by `nsd test`.
//!
//! An expectation addresses the analysis's summary (what `run --json` prints as `summary`):
//! `NAME.key`, then `.key` into objects (`["m1.x"]` for a key that is not a name) and `[n]`
//! into lists (from 1; `[-1]` is the last), e.g. `modes_open.natural_frequencies[1]`,
//! `frf.peak.Omega` or `run.final["v(m1.x)"]`; `len(PATH)` counts the entries of a list or
//! object, e.g. `len(run.zeno) = 0`. A number matches when `|actual − expected| ≤ tol`
//! (`± tol`), `≤ tol/100 · |expected|` (`± tol%`), or, without a tolerance, when it is
//! exactly equal (counts); `true`, `false` and strings match exactly.
//! The analysis names are checked with the file (`check_targets`, part of `check_names`); the
//! keys once the analysis has run, since a summary's keys depend on its options.

use miette::{Diagnostic, Report};
use nsd_lang::ast::{Expect, ExpectValue, Ident, PathStep};
use nsd_lang::diagnostics::suggest;
use nsd_lang::span::Span;
use nsd_lang::{Failure, Program};
use serde_json::{Map, Value};
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum ExpectError {
    #[error("no analysis named `{name}` in this file")]
    #[diagnostic(code(nsd::test::unknown_analysis), help("{help}"))]
    UnknownAnalysis {
        name: String,
        #[label("not an analysis of this file")]
        at: Span,
        help: String,
    },
    #[error("the summary of `{analysis}` has no `{key}`")]
    #[diagnostic(code(nsd::test::unknown_key), help("{help}"))]
    UnknownKey {
        analysis: String,
        key: String,
        #[label("not in the summary")]
        at: Span,
        help: String,
    },
    #[error("`{path}` is not a single value")]
    #[diagnostic(
        code(nsd::test::not_a_value),
        help(
            "it is {what}; address one entry (`[1]` the first of a list, `[-1]` the last, `.key` in an object), or count its entries with `len({path})`"
        )
    )]
    NotAValue {
        path: String,
        what: String,
        #[label("a list or an object")]
        at: Span,
    },
    #[error("`{path}` has no entries to count")]
    #[diagnostic(
        code(nsd::test::not_a_list),
        help("it is {what}; `len(…)` counts the entries of a list or an object: compare the value itself with `expect {path} = …`")
    )]
    NotAList {
        path: String,
        what: String,
        #[label("a single value")]
        at: Span,
    },
    #[error("expectation failed: `{path}` is {actual}")]
    #[diagnostic(code(nsd::test::expect_failed), help("{help}"))]
    Failed {
        path: String,
        actual: String,
        #[label("expected {expected}")]
        at: Span,
        expected: String,
        help: String,
    },
    #[error("`{analysis}` failed, so its expectations cannot be checked")]
    #[diagnostic(
        code(nsd::test::analysis_failed),
        help("its own diagnostic is printed above")
    )]
    AnalysisFailed {
        analysis: String,
        #[label("this expectation was not checked")]
        at: Span,
    },
}

/// `NAME.key[1]` (or `len(NAME.key)`) as written.
fn path_text(e: &Expect) -> String {
    let path = steps_text(e, &e.path);
    if e.len {
        format!("len({path})")
    } else {
        path
    }
}

/// `NAME` and `steps` as written: `.key`, `["key"]`, `[n]`.
fn steps_text(e: &Expect, steps: &[PathStep]) -> String {
    let mut s = e.analysis.name.clone();
    for step in steps {
        match step {
            PathStep::Key { key, quoted: false } => {
                s.push('.');
                s.push_str(&key.name);
            }
            PathStep::Key { key, quoted: true } => s.push_str(&format!("[\"{}\"]", key.name)),
            PathStep::Index { n, .. } => s.push_str(&format!("[{n}]")),
        }
    }
    s
}

/// A key that `.key` can address (the grammar's `ident`); any other is written `["key"]`.
fn is_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every `expect` names an analysis of the file (`nsd::test::unknown_analysis`).
pub(crate) fn check_targets(prog: &Program) -> Result<(), Failure> {
    let names: Vec<String> = prog.analyses.iter().map(super::name_of).collect();
    let reports: Vec<Report> = prog
        .expects
        .iter()
        .filter(|e| !names.contains(&e.analysis.name))
        .map(|e| {
            let help = suggest(
                &e.analysis.name,
                names.iter().map(String::as_str),
                "name an analysis of this file, by its `as` name or else its kind",
            );
            let err = ExpectError::UnknownAnalysis {
                name: e.analysis.name.clone(),
                at: e.analysis.span,
                help,
            };
            Failure::located(&prog.sources, e.span.file, err)
        })
        .collect();
    if reports.is_empty() {
        Ok(())
    } else {
        Err(Failure { reports })
    }
}

/// Checks one expectation of `prog` against the summary of its analysis.
pub fn check(prog: &Program, e: &Expect, summary: &Map<String, Value>) -> Result<(), ExpectError> {
    let actual = &lookup(e, summary)?;
    if matches(&e.value, actual, e) {
        return Ok(());
    }
    let off = match (&e.value, actual.as_f64()) {
        (ExpectValue::Number(x), Some(a)) => {
            // Short differences as they are (`-0.5`, `1`), long ones to 4 digits (`-3.267e-4`).
            let d = (a - x).to_string();
            format!(
                " (off by {})",
                if d.len() <= 8 {
                    d
                } else {
                    format!("{:.3e}", a - x)
                }
            )
        }
        _ => String::new(),
    };
    let at = e
        .tolerance
        .as_ref()
        .map_or(e.value_span, |t| e.value_span.join(t.span));
    // The expectation as written (`3.7397 ± 5e-5`), not as re-printed from the parsed f64s.
    let expected = prog
        .sources
        .get(at.file)
        .text
        .get(at.start as usize..at.end as usize)
        .unwrap_or_default()
        .to_string();
    Err(ExpectError::Failed {
        path: path_text(e),
        actual: actual.to_string(),
        at,
        expected,
        help: format!(
            "the analysis reported {actual}{off}; fix the model, or the expected value if the change is intended"
        ),
    })
}

/// The value that `e`'s path addresses in `summary` (with `len(…)`, its number of entries).
fn lookup(e: &Expect, summary: &Map<String, Value>) -> Result<Value, ExpectError> {
    let mut here: Option<&Value> = None;
    for (k, step) in e.path.iter().enumerate() {
        let parent = || steps_text(e, &e.path[..k]);
        let next = match (step, here) {
            (PathStep::Key { key, .. }, None) => summary
                .get(&key.name)
                .ok_or_else(|| unknown(e, key, &parent(), summary.keys())),
            (PathStep::Key { key, .. }, Some(Value::Object(o))) => o
                .get(&key.name)
                .ok_or_else(|| unknown(e, key, &parent(), o.keys())),
            (PathStep::Index { n, span }, Some(Value::Array(a))) => {
                entry(a, *n).ok_or_else(|| ExpectError::UnknownKey {
                    analysis: e.analysis.name.clone(),
                    key: format!("[{n}]"),
                    at: *span,
                    help: index_help(a.len(), *n),
                })
            }
            (PathStep::Index { n, span }, parent) => Err(ExpectError::UnknownKey {
                analysis: e.analysis.name.clone(),
                key: format!("[{n}]"),
                at: *span,
                help: match parent {
                    Some(Value::Object(_)) => "only a list takes an index; address a key of this object (`.key`, or `[\"key\"]` for one that is not a name)".into(),
                    _ => "only a list takes an index".into(),
                },
            }),
            (PathStep::Key { key, .. }, Some(_)) => Err(ExpectError::UnknownKey {
                analysis: e.analysis.name.clone(),
                key: key.name.clone(),
                at: key.span,
                help: "only an object has keys".into(),
            }),
        }?;
        here = Some(next);
    }
    let value = here.expect("grammar: a path has at least one step");
    match (value, e.len) {
        (Value::Array(a), true) => Ok(a.len().into()),
        (Value::Object(o), true) => Ok(o.len().into()),
        (v, true) => Err(ExpectError::NotAList {
            path: steps_text(e, &e.path),
            what: what(v),
            at: last_span(e),
        }),
        (v @ (Value::Array(_) | Value::Object(_)), false) => Err(ExpectError::NotAValue {
            path: path_text(e),
            what: what(v),
            at: last_span(e),
        }),
        (v, false) => Ok(v.clone()),
    }
}

/// Entry `n` of `a`: from 1 at the front, from −1 at the back (`[-1]` the last); `[0]` none.
fn entry(a: &[Value], n: i64) -> Option<&Value> {
    let i = match n {
        1.. => usize::try_from(n - 1).ok()?,
        0 => return None,
        _ => a
            .len()
            .checked_sub(usize::try_from(n.unsigned_abs()).ok()?)?,
    };
    a.get(i)
}

/// Why index `n` addresses no entry of a list of `len`.
fn index_help(len: usize, n: i64) -> String {
    let range = match len {
        0 => "the list is empty".to_string(),
        1 => "the list has 1 entry: `[1]`, or `[-1]`".to_string(),
        _ => format!(
            "the list has {len} entries: `[1]` to `[{len}]`, or `[-1]` (the last) to `[-{len}]`"
        ),
    };
    if n == 0 {
        format!("indices start at 1 (`[1]` the first entry, `[-1]` the last); {range}")
    } else {
        range
    }
}

/// A list or object, or a value, in words for a help line.
fn what(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("a list of {}", a.len()),
        Value::Object(o) => format!(
            "an object with {}",
            o.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
        v => format!("the value {v}"),
    }
}

fn unknown<'k>(
    e: &Expect,
    key: &Ident,
    parent: &str,
    keys: impl Iterator<Item = &'k String>,
) -> ExpectError {
    let keys: Vec<&str> = keys.map(String::as_str).collect();
    let mut help = suggest(&key.name, keys.iter().copied(), "its keys are");
    // `suggest` shows keys as they are; one that is not a name is written in quotes.
    let written = |k: &str| format!("{parent}[\"{k}\"]");
    match keys.iter().find(|k| help == format!("did you mean `{k}`?")) {
        Some(k) if !is_name(k) => help = format!("did you mean `{}`?", written(k)),
        Some(_) => {}
        None => {
            if let Some(k) = keys.iter().find(|k| !is_name(k)) {
                help.push_str(&format!(
                    "; a key that is not a name goes in quotes: `{}`",
                    written(k)
                ));
            }
        }
    }
    ExpectError::UnknownKey {
        analysis: e.analysis.name.clone(),
        key: key.name.clone(),
        at: key.span,
        help,
    }
}

/// The span of the path's last step, where a list-or-value mismatch is labelled.
fn last_span(e: &Expect) -> Span {
    match e
        .path
        .last()
        .expect("grammar: a path has at least one step")
    {
        PathStep::Key { key, .. } => key.span,
        PathStep::Index { span, .. } => *span,
    }
}

fn matches(expected: &ExpectValue, actual: &Value, e: &Expect) -> bool {
    match (expected, actual) {
        (ExpectValue::Number(x), Value::Number(a)) => {
            let Some(a) = a.as_f64() else { return false };
            match &e.tolerance {
                None => a == *x,
                Some(t) if t.relative => (a - x).abs() <= t.amount / 100.0 * x.abs(),
                Some(t) => (a - x).abs() <= t.amount,
            }
        }
        (ExpectValue::Bool(x), Value::Bool(a)) => x == a,
        (ExpectValue::Text(x), Value::String(a)) => x == a,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Checks the expectations of `lines` (after a one-analysis file) against `summary`.
    fn outcomes(lines: &str, summary: Value) -> Vec<Result<(), String>> {
        let text = format!("model m {{ mass a = 1 }}\nmodes m as run\n{lines}");
        let prog = Program::from_source("t.nsd", &text, None).expect("the test file loads");
        let Value::Object(summary) = summary else {
            panic!("a summary is an object")
        };
        prog.expects
            .iter()
            .map(|e| {
                check(&prog, e, &summary).map_err(|err| {
                    let code = err.code().map(|c| c.to_string()).unwrap_or_default();
                    format!("{code}: {err}")
                })
            })
            .collect()
    }

    #[test]
    fn numbers_match_within_absolute_relative_or_no_tolerance() {
        let summary = json!({"f": [1.0, 2.0], "n": 33, "peak": {"Omega": 1.5}});
        let got = outcomes(
            "expect run.f[2] = 2.05 ± 0.1\nexpect run.f[2] = 2.05 +- 0.01\n\
             expect run.f[1] = 1.01 ± 1%\nexpect run.f[1] = 1.02 ± 1%\n\
             expect run.n = 33\nexpect run.n = 34\nexpect run.peak.Omega = -1.5 ± 3\n",
            summary,
        );
        let ok: Vec<bool> = got.iter().map(Result::is_ok).collect();
        assert_eq!(ok, [true, false, true, false, true, false, true]);
        let failed = got[5].as_ref().expect_err("34 ≠ 33");
        assert!(failed.starts_with("nsd::test::expect_failed"), "{failed}");
    }

    #[test]
    fn booleans_and_strings_match_exactly() {
        let summary = json!({"zeno": false, "method": "reduced"});
        let got = outcomes(
            "expect run.zeno = false\nexpect run.zeno = true\n\
             expect run.method = \"reduced\"\nexpect run.method = \"full\"\nexpect run.zeno = 0\n",
            summary,
        );
        let ok: Vec<bool> = got.iter().map(Result::is_ok).collect();
        assert_eq!(ok, [true, false, true, false, false]);
    }

    #[test]
    fn bad_paths_are_coded_with_a_suggestion() {
        let summary = json!({"natural_frequencies": [1.0], "dofs": 1});
        let got = outcomes(
            "expect run.natural_frequency[1] = 1\nexpect run.natural_frequencies[2] = 1\n\
             expect run.natural_frequencies[0] = 1\nexpect run.natural_frequencies = 1\n\
             expect run.dofs[1] = 1\n",
            summary,
        );
        let codes: Vec<String> = got
            .iter()
            .map(|r| {
                r.as_ref()
                    .expect_err("a bad path")
                    .split(':')
                    .take(5)
                    .collect::<Vec<_>>()
                    .join(":")
            })
            .collect();
        assert_eq!(
            codes,
            [
                "nsd::test::unknown_key",
                "nsd::test::unknown_key",
                "nsd::test::unknown_key",
                "nsd::test::not_a_value",
                "nsd::test::unknown_key"
            ]
        );
    }
}
