//! `parameterize`: turn the literals inside code-template arguments into `${args.<name>}`.
//!
//! Every string (or interpolation-free template literal) in the program that looks like code
//! (see [`crate::template::looks_like_code`]) has its nested literals extracted with one shared
//! name allocator (`url`, `url2`...), and is rewritten as a template literal whose literals are
//! `${args.<name>}` placeholders. Text between placeholders is escaped for a template literal.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use swc_common::Spanned;
use swc_ecma_ast::{Lit, Tpl};
use swc_ecma_visit::{Visit, VisitWith};

use crate::model::Diagnostic;
use crate::parse::{self, Dialect, LineIndex};
use crate::template::{self, ParameterNames, TemplateLiteral};

/// The rewritten program and the parameters it now expects.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParameterizeReturn {
    pub code: String,
    pub parameters: IndexMap<String, Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

struct Finder<'a> {
    src: &'a str,
    base: u32,
    /// (start, end, cooked value) of code-looking strings, in source order.
    found: Vec<(usize, usize, String)>,
}

impl Finder<'_> {
    fn offsets(&self, span: swc_common::Span) -> (usize, usize) {
        let lo = (span.lo.0.saturating_sub(self.base) as usize).min(self.src.len());
        let hi = (span.hi.0.saturating_sub(self.base) as usize).clamp(lo, self.src.len());
        (lo, hi)
    }
}

impl Visit for Finder<'_> {
    fn visit_lit(&mut self, lit: &Lit) {
        if let Lit::Str(s) = lit {
            let value = s.value.to_string_lossy();
            if template::looks_like_code(&value) {
                let (lo, hi) = self.offsets(s.span);
                self.found.push((lo, hi, value.into_owned()));
            }
        }
    }

    fn visit_tpl(&mut self, tpl: &Tpl) {
        if tpl.exprs.is_empty() {
            if let Some(cooked) = tpl.quasis.first().and_then(|q| q.cooked.as_ref()) {
                let value = cooked.to_string_lossy();
                if template::looks_like_code(&value) {
                    let (lo, hi) = self.offsets(tpl.span());
                    self.found.push((lo, hi, value.into_owned()));
                    return;
                }
            }
        }
        tpl.visit_children_with(self);
    }
}

/// Escape text for the inside of a JS template literal.
fn escape_template(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '`' => out.push_str("\\`"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c => out.push(c),
        }
    }
    out
}

/// A template literal (with backticks) for `code` with `literals` replaced by placeholders.
fn placeholder_template(code: &str, literals: &[TemplateLiteral]) -> String {
    let mut out = String::from("`");
    let mut at = 0;
    for lit in literals {
        if lit.start < at || lit.end > code.len() {
            continue;
        }
        out.push_str(&escape_template(&code[at..lit.start]));
        let placeholder = format!("${{args.{}}}", lit.name);
        match (&lit.value, code[lit.start..].chars().next()) {
            (Value::String(_), Some(q @ ('\'' | '"' | '`'))) => {
                let q = if q == '`' {
                    "\\`".to_string()
                } else {
                    q.to_string()
                };
                out.push_str(&q);
                out.push_str(&placeholder);
                out.push_str(&q);
            }
            _ => out.push_str(&placeholder),
        }
        at = lit.end;
    }
    out.push_str(&escape_template(&code[at.min(code.len())..]));
    out.push('`');
    out
}

/// Parameterize the code templates of a program. Runs on a large dedicated stack, like
/// [`crate::build_structure`]: SWC's parser and the walk recurse per nesting level.
pub fn parameterize(code: &str, dialect: Dialect) -> ParameterizeReturn {
    if let Some((offset, message)) = crate::refuse(code, dialect) {
        let lines = LineIndex::new(code);
        return ParameterizeReturn {
            code: code.to_string(),
            parameters: IndexMap::new(),
            diagnostics: vec![crate::diagnostics::refused(code, &lines, offset, message)],
        };
    }
    crate::on_big_stack(|| parameterize_here(code, dialect)).unwrap_or_else(|| ParameterizeReturn {
        code: code.to_string(),
        parameters: IndexMap::new(),
        diagnostics: vec![crate::diagnostics::internal("parameterizing")],
    })
}

fn parameterize_here(code: &str, dialect: Dialect) -> ParameterizeReturn {
    let lines = LineIndex::new(code);
    let parsed = match parse::parse(code, dialect, &lines) {
        Ok(p) => p,
        Err(diagnostics) => {
            return ParameterizeReturn {
                code: code.to_string(),
                parameters: IndexMap::new(),
                diagnostics,
            }
        }
    };
    let mut finder = Finder {
        src: code,
        base: parsed.base,
        found: Vec::new(),
    };
    for stmt in &parsed.body {
        stmt.visit_with(&mut finder);
    }
    let mut names = ParameterNames::new();
    let mut parameters = IndexMap::new();
    let mut out = String::with_capacity(code.len());
    let mut at = 0;
    for (lo, hi, value) in finder.found {
        if lo < at {
            continue;
        }
        let literals = template::extract_template_literals(&value, &mut names);
        if literals.is_empty() {
            continue;
        }
        out.push_str(&code[at..lo]);
        out.push_str(&placeholder_template(&value, &literals));
        for lit in literals {
            parameters.insert(lit.name, lit.value);
        }
        at = hi;
    }
    out.push_str(&code[at..]);
    ParameterizeReturn {
        code: out,
        parameters,
        diagnostics: Vec::new(),
    }
}
