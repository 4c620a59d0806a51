//! Hover: a parameter's expression and its value in SI units, a node's mass and DOFs, an
//! element's law, a model's natural frequencies (contacts open, as `nsd check` prints
//! them), an analysis's kind and model.

use super::document::Document;
use super::lookup::{self, Found};
use super::names::Kind;
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};
use nsd_analysis::check::summarise;
use nsd_model::{assemble, Model};
use std::fmt::Write;

/// The hover text for the identifier at `pos`, if it names a declaration.
pub(crate) fn hover(doc: &Document, pos: Position) -> Option<Hover> {
    let found = lookup::at(doc, pos)?;
    let &i = found.matches.first()?;
    let text = describe(doc, &found, i)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

fn describe(doc: &Document, found: &Found, i: usize) -> Option<String> {
    let d = &found.decls[i];
    let prog = doc.program.as_ref()?;
    let model = found
        .parent_name(i)
        .and_then(|p| doc.models.iter().find(|m| m.name == p));
    let written = prog.sources.slice(d.whole);
    let name = &d.name;
    Some(match d.kind {
        Kind::Param => {
            let mut s = format!("param `{written}`");
            if let Some(v) = model.and_then(|m| m.param(name)) {
                let _ = write!(s, "\n\nvalue in SI units: `{v}`");
            }
            s
        }
        Kind::Node => node(model, name).unwrap_or_else(|| format!("node `{name}`")),
        Kind::Element => element(model, name).unwrap_or_else(|| format!("element `{name}`")),
        Kind::Model => doc
            .models
            .iter()
            .find(|m| &m.name == name)
            .map_or_else(|| format!("model `{name}`"), frequencies),
        Kind::Component => format!("component `{name}`"),
        Kind::Instance => format!("component instance: `{}`", written.trim()),
        Kind::Analysis => {
            let a = prog.analyses.iter().find(|a| a.span == d.whole)?;
            format!(
                "analysis `{}` of model `{}` (results in `{name}/`)",
                a.kind.keyword(),
                a.model.name
            )
        }
    })
}

/// Whether a resolved name (`x[3]`, `c.m1`) is the declared `name` or one of its family.
fn is_of(resolved: &str, name: &str) -> bool {
    resolved == name
        || resolved
            .strip_prefix(name)
            .is_some_and(|r| r.starts_with('['))
}

fn node(model: Option<&Model>, name: &str) -> Option<String> {
    let nodes: Vec<_> = model?
        .nodes
        .iter()
        .filter(|n| is_of(&n.name, name))
        .collect();
    let first = nodes.first()?;
    let dirs: Vec<String> = first.dirs.iter().map(ToString::to_string).collect();
    let mut s = format!(
        "node `{}`: mass {} kg, DOFs {}",
        first.name,
        first.mass,
        dirs.join(", ")
    );
    if nodes.len() > 1 {
        let _ = write!(s, " (one of {} nodes)", nodes.len());
    }
    Some(s)
}

fn element(model: Option<&Model>, name: &str) -> Option<String> {
    let e = model?.elements.iter().find(|e| is_of(&e.name, name))?;
    Some(format!("element `{}`\n\n```\n{:#?}\n```", e.name, e.kind))
}

fn frequencies(model: &Model) -> String {
    let summary = summarise(model, &assemble(model));
    let mut s = format!(
        "model `{}`: {} DOFs, {} elements",
        model.name,
        summary.dofs.len(),
        summary.elements.len()
    );
    if !summary.natural_frequencies.is_empty() {
        let w: Vec<String> = summary
            .natural_frequencies
            .iter()
            .take(8)
            .map(|w| format!("{w:.6}"))
            .collect();
        let _ = write!(
            s,
            "\n\nnatural frequencies ω (rad/s, contacts open): {}",
            w.join(", ")
        );
    }
    s
}
