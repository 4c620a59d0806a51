//! Source files: the text every AST node's `Span` points back into.
//!
//! A `SourceMap` owns the text of the root file and of every imported file; a `Span`
//! (`crate::span`) names one of them by `FileId` and a byte range, so diagnostics can show
//! the right file.

/// `SourceMap` hands out `FileId`s; the shells name them through this module.
pub use crate::span::FileId;
use crate::span::Span;
use miette::NamedSource;
use std::sync::Arc;

/// One loaded source text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user wrote it or as it was found (shown in diagnostics).
    name: String,
    pub text: Arc<str>,
}

/// All source texts of one program, the root file first.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub(crate) fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
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
    pub(crate) fn named(&self, id: FileId) -> NamedSource<Arc<str>> {
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
