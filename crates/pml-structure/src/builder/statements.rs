//! The builder's walk over statements: declarations and their bindings, control flow
//! (`if`, `switch`, loops, `try`, `return`/`break`/`continue`), and what a statement's
//! expressions leave behind.

use super::*;

impl<'a> Builder<'a> {
    // ----- statements ---------------------------------------------------------------------

    /// The names the program changes in place will come from another thread (which computes
    /// them with [`mutations::mutated_names`]); the walk waits for them only when it first needs
    /// them.
    pub(crate) fn mutated_names_from(&mut self, names: Receiver<mutations::Mutations>) {
        self.mutated = Mutated::Coming(names);
    }

    /// The names the program changes in place, computed already.
    pub(crate) fn mutated_names(&mut self, names: mutations::Mutations) {
        self.mutated = Mutated::Known(Box::new(names));
    }

    pub(super) fn mutations(&mut self) -> Option<&mutations::Mutations> {
        if let Mutated::Coming(rx) = &self.mutated {
            // A sender gone without an answer panicked: that panic ends the build anyway.
            self.mutated = Mutated::Known(Box::new(rx.recv().unwrap_or_default()));
        }
        match &self.mutated {
            Mutated::Known(m) => Some(m),
            Mutated::Unknown | Mutated::Coming(_) => None,
        }
    }

    /// `name` holds `value` wherever it is read. The map is by name, whatever the scope: a
    /// name the program declares more than once (`const ids` in two functions, or a `let` of
    /// the same name elsewhere) is left out, so nothing reads one where another is meant.
    pub(super) fn literal_binding(&mut self, name: &str, value: Value) {
        if self
            .mutations()
            .is_some_and(|m| !m.redeclared.contains(name))
        {
            // By the name expressions read it by.
            let name = crate::model::escape_name(name).into_owned();
            self.literal_bindings.insert(name, value);
        }
    }

    /// The node whose result `path` is (or is a part of: `n1.items`, `n1[0]`) may be changed in
    /// place after it is made (see [`crate::Node::changed`]).
    pub(super) fn mark_changed(&mut self, path: &str) {
        let root = path.split(['.', '[']).next().unwrap_or(path);
        // Applied to the nodes in `finish` (a search per call was quadratic).
        if !self.changed_nodes.contains(root) {
            self.changed_nodes.insert(root.to_owned());
        }
    }

    /// The local function node `n` is in (innermost), if any.
    pub(super) fn function_around<'s>(&'s self, n: &'s crate::Node) -> Option<&'s str> {
        let mut at = n.scope.as_ref();
        for _ in 0..self.nodes.len() {
            match at? {
                Scope::Function { id } => return Some(id.as_str()),
                scope => {
                    let id = scope.id();
                    at = self.nodes.iter().find(|m| m.id == id)?.scope.as_ref();
                }
            }
        }
        None
    }

    /// Whether the program changes in place a name `pat` declares.
    pub(super) fn pattern_mutated(&mut self, pat: &Pat) -> bool {
        let mut names = Vec::new();
        rewrite::pattern_names(pat, &mut names);
        names.iter().any(|n| self.is_mutated(n))
    }

    /// Whether the program changes `name`'s value in place somewhere.
    pub(super) fn is_mutated(&mut self, name: &str) -> bool {
        self.mutations().is_none_or(|m| m.names.contains(name))
    }

    /// Where the program first assigns `name` again (at 0, repeated, when that is not known).
    pub(super) fn reassigned(&mut self, name: &str) -> Option<mutations::Reassigned> {
        match self.mutations() {
            Some(m) => m.reassigned.get(name).copied(),
            None => Some(mutations::Reassigned {
                at: 0,
                repeated: true,
            }),
        }
    }

    /// The program's top level: notes mutated names, then walks the statements.
    pub(crate) fn program(&mut self, stmts: &[Stmt]) {
        if let Mutated::Unknown = self.mutated {
            self.mutated = Mutated::Known(Box::new(mutations::mutated_names(stmts)));
        }
        self.hoist(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            if !self.live {
                self.unreached(&stmts[i..]);
                break;
            }
            match stmt {
                // A `return` of the program itself: its value is the program's result.
                Stmt::Return(r) => {
                    self.result_span = Some(self.span(r.span));
                    self.result = Some(match &r.arg {
                        Some(arg) => {
                            self.expr(arg, Position::Statement);
                            self.classify(arg, 0)
                        }
                        None => ArgumentValue::literal(Value::Null),
                    });
                    self.end_path();
                }
                _ => self.stmt(stmt),
            }
        }
        self.unreached_functions(stmts);
        if self.printing
            && self.nodes.is_empty()
            && self.effects.is_empty()
            && self.result.is_none()
        {
            // Nothing the structure holds tells two such programs apart (`const x = 1;`,
            // `const x = 2;`): the program is its own effect, printed whole.
            let code = rewrite::print_program(self, stmts);
            self.effects.push(crate::Effect {
                after: 0,
                scope: None,
                code,
            });
        }
    }

    pub(crate) fn stmts(&mut self, stmts: &[Stmt]) {
        self.hoist(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            if !self.live {
                // Unreachable code after return/throw/break/continue.
                self.unreached(&stmts[i..]);
                break;
            }
            self.stmt(stmt);
        }
        self.unreached_functions(stmts);
    }

    /// Statements no path reaches (after a `return`, `throw`, `break` or `continue`): not
    /// walked; the calls in them are never made.
    fn unreached(&mut self, rest: &[Stmt]) {
        if let (Some(first), Some(last)) = (rest.first(), rest.last()) {
            self.unreached.push((first.span().lo.0, last.span().hi.0));
        }
    }

    /// The bodies of the function declarations of `stmts` that the walk did not reach (after a
    /// `return`): hoisted, they can still be called.
    pub(super) fn unreached_functions(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            if let Stmt::Decl(Decl::Fn(f)) = stmt {
                let span = f.function.span;
                if let Some(index) = self.hoisted.remove(&(span.lo.0, span.hi.0)) {
                    self.function_body(index, &function_of(&f.function), None);
                }
            }
        }
    }

    pub(super) fn block(&mut self, stmts: &[Stmt]) {
        self.push_env();
        self.stmts(stmts);
        self.pop_env();
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt) {
        let is_loop = matches!(
            stmt,
            Stmt::For(_) | Stmt::ForIn(_) | Stmt::ForOf(_) | Stmt::While(_) | Stmt::DoWhile(_)
        );
        if self.too_deep.is_some() || (is_loop && !self.copies(stmt.span())) {
            return;
        }
        // What a statement's expressions computed can be no later operation's operand.
        let results = self.results.len();
        let (nodes, effects) = (self.nodes.len(), self.effects.len());
        self.stmt_inner(stmt);
        self.results.truncate(results);
        if self.printing && self.nodes.len() == nodes && self.is_effect(stmt) {
            // What it does is only in its text: the statement, whole (what its parts left
            // is in it).
            self.effects.truncate(effects);
            let code = rewrite::print_effect(self, stmt);
            let scope = self.scopes.last().cloned();
            self.effects.push(crate::Effect {
                after: nodes,
                scope,
                code,
            });
        }
    }

    /// Whether `stmt`, which made no node, is an [`crate::Effect`]: something the program does
    /// that the structure does not hold otherwise. Outside a loop or a function (whose code is
    /// their node's), anything but a block (its statements are, each), a jump (an edge says
    /// it), a function (its node), a class (its uses are in the texts that use it) or a
    /// declaration whose names the structure resolves (a constant, an expression over
    /// results, a parameter).
    fn is_effect(&mut self, stmt: &Stmt) -> bool {
        if !self.loops.is_empty() || !self.functions.is_empty() {
            return false;
        }
        match stmt {
            // Its statements are, each.
            Stmt::Block(_)
            | Stmt::Empty(_)
            | Stmt::Debugger(_)
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::Decl(Decl::Fn(_)) => false,
            Stmt::Decl(Decl::Var(var)) => var.decls.iter().any(|d| {
                let mut names = Vec::new();
                rewrite::pattern_names(&d.name, &mut names);
                // Unknown, or a constant only until it is assigned again (its first value
                // counts then).
                names.iter().any(|n| match self.lookup(n) {
                    None | Some(Binding::Opaque) => true,
                    Some(Binding::Literal(_)) => self.reassigned(n).is_some(),
                    Some(_) => false,
                })
            }),
            // A class does nothing until used (its uses are in the nodes' texts), and its
            // body prints as its text, which types and formatting change.
            Stmt::Decl(_) => false,
            _ => true,
        }
    }

    pub(super) fn stmt_inner(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Block(b) => self.block(&b.stmts),
            Stmt::Expr(e) => {
                self.expr(&e.expr, Position::Statement);
            }
            Stmt::Decl(Decl::Var(var)) => {
                for decl in &var.decls {
                    self.declarator(var.kind, &decl.name, decl.init.as_deref());
                }
            }
            Stmt::Decl(Decl::Fn(f)) => {
                let span = f.function.span;
                let index = match self.hoisted.remove(&(span.lo.0, span.hi.0)) {
                    Some(index) => index,
                    // Not in a statement list (`if (x) function f() {}`): declared here.
                    None => {
                        let code = FunctionOf::Function(&f.function);
                        let index = self.declare_function(code, span, Some(&f.ident.sym));
                        let id = self.nodes[index].id.clone();
                        self.bind(&f.ident.sym, Binding::Function(id));
                        index
                    }
                };
                self.function_body(index, &function_of(&f.function), None);
            }
            Stmt::Decl(Decl::Class(c)) => {
                self.bind(&c.ident.sym, Binding::Opaque);
                self.class_methods(&c.class, Some(c.ident.sym.as_str()));
            }
            Stmt::Decl(_) => {}
            Stmt::Return(r) => {
                if let Some(arg) = &r.arg {
                    self.expr(arg, Position::Statement);
                }
                self.leave_loops(false);
                self.end_path();
            }
            Stmt::Throw(t) => {
                self.expr(&t.arg, Position::Nested);
                self.leave_loops(false);
                self.end_path();
            }
            Stmt::Break(b) => {
                let label = b.label.as_ref().map(|l| l.sym.as_str().to_owned());
                // Out of the innermost loop, unless the innermost `break` target is a switch;
                // with a label, possibly out of every loop around it.
                let switch = (self.breaks.iter().rev())
                    .find(|t| t.breakable)
                    .is_some_and(|t| t.exits.is_some());
                match (&label, switch) {
                    (Some(_), _) => self.leave_loops(false),
                    (None, false) => self.leave_loops(true),
                    (None, true) => {}
                }
                let target = self.breaks.iter_mut().rev().find(|t| match &label {
                    Some(l) => t.label.as_deref() == Some(l.as_str()),
                    None => t.breakable,
                });
                if let Some(t) = target {
                    t.taken += 1;
                    if let Some(exits) = &mut t.exits {
                        exits.extend(std::mem::take(&mut self.frontier));
                    }
                }
                self.end_path();
            }
            Stmt::Continue(c) => {
                if c.label.is_some() {
                    self.leave_loops(false);
                }
                self.end_path()
            }
            Stmt::If(i) => self.if_stmt(i),
            Stmt::Switch(s) => self.switch_stmt(s),
            Stmt::Labeled(l) => {
                let is_loop = matches!(
                    &*l.body,
                    Stmt::For(_)
                        | Stmt::ForIn(_)
                        | Stmt::ForOf(_)
                        | Stmt::While(_)
                        | Stmt::DoWhile(_)
                );
                self.breaks.push(BreakTarget {
                    label: Some(l.label.sym.as_str().to_owned()),
                    breakable: false,
                    // `break label` out of a loop continues after the loop node.
                    exits: (!is_loop).then(Vec::new),
                    taken: 0,
                });
                self.stmt(&l.body);
                let target = self.breaks.pop();
                let taken = target.as_ref().map_or(0, |t| t.taken);
                let exits = target.and_then(|t| t.exits).unwrap_or_default();
                if taken > 0 && !is_loop {
                    if self.live {
                        merge(&mut self.frontier, exits);
                    } else {
                        self.frontier = exits;
                    }
                    self.live = true;
                }
            }
            Stmt::Try(t) => self.try_stmt(t),
            Stmt::ForOf(f) => {
                let out = self.expr(&f.right, Position::Nested);
                let header = self.written(&f.right);
                let element = match out.value {
                    Some(v) => Written {
                        reads: header.reads.clone(),
                        ..Written::path(v)
                    }
                    .each(),
                    None => header.each(),
                };
                self.loop_stmt(
                    LoopOf::Stmt(stmt),
                    LoopKind::ForOf,
                    Some(header),
                    rewrite::free_variables_of(stmt),
                    |b| {
                        b.bind_for_head(&f.left);
                        // The loop variable is one element of the iterable, like a map parameter.
                        if let ForHead::VarDecl(v) = &f.left {
                            if let [d] = v.decls.as_slice() {
                                b.bind_element_pattern(&d.name, &element);
                            }
                        }
                        b.loop_body(&f.body);
                    },
                );
            }
            Stmt::ForIn(f) => {
                self.expr(&f.right, Position::Nested);
                let header = self.written(&f.right);
                self.loop_stmt(
                    LoopOf::Stmt(stmt),
                    LoopKind::ForIn,
                    Some(header),
                    rewrite::free_variables_of(stmt),
                    |b| {
                        b.bind_for_head(&f.left);
                        b.loop_body(&f.body);
                    },
                );
            }
            Stmt::For(f) => {
                let condition = f.test.as_deref().map(|t| self.written(t));
                self.loop_stmt(
                    LoopOf::Stmt(stmt),
                    LoopKind::For,
                    condition,
                    rewrite::free_variables_of(stmt),
                    |b| {
                        match &f.init {
                            Some(VarDeclOrExpr::VarDecl(v)) => {
                                for d in &v.decls {
                                    b.bind_opaque(&d.name);
                                }
                            }
                            Some(VarDeclOrExpr::Expr(e)) => {
                                b.expr(e, Position::Nested);
                            }
                            None => {}
                        }
                        if let Some(test) = &f.test {
                            b.expr(test, Position::Nested);
                        }
                        b.loop_body(&f.body);
                        if let Some(update) = &f.update {
                            b.expr(update, Position::Nested);
                        }
                    },
                );
            }
            Stmt::While(w) => {
                let condition = Some(self.written(&w.test));
                self.loop_stmt(
                    LoopOf::Stmt(stmt),
                    LoopKind::While,
                    condition,
                    rewrite::free_variables_of(stmt),
                    |b| {
                        b.expr(&w.test, Position::Nested);
                        b.loop_body(&w.body);
                    },
                );
            }
            Stmt::DoWhile(w) => {
                let condition = Some(self.written(&w.test));
                self.loop_stmt(
                    LoopOf::Stmt(stmt),
                    LoopKind::DoWhile,
                    condition,
                    rewrite::free_variables_of(stmt),
                    |b| {
                        b.loop_body(&w.body);
                        b.live = true;
                        b.expr(&w.test, Position::Nested);
                    },
                );
            }
            Stmt::With(w) => {
                self.expr(&w.obj, Position::Nested);
                self.stmt(&w.body);
            }
            Stmt::Empty(_) | Stmt::Debugger(_) => {}
        }
    }

    pub(super) fn end_path(&mut self) {
        self.frontier.clear();
        self.live = false;
        self.ends += 1;
    }

    /// The methods of a class (`name` when it has one) that call tools: each a local function
    /// of its own (`Loader.load`), its body walked as a helper's is, so that every call in it
    /// is a node. When and how often one runs is up to its callers (no call node links to it).
    pub(super) fn class_methods(&mut self, class: &swc_ecma_ast::Class, name: Option<&str>) {
        use swc_ecma_ast::{ClassMember, ParamOrTsParamProp};
        let owner = name.unwrap_or("(class)");
        // What a class runs that is not a method's body (a field's initializer, a computed
        // key, what it extends) is not walked: its calls are not in the structure.
        let unwalked = (class.super_class.iter())
            .map(|e| &**e)
            .chain(class.body.iter().flat_map(|member| {
                let (key, value) = match member {
                    ClassMember::ClassProp(p) => (p.key.as_computed(), p.value.as_deref()),
                    ClassMember::PrivateProp(p) => (None, p.value.as_deref()),
                    ClassMember::Method(m) => (m.key.as_computed(), None),
                    ClassMember::AutoAccessor(a) => (None, a.value.as_deref()),
                    _ => (None, None),
                };
                let value = value.filter(|v| callback(v).is_none());
                key.map(|k| &*k.expr).into_iter().chain(value)
            }))
            .find(|e| contains_agent_call(*e, &self.agents));
        if let Some(e) = unwalked {
            self.warn(
                diagnostics::UNANALYSED_CODE,
                format!(
                    "class `{owner}`: `{}` calls MCP tools where pml cannot tell when it runs; its calls are not in the structure",
                    clip(self.text(e.span()))
                ),
                e.span(),
            );
        }
        for member in &class.body {
            let (method, code, parts, printed) = match member {
                ClassMember::Method(m) => (
                    fold::prop_name(&m.key).unwrap_or_else(|| "[computed]".into()),
                    self.method_code(&m.function, m.key.span()),
                    function_of(&m.function),
                    FunctionOf::Function(&m.function),
                ),
                ClassMember::PrivateMethod(m) => (
                    format!("#{}", m.key.name),
                    self.method_code(&m.function, m.key.span),
                    function_of(&m.function),
                    FunctionOf::Function(&m.function),
                ),
                ClassMember::Constructor(c) => {
                    let Some(body) = &c.body else { continue };
                    let params = (c.params.iter())
                        .filter_map(|p| match p {
                            ParamOrTsParamProp::Param(p) => Some(&p.pat),
                            ParamOrTsParamProp::TsParamProp(_) => None,
                        })
                        .collect();
                    let parts = ArrowOrFn {
                        generator: false,
                        named: None,
                        params,
                        body: CallbackBody::Block(&body.stmts),
                        body_span: body.span,
                    };
                    let rest = self.text(SwcSpan::new(c.key.span().hi, c.span.hi));
                    let printed = FunctionOf::Parts(parts.params.clone(), &body.stmts);
                    (
                        "constructor".into(),
                        format!("(function {rest})"),
                        parts,
                        printed,
                    )
                }
                ClassMember::ClassProp(p) => {
                    let Some(value) = p.value.as_deref() else {
                        continue;
                    };
                    let Some(parts) = callback(value) else {
                        continue;
                    };
                    let key = fold::prop_name(&p.key).unwrap_or_else(|| "[computed]".into());
                    let code = format!("({})", self.text(value.span()));
                    (key, code, parts, FunctionOf::Expr(value))
                }
                ClassMember::PrivateProp(p) => {
                    let Some(value) = p.value.as_deref() else {
                        continue;
                    };
                    let Some(parts) = callback(value) else {
                        continue;
                    };
                    let key = format!("#{}", p.key.name);
                    let code = format!("({})", self.text(value.span()));
                    (key, code, parts, FunctionOf::Expr(value))
                }
                ClassMember::StaticBlock(b) => {
                    let parts = ArrowOrFn {
                        generator: false,
                        named: None,
                        params: Vec::new(),
                        body: CallbackBody::Block(&b.body.stmts),
                        body_span: b.body.span,
                    };
                    let body = self.text(b.body.span);
                    let printed = FunctionOf::Parts(Vec::new(), &b.body.stmts);
                    (
                        "static".into(),
                        format!("(function () {body})"),
                        parts,
                        printed,
                    )
                }
                _ => continue,
            };
            if !self.calls_in(&parts) {
                continue;
            }
            let span = member.span();
            let name = format!("{owner}.{method}");
            let index = self.declare_function(printed, span, Some(&name));
            self.nodes[index].code = Some(code);
            self.function_body(index, &parts, None);
        }
    }

    /// A method's code as a function expression (`(async function (p) { ... })` for
    /// `async load(p) { ... }`), which reads as the method does wherever it stands (a
    /// method's own text is no statement or expression of its own).
    pub(super) fn method_code(&self, f: &swc_ecma_ast::Function, key: SwcSpan) -> String {
        let rest = self.text(SwcSpan::new(key.hi, f.span.hi));
        let (a, star) = (
            if f.is_async { "async " } else { "" },
            if f.is_generator { "*" } else { "" },
        );
        format!("({a}function{star} {rest})")
    }

    /// A method, getter or setter of an object literal that calls tools: a local function of
    /// its own, as a class's methods are.
    pub(super) fn object_method(&mut self, prop: &Prop) {
        let (name, key, function) = match prop {
            Prop::Method(m) => (fold::prop_name(&m.key), m.key.span(), &m.function),
            Prop::Getter(g) => (fold::prop_name(&g.key), g.key.span(), &g.function),
            Prop::Setter(s) => (fold::prop_name(&s.key), s.key.span(), &s.function),
            _ => return,
        };
        let parts = function_of(function);
        if !self.calls_in(&parts) {
            return;
        }
        let code = self.method_code(function, key);
        let printed = FunctionOf::Function(function);
        let index = self.declare_function(printed, prop.span(), name.as_deref());
        self.nodes[index].code = Some(code);
        self.function_body(index, &parts, None);
    }

    /// Whether a function's parameters (their defaults) or body call MCP tools or capabilities.
    pub(super) fn calls_in(&self, parts: &ArrowOrFn) -> bool {
        let params = parts
            .params
            .iter()
            .any(|p| contains_agent_call(*p, &self.agents));
        params
            || match &parts.body {
                CallbackBody::Expr(e) => contains_agent_call(*e, &self.agents),
                CallbackBody::Block(stmts) => {
                    stmts.iter().any(|s| contains_agent_call(s, &self.agents))
                }
            }
    }

    pub(super) fn bind_for_head(&mut self, head: &ForHead) {
        match head {
            ForHead::VarDecl(v) => {
                for d in &v.decls {
                    self.bind_opaque(&d.name);
                }
            }
            ForHead::UsingDecl(u) => {
                for d in &u.decls {
                    self.bind_opaque(&d.name);
                }
            }
            ForHead::Pat(p) => self.bind_opaque(p),
        }
    }

    /// Bind a loop variable pattern to paths inside one (unknown) element: `entry` ->
    /// `n1.entries[*]`, `{ name }` -> `n1.entries[*].name`.
    pub(super) fn bind_element_pattern(&mut self, pat: &Pat, element: &Written) {
        // An element the loop changes in place (`for (const f of files) f.path = ...`) changes
        // the collection's result.
        if self.pattern_mutated(pat) {
            self.mark_changed(&element.text);
            for r in &element.reads {
                self.mark_changed(r);
            }
        }
        match pat {
            Pat::Ident(id) => self.bind(&id.id.sym, Binding::Template(element.clone())),
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::Assign(a) if a.value.is_none() => {
                            let path = element.member(&a.key.id.sym);
                            self.bind(&a.key.id.sym, Binding::Template(path));
                        }
                        ObjectPatProp::KeyValue(kv) => {
                            if let Some(key) = fold::prop_name(&kv.key) {
                                let path = element.member(&key);
                                self.bind_element_pattern(&kv.value, &path);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Pat::Array(arr) => {
                for (i, elem) in arr.elems.iter().enumerate() {
                    if let Some(p @ (Pat::Ident(_) | Pat::Object(_) | Pat::Array(_))) = elem {
                        self.bind_element_pattern(p, &element.member(&format!("[{i}]")));
                    }
                }
            }
            _ => {}
        }
    }

    /// `try`: any node of the block may throw, so the handler follows the point before the
    /// block and every node the block created; `finally` follows every way out.
    pub(super) fn try_stmt(&mut self, t: &swc_ecma_ast::TryStmt) {
        let start = self.frontier.clone();
        let first = self.nodes.len();
        let scope = self.scopes.last().cloned();
        self.guarded += 1;
        self.block(&t.block.stmts);
        self.guarded -= 1;
        let mut any_live = self.live;
        let mut exits = if self.live {
            std::mem::take(&mut self.frontier)
        } else {
            Vec::new()
        };
        let throwers: Vec<Pending> = self.nodes[first..]
            .iter()
            .filter(|n| n.scope == scope)
            .map(|n| Pending {
                from: n.id.clone(),
                outcome: None,
            })
            .collect();
        let mut abrupt = start;
        merge(&mut abrupt, throwers);
        let block_end = self.nodes.len();
        let ends = self.ends;
        // No handler: a throw leaves the statement (what follows does not run).
        let mut handler_exits = t.handler.is_none();
        if let Some(handler) = &t.handler {
            let open = self.offsets(handler.body.span).0;
            self.probes.catching(first..block_end, open);
            self.frontier = abrupt.clone();
            self.live = true;
            self.push_env();
            if let Some(param) = &handler.param {
                self.bind_opaque(param);
            }
            self.probes.enter_handler();
            self.guarded += 1;
            self.stmts(&handler.body.stmts);
            self.guarded -= 1;
            self.probes.leave_handler();
            self.pop_env();
            handler_exits = !self.live || self.ends > ends;
            if self.live {
                any_live = true;
                merge(&mut exits, std::mem::take(&mut self.frontier));
            }
        }
        if handler_exits {
            for node in &mut self.nodes[first..block_end] {
                node.throw_exits = true;
            }
        }
        match &t.finalizer {
            Some(finalizer) => {
                let mut entry = exits;
                merge(&mut entry, abrupt);
                self.frontier = entry;
                self.live = true;
                self.block(&finalizer.stmts);
                if !any_live {
                    self.end_path();
                }
            }
            None => {
                self.frontier = exits;
                self.live = any_live;
            }
        }
    }

    /// A `return`, `throw` or `break` may leave the loops being walked (in the function being
    /// walked): the innermost one only, or all of them; they are marked [`Node::leaves`].
    pub(super) fn leave_loops(&mut self, innermost: bool) {
        let function = self.functions.last().copied();
        let mut loops = (self.loops.iter().rev()).filter(|&&l| function.is_none_or(|f| l > f));
        let marked: Vec<usize> = match innermost {
            true => loops.next().copied().into_iter().collect(),
            false => loops.copied().collect(),
        };
        for l in marked {
            if let Some(node) = self.nodes.get_mut(l) {
                node.leaves = true;
            }
        }
    }

    pub(super) fn loop_body(&mut self, body: &Stmt) {
        self.breaks.push(BreakTarget {
            label: None,
            breakable: true,
            exits: None,
            taken: 0,
        });
        let at = match body {
            Stmt::Block(b) => Body::Block(self.offsets(b.span).0),
            other => Body::Statement(self.offsets(other.span())),
        };
        let node = self.loops.last().copied().unwrap_or(usize::MAX);
        self.probes.enter(ProbeKind::Loop, node, at);
        self.stmt(body);
        self.probes.leave();
        self.breaks.pop();
    }

    /// A loop: one node holding the loop's source; its body's nodes are scoped to it. What
    /// follows the loop comes after the loop node (the body may run any number of times).
    pub(super) fn loop_stmt(
        &mut self,
        code: LoopOf<'_>,
        kind: LoopKind,
        condition: Option<Written>,
        free: Vec<String>,
        body: impl FnOnce(&mut Self),
    ) -> String {
        let span = match code {
            LoopOf::Stmt(s) => s.span(),
            LoopOf::Call(c) => c.span,
        };
        let mut node = self.new_node(NodeKind::Loop, span);
        node.loop_kind = Some(kind);
        // A statement was charged in `stmt`; a callback loop here. Refused: nothing more.
        if matches!(code, LoopOf::Call(_)) && !self.copies(span) || self.too_deep.is_some() {
            return self.add_node(node);
        }
        node.code = Some(self.text(span).to_string());
        let mut canonical = NodeCanonical {
            code: self.printing.then(|| rewrite::print_loop(self, code)),
            condition: None,
            ..Default::default()
        };
        if let Some(condition) = condition {
            node.condition = Some(condition.text);
            node.condition_leaves = condition.leaves;
            node.reads = condition.reads;
            canonical.condition = condition.canonical.map(|c| *c);
        }
        if canonical != NodeCanonical::default() {
            node.canonical = Some(Box::new(canonical));
        }
        let mut arguments = Arguments::new();
        self.free_variable_arguments(free, &mut arguments);
        if !arguments.is_empty() {
            node.arguments = Some(arguments);
        }
        let id = self.add_node(node);
        self.loops.push(self.nodes.len() - 1);
        self.scopes.push(Scope::Loop { id: id.clone() });
        self.push_env();
        body(self);
        self.pop_env();
        self.scopes.pop();
        self.loops.pop();
        self.frontier = vec![Pending {
            from: id.clone(),
            outcome: None,
        }];
        self.live = true;
        id
    }

    pub(super) fn if_stmt(&mut self, stmt: &swc_ecma_ast::IfStmt) {
        self.expr(&stmt.test, Position::Nested);
        let cp = self.checkpoint();
        let d = self.decision(stmt.span, &stmt.test);
        let test = self.offsets(stmt.test.span());
        self.probe(ProbeKind::Decision, Site::Test { test });
        let after = self.nodes.len();
        let (mut exits, mut ended) = self.branch(&d, "true", |b| b.stmt(&stmt.cons));
        match &stmt.alt {
            Some(alt) => {
                let (more, alt_ended) = self.branch(&d, "false", |b| b.stmt(alt));
                exits.extend(more);
                ended |= alt_ended;
            }
            None => exits.push(Pending {
                from: d.clone(),
                outcome: Some("false".into()),
            }),
        }
        // No node and no early exit in either branch: the `if` does not shape the structure.
        self.close_decision(cp, after, ended, exits);
    }

    /// Run `f` as the branch `outcome` of decision `d`; returns the branch's exit frontier and
    /// whether the path ended inside it (return/throw/break/continue).
    pub(super) fn branch(
        &mut self,
        d: &str,
        outcome: &str,
        f: impl FnOnce(&mut Self),
    ) -> (Vec<Pending>, bool) {
        self.frontier = vec![Pending {
            from: d.to_string(),
            outcome: Some(outcome.to_string()),
        }];
        self.live = true;
        self.scopes.push(Scope::Decision {
            id: d.to_string(),
            outcome: outcome.to_string(),
        });
        self.push_env();
        f(self);
        self.pop_env();
        self.scopes.pop();
        if self.live {
            (std::mem::take(&mut self.frontier), false)
        } else {
            (Vec::new(), true)
        }
    }

    pub(super) fn merge(&mut self, exits: Vec<Pending>) {
        self.live = !exits.is_empty();
        self.frontier = exits;
    }

    pub(super) fn switch_stmt(&mut self, stmt: &swc_ecma_ast::SwitchStmt) {
        self.expr(&stmt.discriminant, Position::Nested);
        let cp = self.checkpoint();
        let mut ended = false;
        let d = self.decision(stmt.span, &stmt.discriminant);
        let site =
            Site::Switch {
                discriminant: self.offsets(stmt.discriminant.span()),
                cases: (stmt.cases.iter())
                    .filter_map(|c| c.test.as_ref().map(|t| self.offsets(t.span())))
                    .collect(),
                default: stmt.cases.iter().find(|c| c.test.is_none()).map(|c| {
                    match c.cons.first() {
                        Some(first) => self.offsets(first.span()).0,
                        None => self.offsets(c.span).1,
                    }
                }),
                close: self.offsets(stmt.span).1.saturating_sub(1),
            };
        self.probe(ProbeKind::Switch, site);
        let after = self.nodes.len();
        self.breaks.push(BreakTarget {
            label: None,
            breakable: true,
            exits: Some(Vec::new()),
            taken: 0,
        });
        let mut fallthrough: Vec<Pending> = Vec::new();
        let mut has_default = false;
        for case in &stmt.cases {
            let outcome = match &case.test {
                Some(test) => format!("case:{}", self.case_label(test)),
                None => {
                    has_default = true;
                    "default".to_string()
                }
            };
            // A case that is no constant: its printing, for the hash.
            let printed = match &case.test {
                Some(test) if self.printing && !self.case_is_constant(test) => {
                    Some(rewrite::print_reference(self, test))
                }
                _ => None,
            };
            let decision = &mut self.nodes[after - 1];
            if let Some(printed) = printed {
                let canonical = decision.canonical.get_or_insert_with(Box::default);
                let at = decision.outcomes.len();
                canonical.outcomes.resize(at, None);
                canonical.outcomes.push(Some(printed));
            }
            decision.outcomes.push(outcome.clone());
            let mut entry = std::mem::take(&mut fallthrough);
            entry.push(Pending {
                from: d.clone(),
                outcome: Some(outcome.clone()),
            });
            self.frontier = entry;
            self.live = true;
            self.scopes.push(Scope::Decision {
                id: d.clone(),
                outcome,
            });
            let breaks_before = self.breaks.last().map_or(0, |t| t.taken);
            self.stmts(&case.cons);
            self.scopes.pop();
            if self.live {
                fallthrough = std::mem::take(&mut self.frontier);
            } else if self.breaks.last().map_or(0, |t| t.taken) == breaks_before {
                // Left by return/throw/continue, not by `break`: an early exit.
                ended = true;
            }
        }
        let target = self.breaks.pop();
        let broke = target.as_ref().is_some_and(|t| t.taken > 0);
        let mut exits = target.and_then(|t| t.exits).unwrap_or_default();
        exits.extend(fallthrough);
        if !has_default {
            exits.push(Pending {
                from: d,
                outcome: Some("default".into()),
            });
        }
        if self.close_decision(cp, after, ended, exits) {
            self.live |= broke;
        }
    }

    /// Whether a case's label is its value (a string, number, boolean or `null` it folds to).
    fn case_is_constant(&self, test: &Expr) -> bool {
        matches!(
            fold::fold(test, self),
            Some(JsValue::Str(_) | JsValue::Num(_) | JsValue::Bool(_) | JsValue::Null)
        )
    }

    pub(super) fn case_label(&self, test: &Expr) -> String {
        match fold::fold(test, self) {
            Some(JsValue::Str(s)) => s,
            Some(v @ (JsValue::Num(_) | JsValue::Bool(_) | JsValue::Null)) => v.to_js_string(),
            _ => self.rewrite_text(test),
        }
    }

    pub(super) fn declarator(&mut self, kind: VarDeclKind, name: &Pat, init: Option<&Expr>) {
        let Some(init) = init else {
            self.bind_opaque(name);
            return;
        };
        if let (Pat::Ident(id), Some(f)) = (name, callback(init)) {
            // `const load = async (n) => ...`: a local function named `load`.
            let calls_tools = contains_agent_call(init, &self.agents);
            let code = FunctionOf::Expr(init);
            let index = self.declare_function(code, strip(init).span(), Some(&id.id.sym));
            let fid = self.nodes[index].id.clone();
            self.bind(&id.id.sym, Binding::Function(fid));
            if calls_tools {
                self.agents.insert(id.id.sym.clone());
            }
            self.function_body(index, &f, None);
            return;
        }
        if let Some(alias) = self.mcp_alias(init) {
            self.bind_alias(name, alias);
            return;
        }
        // A `let` or `var` never assigned again is a constant too. One assigned again only in
        // the program's order (not in a loop or a function) holds its initializer's value until
        // then: an assignment binds it anew, one in a nested block leaves it unknown.
        let reassigned = match kind {
            VarDeclKind::Const => None,
            _ => self.first_reassignment(name),
        };
        let repeated = reassigned.as_ref().filter(|(_, r)| r.repeated);
        if let (None, Pat::Ident(id)) = (repeated, name) {
            if let Some(value) = fold::fold(init, self) {
                // A string, a number... cannot change in place, whatever holds it.
                let primitive = !matches!(value, JsValue::Array(_) | JsValue::Object(_));
                if primitive || !self.is_mutated(&id.id.sym) {
                    // Code computed ahead reads it as JSON: only when JSON holds it exactly.
                    if let (None, Some(json)) = (&reassigned, value.to_exact_json()) {
                        self.literal_binding(id.id.sym.as_str(), json);
                    }
                    self.bind(&id.id.sym, Binding::Literal(value));
                    return;
                }
            }
        }
        let out = self.expr(init, Position::Statement);
        match (&out.value, repeated) {
            (Some(value), None) => self.bind_pattern(name, value, out.elements.as_deref()),
            (None, None) => self.bind_expression(name, init),
            (_, Some((var, r))) => {
                let assigned = match r.at {
                    0 => None,
                    at => Some(self.span(SwcSpan::new(
                        swc_common::BytePos(at),
                        swc_common::BytePos(at + var.len() as u32),
                    ))),
                };
                let place =
                    assigned.map_or_else(String::new, |s| format!(" (at {}:{})", s.line, s.column));
                let labels = (assigned.into_iter())
                    .map(|at| (at, format!("`{var}` is assigned again here")))
                    .collect();
                self.warn_with(
                    diagnostics::UNMODELLED_DECLARATION,
                    format!(
                        "`{var}` is assigned again in a loop or a function{place}: pml does not model a variable whose value changes as the program runs; where the program uses it, the structure refers to it by name"
                    ),
                    name.span(),
                    labels,
                );
                self.bind_opaque(name);
            }
        }
    }

    /// The first name `pat` declares that the program assigns again (preferring one assigned
    /// in a loop or a function), and where.
    pub(super) fn first_reassignment(
        &mut self,
        pat: &Pat,
    ) -> Option<(swc_atoms::Atom, mutations::Reassigned)> {
        let mut names = Vec::new();
        rewrite::pattern_names(pat, &mut names);
        let mut found: Option<(swc_atoms::Atom, mutations::Reassigned)> = None;
        for n in names {
            if let Some(r) = self.reassigned(&n) {
                if found
                    .as_ref()
                    .is_none_or(|(_, f)| r.repeated && !f.repeated)
                {
                    found = Some((n, r));
                }
            }
        }
        found
    }

    /// A declaration whose value is no node's result and that is never assigned again: over
    /// what the builder models, its names bind to the expression; over anything else, it is
    /// said.
    pub(super) fn bind_expression(&mut self, pat: &Pat, init: &Expr) {
        match self.unmodelled(init, 0) {
            None => {
                let mut value = self.written(init);
                // One operand as it is written; else (an operator, a type assertion kept in
                // the text...) parenthesised, its canonical printing saying how it binds.
                let operand = matches!(
                    strip(init),
                    Expr::Ident(_)
                        | Expr::Member(_)
                        | Expr::Lit(_)
                        | Expr::Tpl(_)
                        | Expr::Array(_)
                        | Expr::Call(_)
                        | Expr::Paren(_)
                );
                let asserted = has_type_assertion(init) && !matches!(init, Expr::Paren(_));
                if asserted || !operand {
                    if value.canonical.is_none() && self.printing {
                        let printed = rewrite::print_reference(self, init);
                        value.canonical = Some(Box::new(printed));
                    }
                    value.parenthesise();
                }
                // `const { limit } = args`: the names are parameters too.
                let param = match strip(init) {
                    Expr::Ident(a) if &*a.sym == "args" && self.lookup("args").is_none() => {
                        Some(String::new())
                    }
                    _ => parameter_name(init),
                };
                self.bind_expression_pattern(pat, value, param);
            }
            Some(construct) => {
                let names = self.text(pat.span()).to_owned();
                self.warn(
                    diagnostics::UNMODELLED_DECLARATION,
                    format!(
                        "`{names}`: pml does not model {construct}; where the program uses it, the structure refers to it by name"
                    ),
                    pat.span(),
                );
                self.bind_opaque(pat);
            }
        }
    }

    pub(super) fn bind_expression_pattern(
        &mut self,
        pat: &Pat,
        value: Written,
        param: Option<String>,
    ) {
        let reads = &value.reads;
        match pat {
            Pat::Ident(id) => {
                let param = param.filter(|p| !p.is_empty());
                let binding = match self.is_mutated(&id.id.sym) {
                    // Changed in place later: the expression is only its first value, and the
                    // results it holds (or parts of) change with it.
                    true => {
                        for r in reads {
                            self.mark_changed(r);
                        }
                        // An alias of a parameter changed: the function changes its parameter.
                        if let Some(&f) = self.functions.last() {
                            let id = self.nodes[f].id.clone();
                            let aliases_param = (self.function_params.get(&id))
                                .is_some_and(|p| reads.iter().any(|r| p.contains(r)));
                            if aliases_param {
                                self.param_changers.insert(id);
                            }
                        }
                        Binding::Opaque
                    }
                    false => Binding::Expr { value, param },
                };
                self.bind(&id.id.sym, binding);
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => match fold::prop_name(&kv.key) {
                            Some(key) => {
                                let param = param.as_ref().and_then(|p| parameter_path(p, &key));
                                self.bind_expression_pattern(&kv.value, value.member(&key), param);
                            }
                            None => self.bind_opaque(&kv.value),
                        },
                        ObjectPatProp::Assign(a) if a.value.is_none() => {
                            let key = a.key.id.sym.as_str();
                            let param = param.as_ref().and_then(|p| parameter_path(p, key));
                            let binding = Binding::Expr {
                                value: value.member(key),
                                param,
                            };
                            self.bind(&a.key.id.sym, binding);
                        }
                        ObjectPatProp::Assign(a) => self.bind(&a.key.id.sym, Binding::Opaque),
                        ObjectPatProp::Rest(rest) => self.bind_opaque(&rest.arg),
                    }
                }
            }
            Pat::Array(arr) => {
                for (i, elem) in arr.elems.iter().enumerate() {
                    match elem {
                        Some(Pat::Rest(rest)) => self.bind_opaque(&rest.arg),
                        Some(elem) => {
                            let path = value.member(&format!("[{i}]"));
                            self.bind_expression_pattern(elem, path, None);
                        }
                        None => {}
                    }
                }
            }
            other => self.bind_opaque(other),
        }
    }

    /// `None` when the builder models everything `e` computes (names, literals, node results,
    /// operators, templates, member reads, array and object literals, pure operations and
    /// conversions); else the construct it does not model.
    pub(super) fn unmodelled(&self, e: &Expr, depth: usize) -> Option<String> {
        if depth > 64 {
            return Some("an expression nested this deep".into());
        }
        let span = e.span();
        if self.node_spans.contains_key(&(span.lo.0, span.hi.0)) {
            return None;
        }
        let all = |es: &mut dyn Iterator<Item = &Expr>| {
            for e in es {
                if let Some(what) = self.unmodelled(e, depth + 1) {
                    return Some(what);
                }
            }
            None
        };
        match e {
            Expr::Lit(_) | Expr::Ident(_) | Expr::This(_) => None,
            Expr::Paren(p) => self.unmodelled(&p.expr, depth + 1),
            Expr::TsAs(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsNonNull(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsSatisfies(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsConstAssertion(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsTypeAssertion(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::Tpl(t) => all(&mut t.exprs.iter().map(|e| &**e)),
            Expr::Member(m) => match &m.prop {
                MemberProp::Computed(c) => all(&mut [&*m.obj, &*c.expr].into_iter()),
                _ => self.unmodelled(&m.obj, depth + 1),
            },
            Expr::Bin(b) => all(&mut [&*b.left, &*b.right].into_iter()),
            Expr::Unary(u) if u.op != swc_ecma_ast::UnaryOp::Delete => {
                self.unmodelled(&u.arg, depth + 1)
            }
            Expr::Cond(c) => all(&mut [&*c.test, &*c.cons, &*c.alt].into_iter()),
            Expr::Seq(q) => all(&mut q.exprs.iter().map(|e| &**e)),
            Expr::Array(a) => all(&mut a.elems.iter().flatten().map(|e| &*e.expr)),
            Expr::Object(o) => o.props.iter().find_map(|p| match p {
                PropOrSpread::Spread(s) => self.unmodelled(&s.expr, depth + 1),
                PropOrSpread::Prop(p) => match &**p {
                    Prop::Shorthand(_) => None,
                    Prop::KeyValue(kv) => {
                        let key = match &kv.key {
                            swc_ecma_ast::PropName::Computed(c) => {
                                self.unmodelled(&c.expr, depth + 1)
                            }
                            _ => None,
                        };
                        key.or_else(|| self.unmodelled(&kv.value, depth + 1))
                    }
                    _ => Some("an object literal with methods or accessors".into()),
                },
            }),
            Expr::Call(call) => self.unmodelled_call(call, depth),
            Expr::New(n) => {
                let pure = matches!(strip(&n.callee), Expr::Ident(c)
                    if PURE_CONSTRUCTORS.contains(&&*c.sym) && self.lookup(&c.sym).is_none());
                if !pure {
                    let callee = self.text(n.callee.span());
                    return Some(format!("`new {}`", clip(callee)));
                }
                all(&mut n.args.iter().flatten().map(|a| &*a.expr))
            }
            Expr::Arrow(a) => match &*a.body {
                ArrowFunctionBody::Expr(body) => self.unmodelled(body, depth + 1),
                ArrowFunctionBody::FunctionBody(_) => Some("a callback with statements".into()),
            },
            Expr::Await(_) => Some("an `await` of something that is not a tool call".into()),
            Expr::Assign(_) => Some("an assignment inside an initializer".into()),
            Expr::Update(_) => Some("an increment or decrement inside an initializer".into()),
            Expr::TaggedTpl(t) => Some(format!(
                "the tagged template `{}`",
                clip(self.text(t.tag.span()))
            )),
            Expr::Class(_) => Some("a class".into()),
            Expr::Fn(_) => Some("a function expression".into()),
            Expr::Yield(_) => Some("`yield`".into()),
            Expr::OptChain(_) => Some("an optional call or member chain (`?.`)".into()),
            Expr::Unary(_) => Some("`delete`".into()),
            _ => Some("this kind of expression".into()),
        }
    }

    /// [`Builder::unmodelled`] for a call: conversions and pure operations over modelled
    /// operands are modelled.
    pub(super) fn unmodelled_call(&self, call: &CallExpr, depth: usize) -> Option<String> {
        let Callee::Expr(callee) = &call.callee else {
            return Some("`super(...)` or `import(...)`".into());
        };
        let pure = match strip(callee) {
            Expr::Ident(f) => PURE_FUNCTIONS.contains(&&*f.sym) && self.lookup(&f.sym).is_none(),
            Expr::Member(m) => match (&m.prop, strip(&m.obj)) {
                (MemberProp::Ident(method), Expr::Ident(ns))
                    if self.lookup(&ns.sym).is_none()
                        && pml_pure_ops::static_operation(&ns.sym, &method.sym).is_some() =>
                {
                    true
                }
                (MemberProp::Ident(method), _) => {
                    pml_pure_ops::method_operation(&method.sym).is_some()
                        && self.unmodelled(&m.obj, depth + 1).is_none()
                }
                _ => false,
            },
            _ => false,
        };
        if !pure {
            return Some(format!("the call of `{}`", clip(self.text(callee.span()))));
        }
        call.args
            .iter()
            .find_map(|a| self.unmodelled(&a.expr, depth + 1))
    }
}
