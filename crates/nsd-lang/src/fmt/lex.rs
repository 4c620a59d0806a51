//! The formatter's lexer: `.nsd` text → tokens with the line breaks before each, comments
//! kept as tokens (the grammar folds them into `WHITESPACE`, so the pest tree has none).
//!
//! Token boundaries follow `grammar/nsd.pest` where whitespace matters: a number takes its
//! unit when only spaces or tabs separate them (`quantity`, `unit_gap`) and the unit is one
//! atomic run of known symbols (`unit`, `unit_atom`); `1..2` is `1`, `..`, `2` (`number`'s
//! `!"."`); a string runs to its closing quote or the line's end. Everywhere else blanks carry
//! no meaning, so re-joining these tokens with other blanks keeps the parse, provided no two
//! tokens merge (`super::layout` checks each tight pair by re-lexing it).

/// What a token is; `text` holds it as the formatter prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// An identifier or keyword.
    Word,
    /// A number with its unit, if any, normalised to one space between them (`2 kg`).
    Number,
    /// A double-quoted string, quotes included.
    Str,
    /// Punctuation or an operator: `--`, `..`, `+-`, or one character.
    Punct,
    /// `#` to the end of the line, trailing blanks dropped.
    Comment,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub(crate) kind: Kind,
    pub(crate) text: String,
    /// Line breaks between the previous token and this one.
    pub(crate) breaks: usize,
    /// Whether blanks separated it from the previous token on the same line.
    spaced: bool,
    /// For a `Number`: whether it carries a unit (an operator after it must stay spaced,
    /// since `2 m^2` and `2 m ^ 2` differ).
    pub(crate) unit: bool,
}

/// The unit symbols of `unit_atom`.
const UNIT_SYMBOLS: [&str; 25] = [
    "GPa", "MPa", "MN", "kPa", "kHz", "kg", "kN", "km", "Pa", "Hz", "rpm", "rad", "deg", "g", "N",
    "m", "mN", "mm", "ms", "cm", "um", "us", "s", "J", "W",
];

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Splits a text into tokens. Never fails: an unknown character is a one-character token.
pub(super) fn lex(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut breaks, mut spaced) = (0, 0, false);
    while i < b.len() {
        let c = b[i];
        let start = i;
        let mut unit = false;
        let kind = match c {
            b'\n' => {
                breaks += 1;
                spaced = false;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                spaced = true;
                i += 1;
                continue;
            }
            b'#' => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                Kind::Comment
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'"' {
                    i += 1;
                }
                Kind::Str
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && is_word_char(b[i]) {
                    i += 1;
                }
                Kind::Word
            }
            c if c.is_ascii_digit()
                || (c == b'.'
                    && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                    && !after_path_part(&out, spaced || breaks > 0)) =>
            {
                i = number_end(b, i);
                Kind::Number
            }
            _ => {
                let two = text.get(i..i + 2);
                i += match two {
                    Some("--" | ".." | "+-") => 2,
                    _ => text[i..].chars().next().map_or(1, char::len_utf8),
                };
                Kind::Punct
            }
        };
        let mut tok_text = text[start..i].trim_end().to_string();
        if kind == Kind::Number {
            if let Some((gap_end, unit_end)) = unit_after(b, i) {
                tok_text = format!("{tok_text} {}", &text[gap_end..unit_end]);
                unit = true;
                i = unit_end;
            }
        }
        out.push(Token {
            kind,
            text: tok_text,
            breaks,
            spaced,
            unit,
        });
        breaks = 0;
        spaced = false;
    }
    out
}

/// Whether a `.` here continues a node path (`fe.12`, `b[2].3`) rather than starting a
/// number (`.5`): it follows a name or `]` with no blank between.
fn after_path_part(out: &[Token], spaced: bool) -> bool {
    !spaced
        && out
            .last()
            .is_some_and(|t| t.breaks == 0 && (t.kind == Kind::Word || t.text == "]"))
}

/// The end of `number` from `i`: digits with an optional fraction (not followed by a second
/// `.`, nor by a name: `fe.12.x` is a path), or a fraction alone, then an optional exponent.
fn number_end(b: &[u8], mut i: usize) -> usize {
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    if b[i] == b'.' {
        i = digits(i + 1);
    } else {
        i = digits(i);
        let next = b.get(i + 1).copied().unwrap_or(b' ');
        if b.get(i) == Some(&b'.') && next != b'.' && !(next.is_ascii_alphabetic() || next == b'_')
        {
            i = digits(i + 1);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            i = digits(j);
        }
    }
    i
}

/// The unit after a number ending at `i`, as (start, end) of its text: spaces or tabs, then
/// `unit_atom (^ -? digits)? ((* | /) unit_atom (^ -? digits)?)*`.
fn unit_after(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut start = i;
    while start < b.len() && (b[start] == b' ' || b[start] == b'\t') {
        start += 1;
    }
    let mut end = unit_factor(b, start)?;
    while matches!(b.get(end), Some(b'*' | b'/')) {
        match unit_factor(b, end + 1) {
            Some(next) => end = next,
            None => break,
        }
    }
    Some((start, end))
}

/// One unit symbol with its optional power, from `i`; the end, or `None`.
fn unit_factor(b: &[u8], i: usize) -> Option<usize> {
    let mut end = i;
    while end < b.len() && is_word_char(b[end]) {
        end += 1;
    }
    let word = std::str::from_utf8(&b[i..end]).ok()?;
    if !UNIT_SYMBOLS.contains(&word) {
        return None;
    }
    if b.get(end) == Some(&b'^') {
        let mut j = end + 1;
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        let digits_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > digits_start {
            end = j;
        }
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        lex(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn numbers_take_units_on_their_line_only() {
        assert_eq!(texts("k = 2e8N/m^3 * x"), ["k", "=", "2e8 N/m^3", "*", "x"]);
        assert_eq!(texts("a = 2\nm = 3"), ["a", "=", "2", "m", "=", "3"]);
        assert_eq!(texts("x = 2 s*t"), ["x", "=", "2 s", "*", "t"]);
        assert_eq!(texts("x = 2 mass"), ["x", "=", "2", "mass"]);
    }

    #[test]
    fn ranges_paths_and_comments() {
        assert_eq!(texts("1..n"), ["1", "..", "n"]);
        assert_eq!(texts("1...5"), ["1", "..", ".5"]);
        assert_eq!(texts("a--b # c  \n"), ["a", "--", "b", "# c"]);
        assert_eq!(texts("\"a # b\""), ["\"a # b\""]);
        assert_eq!(texts("1 ± 2 +- 3"), ["1", "±", "2", "+-", "3"]);
    }
}
