//! Integration tests of pml-mcp: the real npm reference servers (installed with `npm ci` on
//! first use) and fault injection with `mcp-servers/misbehaving-server.mjs`.

mod faults;
mod reference;
mod support;
