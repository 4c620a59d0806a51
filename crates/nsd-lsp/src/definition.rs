//! Go to definition: parameters, nodes, element labels, component instances and templates
//! of the document; templates of imported files; an `import` line opens the file.

use super::document::Document;
use super::lookup;
use super::position::LineIndex;
use lsp_types::{Location, Position, Range, Url};
use nsd_lang::ast::Item;
use nsd_lang::span::Span;

/// Where the identifier (or the import) at `pos` is declared.
pub(crate) fn definition(doc: &Document, uri: &Url, pos: Position) -> Option<Location> {
    let prog = doc.program.as_ref()?;
    let offset = LineIndex::new(&doc.text).offset(pos);
    if let Some(target) = import_at(doc, offset) {
        return Some(target);
    }
    let found = lookup::at(doc, pos)?;
    if let Some(&i) = found.matches.first() {
        return Some(Location::new(
            uri.clone(),
            range_in(doc, found.decls[i].at)?,
        ));
    }
    let (_, file, t) = prog.template(&found.word)?;
    let path = prog.paths.get(file.0 as usize)?.as_ref()?;
    Some(Location::new(
        Url::from_file_path(path).ok()?,
        range_in(doc, t.name.span)?,
    ))
}

/// The range of `span` in the text of its own file.
fn range_in(doc: &Document, span: Span) -> Option<Range> {
    let text = &doc.program.as_ref()?.sources.get(span.file).text;
    Some(LineIndex::new(text).range(span.start as usize, span.end as usize))
}

/// The imported file when `offset` is on an `import` statement.
fn import_at(doc: &Document, offset: usize) -> Option<Location> {
    let prog = doc.program.as_ref()?;
    let rel = prog
        .files
        .first()?
        .items
        .iter()
        .find_map(|item| match item {
            Item::Import { path, span }
                if (span.start as usize..=span.end as usize).contains(&offset) =>
            {
                Some(path)
            }
            _ => None,
        })?;
    let target = doc.path.as_ref()?.parent()?.join(rel);
    let target = target.canonicalize().ok()?;
    Some(Location::new(
        Url::from_file_path(target).ok()?,
        Range::default(),
    ))
}
