//! The gateway's transports: stdio, and streamable HTTP (axum) with a bearer token and
//! `Origin` checks; the servers' config a gateway starts with.

use std::sync::Arc;

use pml_mcp::McpConfig;
use serde_json::{Map, Value};

use super::{Gateway, ServeError};
use crate::run::RunSetupError;

/// Serves `gateway` over stdin/stdout until the client closes it or `stop` turns true, then
/// stops the servers.
pub async fn serve_stdio(
    gateway: Gateway,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ServeError> {
    use rmcp::ServiceExt;
    // What rmcp writes goes out as Node's SDK writes it (lone surrogates as `\udXXX`, numbers
    // as JavaScript writes them), through a relay that ends when rmcp's end is dropped.
    let (rmcp_out, relay_in) = tokio::io::duplex(64 * 1024);
    let relay = tokio::spawn(pml_mcp::relay_js_json(relay_in, tokio::io::stdout()));
    // What the client writes comes in as pml text (a lone surrogate as the client wrote it).
    let (client_out, rmcp_in) = tokio::io::duplex(64 * 1024);
    tokio::spawn(pml_mcp::relay_from_js_json(tokio::io::stdin(), client_out));
    let service = gateway
        .clone()
        .serve((rmcp_in, rmcp_out))
        .await
        .map_err(|e| ServeError::Transport(format!("the client did not initialize: {e}")));
    let outcome = match service {
        Ok(service) => {
            let cancel = service.cancellation_token();
            tokio::select! {
                _ = service.waiting() => {}
                _ = stop.wait_for(|on| *on) => cancel.cancel(),
            }
            Ok(())
        }
        Err(e) => Err(e),
    };
    // Every answer written out before the servers stop (the service, and with it rmcp's end
    // of the relay, is gone by now; a stdout that does not drain is not waited for long).
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), relay).await;
    gateway.shutdown().await;
    outcome
}

/// The default servers of `pml serve`: the reference servers, the filesystem one rooted in
/// `root`, the memory one's file in `scratch`.
pub fn default_config(
    root: &std::path::Path,
    scratch: &std::path::Path,
) -> Result<(McpConfig, Map<String, Value>), RunSetupError> {
    let config = crate::servers::reference_config(root, scratch)?;
    let mut inherited = Map::new();
    inherited.insert(
        "root".to_owned(),
        Value::String(root.to_string_lossy().into_owned()),
    );
    Ok((config, inherited))
}

/// `config` without the servers that are a `pml serve` themselves (the project's `.mcp.json`
/// that declares this gateway for the agent also lists it among its servers): a gateway
/// that started itself would start itself again, without end. Their names.
pub fn without_gateways(config: &mut McpConfig) -> Vec<String> {
    let is_pml = |command: &str| {
        let path = std::path::Path::new(command);
        path.file_stem().is_some_and(|stem| stem == "pml")
            || std::env::current_exe().is_ok_and(|exe| {
                path.canonicalize()
                    .is_ok_and(|c| exe.canonicalize().is_ok_and(|e| e == c))
            })
    };
    let mut left_out = Vec::new();
    config.servers.retain(|name, server| {
        let gateway = is_pml(&server.command) && server.args.iter().any(|a| a == "serve");
        if gateway {
            left_out.push(name.clone());
        }
        !gateway
    });
    left_out
}

/// Where a gateway's default servers keep their files.
pub fn scratch() -> Result<crate::run::Scratch, RunSetupError> {
    crate::run::Scratch::new()
}

/// How `pml serve --http` listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub address: std::net::SocketAddr,
    /// Required of every request as `Authorization: Bearer <token>`; a gateway that listens
    /// beyond the loopback interface refuses to start without one.
    pub token: Option<String>,
    /// Browser origins allowed besides the loopback ones (`https://app.example.com:443`).
    pub allowed_origins: Vec<String>,
}

/// The HTTP endpoint of a gateway.
pub const HTTP_PATH: &str = "/mcp";

/// Serves `gateway` over streamable HTTP at [`HTTP_PATH`] until `stop` turns true, then
/// stops the servers. Calls `ready` with the address it listens on.
///
/// On the loopback interface, requests must name a loopback host (DNS rebinding) and a
/// browser's `Origin` must be a loopback one or an allowed one. Elsewhere a bearer token is
/// required and any host is accepted; a browser's `Origin` must be an allowed one.
pub async fn serve_http(
    gateway: Gateway,
    options: HttpOptions,
    mut stop: tokio::sync::watch::Receiver<bool>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServeError> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let loopback = options.address.ip().is_loopback();
    if !loopback && options.token.is_none() {
        return Err(ServeError::Transport(format!(
            "listening on {} (beyond the loopback interface) needs a bearer token: --token or PML_TOKEN",
            options.address
        )));
    }
    let stopping = tokio_util::sync::CancellationToken::new();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stopping.child_token());
    let mut origins = options.allowed_origins.clone();
    if loopback {
        origins.extend(
            ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"].map(str::to_owned),
        );
    } else {
        config = config.disable_allowed_hosts();
    }
    config = config
        .with_allowed_origins(origins.clone())
        .enforce_origin_validation();
    let service_gateway = gateway.clone();
    let service = StreamableHttpService::new(
        move || Ok(service_gateway.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token = options.token.clone();
    let router = axum::Router::new()
        .nest_service(HTTP_PATH, service)
        .layer(axum::middleware::map_request(js_json_request))
        .layer(axum::middleware::from_fn(move |request, next| {
            let token = token.clone();
            async move { authorize(token.as_deref(), request, next).await }
        }))
        .layer(axum::middleware::map_response(js_json_body))
        // Outermost: a browser's preflight carries no token, and its answers (a 401 too)
        // need the headers to be read.
        .layer(cors(origins));
    let listener = tokio::net::TcpListener::bind(options.address)
        .await
        .map_err(|e| ServeError::Transport(format!("cannot listen on {}: {e}", options.address)))?;
    let bound = listener
        .local_addr()
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    ready(bound);
    let shutdown = stopping.clone();
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|on| *on).await;
            shutdown.cancel();
        })
        .await;
    stopping.cancel();
    gateway.shutdown().await;
    served.map_err(|e| ServeError::Transport(e.to_string()))
}

/// What lets a page of an allowed origin use the gateway from a browser: its preflight
/// (`OPTIONS`) answered, and the CORS headers on every answer to it, with the MCP headers
/// (`Mcp-Session-Id`...) it must send and read. Other origins get none (and rmcp refuses
/// their requests).
fn cors(origins: Vec<String>) -> tower_http::cors::CorsLayer {
    use axum::http::{header, HeaderName, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let mcp = [
        HeaderName::from_static("mcp-session-id"),
        HeaderName::from_static("mcp-protocol-version"),
        HeaderName::from_static("last-event-id"),
    ];
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin, _| {
            origin
                .to_str()
                .is_ok_and(|origin| origin_allowed(origin, &origins))
        }))
        .allow_methods([Method::GET, Method::POST, Method::DELETE])
        .allow_headers(
            [header::AUTHORIZATION, header::CONTENT_TYPE, header::ACCEPT]
                .into_iter()
                .chain(mcp.clone())
                .collect::<Vec<_>>(),
        )
        .expose_headers(mcp)
        .max_age(std::time::Duration::from_secs(600))
}

/// Whether `origin` (`scheme://host[:port]`) is one of `allowed`, where a pattern ending in
/// `:*` takes any port (or none) of its scheme and host.
fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    let origin = origin.trim_end_matches('/');
    allowed.iter().any(|pattern| {
        let pattern = pattern.trim_end_matches('/');
        match pattern.strip_suffix(":*") {
            Some(base) => {
                origin.eq_ignore_ascii_case(base)
                    || origin
                        .get(..base.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(base))
                        && origin[base.len()..].strip_prefix(':').is_some_and(|port| {
                            !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                        })
            }
            None => origin.eq_ignore_ascii_case(pattern),
        }
    })
}

/// The most a request's body may hold: 64 MiB.
const MAX_BODY: usize = 64 << 20;

/// A client's JSON body as pml text: a lone surrogate a JavaScript client writes as `\udXXX`
/// (which serde_json refuses, so rmcp refused the request) kept as the client wrote it, as
/// [`pml_mcp::relay_from_js_json`] does on stdio.
async fn js_json_request(request: axum::extract::Request) -> axum::extract::Request {
    use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
    let json = (request.headers().get(CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .is_some_and(|k| k.starts_with("application/json"));
    if !json {
        return request;
    }
    let (mut parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => match std::str::from_utf8(&bytes).map(pml_jstext::from_js_json) {
            Ok(std::borrow::Cow::Owned(text)) => {
                parts.headers.remove(CONTENT_LENGTH);
                axum::body::Body::from(text)
            }
            _ => axum::body::Body::from(bytes),
        },
        // Too large (or cut off): an empty body, which rmcp refuses as no JSON-RPC.
        Err(_) => {
            parts.headers.remove(CONTENT_LENGTH);
            axum::body::Body::empty()
        }
    };
    axum::extract::Request::from_parts(parts, body)
}

/// What rmcp answers over HTTP (a JSON body, or the `data:` lines of an event stream), as
/// Node's SDK writes it: lone surrogates as `\udXXX`, numbers as JavaScript writes them (as
/// [`pml_mcp::relay_js_json`] does on stdio). Complete lines go out as they come.
async fn js_json_body(response: axum::response::Response) -> axum::response::Response {
    use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
    use futures_util::StreamExt;
    let kind = (response.headers().get(CONTENT_TYPE)).and_then(|v| v.to_str().ok());
    let events = match kind {
        Some(k) if k.starts_with("text/event-stream") => true,
        Some(k) if k.starts_with("application/json") => false,
        _ => return response,
    };
    let (mut parts, body) = response.into_parts();
    parts.headers.remove(CONTENT_LENGTH);
    // Each complete line as Node writes it (an event's other fields, `id:`, as they are).
    let convert = move |text: &[u8]| -> axum::body::Bytes {
        let mut out = Vec::with_capacity(text.len());
        for line in text.split_inclusive(|&b| b == b'\n') {
            match std::str::from_utf8(line) {
                Ok(l) if !events || l.starts_with("data:") => {
                    out.extend_from_slice(pml_jstext::to_js_json(l).as_bytes());
                }
                _ => out.extend_from_slice(line),
            }
        }
        out.into()
    };
    let state = (body.into_data_stream(), Vec::new(), false);
    let stream =
        futures_util::stream::unfold(state, move |(mut chunks, mut pending, done)| async move {
            if done {
                return None;
            }
            loop {
                match chunks.next().await {
                    Some(Ok(chunk)) => {
                        pending.extend_from_slice(&chunk);
                        if let Some(end) = pending.iter().rposition(|&b| b == b'\n') {
                            let rest = pending.split_off(end + 1);
                            return Some((Ok(convert(&pending)), (chunks, rest, false)));
                        }
                    }
                    Some(Err(e)) => return Some((Err(e), (chunks, pending, true))),
                    None if pending.is_empty() => return None,
                    None => return Some((Ok(convert(&pending)), (chunks, Vec::new(), true))),
                }
            }
        });
    axum::response::Response::from_parts(parts, axum::body::Body::from_stream(stream))
}

/// Lets `request` through when no token is required or it carries the token.
async fn authorize(
    token: Option<&str>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let Some(token) = token else {
        return next.run(request).await;
    };
    // `Bearer <token>`, the scheme in any case (RFC 9110 section 11.1).
    let given = (request.headers().get(axum::http::header::AUTHORIZATION))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim_start().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .unwrap_or("");
    if constant_time_eq(given.as_bytes(), token.as_bytes()) {
        return next.run(request).await;
    }
    (
        axum::http::StatusCode::UNAUTHORIZED,
        [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
        "pml serve: a bearer token is required (Authorization: Bearer <token>)\n",
    )
        .into_response()
}

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::origin_allowed;

    #[test]
    fn origins_match_exactly_or_on_any_port() {
        let allowed = [
            "https://app.example.com".to_owned(),
            "http://localhost:*".to_owned(),
        ];
        for (origin, fits) in [
            ("https://app.example.com", true),
            ("https://APP.example.com", true),
            ("https://app.example.com:8443", false),
            ("http://app.example.com", false),
            ("https://app.example.com.evil.net", false),
            ("http://localhost", true),
            ("http://localhost:3000", true),
            ("http://localhost:3000x", false),
            ("http://localhost.evil.net", false),
            ("http://localhost:", false),
        ] {
            assert_eq!(origin_allowed(origin, &allowed), fits, "{origin}");
        }
    }
}
