//! The names a file declares, with their spans: templates, parameters, nodes (masses,
//! beams, bodies, matrices), component instances, element labels and analyses. Definition,
//! hover, completion and document symbols all read this one walk of the syntax tree.

use nsd_lang::ast::{Item, Stmt, Template};
use nsd_lang::span::Span;

/// What a declared name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Model,
    Component,
    Param,
    Node,
    Instance,
    Element,
    Analysis,
}

/// One declaration: its name, kind, the span of the name and of the whole declaration, and
/// the index of the enclosing template among the file's declarations (`None` at top level).
#[derive(Debug, Clone)]
pub(crate) struct Decl {
    pub(crate) name: String,
    pub(crate) kind: Kind,
    pub(crate) at: Span,
    pub(crate) whole: Span,
    pub(crate) parent: Option<usize>,
}

/// Every declaration of a file's items, templates before their contents.
pub(crate) fn declarations(items: &[Item]) -> Vec<Decl> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Model(t) => template(t, Kind::Model, &mut out),
            Item::Component(t) => template(t, Kind::Component, &mut out),
            Item::Analysis(a) => {
                let name = a
                    .name
                    .as_ref()
                    .map_or_else(|| a.kind.slug(), |n| n.name.clone());
                let at = a.name.as_ref().map_or(a.span, |n| n.span);
                out.push(Decl {
                    name,
                    kind: Kind::Analysis,
                    at,
                    whole: a.span,
                    parent: None,
                });
            }
            Item::Import { .. } | Item::Expect(_) => {}
        }
    }
    out
}

fn template(t: &Template, kind: Kind, out: &mut Vec<Decl>) {
    let parent = Some(out.len());
    out.push(Decl {
        name: t.name.name.clone(),
        kind,
        at: t.name.span,
        whole: t.span,
        parent: None,
    });
    for p in &t.params {
        push(out, &p.name, Kind::Param, p.name.span, parent);
    }
    statements(&t.body, parent, out);
}

fn push(
    out: &mut Vec<Decl>,
    name: &nsd_lang::ast::Ident,
    kind: Kind,
    whole: Span,
    parent: Option<usize>,
) {
    out.push(Decl {
        name: name.name.clone(),
        kind,
        at: name.span,
        whole,
        parent,
    });
}

fn statements(body: &[Stmt], parent: Option<usize>, out: &mut Vec<Decl>) {
    for s in body {
        match s {
            Stmt::Param(ps) => {
                for p in ps {
                    let whole = p
                        .default
                        .as_ref()
                        .map_or(p.name.span, |e| p.name.span.join(e.span));
                    push(out, &p.name, Kind::Param, whole, parent);
                }
            }
            Stmt::Mass { name, span, .. }
            | Stmt::Beam { name, span, .. }
            | Stmt::Matrices { name, span, .. }
            | Stmt::Body { name, span, .. } => push(out, name, Kind::Node, *span, parent),
            Stmt::Use { instance, span, .. } => push(out, instance, Kind::Instance, *span, parent),
            Stmt::Element {
                label: Some(l),
                span,
                ..
            }
            | Stmt::Joint {
                label: Some(l),
                span,
                ..
            } => push(out, &l.name, Kind::Element, *span, parent),
            Stmt::For { body, .. } => statements(body, parent, out),
            _ => {}
        }
    }
}
