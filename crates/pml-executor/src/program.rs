//! Sandbox mode: the whole program runs in QuickJS as written; each `mcp.<server>.<tool>(...)`
//! it makes comes to the host, which approves, traces and runs it on the async runtime while
//! the program waits. Calls the program makes together (`Promise.all`) run together.

use std::sync::{Arc, Mutex};

use pml_sandbox::{Answers, HostCall, ProgramTask};
use serde_json::Value;

use crate::approval::SideEffect;
use crate::trace::Op;
use crate::{Call, RunError, Services};

/// Runs `source` with `args`; returns its result and the calls it made.
pub(crate) async fn run(
    source: &str,
    args: &Value,
    cx: Services,
) -> (Result<Value, RunError>, Vec<Call>) {
    let runtime = tokio::runtime::Handle::current();
    let calls: Arc<Mutex<Vec<Call>>> = Arc::new(Mutex::new(Vec::new()));
    // The calls that failed, to name the one the program did not catch.
    let failures: Arc<Mutex<Vec<Failed>>> = Arc::new(Mutex::new(Vec::new()));
    let (source, args) = (source.to_owned(), args.clone());
    let cx = Arc::new(cx);
    let (recorded, failed) = (calls.clone(), failures.clone());
    // Calls still running when the program settles (not awaited) run to their end, as they
    // would when running the program directly: the run waits for them.
    let running: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
    let handles = running.clone();
    let cx2 = cx.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        let task = ProgramTask {
            name: "agent",
            source: &source,
            args: &args,
        };
        let mut on_call = |call: HostCall, answers: Answers| {
            let cx = cx2.clone();
            let recorded = recorded.clone();
            let failed = failed.clone();
            let handle = runtime.spawn(async move {
                let id = call.id;
                let answer = answer(&cx, call, &recorded, &failed).await;
                answers.answer(id, answer);
            });
            handles
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(handle);
        };
        cx2.sandbox.run_program(&task, &mut on_call)
    })
    .await;
    let still_running = std::mem::take(&mut *running.lock().unwrap_or_else(|p| p.into_inner()));
    for handle in still_running {
        let _ = handle.await;
    }
    let calls = std::mem::take(&mut *calls.lock().unwrap_or_else(|p| p.into_inner()));
    let result = match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => {
            let message = e.to_string();
            // An uncaught call failure: say which call, which tool and why.
            let failures = failures.lock().unwrap_or_else(|p| p.into_inner());
            match failures
                .iter()
                .find(|f| message.contains(&format!("Error: {}", f.js)))
            {
                Some(f) => Err(RunError::task(
                    format!("{} ({}): {}", f.task_id, f.tool, f.detail),
                    &f.task_id,
                    &f.tool,
                )),
                None => {
                    // Where in the program it was thrown, from the stack's first frame in it.
                    let at = match &e {
                        pml_sandbox::SandboxError::Exception {
                            stack: Some(stack), ..
                        } => program_location(stack),
                        _ => None,
                    };
                    Err(RunError::internal(match at {
                        Some((line, column)) => format!("{message} (at {line}:{column})"),
                        None => message,
                    }))
                }
            }
        }
        Err(e) => Err(RunError::internal(format!("the program stopped: {e}"))),
    };
    (result, calls)
}

/// The line and column of the first stack frame in the program (`at f (agent:3:11)`).
fn program_location(stack: &str) -> Option<(u32, u32)> {
    let at = stack.find("(agent:")? + "(agent:".len();
    let rest = &stack[at..];
    let end = rest.find(')')?;
    let (line, column) = rest[..end].split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// A call that failed: who, and the message the program's `Error` got.
struct Failed {
    task_id: String,
    tool: String,
    detail: String,
    js: String,
}

/// One call: approval, trace, the host's answer.
async fn answer(
    cx: &Services,
    call: HostCall,
    recorded: &Mutex<Vec<Call>>,
    failed: &Mutex<Vec<Failed>>,
) -> Result<Value, String> {
    let tool = format!("{}:{}", call.server, call.tool);
    let task_id = format!("call-{}", call.id);
    let op = Op {
        task_id: &task_id,
        physical_task_id: None,
        tool: &tool,
    };
    let fail = |detail: String, js: String| {
        failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Failed {
                task_id: task_id.clone(),
                tool: tool.clone(),
                detail,
                js: js.clone(),
            });
        Err(js)
    };
    if cx.policy.needs_approval(&tool, cx.facts.destructive(&tool)) {
        let effect = SideEffect {
            task_id: task_id.clone(),
            tool: tool.clone(),
            arguments: Some(call.arguments.clone()),
            needs_approval: true,
        };
        if !cx.approver.approve(&effect).await {
            let message = format!("the call to {tool} was not approved");
            let since = cx.tracer.start(&op);
            cx.tracer.end(&op, since, Err(&message));
            return fail(message.clone(), message);
        }
    }
    let since = cx.tracer.start(&op);
    let outcome = cx
        .host
        .call(&call.server, &call.tool, call.arguments.clone())
        .await;
    recorded
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Call {
            tool: tool.clone(),
            arguments: call.arguments,
        });
    match outcome {
        Ok(value) => {
            cx.tracer.end(&op, since, Ok(Some(&value)));
            Ok(value)
        }
        Err(failure) => {
            cx.tracer.end(&op, since, Err(&failure.detail));
            fail(failure.detail, failure.message)
        }
    }
}
