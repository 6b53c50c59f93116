//! The compact JSON of a [`StaticStructure`], written straight into a byte buffer.
//!
//! Byte for byte what `serde_json::to_vec` writes from the `Serialize` derives of `model.rs`
//! (the contract of `docs/formats.md`), in about a third of the instructions: field names and
//! punctuation go out as whole literals, and strings are scanned for characters to escape eight
//! bytes at a time. `pml analyze` prints this; pretty output and every other reader of the
//! structure go through serde.
//!
//! Every struct is taken apart field by field without `..`, so a field added to the model does
//! not compile here until it is written; the tests check the bytes against serde_json's on every
//! fixture and on a structure with every field and variant set.

use indexmap::IndexMap;
use serde_json::Value;

use crate::model::{
    ArgumentValue, Arguments, Coverage, Diagnostic, Edge, EdgeKind, Key, LoopKind, Node, NodeKind,
    Scope, Severity, Span, StaticStructure,
};

impl StaticStructure {
    /// The structure as compact JSON: what `serde_json::to_vec(self)` gives, faster.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256 * self.nodes.len() + 1024);
        self.write_json(&mut out);
        out
    }

    /// [`StaticStructure::to_json`], written to `w` as it is made (in pieces of about 64 KiB:
    /// the whole text is never held at once).
    pub fn write_json_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        const PIECE: usize = 64 * 1024;
        let mut out = Vec::with_capacity(PIECE + 4096);
        let mut failed = None;
        self.write_pieces(&mut out, &mut |out| {
            if out.len() >= PIECE && failed.is_none() {
                failed = w.write_all(out).err();
                out.clear();
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        w.write_all(&out)
    }

    /// [`StaticStructure::to_json`], appended to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        self.write_pieces(out, &mut |_| {});
    }

    /// Writes into `out`, calling `piece` after each node and edge (to take what is written).
    fn write_pieces(&self, out: &mut Vec<u8>, piece: &mut dyn FnMut(&mut Vec<u8>)) {
        let StaticStructure {
            nodes,
            edges,
            variable_bindings,
            literal_bindings,
            hil_required_tools,
            result,
            result_span: _,
            diagnostics,
            declared: _,
            changed: _,
            effects: _,
        } = self;
        out.extend_from_slice(b"{\"nodes\":");
        list(out, nodes, |out, n| {
            node(out, n);
            piece(out);
        });
        out.extend_from_slice(b",\"edges\":");
        list(out, edges, |out, e| {
            edge(out, e);
            piece(out);
        });
        out.extend_from_slice(b",\"variableBindings\":");
        map(out, variable_bindings, |out, v| string(out, v));
        out.extend_from_slice(b",\"literalBindings\":");
        map(out, literal_bindings, value);
        out.extend_from_slice(b",\"hilRequiredTools\":");
        list(out, hil_required_tools, |out, t| string(out, t));
        if let Some(r) = result {
            out.extend_from_slice(b",\"result\":");
            argument(out, r);
        }
        out.extend_from_slice(b",\"diagnostics\":");
        list(out, diagnostics, diagnostic);
        out.push(b'}');
    }
}

fn node(out: &mut Vec<u8>, n: &Node) {
    let Node {
        id,
        kind,
        tool,
        code,
        arguments,
        condition,
        reads,
        outcomes,
        capability_id,
        loop_kind,
        name,
        function,
        impure,
        scope,
        span,
        // Not part of the JSON (as `#[serde(skip)]` says).
        condition_leaves: _,
        guarded: _,
        leaves: _,
        throw_exits: _,
        params: _,
        changed: _,
        escapes_from: _,
        canonical: _,
    } = n;
    out.extend_from_slice(b"{\"id\":");
    string(out, id);
    out.extend_from_slice(b",\"type\":\"");
    out.extend_from_slice(node_kind(*kind).as_bytes());
    out.push(b'"');
    optional_string(out, b",\"tool\":", tool);
    optional_string(out, b",\"code\":", code);
    if let Some(arguments) = arguments {
        out.extend_from_slice(b",\"arguments\":");
        keyed(out, arguments);
    }
    optional_string(out, b",\"condition\":", condition);
    if !reads.is_empty() {
        out.extend_from_slice(b",\"reads\":");
        list(out, reads, |out, r| string(out, r));
    }
    if !outcomes.is_empty() {
        out.extend_from_slice(b",\"outcomes\":");
        list(out, outcomes, |out, o| string(out, o));
    }
    optional_string(out, b",\"capabilityId\":", capability_id);
    if let Some(kind) = loop_kind {
        out.extend_from_slice(b",\"loopKind\":\"");
        out.extend_from_slice(loop_kind_name(*kind).as_bytes());
        out.push(b'"');
    }
    optional_string(out, b",\"name\":", name);
    optional_string(out, b",\"function\":", function);
    optional_string(out, b",\"impure\":", impure);
    if let Some(scope) = scope {
        out.extend_from_slice(b",\"scope\":");
        scope_json(out, scope);
    }
    out.extend_from_slice(b",\"span\":");
    span_json(out, span);
    out.push(b'}');
}

fn edge(out: &mut Vec<u8>, e: &Edge) {
    let Edge {
        from,
        to,
        kind,
        outcome,
        coverage,
    } = e;
    out.extend_from_slice(b"{\"from\":");
    string(out, from);
    out.extend_from_slice(b",\"to\":");
    string(out, to);
    out.extend_from_slice(match kind {
        EdgeKind::Sequence => b",\"type\":\"sequence\"",
        EdgeKind::Conditional => b",\"type\":\"conditional\"",
        EdgeKind::Provides => b",\"type\":\"provides\"",
    });
    optional_string(out, b",\"outcome\":", outcome);
    if let Some(c) = coverage {
        out.extend_from_slice(match c {
            Coverage::Strict => b",\"coverage\":\"strict\"",
            Coverage::Partial => b",\"coverage\":\"partial\"",
            Coverage::Optional => b",\"coverage\":\"optional\"",
        });
    }
    out.push(b'}');
}

fn scope_json(out: &mut Vec<u8>, s: &Scope) {
    match s {
        Scope::Decision { id, outcome } => {
            out.extend_from_slice(b"{\"type\":\"decision\",\"id\":");
            string(out, id);
            out.extend_from_slice(b",\"outcome\":");
            string(out, outcome);
        }
        Scope::Fork { id } => {
            out.extend_from_slice(b"{\"type\":\"fork\",\"id\":");
            string(out, id);
        }
        Scope::Loop { id } => {
            out.extend_from_slice(b"{\"type\":\"loop\",\"id\":");
            string(out, id);
        }
        Scope::Function { id } => {
            out.extend_from_slice(b"{\"type\":\"function\",\"id\":");
            string(out, id);
        }
    }
    out.push(b'}');
}

fn span_json(out: &mut Vec<u8>, s: &Span) {
    let Span {
        start,
        end,
        line,
        column,
    } = s;
    out.extend_from_slice(b"{\"start\":");
    number(out, *start);
    out.extend_from_slice(b",\"end\":");
    number(out, *end);
    out.extend_from_slice(b",\"line\":");
    number(out, *line);
    out.extend_from_slice(b",\"column\":");
    number(out, *column);
    out.push(b'}');
}

fn argument(out: &mut Vec<u8>, a: &ArgumentValue) {
    match a {
        ArgumentValue::Literal {
            value: v,
            template_parameters,
        } => {
            out.extend_from_slice(b"{\"type\":\"literal\",\"value\":");
            value(out, v);
            if let Some(parameters) = template_parameters {
                out.extend_from_slice(b",\"templateParameters\":");
                map(out, parameters, value);
            }
        }
        ArgumentValue::Reference {
            expression, reads, ..
        } => {
            out.extend_from_slice(b"{\"type\":\"reference\",\"expression\":");
            string(out, expression);
            if !reads.is_empty() {
                out.extend_from_slice(b",\"reads\":");
                list(out, reads, |out, r| string(out, r));
            }
        }
        ArgumentValue::Parameter { parameter_name } => {
            out.extend_from_slice(b"{\"type\":\"parameter\",\"parameterName\":");
            string(out, parameter_name);
        }
        ArgumentValue::Object { properties } => {
            out.extend_from_slice(b"{\"type\":\"object\",\"properties\":");
            keyed(out, properties);
        }
        ArgumentValue::Array { items } => {
            out.extend_from_slice(b"{\"type\":\"array\",\"items\":");
            list(out, items, argument);
        }
    }
    out.push(b'}');
}

fn diagnostic(out: &mut Vec<u8>, d: &Diagnostic) {
    let Diagnostic {
        severity,
        code,
        message,
        task,
        line,
        column,
        span,
        labels,
    } = d;
    out.extend_from_slice(match severity {
        Severity::Error => b"{\"severity\":\"error\",\"code\":",
        Severity::Warning => b"{\"severity\":\"warning\",\"code\":",
    });
    string(out, code);
    out.extend_from_slice(b",\"message\":");
    string(out, message);
    if let Some(task) = task {
        out.extend_from_slice(b",\"task\":");
        string(out, task);
    }
    if let Some(line) = line {
        out.extend_from_slice(b",\"line\":");
        number(out, *line);
    }
    if let Some(column) = column {
        out.extend_from_slice(b",\"column\":");
        number(out, *column);
    }
    if let Some(span) = span {
        out.extend_from_slice(b",\"span\":");
        span_json(out, span);
    }
    if !labels.is_empty() {
        out.extend_from_slice(b",\"labels\":");
        list(out, labels, |out, label| {
            out.extend_from_slice(b"{\"span\":");
            span_json(out, &label.span);
            out.extend_from_slice(b",\"message\":");
            string(out, &label.message);
            out.push(b'}');
        });
    }
    out.push(b'}');
}

fn node_kind(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Task => "task",
        NodeKind::Decision => "decision",
        NodeKind::Capability => "capability",
        NodeKind::Fork => "fork",
        NodeKind::Join => "join",
        NodeKind::Loop => "loop",
        NodeKind::Function => "function",
        NodeKind::Call => "call",
    }
}

fn loop_kind_name(k: LoopKind) -> &'static str {
    match k {
        LoopKind::ForOf => "forOf",
        LoopKind::ForIn => "forIn",
        LoopKind::For => "for",
        LoopKind::While => "while",
        LoopKind::DoWhile => "doWhile",
        LoopKind::ForEach => "forEach",
        LoopKind::Callback => "callback",
    }
}

/// A JSON value: strings, arrays and objects here, numbers as serde_json writes them.
fn value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            // Writing to a `Vec` cannot fail.
            let _ = serde_json::to_writer(&mut *out, n);
        }
        Value::String(s) => string(out, s),
        Value::Array(items) => list(out, items, value),
        Value::Object(fields) => {
            out.push(b'{');
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(out, k);
                out.push(b':');
                value(out, v);
            }
            out.push(b'}');
        }
    }
}

fn list<T>(out: &mut Vec<u8>, items: &[T], mut item: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(out, x);
    }
    out.push(b']');
}

fn map<T>(out: &mut Vec<u8>, m: &IndexMap<String, T>, mut item: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.push(b':');
        item(out, v);
    }
    out.push(b'}');
}

/// Arguments as `Arguments`' serde writes them (see `Key`).
fn keyed(out: &mut Vec<u8>, m: &Arguments) {
    out.push(b'{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, &k.json_text());
        out.push(b':');
        match k {
            Key::Computed(c) => {
                out.extend_from_slice(b"{\"key\":");
                argument(out, &c.reference());
                out.extend_from_slice(b",\"value\":");
                argument(out, v);
                out.push(b'}');
            }
            _ => argument(out, v),
        }
    }
    out.push(b'}');
}

fn optional_string(out: &mut Vec<u8>, key: &[u8], s: &Option<String>) {
    if let Some(s) = s {
        out.extend_from_slice(key);
        string(out, s);
    }
}

/// `n` in decimal, two digits at a time.
fn number(out: &mut Vec<u8>, n: usize) {
    const PAIRS: [u8; 200] = {
        let mut pairs = [0u8; 200];
        let mut i = 0;
        while i < 100 {
            pairs[2 * i] = b'0' + (i / 10) as u8;
            pairs[2 * i + 1] = b'0' + (i % 10) as u8;
            i += 1;
        }
        pairs
    };
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n as u64;
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        digits[at] = b'0' + n as u8;
    }
    out.extend_from_slice(&digits[at..]);
}

/// A JSON string, escaped as serde_json escapes: `"`, `\` and control characters; the short
/// forms `\b \t \n \f \r`, else `\u00xx` (lower-case hex); everything else as it is.
fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    // Eight bytes at a time while none of them needs escaping.
    while i + 8 <= bytes.len() {
        let chunk = u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
        if !needs_escape(chunk) {
            i += 8;
            continue;
        }
        for j in i..i + 8 {
            if let Some(escape) = escape(bytes[j]) {
                out.extend_from_slice(&bytes[start..j]);
                out.extend_from_slice(escape.as_bytes());
                start = j + 1;
            }
        }
        i += 8;
    }
    // The last few bytes, padded with spaces (which need no escape) to eight.
    let mut tail = [b' '; 8];
    tail[..bytes.len() - i].copy_from_slice(&bytes[i..]);
    if needs_escape(u64::from_le_bytes(tail)) {
        for j in i..bytes.len() {
            if let Some(escape) = escape(bytes[j]) {
                out.extend_from_slice(&bytes[start..j]);
                out.extend_from_slice(escape.as_bytes());
                start = j + 1;
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Does any of the eight bytes need escaping (below 0x20, `"` or `\`)?
fn needs_escape(chunk: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = chunk.wrapping_sub(ONES * 0x20) & !chunk & HIGH;
    let quote = has_zero(chunk ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(chunk ^ (ONES * u64::from(b'\\')));
    (below_space | quote | backslash) != 0
}

/// The escape of one byte, if it needs one.
fn escape(b: u8) -> Option<&'static str> {
    const CONTROL: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match b {
        b'"' => Some("\\\""),
        b'\\' => Some("\\\\"),
        0..=0x1f => Some(CONTROL[usize::from(b)]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use indexmap::IndexMap;
    use serde_json::json;

    use super::*;

    /// Written as serde writes it, and read back as it was.
    fn same_as_serde(s: &StaticStructure) {
        let expected = serde_json::to_vec(s).unwrap();
        let got = s.to_json();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expected)
        );
        let back = StaticStructure::from_json(serde_json::from_slice(&got).unwrap()).unwrap();
        // As it was, but the results among the texts' leaves (known from an analysis only).
        let mut s = s.clone();
        s.each_text_leaves(|_, leaves| *leaves = leaves.elements());
        assert_eq!(back.nodes, s.nodes);
        assert_eq!(back.result, s.result);
        assert_eq!(back.diagnostics, s.diagnostics);
    }

    fn span() -> Span {
        Span {
            start: 0,
            end: 18446744073,
            line: 10,
            column: 9,
        }
    }

    /// Every field, variant and escape, against serde_json's bytes.
    #[test]
    fn every_field_and_variant_as_serde_writes_it() {
        let tricky = "a\"b\\c\u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f} é 名前 \u{1F600} long enough \" to chunk\\";
        let reference = ArgumentValue::reference_reading(tricky, vec!["n1".into(), tricky.into()]);
        let mut parameters = IndexMap::new();
        parameters.insert(
            "p\n".to_string(),
            json!({"k": [1, -2, 3.5, 1e300, null, true, false, "s\u{1}"]}),
        );
        let literal = ArgumentValue::Literal {
            value: json!({"z": 1, "a": {"nested": [0.1, u64::MAX, i64::MIN]}, "": ""}),
            template_parameters: Some(parameters),
        };
        let mut properties = Arguments::new();
        properties.insert("ref".into(), reference.clone());
        properties.insert("lit".into(), literal.clone());
        properties.insert(
            "param".into(),
            ArgumentValue::Parameter {
                parameter_name: "a.b".into(),
            },
        );
        properties.insert(
            "arr".into(),
            ArgumentValue::Array {
                items: vec![
                    ArgumentValue::reference("n2.x"),
                    ArgumentValue::Array { items: vec![] },
                ],
            },
        );
        properties.insert(
            "empty".into(),
            ArgumentValue::Object {
                properties: Arguments::new(),
            },
        );
        // Keys of every kind, and static ones written escaped.
        properties.insert(Key::Spread(5), reference.clone());
        let computed = Key::Computed(Box::new(crate::model::ComputedKey {
            at: 6,
            expression: "n1.id".into(),
            reads: vec!["n1".into()],
            canonical: None,
            leaves: Default::default(),
        }));
        properties.insert(computed, literal.clone());
        for escaped in ["...x", "[y]", "\\z", "..", "a[b]"] {
            properties.insert(escaped.into(), ArgumentValue::literal(json!(escaped)));
        }
        let object = ArgumentValue::Object { properties };
        let mut arguments = Arguments::new();
        arguments.insert(tricky.into(), object.clone());
        arguments.insert("plain".into(), ArgumentValue::literal(json!("x")));
        let kinds = [
            NodeKind::Task,
            NodeKind::Decision,
            NodeKind::Capability,
            NodeKind::Fork,
            NodeKind::Join,
            NodeKind::Loop,
            NodeKind::Function,
            NodeKind::Call,
        ];
        let loops = [
            LoopKind::ForOf,
            LoopKind::ForIn,
            LoopKind::For,
            LoopKind::While,
            LoopKind::DoWhile,
            LoopKind::ForEach,
            LoopKind::Callback,
        ];
        let scopes = [
            Scope::Decision {
                id: "d1".into(),
                outcome: "case:\"x\"".into(),
            },
            Scope::Fork { id: "f1".into() },
            Scope::Loop { id: "l1".into() },
            Scope::Function { id: "fn1".into() },
        ];
        let mut nodes = Vec::new();
        for (i, kind) in kinds.iter().enumerate() {
            let mut full = Node::new(format!("x{i}"), *kind, span());
            full.tool = Some("server:tool".into());
            full.code = Some(tricky.into());
            full.arguments = Some(arguments.clone());
            full.condition = Some(tricky.into());
            full.reads = vec!["n1".into(), "args".into()];
            full.outcomes = vec!["case:1".into(), "default".into()];
            full.capability_id = Some("cap".into());
            full.loop_kind = Some(loops[i % loops.len()]);
            full.name = Some("load".into());
            full.function = Some("fn1".into());
            full.impure = Some("fetch (network i/o)".into());
            full.scope = Some(scopes[i % scopes.len()].clone());
            nodes.push(full);
            nodes.push(Node::new(format!("bare{i}"), *kind, Span::default()));
        }
        let mut edges = Vec::new();
        for kind in [
            EdgeKind::Sequence,
            EdgeKind::Conditional,
            EdgeKind::Provides,
        ] {
            edges.push(Edge {
                from: "n1".into(),
                to: "n2".into(),
                kind,
                outcome: None,
                coverage: None,
            });
        }
        for coverage in [Coverage::Strict, Coverage::Partial, Coverage::Optional] {
            edges.push(Edge {
                from: "n1".into(),
                to: "n2".into(),
                kind: EdgeKind::Provides,
                outcome: Some("true".into()),
                coverage: Some(coverage),
            });
        }
        let mut variable_bindings = IndexMap::new();
        variable_bindings.insert("file".to_string(), "n1".to_string());
        variable_bindings.insert(tricky.to_string(), tricky.to_string());
        let mut literal_bindings = IndexMap::new();
        literal_bindings.insert("k".to_string(), json!([1, "two", {"three": 3.0}]));
        let diagnostics = vec![
            Diagnostic::at(Severity::Error, "syntax-error", tricky.into(), (1, 2)),
            Diagnostic::at(Severity::Warning, "w", String::new(), (3, 4)),
            Diagnostic {
                task: Some(tricky.into()),
                line: None,
                column: None,
                ..Diagnostic::at(Severity::Error, "internal-error", "x".into(), (1, 1))
            },
            Diagnostic::spanning(Severity::Warning, "recursion", tricky.into(), span())
                .with_label(span(), tricky.into())
                .with_label(Span::default(), String::new()),
        ];
        for result in [None, Some(literal), Some(reference), Some(object)] {
            same_as_serde(&StaticStructure {
                nodes: nodes.clone(),
                edges: edges.clone(),
                variable_bindings: variable_bindings.clone(),
                literal_bindings: literal_bindings.clone(),
                hil_required_tools: vec!["fs:write".into(), tricky.into()],
                result,
                result_span: None,
                diagnostics: diagnostics.clone(),
                declared: ["rows".to_owned()].into_iter().collect(),
                changed: ["rows".to_owned()].into_iter().collect(),
                effects: Vec::new(),
            });
        }
        same_as_serde(&StaticStructure::default());
    }

    #[test]
    fn numbers_as_serde_writes_them() {
        let mut samples: Vec<usize> = (0..1000).collect();
        let mut p = 1usize;
        while let Some(next) = p.checked_mul(10) {
            samples.extend([p - 1, p, p + 1, next - 1]);
            p = next;
        }
        samples.push(usize::MAX);
        for n in samples {
            let mut got = Vec::new();
            number(&mut got, n);
            assert_eq!(got, serde_json::to_vec(&n).unwrap(), "{n}");
        }
    }

    /// Every ASCII byte, at every place of strings of every length up to 20 (in an eight-byte
    /// chunk and in the tail); and the empty string.
    #[test]
    fn strings_escape_as_serde_escapes_them() {
        let mut got = Vec::new();
        string(&mut got, "");
        assert_eq!(got, b"\"\"");
        for len in 1..=20 {
            for b in 0u8..0x80 {
                for at in 0..len {
                    let mut s = "abcdefghijklmnopqrst".as_bytes()[..len].to_vec();
                    s[at] = b;
                    let s = String::from_utf8(s).unwrap();
                    let mut got = Vec::new();
                    string(&mut got, &s);
                    assert_eq!(
                        got,
                        serde_json::to_vec(&s).unwrap(),
                        "{b:#x} at {at} of {len}"
                    );
                }
            }
        }
    }
}
