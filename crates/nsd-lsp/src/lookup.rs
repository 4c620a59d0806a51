//! The declaration a cursor names: the identifier under it, looked up among the document's
//! declarations, the one in the enclosing template first.

use super::document::Document;
use super::names::{declarations, Decl};
use super::position::LineIndex;
use lsp_types::Position;

/// The identifier under a cursor and what it may refer to.
pub(crate) struct Found {
    pub(crate) word: String,
    /// Every declaration of the document's file.
    pub(crate) decls: Vec<Decl>,
    /// Indices into `decls` of the declarations named `word`, the enclosing template's first.
    pub(crate) matches: Vec<usize>,
}

impl Found {
    /// The name of the template around declaration `i`.
    pub(crate) fn parent_name(&self, i: usize) -> Option<&str> {
        self.decls[i].parent.map(|p| self.decls[p].name.as_str())
    }
}

/// Looks up the identifier at `pos`.
pub(crate) fn at(doc: &Document, pos: Position) -> Option<Found> {
    let index = LineIndex::new(&doc.text);
    let (word, offset, _) = index.word_at(pos)?;
    let prog = doc.program.as_ref()?;
    let decls = declarations(&prog.files.first()?.items);
    let enclosing = decls.iter().position(|d| {
        d.parent.is_none() && (d.whole.start as usize..d.whole.end as usize).contains(&offset)
    });
    let mut matches: Vec<usize> = (0..decls.len())
        .filter(|&i| decls[i].name == word)
        .collect();
    // Stable: declaration order within each group.
    matches.sort_by_key(|&i| decls[i].parent != enclosing);
    Some(Found {
        word: word.to_string(),
        decls,
        matches,
    })
}
