//! What a program reads of `args`, its parameters: the names, and for each what its uses say
//! of it (for the schema `pml parameterize` and `pml save` give a capability).
//!
//! A name's type comes from how the program uses it: compared with `true` (a boolean), with a
//! number or in arithmetic (a number), a string method called on it (a string), an array
//! method, iterated by `for...of` or its `length` read (an array), another member read (an
//! object). Uses that say different things say nothing. A name is required when the program
//! reads it and never asks whether it is there: `args?.x`, `args.x?.y`, `args.x ?? d`,
//! `args.x || d`, `if (args.x)`, `args.x === undefined`, `typeof args.x`, `"x" in args` and a
//! destructuring default (`const { x = 1 } = args`) make it optional.

use indexmap::IndexMap;
use serde_json::{json, Value};
use swc_ecma_ast::{
    BinaryOp, Callee, Expr, ForOfStmt, IfStmt, Lit, MemberExpr, MemberProp, ObjectPatProp,
    OptChainBase, Pat, UnaryOp,
};
use swc_ecma_visit::{Visit, VisitWith};

/// Methods only strings have.
const STRING_METHODS: &[&str] = &[
    "toLowerCase",
    "toUpperCase",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "trim",
    "trimStart",
    "trimEnd",
    "split",
    "startsWith",
    "endsWith",
    "padStart",
    "padEnd",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "normalize",
    "localeCompare",
    "substring",
    "substr",
    "replace",
    "replaceAll",
    "match",
    "matchAll",
    "search",
    "repeat",
];

/// Methods only arrays have.
const ARRAY_METHODS: &[&str] = &[
    "map",
    "filter",
    "forEach",
    "reduce",
    "reduceRight",
    "some",
    "every",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flat",
    "flatMap",
    "sort",
    "reverse",
    "push",
    "pop",
    "shift",
    "unshift",
    "splice",
    "join",
    "fill",
    "toSorted",
    "toReversed",
    "toSpliced",
];

/// Methods of strings and arrays alike, and of every object: they say nothing.
const ANY_METHODS: &[&str] = &[
    "includes",
    "indexOf",
    "lastIndexOf",
    "slice",
    "concat",
    "at",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "toLocaleString",
];

/// A JSON Schema type a use gives a name, strongest first: a use that names the type
/// outright wins over `length` (arrays and strings have one) and a member read (any object).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Hint {
    Boolean,
    Number,
    String,
    Array,
    /// `args.x.length`: an array, unless a use says string.
    Length,
    /// `args.x.y`: an object, unless a use says what it is.
    Member,
}

impl Hint {
    fn strength(self) -> u8 {
        match self {
            Hint::Boolean | Hint::Number | Hint::String | Hint::Array => 2,
            Hint::Length => 1,
            Hint::Member => 0,
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            Hint::Boolean => "boolean",
            Hint::Number => "number",
            Hint::String => "string",
            Hint::Array | Hint::Length => "array",
            Hint::Member => "object",
        }
    }
}

/// What the uses of one name say.
#[derive(Debug, Default)]
struct Uses {
    hints: Vec<Hint>,
    /// Read somewhere without asking whether it is there.
    optional: bool,
}

impl Uses {
    /// The type the uses agree on, if any: the strongest uses, if they all say one thing
    /// (`length` and a string method: a string).
    fn type_name(&self) -> Option<&'static str> {
        let strongest = self.hints.iter().map(|h| h.strength()).max()?;
        // `length` beside another member: an object that has a length, or anything.
        if strongest == 1 && self.hints.contains(&Hint::Member) {
            return None;
        }
        let mut types = (self.hints.iter())
            .filter(|h| h.strength() == strongest)
            .map(|h| h.type_name());
        let first = types.next()?;
        types.all(|t| t == first).then_some(first)
    }
}

/// The names a program reads of `args`, in order of first use, with what their uses say;
/// `whole` when it also reads `args` otherwise (passed on whole, spread, a computed name, a
/// rest pattern).
#[derive(Debug, Default)]
pub(crate) struct ArgsRead {
    uses: IndexMap<String, Uses>,
    pub(crate) whole: bool,
}

impl ArgsRead {
    /// What `body` reads of `args`.
    pub(crate) fn of(body: &[swc_ecma_ast::Stmt]) -> Self {
        let mut read = ArgsRead::default();
        for stmt in body {
            stmt.visit_with(&mut read);
        }
        read
    }

    /// The names, in order of first use.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.uses.keys().map(String::as_str)
    }

    fn uses(&mut self, name: &str) -> &mut Uses {
        if !self.uses.contains_key(name) {
            self.uses.insert(name.to_owned(), Uses::default());
        }
        &mut self.uses[name]
    }

    fn hint(&mut self, e: &Expr, hint: Hint) {
        if let Some(name) = arg_name(e) {
            self.uses(&name).hints.push(hint);
        }
    }

    /// A name whose presence `e` asks about (`args.x`, or converted: `Number(args.x) || 5`).
    fn optional(&mut self, e: &Expr) {
        if let Some(name) = arg_name(converted(e)) {
            self.uses(&name).optional = true;
        }
    }

    /// `schema` (the parameters' own) with every other name read: its type when its uses say
    /// one, required when the program never asks whether it is there; closed to other names
    /// (`additionalProperties: false`: a misspelt name is an error, not an `undefined` the
    /// program never sees) when it reads `args` by these names only.
    pub(crate) fn add_to(&self, mut schema: Value) -> Value {
        let mut required = Vec::new();
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            for (name, uses) in &self.uses {
                if properties.contains_key(name) {
                    continue;
                }
                let property = match uses.type_name() {
                    Some(t) => json!({ "type": t }),
                    None => json!({}),
                };
                properties.insert(name.clone(), property);
                if !uses.optional {
                    required.push(Value::String(name.clone()));
                }
            }
        }
        if let Some(list) = schema.get_mut("required").and_then(Value::as_array_mut) {
            list.extend(required);
        }
        if !self.whole {
            schema["additionalProperties"] = Value::Bool(false);
        }
        schema
    }
}

/// `args.x`, `args["x"]`, `args?.x` (through parentheses and type assertions): `x`.
fn arg_name(e: &Expr) -> Option<String> {
    match crate::builder::strip(e) {
        Expr::Member(m) => member_of_args(m),
        Expr::OptChain(o) => match &*o.base {
            OptChainBase::Member(m) => member_of_args(m),
            OptChainBase::Call(_) => None,
        },
        _ => None,
    }
}

fn member_of_args(m: &MemberExpr) -> Option<String> {
    if !is_args(&m.obj) {
        return None;
    }
    match &m.prop {
        MemberProp::Ident(prop) => Some(prop.sym.to_string()),
        MemberProp::Computed(c) => match &*c.expr {
            Expr::Lit(Lit::Str(s)) => s.value.as_str().map(str::to_owned),
            _ => None,
        },
        MemberProp::PrivateName(_) => None,
    }
}

/// What `e` converts (`Number(x)`, `String(x)`, `parseInt(x, 10)`...), else `e`.
fn converted(e: &Expr) -> &Expr {
    if let Expr::Call(c) = crate::builder::strip(e) {
        if let Callee::Expr(callee) = &c.callee {
            let conversion = matches!(crate::builder::strip(callee), Expr::Ident(f)
                if matches!(&*f.sym, "Number" | "String" | "Boolean" | "parseInt" | "parseFloat"));
            if let (true, Some(first)) = (conversion, c.args.first()) {
                return &first.expr;
            }
        }
    }
    e
}

fn is_args(e: &Expr) -> bool {
    matches!(crate::builder::strip(e), Expr::Ident(id) if &*id.sym == "args")
}

fn is_nullish(e: &Expr) -> bool {
    match crate::builder::strip(e) {
        Expr::Lit(Lit::Null(_)) => true,
        Expr::Ident(id) => &*id.sym == "undefined",
        Expr::Unary(u) => u.op == UnaryOp::Void,
        _ => false,
    }
}

/// What a member read on a name says of it.
fn member_hint(prop: &MemberProp) -> Option<Hint> {
    let MemberProp::Ident(p) = prop else {
        // `args.x[0]`, `args.x[k]`: an array or an object.
        return None;
    };
    let name = &*p.sym;
    Some(match name {
        "length" => Hint::Length,
        _ if STRING_METHODS.contains(&name) => Hint::String,
        _ if ARRAY_METHODS.contains(&name) => Hint::Array,
        _ if ANY_METHODS.contains(&name) => return None,
        _ => Hint::Member,
    })
}

impl ArgsRead {
    /// What the expression `e` says of the names it reads, at its own level.
    fn note(&mut self, e: &Expr) {
        match e {
            Expr::Member(m) => {
                if let Some(name) = member_of_args(m) {
                    self.uses(&name);
                } else if let Some(hint) = member_hint(&m.prop) {
                    self.hint(&m.obj, hint);
                }
            }
            Expr::OptChain(o) if o.optional => {
                if let OptChainBase::Member(m) = &*o.base {
                    // `args?.x`: x may be absent; `args.x?.y`: so may x.
                    match member_of_args(m) {
                        Some(name) => self.uses(&name).optional = true,
                        None => {
                            self.optional(&m.obj);
                            if let Some(hint) = member_hint(&m.prop) {
                                self.hint(&m.obj, hint);
                            }
                        }
                    }
                }
            }
            Expr::Bin(b) => {
                use BinaryOp::*;
                let sides = [(&b.left, &b.right), (&b.right, &b.left)];
                match b.op {
                    NullishCoalescing | LogicalOr | LogicalAnd => self.optional(&b.left),
                    EqEq | NotEq | EqEqEq | NotEqEq => {
                        for (side, other) in sides {
                            match crate::builder::strip(other) {
                                _ if is_nullish(other) => self.optional(side),
                                Expr::Lit(Lit::Bool(_)) => self.hint(side, Hint::Boolean),
                                Expr::Lit(Lit::Num(_)) => self.hint(side, Hint::Number),
                                Expr::Lit(Lit::Str(_)) | Expr::Tpl(_) => {
                                    self.hint(side, Hint::String)
                                }
                                _ => {}
                            }
                        }
                    }
                    Lt | LtEq | Gt | GtEq => {
                        for (side, other) in sides {
                            match crate::builder::strip(other) {
                                Expr::Lit(Lit::Str(_)) | Expr::Tpl(_) => {
                                    self.hint(side, Hint::String)
                                }
                                _ => self.hint(side, Hint::Number),
                            }
                        }
                    }
                    Sub | Mul | Div | Mod | Exp => {
                        self.hint(&b.left, Hint::Number);
                        self.hint(&b.right, Hint::Number);
                    }
                    In => {
                        // `"x" in args`
                        if let (Expr::Lit(Lit::Str(s)), true) = (&*b.left, is_args(&b.right)) {
                            if let Some(name) = s.value.as_str() {
                                self.uses(name).optional = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
            Expr::Unary(u) if matches!(u.op, UnaryOp::TypeOf | UnaryOp::Bang) => {
                self.optional(&u.arg)
            }
            Expr::Cond(c) => self.optional(&c.test),
            // `Boolean(args.x)`: asks whether it is there.
            Expr::Call(c)
                if matches!(&c.callee, Callee::Expr(f)
                if matches!(crate::builder::strip(f), Expr::Ident(f) if &*f.sym == "Boolean")) =>
            {
                self.optional(e)
            }
            _ => {}
        }
    }
}

impl Visit for ArgsRead {
    fn visit_expr(&mut self, e: &Expr) {
        self.note(e);
        match e {
            // `args` itself is read only where it is no member's object.
            Expr::Member(m) if member_of_args(m).is_some() => {}
            Expr::Ident(id) if &*id.sym == "args" => self.whole = true,
            _ => e.visit_children_with(self),
        }
    }

    fn visit_member_expr(&mut self, m: &MemberExpr) {
        // Reached outside an expression (a member pattern): `args` is written to.
        if member_of_args(m).is_none() {
            m.visit_children_with(self);
        }
    }

    fn visit_if_stmt(&mut self, s: &IfStmt) {
        self.optional(&s.test);
        s.visit_children_with(self);
    }

    fn visit_for_of_stmt(&mut self, s: &ForOfStmt) {
        self.hint(&s.right, Hint::Array);
        s.visit_children_with(self);
    }

    fn visit_var_declarator(&mut self, d: &swc_ecma_ast::VarDeclarator) {
        if let (Pat::Object(obj), Some(init)) = (&d.name, &d.init) {
            if is_args(init) {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => {
                            match crate::fold::prop_name(&kv.key) {
                                Some(key) => {
                                    let uses = self.uses(&key);
                                    if matches!(&*kv.value, Pat::Assign(_)) {
                                        uses.optional = true;
                                    }
                                }
                                None => self.whole = true,
                            }
                            kv.value.visit_with(self);
                        }
                        ObjectPatProp::Assign(a) => {
                            let uses = self.uses(a.key.id.sym.as_str());
                            if a.value.is_some() {
                                uses.optional = true;
                            }
                            a.value.visit_with(self);
                        }
                        ObjectPatProp::Rest(_) => self.whole = true,
                    }
                }
                return;
            }
        }
        d.visit_children_with(self);
    }

    fn visit_ident(&mut self, id: &swc_ecma_ast::Ident) {
        if &*id.sym == "args" {
            self.whole = true;
        }
    }
}
