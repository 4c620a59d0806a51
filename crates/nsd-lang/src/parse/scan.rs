//! The lexical class the grammar gives each byte of a text — code, comment or string — read
//! without running pest, in one pass: by the bracket limit (`limits::brackets`) and by the
//! span ends (`CodeEnds`).
//!
//! The classes follow `grammar/nsd.pest`: `#` starts a comment that runs to the end of the line
//! (`WHITESPACE`), `"` a string that runs to the next `"` or the line's end (`string_body`); no
//! other rule holds either character, so in a text that parses, a byte's class is known from
//! the bytes before it.

/// Where a scan is: in code, or inside a comment or a string (whose brackets are text).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum At {
    Code,
    Comment,
    Str,
}

impl At {
    /// The state after byte `c`, read in state `self`. A byte is in a string when the state
    /// before or after it is `Str` (so both quotes are), in a comment when the state after it
    /// is `Comment` (so the line break that ends one is not).
    pub(super) fn next(self, c: u8) -> At {
        match (self, c) {
            (At::Comment, b'\n') | (At::Str, b'"' | b'\n') => At::Code,
            (At::Code, b'#') => At::Comment,
            (At::Code, b'"') => At::Str,
            (at, _) => at,
        }
    }
}

/// For each byte offset `i` of a text, the end of the last token byte before it (not a blank,
/// not in a comment), so that a pair's span can end after its last token in O(1).
pub(super) struct CodeEnds(Vec<u32>);

impl CodeEnds {
    pub(super) fn of(text: &str) -> CodeEnds {
        let mut ends = Vec::with_capacity(text.len() + 1);
        ends.push(0);
        let (mut at, mut last) = (At::Code, 0);
        for (i, c) in text.bytes().enumerate() {
            let was = at;
            at = at.next(c);
            // A closing quote is the string's last byte: still a token byte.
            let token = match (was, at) {
                (At::Str, _) | (_, At::Str) => true,
                (_, At::Comment) => false,
                _ => !matches!(c, b' ' | b'\t' | b'\r' | b'\n'),
            };
            if token {
                last = i as u32 + 1;
            }
            ends.push(last);
        }
        CodeEnds(ends)
    }

    /// The end of the last token byte in `start..end` (`start` if there is none).
    pub(super) fn token_end(&self, start: usize, end: usize) -> usize {
        let last = self.0.get(end).map_or(start, |&e| e as usize);
        last.max(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_end_after_the_last_token_not_in_comments_or_blanks() {
        let text = "mass m = 1  # one\n\n  \"a # b\" # c";
        let ends = CodeEnds::of(text);
        assert_eq!(ends.token_end(0, 19), 10);
        assert_eq!(ends.token_end(0, text.len() - 4), text.len() - 4);
        assert_eq!(ends.token_end(0, text.len()), text.len() - 4);
        // Nothing but blanks in the range: it ends where it starts.
        assert_eq!(ends.token_end(11, 19), 11);
    }
}
