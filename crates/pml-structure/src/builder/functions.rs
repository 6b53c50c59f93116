//! The builder's walk over `Promise.all` forks and local functions: helpers, their calls,
//! methods of classes and object literals, functions used as values, parameters.

use super::*;

impl<'a> Builder<'a> {
    // ----- Promise.all --------------------------------------------------------------------

    pub(super) fn fork(&mut self, call: &CallExpr) -> Out {
        // `Promise.allSettled`: a rejection of one of its promises is a value, not a throw.
        let settled = matches!(&call.callee, Callee::Expr(callee)
            if matches!(strip(callee), Expr::Member(m)
                if matches!(&m.prop, MemberProp::Ident(p) if &*p.sym == "allSettled")));
        self.guarded += usize::from(settled);
        let out = self.fork_of(call);
        self.guarded -= usize::from(settled);
        out
    }

    /// [`Builder::fork`].
    pub(super) fn fork_of(&mut self, call: &CallExpr) -> Out {
        let Some(arg) = call.args.first() else {
            return Out::default();
        };
        let cp = self.checkpoint();
        let node = self.new_node(NodeKind::Fork, call.span);
        let f = self.add_node(node);
        let fork_node = self.nodes.len() - 1;
        if let Callee::Expr(callee) = &call.callee {
            if let Expr::Member(m) = strip(callee) {
                let promise = self.offsets(m.obj.span());
                self.probe(ProbeKind::Fork, Site::Fork { promise });
            }
        }
        self.scopes.push(Scope::Fork { id: f.clone() });
        let start = self.frontier.clone();
        let mut exits: Vec<Pending> = Vec::new();
        let mut elements: Vec<Option<String>> = Vec::new();
        let mut any = false;
        let mut run_branch = |b: &mut Self, f: &mut dyn FnMut(&mut Self) -> Option<String>| {
            b.frontier = start.clone();
            b.live = true;
            let before = b.nodes.len();
            let value = f(b);
            if b.nodes.len() > before {
                any = true;
                if b.live {
                    exits.extend(std::mem::take(&mut b.frontier));
                }
            }
            value
        };
        match strip(&arg.expr) {
            Expr::Array(arr) if arg.spread.is_none() => {
                for elem in &arr.elems {
                    let value = match elem {
                        Some(e) if e.spread.is_none() => {
                            run_branch(self, &mut |b| b.expr(&e.expr, Position::Argument).value)
                        }
                        Some(e) => {
                            run_branch(self, &mut |b| {
                                b.expr(&e.expr, Position::Nested);
                                None
                            });
                            None
                        }
                        None => None,
                    };
                    elements.push(value);
                }
            }
            Expr::Call(map_call) if map_with_tool_callback(map_call, &self.agents).is_some() => {
                let Some((m, cb)) = map_with_tool_callback(map_call, &self.agents) else {
                    return Out::default();
                };
                self.frontier = start.clone();
                let recv = self.expr(&m.obj, Position::Nested);
                match fold::fold(&m.obj, self) {
                    // (A callback that calls itself runs more times than there are elements.)
                    Some(JsValue::Array(items)) if !cb.calls_itself() => {
                        // Unroll: one task per element, the parameter bound to the element.
                        for (index, item) in items.into_iter().enumerate() {
                            let value = run_branch(self, &mut |b| {
                                b.callback_body_with_index(
                                    &cb,
                                    Binding::Element(item.clone()),
                                    index,
                                    Position::Argument,
                                    (ProbeKind::ForkCallback, fork_node),
                                )
                            });
                            elements.push(value);
                        }
                    }
                    _ => {
                        let collection = match recv.value {
                            Some(v) => Written::path(v),
                            None => self.written(&m.obj),
                        };
                        let template = Binding::Template(collection.each());
                        run_branch(self, &mut |b| {
                            b.callback_body(
                                &cb,
                                template.clone(),
                                Position::Argument,
                                (ProbeKind::ForkCallback, fork_node),
                            )
                        });
                    }
                }
            }
            other => {
                // `Promise.all(promises)`: nothing to fork statically.
                self.scopes.pop();
                self.rollback(cp);
                self.expr(other, Position::Nested);
                return Out::default();
            }
        }
        self.finish_fork(cp, f, exits, elements, any, call.span)
    }

    pub(super) fn finish_fork(
        &mut self,
        cp: Checkpoint,
        f: String,
        exits: Vec<Pending>,
        elements: Vec<Option<String>>,
        any: bool,
        call: SwcSpan,
    ) -> Out {
        self.scopes.pop();
        if !any {
            // No call inside: a fork/join around nothing would only be noise.
            self.rollback(cp);
            self.live = true;
            return Out::default();
        }
        // The fork is the first node added after the checkpoint.
        let span = self
            .nodes
            .get(cp.nodes)
            .filter(|n| n.id == f)
            .map(|n| n.span);
        self.frontier = exits;
        let id = self.next_id(NodeKind::Join);
        // The join has no syntax of its own: it shares the `Promise.all(...)` span.
        let join = Node::new(id, NodeKind::Join, span.unwrap_or_default());
        let j = self.add_node(join);
        let call = self.offsets(call);
        self.probe(ProbeKind::Join, Site::Join { call });
        Out {
            value: Some(j),
            elements: Some(elements),
        }
    }

    /// Evaluate a callback's body with its first parameter bound to `param`.
    pub(super) fn callback_body(
        &mut self,
        cb: &ArrowOrFn,
        param: Binding,
        pos: Position,
        repeat: (ProbeKind, usize),
    ) -> Option<String> {
        self.callback_body_with_index(cb, param, usize::MAX, pos, repeat)
    }

    /// Where the iteration variable of a callback run once per element goes.
    pub(super) fn callback_start(&self, cb: &ArrowOrFn) -> Body {
        let span = self.offsets(cb.body_span);
        match cb.body {
            CallbackBody::Expr(_) => Body::Expression(span),
            CallbackBody::Block(_) => Body::Block(span.0),
        }
    }

    /// Walks the body of a callback that runs once per element (`repeat`: the probe kind and
    /// the index of the loop or fork node it belongs to).
    pub(super) fn callback_body_with_index(
        &mut self,
        cb: &ArrowOrFn,
        param: Binding,
        index: usize,
        pos: Position,
        (kind, node): (ProbeKind, usize),
    ) -> Option<String> {
        let start = self.callback_start(cb);
        self.probes.enter(kind, node, start);
        let value = self.callback_body_inner(cb, param, index, pos);
        self.probes.leave();
        value
    }

    pub(super) fn callback_body_inner(
        &mut self,
        cb: &ArrowOrFn,
        param: Binding,
        index: usize,
        pos: Position,
    ) -> Option<String> {
        self.push_env();
        for (i, p) in cb.params.iter().enumerate() {
            match (i, p) {
                (0, Pat::Ident(id)) => self.bind(&id.id.sym, param.clone()),
                (1, Pat::Ident(id)) if index != usize::MAX => {
                    self.bind(&id.id.sym, Binding::Element(JsValue::Num(index as f64)))
                }
                (_, p) => self.bind_opaque(p),
            }
        }
        let value = match cb.body {
            CallbackBody::Expr(e) => self.expr(e, pos).value,
            CallbackBody::Block(stmts) => {
                let mut value = None;
                self.hoist(stmts);
                for stmt in stmts {
                    if !self.live {
                        break;
                    }
                    if let Stmt::Return(r) = stmt {
                        if let Some(arg) = &r.arg {
                            value = self.expr(arg, pos).value;
                        }
                        break;
                    }
                    self.stmt(stmt);
                }
                self.unreached_functions(stmts);
                value
            }
        };
        self.pop_env();
        self.live = true;
        value
    }

    // ----- local functions ----------------------------------------------------------------

    /// A node for the local function at `span`. It is not part of the control flow: the nodes
    /// of its body are scoped to it. Returns its index.
    pub(super) fn declare_function(
        &mut self,
        code: FunctionOf<'_>,
        span: SwcSpan,
        name: Option<&str>,
    ) -> usize {
        let mut node = self.new_node(NodeKind::Function, span);
        node.name = name.map(str::to_owned);
        if !self.copies(span) {
            // Refused (see `Builder::copies`): nothing more is copied or walked.
            self.nodes.push(node);
            return self.nodes.len() - 1;
        }
        node.code = Some(self.text(span).to_string());
        if self.printing {
            node.canonical = Some(Box::new(NodeCanonical {
                code: Some(rewrite::print_function(self, code)),
                condition: None,
                ..Default::default()
            }));
        }
        node.scope = self.scopes.last().cloned();
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Function declarations are hoisted: their nodes exist and their names are bound from the
    /// start of the block; their bodies are walked where they stand.
    pub(super) fn hoist(&mut self, stmts: &[Stmt]) {
        let mut declared = Vec::new();
        for stmt in stmts {
            if let Stmt::Decl(Decl::Fn(f)) = stmt {
                let span = f.function.span;
                let code = FunctionOf::Function(&f.function);
                let index = self.declare_function(code, span, Some(&f.ident.sym));
                let id = self.nodes[index].id.clone();
                self.bind(&f.ident.sym, Binding::Function(id));
                self.hoisted.insert((span.lo.0, span.hi.0), index);
                declared.push(f);
            }
        }
        // Which of them call tools, through each other too (a fixed point, at most one round
        // per function).
        let mut changed = !declared.is_empty();
        while changed {
            changed = false;
            for f in &declared {
                if !self.agents.contains(&f.ident.sym)
                    && contains_agent_call(&*f.function, &self.agents)
                {
                    self.agents.insert(f.ident.sym.clone());
                    changed = true;
                }
            }
        }
    }

    /// Walks the body of the function node at `index`, once: its nodes are in the function's
    /// scope and its own control flow starts at the function node. `first` binds the first
    /// parameter (a `.then` callback's value); the others are unknown.
    pub(super) fn function_body(&mut self, index: usize, f: &ArrowOrFn, first: Option<Binding>) {
        if self.too_deep.is_some() {
            return;
        }
        let id = self.nodes[index].id.clone();
        let outer = Pending {
            from: id.clone(),
            outcome: None,
        };
        let frontier = std::mem::replace(&mut self.frontier, vec![outer]);
        let live = std::mem::replace(&mut self.live, true);
        let breaks = std::mem::take(&mut self.breaks);
        let loops = std::mem::take(&mut self.loops);
        self.scopes.push(Scope::Function { id });
        self.functions.push(index);
        self.push_env();
        for (i, p) in f.params.iter().enumerate() {
            match (i, p, &first) {
                (0, Pat::Ident(ident), Some(value)) => self.bind(&ident.id.sym, value.clone()),
                (_, Pat::Assign(a), _) => {
                    // A default value is computed when the argument is missing.
                    self.expr(&a.right, Position::Nested);
                    self.bind_opaque(&a.left);
                }
                _ => self.bind_opaque(p),
            }
        }
        // One that changes a parameter in place changes what its calls pass (marked in
        // `finish`).
        let mut declared = Vec::new();
        for p in &f.params {
            rewrite::pattern_names(p, &mut declared);
        }
        let names: Vec<String> = declared.iter().map(|n| n.to_string()).collect();
        self.function_params
            .insert(self.nodes[index].id.clone(), names);
        if self
            .mutations()
            .is_none_or(|m| declared.iter().any(|n| m.names.contains(n.as_str())))
        {
            self.param_changers.insert(self.nodes[index].id.clone());
        }
        let params: Option<Vec<String>> = (f.params.iter())
            .map(|p| match p {
                // By the names expressions read them by.
                Pat::Ident(ident) => Some(crate::model::escape_name(&ident.id.sym).into_owned()),
                _ => None,
            })
            .collect();
        // A generator's call runs none of its body: nothing in it follows from the call.
        if f.generator {
            self.generators.insert(index);
        }
        let params = params.filter(|names| {
            !f.generator
                && self.mutations().is_some_and(|m| {
                    (names.iter()).all(|n| !m.names.contains(n) && !m.reassigned.contains_key(n))
                })
        });
        self.nodes[index].params = params;
        let start = self.callback_start(f);
        self.probes.enter(ProbeKind::Function, index, start);
        match f.body {
            CallbackBody::Expr(e) => {
                self.expr(e, Position::Statement);
            }
            CallbackBody::Block(stmts) => self.stmts(stmts),
        }
        self.probes.leave();
        self.pop_env();
        self.functions.pop();
        self.scopes.pop();
        self.frontier = frontier;
        self.live = live;
        self.breaks = breaks;
        self.loops = loops;
    }

    /// `load(a, b)`: a call of the local function `function` (its arguments by position).
    pub(super) fn local_call(
        &mut self,
        call: &CallExpr,
        function: String,
        name: Option<String>,
        callee: SwcSpan,
    ) -> String {
        let mut arguments = Arguments::new();
        for (i, a) in call.args.iter().enumerate() {
            let value = match a.spread {
                None => self.argument(&a.expr),
                Some(_) => {
                    let value = self.expr(&a.expr, Position::Argument).value;
                    value.map_or_else(|| self.reference_to(&a.expr), ArgumentValue::reference)
                }
            };
            let key = match a.spread {
                None => Key::Static(i.to_string()),
                Some(_) => Key::Spread(i),
            };
            arguments.insert(key, value);
        }
        let recursive = (self.functions.iter())
            .filter_map(|&f| self.nodes.get(f))
            .find(|n| n.id == function)
            .map(|n| n.span);
        if let Some(defined) = recursive {
            let name = self.text(callee).to_owned();
            self.warn_with(
                diagnostics::RECURSION,
                format!(
                    "`{name}` calls itself (directly or through another function): its body is in the structure once"
                ),
                call.span,
                vec![(defined, format!("`{name}` is defined here"))],
            );
        }
        self.call_node(function, name, arguments, call.span, callee)
    }

    /// The node of a call of a local function; `function` is where the called function's
    /// value is (the callee, or a callback).
    pub(super) fn call_node(
        &mut self,
        target: String,
        name: Option<String>,
        arguments: Arguments,
        span: SwcSpan,
        function: SwcSpan,
    ) -> String {
        let mut node = self.new_node(NodeKind::Call, span);
        node.function = Some(target);
        node.name = name;
        if !arguments.is_empty() {
            node.arguments = Some(arguments);
        }
        let id = self.add_node(node);
        let function = self.offsets(function);
        self.probe(ProbeKind::Invoke, Site::Invoke { function });
        id
    }

    /// A tool used as a value (`names.map(mcp.fs.read)`, `then(read)`): a node of its own,
    /// without arguments (they are known only when a call is made through it); the value is
    /// wrapped so that every call made through it is traced under that node.
    pub(super) fn tool_value(&mut self, e: &Expr, server: &str, tool: &str) {
        let mut node = self.new_node(NodeKind::Task, e.span());
        node.tool = Some(concat(&[server, ":", tool]));
        let id = self.add_node(node);
        self.warn(
            diagnostics::FUNCTION_VALUE,
            format!(
                "{id}: `{}` is used as a value: the calls made through it are traced under {id}, but when, how often and with which arguments is up to whoever calls it",
                self.text(e.span())
            ),
            e.span(),
        );
        let callee = self.offsets(e.span());
        self.probe(
            ProbeKind::Call,
            Site::Call {
                callee,
                awaited: false,
            },
        );
    }

    /// What `e` is when it names `mcp`, one of its servers or tools (directly or through an
    /// alias).
    pub(super) fn mcp_alias(&self, e: &Expr) -> Option<Binding> {
        match strip(e) {
            Expr::Ident(id) => match self.lookup(&id.sym) {
                None if &*id.sym == "mcp" => Some(Binding::Mcp),
                Some(b @ (Binding::Mcp | Binding::McpServer(_) | Binding::McpTool(..))) => {
                    Some(b.clone())
                }
                _ => None,
            },
            Expr::Member(m) => {
                let base = self.mcp_alias(&m.obj)?;
                alias_member(&base, prop_static_name(&m.prop, self)?)
            }
            _ => None,
        }
    }

    /// `const fs = mcp.filesystem`, `const { filesystem: fs } = mcp`: names for `mcp`'s parts.
    pub(super) fn bind_alias(&mut self, pat: &Pat, alias: Binding) {
        match pat {
            Pat::Ident(id) => {
                self.agents.insert(id.id.sym.clone());
                self.bind(&id.id.sym, alias);
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => {
                            match fold::prop_name(&kv.key).and_then(|k| alias_member(&alias, k)) {
                                Some(part) => self.bind_alias(&kv.value, part),
                                None => self.bind_opaque(&kv.value),
                            }
                        }
                        ObjectPatProp::Assign(a) if a.value.is_none() => {
                            let name = &a.key.id.sym;
                            match alias_member(&alias, name.as_str().to_owned()) {
                                Some(part) => {
                                    self.agents.insert(name.clone());
                                    self.bind(name, part);
                                }
                                None => self.bind(name, Binding::Opaque),
                            }
                        }
                        ObjectPatProp::Assign(a) => self.bind(&a.key.id.sym, Binding::Opaque),
                        ObjectPatProp::Rest(rest) => self.bind_opaque(&rest.arg),
                    }
                }
            }
            other => self.bind_opaque(other),
        }
    }
}
