//! Why a code task or a program produced no value. Every message is lowercase and names the
//! task and its tool, or the program.

use std::fmt;

/// The error of [`Sandbox::eval`](crate::Sandbox::eval) and
/// [`Sandbox::run_program`](crate::Sandbox::run_program).
///
/// All variants except [`SandboxError::BadOptions`] and [`SandboxError::Internal`] name the task (`task_id`) and its tool (`tool`,
/// e.g. `code:map`), so a message alone says where it happened. For a program, `task_id` is
/// its [`ProgramTask::name`](crate::ProgramTask::name) and `tool` is empty: its messages start
/// with `program NAME` instead of `code task ID (TOOL)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The task ran past [`SandboxOptions::time_limit`](crate::SandboxOptions::time_limit) (a
    /// program: its JavaScript ran that long, time waiting for the host not counted): either
    /// the interrupt handler stopped it, or the watchdog gave up waiting for it and abandoned its
    /// worker thread.
    #[error("{} exceeded {limit_ms} ms", Subject(task_id, tool))]
    Timeout {
        task_id: String,
        tool: String,
        limit_ms: u64,
    },
    /// An allocation failed because the runtime reached
    /// [`SandboxOptions::memory_limit`](crate::SandboxOptions::memory_limit), and the program did
    /// not catch the error (or it ran out again while handling it).
    #[error("{} ran out of memory (limit {})", Subject(task_id, tool), size(*limit_bytes))]
    OutOfMemory {
        task_id: String,
        tool: String,
        limit_bytes: usize,
    },
    /// The JavaScript stack grew past
    /// [`SandboxOptions::stack_limit`](crate::SandboxOptions::stack_limit) (runaway recursion).
    #[error(
        "{} exceeded the stack limit ({}): maximum call stack size exceeded",
        Subject(task_id, tool),
        size(*limit_bytes)
    )]
    StackOverflow {
        task_id: String,
        tool: String,
        limit_bytes: usize,
    },
    /// The code is not a JavaScript expression (it does not parse inside the wrapper function).
    #[error("{} does not parse: {message}", Subject(task_id, tool))]
    Syntax {
        task_id: String,
        tool: String,
        message: String,
    },
    /// The code threw (or returned a promise that rejected). `message` is `Name: message` for
    /// errors (`TypeError: x is undefined`), the thrown value as a string otherwise.
    #[error("{} threw: {message}", Subject(task_id, tool))]
    Exception {
        task_id: String,
        tool: String,
        message: String,
        /// The JavaScript stack trace, when the thrown value was an `Error` that had one.
        stack: Option<String>,
    },
    /// An argument name is not usable as a JavaScript parameter name (not an identifier, a
    /// reserved word, `eval`/`arguments`, or a duplicate).
    #[error("{} has argument `{name}` that {reason}", Subject(task_id, tool))]
    BadArgumentName {
        task_id: String,
        tool: String,
        name: String,
        reason: &'static str,
    },
    /// The result cannot be represented as JSON (a function, a symbol, a BigInt, a cycle, a
    /// promise that never settled, nesting deeper than `pml_jstext::MAX_DEPTH` levels...).
    #[error(
        "{} returned a value that is not json: {message}",
        Subject(task_id, tool)
    )]
    NotJson {
        task_id: String,
        tool: String,
        message: String,
    },
    /// A program waits for something that never happens: its promise is pending, no promise job
    /// is queued and none of its calls is unanswered (e.g. it awaits `new Promise(() => {})`).
    /// Only programs end with this.
    #[error(
        "{} is stuck: it awaits a promise that nothing can settle (no call to the host nor timer is pending)",
        Subject(task_id, tool)
    )]
    Stalled { task_id: String, tool: String },
    /// The host ended the run ([`Answers::abort`](crate::Answers::abort)).
    #[error("{} was stopped by the host", Subject(task_id, tool))]
    Aborted { task_id: String, tool: String },
    /// [`Sandbox::new`](crate::Sandbox::new) was given limits it cannot enforce.
    #[error("invalid sandbox options: {0}")]
    BadOptions(String),
    /// The sandbox itself failed (a runtime could not be created, a worker thread died), or the
    /// host broke the protocol of program mode (it dropped every
    /// [`Answers`](crate::Answers) handle of a run while calls were unanswered).
    #[error("internal sandbox error: {0}")]
    Internal(String),
}

impl SandboxError {
    /// The task (or program name) the error is about (`None` for [`SandboxError::BadOptions`]
    /// and [`SandboxError::Internal`]).
    pub fn task_id(&self) -> Option<&str> {
        match self {
            SandboxError::Timeout { task_id, .. }
            | SandboxError::OutOfMemory { task_id, .. }
            | SandboxError::StackOverflow { task_id, .. }
            | SandboxError::Syntax { task_id, .. }
            | SandboxError::Exception { task_id, .. }
            | SandboxError::BadArgumentName { task_id, .. }
            | SandboxError::NotJson { task_id, .. }
            | SandboxError::Stalled { task_id, .. }
            | SandboxError::Aborted { task_id, .. } => Some(task_id),
            SandboxError::BadOptions(_) | SandboxError::Internal(_) => None,
        }
    }
}

/// What a message is about: `code task ID (TOOL)`, or `program NAME` when the tool is empty.
pub(crate) struct Subject<'a>(pub &'a str, pub &'a str);

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Subject(task_id, tool) = self;
        if tool.is_empty() {
            write!(f, "program {task_id}")
        } else {
            write!(f, "code task {task_id} ({tool})")
        }
    }
}

/// `256 MiB`, `512 KiB`, `1000 bytes`: the largest unit that divides `bytes` exactly.
pub(crate) fn size(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_task_and_tool() {
        let t = |e: SandboxError| e.to_string();
        assert_eq!(
            t(SandboxError::Timeout {
                task_id: "n3".into(),
                tool: "code:map".into(),
                limit_ms: 5000
            }),
            "code task n3 (code:map) exceeded 5000 ms"
        );
        assert_eq!(
            t(SandboxError::OutOfMemory {
                task_id: "n3".into(),
                tool: "code:map".into(),
                limit_bytes: 256 << 20
            }),
            "code task n3 (code:map) ran out of memory (limit 256 MiB)"
        );
        assert_eq!(
            t(SandboxError::Exception {
                task_id: "n3".into(),
                tool: "code:map".into(),
                message: "TypeError: x is undefined".into(),
                stack: None
            }),
            "code task n3 (code:map) threw: TypeError: x is undefined"
        );
        assert_eq!(
            t(SandboxError::Exception {
                task_id: "main.js".into(),
                tool: String::new(),
                message: "Error: no such file".into(),
                stack: None
            }),
            "program main.js threw: Error: no such file"
        );
        assert_eq!(size(1000), "1000 bytes");
        assert_eq!(size(1536), "1536 bytes");
        assert_eq!(size(512 << 10), "512 KiB");
    }
}
