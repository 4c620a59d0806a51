//! `nsd lsp`: a Language Server over stdio. Built on `lsp-server` + `lsp-types`, the
//! synchronous pair rust-analyzer uses: one thread reads messages in order, every request
//! is answered from the analysed documents, and a change re-analyses its document and
//! publishes its diagnostics before the next message is read.

mod completion;
mod definition;
mod diagnostics;
mod document;
mod format;
mod hover;
mod lookup;
mod names;
mod position;
mod symbols;

use document::Store;
use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Request as _,
    Shutdown,
};
use lsp_types::{
    CompletionOptions, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use serde_json::Value;

/// Runs the server on stdin/stdout until the client says `exit`; the process exit code.
pub fn run() -> i32 {
    let (connection, threads) = Connection::stdio();
    let caps = ServerCapabilities {
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
    let caps = serde_json::to_value(caps).unwrap_or(Value::Null);
    if let Err(e) = connection.initialize(caps) {
        eprintln!("nsd lsp: initialisation failed: {e}");
        return 1;
    }
    let code = match serve(&connection) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("nsd lsp: {e}");
            1
        }
    };
    drop(connection);
    if threads.join().is_err() {
        return 1;
    }
    code
}

type Error = Box<dyn std::error::Error + Send + Sync>;

fn serve(conn: &Connection) -> Result<(), Error> {
    let mut store = Store::default();
    for msg in &conn.receiver {
        match msg {
            Message::Request(req) => {
                // After `shutdown` the client may close the stream without `exit`.
                let shutdown = req.method == Shutdown::METHOD;
                match conn.handle_shutdown(&req) {
                    Ok(true) => return Ok(()),
                    Err(_) if shutdown => return Ok(()),
                    Err(e) => return Err(e.into()),
                    Ok(false) => {}
                }
                let resp = answer(&store, req);
                conn.sender.send(Message::Response(resp))?;
            }
            Message::Notification(n) => notified(conn, &mut store, n)?,
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// Answers one request from the analysed documents (`null` for an unknown document).
fn answer(store: &Store, req: Request) -> Response {
    let params = &req.params;
    let doc_uri = params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .and_then(|u| Url::parse(u).ok());
    let Some((uri, doc)) = doc_uri.and_then(|u| store.docs.get(&u).map(|d| (u, d))) else {
        return Response::new_ok(req.id, Value::Null);
    };
    let pos = serde_json::from_value(params.pointer("/position").cloned().unwrap_or_default()).ok();
    let result = match (req.method.as_str(), pos) {
        (HoverRequest::METHOD, Some(p)) => serde_json::to_value(hover::hover(doc, p)),
        (GotoDefinition::METHOD, Some(p)) => {
            serde_json::to_value(definition::definition(doc, &uri, p))
        }
        (Completion::METHOD, Some(p)) => serde_json::to_value(completion::complete(doc, p)),
        (DocumentSymbolRequest::METHOD, _) => serde_json::to_value(symbols::symbols(doc)),
        (Formatting::METHOD, _) => serde_json::to_value(format::edits(&doc.text)),
        _ => {
            return Response::new_err(
                req.id,
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("nsd lsp does not answer `{}`", req.method),
            )
        }
    };
    Response::new_ok(req.id, result.unwrap_or(Value::Null))
}

/// Opens, changes (full text) or closes a document; publishes its diagnostics.
fn notified(conn: &Connection, store: &mut Store, n: Notification) -> Result<(), Error> {
    let uri = n
        .params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .and_then(|u| Url::parse(u).ok());
    let Some(uri) = uri else { return Ok(()) };
    let text = match n.method.as_str() {
        DidOpenTextDocument::METHOD => n.params.pointer("/textDocument/text"),
        DidChangeTextDocument::METHOD => n.params.pointer("/contentChanges/0/text"),
        DidCloseTextDocument::METHOD => {
            store.docs.remove(&uri);
            return publish(conn, uri, Vec::new());
        }
        _ => None,
    };
    let Some(text) = text.and_then(Value::as_str) else {
        return Ok(());
    };
    let doc = store.set(uri.clone(), text.to_string());
    let name = doc
        .path
        .as_ref()
        .map_or_else(|| uri.to_string(), |p| p.display().to_string());
    let diags = diagnostics::convert(&doc.failures, &uri, &name, &doc.text);
    publish(conn, uri, diags)
}

fn publish(
    conn: &Connection,
    uri: Url,
    diagnostics: Vec<lsp_types::Diagnostic>,
) -> Result<(), Error> {
    let params = PublishDiagnosticsParams::new(uri, diagnostics, None);
    let note = Notification::new(PublishDiagnostics::METHOD.into(), params);
    conn.sender.send(Message::Notification(note))?;
    Ok(())
}
