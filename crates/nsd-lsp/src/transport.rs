//! The base protocol of LSP: frames of `Content-Length: N` headers, a blank line and `N` bytes
//! of body, read from and written to a byte stream.
//!
//! A frame whose header cannot be read (no `Content-Length`, a length that is not a number, a
//! line that is not a header) leaves no way to know where its body ends. The reader then says so
//! on stderr and resynchronises: it skips bytes up to the next `Content-Length:` and reads a
//! header from there, so one broken frame costs that frame and not the session. A body is
//! returned as bytes; whether it is JSON is `rpc`'s business.

use std::io::{self, BufRead, Read, Write};

/// The longest body accepted: 64 MiB, some thousand times the text of the largest model in
/// the repository (the 2,000-line chain is 60 kB). A larger length is taken for a broken
/// header, not awaited: waiting for it would swallow every later frame.
const MAX_BODY: usize = 64 << 20;

/// The header that delimits a frame, as the resynchronisation looks for it (ASCII lower case).
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Reads frames from a byte stream.
pub(crate) struct Reader<R> {
    input: R,
    /// Text already consumed that starts the next header line (the `Content-Length:` found
    /// while resynchronising).
    carried: Vec<u8>,
}

impl<R: BufRead> Reader<R> {
    pub(crate) fn new(input: R) -> Self {
        Reader {
            input,
            carried: Vec::new(),
        }
    }

    /// The next frame's body; `None` when the input ends (inside a frame too: said on
    /// stderr). Broken headers are reported on stderr and skipped.
    pub(crate) fn next_body(&mut self) -> io::Result<Option<Vec<u8>>> {
        let Some(length) = self.header()? else {
            return Ok(None);
        };
        let mut body = Vec::new();
        (&mut self.input)
            .take(length as u64)
            .read_to_end(&mut body)?;
        if body.len() < length {
            eprintln!(
                "nsd lsp: the input ended {} bytes into a body of {length}",
                body.len()
            );
            return Ok(None);
        }
        Ok(Some(body))
    }

    /// Reads header lines up to the blank line that ends them; the body's length. A broken
    /// header is reported and the stream resynchronised on the next `Content-Length:`.
    fn header(&mut self) -> io::Result<Option<usize>> {
        let mut length = None;
        let mut started = false;
        loop {
            let Some(line) = self.line()? else {
                if started {
                    eprintln!("nsd lsp: the input ended inside a header");
                }
                return Ok(None);
            };
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if text.is_empty() {
                // A blank line before any header is padding between frames, not an end.
                if !started {
                    continue;
                }
                match length {
                    Some(n) => return Ok(Some(n)),
                    None => {
                        eprintln!("nsd lsp: a header without `Content-Length`; skipping to the next `Content-Length:`");
                        if !self.resynchronise(&[])? {
                            return Ok(None);
                        }
                        started = false;
                        continue;
                    }
                }
            }
            started = true;
            match parse_header(text) {
                Ok(Some(n)) => length = Some(n),
                Ok(None) => {}
                Err(why) => {
                    eprintln!("nsd lsp: {why}; skipping to the next `Content-Length:`");
                    // The line itself may hold the next header after a short body's rest.
                    if !self.resynchronise(line.get(1..).unwrap_or_default())? {
                        return Ok(None);
                    }
                    length = None;
                    started = false;
                }
            }
        }
    }

    /// One line with its end, the carried text first; `None` at the end of the input.
    fn line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = std::mem::take(&mut self.carried);
        // Carried from a line already read: it may hold a whole line.
        if let Some(end) = line.iter().position(|&b| b == b'\n') {
            self.carried = line.split_off(end + 1);
            return Ok(Some(line));
        }
        let n = self.input.read_until(b'\n', &mut line)?;
        Ok((n > 0 || !line.is_empty()).then_some(line))
    }

    /// Skips to just after the next `Content-Length:` (searched in `seen`, then in the input)
    /// and carries it into the next line; false when the input ends first.
    fn resynchronise(&mut self, seen: &[u8]) -> io::Result<bool> {
        let mut matched = 0;
        let mut step = |b: u8| {
            matched = if b.to_ascii_lowercase() == CONTENT_LENGTH[matched] {
                matched + 1
            } else {
                // `c` occurs once in the pattern: a mismatch restarts at most one byte in.
                usize::from(b.to_ascii_lowercase() == CONTENT_LENGTH[0])
            };
            matched == CONTENT_LENGTH.len()
        };
        let found = |rest: &[u8]| {
            let mut carried = CONTENT_LENGTH.to_vec();
            carried.extend_from_slice(rest);
            carried
        };
        for (i, &b) in seen.iter().enumerate() {
            if step(b) {
                self.carried = found(&seen[i + 1..]);
                return Ok(true);
            }
        }
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(false);
            }
            let hit = buf.iter().position(|&b| step(b));
            let used = hit.map_or(buf.len(), |i| i + 1);
            self.input.consume(used);
            if hit.is_some() {
                self.carried = found(&[]);
                return Ok(true);
            }
        }
    }
}

/// One header line: `Ok(Some(n))` for a `Content-Length`, `Ok(None)` for another header
/// (`Content-Type`), `Err` with the reason when it is not a header or the length is bad.
fn parse_header(line: &str) -> Result<Option<usize>, String> {
    // A header's name is an HTTP token: `}Content-Length` is the end of a body, not a name.
    let is_token = |name: &str| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    let Some((name, value)) = line.split_once(':').filter(|(n, _)| is_token(n)) else {
        return Err(format!("`{}` is not a header line", shorten(line)));
    };
    if !name.eq_ignore_ascii_case("content-length") {
        return Ok(None);
    }
    match value.trim().parse::<usize>() {
        Ok(n) if n <= MAX_BODY => Ok(Some(n)),
        Ok(n) => Err(format!(
            "`Content-Length: {n}` is over the limit of {MAX_BODY} bytes"
        )),
        Err(_) => Err(format!(
            "`Content-Length: {}` is not a length",
            shorten(value.trim())
        )),
    }
}

/// At most 60 characters of a line, for a log message.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Writes one frame and flushes it.
pub(crate) fn write(out: &mut impl Write, body: &str) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(input: &str) -> Vec<String> {
        let mut r = Reader::new(input.as_bytes());
        let mut out = Vec::new();
        while let Some(b) = r.next_body().expect("read from memory") {
            out.push(String::from_utf8(b).expect("UTF-8"));
        }
        out
    }

    #[test]
    fn frames_are_read_and_broken_headers_skipped() {
        let good = "Content-Length: 2\r\n\r\n{}";
        assert_eq!(bodies(good), ["{}"]);
        // Other headers, lower case, a bare `\n`, padding between frames.
        let text = "content-type: x\r\ncontent-length:3\n\n[1]\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(bodies(text), ["[1]", "{}"]);
        // No length: its body is skipped up to the next header.
        let text = format!("Content-Type: x\r\n\r\n{{\"a\": 1}}{good}");
        assert_eq!(bodies(&text), ["{}"]);
        // A length that is not one, a line that is no header, a length past the limit.
        for bad in [
            "Content-Length: abc\r\n\r\n{}",
            "garbage\r\n",
            "Content-Length: -4\r\n\r\n",
            "Content-Length: 99999999999\r\n\r\n{}",
        ] {
            assert_eq!(bodies(&format!("{bad}{good}")), ["{}"], "{bad:?}");
        }
        // A length too short: the rest of the body runs into the next header on one line.
        let text = format!("Content-Length: 1\r\n\r\n{{}}{good}");
        assert_eq!(bodies(&text), ["{", "{}"]);
        // The input ends inside a body, inside a header, or while resynchronising.
        assert!(bodies("Content-Length: 10\r\n\r\n{}").is_empty());
        assert!(bodies("Content-Length: 10\r\n").is_empty());
        assert!(bodies("Content-Type: x\r\n\r\nabc").is_empty());
    }
}
