//! `nsd fmt`: the one canonical layout of a `.nsd` file, comments kept where they were.
//!
//! Route: a token-level formatter driven by its own lexer (`lex.rs`, comments as tokens),
//! laid out by `layout.rs`, runs of like statements aligned by `align.rs`. Meaning is
//! preserved by construction — only the blanks between tokens change, the tokens and their
//! order never do, and a line break is removed only between tokens where the grammar skips
//! `WHITESPACE` — and checked on every call: the output
//! must lex to the same tokens and parse again, or `format` refuses it
//! (`FmtError::Changed`, a bug to report, never a silently altered model).

mod align;
mod layout;
mod lex;

use super::diagnostics::ParseError;
use super::parse::parse_file;
use crate::span::FileId;

/// Why a text could not be formatted.
#[derive(Debug)]
pub enum FmtError {
    /// The text does not parse: only valid files are formatted.
    Parse(ParseError),
    /// The layout would have changed the tokens (an internal error; the file is left as is).
    Changed,
}

/// The canonical layout of `text` (which must parse). A byte-order mark is dropped, as the
/// loader drops it.
pub fn format(text: &str) -> Result<String, FmtError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file = FileId(0);
    parse_file(text, file).map_err(FmtError::Parse)?;
    let tokens = lex::lex(text);
    let out = layout(tokens.clone());
    let same = |a: &[lex::Token], b: &[lex::Token]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.kind == y.kind && x.text == y.text)
    };
    if !same(&tokens, &lex::lex(&out)) || parse_file(&out, file).is_err() {
        return Err(FmtError::Changed);
    }
    Ok(out)
}

/// The formatted text of a token stream.
fn layout(mut toks: Vec<lex::Token>) -> String {
    layout::normalise_breaks(&mut toks);
    let f = layout::Facts::of(&toks);
    layout::shape_blocks(&mut toks, &f);
    let lines = layout::lines(&toks, &f);
    let pad = align::pads(&toks, &lines, &f);
    let mut out = String::new();
    for line in &lines {
        if line.start > 0 {
            for _ in 0..toks[line.start].breaks {
                out.push('\n');
            }
        }
        layout::render_line(&toks, line, &f, &pad, &mut out);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}
