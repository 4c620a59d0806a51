//! How deep a text may nest: brackets, and operations within one expression.
//!
//! The parser (pest), the tree builder and every later walk of an expression (`eval.rs`'s
//! evaluation, its compilation to a `TimeFn` and that function's derivatives, the language
//! server's analysis of each document, and `Drop` itself) recurse once per level on a thread
//! stack of fixed size. A text nested past what that stack holds aborted the process (`nsd check`, `nsd fmt`
//! and the language server alike: 100,000 unary `-` overflowed 8 MiB), so the parser refuses
//! it first, with `nsd::parse::too_deep`, before anything recurses that deep: brackets by a
//! scan of the text ahead of pest, operations while the tree of each expression is built
//! (`expr.rs`). Both limits are far above what a model needs and far below what a stack holds.

use super::scan::At;
use crate::diagnostics::ParseError;
use crate::span::{FileId, Span};

/// The most brackets `( [ {` that may be open at once. The repository's models open at most
/// 5 (`models/seed2/prismatic_slider.nsd`: vectors of vectors in an option block). A level
/// costs the deepest walk about 600 bytes of stack in a release build (measured before this
/// limit: the 8 MiB main thread overflowed at 15,000 unary `-` or a force of 15,000 terms, at
/// 30,000–45,000 terms of a sum), so 256 levels take about 150 KiB: far inside the 2 MiB of
/// a test thread and the 8 MiB of the main thread, where the language server runs too.
pub(super) const MAX_NESTING: usize = 256;

/// The deepest expression tree accepted: the most operations (`+ - * / ^`, unary `-`, a
/// call, a vector, an index) on one path from the whole expression down to a number or name,
/// so a sum of `n` terms is `n − 1` deep. The same figure as `MAX_NESTING`, for the same
/// reason; the deepest expression in the repository is 5 deep (the same file's `section`).
pub(super) const MAX_DEPTH: usize = 256;

/// Refuses a text whose brackets nest deeper than `MAX_NESTING`, at the first bracket past
/// the limit; brackets in comments and strings are text (`scan::At`). One pass without
/// recursion, run before pest: pest's own stack guard fails a deep text only near the stack's
/// end, as "syntax error: expected stack limit reached", and short of that the builder and
/// every later walk recurse as deep. A closing bracket without its opening one is the
/// grammar's to report.
pub(super) fn brackets(text: &str, file: FileId) -> Result<(), ParseError> {
    let mut depth = 0usize;
    let mut at = At::Code;
    for (i, c) in text.bytes().enumerate() {
        let was = at;
        at = at.next(c);
        if (was, at) != (At::Code, At::Code) {
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep_brackets(Span::new(file, i, i + 1)));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn too_deep_brackets(at: Span) -> ParseError {
    ParseError::TooDeep {
        what: "brackets",
        limit: MAX_NESTING,
        at,
        here: format!("the {}th open bracket", MAX_NESTING + 1),
        help: format!(
            "at most {MAX_NESTING} brackets `(`, `[`, `{{` may be open at once; name the \
             inner parts with `param` (`param inner = …`) and use the names"
        ),
    }
}

/// `depth` if an expression tree that deep is accepted, else `too_deep` at `at` (the
/// operator, sign, call or bracket that passed the limit).
pub(super) fn within(depth: usize, at: Span) -> Result<usize, ParseError> {
    if depth <= MAX_DEPTH {
        return Ok(depth);
    }
    Err(ParseError::TooDeep {
        what: "an expression",
        limit: MAX_DEPTH,
        at,
        here: format!("the {}th level of operations", MAX_DEPTH + 1),
        help: format!(
            "an expression may nest at most {MAX_DEPTH} operations (a sum of n terms nests \
             n − 1 deep); split it into parameters, e.g. `param s1 = a1 + … + a100, \
             s2 = a101 + … + a200`, then `s1 + s2`"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_refused(text: &str) -> Option<usize> {
        match brackets(text, FileId(0)) {
            Err(ParseError::TooDeep { at, .. }) => Some(at.start as usize),
            _ => None,
        }
    }

    #[test]
    fn the_first_bracket_past_the_limit_is_labelled() {
        let text = "(".repeat(MAX_NESTING + 5);
        assert_eq!(depth_refused(&text), Some(MAX_NESTING));
        assert_eq!(depth_refused(&"(".repeat(MAX_NESTING)), None);
        // Closed brackets free their level.
        let flat = "(1)".repeat(10 * MAX_NESTING);
        assert_eq!(depth_refused(&flat), None);
    }

    #[test]
    fn brackets_in_comments_and_strings_are_text() {
        let open = "(".repeat(MAX_NESTING + 1);
        assert_eq!(depth_refused(&format!("# {open}\n")), None);
        assert_eq!(depth_refused(&format!("\"{open}\"")), None);
        // A string ends at the line's end, as in the grammar.
        assert_eq!(
            depth_refused(&format!("\"x\n{open}")),
            Some(3 + MAX_NESTING)
        );
        // Stray closing brackets do not lend depth.
        let stray = format!("{}{open}", ")".repeat(10));
        assert_eq!(depth_refused(&stray), Some(10 + MAX_NESTING));
    }
}
