//! The document store: the text of every open document and what `nsd check` makes of it
//! (the program, its resolved models and its failures), recomputed on every change.

use lsp_types::Url;
use nsd_analysis as analysis;
use nsd_lang::{resolve, Failure, Program};
use nsd_model::Model;
use std::collections::HashMap;
use std::path::PathBuf;

/// One open document and its analysis.
pub(crate) struct Document {
    pub(crate) text: String,
    /// The file behind the document, when it is one (anchors relative imports).
    pub(crate) path: Option<PathBuf>,
    /// The parsed program; `None` when the document (or an import) does not parse.
    pub(crate) program: Option<Program>,
    /// The models that resolved and assembled, in declaration order.
    pub(crate) models: Vec<Model>,
    /// Everything `nsd check` would report, in its order.
    pub(crate) failures: Vec<Failure>,
}

impl Document {
    /// Analyses `text` as `nsd check FILE` would: load (imports resolved relative to the
    /// file on disk), resolve and assemble every model, then the file's analysis and
    /// `expect` names.
    fn new(uri: &Url, text: String) -> Document {
        let path = uri.to_file_path().ok();
        let mut doc = Document {
            text,
            path,
            program: None,
            models: Vec::new(),
            failures: Vec::new(),
        };
        let name = doc
            .path
            .as_ref()
            .map_or_else(|| uri.to_string(), |p| p.display().to_string());
        match Program::from_source(&name, &doc.text, doc.path.as_deref()) {
            Ok(prog) => doc.check(prog),
            Err(f) => doc.failures.push(f),
        }
        doc
    }

    fn check(&mut self, prog: Program) {
        for name in &prog.model_order {
            let assembled = resolve(&prog, name, &[])
                .and_then(|model| analysis::finite::assembled(&prog, &model).map(|_| model));
            match assembled {
                Ok(model) => self.models.push(model),
                Err(f) => self.failures.push(f),
            }
        }
        if self.failures.is_empty() {
            if let Err(f) = analysis::check_names(&prog) {
                self.failures.push(f);
            }
        }
        self.program = Some(prog);
    }
}

/// Every open document by URI.
#[derive(Default)]
pub(crate) struct Store {
    pub(crate) docs: HashMap<Url, Document>,
}

impl Store {
    /// Replaces (or opens) a document and returns it analysed.
    pub(crate) fn set(&mut self, uri: Url, text: String) -> &Document {
        let doc = Document::new(&uri, text);
        self.docs.entry(uri).insert_entry(doc).into_mut()
    }
}
