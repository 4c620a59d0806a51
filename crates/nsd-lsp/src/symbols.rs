//! Document symbols: models and components with their parameters, nodes, instances and
//! labelled elements; analyses.

use super::document::Document;
use super::names::{declarations, Decl, Kind};
use super::position::LineIndex;
use lsp_types::{DocumentSymbol, SymbolKind};

/// The outline of the document.
pub(crate) fn symbols(doc: &Document) -> Vec<DocumentSymbol> {
    let Some(file) = doc.program.as_ref().and_then(|p| p.files.first()) else {
        return Vec::new();
    };
    let index = LineIndex::new(&doc.text);
    let decls = declarations(&file.items);
    let mut out: Vec<DocumentSymbol> = Vec::new();
    let mut top = Vec::new();
    for (i, d) in decls.iter().enumerate() {
        let symbol = symbol(d, &index);
        match d.parent.and_then(|p| top.iter().position(|&t| t == p)) {
            Some(j) => out[j].children.get_or_insert_with(Vec::new).push(symbol),
            None => {
                top.push(i);
                out.push(symbol);
            }
        }
    }
    out
}

#[allow(deprecated)] // `deprecated` is a required field of the protocol's struct.
fn symbol(d: &Decl, index: &LineIndex) -> DocumentSymbol {
    let kind = match d.kind {
        Kind::Model => SymbolKind::CLASS,
        Kind::Component => SymbolKind::INTERFACE,
        Kind::Param => SymbolKind::CONSTANT,
        Kind::Node => SymbolKind::OBJECT,
        Kind::Instance => SymbolKind::MODULE,
        Kind::Element => SymbolKind::FIELD,
        Kind::Analysis => SymbolKind::EVENT,
    };
    let detail = match d.kind {
        Kind::Model => "model",
        Kind::Component => "component",
        Kind::Param => "param",
        Kind::Node => "node",
        Kind::Instance => "use",
        Kind::Element => "element",
        Kind::Analysis => "analysis",
    };
    let whole = index.range(d.whole.start as usize, d.whole.end as usize);
    let at = index.range(d.at.start as usize, d.at.end as usize);
    DocumentSymbol {
        name: d.name.clone(),
        detail: Some(detail.into()),
        kind,
        tags: None,
        deprecated: None,
        range: whole,
        selection_range: at,
        children: None,
    }
}
