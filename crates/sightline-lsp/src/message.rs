//! JSON-RPC 2.0 messages as they cross the wire, with payloads kept as JSON
//! values; typed decoding happens at the call site.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request id. Servers use their own id space for requests they send us, and
/// some send numbers as strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl RequestId {
    /// Our own requests are numbered; a server echoing `"7"` means 7.
    pub fn as_number(&self) -> Option<i64> {
        match self {
            RequestId::Number(n) => Some(*n),
            RequestId::String(s) => s.parse().ok(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The JSON-RPC and LSP error codes sightline sends or acts on, in one
/// place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i64)]
pub enum ErrorCode {
    /// The method is not one the receiver handles.
    MethodNotFound = -32601,
    /// The params are not the method's (a fake server's scripted fault).
    InvalidParams = -32602,
    /// The receiver failed inside.
    InternalError = -32603,
    /// The client cancelled the request.
    RequestCancelled = -32800,
    /// The document changed while the server worked: ask again.
    ContentModified = -32801,
    /// The server cancelled the request itself (pulled diagnostics): ask
    /// again.
    ServerCancelled = -32802,
}

impl ErrorCode {
    /// The number on the wire.
    pub const fn code(self) -> i64 {
        self as i64
    }
}

impl ResponseError {
    /// Whether the error carries `code`.
    pub fn is(&self, code: ErrorCode) -> bool {
        self.code == code.code()
    }

    pub fn method_not_found(method: &str) -> Self {
        Self {
            code: ErrorCode::MethodNotFound.code(),
            message: format!("unhandled method {method}"),
            data: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Option<RequestId>,
        result: Result<Value, ResponseError>,
    },
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<ResponseError>,
}

#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("invalid json: {0}")]
    Json(#[from] serde_json::Error),
    #[error("neither a request, a notification nor a response")]
    Shape,
}

impl Message {
    pub fn decode(body: &[u8]) -> Result<Message, DecodeError> {
        let raw: Raw = serde_json::from_slice(body)?;
        let params = raw.params.unwrap_or(Value::Null);
        Ok(match (raw.id, raw.method) {
            (Some(id), Some(method)) => Message::Request { id, method, params },
            (None, Some(method)) => Message::Notification { method, params },
            (id, None) => match raw.error {
                Some(error) => Message::Response {
                    id,
                    result: Err(error),
                },
                None if id.is_some() => Message::Response {
                    id,
                    result: Ok(raw.result.unwrap_or(Value::Null)),
                },
                None => return Err(DecodeError::Shape),
            },
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        let value = match self {
            Message::Request { id, method, params } => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            }
            Message::Notification { method, params } => {
                serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params})
            }
            Message::Response {
                id,
                result: Ok(result),
            } => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
            }
            Message::Response {
                id,
                result: Err(error),
            } => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error})
            }
        };
        // Serialising a `Value` cannot fail.
        serde_json::to_vec(&value).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn classifies_messages() {
        let r = Message::decode(
            br#"{"jsonrpc":"2.0","id":1,"method":"workspace/configuration","params":{"items":[]}}"#,
        )
        .unwrap();
        assert!(matches!(
            r,
            Message::Request {
                id: RequestId::Number(1),
                ..
            }
        ));
        let n = Message::decode(br#"{"jsonrpc":"2.0","method":"window/logMessage"}"#).unwrap();
        assert!(matches!(
            n,
            Message::Notification {
                params: Value::Null,
                ..
            }
        ));
        let ok = Message::decode(br#"{"jsonrpc":"2.0","id":"7","result":null}"#).unwrap();
        match ok {
            Message::Response {
                id: Some(id),
                result: Ok(Value::Null),
            } => assert_eq!(id.as_number(), Some(7)),
            other => panic!("{other:?}"),
        }
        let err = Message::decode(
            br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope"}}"#,
        )
        .unwrap();
        assert!(matches!(
            err,
            Message::Response {
                result: Err(ResponseError { code: -32601, .. }),
                ..
            }
        ));
        assert!(Message::decode(b"{\"jsonrpc\":\"2.0\"}").is_err());
        assert!(Message::decode(b"{not json").is_err());
    }
}
