//! Whether `sightline mcp --http` answers at a URL with a token: one
//! stateless `server/discover` (the 2026-07-28 revision), which leaves no
//! session behind, bounded in time.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;

/// How long the probe waits to connect, and then for the answer.
const WAIT: Duration = Duration::from_secs(5);

/// Whether `url` is plain HTTP to this machine (a loopback name or
/// address), the only place doctor sends the user's token.
pub(super) fn on_this_machine(url: &str) -> bool {
    let Ok(uri) = url.parse::<hyper::Uri>() else {
        return false;
    };
    let host = uri.host().unwrap_or_default().trim_matches(['[', ']']);
    uri.scheme_str() == Some("http")
        && (host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback()))
}

/// `Ok` when the server at `url` answers `server/discover` sent with
/// `token`; else why not, in words for the user.
pub(super) async fn answers(url: &str, token: &str) -> Result<(), String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err("doctor checks http:// URLs only".to_owned());
    }
    let host = uri
        .host()
        .ok_or("the URL names no host")?
        .trim_matches(['[', ']'])
        .to_owned();
    let port = uri.port_u16().unwrap_or(80);
    let start = format!("start `sightline mcp --http {port}` (or as the entry's host says)");
    let stream = tokio::time::timeout(WAIT, tokio::net::TcpStream::connect((host.as_str(), port)))
        .await
        .map_err(|_| format!("nothing answered within {} s; {start}", WAIT.as_secs()))?
        .map_err(|e| format!("nothing listens ({e}); {start}"))?;
    let io = hyper_util::rt::TokioIo::new(stream);
    let (mut sender, conn) = hyper::client::conn::http1::handshake::<_, Full<Bytes>>(io)
        .await
        .map_err(|e| format!("not an HTTP server: {e}"))?;
    tokio::spawn(conn);
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "sightline-doctor", "version": env!("CARGO_PKG_VERSION") },
    });
    let body = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": { "_meta": meta } });
    let authority = uri.authority().map(ToString::to_string).unwrap_or_default();
    let request = hyper::Request::post(uri)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, "application/json, text/event-stream")
        .header(hyper::header::AUTHORIZATION, format!("Bearer {token}"))
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "server/discover")
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| e.to_string())?;
    let response = tokio::time::timeout(WAIT, sender.send_request(request))
        .await
        .map_err(|_| format!("no answer within {} s", WAIT.as_secs()))?
        .map_err(|e| format!("the request failed: {e}"))?;
    match response.status().as_u16() {
        200 => Ok(()),
        401 => Err(format!(
            "the server refused the token in {} (401): set it to the token the server serves with",
            super::TOKEN_VAR
        )),
        403 => Err("the server refused the request's host (403)".to_owned()),
        s => Err(format!("the server answered {s}, not an MCP answer")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_to_this_machine_is_asked() {
        assert!(on_this_machine("http://127.0.0.1:8123/mcp"));
        assert!(on_this_machine("http://localhost:8123/mcp"));
        assert!(on_this_machine("http://[::1]:8123/mcp"));
        assert!(!on_this_machine("http://evil.example:8123/mcp"));
        assert!(!on_this_machine("http://10.0.0.2:8123/mcp"));
        assert!(!on_this_machine("https://127.0.0.1:8123/mcp"));
        assert!(!on_this_machine("not a url"));
    }
}
