//! `Failure` reports → LSP diagnostics: the code, the message with its help line, the first
//! label's span as the range (UTF-16 columns through `LineIndex`), the other labels as
//! related information. A report located in an imported file is shown on the document's
//! first line, its message naming that file.

use super::position::LineIndex;
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, Range, Url,
};
use miette::Report;
use nsd_lang::Failure;

/// The diagnostics of `failures` for the document `uri` whose source is named `name`.
pub(crate) fn convert(failures: &[Failure], uri: &Url, name: &str, text: &str) -> Vec<Diagnostic> {
    let index = LineIndex::new(text);
    failures
        .iter()
        .flat_map(|f| &f.reports)
        .map(|r| one(r, uri, name, &index))
        .collect()
}

fn one(r: &Report, uri: &Url, name: &str, index: &LineIndex) -> Diagnostic {
    let source = source_name(r);
    let here = source.as_deref().is_none_or(|n| n == name);
    let mut spans = r.labels().into_iter().flatten().filter(|_| here).map(|l| {
        let range = index.range(l.offset(), l.offset() + l.len());
        (range, l.label().unwrap_or_default().to_string())
    });
    let first = spans.next();
    let related: Vec<_> = spans
        .map(|(range, message)| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range),
            message,
        })
        .collect();
    let mut message = r.to_string();
    if let Some(other) = source.filter(|_| !here) {
        message = format!("in `{other}`: {message}");
    }
    if let Some((_, label)) = first.as_ref().filter(|(_, l)| !l.is_empty()) {
        message = format!("{message}: {label}");
    }
    if let Some(help) = r.help() {
        message = format!("{message}\nhelp: {help}");
    }
    let start = Range::new(Position::new(0, 0), Position::new(0, 0));
    Diagnostic {
        range: first.map_or(start, |(range, _)| range),
        severity: Some(DiagnosticSeverity::ERROR),
        code: r.code().map(|c| NumberOrString::String(c.to_string())),
        source: Some("nsd".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// The name of the source a report's labels point into.
fn source_name(r: &Report) -> Option<String> {
    let contents = r.source_code()?.read_span(&(0, 0).into(), 0, 0).ok()?;
    contents.name().map(str::to_string)
}
