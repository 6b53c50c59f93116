//! What is not pure computation in a code task: the names whose reference reaches outside it
//! (network, timers, dynamic code, modules, the process, the runtime, the global object), and
//! [`ImpureCode`], the first such reach the structure builder finds on a task's syntax tree.

use std::fmt;

/// The source of a pure code task reaches something that is not pure computation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpureCode {
    /// What was reached, as a stable short string: `"fetch"`, `"eval"`, `"new Function"`,
    /// `"import()"`, `"import.meta"`, `"require"`, `"process"`, `"Deno"`, ...
    pub pattern: &'static str,
    /// Byte offset in the code where the reach starts (the `new` of `new Function`).
    pub offset: usize,
}

const NETWORK: &str = "network i/o";
const EVAL: &str = "dynamic code evaluation";
const TIMERS: &str = "timers";
const MODULES: &str = "module loading";
const PROCESS: &str = "process access";
const RUNTIME: &str = "runtime access";
const GLOBAL: &str = "global object access";

/// Identifiers that may not be referenced, and why. `Function` and `import` are reported with
/// a more precise pattern when the text around them allows (`new Function`, `import()`).
const FORBIDDEN: [(&str, &str); 19] = [
    ("fetch", NETWORK),
    ("XMLHttpRequest", NETWORK),
    ("WebSocket", NETWORK),
    ("eval", EVAL),
    ("Function", EVAL),
    ("setTimeout", TIMERS),
    ("setInterval", TIMERS),
    ("setImmediate", TIMERS),
    ("queueMicrotask", TIMERS),
    ("require", MODULES),
    ("import", MODULES),
    ("process", PROCESS),
    ("Deno", RUNTIME),
    ("Bun", RUNTIME),
    ("Worker", RUNTIME),
    ("globalThis", GLOBAL),
    ("window", GLOBAL),
    ("self", GLOBAL),
    ("global", GLOBAL),
];

impl ImpureCode {
    /// Why the pattern is impure: `"network i/o"`, `"dynamic code evaluation"`, `"timers"`,
    /// `"module loading"`, `"process access"`, `"runtime access"` or `"global object access"`.
    pub fn reason(&self) -> &'static str {
        match self.pattern {
            "new Function" => EVAL,
            "import()" | "import.meta" => MODULES,
            pattern => FORBIDDEN
                .iter()
                .find(|(name, _)| *name == pattern)
                .map_or("impure operation", |(_, reason)| reason),
        }
    }
}

impl fmt::Display for ImpureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "code reaches `{}` ({}) at byte {}, so it is not pure",
            self.pattern,
            self.reason(),
            self.offset
        )
    }
}

impl std::error::Error for ImpureCode {}

/// The reach a free name of a code task is, if it is one: the stable pattern (`"fetch"`,
/// `"eval"`...). Forbidden are references to `fetch`, `XMLHttpRequest`, `WebSocket`, `eval`,
/// `Function`, `setTimeout`, `setInterval`, `setImmediate`, `queueMicrotask`, `require`,
/// `import`, `process`, `Deno`, `Bun`, `Worker`, `globalThis`, `window`, `self` and `global`;
/// the structure builder also reports `import(..)` and `import.meta`, which are syntax, not
/// names. Which names a code task reads is the builder's to say (from the syntax tree): this
/// crate reads no JavaScript text.
///
/// ```
/// use pml_pure_ops::forbidden;
/// assert_eq!(forbidden("fetch"), Some("fetch"));
/// assert_eq!(forbidden("filter"), None);
/// ```
pub fn forbidden(name: &str) -> Option<&'static str> {
    FORBIDDEN.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}
