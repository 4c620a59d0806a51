//! `expect` statements: a value an analysis of the file must report, checked by `nsd test`.
//!
//! An expectation addresses the analysis's summary (what `run --json` prints as `summary`):
//! `NAME.key`, then `.key` into objects and `[n]` (1-based) into lists, e.g.
//! `modes_open.natural_frequencies[1]` or `frf.peak.Omega`. A number matches when
//! `|actual − expected| ≤ tol` (`± tol`), `≤ tol/100 · |expected|` (`± tol%`), or, without a
//! tolerance, when it is exactly equal (counts); `true`, `false` and strings match exactly.
//! The analysis names are checked with the file (`check_targets`, part of `check_names`); the
//! keys once the analysis has run, since a summary's keys depend on its options.

use crate::lang::ast::{Expect, ExpectValue, PathStep};
use crate::lang::diagnostics::suggest;
use crate::lang::{Failure, Program};
use crate::span::Span;
use miette::{Diagnostic, Report};
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
            "it is {what}; address one entry (`[1]` for the first of a list, `.key` in an object)"
        )
    )]
    NotAValue {
        path: String,
        what: String,
        #[label("a list or an object")]
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

/// `NAME.key[1]` as written.
pub fn path_text(e: &Expect) -> String {
    let mut s = e.analysis.name.clone();
    for step in &e.path {
        match step {
            PathStep::Key(k) => {
                s.push('.');
                s.push_str(&k.name);
            }
            PathStep::Index { n, .. } => s.push_str(&format!("[{n}]")),
        }
    }
    s
}

/// Every `expect` names an analysis of the file (`nsd::test::unknown_analysis`).
pub fn check_targets(prog: &Program) -> Result<(), Failure> {
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
    let actual = lookup(e, summary)?;
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

/// The value that `e`'s path addresses in `summary`.
fn lookup<'a>(e: &Expect, summary: &'a Map<String, Value>) -> Result<&'a Value, ExpectError> {
    let mut here: Option<&Value> = None;
    for step in &e.path {
        let next = match (step, here) {
            (PathStep::Key(k), None) => summary
                .get(&k.name)
                .ok_or_else(|| unknown(e, k.span, &k.name, summary.keys())),
            (PathStep::Key(k), Some(Value::Object(o))) => o
                .get(&k.name)
                .ok_or_else(|| unknown(e, k.span, &k.name, o.keys())),
            (PathStep::Index { n, span }, Some(Value::Array(a))) => n
                .checked_sub(1)
                .and_then(|i| a.get(i))
                .ok_or_else(|| ExpectError::UnknownKey {
                    analysis: e.analysis.name.clone(),
                    key: format!("[{n}]"),
                    at: *span,
                    help: format!("the list has {} entries, numbered from 1", a.len()),
                }),
            (PathStep::Index { n, span }, _) => Err(ExpectError::UnknownKey {
                analysis: e.analysis.name.clone(),
                key: format!("[{n}]"),
                at: *span,
                help: "only a list takes an index".into(),
            }),
            (PathStep::Key(k), Some(_)) => Err(ExpectError::UnknownKey {
                analysis: e.analysis.name.clone(),
                key: k.name.clone(),
                at: k.span,
                help: "only an object has keys".into(),
            }),
        }?;
        here = Some(next);
    }
    let value = here.expect("grammar: a path has at least one step");
    match value {
        Value::Array(a) => Err(not_a_value(e, format!("a list of {}", a.len()))),
        Value::Object(o) => Err(not_a_value(
            e,
            format!(
                "an object with {}",
                o.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        )),
        v => Ok(v),
    }
}

fn unknown<'k>(
    e: &Expect,
    at: Span,
    key: &str,
    keys: impl Iterator<Item = &'k String>,
) -> ExpectError {
    let keys: Vec<&str> = keys.map(String::as_str).collect();
    ExpectError::UnknownKey {
        analysis: e.analysis.name.clone(),
        key: key.to_string(),
        at,
        help: suggest(
            key,
            keys.iter().copied(),
            &format!("it has: {}", keys.join(", ")),
        ),
    }
}

fn not_a_value(e: &Expect, what: String) -> ExpectError {
    let last = e
        .path
        .last()
        .expect("grammar: a path has at least one step");
    let at = match last {
        PathStep::Key(k) => k.span,
        PathStep::Index { span, .. } => *span,
    };
    ExpectError::NotAValue {
        path: path_text(e),
        what,
        at,
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
