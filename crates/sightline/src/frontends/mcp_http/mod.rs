//! `sightline mcp --http ADDR`: MCP over Streamable HTTP, for an agent in a
//! dev container or on another machine. rmcp's service speaks the protocol
//! (sessions for today's clients, the stateless 2026-07-28 revision, the
//! `Host` and `Origin` checks against DNS rebinding); this module listens,
//! and refuses every request without the bearer token before rmcp sees it.
//! Through the daemon (the default) each session is relayed to it
//! (`relay`), so that HTTP and stdio sessions share one daemon and its
//! servers; with `--no-daemon` the in-process server answers.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

mod relay;
mod token;

pub(crate) use relay::DaemonRelay;
use token::{RemovedOnStop, Token};

/// The one path the server answers on.
pub const PATH: &str = "/mcp";

/// How long a connection may take to send a request's head.
const HEAD_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How `sightline mcp --http` listens.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    /// `PORT`, `HOST:PORT` or `[V6]:PORT`; a bare port is on 127.0.0.1.
    pub addr: String,
    /// Where the bearer token is; without it one is generated.
    pub token_file: Option<PathBuf>,
    /// Whether an address other than loopback may be served.
    pub allow_remote: bool,
}

/// What kept the server from listening, in one line.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The address is not one to listen on.
    #[error("{0}")]
    Address(String),
    /// The token could not be read or made.
    #[error("{0}")]
    Token(String),
    /// Listening failed.
    #[error("cannot listen on {0}: {1}")]
    Listen(SocketAddr, std::io::Error),
}

/// The socket address `addr` names; refused when it is not loopback and
/// `allow_remote` is not set.
pub fn listen_address(addr: &str, allow_remote: bool) -> Result<SocketAddr, HttpError> {
    let addr = addr.trim();
    let parsed = if let Ok(port) = addr.trim_start_matches(':').parse::<u16>() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else if let Some(port) = addr.strip_prefix("localhost:") {
        let port = port
            .parse::<u16>()
            .map_err(|_| HttpError::Address(format!("`{addr}` has no port number")))?;
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else {
        addr.parse::<SocketAddr>().map_err(|_| {
            HttpError::Address(format!(
                "`{addr}` is not an address to listen on (PORT, IP:PORT or [IPV6]:PORT)"
            ))
        })?
    };
    if !parsed.ip().is_loopback() && !allow_remote {
        return Err(HttpError::Address(format!(
            "{parsed} is reachable from other machines; add --allow-remote to serve it (the token is then all that guards the project)"
        )));
    }
    Ok(parsed)
}

/// What `serve` would refuse before it listens (the address, a named
/// token file), said before a daemon is reached.
pub fn check(options: &HttpOptions) -> Result<(), HttpError> {
    listen_address(&options.addr, options.allow_remote)?;
    if let Some(file) = &options.token_file {
        Token::read(file).map_err(HttpError::Token)?;
    }
    Ok(())
}

/// The token file made for a server on `port` when none is named, in the
/// runtime directory (made private first: in process, no daemon has).
fn generated_token_file(port: u16) -> Result<PathBuf, String> {
    let dir = crate::frontends::daemon::paths::runtime_dir();
    #[cfg(unix)]
    crate::frontends::daemon::paths::ensure_private(&dir).map_err(|e| e.to_string())?;
    #[cfg(not(unix))]
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.join(format!("mcp-http-{port}.token")))
}

/// rmcp's settings: sessions for today's clients, and a browser's
/// `Origin` held to the server's own (a page of another site is refused
/// with 403 even with the token). On loopback the `Host` is held to
/// loopback names too, against DNS rebinding; served to other machines
/// (`--allow-remote`), a client names the server by whatever address or
/// name reaches it (a LAN address, `host.docker.internal`), so `Host` is
/// not checked, and the token is what guards it.
fn service_config(addr: SocketAddr, stop: &CancellationToken) -> StreamableHttpServerConfig {
    let port = addr.port();
    let loopback = ["localhost", "127.0.0.1", "::1"];
    let origins: Vec<String> = loopback
        .iter()
        .map(|h| match h.parse::<IpAddr>() {
            Ok(IpAddr::V6(_)) => format!("http://[{h}]:{port}"),
            _ => format!("http://{h}:{port}"),
        })
        .collect();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_legacy_session_mode(true)
        .with_cancellation_token(stop.child_token());
    if addr.ip().is_loopback() {
        config.with_allowed_hosts(loopback)
    } else {
        config.disable_allowed_hosts()
    }
}

/// A plain answer of ours (not rmcp's), with `status`.
fn plain(
    status: StatusCode,
    text: &'static str,
) -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer realm=\"sightline\""),
        );
    }
    response
}

/// What an HTTP session is served by: the daemon's relay, or the MCP server
/// in process.
pub trait Sessions: ServerHandler + Send + 'static {}
impl<S: ServerHandler + Send + 'static> Sessions for S {}

/// [`serve`] until SIGINT or SIGTERM, when the server stops (and takes the
/// token it generated with it).
pub async fn serve_until_interrupted<S: Sessions>(
    options: &HttpOptions,
    factory: impl Fn() -> S + Send + Sync + 'static,
    announce: impl FnOnce(&str),
) -> Result<(), HttpError> {
    let stop = CancellationToken::new();
    tokio::select! {
        served = serve(options, factory, announce, stop.clone()) => served,
        _ = crate::frontends::signals::interrupted() => {
            stop.cancel();
            Ok(())
        }
    }
}

/// Serves MCP over HTTP with sessions made by `factory` until `stop` is
/// cancelled; hands `announce` where it listens (and a token it made) once
/// it does.
pub async fn serve<S>(
    options: &HttpOptions,
    factory: impl Fn() -> S + Send + Sync + 'static,
    announce: impl FnOnce(&str),
    stop: CancellationToken,
) -> Result<(), HttpError>
where
    S: ServerHandler + Send + 'static,
{
    let addr = listen_address(&options.addr, options.allow_remote)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| HttpError::Listen(addr, e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| HttpError::Listen(addr, e))?;
    let token = match &options.token_file {
        Some(file) => Token::read(file),
        None => generated_token_file(addr.port()).and_then(Token::generate),
    }
    .map_err(HttpError::Token)?;
    let service = StreamableHttpService::new(
        move || Ok(factory()),
        Arc::new(LocalSessionManager::default()),
        service_config(addr, &stop),
    );
    announce(&said_where(addr, &token));
    // The generated file goes when this future ends (the server stops),
    // whatever connections still hold the token.
    let _removed = RemovedOnStop(token.generated.clone());
    let token = Arc::new(token);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!("mcp http: accept failed: {e}");
                    continue;
                }
            },
            () = stop.cancelled() => return Ok(()),
        };
        let (service, token) = (service.clone(), token.clone());
        let answer = hyper::service::service_fn(move |request: Request<Incoming>| {
            let (service, token) = (service.clone(), token.clone());
            async move {
                if request.uri().path() != PATH {
                    return Ok::<_, Infallible>(plain(
                        StatusCode::NOT_FOUND,
                        "not found: MCP is served at /mcp",
                    ));
                }
                let authorization = request
                    .headers()
                    .get(hyper::header::AUTHORIZATION)
                    .map(hyper::header::HeaderValue::as_bytes);
                if !token.admits(authorization) {
                    return Ok(plain(
                        StatusCode::UNAUTHORIZED,
                        "unauthorized: send the token as `Authorization: Bearer TOKEN`",
                    ));
                }
                Ok(service.handle(request).await)
            }
        });
        let conn_stop = stop.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            // A peer that never finishes its request's head is dropped,
            // not held: before the token is read, anyone may connect.
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_WAIT)
                .serve_connection(io, answer);
            tokio::select! {
                result = conn => if let Err(e) = result {
                    tracing::debug!("mcp http: a connection ended: {e}");
                },
                () = conn_stop.cancelled() => {}
            }
        });
    }
}

/// Where the server listens and, for a token it made, the token (said once,
/// on stderr: stdout is not read by anyone here).
fn said_where(addr: SocketAddr, token: &Token) -> String {
    let mut said = format!("sightline: MCP over HTTP at http://{addr}{PATH}\n");
    if let Some(file) = &token.generated {
        said.push_str(&format!(
            "sightline: token (also in {}, removed at exit): {}\n",
            file.display(),
            token.secret
        ));
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_loopback_unless_asked() {
        let a = listen_address("8123", false).expect("a port");
        assert_eq!(a.to_string(), "127.0.0.1:8123");
        assert_eq!(
            listen_address("localhost:0", false)
                .expect("localhost")
                .ip(),
            Ipv4Addr::LOCALHOST
        );
        assert!(listen_address("[::1]:9", false).is_ok());
        let remote = listen_address("0.0.0.0:8123", false).expect_err("refused");
        assert!(remote.to_string().contains("--allow-remote"), "{remote}");
        assert!(listen_address("0.0.0.0:8123", true).is_ok());
        assert!(listen_address("example.org:80", true).is_err());
    }
}
