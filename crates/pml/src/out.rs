//! What the commands print on stdout. A write that fails ends pml at once, never with a
//! panic: a reader that went away (`pml runs --json | head -c 600`) silently, with status 141
//! as a process killed by `SIGPIPE` has; any other failure (a full disk) with a message and
//! status 2, so that a script never takes lost output for a success.

use std::io::Write;

/// Writes `text` to stdout and flushes it.
pub(crate) fn text(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        failed(e)
    }
}

/// Writes `text` and a line feed.
pub(crate) fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = (out.write_all(text.as_bytes()))
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        failed(e)
    }
}

/// Ends pml after a failed write to stdout.
pub(crate) fn failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    eprintln!("pml: cannot write to stdout: {e}");
    std::process::exit(2)
}
