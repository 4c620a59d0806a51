//! Formatting: the whole document through `nsd fmt`'s formatter, as one edit.

use super::position::LineIndex;
use lsp_types::TextEdit;
use nsd_lang::fmt::format;

/// The edit that formats `text`; none when it is formatted already or cannot be (a syntax
/// error: the diagnostics say where).
pub(crate) fn edits(text: &str) -> Vec<TextEdit> {
    match format(text) {
        Ok(out) if out != text => {
            vec![TextEdit::new(
                LineIndex::new(text).range(0, text.len()),
                out,
            )]
        }
        _ => Vec::new(),
    }
}
