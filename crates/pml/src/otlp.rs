//! `pml run --otlp URL`: the run's trace exported as OpenTelemetry spans (OTLP over HTTP,
//! JSON), with the `opentelemetry` crates: one span for the run, one per logical operation
//! under it (MCP calls, `code:*` operations, capability calls, calls of local functions), the
//! operations of a called capability under the span of the call. Attributes follow the GenAI
//! and MCP semantic conventions where they have one (`gen_ai.operation.name`,
//! `gen_ai.tool.name`, `mcp.method.name`), `pml.*` otherwise (node id, iteration,
//! speculative, replayed, capability).
//!
//! The spans are made from the finished trace (each event has its start and duration), so
//! exporting changes nothing in how the program runs; it happens after the run, on a thread of
//! its own (the HTTP client blocks).

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{Span, SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use pml_trace::{EventKind, TraceEvent};

/// What a run's export needs.
pub struct RunSpans {
    /// The program's file (the run span's name).
    pub file: String,
    /// When the run started (the trace's `tsMs` count from here).
    pub started: SystemTime,
    pub duration: Duration,
    pub ok: bool,
    pub error: Option<String>,
    pub run_id: Option<String>,
    pub trace: Vec<TraceEvent<'static>>,
    /// The W3C `traceparent` of the trace the run is part of (an MCP client's `_meta`): the
    /// run's span continues it.
    pub parent: Option<String>,
}

/// The span context of a W3C `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`), when it is one.
pub fn remote_parent(traceparent: &str) -> Option<opentelemetry::trace::SpanContext> {
    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    let mut parts = traceparent.trim().split('-');
    let (version, trace, span, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    if version != "00"
        || parts.next().is_some()
        || !hex(trace, 32)
        || !hex(span, 16)
        || !hex(flags, 2)
    {
        return None;
    }
    let trace = TraceId::from_hex(trace)
        .ok()
        .filter(|t| *t != TraceId::INVALID)?;
    let span = SpanId::from_hex(span)
        .ok()
        .filter(|s| *s != SpanId::INVALID)?;
    let flags = TraceFlags::new(u8::from_str_radix(flags, 16).ok()?);
    Some(SpanContext::new(
        trace,
        span,
        flags,
        true,
        TraceState::default(),
    ))
}

/// Sends `spans` to the OTLP/HTTP endpoint `url` (`http://host:4318`, or the full
/// `.../v1/traces`) and waits until they are sent; `Err` says why they were not.
pub fn export(url: &str, spans: RunSpans) -> Result<(), String> {
    let endpoint = match url.trim_end_matches('/') {
        u if u.ends_with("/v1/traces") => u.to_owned(),
        u => format!("{u}/v1/traces"),
    };
    // The blocking HTTP client runs its own runtime: not on one of tokio's threads.
    std::thread::spawn(move || send(&endpoint, spans))
        .join()
        .map_err(|_| "the exporting thread panicked".to_owned())?
}

fn send(endpoint: &str, spans: RunSpans) -> Result<(), String> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpJson)
        .with_endpoint(endpoint)
        .with_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| format!("cannot export to {endpoint}: {e}"))?;
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_simple_exporter(exporter)
        .with_resource(
            opentelemetry_sdk::Resource::builder()
                .with_service_name("pml")
                .build(),
        )
        .build();
    let tracer = provider.tracer("pml");
    let at = |ms: f64| spans.started + Duration::from_secs_f64(ms.max(0.0) / 1e3);
    let mut attributes = vec![KeyValue::new("pml.file", spans.file.clone())];
    if let Some(id) = &spans.run_id {
        attributes.push(KeyValue::new("pml.run_id", id.clone()));
    }
    let caller = match spans.parent.as_deref().and_then(remote_parent) {
        Some(parent) => Context::new().with_remote_span_context(parent),
        None => Context::new(),
    };
    let run = tracer
        .span_builder(format!("pml run {}", spans.file))
        .with_kind(SpanKind::Internal)
        .with_start_time(spans.started)
        .with_attributes(attributes)
        .start_with_context(&tracer, &caller);
    let run = caller.with_span(run);
    // Operations, outermost first: a capability's operations go under the span of its call.
    let mut ended: Vec<&TraceEvent> = (spans.trace.iter())
        .filter(|e| matches!(e.event, EventKind::ToolEnd | EventKind::Call))
        .collect();
    ended.sort_by_key(|e| e.parent.as_deref().map_or(0, |p| p.split('/').count()));
    let mut calls: HashMap<String, Context> = HashMap::new();
    for e in ended {
        let parent = match &e.parent {
            None => &run,
            Some(p) => calls.get(&**p).unwrap_or(&run),
        };
        let duration = e.duration_ms.unwrap_or(0.0);
        let tool = match &*e.tool {
            "" => e.task_id.as_deref().unwrap_or_default().to_owned(),
            tool => tool.to_owned(),
        };
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", tool.clone()),
        ];
        if tool.contains(':') && !tool.starts_with("code:") && !tool.starts_with("capability:") {
            attributes.push(KeyValue::new("mcp.method.name", "tools/call"));
        }
        if let Some(id) = &e.task_id {
            attributes.push(KeyValue::new("pml.node_id", id.to_string()));
        }
        if !e.iteration.is_empty() {
            let iteration: Vec<i64> = e.iteration.iter().map(|&i| i64::from(i)).collect();
            attributes.push(KeyValue::new(
                "pml.iteration",
                opentelemetry::Value::Array(iteration.into()),
            ));
        }
        attributes.push(KeyValue::new(
            "pml.speculative",
            e.speculative.unwrap_or(false),
        ));
        if let Some(taken) = e.taken {
            attributes.push(KeyValue::new("pml.speculative_taken", taken));
        }
        if e.replayed == Some(true) {
            attributes.push(KeyValue::new("pml.replayed", true));
        }
        if let Some(name) = &e.capability {
            attributes.push(KeyValue::new("pml.capability", name.to_string()));
        }
        let mut span = tracer
            .span_builder(format!("execute_tool {tool}"))
            .with_kind(SpanKind::Internal)
            .with_start_time(at(e.ts_ms - duration))
            .with_attributes(attributes)
            .start_with_context(&tracer, parent);
        if e.success == Some(false) {
            span.set_status(Status::error(
                e.error.as_deref().unwrap_or_default().to_owned(),
            ));
        }
        let end = at(e.ts_ms);
        // A capability call: its operations' `parent` names it.
        if tool.starts_with("capability:") {
            if let Some(id) = &e.task_id {
                let key = match (&e.parent, e.iteration.as_slice()) {
                    (None, []) => id.to_string(),
                    (None, it) => format!("{id}[{}]", joined(it)),
                    (Some(p), []) => format!("{p}/{id}"),
                    (Some(p), it) => format!("{p}/{id}[{}]", joined(it)),
                };
                let cx = parent.with_span(span);
                cx.span().end_with_timestamp(end);
                calls.insert(key, cx);
                continue;
            }
        }
        span.end_with_timestamp(end);
    }
    if !spans.ok {
        run.span()
            .set_status(Status::error(spans.error.clone().unwrap_or_default()));
    }
    run.span()
        .end_with_timestamp(spans.started + spans.duration);
    let flushed = provider.force_flush();
    let shut = provider.shutdown();
    flushed
        .and(shut)
        .map_err(|e| format!("the spans were not exported to {endpoint}: {e}"))
}

fn joined(iteration: &[u32]) -> String {
    iteration
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
