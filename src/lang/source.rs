//! Source files and spans: every AST node points back into the text it came from.
//!
//! A `SourceMap` owns the text of the root file and of every imported file; a `Span` names
//! one of them by `FileId` and a byte range, so diagnostics can show the right file.

use miette::{NamedSource, SourceSpan};
use std::sync::Arc;

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
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
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

impl From<Span> for SourceSpan {
    fn from(s: Span) -> SourceSpan {
        SourceSpan::new((s.start as usize).into(), (s.end - s.start) as usize)
    }
}

/// One loaded source text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user wrote it or as it was found (shown in diagnostics).
    pub name: String,
    pub text: Arc<str>,
}

/// All source texts of one program, the root file first.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        self.files.push(SourceFile {
            name: name.into(),
            text: text.into(),
        });
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The named source miette needs to render a label in file `id`.
    pub fn named(&self, id: FileId) -> NamedSource<Arc<str>> {
        let f = self.get(id);
        NamedSource::new(f.name.clone(), f.text.clone())
    }

    /// The text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        let text = &self.get(span.file).text;
        text.get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}
