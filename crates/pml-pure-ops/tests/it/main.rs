//! Integration tests for `pml-pure-ops`: the registry and the forbidden names as seen through
//! the public API.

use pml_pure_ops::{forbidden, lookup, operations, ImpureCode};

#[test]
fn registry_round_trips_through_the_public_api() {
    for op in operations() {
        assert_eq!(lookup(op.tool), Some(op));
    }
}

#[test]
fn forbidden_names_say_why() {
    for (name, reason) in [
        ("fetch", "network i/o"),
        ("eval", "dynamic code evaluation"),
        ("setTimeout", "timers"),
        ("require", "module loading"),
        ("process", "process access"),
        ("Deno", "runtime access"),
        ("globalThis", "global object access"),
    ] {
        let pattern = forbidden(name).unwrap();
        let reach = ImpureCode { pattern, offset: 0 };
        assert_eq!(reach.reason(), reason);
    }
    for pure in ["filter", "JSON", "Math", "fetcher", "x"] {
        assert_eq!(forbidden(pure), None, "{pure}");
    }
    let dynamic = ImpureCode {
        pattern: "import()",
        offset: 3,
    };
    assert_eq!(
        dynamic.to_string(),
        "code reaches `import()` (module loading) at byte 3, so it is not pure"
    );
}
