//! Source spans: a byte range in one source file, named by its `FileId`.
//!
//! A leaf module with no dependency on the rest of the crate, so every stage can keep the
//! span of what the user wrote (the AST, the resolved `Model`, analysis diagnostics) without
//! importing the language layer. The text itself lives in `lang::source::SourceMap`.

use miette::SourceSpan;

/// Index of a file in the `SourceMap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub(crate) fn new(file: FileId, start: usize, end: usize) -> Self {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (same file assumed).
    pub fn join(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Diagnostics label a `Span` directly; miette needs only the byte range.
impl From<Span> for SourceSpan {
    fn from(s: Span) -> SourceSpan {
        SourceSpan::new((s.start as usize).into(), (s.end - s.start) as usize)
    }
}
