//! `nsd lsp` through a real client: the test spawns the binary and speaks JSON-RPC with
//! `Content-Length` framing on its stdin/stdout, as an editor does. One session covers
//! initialize, didOpen with an error, didChange with the fix, hover, definition,
//! completion, symbols, formatting, shutdown and exit; another checks the diagnostics of
//! the golden files against `nsd check` and the files' caret annotations; a third times
//! the diagnostics of a 2,000-line model. Malformed frames are sent raw, and one session
//! speaks through `lsp-types`, the protocol's types as Rust clients use them, so that every
//! params and result the server reads or writes is checked against the specification's shape.

use crate::common::{nsd, root};
use lsp_types::notification::{
    DidChangeTextDocument, DidOpenTextDocument, Exit, Initialized, Notification, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Initialize,
    Request, Shutdown,
};
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
    /// Starts `nsd lsp` (no handshake yet).
    fn spawn() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nsd"))
            .arg("lsp")
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("nsd lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    /// Starts `nsd lsp` and completes the initialize handshake; returns the capabilities.
    fn start() -> (Client, Value) {
        let mut c = Client::spawn();
        let caps = c.request("initialize", json!({ "capabilities": {} }));
        c.notify("initialized", json!({}));
        (c, caps)
    }

    fn send(&mut self, msg: Value) {
        self.send_raw(&frame(&msg.to_string()));
    }

    /// Bytes as they are, framed or not.
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("written");
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
        let msg = self.request_raw(method, params);
        assert!(msg.get("error").is_none(), "{method}: {msg}");
        msg["result"].clone()
    }

    /// Sends a request and returns the whole response (notifications in between dropped).
    fn request_raw(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(&json!(id))
    }

    /// The next response, which must be to `id` (notifications before it are dropped).
    fn response(&mut self, id: &Value) -> Value {
        loop {
            let msg = self.recv();
            if msg.get("method").is_none() {
                assert_eq!(&msg["id"], id, "{msg}");
                return msg;
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

/// A body in its `Content-Length` frame.
fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
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

/// Malformed frames get the JSON-RPC error for them (-32700 for a body that is not JSON,
/// -32600 for JSON that is no message, -32601 for an unknown request, -32602 for params its
/// method cannot take), with the request's id when one can be read and `null` otherwise;
/// frames that cannot be answered (an unknown notification, a header without a valid
/// `Content-Length`, whose body is skipped, not acted on) are dropped; and after each the
/// session goes on. The old server exited with code 1 and nothing on stderr at the first.
#[test]
fn malformed_frames_are_answered_and_the_session_goes_on() {
    let (mut c, _) = Client::start();
    let uri = "untitled:frames";
    assert!(c.open(uri, FIXED).is_empty());
    let hover =
        r#""method": "textDocument/hover", "params": {"textDocument": {"uri": "untitled:frames"}}"#;
    let answered: [(String, i64, Value); 9] = [
        (r#"{"jsonrpc": "2.0", "id": 1,"#.into(), -32700, Value::Null),
        (String::new(), -32700, Value::Null),
        ("[]".into(), -32600, Value::Null),
        (
            r#"[{"jsonrpc": "2.0", "id": 5, "method": "shutdown"}]"#.into(),
            -32600,
            Value::Null,
        ),
        ("17".into(), -32600, Value::Null),
        (
            r#"{"jsonrpc": "1.0", "id": 9, "method": "shutdown"}"#.into(),
            -32600,
            json!(9),
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 10, "method": 4}"#.into(),
            -32600,
            json!(10),
        ),
        (
            r#"{"jsonrpc": "2.0", "id": "s", "method": "nsd/unknown"}"#.into(),
            -32601,
            json!("s"),
        ),
        (
            format!(r#"{{"jsonrpc": "2.0", "id": 12345678901, {hover}}}"#),
            -32602,
            json!(12345678901_i64),
        ),
    ];
    for (body, code, id) in answered {
        c.send_raw(&frame(&body));
        let msg = c.response(&id);
        assert_eq!(msg["error"]["code"], json!(code), "{body}: {msg}");
        assert!(msg.get("result").is_none(), "{body}: {msg}");
    }
    let dropped: [Vec<u8>; 5] = [
        frame(r#"{"jsonrpc": "2.0", "method": "nsd/unknown"}"#),
        b"Content-Type: x\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": \"shutdown\"}"
            .to_vec(),
        b"Content-Length: many\r\n\r\n".to_vec(),
        b"Content-Length: 99999999999999\r\n\r\n".to_vec(),
        b"garbage\r\n".to_vec(),
    ];
    for bytes in dropped {
        c.send_raw(&bytes);
        let text = c.at("textDocument/hover", uri, 3, 31)["contents"]["value"].to_string();
        assert!(
            text.contains("k = 4 N/m"),
            "after {:?}: {text}",
            String::from_utf8_lossy(&bytes)
        );
    }
    c.stop();
}

/// A stream with broken frames, sent at once: each is said on stderr, every request is
/// answered, and the exit after `shutdown` is code 0.
#[test]
fn broken_frames_are_logged_on_stderr() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nsd"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nsd lsp starts");
    let mut input = frame(
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}"#,
    );
    input.extend_from_slice(b"Content-Type: x\r\n\r\n{}");
    input.extend(frame("{"));
    input.extend(frame(
        r#"{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}"#,
    ));
    input.extend(frame(r#"{"jsonrpc": "2.0", "method": "exit"}"#));
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(&input).expect("written");
    drop(stdin);
    let out = child.wait_with_output().expect("the server ends");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{}: {stderr}", out.status);
    assert!(
        stderr.contains("a header without `Content-Length`"),
        "{stderr}"
    );
    assert!(stderr.contains("-32700"), "{stderr}");
    assert!(stdout.contains(r#""code":-32700"#), "{stdout}");
    assert!(
        stdout.contains(r#""id":2,"jsonrpc":"2.0","result":null"#),
        "{stdout}"
    );
}

/// A client typed by `lsp-types`: each request's params and result have the types the LSP
/// specification gives its method, so a reply of another shape fails to deserialise.
struct Typed(Client);

/// A request the server does not know.
enum Unknown {}

impl Request for Unknown {
    type Params = ();
    type Result = ();
    const METHOD: &'static str = "nsd/unknown";
}

impl Typed {
    /// `R`'s result, or its error's code and message.
    fn call<R: Request>(&mut self, params: R::Params) -> Result<R::Result, (i64, String)> {
        let params = serde_json::to_value(params).expect("params serialise");
        let msg = self.0.request_raw(R::METHOD, params);
        if let Some(e) = msg.get("error") {
            let text = e["message"].as_str().unwrap_or_default().to_string();
            return Err((e["code"].as_i64().unwrap_or_default(), text));
        }
        let result = serde_json::from_value::<R::Result>(msg["result"].clone());
        Ok(result.unwrap_or_else(|e| panic!("{}: {e}: {msg}", R::METHOD)))
    }

    fn notify<N: Notification>(&mut self, params: N::Params) {
        let params = serde_json::to_value(params).expect("params serialise");
        self.0.notify(N::METHOD, params);
    }

    /// The next `publishDiagnostics`, typed.
    fn published(&mut self) -> lsp_types::PublishDiagnosticsParams {
        loop {
            let msg = self.0.recv();
            if msg["method"] == PublishDiagnostics::METHOD {
                return serde_json::from_value(msg["params"].clone()).expect("typed params");
            }
        }
    }
}

/// The error code of a typed call that failed.
fn code<T>(reply: Result<T, (i64, String)>) -> Option<i64> {
    reply.err().map(|e| e.0)
}

/// A whole session through typed messages, from a request before `initialize` to `exit`:
/// every answer deserialises into its method's result type, and every error has its code.
#[test]
fn a_typed_client_session() {
    use lsp_types::*;
    let uri: Url = "untitled:typed".parse().expect("a URI");
    let at = |line, character| {
        TextDocumentPositionParams::new(
            TextDocumentIdentifier::new(uri.clone()),
            Position::new(line, character),
        )
    };
    let hover = |line, character| HoverParams {
        text_document_position_params: at(line, character),
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let mut c = Typed(Client::spawn());
    assert_eq!(code(c.call::<HoverRequest>(hover(0, 0))), Some(-32002));
    let init = c
        .call::<Initialize>(InitializeParams::default())
        .expect("initialised");
    assert_eq!(
        init.capabilities.hover_provider,
        Some(HoverProviderCapability::Simple(true))
    );
    assert_eq!(init.server_info.map(|s| s.name).as_deref(), Some("nsd"));
    c.notify::<Initialized>(InitializedParams {});

    let doc = TextDocumentItem::new(uri.clone(), "nsd".into(), 1, BROKEN.into());
    c.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams { text_document: doc });
    let published = c.published();
    assert_eq!(published.uri, uri);
    let codes: Vec<_> = published
        .diagnostics
        .iter()
        .map(|d| d.code.clone())
        .collect();
    assert_eq!(
        codes,
        [Some(NumberOrString::String(
            "nsd::resolve::unknown_name".into()
        ))]
    );
    c.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
        text_document: VersionedTextDocumentIdentifier::new(uri.clone(), 2),
        content_changes: vec![TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: FIXED.into(),
        }],
    });
    assert!(c.published().diagnostics.is_empty());

    let shown = c.call::<HoverRequest>(hover(3, 31)).expect("answered");
    match shown.map(|h| h.contents) {
        Some(HoverContents::Markup(m)) => assert!(m.value.contains("k = 4 N/m"), "{}", m.value),
        other => panic!("{other:?}"),
    }
    let def = c.call::<GotoDefinition>(GotoDefinitionParams {
        text_document_position_params: at(3, 13),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    });
    match def.expect("answered") {
        Some(GotoDefinitionResponse::Scalar(loc)) => {
            assert_eq!(loc.range.start, Position::new(2, 7))
        }
        other => panic!("{other:?}"),
    }
    let items = c.call::<Completion>(CompletionParams {
        text_document_position: at(3, 28),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
        context: None,
    });
    match items.expect("answered") {
        Some(CompletionResponse::Array(items)) => {
            let labels: Vec<_> = items.into_iter().map(|i| i.label).collect();
            assert_eq!(labels, ["k", "k2", "k3"]);
        }
        other => panic!("{other:?}"),
    }
    let symbols = c.call::<DocumentSymbolRequest>(DocumentSymbolParams {
        text_document: TextDocumentIdentifier::new(uri.clone()),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    });
    match symbols.expect("answered") {
        Some(DocumentSymbolResponse::Nested(s)) => {
            let names: Vec<_> = s.into_iter().map(|s| s.name).collect();
            assert_eq!(names, ["m", "modes"]);
        }
        other => panic!("{other:?}"),
    }
    let edits = c.call::<Formatting>(DocumentFormattingParams {
        text_document: TextDocumentIdentifier::new(uri.clone()),
        options: FormattingOptions {
            tab_size: 2,
            insert_spaces: true,
            ..FormattingOptions::default()
        },
        work_done_progress_params: WorkDoneProgressParams::default(),
    });
    assert!(edits.expect("answered").is_some());

    // Errors: an unknown method; params of the wrong shape (a negative line, which typed
    // params cannot hold, so sent untyped); a second `initialize`; a request after `shutdown`.
    assert_eq!(code(c.call::<Unknown>(())), Some(-32601));
    let bad = json!({ "textDocument": { "uri": uri.as_str() }, "position": { "line": -1, "character": 0 } });
    assert_eq!(
        c.0.request_raw(HoverRequest::METHOD, bad)["error"]["code"],
        -32602
    );
    assert_eq!(
        code(c.call::<Initialize>(InitializeParams::default())),
        Some(-32600)
    );
    c.call::<Shutdown>(()).expect("shut down");
    assert_eq!(code(c.call::<HoverRequest>(hover(3, 31))), Some(-32600));
    c.notify::<Exit>(());
    let status = c.0.child.wait().expect("the server ends");
    assert!(status.success(), "{status}");
}
