//! Why a code task produced no value. Every message is lowercase and names the task and its tool.

/// The error of [`Sandbox::eval`](crate::Sandbox::eval).
///
/// All variants except [`SandboxError::BadOptions`] and [`SandboxError::Internal`] name the task (`task_id`) and its tool (`tool`,
/// e.g. `code:map`), so a message alone says where it happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The task ran past [`SandboxOptions::time_limit`](crate::SandboxOptions::time_limit): either
    /// the interrupt handler stopped it, or the watchdog gave up waiting for it and abandoned its
    /// worker thread.
    #[error("code task {task_id} ({tool}) exceeded {limit_ms} ms")]
    Timeout {
        task_id: String,
        tool: String,
        limit_ms: u64,
    },
    /// An allocation failed because the runtime reached
    /// [`SandboxOptions::memory_limit`](crate::SandboxOptions::memory_limit), and the program did
    /// not catch the error (or it ran out again while handling it).
    #[error("code task {task_id} ({tool}) ran out of memory (limit {})", size(*limit_bytes))]
    OutOfMemory {
        task_id: String,
        tool: String,
        limit_bytes: usize,
    },
    /// The JavaScript stack grew past
    /// [`SandboxOptions::stack_limit`](crate::SandboxOptions::stack_limit) (runaway recursion).
    #[error(
        "code task {task_id} ({tool}) exceeded the stack limit ({}): maximum call stack size exceeded",
        size(*limit_bytes)
    )]
    StackOverflow {
        task_id: String,
        tool: String,
        limit_bytes: usize,
    },
    /// The code is not a JavaScript expression (it does not parse inside the wrapper function).
    #[error("code task {task_id} ({tool}) does not parse: {message}")]
    Syntax {
        task_id: String,
        tool: String,
        message: String,
    },
    /// The code threw (or returned a promise that rejected). `message` is `Name: message` for
    /// errors (`TypeError: x is undefined`), the thrown value as a string otherwise.
    #[error("code task {task_id} ({tool}) threw: {message}")]
    Exception {
        task_id: String,
        tool: String,
        message: String,
        /// The JavaScript stack trace, when the thrown value was an `Error` that had one.
        stack: Option<String>,
    },
    /// An argument name is not usable as a JavaScript parameter name (not an identifier, a
    /// reserved word, `eval`/`arguments`, or a duplicate).
    #[error("code task {task_id} ({tool}) has argument `{name}` that {reason}")]
    BadArgumentName {
        task_id: String,
        tool: String,
        name: String,
        reason: &'static str,
    },
    /// The result cannot be represented as JSON (a function, a symbol, a BigInt, a cycle, a
    /// promise that never settled, nesting deeper than 128 levels...).
    #[error("code task {task_id} ({tool}) returned a value that is not json: {message}")]
    NotJson {
        task_id: String,
        tool: String,
        message: String,
    },
    /// [`Sandbox::new`](crate::Sandbox::new) was given limits it cannot enforce.
    #[error("invalid sandbox options: {0}")]
    BadOptions(String),
    /// The sandbox itself failed (a runtime could not be created, a worker thread died).
    #[error("internal sandbox error: {0}")]
    Internal(String),
}

impl SandboxError {
    /// The task the error is about (`None` for [`SandboxError::BadOptions`] and
    /// [`SandboxError::Internal`]).
    pub fn task_id(&self) -> Option<&str> {
        match self {
            SandboxError::Timeout { task_id, .. }
            | SandboxError::OutOfMemory { task_id, .. }
            | SandboxError::StackOverflow { task_id, .. }
            | SandboxError::Syntax { task_id, .. }
            | SandboxError::Exception { task_id, .. }
            | SandboxError::BadArgumentName { task_id, .. }
            | SandboxError::NotJson { task_id, .. } => Some(task_id),
            SandboxError::BadOptions(_) | SandboxError::Internal(_) => None,
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
        assert_eq!(size(1000), "1000 bytes");
        assert_eq!(size(1536), "1536 bytes");
        assert_eq!(size(512 << 10), "512 KiB");
    }
}
