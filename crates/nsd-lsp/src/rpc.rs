//! JSON-RPC 2.0 messages as LSP uses them: a frame's body classified as a request, a
//! notification or a response, or refused with the error the specification names for it;
//! and the replies the server writes.
//!
//! Ids are kept as JSON values: a request id may be any integer or string, and the answer to
//! a body that is not a message at all must carry `"id": null`.

use serde_json::{json, Value};

/// JSON-RPC's and LSP's error codes.
pub(crate) mod code {
    /// The body is not JSON.
    pub(crate) const PARSE_ERROR: i32 = -32700;
    /// JSON, but not a JSON-RPC message (`[]`, a number, no `jsonrpc: "2.0"`, a bad id), or
    /// a request the server's state forbids (after `shutdown`, a second `initialize`).
    pub(crate) const INVALID_REQUEST: i32 = -32600;
    /// A request this server does not answer.
    pub(crate) const METHOD_NOT_FOUND: i32 = -32601;
    /// A request whose params are not what its method takes.
    pub(crate) const INVALID_PARAMS: i32 = -32602;
    /// The handler failed (a bug: it panicked); the server goes on.
    pub(crate) const INTERNAL_ERROR: i32 = -32603;
    /// LSP: a request before `initialize`.
    pub(crate) const SERVER_NOT_INITIALIZED: i32 = -32002;
}

/// A request: it gets exactly one response with its id.
pub(crate) struct Request {
    pub(crate) id: Value,
    pub(crate) method: String,
    /// An object, an array, or null when absent.
    pub(crate) params: Value,
}

/// A notification: no response, whatever happens to it.
pub(crate) struct Notification {
    pub(crate) method: String,
    pub(crate) params: Value,
}

/// What one frame's body is.
pub(crate) enum Incoming {
    Request(Request),
    Notification(Notification),
    /// A response to a request of ours (the server sends none, so it is dropped).
    Response,
    /// Not a message: the error response to send (`id` null when none could be read).
    Invalid {
        id: Value,
        code: i32,
        message: String,
    },
}

/// Classifies a frame's body.
pub(crate) fn classify(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => message(v),
        Err(e) => invalid(
            Value::Null,
            code::PARSE_ERROR,
            format!("the body is not JSON: {e}"),
        ),
    }
}

fn invalid(id: Value, code: i32, message: String) -> Incoming {
    Incoming::Invalid { id, code, message }
}

/// A JSON value as a message, by the members JSON-RPC 2.0 gives each kind.
fn message(v: Value) -> Incoming {
    let bad = |id: Value, why: &str| invalid(id, code::INVALID_REQUEST, why.to_string());
    let mut obj = match v {
        Value::Object(obj) => obj,
        Value::Array(a) if a.is_empty() => return bad(Value::Null, "an empty batch"),
        Value::Array(_) => {
            return bad(
                Value::Null,
                "LSP has no batches: send one message per frame",
            )
        }
        _ => return bad(Value::Null, "a message is a JSON object"),
    };
    let id = obj.remove("id");
    // An id is a number, a string or null (JSON-RPC 2.0, section 4).
    if let Some(id) = id
        .as_ref()
        .filter(|id| !(id.is_number() || id.is_string() || id.is_null()))
    {
        return bad(
            Value::Null,
            &format!("`id` {id} is neither a number nor a string"),
        );
    }
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return bad(id.unwrap_or_default(), "`jsonrpc` must be \"2.0\"");
    }
    let params = obj.remove("params").unwrap_or_default();
    if !(params.is_object() || params.is_array() || params.is_null()) {
        return bad(
            id.unwrap_or_default(),
            "`params` must be an object or an array",
        );
    }
    match (obj.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => {
            Incoming::Request(Request { id, method, params })
        }
        (Some(Value::String(method)), None) => {
            Incoming::Notification(Notification { method, params })
        }
        (Some(_), id) => bad(id.unwrap_or_default(), "`method` must be a string"),
        (None, Some(_)) if obj.contains_key("result") || obj.contains_key("error") => {
            Incoming::Response
        }
        (None, id) => bad(id.unwrap_or_default(), "a message needs a `method`"),
    }
}

/// The success response to request `id`.
pub(crate) fn ok(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// The error response to request `id`.
pub(crate) fn error(id: Value, code: i32, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// A notification from the server.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(body: &str) -> Option<(i32, Value)> {
        match classify(body.as_bytes()) {
            Incoming::Invalid { id, code, .. } => Some((code, id)),
            _ => None,
        }
    }

    #[test]
    fn bodies_are_classified_as_json_rpc_says() {
        let rpc = code::INVALID_REQUEST;
        assert_eq!(code_of("{"), Some((code::PARSE_ERROR, Value::Null)));
        assert_eq!(code_of("\u{ff}"), Some((code::PARSE_ERROR, Value::Null)));
        assert_eq!(code_of("[]"), Some((rpc, Value::Null)));
        assert_eq!(code_of("[{}]"), Some((rpc, Value::Null)));
        assert_eq!(code_of("3"), Some((rpc, Value::Null)));
        assert_eq!(
            code_of(r#"{"id": 1, "method": "x"}"#),
            Some((rpc, json!(1)))
        );
        assert_eq!(
            code_of(r#"{"jsonrpc": "2.0", "id": [1], "method": "x"}"#),
            Some((rpc, Value::Null))
        );
        assert_eq!(
            code_of(r#"{"jsonrpc": "2.0", "id": "a", "method": 5}"#),
            Some((rpc, json!("a")))
        );
        assert_eq!(
            code_of(r#"{"jsonrpc": "2.0", "id": 2, "method": "x", "params": 1}"#),
            Some((rpc, json!(2)))
        );
        assert_eq!(
            code_of(r#"{"jsonrpc": "2.0", "id": 2}"#),
            Some((rpc, json!(2)))
        );
        let big = r#"{"jsonrpc": "2.0", "id": 12345678901234, "method": "x"}"#;
        assert!(
            matches!(classify(big.as_bytes()), Incoming::Request(r) if r.id == json!(12345678901234_i64))
        );
        let note = r#"{"jsonrpc": "2.0", "method": "x"}"#;
        assert!(
            matches!(classify(note.as_bytes()), Incoming::Notification(n) if n.params.is_null())
        );
        let resp = r#"{"jsonrpc": "2.0", "id": 1, "result": null}"#;
        assert!(matches!(classify(resp.as_bytes()), Incoming::Response));
    }
}
