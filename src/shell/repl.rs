//! The interactive shell. `Session` is the command backend — string in, string out, so
//! tests and scripts drive it directly (after nickel's REPL); `main` wraps it in rustyline
//! with history, multi-line blocks (braces keep the prompt open) and tab completion.

use nsd_analysis as analysis;
use nsd_analysis::check::summarise;
use nsd_lang::ast::Item;
use nsd_lang::{parse_override, resolve, Override, Program};
use nsd_model::assemble;
use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};
use std::path::{Path, PathBuf};

/// The REPL's commands, for completion and `:help`.
const COMMANDS: [(&str, &str); 10] = [
    (
        ":load FILE",
        "load a model file (replaces the session's program)",
    ),
    (
        ":set NAME=VALUE",
        "override a parameter (units allowed); `:set` alone lists overrides",
    ),
    (":unset NAME", "drop an override"),
    (
        ":show [NAME]",
        "the current model (DOFs, elements, frequencies), or a model, parameter, node or element",
    ),
    (":models", "list the models"),
    (
        ":analyses",
        "list the analyses of the loaded file and of this session",
    ),
    (":run NAME", "run an analysis by name and print its summary"),
    (":use MODEL", "make MODEL the current model"),
    (":help", "this list"),
    (":quit", "leave (also :q or Ctrl-D)"),
];

/// What one input produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub text: String,
    /// The input opened a block that is not closed yet; more lines are expected.
    pub more: bool,
    pub quit: bool,
}

impl Reply {
    fn text(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            ..Reply::default()
        }
    }
}

/// An interactive session: the program typed or loaded so far, the current model and the
/// `:set` overrides.
#[derive(Debug, Default)]
pub struct Session {
    program: Program,
    /// Folder that relative imports of typed text resolve against.
    base: Option<PathBuf>,
    current: Option<String>,
    overrides: Vec<Override>,
    pending: String,
    inputs: usize,
}

/// True while `{`/`(` outnumber their closers outside comments and strings.
pub fn is_open(text: &str) -> bool {
    let mut depth = 0i64;
    let (mut in_comment, mut in_string) = (false, false);
    for c in text.chars() {
        match c {
            '\n' => in_comment = false,
            _ if in_comment => {}
            '"' => in_string = !in_string,
            _ if in_string => {}
            '#' => in_comment = true,
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth > 0
}

impl Session {
    pub fn new() -> Session {
        Session {
            base: std::env::current_dir().ok(),
            ..Session::default()
        }
    }

    /// Loads a file, replacing the program; the first model becomes current.
    pub fn load(&mut self, path: &Path) -> Reply {
        match Program::load(path) {
            Ok(p) => {
                self.base = path.parent().map(Path::to_path_buf);
                self.current = p.model_order.first().cloned();
                let text = format!(
                    "loaded {}: models {}; analyses {}",
                    path.display(),
                    p.model_order.join(", "),
                    p.analyses
                        .iter()
                        .map(analysis::name_of)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                self.program = p;
                Reply::text(text)
            }
            Err(f) => Reply::text(f.render_plain()),
        }
    }

    /// Handles one line (or a block that rustyline collected): a command or source text.
    pub fn eval(&mut self, line: &str) -> Reply {
        if !self.pending.is_empty() {
            self.pending.push('\n');
        }
        self.pending.push_str(line);
        if is_open(&self.pending) {
            return Reply {
                more: true,
                ..Reply::default()
            };
        }
        let input = std::mem::take(&mut self.pending);
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Reply::default();
        }
        match trimmed.strip_prefix(':') {
            Some(cmd) => self.command(cmd.trim()),
            None => self.source(&input),
        }
    }

    fn command(&mut self, cmd: &str) -> Reply {
        let (name, arg) = cmd
            .split_once(char::is_whitespace)
            .map_or((cmd, ""), |(a, b)| (a, b.trim()));
        match name {
            "q" | "quit" | "exit" => Reply {
                quit: true,
                ..Reply::default()
            },
            "help" | "h" => Reply::text(help()),
            "load" | "l" if !arg.is_empty() => self.load(Path::new(arg)),
            "set" if arg.is_empty() => Reply::text(if self.overrides.is_empty() {
                "no overrides".to_string()
            } else {
                self.overrides
                    .iter()
                    .map(|o| format!("{} = {}", o.name, o.value))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            "set" => match parse_override(arg) {
                Ok(o) => {
                    self.overrides.retain(|x| x.name != o.name);
                    let text = format!("{} = {}", o.name, o.value);
                    self.overrides.push(o);
                    Reply::text(text)
                }
                Err(f) => Reply::text(f.render_plain()),
            },
            "unset" => {
                let before = self.overrides.len();
                self.overrides.retain(|o| o.name != arg);
                Reply::text(if self.overrides.len() < before {
                    format!("{arg} unset")
                } else {
                    format!("`{arg}` was not set")
                })
            }
            "models" => Reply::text(self.program.model_order.join("\n")),
            "analyses" => Reply::text(
                self.program
                    .analyses
                    .iter()
                    .map(|a| {
                        format!(
                            "{} ({} {})",
                            analysis::name_of(a),
                            a.kind.keyword(),
                            a.model.name
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            "use" => {
                if self.program.model_order.iter().any(|m| m == arg) {
                    self.current = Some(arg.to_string());
                    Reply::text(format!("current model: {arg}"))
                } else {
                    Reply::text(format!("no model `{arg}`; :models lists them"))
                }
            }
            "show" | "s" => self.show(arg),
            "run" | "r" if !arg.is_empty() => self.run(arg),
            _ => Reply::text(format!(
                "unknown command `:{cmd}`; :help lists the commands"
            )),
        }
    }

    /// Adds typed source text to the program; runs any analysis it contains.
    fn source(&mut self, text: &str) -> Reply {
        self.inputs += 1;
        // Typed models and components may replace earlier ones of the same name.
        if let Ok(file) = nsd_lang::parse::parse_file(text, nsd_lang::source::FileId(u32::MAX)) {
            for item in &file.items {
                if let Item::Model(t) | Item::Component(t) = item {
                    self.program.templates.remove(&t.name.name);
                    self.program.model_order.retain(|m| *m != t.name.name);
                }
            }
        }
        let before_models = self.program.model_order.len();
        let before_analyses = self.program.analyses.len();
        if let Err(f) = self.program.extend(
            &format!("<input {}>", self.inputs),
            text,
            self.base.as_deref(),
        ) {
            return Reply::text(f.render_plain());
        }
        let mut out = Vec::new();
        if self.program.model_order.len() > before_models {
            let name = self.program.model_order.last().cloned().unwrap_or_default();
            match resolve(&self.program, &name, &self.applicable(&name)) {
                Ok(m) => out.push(format!(
                    "model {name}: {} DOFs, {} elements",
                    assemble(&m).n(),
                    m.elements.len()
                )),
                Err(f) => out.push(f.render_plain()),
            }
            self.current = Some(name);
        }
        let new: Vec<_> = self.program.analyses[before_analyses..].to_vec();
        for a in new {
            out.push(self.run(&analysis::name_of(&a)).text);
        }
        Reply::text(out.join("\n"))
    }

    /// The overrides that name parameters of `model` (others are kept for later models).
    fn applicable(&self, model: &str) -> Vec<Override> {
        let Some((_, _, t)) = self.program.template(model) else {
            return vec![];
        };
        let mut names: Vec<&str> = t.params.iter().map(|p| p.name.name.as_str()).collect();
        for s in &t.body {
            if let nsd_lang::ast::Stmt::Param(ds) = s {
                names.extend(ds.iter().map(|d| d.name.name.as_str()));
            }
        }
        self.overrides
            .iter()
            .filter(|o| names.contains(&o.name.as_str()))
            .cloned()
            .collect()
    }

    fn run(&mut self, name: &str) -> Reply {
        let Some(a) = self
            .program
            .analyses
            .iter()
            .rev()
            .find(|a| analysis::name_of(a) == name)
            .cloned()
        else {
            let names: Vec<String> = self
                .program
                .analyses
                .iter()
                .map(analysis::name_of)
                .collect();
            return Reply::text(format!(
                "no analysis `{name}` (known: {})",
                names.join(", ")
            ));
        };
        match analysis::run(&self.program, &a, &self.applicable(&a.model.name)) {
            Ok(r) => Reply::text(format!(
                "{} ({} of {}): {}",
                r.name,
                r.kind,
                r.model,
                serde_json::Value::Object(r.summary)
            )),
            Err(e) => Reply::text(e.failure.render_plain()),
        }
    }

    fn show(&mut self, what: &str) -> Reply {
        let model_name = if what.is_empty() || self.program.template(what).is_some() {
            if what.is_empty() {
                match &self.current {
                    Some(c) => c.clone(),
                    None => return Reply::text("no model yet: type one, or :load FILE"),
                }
            } else {
                what.to_string()
            }
        } else {
            let Some(current) = self.current.clone() else {
                return Reply::text(format!("nothing named `{what}`"));
            };
            return self.show_item(&current, what);
        };
        match resolve(&self.program, &model_name, &self.applicable(&model_name)) {
            Ok(m) => {
                // The same summary as `nsd check`, with its stderr line about failed
                // frequencies appended.
                let sys = match nsd_analysis::finite::assembled(&self.program, &m) {
                    Ok(sys) => sys,
                    Err(f) => return Reply::text(f.render_plain()),
                };
                let summary = summarise(&m, &sys);
                let mut text = summary.text();
                if let Some(w) = summary.frequency_warning() {
                    text.push_str(&w);
                }
                Reply::text(text.trim_end())
            }
            Err(f) => Reply::text(f.render_plain()),
        }
    }

    /// A parameter, node or element of the current model.
    fn show_item(&self, model: &str, what: &str) -> Reply {
        let m = match resolve(&self.program, model, &self.applicable(model)) {
            Ok(m) => m,
            Err(f) => return Reply::text(f.render_plain()),
        };
        if let Some(v) = m.param(what) {
            return Reply::text(format!("{what} = {v}"));
        }
        if let Some(n) = m.nodes.iter().find(|n| n.name == what) {
            let dirs: Vec<String> = n.dirs.iter().map(|d| d.to_string()).collect();
            return Reply::text(format!(
                "node {what}: {:?}, mass {} kg, directions ({})",
                n.kind,
                n.mass,
                dirs.join(", ")
            ));
        }
        if let Some(e) = m.elements.iter().find(|e| e.name == what) {
            return Reply::text(format!(
                "element {what}: {} -- {}: {:?}",
                m.node(e.a.node).name,
                m.node(e.b.node).name,
                e.kind
            ));
        }
        let names = m
            .params
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(m.nodes.iter().map(|n| n.name.as_str()))
            .chain(m.elements.iter().map(|e| e.name.as_str()));
        Reply::text(format!(
            "nothing named `{what}` in {model}; {}",
            nsd_lang::diagnostics::suggest(what, names, "try :show")
        ))
    }

    /// Every word completion may offer now: keywords, commands, models, and the current
    /// model's parameters, nodes and elements.
    pub fn completion_words(&self) -> Vec<String> {
        // Language keywords and analysis kinds.
        let mut words: Vec<String> = nsd_lang::STATEMENT_KEYWORDS
            .iter()
            .copied()
            .chain(nsd_lang::ast::AnalysisKind::ALL.map(|k| k.keyword()))
            .map(str::to_string)
            .collect();
        words.extend(
            COMMANDS
                .iter()
                .map(|(c, _)| c.split_whitespace().next().unwrap_or(c).to_string()),
        );
        words.extend(self.program.model_order.iter().cloned());
        words.extend(self.program.analyses.iter().map(analysis::name_of));
        if let Some(m) = self
            .current
            .as_ref()
            .and_then(|c| resolve(&self.program, c, &self.applicable(c)).ok())
        {
            words.extend(m.params.iter().map(|(n, _)| n.clone()));
            words.extend(m.nodes.iter().map(|n| n.name.clone()));
            words.extend(m.elements.iter().map(|e| e.name.clone()));
        }
        words.sort();
        words.dedup();
        words
    }

    pub fn current_model(&self) -> Option<&str> {
        self.current.as_deref()
    }
}

/// Completion candidates for the word ending at `pos`: `(start, candidates)`.
pub fn complete(words: &[String], line: &str, pos: usize) -> (usize, Vec<String>) {
    let head = &line[..pos.min(line.len())];
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || "_.[]:".contains(c)))
        .map_or(0, |i| i + 1);
    let prefix = &head[start..];
    let found = words
        .iter()
        .filter(|w| w.starts_with(prefix) && w.as_str() != prefix)
        .cloned()
        .collect();
    (start, found)
}

fn help() -> String {
    let mut s = String::from("Type model, component, import or analysis statements (blocks may span lines), or a command:\n");
    for (c, d) in COMMANDS {
        s.push_str(&format!("  {c:<18} {d}\n"));
    }
    s.push_str("Tab completes keywords, commands and the names of the current model.");
    s
}

/// rustyline glue: completion from a snapshot of the session's words, and a validator
/// that keeps the prompt open while a block is unclosed.
struct ReplHelper {
    words: Vec<String>,
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(complete(&self.words, line, pos))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if is_open(ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ReplHelper {}

fn history_path() -> Option<PathBuf> {
    std::env::var_os("NSD_HISTORY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".nsd_history")))
}

/// `nsd repl [FILE]`; returns the exit code.
pub fn main(file: Option<&Path>) -> i32 {
    let mut session = Session::new();
    if let Some(f) = file {
        println!("{}", session.load(f).text);
    }
    let mut editor = match Editor::<ReplHelper, rustyline::history::DefaultHistory>::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error[nsd::repl::terminal]: cannot start the line editor: {e}");
            return 1;
        }
    };
    editor.set_helper(Some(ReplHelper {
        words: session.completion_words(),
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "nsd {} — :help for commands, :quit to leave",
        env!("CARGO_PKG_VERSION")
    );
    let mut prompt = "nsd> ";
    loop {
        match editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                let reply = session.eval(&line);
                if !reply.text.is_empty() {
                    println!("{}", reply.text);
                }
                if reply.quit {
                    break;
                }
                prompt = if reply.more { "...> " } else { "nsd> " };
                if let Some(h) = editor.helper_mut() {
                    h.words = session.completion_words();
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => {
                prompt = "nsd> ";
                session.pending.clear();
            }
            Err(_) => break,
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    0
}
