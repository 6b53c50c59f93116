//! The builder's walk over expressions and calls: code operations, decisions made by
//! operators, member paths of results, MCP and capability calls and their arguments,
//! method calls over callbacks.

use super::*;

impl<'a> Builder<'a> {
    // ----- expressions --------------------------------------------------------------------

    pub(super) fn expr(&mut self, e: &Expr, pos: Position) -> Out {
        let out = self.expr_inner(e, pos);
        if let Some(v) = &out.value {
            // Names and member paths of names are rewritten through their bindings; only
            // expressions that *compute* a node's result need their span remembered.
            if !matches!(e, Expr::Ident(_) | Expr::Member(_)) {
                self.record_span(e.span(), v);
            }
        }
        out
    }

    pub(super) fn expr_inner(&mut self, e: &Expr, pos: Position) -> Out {
        match e {
            Expr::Paren(p) => self.expr(&p.expr, pos),
            Expr::Await(a) => {
                let awaited = strip(&a.arg).span();
                self.awaited.insert((awaited.lo.0, awaited.hi.0));
                self.expr(&a.arg, pos)
            }
            Expr::TsAs(x) => self.expr(&x.expr, pos),
            Expr::TsNonNull(x) => self.expr(&x.expr, pos),
            Expr::TsSatisfies(x) => self.expr(&x.expr, pos),
            Expr::TsConstAssertion(x) => self.expr(&x.expr, pos),
            Expr::TsTypeAssertion(x) => self.expr(&x.expr, pos),
            Expr::Call(call) => self.call(call, pos),
            Expr::Ident(id) => match self.lookup(&id.sym) {
                Some(Binding::Node(v)) => Out::value(v.clone()),
                Some(Binding::McpTool(server, tool)) => {
                    let (server, tool) = (server.clone(), tool.clone());
                    self.tool_value(e, &server, &tool);
                    Out::default()
                }
                Some(Binding::Mcp | Binding::McpServer(_)) => {
                    self.tools_out_of_sight(e.span());
                    Out::default()
                }
                None if &*id.sym == "mcp" => {
                    self.tools_out_of_sight(e.span());
                    Out::default()
                }
                _ => Out::default(),
            },
            Expr::Member(m) => match self.mcp_alias(e) {
                Some(Binding::McpTool(server, tool)) => {
                    self.tool_value(e, &server, &tool);
                    Out::default()
                }
                Some(Binding::Mcp | Binding::McpServer(_)) => {
                    self.tools_out_of_sight(e.span());
                    Out::default()
                }
                _ => self.member(m, pos),
            },
            Expr::Array(arr) => {
                let child = if pos == Position::Nested {
                    Position::Nested
                } else {
                    Position::Argument
                };
                let mut elements = Vec::with_capacity(arr.elems.len());
                for elem in arr.elems.iter() {
                    elements.push(match elem {
                        Some(ExprOrSpread { expr, spread: None }) => self.expr(expr, child).value,
                        Some(ExprOrSpread { expr, .. }) => {
                            self.expr(expr, child);
                            None
                        }
                        None => None,
                    });
                }
                Out {
                    value: None,
                    elements: Some(elements),
                }
            }
            Expr::Object(obj) => {
                let child = if pos == Position::Nested {
                    Position::Nested
                } else {
                    Position::Argument
                };
                for prop in &obj.props {
                    match prop {
                        PropOrSpread::Spread(s) => {
                            self.expr(&s.expr, child);
                        }
                        PropOrSpread::Prop(p) => match &**p {
                            Prop::KeyValue(kv) => {
                                self.expr(&kv.value, child);
                            }
                            Prop::Getter(_) | Prop::Setter(_) | Prop::Method(_) => {
                                self.object_method(p);
                            }
                            Prop::Shorthand(_) => {}
                            Prop::Assign(a) => {
                                self.expr(&a.value, Position::Nested);
                            }
                        },
                    }
                }
                Out::default()
            }
            Expr::Cond(c) => self.ternary(c, pos),
            Expr::Bin(bin) => self.binary(bin, e, pos),
            Expr::Assign(a) => {
                let out = match self.logical_assignment(a) {
                    true => Out::default(),
                    false => self.expr(&a.right, pos),
                };
                if let Some(name) = a.left.as_ident() {
                    let name = name.id.sym.as_str().to_owned();
                    // `x += y` combines the old value: x no longer holds y's result. After a
                    // nested block, or in a loop or a function, which value x holds depends
                    // on what ran: it is unknown.
                    let plain = a.op == swc_ecma_ast::AssignOp::Assign
                        && self.declared_here(&name)
                        && self.reassigned(&name).is_some_and(|r| !r.repeated);
                    match &out.value {
                        Some(v) if plain => {
                            self.bind_existing(&name, Binding::Node(v.clone()));
                            self.variable_bindings.insert(name, v.clone());
                        }
                        _ => self.bind_existing(&name, Binding::Opaque),
                    }
                } else if let swc_ecma_ast::AssignTarget::Pat(p) = &a.left {
                    // `[a, b] = ...`, `({ a } = ...)`: the names hold new values.
                    let pat: Pat = p.clone().into();
                    let mut names = Vec::new();
                    rewrite::pattern_names(&pat, &mut names);
                    for name in names {
                        self.bind_existing(&name, Binding::Opaque);
                    }
                }
                if a.op == swc_ecma_ast::AssignOp::Assign {
                    out
                } else {
                    Out::default()
                }
            }
            Expr::Tpl(tpl) => {
                // Operations in interpolations are nodes, like operands.
                let inner = match pos {
                    Position::Nested => Position::Nested,
                    _ => Position::Argument,
                };
                for e in &tpl.exprs {
                    self.expr(e, inner);
                }
                Out::default()
            }
            Expr::TaggedTpl(t) => {
                self.expr(&t.tag, Position::Nested);
                for e in &t.tpl.exprs {
                    self.expr(e, Position::Nested);
                }
                Out::default()
            }
            Expr::Unary(u) => {
                self.expr(&u.arg, Position::Nested);
                Out::default()
            }
            Expr::Update(u) => {
                self.expr(&u.arg, Position::Nested);
                if let Expr::Ident(id) = strip(&u.arg) {
                    self.bind_existing(&id.sym, Binding::Opaque);
                }
                Out::default()
            }
            Expr::Seq(s) => {
                let mut last = Out::default();
                for e in &s.exprs {
                    last = self.expr(e, Position::Nested);
                }
                last
            }
            Expr::New(n) => {
                self.expr(&n.callee, Position::Nested);
                for a in n.args.iter().flatten() {
                    self.expr(&a.expr, Position::Nested);
                }
                Out::default()
            }
            Expr::OptChain(o) => {
                // `a?.b(await f())`: what follows `?.` runs only when `a` is not nullish.
                if !self.optional_chain(o) {
                    self.nested_calls_in(e);
                }
                Out::default()
            }
            Expr::Arrow(_) | Expr::Fn(_) => {
                // A function used as a value (passed, returned, stored): walked once if it calls
                // tools, so that what it can do is in the structure.
                if !self.calls_tools(e) {
                    return Out::default();
                }
                let Some(f) = callback(e) else {
                    return Out::default();
                };
                let name = match e {
                    Expr::Fn(f) => f.ident.as_ref().map(|i| i.sym.as_str()),
                    _ => None,
                };
                let index = self.declare_function(FunctionOf::Expr(e), e.span(), name);
                let id = self.nodes[index].id.clone();
                self.warn(
                    diagnostics::FUNCTION_VALUE,
                    format!(
                        "{id}: a function used as a value calls MCP tools; its calls are in the structure, but when and how often it runs is up to whoever calls it"
                    ),
                    e.span(),
                );
                self.function_body(index, &f, None);
                Out::value(id)
            }
            Expr::Class(c) => {
                let name = c.ident.as_ref().map(|i| i.sym.as_str());
                self.class_methods(&c.class, name);
                Out::default()
            }
            Expr::Yield(y) => {
                if let Some(arg) = &y.arg {
                    self.expr(arg, Position::Nested);
                }
                Out::default()
            }
            _ => Out::default(),
        }
    }

    /// `mcp` or one of its servers used as a value (given to a function, stored in an object or
    /// a field): whatever holds it may call any of its tools, where the structure cannot see.
    pub(super) fn tools_out_of_sight(&mut self, span: SwcSpan) {
        self.warn(
            diagnostics::UNANALYSED_CODE,
            format!(
                "`{}` is used as a value: the tools called through it are not in the structure (nothing is read ahead of the program)",
                self.text(span)
            ),
            span,
        );
    }

    /// Does this expression call an MCP tool or a capability? Memoised per sub-expression, so
    /// asking at every level of a deep `a && (b && (c && ...))` stays linear.
    pub(super) fn calls_tools(&mut self, e: &Expr) -> bool {
        rewrite::calls_tools_memo(e, &mut self.agent_call_memo, &self.agents)
    }

    /// Rebind a name in the scope that declared it (assignment to an existing variable).
    /// Whether `name` is declared in the innermost block (or not declared at all).
    pub(super) fn declared_here(&self, name: &str) -> bool {
        self.env
            .get(name)
            .and_then(|stack| stack.last())
            .is_none_or(|(depth, _)| *depth == self.env_scopes.len())
    }

    pub(super) fn bind_existing(&mut self, name: &str, binding: Binding) {
        match self.env.get_mut(name).and_then(|stack| stack.last_mut()) {
            Some((_, slot)) => *slot = binding,
            None => self.bind(name, binding),
        }
    }

    /// Walk an expression only for the MCP calls it contains.
    pub(super) fn nested_calls_in(&mut self, e: &Expr) {
        match e {
            Expr::OptChain(o) => match &*o.base {
                swc_ecma_ast::OptChainBase::Member(m) => {
                    self.expr(&m.obj, Position::Nested);
                }
                swc_ecma_ast::OptChainBase::Call(c) => {
                    self.expr(&c.callee, Position::Nested);
                    for a in &c.args {
                        self.expr(&a.expr, Position::Nested);
                    }
                }
            },
            other => {
                self.expr(other, Position::Nested);
            }
        }
    }

    pub(super) fn member(&mut self, m: &MemberExpr, pos: Position) -> Out {
        let obj_pos = if pos == Position::Nested {
            Position::Nested
        } else {
            pos
        };
        let obj = self.expr(&m.obj, obj_pos);
        if let MemberProp::Computed(c) = &m.prop {
            // Calls inside the key run whether or not the path is known.
            self.expr(&c.expr, Position::Nested);
        }
        // Most member expressions (`args.x`, `item.name`) are not paths of a node's result.
        let Some(base) = obj.value else {
            return Out::default();
        };
        match &m.prop {
            MemberProp::Ident(name) => Out::value(member_path(&base, &name.sym)),
            MemberProp::Computed(c) => match fold::fold(&c.expr, self) {
                Some(JsValue::Num(n)) if n.fract() == 0.0 && n >= 0.0 => {
                    Out::value(member_path(&base, &format!("[{}]", n as u64)))
                }
                Some(JsValue::Str(key)) => Out::value(member_path(&base, &key)),
                _ => Out::default(),
            },
            MemberProp::PrivateName(_) => Out::default(),
        }
    }

    pub(super) fn ternary(&mut self, c: &swc_ecma_ast::CondExpr, pos: Position) -> Out {
        self.expr(&c.test, Position::Nested);
        let cp = self.checkpoint();
        let branch_pos = if pos == Position::Nested {
            Position::Nested
        } else {
            Position::Argument
        };
        let d = self.decision(c.span, &c.test);
        let test = self.offsets(c.test.span());
        self.probe(ProbeKind::Decision, Site::Test { test });
        let after = self.nodes.len();
        let (mut exits, _) = self.branch(&d, "true", |b| {
            b.expr(&c.cons, branch_pos);
        });
        exits.extend(
            self.branch(&d, "false", |b| {
                b.expr(&c.alt, branch_pos);
            })
            .0,
        );
        if self.nodes.len() == after {
            self.rollback(cp);
            self.live = true;
            return Out::default();
        }
        self.merge(exits);
        Out::default()
    }

    /// A decision on `left` by `op` (`&&`: the branch runs when it is truthy, `||`: falsy,
    /// `??`: nullish), the branch walked by `walk`, reported by the probe at `site`.
    pub(super) fn guard(
        &mut self,
        left: &Expr,
        span: SwcSpan,
        op: BinaryOp,
        site: Site,
        walk: impl FnOnce(&mut Self),
    ) {
        self.guard_on(left, span, op, false, site, walk);
    }

    /// [`Builder::guard`]; with `present`, a `??` decision whose branch runs when `left` is
    /// not nullish (what follows `?.`).
    fn guard_on(
        &mut self,
        left: &Expr,
        span: SwcSpan,
        op: BinaryOp,
        present: bool,
        site: Site,
        walk: impl FnOnce(&mut Self),
    ) {
        let mut node = self.new_node(NodeKind::Decision, span);
        let left_text = self.written(left);
        let printed = match (left_text.canonical, self.printing) {
            (Some(c), _) => Some(*c),
            (None, true) => Some(rewrite::print_reference(self, left)),
            (None, false) => None,
        };
        let (condition, leaves, printed, outcome) = match op {
            BinaryOp::LogicalAnd => (left_text.text, left_text.leaves, printed, "true"),
            BinaryOp::LogicalOr => (left_text.text, left_text.leaves, printed, "false"),
            _ => (
                format!("({}) == null", left_text.text),
                left_text.leaves.shifted(1),
                printed.map(|p| p.equals_null()),
                if present { "false" } else { "true" },
            ),
        };
        node.condition = Some(condition);
        node.condition_leaves = leaves;
        node.reads = left_text.reads;
        node.canonical = printed.map(|printed| {
            Box::new(NodeCanonical {
                code: None,
                condition: Some(printed),
                ..Default::default()
            })
        });
        let d = self.add_node(node);
        let kind = match op {
            BinaryOp::NullishCoalescing => ProbeKind::Nullish,
            _ => ProbeKind::Decision,
        };
        self.probe(kind, site);
        let other = if outcome == "true" { "false" } else { "true" };
        let (mut exits, _) = self.branch(&d, outcome, walk);
        exits.push(Pending {
            from: d,
            outcome: Some(other.into()),
        });
        self.merge(exits);
    }

    /// An optional chain whose arguments or computed keys after its first `?.` call tools: a
    /// decision on what comes before it (nullish or not), reported as the first of them starts
    /// (wrapping a callee would lose its `this`). False when nothing after `?.` calls a tool.
    fn optional_chain(&mut self, o: &swc_ecma_ast::OptChainExpr) -> bool {
        use swc_ecma_ast::OptChainBase;
        // The links from the first `?.` on, in evaluation order; `root` is what precedes it.
        let mut links: Vec<&OptChainBase> = Vec::new();
        let mut at = o;
        let root = loop {
            links.push(&at.base);
            let inner = match &*at.base {
                OptChainBase::Member(m) => &m.obj,
                OptChainBase::Call(c) => &c.callee,
            };
            match &**inner {
                Expr::OptChain(next) if !at.optional => at = next,
                _ => break inner,
            }
        };
        links.reverse();
        let mut conditional: Vec<&Expr> = Vec::new();
        for link in &links {
            match link {
                OptChainBase::Member(m) => {
                    if let MemberProp::Computed(c) = &m.prop {
                        conditional.push(&c.expr);
                    }
                }
                OptChainBase::Call(c) => conditional.extend(c.args.iter().map(|a| &*a.expr)),
            }
        }
        if !conditional.iter().any(|e| self.calls_tools(e)) {
            return false;
        }
        self.expr(root, Position::Nested);
        let first = self.offsets(conditional[0].span());
        let site = Site::Taken {
            at: first,
            taken: Taken::NotNullish,
        };
        let op = BinaryOp::NullishCoalescing;
        self.guard_on(root, o.span, op, true, site, |b| {
            for e in conditional {
                b.expr(e, Position::Nested);
            }
        });
        true
    }

    /// `x ||= await f()`, `x &&= ...`, `x ??= ...`: the right side runs only for one outcome of
    /// `x`, reported where it starts (the target cannot be wrapped).
    fn logical_assignment(&mut self, a: &swc_ecma_ast::AssignExpr) -> bool {
        use swc_ecma_ast::{AssignOp, AssignTarget, SimpleAssignTarget};
        let op = match a.op {
            AssignOp::AndAssign => BinaryOp::LogicalAnd,
            AssignOp::OrAssign => BinaryOp::LogicalOr,
            AssignOp::NullishAssign => BinaryOp::NullishCoalescing,
            _ => return false,
        };
        if !self.calls_tools(&a.right) {
            return false;
        }
        let left = match &a.left {
            AssignTarget::Simple(SimpleAssignTarget::Ident(id)) => Expr::Ident(id.id.clone()),
            AssignTarget::Simple(SimpleAssignTarget::Member(m)) => Expr::Member(m.clone()),
            _ => return false,
        };
        if let Expr::Member(m) = &left {
            self.expr(&m.obj, Position::Nested);
        }
        let right = self.offsets(a.right.span());
        let taken = match op {
            BinaryOp::LogicalAnd => Taken::True,
            BinaryOp::LogicalOr => Taken::False,
            _ => Taken::Nullish,
        };
        self.guard(&left, a.span, op, Site::Taken { at: right, taken }, |b| {
            b.expr(&a.right, Position::Nested);
        });
        true
    }

    pub(super) fn binary(
        &mut self,
        bin: &swc_ecma_ast::BinExpr,
        whole: &Expr,
        pos: Position,
    ) -> Out {
        let short_circuit = matches!(
            bin.op,
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::NullishCoalescing
        );
        if short_circuit && self.calls_tools(&bin.right) {
            // `ok && await mcp.a.b()`: the right side runs only for one outcome of the left.
            self.expr(&bin.left, Position::Nested);
            let test = self.offsets(bin.left.span());
            self.guard(&bin.left, bin.span, bin.op, Site::Test { test }, |b| {
                b.expr(&bin.right, Position::Nested);
            });
            return Out::default();
        }
        // Operations among the operands are nodes of their own (`xs.reduce(..) / xs.length`),
        // except on the side of `&&`/`||`/`??` that may not run.
        let mark = self.results.len();
        let operand = match pos {
            Position::Nested => Position::Nested,
            _ => Position::Argument,
        };
        self.expr(&bin.left, operand);
        let right = if short_circuit {
            Position::Nested
        } else {
            operand
        };
        self.expr(&bin.right, right);
        if pos != Position::Statement || fold::fold(whole, self).is_some() {
            return Out::default();
        }
        let Some(op) = pml_pure_ops::binary_operation(bin.op.as_str()) else {
            return Out::default();
        };
        let id = self.code_node(op.tool, bin.span, Code::Expr(whole), None, None, mark);
        Out::value(id)
    }

    /// Create a `code:*` task for `expr` (its source text is the code), with the free variables
    /// of the code as arguments. `code_span` narrows the code for chained calls (`map(...)` of
    /// `xs.filter(...).map(...)`), whose receiver then comes in as the `$receiver` argument.
    /// Operands walked since `mark` whose value is a node's result (an operation, a call) are
    /// read from that node: the code names it (`n1 / xs.length`), and it is an argument.
    pub(super) fn code_node(
        &mut self,
        tool: &str,
        span: SwcSpan,
        whole: Code<'_>,
        code_span: Option<SwcSpan>,
        receiver: Option<String>,
        mark: usize,
    ) -> String {
        let mut node = self.new_node(NodeKind::Task, code_span.unwrap_or(span));
        let (code, operands, replaced) = self.code_with_operands(code_span.unwrap_or(span), mark);
        let mut arguments = Arguments::new();
        if let Some(r) = receiver {
            arguments.insert("$receiver".into(), ArgumentValue::reference(r));
        }
        for id in operands {
            let value = ArgumentValue::reference(id.clone());
            arguments.insert(id.into(), value);
        }
        // The names the code reads, outside the operands read from their nodes.
        let reads = match (code_span, whole) {
            // A chain link: the receiver comes from `$receiver`; only the arguments read names.
            (Some(_), Code::Call(call)) => free_variables_at(&call.args, replaced.clone()),
            (_, Code::Call(call)) => free_variables_at(call, replaced.clone()),
            (_, Code::Expr(e)) => free_variables_at(e, replaced.clone()),
        };
        // What the code reaches outside pure computation: the first global it may not read
        // (a name of the program's own is not the global), or a dynamic import.
        let forbidden = (reads.names.iter().zip(&reads.at))
            .filter(|(name, _)| self.lookup(name).is_none())
            .filter_map(|(name, &at)| pml_pure_ops::forbidden(name).map(|p| (p, at)))
            .chain(reads.dynamic)
            .min_by_key(|&(_, at)| at);
        if let Some((pattern, at)) = forbidden {
            let start = code_span.unwrap_or(span).lo.0;
            let impure = pml_pure_ops::ImpureCode {
                pattern,
                offset: at.saturating_sub(start) as usize,
            };
            let id = node.id.clone();
            // `import()` is said at its keyword.
            let len = pattern.strip_suffix("()").unwrap_or(pattern).len() as u32;
            let reaches = self.span(SwcSpan::new(
                swc_common::BytePos(at),
                swc_common::BytePos(at + len),
            ));
            self.warn_with(
                diagnostics::IMPURE_CODE,
                format!("{id} ({tool}): {impure}"),
                span,
                vec![(reaches, impure.reason().to_owned())],
            );
            node.impure = Some(format!("{pattern} ({})", impure.reason()));
        }
        self.free_variable_arguments(reads.names, &mut arguments);
        let printed = match (code_span, whole) {
            _ if !self.printing => None,
            (Some(_), Code::Call(call)) => {
                let receiver = match &call.callee {
                    Callee::Expr(callee) => match strip(callee) {
                        Expr::Member(m) => Some(m.obj.span()),
                        _ => None,
                    },
                    _ => None,
                };
                Some(rewrite::print_code(
                    self,
                    CodeOf::Call(call),
                    &replaced,
                    receiver,
                ))
            }
            (_, Code::Call(call)) => Some(rewrite::print_code(
                self,
                CodeOf::Call(call),
                &replaced,
                None,
            )),
            (_, Code::Expr(e)) => Some(rewrite::print_code(self, CodeOf::Expr(e), &replaced, None)),
        };
        node.canonical = printed.map(|printed| {
            Box::new(NodeCanonical {
                code: Some(printed),
                condition: None,
                ..Default::default()
            })
        });
        node.tool = Some(tool.to_string());
        node.code = Some(code);
        if !arguments.is_empty() {
            node.arguments = Some(arguments);
        }
        // The operation starts once its last operand is computed.
        let operand = match whole {
            Code::Call(call) => match (call.args.last(), &call.callee) {
                (Some(last), _) => last.expr.span(),
                (None, Callee::Expr(callee)) => match strip(callee) {
                    Expr::Member(m) => m.obj.span(),
                    other => other.span(),
                },
                (None, _) => span,
            },
            Code::Expr(Expr::Bin(b)) => b.right.span(),
            Code::Expr(e) => e.span(),
        };
        let site = Site::Operation {
            whole: self.offsets(span),
            operand: self.offsets(operand),
        };
        let id = self.add_node(node);
        self.probe(ProbeKind::Operation, site);
        id
    }

    /// The source text of `span` with the outermost results walked since `mark` that lie inside
    /// it replaced by their node ids, and those ids (the roots of the paths, once each).
    pub(super) fn code_with_operands(
        &mut self,
        span: SwcSpan,
        mark: usize,
    ) -> (String, Vec<String>, Vec<(u32, u32)>) {
        let (lo, hi) = (span.lo.0, span.hi.0);
        let mut inside: Vec<(u32, u32)> = self
            .results
            .drain(mark.min(self.results.len())..)
            .filter(|&(a, b)| lo <= a && b <= hi && (a, b) != (lo, hi))
            .collect();
        let text = self.text(span);
        if inside.is_empty() {
            return (text.to_owned(), Vec::new(), Vec::new());
        }
        // Outermost first: by start, the longest first; skip what an earlier one covers.
        inside.sort_by_key(|&(a, b)| (a, std::cmp::Reverse(b)));
        let piece = |from: u32, to: u32| {
            let span = SwcSpan::new(swc_common::BytePos(from), swc_common::BytePos(to));
            self.text(span)
        };
        let mut code = String::with_capacity(text.len());
        let mut ids: Vec<String> = Vec::new();
        let mut replaced = Vec::new();
        let mut at = lo;
        for (a, b) in inside {
            let Some(value) = self.node_spans.get(&(a, b)) else {
                continue;
            };
            if a < at {
                continue;
            }
            replaced.push((a, b));
            code.push_str(piece(at, a));
            code.push_str(value);
            let root = path_root(value);
            if !ids.iter().any(|id| id == root) {
                ids.push(root.to_owned());
            }
            at = b;
        }
        code.push_str(piece(at, hi));
        (code, ids, replaced)
    }

    /// Each free variable of some code, with where its value comes from.
    pub(super) fn free_variable_arguments(&self, names: Vec<String>, arguments: &mut Arguments) {
        arguments.reserve(names.len());
        for name in names {
            if arguments.contains_key(name.as_str()) || rewrite::is_global(&name) {
                continue;
            }
            let value = match self.lookup(&name) {
                Some(Binding::Node(v)) => ArgumentValue::reference(v.clone()),
                // Code computes with it: as a literal only when JSON holds it exactly.
                Some(Binding::Literal(v) | Binding::Element(v)) => match v.to_exact_json() {
                    Some(json) => ArgumentValue::literal(json),
                    None => Builder::name_reference(&name),
                },
                Some(Binding::Template(t)) => t.reference(),
                Some(Binding::Function(id)) => ArgumentValue::reference(id.clone()),
                Some(Binding::Expr { param: Some(p), .. }) => ArgumentValue::Parameter {
                    parameter_name: p.clone(),
                },
                Some(Binding::Expr { value, .. }) => value.reference(),
                Some(
                    Binding::Opaque | Binding::Mcp | Binding::McpServer(_) | Binding::McpTool(..),
                )
                | None => Builder::name_reference(&name),
            };
            arguments.insert(name.into(), value);
        }
    }

    // ----- calls --------------------------------------------------------------------------

    pub(super) fn call(&mut self, call: &CallExpr, pos: Position) -> Out {
        let Callee::Expr(callee) = &call.callee else {
            for a in &call.args {
                self.expr(&a.expr, Position::Nested);
            }
            return Out::default();
        };
        match strip(callee) {
            Expr::Ident(name) => {
                if let Some(Binding::Function(id)) = self.lookup(&name.sym) {
                    let id = id.clone();
                    let name = Some(name.sym.as_str().to_owned());
                    return Out::value(self.local_call(call, id, name, callee.span()));
                }
            }
            // An IIFE: `(async () => { ... })()`.
            inner @ (Expr::Arrow(_) | Expr::Fn(_)) => {
                if let Some(f) = callback(inner) {
                    let index = self.declare_function(FunctionOf::Expr(inner), inner.span(), None);
                    let id = self.nodes[index].id.clone();
                    self.function_body(index, &f, None);
                    return Out::value(self.local_call(call, id, None, callee.span()));
                }
            }
            _ => {}
        }
        match classify_callee(callee, self) {
            CalleeKind::Mcp { server, tool } => {
                let id = self.agent_call(call, NodeKind::Task, concat(&[&server, ":", &tool]));
                return Out::value(id);
            }
            CalleeKind::Capability(name) => {
                let id = self.agent_call(call, NodeKind::Capability, name);
                return Out::value(id);
            }
            CalleeKind::DynamicMcp { server, tool } => {
                // A node of its own, its unknown names `?` (`fs:?`): its trace events carry
                // the tool that ran.
                self.warn(
                    diagnostics::DYNAMIC_CALL,
                    format!(
                        "`{}`: the server or tool name is computed at run time, so what this call does is not known statically",
                        self.text(callee.span())
                    ),
                    call.span,
                );
                // What computes the names is read where it stands: the server's, then the
                // tool's (JavaScript's order).
                if let Expr::Member(m) = strip(callee) {
                    if let Expr::Member(inner) = strip(&m.obj) {
                        if let MemberProp::Computed(c) = &inner.prop {
                            self.expr(&c.expr, Position::Nested);
                        }
                    }
                    if let MemberProp::Computed(c) = &m.prop {
                        self.expr(&c.expr, Position::Nested);
                    }
                }
                let name = [server.as_deref(), tool.as_deref()]
                    .map(|part| part.unwrap_or(DYNAMIC_NAME))
                    .join(":");
                let id = self.agent_call(call, NodeKind::Task, name);
                return Out::value(id);
            }
            CalleeKind::DynamicCapability => {
                self.warn(
                    diagnostics::DYNAMIC_CALL,
                    format!(
                        "`{}`: the capability's name is computed at run time, so this call is not analysed statically",
                        self.text(callee.span())
                    ),
                    call.span,
                );
            }
            CalleeKind::Fork => return self.fork(call),
            CalleeKind::Static { tool } => {
                if pos != Position::Nested {
                    let mark = self.results.len();
                    for a in &call.args {
                        self.expr(&a.expr, Position::Argument);
                    }
                    let id = self.code_node(tool, call.span, Code::Call(call), None, None, mark);
                    return Out::value(id);
                }
            }
            CalleeKind::Method { method } => return self.method_call(call, callee, method, pos),
            CalleeKind::Other => {
                // `Promise.race`/`Promise.any`: which call settles first is the program's data.
                if let Expr::Member(m) = strip(callee) {
                    let method = prop_static_name(&m.prop, self);
                    if matches!(strip(&m.obj), Expr::Ident(p) if &*p.sym == "Promise")
                        && matches!(method.as_deref(), Some("race" | "any"))
                    {
                        self.probes.observe_timing();
                    }
                }
            }
        }
        self.expr(callee, Position::Nested);
        for a in &call.args {
            self.expr(&a.expr, Position::Nested);
        }
        Out::default()
    }

    /// `recv.method(args)`: a code operation, a loop over a callback that calls tools, or an
    /// ordinary call we only look into.
    pub(super) fn method_call(
        &mut self,
        call: &CallExpr,
        callee: &Expr,
        method: &str,
        pos: Position,
    ) -> Out {
        let Expr::Member(m) = strip(callee) else {
            return Out::default();
        };
        let callback_calls_tools = call
            .args
            .iter()
            .any(|a| is_function(&a.expr) && self.calls_tools(&a.expr));
        let receiver_pos = if pos == Position::Nested {
            Position::Nested
        } else {
            Position::Argument
        };
        let mark = self.results.len();
        let first_node = self.nodes.len();
        let recv = self.expr(&m.obj, receiver_pos);
        // A callback that changes the element it is given (`rows.forEach(r => { r.id = 1; })`)
        // changes the receiver's elements in place.
        if let Some(value) = &recv.value {
            let changes_elements = (call.args.iter())
                .filter_map(|a| callback(&a.expr))
                .any(|cb| cb.params.first().is_some_and(|p| self.pattern_mutated(p)));
            if changes_elements {
                let value = value.clone();
                self.mark_changed(&value);
            }
        }
        let chained = recv.value.is_some() && is_call_based(&m.obj);
        // `p.catch(f)`, `p.then(ok, failed)`: what rejects `p` is handled.
        if method == "catch" || (method == "then" && call.args.len() >= 2) {
            for node in &mut self.nodes[first_node..] {
                node.guarded = true;
            }
        }

        if matches!(method, "then" | "catch" | "finally")
            && call.args.iter().any(|a| is_function(&a.expr))
        {
            // `p.then(r => ...)`: each callback is a local function the promise calls once.
            let mut last = None;
            for (i, a) in call.args.iter().enumerate() {
                let Some(f) = callback(&a.expr) else {
                    self.expr(&a.expr, Position::Nested);
                    continue;
                };
                let fulfilled = method == "then" && i == 0;
                let value = recv.value.clone().filter(|_| fulfilled);
                let span = strip(&a.expr).span();
                let index = self.declare_function(FunctionOf::Expr(&a.expr), span, None);
                let id = self.nodes[index].id.clone();
                self.function_body(index, &f, value.clone().map(Binding::Node));
                let mut arguments = Arguments::new();
                if let Some(v) = value {
                    arguments.insert("0".into(), ArgumentValue::reference(v));
                }
                last = Some(self.call_node(id, None, arguments, call.span, span));
            }
            return last.map(Out::value).unwrap_or_default();
        }

        if callback_calls_tools {
            // `items.forEach(async i => await mcp...)`, `xs.map(x => mcp...)` outside Promise.all.
            let kind = if method == "forEach" {
                LoopKind::ForEach
            } else {
                LoopKind::Callback
            };
            let header = match &recv.value {
                Some(v) => Written::path(v.clone()),
                None => self.written(&m.obj),
            };
            let element = Binding::Template(header.each());
            let id = self.loop_stmt(
                LoopOf::Call(call),
                kind,
                Some(header),
                free_variables(call),
                |b| {
                    let node = b.nodes.len() - 1;
                    for a in &call.args {
                        if let Some(cb) = callback(&a.expr) {
                            b.callback_body(
                                &cb,
                                element.clone(),
                                Position::Nested,
                                (ProbeKind::Loop, node),
                            );
                        } else {
                            b.expr(&a.expr, Position::Nested);
                        }
                    }
                },
            );
            return Out::value(id);
        }

        if method == "forEach" && pos != Position::Nested {
            let header = match &recv.value {
                Some(v) => Written::path(v.clone()),
                None => self.written(&m.obj),
            };
            let id = self.loop_stmt(
                LoopOf::Call(call),
                LoopKind::ForEach,
                Some(header),
                free_variables(call),
                |b| {
                    // Nothing inside is a node; the iterations are still counted.
                    let node = b.nodes.len() - 1;
                    if let Some(cb) = call.args.first().and_then(|a| callback(&a.expr)) {
                        let start = b.callback_start(&cb);
                        b.probes.enter(ProbeKind::Loop, node, start);
                        b.probes.leave();
                    }
                },
            );
            return Out::value(id);
        }

        let op = pml_pure_ops::method_operation(method);
        match op {
            Some(op) if pos != Position::Nested => {
                for a in &call.args {
                    if !is_function(&a.expr) {
                        self.expr(&a.expr, Position::Argument);
                    }
                }
                let whole = Code::Call(call);
                let id = if chained {
                    let prop_span = m.prop.span();
                    let code_span = SwcSpan::new(prop_span.lo, call.span.hi);
                    let receiver = recv.value;
                    self.code_node(op.tool, call.span, whole, Some(code_span), receiver, mark)
                } else {
                    self.code_node(op.tool, call.span, whole, None, None, mark)
                };
                Out::value(id)
            }
            _ => {
                for a in &call.args {
                    self.expr(&a.expr, Position::Nested);
                }
                Out::default()
            }
        }
    }

    /// An MCP tool call or a capability call: arguments first (inner calls run before this
    /// one), then the node.
    pub(super) fn agent_call(&mut self, call: &CallExpr, kind: NodeKind, name: String) -> String {
        let mut arguments = match call.args.first().map(|a| strip(&a.expr)) {
            Some(Expr::Object(o)) => Arguments::with_capacity(o.props.len()),
            _ => Arguments::new(),
        };
        if let Some(first) = call.args.first() {
            self.call_arguments(first, &mut arguments);
        }
        for extra in call.args.iter().skip(1) {
            self.expr(&extra.expr, Position::Nested);
        }
        let mut node = self.new_node(kind, call.span);
        match kind {
            NodeKind::Capability => node.capability_id = Some(name),
            _ => node.tool = Some(name),
        }
        node.arguments = Some(arguments);
        let id = self.add_node(node);
        if let Callee::Expr(callee) = &call.callee {
            let callee = self.offsets(callee.span());
            let awaited = self.awaited.contains(&(call.span.lo.0, call.span.hi.0));
            self.probe(ProbeKind::Call, Site::Call { callee, awaited });
        }
        id
    }

    pub(super) fn call_arguments(&mut self, arg: &ExprOrSpread, out: &mut Arguments) {
        match strip(&arg.expr) {
            // An object whose prototype the literal sets (`__proto__: v`) is JavaScript's to
            // build: what it inherits is no argument.
            Expr::Object(obj) if arg.spread.is_none() && !sets_a_prototype(obj) => {
                out.reserve(obj.props.len());
                for prop in &obj.props {
                    match prop {
                        PropOrSpread::Prop(p) => match &**p {
                            Prop::KeyValue(kv) => {
                                let key = self.property_key(&kv.key, out.len());
                                let value = self.argument(&kv.value);
                                out.insert(key, value);
                            }
                            Prop::Shorthand(id) => {
                                let value = match self.lookup(&id.sym) {
                                    Some(Binding::Node(v)) => ArgumentValue::reference(v.clone()),
                                    Some(Binding::Literal(v) | Binding::Element(v)) => {
                                        match v.to_json() {
                                            Some(json) => ArgumentValue::literal(json),
                                            None => Builder::name_reference(&id.sym),
                                        }
                                    }
                                    Some(Binding::Template(t)) => t.reference(),
                                    Some(Binding::Expr { param: Some(p), .. }) => {
                                        ArgumentValue::Parameter {
                                            parameter_name: p.clone(),
                                        }
                                    }
                                    Some(Binding::Expr { value, .. }) => value.reference(),
                                    _ => Builder::name_reference(&id.sym),
                                };
                                out.insert(id.sym.as_str().into(), value);
                            }
                            Prop::Method(_) | Prop::Getter(_) | Prop::Setter(_) => {
                                let key = self.text(p.span()).to_string();
                                let value =
                                    ArgumentValue::reference_reading(key.clone(), Vec::new());
                                out.insert(key.into(), value);
                            }
                            Prop::Assign(_) => {}
                        },
                        PropOrSpread::Spread(s) => self.spread_argument(&s.expr, out),
                    }
                }
            }
            other => self.spread_argument(other, out),
        }
    }

    /// `{ ...base }` or a whole non-literal argument object: literal objects are merged in,
    /// anything else is kept as a `...expression` reference.
    pub(super) fn spread_argument(&mut self, e: &Expr, out: &mut Arguments) {
        let value = self.expr(e, Position::Argument);
        if let Some(JsValue::Object(map)) = fold::fold(e, self) {
            for (k, v) in map {
                if let Some(json) = v.to_json() {
                    out.insert(k.into(), ArgumentValue::literal(json));
                }
            }
            return;
        }
        let key = Key::Spread(out.len());
        let value = match (value.value, parameter_name(e)) {
            (Some(v), _) => ArgumentValue::reference(v),
            (None, Some(name)) => ArgumentValue::Parameter {
                parameter_name: name,
            },
            (None, None) => self.reference_to(e),
        };
        out.insert(key, value);
    }

    /// The key of a property at place `at` of an object argument: static when known before the
    /// run (a name, a literal, a computed key that folds to a primitive), else computed, as a
    /// reference to its expression (bound names as node ids).
    fn property_key(&mut self, key: &swc_ecma_ast::PropName, at: usize) -> Key {
        if let Some(name) = fold::prop_name(key) {
            return Key::Static(name);
        }
        match key {
            swc_ecma_ast::PropName::Computed(c) => {
                if let Some(value) = fold::fold(&c.expr, self).filter(JsValue::is_primitive) {
                    return Key::Static(value.to_js_string());
                }
                let Written {
                    text,
                    reads,
                    canonical,
                    leaves,
                    ..
                } = self.written(&c.expr);
                Key::Computed(Box::new(ComputedKey {
                    at,
                    expression: text,
                    reads,
                    canonical,
                    leaves,
                }))
            }
            swc_ecma_ast::PropName::BigInt(b) => Key::Static(b.value.to_string()),
            other => Key::Static(self.text(other.span()).to_string()),
        }
    }

    /// Classify one argument value: literal, parameter, reference, or an object/array of those.
    pub(super) fn argument(&mut self, e: &Expr) -> ArgumentValue {
        // Inner calls first: they become nodes this argument then refers to.
        self.expr(e, Position::Argument);
        self.classify(e, 0)
    }

    /// Classify an already evaluated argument value.
    pub(super) fn classify(&self, e: &Expr, depth: usize) -> ArgumentValue {
        let span = e.span();
        if let Some(v) = self.node_spans.get(&(span.lo.0, span.hi.0)) {
            return ArgumentValue::reference(v.clone());
        }
        let inner = strip(e);
        let inner_span = inner.span();
        if let Some(v) = self.node_spans.get(&(inner_span.lo.0, inner_span.hi.0)) {
            return ArgumentValue::reference(v.clone());
        }
        if let Expr::Ident(id) = inner {
            match self.lookup(&id.sym) {
                Some(Binding::Node(v)) => return ArgumentValue::reference(v.clone()),
                Some(Binding::Template(v)) => return v.reference(),
                Some(Binding::Expr { param: Some(p), .. }) => {
                    return ArgumentValue::Parameter {
                        parameter_name: p.clone(),
                    };
                }
                Some(Binding::Expr { value, .. }) => return value.reference(),
                _ => {}
            }
        }
        // Plain literals (most arguments) need no folding machinery.
        let plain = match inner {
            Expr::Lit(Lit::Str(s)) => Some(Value::String(s.value.to_string_lossy().into_owned())),
            Expr::Lit(Lit::Bool(b)) => Some(Value::Bool(b.value)),
            Expr::Lit(Lit::Null(_)) => Some(Value::Null),
            Expr::Lit(Lit::Num(n)) => fold::number_to_json(n.value),
            _ => None,
        };
        if let Some(value) = plain.or_else(|| fold::fold_json(e, self)) {
            let template_parameters = match &value {
                Value::String(s) => crate::template_parameters(s),
                _ => None,
            };
            return ArgumentValue::Literal {
                value,
                template_parameters,
            };
        }
        if let Some(name) = parameter_name(e) {
            return ArgumentValue::Parameter {
                parameter_name: name,
            };
        }
        if depth < 32 {
            if let Some(v) = self.classify_composite(inner, depth) {
                return v;
            }
        }
        self.reference_to(e)
    }

    /// `{ a: args.x, b: n1.y }` / `[args.x, 1]`: per-element classification, when every key is
    /// static and there are no spreads or holes.
    pub(super) fn classify_composite(&self, e: &Expr, depth: usize) -> Option<ArgumentValue> {
        match e {
            Expr::Object(obj) => {
                let mut properties = Arguments::with_capacity(obj.props.len());
                for prop in &obj.props {
                    let PropOrSpread::Prop(p) = prop else {
                        return None;
                    };
                    match &**p {
                        Prop::KeyValue(kv) if fold::sets_prototype(&kv.key) => return None,
                        Prop::KeyValue(kv) => {
                            let key = fold::prop_name(&kv.key)?;
                            properties.insert(key.into(), self.classify(&kv.value, depth + 1));
                        }
                        Prop::Shorthand(id) => {
                            let value = self.classify(&Expr::Ident(id.clone()), depth + 1);
                            properties.insert(id.sym.as_str().into(), value);
                        }
                        _ => return None,
                    }
                }
                Some(ArgumentValue::Object { properties })
            }
            Expr::Array(arr) => {
                let mut items = Vec::with_capacity(arr.elems.len());
                for elem in &arr.elems {
                    match elem {
                        Some(ExprOrSpread { expr, spread: None }) => {
                            items.push(self.classify(expr, depth + 1))
                        }
                        _ => return None,
                    }
                }
                Some(ArgumentValue::Array { items })
            }
            _ => None,
        }
    }
}

/// Whether an object literal sets its prototype (`{ __proto__: base, ... }`).
fn sets_a_prototype(obj: &swc_ecma_ast::ObjectLit) -> bool {
    obj.props.iter().any(|p| match p {
        PropOrSpread::Prop(p) => {
            matches!(&**p, Prop::KeyValue(kv) if fold::sets_prototype(&kv.key))
        }
        PropOrSpread::Spread(_) => false,
    })
}
