//! `nsd lsp`: a Language Server over stdio. One thread reads frames in order (`transport`),
//! takes each for a request, a notification or a malformed message (`rpc`), answers every
//! request from the analysed documents and, on a change, re-analyses the document and
//! publishes its diagnostics before reading on; `lsp-types` types the params and results.
//!
//! The server outlives its client's mistakes: a body that is not a message gets the JSON-RPC
//! error for it (-32700, -32600), a frame with a broken header is logged and skipped, an
//! unknown request is -32601, params its method cannot take -32602, and a handler that
//! panics -32603 (the panic is on stderr). Only `exit`, the end of the input or a closed
//! output end the session: exit code 0 after `shutdown`, else 1 (LSP's rule).

mod completion;
mod definition;
mod diagnostics;
mod document;
mod format;
mod hover;
mod lookup;
mod names;
mod position;
mod rpc;
mod symbols;
mod transport;

use document::Store;
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Exit, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Initialize,
    Request as _, Shutdown,
};
use lsp_types::{
    CompletionOptions, CompletionParams, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentFormattingParams, DocumentSymbolParams,
    GotoDefinitionParams, HoverParams, InitializeResult, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use rpc::{code, Incoming, Notification, Request};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs the server on stdin/stdout until the client says `exit`; the process exit code.
pub fn run() -> i32 {
    serve(io::stdin().lock(), io::stdout().lock())
}

/// Where the session is in LSP's lifecycle.
#[derive(PartialEq, Eq)]
enum Phase {
    /// Before `initialize`: other requests get `ServerNotInitialized`.
    Uninitialised,
    Running,
    /// After `shutdown`: requests are invalid, `exit` ends with code 0.
    ShutDown,
}

/// What the loop does after a message.
enum Flow {
    Go,
    Exit(i32),
}

/// A request's answer: its result, or an error code and message.
type Reply = Result<Value, (i32, String)>;

struct Server<W> {
    out: W,
    store: Store,
    phase: Phase,
}

/// Reads frames from `input` and answers on `out` until `exit` or the end of the input.
fn serve(input: impl BufRead, out: impl Write) -> i32 {
    let mut reader = transport::Reader::new(input);
    let mut server = Server {
        out,
        store: Store::default(),
        phase: Phase::Uninitialised,
    };
    loop {
        let body = match reader.next_body() {
            Ok(Some(body)) => body,
            Ok(None) if server.phase == Phase::ShutDown => return 0,
            Ok(None) => {
                eprintln!("nsd lsp: the input ended before `shutdown`");
                return 1;
            }
            Err(e) => {
                eprintln!("nsd lsp: cannot read the input: {e}");
                return 1;
            }
        };
        let flow = match rpc::classify(&body) {
            Incoming::Request(req) => server.request(req),
            Incoming::Notification(n) => server.notified(n),
            Incoming::Response => Ok(Flow::Go),
            Incoming::Invalid { id, code, message } => {
                eprintln!("nsd lsp: answered {code}: {message}");
                server
                    .send(&rpc::error(id, code, &message))
                    .map(|()| Flow::Go)
            }
        };
        match flow {
            Ok(Flow::Go) => {}
            Ok(Flow::Exit(code)) => return code,
            Err(e) => {
                eprintln!("nsd lsp: cannot write to the client: {e}");
                return 1;
            }
        }
    }
}

impl<W: Write> Server<W> {
    fn send(&mut self, msg: &Value) -> io::Result<()> {
        transport::write(&mut self.out, &msg.to_string())
    }

    /// Answers one request, by the session's phase and then by its method.
    fn request(&mut self, req: Request) -> io::Result<Flow> {
        let method = req.method.as_str();
        let reply = match (&self.phase, method) {
            (Phase::Uninitialised, Initialize::METHOD) => {
                self.phase = Phase::Running;
                to_json(&initialize_result())
            }
            (Phase::Uninitialised, _) => Err((
                code::SERVER_NOT_INITIALIZED,
                format!("`{method}` before `initialize`"),
            )),
            (Phase::ShutDown, _) => Err((
                code::INVALID_REQUEST,
                format!("`{method}` after `shutdown`: only `exit` is expected"),
            )),
            (Phase::Running, Initialize::METHOD) => Err((
                code::INVALID_REQUEST,
                "`initialize` was already received".to_string(),
            )),
            (Phase::Running, Shutdown::METHOD) => {
                self.phase = Phase::ShutDown;
                Ok(Value::Null)
            }
            (Phase::Running, _) => {
                let store = &self.store;
                catch_unwind(AssertUnwindSafe(|| answer(store, method, req.params)))
                    .unwrap_or_else(|_| Err(internal(method)))
            }
        };
        let msg = match reply {
            Ok(result) => rpc::ok(req.id, result),
            Err((code, message)) => {
                eprintln!("nsd lsp: answered {code}: {message}");
                rpc::error(req.id, code, &message)
            }
        };
        self.send(&msg)?;
        Ok(Flow::Go)
    }

    /// Opens, changes (full text) or closes a document and publishes its diagnostics; `exit`
    /// ends the loop. Notifications before `initialize` (but `exit`) are dropped, as are those
    /// of unknown methods (`$/cancelRequest`, `initialized`); one whose params do not fit its
    /// method is logged and dropped (a notification gets no answer).
    fn notified(&mut self, n: Notification) -> io::Result<Flow> {
        if n.method == Exit::METHOD {
            return Ok(Flow::Exit(i32::from(self.phase != Phase::ShutDown)));
        }
        if self.phase != Phase::Running {
            return Ok(Flow::Go);
        }
        let change =
            match n.method.as_str() {
                DidOpenTextDocument::METHOD => typed::<DidOpenTextDocumentParams>(n.params)
                    .map(|p| (p.text_document.uri, Some(p.text_document.text))),
                DidChangeTextDocument::METHOD => typed::<DidChangeTextDocumentParams>(n.params)
                    .map(|p| {
                        // Full sync: the last change holds the whole text.
                        let text = p.content_changes.into_iter().last().map(|c| c.text);
                        (p.text_document.uri, text)
                    }),
                DidCloseTextDocument::METHOD => typed::<DidCloseTextDocumentParams>(n.params)
                    .map(|p| (p.text_document.uri, None)),
                _ => return Ok(Flow::Go),
            };
        let (uri, text) = match change {
            Ok(change) => change,
            Err((_, why)) => {
                eprintln!("nsd lsp: ignored `{}`: {why}", n.method);
                return Ok(Flow::Go);
            }
        };
        let diagnostics = match text {
            Some(text) => {
                let store = &mut self.store;
                let analysed = catch_unwind(AssertUnwindSafe(|| {
                    let doc = store.set(uri.clone(), text);
                    let name = doc
                        .path
                        .as_ref()
                        .map_or_else(|| uri.to_string(), |p| p.display().to_string());
                    diagnostics::convert(&doc.failures, &uri, &name, &doc.text)
                }));
                match analysed {
                    Ok(diagnostics) => diagnostics,
                    Err(_) => {
                        eprintln!("nsd lsp: {}", internal(&n.method).1);
                        return Ok(Flow::Go);
                    }
                }
            }
            None => {
                self.store.docs.remove(&uri);
                Vec::new()
            }
        };
        let params = PublishDiagnosticsParams::new(uri, diagnostics, None);
        let params = to_json(&params).unwrap_or_default();
        self.send(&rpc::notification(PublishDiagnostics::METHOD, params))?;
        Ok(Flow::Go)
    }
}

/// What `initialize` answers: the capabilities and the server's name and version.
fn initialize_result() -> InitializeResult {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["{".into(), ",".into()]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    InitializeResult {
        capabilities,
        server_info: Some(ServerInfo {
            name: "nsd".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    }
}

/// Answers a request of a running session from the analysed documents (`null` for a
/// document that is not open).
fn answer(store: &Store, method: &str, params: Value) -> Reply {
    let doc = |uri: &Url| store.docs.get(uri);
    match method {
        HoverRequest::METHOD => {
            let p = typed::<HoverParams>(params)?.text_document_position_params;
            to_json(&doc(&p.text_document.uri).and_then(|d| hover::hover(d, p.position)))
        }
        GotoDefinition::METHOD => {
            let p = typed::<GotoDefinitionParams>(params)?.text_document_position_params;
            let uri = p.text_document.uri;
            to_json(&doc(&uri).and_then(|d| definition::definition(d, &uri, p.position)))
        }
        Completion::METHOD => {
            let p = typed::<CompletionParams>(params)?.text_document_position;
            to_json(&doc(&p.text_document.uri).map(|d| completion::complete(d, p.position)))
        }
        DocumentSymbolRequest::METHOD => {
            let p = typed::<DocumentSymbolParams>(params)?;
            to_json(&doc(&p.text_document.uri).map(symbols::symbols))
        }
        Formatting::METHOD => {
            let p = typed::<DocumentFormattingParams>(params)?;
            to_json(&doc(&p.text_document.uri).map(|d| format::edits(&d.text)))
        }
        _ => Err((
            code::METHOD_NOT_FOUND,
            format!("nsd lsp does not answer `{method}`"),
        )),
    }
}

/// A method's params in their LSP type, or `InvalidParams` saying what does not fit.
fn typed<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, (i32, String)> {
    serde_json::from_value(params)
        .map_err(|e| (code::INVALID_PARAMS, format!("invalid params: {e}")))
}

/// A result as JSON; the LSP types always serialise, so a failure is a bug.
fn to_json(v: &impl Serialize) -> Reply {
    serde_json::to_value(v).map_err(|e| {
        (
            code::INTERNAL_ERROR,
            format!("cannot serialise the result: {e}"),
        )
    })
}

/// The error for a handler that panicked: the server answers it and goes on.
fn internal(method: &str) -> (i32, String) {
    (
        code::INTERNAL_ERROR,
        format!(
            "nsd lsp failed on `{method}` (a bug, its panic is logged above: please report it)"
        ),
    )
}
