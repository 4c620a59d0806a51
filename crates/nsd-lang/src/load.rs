//! Loading a program: the root file, its imports (relative to the importing file, then the
//! stdlib), cycle and missing-file detection, and the table of models and components.
//!
//! A path is read only once its metadata say it is a regular file: a directory, a FIFO or a
//! device (`/dev/zero` never ends, a FIFO blocks until a writer comes) is refused for what it
//! is, and an import of a file that does not end in `.nsd` is refused before it is read, so
//! that no diagnostic echoes a line of, say, `/etc/shadow`.
//!
//! **Invariant:** this module and the shells are the only places in nsd-lang that read
//! files (`.nsd` sources and the MatrixMarket files that models import).

use super::ast::{Analysis, Expect, File, Item, Template};
use super::diagnostics::{Failure, ResolveError};
use super::parse::parse_file;
use super::source::SourceMap;
use super::stdlib;
use crate::span::{FileId, Span};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Whether a template is a model (analysable) or a component (instantiated with `use`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateKind {
    Model,
    Component,
}

/// A parsed program: all sources, all templates by name, the root file's analyses.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub sources: SourceMap,
    /// Parsed files, indexed by `FileId`.
    pub files: Vec<File>,
    /// Canonical path of each file (for imports and relative data paths), indexed by `FileId`.
    pub paths: Vec<Option<PathBuf>>,
    pub templates: HashMap<String, (TemplateKind, FileId, usize)>,
    /// Declaration order of models (the REPL and `check` list them in this order).
    pub model_order: Vec<String>,
    /// Analyses of the root file (imported files contribute templates only).
    pub analyses: Vec<Analysis>,
    /// `expect` statements of the root file (checked by `nsd test`).
    pub expects: Vec<Expect>,
}

impl Program {
    /// Reads and parses `path` and everything it imports.
    pub fn load(path: &Path) -> Result<Program, Failure> {
        let text = read_text(path).map_err(|e| match e {
            ReadError::NotUtf8(bad) => Failure::one(miette::Report::new(bad.error(path, None))),
            ReadError::NotAFile(kind) => Failure::one(miette::Report::new(LoadError::NotAFile {
                path: path.display().to_string(),
                kind,
                at: None,
            })),
            ReadError::Io(e) => Failure::one(miette::miette!(
                code = "nsd::resolve::missing_file",
                help = "check the path; model files end in .nsd",
                "cannot read `{}`: {e}",
                path.display()
            )),
        })?;
        Self::from_source(&path.display().to_string(), &text, Some(path))
    }

    /// Parses a program from text; `path` (if any) anchors relative imports.
    pub fn from_source(name: &str, text: &str, path: Option<&Path>) -> Result<Program, Failure> {
        let mut prog = Program::default();
        let mut errors = Vec::new();
        let canon = path.map(|p| p.canonicalize().unwrap_or_else(|_| p.to_path_buf()));
        prog.add_file(name, text, canon, &mut Vec::new(), &mut errors, true);
        if errors.is_empty() {
            Ok(prog)
        } else {
            Err(Failure { reports: errors })
        }
    }

    /// Adds more text to an existing program (the REPL's input lines).
    pub fn extend(&mut self, name: &str, text: &str, base: Option<&Path>) -> Result<(), Failure> {
        let mut errors = Vec::new();
        let anchor = base.map(|b| b.join("<repl>"));
        self.add_file(name, text, anchor, &mut Vec::new(), &mut errors, true);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Failure { reports: errors })
        }
    }

    fn add_file(
        &mut self,
        name: &str,
        text: &str,
        path: Option<PathBuf>,
        stack: &mut Vec<PathBuf>,
        errors: &mut Vec<miette::Report>,
        root: bool,
    ) {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let id = self.sources.add(name, text);
        self.paths.push(path.clone());
        // Placeholder so that `files[id]` lines up while imports add later ids.
        self.files.push(File::default());
        let file = match parse_file(text, id) {
            Ok(f) => f,
            Err(e) => {
                errors.push(Failure::located(&self.sources, id, e));
                return;
            }
        };
        if let Some(p) = &path {
            stack.push(p.clone());
        }
        for item in &file.items {
            if let Item::Import { path: rel, span } = item {
                self.import(rel, *span, path.as_deref(), stack, errors);
            }
        }
        if path.is_some() {
            stack.pop();
        }
        for (i, item) in file.items.iter().enumerate() {
            let (kind, t): (TemplateKind, &Template) = match item {
                Item::Model(t) => (TemplateKind::Model, t),
                Item::Component(t) => (TemplateKind::Component, t),
                Item::Analysis(a) if root => {
                    self.analyses.push(a.clone());
                    continue;
                }
                Item::Expect(e) if root => {
                    self.expects.push(e.clone());
                    continue;
                }
                _ => continue,
            };
            if let Some(&(_, f, j)) = self.templates.get(&t.name.name) {
                let first = if f == id {
                    template_of(&file.items[j])
                } else {
                    self.template_at(f, j)
                };
                let first = first.map(|t| t.name.span);
                // Only a first span in the same file can be labelled alongside.
                let first = first.filter(|s| s.file == id);
                let e = ResolveError::Duplicate {
                    name: t.name.name.clone(),
                    at: t.name.span,
                    first,
                };
                errors.push(Failure::located(&self.sources, id, e));
                continue;
            }
            self.templates.insert(t.name.name.clone(), (kind, id, i));
            if kind == TemplateKind::Model {
                self.model_order.push(t.name.name.clone());
            }
        }
        self.files[id.0 as usize] = file;
    }

    fn import(
        &mut self,
        rel: &str,
        span: Span,
        from: Option<&Path>,
        stack: &mut Vec<PathBuf>,
        errors: &mut Vec<miette::Report>,
    ) {
        let candidates = [
            from.and_then(Path::parent).map(|d| d.join(rel)),
            Some(PathBuf::from(rel)).filter(|p| p.is_absolute()),
            stdlib::override_dir().map(|d| d.join(rel)),
        ];
        // The first path that exists, a file or not: a folder of that name is refused as
        // one, not passed over for "no such file".
        let found = candidates.into_iter().flatten().find(|p| p.exists());
        // A file on disk, else a built-in stdlib file (its text comes with it).
        let (canon, name, builtin_text) = if let Some(found) = found {
            if let Err(e) = importable(&found, rel, span) {
                errors.push(Failure::located(&self.sources, span.file, e));
                return;
            }
            let canon = found.canonicalize().unwrap_or(found.clone());
            (canon, display_name(&found), None)
        } else if let Some((file, text)) = stdlib::builtin(rel) {
            let canon = stdlib::builtin_path(file);
            let name = canon.display().to_string();
            (canon, name, Some(text))
        } else {
            let e = ResolveError::MissingFile {
                path: rel.to_string(),
                reason: "no such file".into(),
                stdlib: stdlib::WHERE.into(),
                at: span,
            };
            errors.push(Failure::located(&self.sources, span.file, e));
            return;
        };
        if stack.contains(&canon) {
            let chain: Vec<String> = stack
                .iter()
                .chain(std::iter::once(&canon))
                .map(|p| {
                    p.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                })
                .collect();
            let e = ResolveError::ImportCycle {
                chain: chain.join(" → "),
                at: span,
            };
            errors.push(Failure::located(&self.sources, span.file, e));
            return;
        }
        if self.paths.iter().any(|p| p.as_ref() == Some(&canon)) {
            return; // Already loaded through another import.
        }
        let text = match builtin_text {
            Some(text) => Ok(text.to_string()),
            None => read_text(&canon),
        };
        match text {
            Ok(text) => self.add_file(&name, &text, Some(canon), stack, errors, false),
            Err(ReadError::NotUtf8(bad)) => {
                let e = bad.error(Path::new(rel), Some(span));
                errors.push(Failure::located(&self.sources, span.file, e));
            }
            // Checked by `importable`; the file changed since.
            Err(ReadError::NotAFile(kind)) => {
                let e = LoadError::NotAFile {
                    path: rel.to_string(),
                    kind,
                    at: Some(span),
                };
                errors.push(Failure::located(&self.sources, span.file, e));
            }
            Err(ReadError::Io(err)) => {
                let e = ResolveError::MissingFile {
                    path: rel.to_string(),
                    reason: err.to_string(),
                    stdlib: stdlib::WHERE.into(),
                    at: span,
                };
                errors.push(Failure::located(&self.sources, span.file, e));
            }
        }
    }

    fn template_at(&self, file: FileId, item: usize) -> Option<&Template> {
        template_of(self.files.get(file.0 as usize)?.items.get(item)?)
    }

    /// A model or component by name.
    pub fn template(&self, name: &str) -> Option<(TemplateKind, FileId, &Template)> {
        let &(kind, file, i) = self.templates.get(name)?;
        Some((kind, file, self.template_at(file, i)?))
    }

    /// Reads a data file named relative to the source file `from`.
    pub(crate) fn read_relative(&self, from: FileId, rel: &str) -> Result<String, std::io::Error> {
        let base = self
            .paths
            .get(from.0 as usize)
            .and_then(|p| p.as_deref())
            .and_then(Path::parent);
        let path = match base {
            Some(b) => b.join(rel),
            None => PathBuf::from(rel),
        };
        read_text(&path).map_err(|e| match e {
            ReadError::Io(e) => e,
            ReadError::NotAFile(kind) => {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("it is {kind}"))
            }
            ReadError::NotUtf8(bad) => std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                bad.error(&path, None).to_string(),
            ),
        })
    }
}

/// The loader's refusals of a path that holds no model source (codes beside
/// `nsd::resolve::missing_file`).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
enum LoadError {
    #[error("cannot read `{path}`: it is {kind}")]
    #[diagnostic(
        code(nsd::resolve::not_a_file),
        help("name a .nsd file: nsd reads no folders, pipes or devices")
    )]
    NotAFile {
        path: String,
        kind: &'static str,
        #[label("imported here")]
        at: Option<Span>,
    },
    #[error("cannot import `{path}`: it is not a .nsd file")]
    #[diagnostic(
        code(nsd::resolve::not_nsd),
        help("an import names a model file ending in .nsd (data files go to `matrices`)")
    )]
    NotNsd {
        path: String,
        #[label("imported here")]
        at: Span,
    },
}

/// Whether the existing path `found` of `import "rel"` may be read: a regular file (by its
/// metadata, so that no device is opened) whose name ends in `.nsd`.
fn importable(found: &Path, rel: &str, at: Span) -> Result<(), LoadError> {
    if let Err(kind) = file_kind(found) {
        return Err(LoadError::NotAFile {
            path: rel.to_string(),
            kind,
            at: Some(at),
        });
    }
    let is_nsd = found
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("nsd"));
    if is_nsd {
        Ok(())
    } else {
        Err(LoadError::NotNsd {
            path: rel.to_string(),
            at,
        })
    }
}

/// `Ok` for a regular file (symbolic links followed), else what the path is ("a
/// directory"); a path whose metadata cannot be read is left to the read that follows.
fn file_kind(path: &Path) -> Result<(), &'static str> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(());
    }
    if ft.is_dir() {
        return Err("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Err("a FIFO (named pipe)");
        }
        if ft.is_char_device() {
            return Err("a character device");
        }
        if ft.is_block_device() {
            return Err("a block device");
        }
        if ft.is_socket() {
            return Err("a socket");
        }
    }
    Err("not a regular file")
}

/// Why a text file could not be read.
enum ReadError {
    Io(std::io::Error),
    NotUtf8(NotUtf8),
    /// What the path is instead of a regular file (`file_kind`).
    NotAFile(&'static str),
}

/// Where a file stops being UTF-8.
struct NotUtf8 {
    byte: u8,
    offset: usize,
    line: usize,
    column: usize,
}

impl NotUtf8 {
    fn error(&self, path: &Path, at: Option<Span>) -> ResolveError {
        ResolveError::NotUtf8 {
            path: path.display().to_string(),
            byte: self.byte,
            offset: self.offset,
            line: self.line,
            column: self.column,
            at,
        }
    }
}

/// A text file as UTF-8, without the byte-order mark some editors write first; the first
/// invalid byte's offset, line and column (1-based, in characters) when it is not UTF-8.
fn read_text(path: &Path) -> Result<String, ReadError> {
    file_kind(path).map_err(ReadError::NotAFile)?;
    let file = std::fs::read(path).map_err(ReadError::Io)?;
    let bytes = file.strip_prefix(BYTE_ORDER_MARK).unwrap_or(&file);
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => {
            let offset = e.valid_up_to();
            // Everything before the bad byte is valid UTF-8.
            let before = String::from_utf8_lossy(&bytes[..offset]);
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            Err(ReadError::NotUtf8(NotUtf8 {
                byte: bytes[offset],
                // The offset in the file, mark included.
                offset: offset + file.len() - bytes.len(),
                line: before.matches('\n').count() + 1,
                column: before[line_start..].chars().count() + 1,
            }))
        }
    }
}

/// The UTF-8 byte-order mark (U+FEFF), accepted and dropped at the start of a file.
const BYTE_ORDER_MARK: &[u8] = &[0xEF, 0xBB, 0xBF];

fn template_of(item: &Item) -> Option<&Template> {
    match item {
        Item::Model(t) | Item::Component(t) => Some(t),
        _ => None,
    }
}

/// A path as shown in diagnostics: relative to the working directory when inside it, so
/// reports do not depend on where the checkout lives.
fn display_name(p: &Path) -> String {
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok());
    let canon = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    match cwd.as_deref().and_then(|d| canon.strip_prefix(d).ok()) {
        Some(rel) => rel.display().to_string(),
        None => p.display().to_string(),
    }
}
