//! Byte offsets ↔ LSP positions. LSP counts columns in UTF-16 code units (the protocol's
//! default `positionEncoding`), our spans in UTF-8 bytes; every conversion goes through here.

use lsp_types::{Position, Range};

/// The start offset of every line of one text.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, moved back to a char boundary).
    fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col: usize = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum();
        Position::new(line as u32, col as u32)
    }

    pub(crate) fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// The byte offset of `pos` (a column past the line's end is its end).
    pub(crate) fn offset(&self, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= pos.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }

    /// The identifier (letters, digits, `_`) around `pos`, with its byte range.
    pub(crate) fn word_at(&self, pos: Position) -> Option<(&'a str, usize, usize)> {
        let at = self.offset(pos);
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let start = self.text[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_word(c))
            .last()
            .map_or(at, |(i, _)| i);
        let end = self.text[at..]
            .char_indices()
            .find(|&(_, c)| !is_word(c))
            .map_or(self.text.len(), |(i, _)| at + i);
        (start < end).then(|| (&self.text[start..end], start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `é` is two UTF-8 bytes and one UTF-16 unit; `𝜔` is four bytes and two units.
    #[test]
    fn utf16_columns() {
        let text = "a é\n𝜔 = 1\n";
        let ix = LineIndex::new(text);
        assert_eq!(ix.position(4), Position::new(0, 3));
        assert_eq!(ix.position(5), Position::new(1, 0));
        assert_eq!(ix.position(9), Position::new(1, 2));
        assert_eq!(ix.offset(Position::new(1, 2)), 9);
        assert_eq!(ix.offset(Position::new(0, 3)), 4);
        assert_eq!(ix.word_at(Position::new(0, 0)), Some(("a", 0, 1)));
    }
}
