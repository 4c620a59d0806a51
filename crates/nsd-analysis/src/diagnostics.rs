//! The analysis layer's errors: `nsd::analysis::…`. Option errors are user errors (exit 1);
//! numerical failures carry where they happened and exit with 2.

use miette::Diagnostic;
use nsd_lang::diagnostics::ResolveError;
use nsd_lang::span::Span;
use nsd_solve::hb::Unresolved;
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum AnalysisError {
    #[error("{message}")]
    #[diagnostic(code(nsd::analysis::unsupported), help("{help}"))]
    Unsupported {
        message: String,
        #[label("this analysis")]
        at: Span,
        help: String,
    },
    #[error("`{name}` is not an option of `{kind}`")]
    #[diagnostic(code(nsd::analysis::unknown_option), help("{help}"))]
    UnknownOption {
        name: String,
        kind: String,
        #[label("unknown option")]
        at: Span,
        help: String,
    },
    #[error("bad value for `{name}`: {reason}")]
    #[diagnostic(code(nsd::analysis::bad_option), help("{help}"))]
    BadOption {
        name: String,
        reason: String,
        #[label("{reason}")]
        at: Span,
        help: String,
    },
    #[error("two analyses are named `{name}`")]
    #[diagnostic(
        code(nsd::analysis::duplicate_name),
        help("give one of them another name with `as NAME`; results go to a folder of that name")
    )]
    DuplicateName {
        name: String,
        #[label("second analysis with this name")]
        at: Span,
    },
    /// A language-level error in the options block (e.g. a repeated key).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Resolve(nsd_lang::diagnostics::ResolveError),
    #[error("{message}")]
    #[diagnostic(code(nsd::analysis::numerical_failure), help("{help}"))]
    Numerical {
        message: String,
        #[label("in this analysis")]
        at: Span,
        help: String,
    },
}

impl AnalysisError {
    /// Process exit code: 2 for numerical failures, 1 for user errors.
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            AnalysisError::Numerical { .. } => 2,
            _ => 1,
        }
    }

    /// `Bound::check`'s `non_physical` refusal of an analysis option's value, as the
    /// option's `bad_option` (with the value said); any other error as it is.
    pub(crate) fn out_of_bound(key: &str, e: ResolveError) -> AnalysisError {
        match e {
            ResolveError::NonPhysical {
                what,
                at,
                value,
                help,
            } => AnalysisError::BadOption {
                name: key.into(),
                reason: format!("{what}, not {value}"),
                at,
                help,
            },
            other => AnalysisError::Resolve(other),
        }
    }

    pub(crate) fn span(&self) -> Span {
        match self {
            AnalysisError::Unsupported { at, .. }
            | AnalysisError::UnknownOption { at, .. }
            | AnalysisError::BadOption { at, .. }
            | AnalysisError::DuplicateName { at, .. }
            | AnalysisError::Numerical { at, .. } => *at,
            // `check_keys` reports only unknown keys (mapped above) and repeated ones.
            AnalysisError::Resolve(nsd_lang::diagnostics::ResolveError::Duplicate {
                at, ..
            }) => *at,
            AnalysisError::Resolve(_) => Span::default(),
        }
    }
}

/// Why the shard files of one `basins` map cannot be joined (`nsd merge`): `nsd::merge::…`,
/// exit code 1. A shard is not source text, so there is no span: the messages name the
/// files, as the shell read them, and what differs.
#[derive(Debug, Error, Diagnostic)]
pub enum MergeError {
    /// Two shards computed from different sources, settings or parameters: joined, they
    /// would make a map that matches neither run.
    #[error("`{first}` and `{second}` are shards of different runs: {what}")]
    #[diagnostic(
        code(nsd::merge::inconsistent),
        help("rerun the stale shards with the current file (`nsd run FILE --only NAME --shard I/N`), or merge only the shards of one run")
    )]
    Different {
        first: String,
        second: String,
        what: String,
    },
    #[error("block {index} is in both `{first}` and `{second}`")]
    #[diagnostic(
        code(nsd::merge::inconsistent),
        help("give each shard once, all cut with the same count N of `--shard I/N`")
    )]
    Duplicate {
        index: usize,
        first: String,
        second: String,
    },
    #[error("blocks {missing} of {total} are missing (a shard not run or not given)")]
    #[diagnostic(
        code(nsd::merge::inconsistent),
        help("run the missing shards (`nsd run FILE --only NAME --shard I/N`) and merge again")
    )]
    Missing { missing: String, total: usize },
    #[error("no shard files (shard-*.json) in the folders given")]
    #[diagnostic(
        code(nsd::merge::empty),
        help("give the `NAME.shards` folders that `nsd run --shard I/N --out DIR` wrote, or the folder holding them")
    )]
    Empty,
    #[error("`{file}` is not a basins shard: {reason}")]
    #[diagnostic(
        code(nsd::merge::malformed),
        help("merge only the `shard-I-of-N.json` files that `nsd run --shard I/N` wrote")
    )]
    Malformed { file: String, reason: String },
}

/// Points of a branch whose stability Hill's method could not resolve (`hb::Unresolved`):
/// their count in the summary (`stability_unresolved`), a warning, and the run's error
/// (exit 2: the table is complete, its `stable` column is not).
pub(crate) fn unresolved_stability(
    results: &mut super::Results,
    unresolved: &[Unresolved],
    points: usize,
    at: Span,
) -> Option<AnalysisError> {
    let first = unresolved.first()?;
    let count = unresolved.len();
    results
        .summary
        .insert("stability_unresolved".into(), serde_json::json!(count));
    let message = format!(
        "{} of `{}`: the stability of {count} of {points} points is unresolved ({first}); their `stable` cells are empty",
        results.kind, results.model
    );
    results.warnings.push(message.clone());
    Some(AnalysisError::Numerical {
        message,
        at,
        help: "the branch is complete; `stability = false` skips Hill's method, a lower `harmonics` shrinks the full matrix".into(),
    })
}

/// A failed analysis with whatever it computed before failing.
pub struct Partial {
    pub(crate) error: AnalysisError,
    pub(crate) results: Option<Box<super::Results>>,
}

impl From<AnalysisError> for Partial {
    fn from(error: AnalysisError) -> Partial {
        Partial {
            error,
            results: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unresolved points make the run's error (a numerical failure: exit 2) and are counted in
    /// the summary and named in a warning; none leave the results as they were.
    #[test]
    fn unresolved_stability_counts_the_points_and_fails_the_run() {
        let mut results = super::super::Results {
            name: "frf".into(),
            kind: "continue frf".into(),
            model: "beam".into(),
            tables: Vec::new(),
            plots: Vec::new(),
            summary: serde_json::Map::new(),
            settings: serde_json::Map::new(),
            params: Vec::new(),
            warnings: Vec::new(),
            wall_s: 0.0,
        };
        assert!(unresolved_stability(&mut results, &[], 24, Span::default()).is_none());
        assert!(results.summary.is_empty() && results.warnings.is_empty());
        let at = |omega| Unresolved {
            omega,
            unknowns: 22_000,
            bytes: 2.3e10,
            limit: 4.0 * 1024f64.powi(3),
        };
        let error =
            unresolved_stability(&mut results, &[at(1285.5), at(1290.0)], 24, Span::default())
                .expect("an error");
        assert!(matches!(error, AnalysisError::Numerical { .. }));
        assert_eq!(results.summary["stability_unresolved"], 2);
        assert_eq!(results.warnings, [error.to_string()]);
        let message = error.to_string();
        assert!(
            message.starts_with("continue frf of `beam`: the stability of 2 of 24 points is unresolved (at Ω = 1285.5"),
            "{message}"
        );
    }
}
