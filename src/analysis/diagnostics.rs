//! The analysis layer's errors: `nsd::analysis::…`. Option errors are user errors (exit 1);
//! numerical failures carry where they happened and exit with 2.

use crate::span::Span;
use miette::Diagnostic;
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
    Resolve(crate::lang::diagnostics::ResolveError),
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
    pub fn exit_code(&self) -> i32 {
        match self {
            AnalysisError::Numerical { .. } => 2,
            _ => 1,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            AnalysisError::Unsupported { at, .. }
            | AnalysisError::UnknownOption { at, .. }
            | AnalysisError::BadOption { at, .. }
            | AnalysisError::DuplicateName { at, .. }
            | AnalysisError::Numerical { at, .. } => *at,
            // `check_keys` reports only unknown keys (mapped above) and repeated ones.
            AnalysisError::Resolve(crate::lang::diagnostics::ResolveError::Duplicate {
                at,
                ..
            }) => *at,
            AnalysisError::Resolve(_) => Span::default(),
        }
    }
}

/// A failed analysis with whatever it computed before failing.
pub struct Partial {
    pub error: AnalysisError,
    pub results: Option<Box<super::Results>>,
}

impl From<AnalysisError> for Partial {
    fn from(error: AnalysisError) -> Partial {
        Partial {
            error,
            results: None,
        }
    }
}
