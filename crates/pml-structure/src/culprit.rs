//! What V8 names in the `TypeError`s a program's own code throws where the value at fault is
//! written in the program: `o.list.map is not a function`, `C is not a constructor`,
//! `data.files is not iterable`. QuickJS says only `not a function`; a program that fails
//! (or catches and reports the message) must say what it says running in Node.
//!
//! Asked only when such an error is thrown, with the place the engine reports for it: the
//! program is parsed again then (by SWC, as everywhere), never on a run that throws none.
//! The expression is printed the way V8's `CallPrinter` prints it: names, `this`, property
//! reads (`o["a"]` as `o.a`, `o[k]`, `o[0]`, `o?.a`), calls as `f(...)`, literals, binary and
//! comma expressions in parentheses, anything else `(intermediate value)`.

use swc_common::Spanned;
use swc_ecma_ast::{
    ArrayLit, CallExpr, Callee, Expr, ExprOrSpread, ForOfStmt, Lit, MemberExpr, MemberProp,
    NewExpr, OptCall, OptChainBase, OptChainExpr, SuperProp, TaggedTpl,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::parse::{parse, Dialect, LineIndex};

/// Which error the engine threw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Culprit {
    /// `not a function`: a call (or a `new`: QuickJS says so for some) whose callee is at
    /// fault.
    Callee,
    /// `not a constructor`: a `new` whose callee is at fault.
    Constructor,
    /// An iteration (`for ... of`, a spread) over a value that is not iterable; `nullish` when
    /// the value is `undefined` or `null` (V8 words those otherwise in a call's spread).
    Iterable { nullish: bool },
}

/// V8's message for the error `culprit` thrown at byte `offset` of `code` (a program's
/// JavaScript, as [`crate::build_structure`] takes it), or `None` when no expression there
/// fits (the engine's own message stays).
///
/// The engine reports the last place it noted before the fault: in a call's callee when its
/// arguments note none, else in its arguments. `probed`: the place was in the text of a probe
/// of the instrumented program, which had ended (what it wraps was evaluated): the call at
/// fault is one around it, starting before it.
pub fn culprit_message(
    code: &str,
    offset: usize,
    culprit: Culprit,
    probed: bool,
) -> Option<String> {
    let lines = LineIndex::new(code);
    let parsed = parse(code, Dialect::JavaScript, &lines).ok()?;
    let at = parsed.base + offset as u32;
    let mut finder = Finder {
        at,
        culprit,
        probed,
        best: None,
        calls: 0,
        call: None,
    };
    for stmt in &parsed.body {
        stmt.visit_with(&mut finder);
    }
    let found = match culprit {
        Culprit::Callee | Culprit::Constructor if finder.calls == 1 => finder.call?,
        Culprit::Callee | Culprit::Constructor => return None,
        Culprit::Iterable { .. } => finder.best?.1,
    };
    Some(match &found {
        Found::Call(callee) => format!("{} is not a function", print(callee)),
        Found::New(callee) => format!("{} is not a constructor", print(callee)),
        Found::ForOf(Expr::Call(call)) => match &call.callee {
            Callee::Expr(callee) => format!(
                "{} is not a function or its return value is not iterable",
                print(callee)
            ),
            _ => return None,
        },
        Found::ForOf(e) | Found::ArraySpread(e) => format!("{} is not iterable", print(e)),
        Found::CallSpread(e) => match culprit {
            Culprit::Iterable { nullish: true } => {
                let value = match e {
                    Expr::Lit(Lit::Null(_)) => "null",
                    _ => "undefined",
                };
                format!(
                    "{} is not iterable (cannot read property {value})",
                    print(e)
                )
            }
            _ => "Spread syntax requires ...iterable[Symbol.iterator] to be a function".to_owned(),
        },
    })
}

enum Found {
    Call(Expr),
    New(Expr),
    ForOf(Expr),
    ArraySpread(Expr),
    CallSpread(Expr),
}

/// What holds the reported place: the innermost iterable, or the calls and `new`s.
struct Finder {
    at: u32,
    culprit: Culprit,
    probed: bool,
    /// (width of the expression, what it is).
    best: Option<(u32, Found)>,
    /// Calls and `new`s holding the place, and the one of them found.
    calls: usize,
    call: Option<Found>,
}

impl Finder {
    /// `e` found (`make` of a copy of it) if it holds the place and is the innermost so far.
    fn consider(&mut self, e: &Expr, make: fn(Expr) -> Found) {
        let span = e.span();
        if span.lo.0 > self.at || self.at >= span.hi.0.max(span.lo.0 + 1) {
            return;
        }
        let width = span.hi.0 - span.lo.0;
        if self.best.as_ref().is_none_or(|(w, _)| width <= *w) {
            self.best = Some((width, make(e.clone())));
        }
    }

    /// A call or `new` at fault: one holding the place (after a probe, past its start). The
    /// engine's place is the last it noted, in the callee or in the arguments: with calls
    /// inside calls there (`a(b.c())`, `xs.filter(f).map(g)`), which of them failed is not
    /// known, and nothing is said.
    fn callee(&mut self, whole: swc_common::Span, callee: &Expr, make: fn(Expr) -> Found) {
        let starts = match self.probed {
            true => whole.lo.0 < self.at,
            false => whole.lo.0 <= self.at,
        };
        if starts && self.at < whole.hi.0 {
            self.calls += 1;
            self.call = Some(make(callee.clone()));
        }
    }

    fn spreads(&mut self, args: &[ExprOrSpread], make: fn(Expr) -> Found) {
        if let Culprit::Iterable { .. } = self.culprit {
            for arg in args.iter().filter(|a| a.spread.is_some()) {
                self.consider(&arg.expr, make);
            }
        }
    }
}

impl Finder {
    /// Entering a function that holds the place: the engine noted it in that function's own
    /// frame, so the calls around the function are not the ones at fault.
    fn enter(&mut self, span: swc_common::Span) {
        if span.lo.0 < self.at && self.at < span.hi.0 {
            self.calls = 0;
            self.call = None;
        }
    }
}

impl Visit for Finder {
    fn visit_arrow_expr(&mut self, arrow: &swc_ecma_ast::ArrowExpr) {
        self.enter(arrow.span);
        arrow.visit_children_with(self);
    }

    fn visit_function(&mut self, function: &swc_ecma_ast::Function) {
        self.enter(function.span);
        function.visit_children_with(self);
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        if let (Culprit::Callee, Callee::Expr(callee)) = (self.culprit, &call.callee) {
            self.callee(call.span, callee, Found::Call);
        }
        self.spreads(&call.args, Found::CallSpread);
        call.visit_children_with(self);
    }

    fn visit_opt_call(&mut self, call: &OptCall) {
        if let Culprit::Callee = self.culprit {
            self.callee(call.span, &call.callee, Found::Call);
        }
        self.spreads(&call.args, Found::CallSpread);
        call.visit_children_with(self);
    }

    fn visit_tagged_tpl(&mut self, tagged: &TaggedTpl) {
        if let Culprit::Callee = self.culprit {
            self.callee(tagged.span, &tagged.tag, Found::Call);
        }
        tagged.visit_children_with(self);
    }

    fn visit_new_expr(&mut self, new: &NewExpr) {
        if let Culprit::Callee | Culprit::Constructor = self.culprit {
            self.callee(new.span, &new.callee, Found::New);
        }
        self.spreads(new.args.as_deref().unwrap_or_default(), Found::CallSpread);
        new.visit_children_with(self);
    }

    fn visit_for_of_stmt(&mut self, stmt: &ForOfStmt) {
        if let (Culprit::Iterable { .. }, false) = (self.culprit, stmt.is_await) {
            self.consider(&stmt.right, Found::ForOf);
        }
        stmt.visit_children_with(self);
    }

    fn visit_array_lit(&mut self, array: &ArrayLit) {
        if let Culprit::Iterable { .. } = self.culprit {
            for element in array.elems.iter().flatten() {
                if element.spread.is_some() {
                    self.consider(&element.expr, Found::ArraySpread);
                }
            }
        }
        array.visit_children_with(self);
    }
}

/// `e` as V8's `CallPrinter` prints it.
fn print(e: &Expr) -> String {
    let mut out = String::new();
    write(e, &mut out);
    out
}

const INTERMEDIATE: &str = "(intermediate value)";

fn write(e: &Expr, out: &mut String) {
    match e {
        Expr::Ident(i) => out.push_str(&i.sym),
        Expr::This(_) => out.push_str("this"),
        Expr::Paren(p) => write(&p.expr, out),
        Expr::Member(m) => member(m, false, out),
        Expr::SuperProp(s) => {
            out.push_str("super");
            match &s.prop {
                SuperProp::Ident(i) => {
                    out.push('.');
                    out.push_str(&i.sym);
                }
                SuperProp::Computed(c) => key(&c.expr, false, out),
            }
        }
        Expr::Call(c) => match &c.callee {
            Callee::Expr(callee) => {
                write(callee, out);
                out.push_str("(...)");
            }
            _ => out.push_str(INTERMEDIATE),
        },
        Expr::OptChain(chain) => opt_chain(chain, out),
        Expr::Lit(lit) => literal(lit, out),
        Expr::Array(array) => {
            out.push('[');
            for (i, element) in array.elems.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(element) = element {
                    if element.spread.is_some() {
                        out.push_str("...");
                    }
                    write(&element.expr, out);
                }
            }
            out.push(']');
        }
        Expr::Bin(b) => {
            out.push('(');
            write(&b.left, out);
            out.push(' ');
            out.push_str(b.op.as_str());
            out.push(' ');
            write(&b.right, out);
            out.push(')');
        }
        Expr::Seq(seq) => {
            out.push('(');
            for (i, e) in seq.exprs.iter().enumerate() {
                if i > 0 {
                    out.push_str(" , ");
                }
                write(e, out);
            }
            out.push(')');
        }
        _ => out.push_str(INTERMEDIATE),
    }
}

fn member(m: &MemberExpr, optional: bool, out: &mut String) {
    write(&m.obj, out);
    match &m.prop {
        MemberProp::Ident(i) => {
            out.push_str(if optional { "?." } else { "." });
            out.push_str(&i.sym);
        }
        MemberProp::PrivateName(p) => {
            out.push_str(if optional { "?.#" } else { ".#" });
            out.push_str(&p.name);
        }
        MemberProp::Computed(c) => key(&c.expr, optional, out),
    }
}

/// A computed key: a string as a name (`o["a"]` is `o.a`), anything else in brackets.
fn key(k: &Expr, optional: bool, out: &mut String) {
    let text = match k {
        Expr::Lit(Lit::Str(s)) => Some(s.value.to_string_lossy().into_owned()),
        Expr::Tpl(t) if t.exprs.is_empty() && t.quasis.len() == 1 => t.quasis[0]
            .cooked
            .as_ref()
            .map(|c| c.to_string_lossy().into_owned()),
        _ => None,
    };
    match text {
        Some(name) => {
            out.push_str(if optional { "?." } else { "." });
            out.push_str(&name);
        }
        None => {
            out.push_str(if optional { "?.[" } else { "[" });
            write(k, out);
            out.push(']');
        }
    }
}

fn opt_chain(chain: &OptChainExpr, out: &mut String) {
    match &*chain.base {
        OptChainBase::Member(m) => member(m, chain.optional, out),
        OptChainBase::Call(c) => {
            write(&c.callee, out);
            out.push_str(if chain.optional { "?.(...)" } else { "(...)" });
        }
    }
}

fn literal(lit: &Lit, out: &mut String) {
    match lit {
        Lit::Str(s) => {
            out.push('"');
            out.push_str(&s.value.to_string_lossy());
            out.push('"');
        }
        Lit::Num(n) => out.push_str(&crate::fold::number_to_string(n.value)),
        Lit::Bool(b) => out.push_str(if b.value { "true" } else { "false" }),
        Lit::Null(_) => out.push_str("null"),
        _ => out.push_str(INTERMEDIATE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(code: &str, marker: &str, culprit: Culprit) -> Option<String> {
        culprit_message(code, code.find(marker).unwrap(), culprit, false)
    }

    #[test]
    fn callees_print_as_v8_prints_them() {
        let callee = Culprit::Callee;
        let cases = [
            (
                "o.list.map((v) => v);",
                "map",
                "o.list.map is not a function",
            ),
            ("o[\"list\"]();", "o[", "o.list is not a function"),
            ("o[k]();", "o[", "o[k] is not a function"),
            ("o.items[0]();", "items", "o.items[0] is not a function"),
            (
                "o.f().toFixed2();",
                "toFixed2",
                "o.f(...).toFixed2 is not a function",
            ),
            ("x(1, 2);", "x(", "x is not a function"),
            ("o?.list?.map();", "map", "o?.list?.map is not a function"),
            (
                "(await load()).x.y();",
                "y(",
                "(intermediate value).x.y is not a function",
            ),
            ("[1, 2].foo();", "foo", "[1,2].foo is not a function"),
            ("\"str\".foo();", "foo", "\"str\".foo is not a function"),
            (
                "(o.nope || b).c();",
                "c(",
                "(o.nope || b).c is not a function",
            ),
            ("(0, o.a)();", "o.a", "(0 , o.a) is not a function"),
            (
                "JSON.parse(s).items.forEach((x) => x);",
                "forEach",
                "JSON.parse(...).items.forEach is not a function",
            ),
            ("t.fmt`x`;", "fmt", "t.fmt is not a function"),
            ("new o.list();", "o.list", "o.list is not a constructor"),
            (
                "new o.items[0]();",
                "items",
                "o.items[0] is not a constructor",
            ),
            ("this.nope();", "nope", "this.nope is not a function"),
        ];
        for (code, marker, expected) in cases {
            assert_eq!(
                at(code, marker, callee).as_deref(),
                Some(expected),
                "{code}"
            );
        }
        assert_eq!(at("const a = 1 + 2;", "1", callee), None);
        // Which of two calls holding the place failed is not known.
        assert_eq!(at("a(b.c());", "c(", callee), None);
        assert_eq!(
            at("xs.filter((n) => n > 2).map((n) => n);", "n > 2", callee),
            None
        );
        let constructor = Culprit::Constructor;
        assert_eq!(
            at("new (o.f())();", "o.f", constructor).as_deref(),
            Some("o.f(...) is not a constructor")
        );
        assert_eq!(at("o.f();", "o", constructor), None);
        // The calls around the function the place is in are another frame's.
        let code = "attempt(() => report.sections.map((s) => s.rows.length));";
        assert_eq!(
            at(code, "map", callee).as_deref(),
            Some("report.sections.map is not a function")
        );
        // After a probe around an argument (`o.list.map(P.b(k, (v) => v))`): the call around.
        let code = "o.list.map(items.filter((x) => x));";
        let probed = |marker: &str| culprit_message(code, code.find(marker).unwrap(), callee, true);
        assert_eq!(probed("(x)"), None);
        assert_eq!(
            probed("items").as_deref(),
            Some("o.list.map is not a function")
        );
    }

    #[test]
    fn iterables_print_as_v8_prints_them() {
        let undefined = Culprit::Iterable { nullish: true };
        let number = Culprit::Iterable { nullish: false };
        let cases = [
            (
                "for (const f of data.files) {}",
                "data",
                undefined,
                "data.files is not iterable",
            ),
            (
                "for (const f of o.f()) {}",
                "o.f",
                number,
                "o.f is not a function or its return value is not iterable",
            ),
            (
                "const all = [...u, 1];",
                "u,",
                undefined,
                "u is not iterable",
            ),
            (
                "Math.max(...o.nope);",
                "o.nope",
                undefined,
                "o.nope is not iterable (cannot read property undefined)",
            ),
            (
                "Math.max(...5);",
                "5",
                number,
                "Spread syntax requires ...iterable[Symbol.iterator] to be a function",
            ),
        ];
        for (code, marker, culprit, expected) in cases {
            assert_eq!(
                at(code, marker, culprit).as_deref(),
                Some(expected),
                "{code}"
            );
        }
    }
}
