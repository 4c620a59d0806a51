//! `nsd lsp` through a real client: the test spawns the binary and speaks JSON-RPC with
//! `Content-Length` framing on its stdin/stdout, as an editor does. One session covers
//! initialize, didOpen with an error, didChange with the fix, hover, definition,
//! completion, symbols, formatting, shutdown and exit; another checks the diagnostics of
//! the golden files against `nsd check` and the files' caret annotations; a third times
//! the diagnostics of a 2,000-line model.

mod common;

use common::{nsd, root};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A language client on a running `nsd lsp`.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
}

impl Client {
    /// Starts `nsd lsp` and completes the initialize handshake; returns the capabilities.
    fn start() -> (Client, Value) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nsd"))
            .arg("lsp")
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("nsd lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut c = Client {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        let caps = c.request("initialize", json!({ "capabilities": {} }));
        c.notify("initialized", json!({}));
        (c, caps)
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("written");
        self.stdin.flush().expect("flushed");
    }

    fn recv(&mut self) -> Value {
        let mut len = 0;
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).expect("a header line");
            assert!(!line.is_empty(), "the server closed its output");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                len = n.parse().expect("a length");
            }
        }
        let mut body = vec![0; len];
        self.stdout.read_exact(&mut body).expect("a body");
        serde_json::from_slice(&body).expect("JSON")
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its result (notifications in between are dropped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let msg = self.recv();
            if msg["id"] == json!(id) {
                assert!(msg.get("error").is_none(), "{method}: {msg}");
                return msg["result"].clone();
            }
        }
    }

    /// The next published diagnostics (for any document).
    fn diagnostics(&mut self) -> Vec<Value> {
        loop {
            let msg = self.recv();
            if msg["method"] == "textDocument/publishDiagnostics" {
                return msg["params"]["diagnostics"]
                    .as_array()
                    .expect("a list")
                    .clone();
            }
        }
    }

    fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        let doc = json!({ "uri": uri, "languageId": "nsd", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": doc }));
        self.diagnostics()
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) -> Vec<Value> {
        let params = json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{ "text": text }],
        });
        self.notify("textDocument/didChange", params);
        self.diagnostics()
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
        });
        self.request(method, params)
    }

    /// shutdown, exit; the server must end with code 0.
    fn stop(mut self) {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("the server ends");
        assert!(status.success(), "{status}");
    }
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

const BROKEN: &str =
    "model m {\n  param k = 4 N/m\n  mass m1 = 1 kg\n  spring s: m1 -- ground { k = kk }\n}\n";
const FIXED: &str = "model m {\n  param k = 4 N/m\n  mass m1 = 1 kg\n  spring s: m1 -- ground { k = k }\n}\nmodes m\n";

#[test]
fn a_session_from_initialize_to_exit() {
    let (mut c, caps) = Client::start();
    for cap in [
        "hoverProvider",
        "definitionProvider",
        "documentFormattingProvider",
    ] {
        assert_eq!(caps["capabilities"][cap], json!(true), "{caps}");
    }
    let uri = uri_of(&root().join("tests/lsp_session.nsd"));
    let diags = c.open(&uri, BROKEN);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["code"], "nsd::resolve::unknown_name", "{d}");
    // `kk` on line 3, columns 31–33.
    assert_eq!(
        d["range"]["start"],
        json!({ "line": 3, "character": 31 }),
        "{d}"
    );
    assert_eq!(
        d["range"]["end"],
        json!({ "line": 3, "character": 33 }),
        "{d}"
    );
    assert!(
        d["message"].as_str().expect("text").contains("help:"),
        "{d}"
    );

    assert_eq!(c.change(&uri, 2, FIXED), Vec::<Value>::new());

    // Hover on the `k` of `k = k` (the parameter): its expression and SI value.
    let hover = c.at("textDocument/hover", &uri, 3, 31);
    let text = hover["contents"]["value"]
        .as_str()
        .expect("markdown")
        .to_string();
    assert!(text.contains("k = 4 N/m") && text.contains("`4`"), "{text}");
    // Hover on the model: ω = √(k/m) = 2 rad/s.
    let text = c.at("textDocument/hover", &uri, 0, 6)["contents"]["value"].to_string();
    assert!(text.contains("2.000000"), "{text}");
    // Hover on `m1`: its DOF.
    let text = c.at("textDocument/hover", &uri, 3, 13)["contents"]["value"].to_string();
    assert!(text.contains("mass 1 kg, DOFs x"), "{text}");

    // Definition of `m1` in the spring: the mass statement's name.
    let def = c.at("textDocument/definition", &uri, 3, 13);
    assert_eq!(def["uri"], json!(uri));
    assert_eq!(
        def["range"]["start"],
        json!({ "line": 2, "character": 7 }),
        "{def}"
    );
    // Definition of the parameter `k`.
    let def = c.at("textDocument/definition", &uri, 3, 31);
    assert_eq!(
        def["range"]["start"],
        json!({ "line": 1, "character": 8 }),
        "{def}"
    );

    // Completion inside the spring's option block: its options; outside: keywords and names.
    let items = c.at("textDocument/completion", &uri, 3, 28);
    let labels: Vec<&str> = items
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert_eq!(labels, ["k", "k2", "k3"]);
    let items = c.at("textDocument/completion", &uri, 4, 0);
    let labels: Vec<&str> = items
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in ["spring", "gap", "m1", "k", "m", "N"] {
        assert!(labels.contains(&want), "{want} in {labels:?}");
    }

    // Symbols: the model with its parameter, mass and labelled spring; the analysis.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["m", "modes"]);
    let children: Vec<&str> = symbols[0]["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(children, ["k", "m1", "s"]);

    // Formatting: one edit, `nsd fmt`'s output.
    c.change(&uri, 3, "model m {\nmass m1=1\n}\n");
    let edits = c.request("textDocument/formatting", json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }));
    assert_eq!(edits.as_array().map(Vec::len), Some(1), "{edits}");
    assert_eq!(edits[0]["newText"], "model m {\n  mass m1 = 1\n}\n");
    c.stop();
}

/// Across files: an `import` line leads to the file, a component used from it to its
/// declaration there; hover names an element's law and an analysis's kind.
#[test]
fn definitions_follow_imports() {
    let dir = std::env::temp_dir().join(format!("nsd-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let lib =
        "# a library\ncomponent pair(k = 1) {\n  mass a = 1\n  spring a -- ground { k = k }\n}\n";
    std::fs::write(dir.join("lib.nsd"), lib).expect("written");
    let main = "import \"lib.nsd\"\nmodel m {\n  use pair as p(k = 2)\n  mass b = 1\n  gap stop: b -- ground { clearance = 0.1, law = impact(e = 0.8) }\n}\nmodes m as first\n";
    let path = dir.join("main.nsd");
    std::fs::write(&path, main).expect("written");
    let uri = uri_of(&path);
    let lib_uri = uri_of(&dir.join("lib.nsd").canonicalize().expect("the library"));
    let (mut c, _) = Client::start();
    assert_eq!(c.open(&uri, main), Vec::<Value>::new());
    let def = c.at("textDocument/definition", &uri, 0, 9);
    assert_eq!(def["uri"], json!(lib_uri), "{def}");
    let def = c.at("textDocument/definition", &uri, 2, 7);
    assert_eq!(def["uri"], json!(lib_uri), "{def}");
    assert_eq!(
        def["range"]["start"],
        json!({ "line": 1, "character": 10 }),
        "{def}"
    );
    let law = c.at("textDocument/hover", &uri, 4, 7)["contents"]["value"].to_string();
    assert!(
        law.contains("Gap") && law.contains("clearance: 0.1"),
        "{law}"
    );
    let analysis = c.at("textDocument/hover", &uri, 6, 12)["contents"]["value"].to_string();
    assert!(
        analysis.contains("analysis `modes` of model `m`"),
        "{analysis}"
    );
    c.stop();
    std::fs::remove_dir_all(&dir).expect("removed");
}

/// A client that closes the stream after `shutdown` without sending `exit` (Neovim quitting)
/// leaves the server with exit code 0.
#[test]
fn a_closed_stream_after_shutdown_is_a_clean_exit() {
    let (mut c, _) = Client::start();
    assert_eq!(c.request("shutdown", Value::Null), Value::Null);
    let Client {
        mut child, stdin, ..
    } = c;
    drop(stdin);
    let status = child.wait().expect("the server ends");
    assert!(status.success(), "{status}");
}

/// UTF-16 columns: a position after non-ASCII text is counted in code units.
#[test]
fn columns_are_utf16() {
    let (mut c, _) = Client::start();
    let diags = c.open("untitled:utf16", "import \"é𝜔.nsd\" junk\n");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "nsd::parse::syntax", "{diags:?}");
    // `junk` is at byte 20 of its line but column 17: `é` is two bytes and one UTF-16
    // unit, `𝜔` four bytes and two units.
    assert_eq!(
        diags[0]["range"]["start"],
        json!({ "line": 0, "character": 17 }),
        "{diags:?}"
    );
    c.stop();
}

/// The stable codes (`nsd::area::name`) in a rendered report.
fn codes_in(rendered: &str) -> Vec<String> {
    let mut out: Vec<String> = rendered
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| w.starts_with("nsd::") && w.matches("::").count() == 2)
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every start position (line, UTF-16 column) a diagnostic labels, with its code.
fn starts(diags: &[Value]) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for d in diags {
        let code = d["code"].as_str().unwrap_or_default().to_string();
        let ranges = std::iter::once(&d["range"]).chain(
            d["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| &r["location"]["range"]),
        );
        for r in ranges {
            let s = &r["start"];
            out.push((
                code.clone(),
                s["line"].as_u64().unwrap_or(0),
                s["character"].as_u64().unwrap_or(0),
            ));
        }
    }
    out
}

/// For every golden diagnostic file: where `nsd check` fails, the server publishes the same
/// codes, and every caret annotation of such a code (`#  ^^^ error[CODE]`, the columns
/// written by hand) is the start of one of its ranges; where `nsd check` passes (the
/// error belongs to an analysis run, which `check` does not do), nothing is published.
#[test]
fn diagnostics_equal_nsd_check_on_the_goldens() {
    let dir = root().join("tests/diagnostics");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the goldens")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "nsd"))
        .collect();
    files.sort();
    let (mut c, _) = Client::start();
    let (mut failing, mut carets) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a golden");
        let rel = path.strip_prefix(root()).expect("inside the repository");
        let (code, _, stderr) = nsd(&["check", rel.to_str().expect("UTF-8")]);
        let diags = c.open(&uri_of(path), &text);
        let name = path.display();
        if code == 0 {
            assert!(
                diags.is_empty(),
                "{name}: nsd check passes, the server reports {diags:?}"
            );
            continue;
        }
        failing += 1;
        let mut got: Vec<String> = diags
            .iter()
            .filter_map(|d| d["code"].as_str().map(str::to_string))
            .collect();
        got.sort();
        got.dedup();
        assert_eq!(got, codes_in(&stderr), "{name}: {stderr}");
        let labelled = starts(&diags);
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let is_caret = |l: &str| l.starts_with('#') && l[1..].trim_start().starts_with('^');
            if !is_caret(l) {
                continue;
            }
            let column = l.find('^').expect("a caret") as u64;
            let code = l
                .split("error[")
                .nth(1)
                .and_then(|r| r.split(']').next())
                .expect("a code");
            if !got.iter().any(|g| g == code) {
                continue;
            }
            let line = (0..i)
                .rev()
                .find(|&j| !is_caret(lines[j]))
                .expect("a marked line") as u64;
            assert!(
                labelled.contains(&(code.to_string(), line, column)),
                "{name}: no {code} at {line}:{column} in {labelled:?}"
            );
            carets += 1;
        }
    }
    c.stop();
    eprintln!(
        "{} goldens, {failing} failing `nsd check`, {carets} carets matched",
        files.len()
    );
    // Guards against a vacuous pass: most goldens fail `nsd check`, with carets.
    assert!(
        failing >= 40 && carets >= 30,
        "{failing} failing files, {carets} carets"
    );
}

/// Diagnostics latency on a 2,000-line model: the time from a `didChange` to its
/// `publishDiagnostics`, the median of five changes (an error, then its fix, alternately).
/// The issue's target is 50 ms; the bound asserted here is 10× that, for a loaded machine.
#[test]
fn diagnostics_of_a_2000_line_model_are_fast() {
    let mut good = String::from("model chain {\n  param k = 1000 N/m\n  mass m0 = 1 kg\n");
    for i in 1..1000 {
        good.push_str(&format!(
            "  mass m{i} = 1 kg\n  spring m{} -- m{i} {{ k = k }}\n",
            i - 1
        ));
    }
    good.push_str("  spring m999 -- ground { k = k }\n}\n");
    assert!(good.lines().count() >= 2000);
    let bad = good.replace("spring m500 -- m501", "spring m500 -- m5011");
    let (mut c, _) = Client::start();
    assert!(c.open("untitled:chain", &good).is_empty());
    let mut times = Vec::new();
    for v in 0..6 {
        let text = if v % 2 == 0 { &bad } else { &good };
        let start = Instant::now();
        let diags = c.change("untitled:chain", v + 2, text);
        times.push(start.elapsed());
        assert_eq!(diags.len(), usize::from(v % 2 == 0), "{diags:?}");
    }
    c.stop();
    times.sort();
    let median = times[times.len() / 2];
    eprintln!("diagnostics latency, 2,000-line model: median {median:?}, all {times:?}");
    assert!(median < Duration::from_millis(500), "{times:?}");
}

/// The editor files stay in step with the language: the TextMate grammar and the VS Code
/// manifest are valid JSON, the manifest points at the grammar and starts `nsd lsp`, and
/// every keyword rule of `grammar/nsd.pest` (`kw_… = "word"`) is coloured.
#[test]
fn the_editor_files_know_every_keyword() {
    let read = |p: &str| std::fs::read_to_string(root().join(p)).expect(p);
    let grammar: Value = serde_json::from_str(&read("editors/nsd.tmLanguage.json")).expect("JSON");
    assert_eq!(grammar["scopeName"], "source.nsd");
    let manifest: Value = serde_json::from_str(&read("editors/vscode/package.json")).expect("JSON");
    let path = manifest["contributes"]["grammars"][0]["path"]
        .as_str()
        .expect("a path");
    assert!(root().join("editors/vscode").join(path).is_file(), "{path}");
    assert!(read("editors/vscode/extension.js").contains(r#"args: ["lsp"]"#));
    let text = grammar.to_string();
    let pest = read("grammar/nsd.pest");
    let keywords: Vec<&str> = pest
        .lines()
        .filter(|l| l.starts_with("kw_"))
        .filter_map(|l| l.split('"').nth(1))
        .collect();
    assert!(keywords.len() >= 10, "{keywords:?}");
    for kw in keywords {
        assert!(
            text.contains(kw),
            "`{kw}` is not in editors/nsd.tmLanguage.json"
        );
    }
}
