//! The static structure: the data this crate produces (and every later stage reads).
//!
//! The JSON shape is a contract (see `docs/formats.md`): camel case, absent fields omitted,
//! maps in insertion order so the output is deterministic.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the structure builder found in one agent program.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticStructure {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Variable name -> the node id whose result it holds (`"n1"`), or a property path into it
    /// for destructured results (`const { content } = ...` -> `"n1.content"`).
    pub variable_bindings: IndexMap<String, String>,
    /// `const` name -> its value, for literals and constant-folded expressions.
    pub literal_bindings: IndexMap<String, Value>,
    /// Tools (in node order, without duplicates) that a permission config marks as needing a human.
    pub hil_required_tools: Vec<String>,
    /// The program's result: the value of its final top-level `return` (a literal, a parameter
    /// or an expression over node ids, like an argument). Absent when the program has no
    /// `return` at the top level (its result is then `undefined`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<ArgumentValue>,
    /// Where that `return` is (for messages about the result; not part of the JSON).
    #[serde(skip)]
    pub result_span: Option<Span>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every name the program declares (`const`/`let`/`var`, parameters, `catch` bindings,
    /// function and class declarations), at any depth. A name a task reads that no node
    /// or constant provides but that the program declares (an accumulator changed in place, a
    /// loop variable) is ordinary code. Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub declared: Names,
    /// Every name the program may change after it holds its value: assigned again,
    /// changed in place (`args.root = ...`, `o.push(x)`, through another name holding the
    /// same object, `Object.defineProperty(o, ...)`), or passed to a local function that
    /// changes its parameter. By name, at any depth: `args` here means the program's
    /// parameters cannot be read ahead of it. Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub changed: Names,
    /// What the program does that no node says, in its order: each statement outside loops
    /// and functions (whose code is a node's) that made no node, printed canonically (see
    /// [`Effect`]). Made with the canonical printings (not with [`crate::BuildOptions::no_hash`]).
    /// Not part of the JSON; the hash reads it.
    #[serde(skip)]
    pub effects: Vec<Effect>,
}

/// A statement that made no node: a `return` or `throw` inside a branch, an assignment
/// (`s = "y"`, `o.a = 1`), a change in place (`out.push(x)`), a declaration whose value the
/// structure does not hold (`let s = "x"` assigned later), a call of a global
/// (`console.log(..)`), or a whole `if`/`try`/`switch` none of whose parts made a node. Two
/// programs that differ in one of these do different things, which the hash must tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// How many nodes come before it (it sits between node `after - 1` and node `after`).
    pub after: usize,
    /// The innermost decision outcome or fork around it.
    pub scope: Option<Scope>,
    /// The statement printed canonically: a bound name as the node result or expression it
    /// holds, every other name the program declares a hole (the hash numbers them as it
    /// numbers a reference's).
    pub code: Canonical,
}

/// A set of the program's names (asked whether it holds one, never listed in an order that
/// shows: a hash set, moved from the walk's own collection rather than copied and sorted).
pub type Names = rustc_hash::FxHashSet<String>;

impl StaticStructure {
    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// True when a diagnostic of severity error was reported (the structure is then empty).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// A structure read back from its JSON (as `pml analyze` writes it, as the store keeps
    /// it), with what the JSON leaves implicit found again: where its texts stand for each
    /// element of a collection ([`Leaves`]). The canonical printings are not found again:
    /// hash the program, not its JSON.
    pub fn from_json(json: serde_json::Value) -> serde_json::Result<Self> {
        let mut s: StaticStructure = serde_json::from_value(json)?;
        // Computed keys: the arguments' reader finds their marks.
        s.each_text_leaves(|text, leaves| *leaves = Leaves::found_in(text));
        Ok(s)
    }

    /// `f` of every reference's and condition's text and its leaves (not computed keys': a
    /// map's keys do not change).
    pub(crate) fn each_text_leaves(&mut self, mut f: impl FnMut(&str, &mut Leaves)) {
        fn value(v: &mut ArgumentValue, f: &mut dyn FnMut(&str, &mut Leaves)) {
            match v {
                ArgumentValue::Reference {
                    expression, leaves, ..
                } => f(expression, leaves),
                ArgumentValue::Object { properties } => arguments(properties, f),
                ArgumentValue::Array { items } => items.iter_mut().for_each(|v| value(v, f)),
                ArgumentValue::Literal { .. } | ArgumentValue::Parameter { .. } => {}
            }
        }
        fn arguments(args: &mut Arguments, f: &mut dyn FnMut(&str, &mut Leaves)) {
            args.values_mut().for_each(|v| value(v, f));
        }
        for node in &mut self.nodes {
            if let Some(args) = &mut node.arguments {
                arguments(args, &mut f);
            }
            if let Some(condition) = &node.condition {
                f(condition, &mut node.condition_leaves);
            }
        }
        if let Some(result) = &mut self.result {
            value(result, &mut f);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NodeKind {
    Task,
    Decision,
    Capability,
    Fork,
    Join,
    Loop,
    /// A local function (declaration, function bound to a name, IIFE, `.then` callback...):
    /// not part of the control flow; the nodes of its body are scoped to it.
    Function,
    /// A call of a local function: links (through `function`) to what that function does.
    Call,
}

/// Whether `name`, a name of the program, has the form of a node id (`n1`, `d2`, `fn3`,
/// `call4`...: a prefix of [`NodeKind::prefix`], digits) followed by any number of `$`.
pub fn collides_with_ids(name: &str) -> bool {
    let digits = |rest: &str| {
        let rest = rest.trim_end_matches('$');
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit())
    };
    ["call", "fn", "n", "d", "c", "f", "j", "l"]
        .iter()
        .any(|prefix| name.strip_prefix(prefix).is_some_and(digits))
}

/// A name of the program as the structure writes it in expressions, parameters and constants:
/// itself, but a `$` added to one that [`collides_with_ids`] (`n1` -> `n1$`, `n1$` -> `n1$$`).
/// Node ids never end with `$`: no name of the program reads as a node's result, and two
/// names stay two.
pub fn escape_name(name: &str) -> std::borrow::Cow<'_, str> {
    match collides_with_ids(name) {
        true => std::borrow::Cow::Owned(format!("{name}$")),
        false => std::borrow::Cow::Borrowed(name),
    }
}

impl NodeKind {
    /// The id prefix of this kind: tasks `n1..`, decisions `d1..`, forks `f1..`...
    pub fn prefix(self) -> &'static str {
        match self {
            NodeKind::Task => "n",
            NodeKind::Decision => "d",
            NodeKind::Capability => "c",
            NodeKind::Fork => "f",
            NodeKind::Join => "j",
            NodeKind::Loop => "l",
            NodeKind::Function => "fn",
            NodeKind::Call => "call",
        }
    }
}

/// One node of the structure. Which optional fields are set depends on `kind`:
/// tasks have `tool` (+ `code` for `code:*` operations) and `arguments`; decisions a `condition`;
/// capabilities a `capabilityId` and `arguments`; loops a `loopKind`, their `code` and (for
/// `while`-like loops) a `condition`; functions their `code` and maybe a `name`; calls of
/// local functions the `function` they call and their `arguments` (`"0"`, `"1"`... by
/// position).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: NodeKind,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub arguments: Option<Arguments>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub condition: Option<String>,
    /// The names `condition` reads (like a reference's `reads`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reads: Vec<String>,
    /// Where `condition` stands for each element of a collection (like a reference's; not
    /// part of the JSON).
    #[serde(skip)]
    pub condition_leaves: Leaves,
    /// Switch decisions: every case's outcome in source order (`case:<value>`, `default`), so
    /// the case a value selects can be told at run time.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub outcomes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub capability_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub loop_kind: Option<LoopKind>,
    /// Functions: the name the program gives it, if any (`load` of `const load = async () =>
    /// ...`); calls: the name they call it by. For readers only: the hash ignores it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
    /// Calls: the id of the function node they call.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub function: Option<String>,
    /// Code tasks whose code reaches outside pure computation: what it reaches and why
    /// (`"fetch (network i/o)"`), found on the syntax tree. Such a task is not pure.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub impure: Option<String>,
    /// The innermost enclosing decision outcome, fork or loop.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub scope: Option<Scope>,
    pub span: Span,
    /// A failure here may be caught by the program: made inside a `try` block or a `catch`
    /// handler, or the promise of a call whose rejection is handled (`.catch(...)`,
    /// `.then(ok, failed)`, `Promise.allSettled`). Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub guarded: bool,
    /// Loops: the body may leave the loop before its iterable's end (`break` out of it,
    /// `return`, `throw`, a labelled `continue` of an outer loop), so what comes after an
    /// iteration is not certain to run. Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub leaves: bool,
    /// Made in a `try` block whose `catch` handler may end the path (`return`, `throw`,
    /// `break`, `continue`), or that has none: if this throws, what follows the `try` may not
    /// run. Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub throw_exits: bool,
    /// Functions: the names of their parameters, when each is a plain name the program never
    /// assigns or changes in place (so in the body it always holds what the call passed).
    /// Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub params: Option<Vec<String>>,
    /// Its result may be changed in place after it is made: a name holding it, or a part of it,
    /// is changed (`rows.shift()`, `cfg.dir = ...`, `delete x.a`), or it is passed to a local
    /// function that changes its parameter. What later code reads is then not the result as
    /// made, so nothing may be computed ahead from it. Not part of the JSON (nor the hash).
    #[serde(skip)]
    pub changed: bool,
    /// Functions whose calls the structure does not all model (a method of an object or a
    /// class, a callback, a function named as a value: `xs.map(load)`): the offset from which
    /// the program may call it where no node says (the function's place, the start of a loop
    /// around it; 0 when it is hoisted or inside another function). Not part of the JSON (nor
    /// the hash).
    #[serde(skip)]
    pub escapes_from: Option<usize>,
    /// The canonical printing of `code` and of `condition` ([`Canonical`]), made by the
    /// builder from the syntax tree: what the hash reads. Not part of the JSON.
    #[serde(skip)]
    pub canonical: Option<Box<NodeCanonical>>,
}

/// The canonical printings of a node's texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeCanonical {
    pub code: Option<Canonical>,
    pub condition: Option<Canonical>,
    /// Switch decisions: the printing of each case whose value is not a constant (its
    /// outcome is `case:` + its text), by the outcome's place in `outcomes`.
    pub outcomes: Vec<Option<Canonical>>,
}

/// The typed leaves of a text the builder wrote (a reference, a computed key, a condition), by
/// their byte offsets in it, in order: where it stands for *each element* of a collection (the
/// mark `[*]`: `n1.items[*].id` has one, at 8) and where it reads a node's result (`n1`).
/// Later stages ask these, never the text: speculation puts an index at each element mark
/// ([`Leaves::at_index`]), the DAG asks whether there is one, the approval plan says each
/// result by the program's name for it ([`Leaves::with_results`]).
///
/// Not part of the JSON. Reading a structure back ([`StaticStructure::from_json`]) finds the
/// element marks again, as every `[*]` in a text is one (the builder escapes `[*]` in the
/// program's own literals: `"a[\\*]"`), but not the results: those are known from an analysis
/// of the program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Leaves(Vec<Leaf>);

/// A leaf of a text, at byte `at` of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    pub at: u32,
    pub kind: LeafKind,
}

/// What a [`Leaf`] stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafKind {
    /// Each element of the collection before it: the mark `[*]`.
    Element,
    /// A node's result: its id, `len` bytes long.
    Result { len: u32 },
}

impl Leaves {
    /// The element mark, as the texts show it.
    pub const MARK: &'static str = "[*]";

    /// No leaf.
    pub const fn none() -> Self {
        Leaves(Vec::new())
    }

    /// A text that is a node's result or a path in it (`n1.content`): its root is the result.
    pub fn of_path(path: &str) -> Self {
        let root = path_root(path);
        match collides_with_ids(root) {
            true => Leaves(vec![Leaf {
                at: 0,
                kind: LeafKind::Result {
                    len: root.len() as u32,
                },
            }]),
            false => Leaves::none(),
        }
    }

    /// The leaves, in order.
    pub fn all(&self) -> &[Leaf] {
        &self.0
    }

    /// Whether the text stands for each element of a collection.
    pub fn reads_elements(&self) -> bool {
        self.0.iter().any(|l| l.kind == LeafKind::Element)
    }

    /// `text` (the text these are the leaves of) at element `i`: each element mark becomes
    /// `[i]`.
    pub fn at_index(&self, text: &str, i: usize) -> String {
        let index = format!("[{i}]");
        self.spliced(text, |leaf| match leaf.kind {
            LeafKind::Element => Some((Self::MARK.len(), index.as_str())),
            LeafKind::Result { .. } => None,
        })
    }

    /// `text` (the text these are the leaves of) with each node's result that `said` says
    /// otherwise said so (`n1.content` -> `file.content`).
    pub fn with_results<'s>(&self, text: &str, said: impl Fn(&str) -> Option<&'s str>) -> String {
        self.spliced(text, |leaf| match leaf.kind {
            LeafKind::Result { len } => {
                let at = leaf.at as usize;
                let id = text.get(at..at + len as usize)?;
                Some((len as usize, said(id)?))
            }
            LeafKind::Element => None,
        })
    }

    /// `text` with the leaves `put` gives a replacement for (how many bytes it replaces, and
    /// with what) replaced.
    fn spliced<'r>(&self, text: &str, put: impl Fn(&Leaf) -> Option<(usize, &'r str)>) -> String {
        let mut out = String::with_capacity(text.len() + 8);
        let mut at = 0;
        for leaf in &self.0 {
            let start = leaf.at as usize;
            let Some((len, with)) = put(leaf) else {
                continue;
            };
            let Some(before) = text.get(at..start) else {
                break;
            };
            out.push_str(before);
            out.push_str(with);
            at = start + len;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        out
    }

    /// The element marks of a text read back from JSON: every `[*]` in it.
    pub(crate) fn found_in(text: &str) -> Self {
        Leaves(
            text.match_indices(Self::MARK)
                .map(|(at, _)| Leaf {
                    at: at as u32,
                    kind: LeafKind::Element,
                })
                .collect(),
        )
    }

    /// An element mark at `at` (after the others).
    pub(crate) fn push_element(&mut self, at: usize) {
        self.0.push(Leaf {
            at: at as u32,
            kind: LeafKind::Element,
        });
    }

    /// The leaves of `other`, placed in a text at byte `at` (after these).
    pub(crate) fn extend_at(&mut self, other: &Leaves, at: usize) {
        (self.0).extend(other.0.iter().map(|&l| Leaf {
            at: l.at + at as u32,
            kind: l.kind,
        }));
    }

    /// These leaves, the text being moved `by` bytes on.
    pub(crate) fn shifted(&self, by: usize) -> Self {
        let mut out = Leaves::none();
        out.extend_at(self, by);
        out
    }

    /// The element marks alone (what the JSON keeps).
    pub(crate) fn elements(&self) -> Self {
        Leaves(
            (self.0.iter())
                .filter(|l| l.kind == LeafKind::Element)
                .copied()
                .collect(),
        )
    }
}

/// A text of the structure printed canonically (`docs/hash.md`: no comments, one formatting,
/// one quote style, only needed parentheses, locally declared names `_p0, _p1...`) from its
/// syntax tree by the builder, with each name it reads and does not declare left as a
/// [`Hole`]: a code task's input, a literal binding, a global, a name nothing resolves (the
/// hash decides what each becomes). A node's result is written as its path (`n1.content`):
/// a hole is never a node's result, whatever its name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Canonical {
    /// The printing without its holes.
    pub text: String,
    /// The holes, in order of their place in `text`.
    pub holes: Vec<Hole>,
    /// How tight the printed expression binds (to parenthesise it where it is substituted).
    pub(crate) prec: u8,
}

/// A free name of a [`Canonical`] printing: it stands at byte `at` of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    pub at: usize,
    pub name: String,
}

/// A part of a [`Canonical`] printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'c> {
    Text(&'c str),
    Hole(&'c str),
}

impl Canonical {
    /// A free name on its own.
    pub fn hole(name: &str) -> Self {
        Canonical {
            text: String::new(),
            holes: vec![Hole {
                at: 0,
                name: name.to_owned(),
            }],
            prec: crate::canon::PRIMARY,
        }
    }

    /// Its member `key` (`[0]` and `[*]` as they are, a name after a `.`, other keys quoted in
    /// brackets), parenthesised first when it binds looser than a member access.
    pub fn member(&self, key: &str) -> Self {
        let mut out = crate::canon::Out::default();
        out.append(self, crate::canon::CALL);
        if key.starts_with('[') {
            out.push_str(key);
        } else if crate::canon::is_ident_name(key) {
            out.push('.');
            out.push_str(key);
        } else {
            out.push('[');
            crate::canon::quote_str(key, &mut out);
            out.push(']');
        }
        out.finish(crate::canon::CALL)
    }

    /// `<it> == null`.
    pub fn equals_null(&self) -> Self {
        let mut out = crate::canon::Out::default();
        out.append(self, crate::canon::EQUALITY);
        out.push_str(" == null");
        out.finish(crate::canon::EQUALITY)
    }

    /// Its text and holes, in order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece<'_>> {
        let mut at = 0;
        let mut holes = self.holes.iter();
        let mut pending: Option<&Hole> = None;
        std::iter::from_fn(move || {
            let next = pending.take().or_else(|| holes.next());
            match next {
                Some(h) if h.at > at => {
                    let text = &self.text[at..h.at];
                    at = h.at;
                    pending = Some(h);
                    Some(Piece::Text(text))
                }
                Some(h) => Some(Piece::Hole(&h.name)),
                None if at < self.text.len() => {
                    let text = &self.text[at..];
                    at = self.text.len();
                    Some(Piece::Text(text))
                }
                None => None,
            }
        })
    }
}

impl Node {
    pub fn new(id: String, kind: NodeKind, span: Span) -> Self {
        Node {
            id,
            kind,
            tool: None,
            code: None,
            arguments: None,
            condition: None,
            reads: Vec::new(),
            condition_leaves: Leaves::none(),
            outcomes: Vec::new(),
            capability_id: None,
            loop_kind: None,
            name: None,
            function: None,
            impure: None,
            scope: None,
            span,
            guarded: false,
            leaves: false,
            throw_exits: false,
            params: None,
            changed: false,
            escapes_from: None,
            canonical: None,
        }
    }

    /// True for `code:*` pseudo-tool tasks.
    pub fn is_code(&self) -> bool {
        self.tool.as_deref().is_some_and(|t| t.starts_with("code:"))
    }

    /// True for MCP tool tasks (`server:tool`).
    pub fn is_mcp(&self) -> bool {
        self.kind == NodeKind::Task && !self.is_code()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LoopKind {
    ForOf,
    ForIn,
    For,
    While,
    DoWhile,
    ForEach,
    /// An array method (`map`, `filter`...) whose callback calls MCP tools, outside `Promise.all`.
    Callback,
}

/// Where a node sits: which decision outcome, fork, loop or function encloses it (innermost only; the
/// enclosing node carries its own scope, so the chain can be followed outwards).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Scope {
    Decision { id: String, outcome: String },
    Fork { id: String },
    Loop { id: String },
    Function { id: String },
}

impl Scope {
    /// The id of the enclosing node.
    pub fn id(&self) -> &str {
        match self {
            Scope::Decision { id, .. }
            | Scope::Fork { id }
            | Scope::Loop { id }
            | Scope::Function { id } => id,
        }
    }
}

/// Byte range in the source (0-based, end exclusive) and the 1-based line/column of its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Edge {
    pub from: String,
    pub to: String,
    #[serde(rename = "type")]
    pub kind: EdgeKind,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub coverage: Option<Coverage>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    Sequence,
    Conditional,
    Provides,
}

/// How much of a consumer's input a provider's output covers (tool schemas).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Coverage {
    /// The provider's outputs cover every required input of the consumer.
    Strict,
    /// Some, not all, required inputs.
    Partial,
    /// Only optional inputs.
    Optional,
}

/// How one argument of a task gets its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum ArgumentValue {
    /// Known statically (literals, constant-folded expressions, literal bindings).
    Literal {
        value: Value,
        /// For strings that are code (e.g. Playwright scripts): the literals inside that code,
        /// extracted as parameters (name -> value).
        #[serde(
            rename = "templateParameters",
            skip_serializing_if = "Option::is_none",
            default
        )]
        template_parameters: Option<IndexMap<String, Value>>,
    },
    /// Computed at run time: the source expression with bound variable names replaced by the
    /// node ids they hold (`file.content` -> `n1.content`).
    Reference {
        expression: String,
        /// The names the expression reads, once each, in order of first use: node ids (`n1`
        /// of `n1.content`), constants, `args`, other free names. Found on the syntax tree by
        /// the builder: later stages do not read the expression to know them.
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        reads: Vec<String>,
        /// The expression printed canonically by the builder (what the hash reads); `None`
        /// when `expression` is a path the builder wrote (`n1.content`, `args.dir`), which is
        /// its own canonical printing. Not part of the JSON.
        #[serde(skip)]
        canonical: Option<Box<Canonical>>,
        /// Where `expression` stands for each element of a collection (not part of the JSON).
        #[serde(skip)]
        leaves: Leaves,
    },
    /// `args.<name>`: a parameter of the capability (`args.a.b` -> `a.b`): its keys joined
    /// by `.` ([`ArgumentValue::parameter_keys`] gives them back; no key has a `.` in it:
    /// `args["a.b"]` is a reference).
    #[serde(rename_all = "camelCase")]
    Parameter { parameter_name: String },
    /// An object literal whose values are not all literal: each property classified.
    Object { properties: Arguments },
    /// An array literal whose items are not all literal: each item classified. (An array
    /// with a spread or a hole is a reference: which items it has is not known.)
    Array { items: Vec<ArgumentValue> },
}

impl ArgumentValue {
    pub fn literal(value: Value) -> Self {
        ArgumentValue::Literal {
            value,
            template_parameters: None,
        }
    }

    /// A reference to a path: a node's result (`n1.content`, `j1[0]`) or a name (`x`), which
    /// reads the path's root.
    pub fn reference(path: impl Into<String>) -> Self {
        let expression = path.into();
        let root = path_root(&expression);
        let reads = match root.is_empty() {
            true => Vec::new(),
            false => vec![root.to_owned()],
        };
        ArgumentValue::Reference {
            leaves: Leaves::of_path(&expression),
            expression,
            reads,
            canonical: None,
        }
    }

    /// A reference to an expression that reads `reads` (and no element of a collection).
    pub fn reference_reading(expression: impl Into<String>, reads: Vec<String>) -> Self {
        ArgumentValue::Reference {
            expression: expression.into(),
            reads,
            canonical: None,
            leaves: Leaves::none(),
        }
    }

    /// A reference to an expression that reads `reads`, with its canonical printing and
    /// where it stands for each element of a collection.
    pub fn reference_printed(
        expression: impl Into<String>,
        reads: Vec<String>,
        canonical: Option<Box<Canonical>>,
        leaves: Leaves,
    ) -> Self {
        ArgumentValue::Reference {
            expression: expression.into(),
            reads,
            canonical,
            leaves,
        }
    }
}

impl ArgumentValue {
    /// The keys of a parameter's name, in order (`a.b` -> `a`, `b`): the path from `args`.
    pub fn parameter_keys(parameter_name: &str) -> impl Iterator<Item = &str> {
        parameter_name.split('.')
    }
}

/// The name a path the builder writes starts with: `n1` of `n1.content[0]`, `x` of `x`.
pub fn path_root(path: &str) -> &str {
    // ASCII names (node ids, nearly every name) need no decoding.
    let ascii = path
        .bytes()
        .position(|b| !(b == b'_' || b == b'$' || b.is_ascii_alphanumeric()));
    let end = match ascii {
        Some(i) if !path.as_bytes()[i].is_ascii() => path[i..]
            .char_indices()
            .find(|&(_, c)| !(c == '_' || c == '$' || c.is_alphanumeric()))
            .map_or(path.len(), |(j, _)| i + j),
        Some(i) => i,
        None => path.len(),
    };
    &path[..end]
}

impl ArgumentValue {
    /// Whether the value depends on the program's parameters (`args.a`, or an expression
    /// reading `args`).
    pub fn reads_parameters(&self) -> bool {
        match self {
            ArgumentValue::Parameter { .. } => true,
            ArgumentValue::Object { properties } => {
                properties.values().any(ArgumentValue::reads_parameters)
                    || self.reads().contains(&"args")
            }
            ArgumentValue::Array { items } => items.iter().any(ArgumentValue::reads_parameters),
            ArgumentValue::Reference { reads, .. } => reads.iter().any(|r| r == "args"),
            ArgumentValue::Literal { .. } => false,
        }
    }

    /// The names this value reads (its references' `reads`), once each, in order.
    pub fn reads(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.collect_reads(&mut out);
        out
    }

    fn collect_reads<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            ArgumentValue::Reference { reads, .. } => {
                for r in reads {
                    if !out.contains(&r.as_str()) {
                        out.push(r);
                    }
                }
            }
            ArgumentValue::Object { properties } => {
                for (key, value) in properties.iter() {
                    if let Key::Computed(c) = key {
                        for r in &c.reads {
                            if !out.contains(&r.as_str()) {
                                out.push(r);
                            }
                        }
                    }
                    value.collect_reads(out);
                }
            }
            ArgumentValue::Array { items } => items.iter().for_each(|v| v.collect_reads(out)),
            ArgumentValue::Literal { .. } | ArgumentValue::Parameter { .. } => {}
        }
    }
}

/// The key of one entry of a node's arguments or of an object argument: known before the run,
/// a spread, or computed at run time. Entries keep the order the program wrote them in (a
/// later entry overrides an earlier one with the same key, as in JavaScript).
///
/// In the JSON (`docs/formats.md`, "Arguments"), a static key is written as it is (one that
/// starts with `...`, `[` or `\` with a `\` before it), a spread `...N` and a computed key `[N]`,
/// `N` the entry's place among the entries; a computed entry's value is
/// `{"key": <the key's reference>, "value": <its value>}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A key known before the run: a property name, a string or number literal key (as
    /// JavaScript makes it a string), a code task's input name, a call's position (`0`, `1`...).
    Static(String),
    /// `...expression`: the entry's value is spread in here; the entry's place.
    Spread(usize),
    /// `[expression]: value`: a key computed at run time (boxed: static keys, nearly all of
    /// them, take no more room than their text).
    Computed(Box<ComputedKey>),
}

/// A key computed at run time: the entry's place, and the key as a reference (the expression
/// with bound names replaced by node ids, the names it reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputedKey {
    pub at: usize,
    pub expression: String,
    pub reads: Vec<String>,
    /// As a reference's (not part of the JSON).
    pub canonical: Option<Box<Canonical>>,
    /// As a reference's (not part of the JSON).
    pub leaves: Leaves,
}

impl ComputedKey {
    /// The key's expression as a reference argument value.
    pub fn reference(&self) -> ArgumentValue {
        ArgumentValue::reference_printed(
            self.expression.clone(),
            self.reads.clone(),
            self.canonical.clone(),
            self.leaves.clone(),
        )
    }
}

impl std::hash::Hash for Key {
    /// A static key hashes as its text, so that maps of keys are looked up by `&str`
    /// ([`indexmap::Equivalent`]).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Key::Static(name) => name.as_str().hash(state),
            Key::Spread(at) => (1u8, *at).hash(state),
            Key::Computed(c) => (2u8, c.at).hash(state),
        }
    }
}

impl indexmap::Equivalent<Key> for str {
    fn equivalent(&self, key: &Key) -> bool {
        matches!(key, Key::Static(name) if name == self)
    }
}

/// As a program would write it: the name, `...`, `[expression]`.
impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Static(name) => f.write_str(name),
            Key::Spread(_) => f.write_str("..."),
            Key::Computed(c) => write!(f, "[{}]", c.expression),
        }
    }
}

impl From<&str> for Key {
    fn from(name: &str) -> Self {
        Key::Static(name.to_owned())
    }
}

impl From<String> for Key {
    fn from(name: String) -> Self {
        Key::Static(name)
    }
}

impl Key {
    /// The key, if known before the run.
    pub fn as_static(&self) -> Option<&str> {
        match self {
            Key::Static(name) => Some(name),
            _ => None,
        }
    }

    pub fn is_spread(&self) -> bool {
        matches!(self, Key::Spread(_))
    }

    /// The key as the JSON writes it (see [`Key`]).
    pub fn json_text(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        match self {
            Key::Static(name) => {
                match name.starts_with("...") || name.starts_with('[') || name.starts_with('\\') {
                    true => Cow::Owned(format!("\\{name}")),
                    false => Cow::Borrowed(name),
                }
            }
            Key::Spread(at) => Cow::Owned(format!("...{at}")),
            Key::Computed(c) => Cow::Owned(format!("[{}]", c.at)),
        }
    }
}

/// A node's arguments, or an object argument's properties: keyed entries in the program's
/// order (see [`Key`]). Looked up by a static key's text: `arguments.get("path")`. Hashed with
/// foldhash (seeded per process: a program cannot choose keys that collide), several times
/// cheaper than the standard library's SipHash for the few short keys each map holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments(pub ArgumentMap);

/// The map inside [`Arguments`].
pub type ArgumentMap = IndexMap<Key, ArgumentValue, foldhash::fast::RandomState>;

impl std::ops::Deref for Arguments {
    type Target = ArgumentMap;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Arguments {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl FromIterator<(Key, ArgumentValue)> for Arguments {
    fn from_iter<I: IntoIterator<Item = (Key, ArgumentValue)>>(iter: I) -> Self {
        Arguments(iter.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a Arguments {
    type Item = (&'a Key, &'a ArgumentValue);
    type IntoIter = indexmap::map::Iter<'a, Key, ArgumentValue>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl IntoIterator for Arguments {
    type Item = (Key, ArgumentValue);
    type IntoIter = indexmap::map::IntoIter<Key, ArgumentValue>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl Arguments {
    pub fn new() -> Self {
        Arguments::default()
    }

    /// Room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        Arguments(IndexMap::with_capacity_and_hasher(n, Default::default()))
    }

    /// Whether any entry is a spread.
    pub fn has_spread(&self) -> bool {
        self.keys().any(Key::is_spread)
    }

    /// Whether any entry's key is computed at run time.
    pub fn has_computed(&self) -> bool {
        self.keys().any(|k| matches!(k, Key::Computed(_)))
    }
}

/// A computed entry's value in the JSON: its key's reference, and its value.
#[derive(Serialize, Deserialize)]
struct ComputedEntry {
    key: ArgumentValue,
    value: ArgumentValue,
}

impl Serialize for Arguments {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self.iter() {
            match key {
                Key::Computed(c) => map.serialize_entry(
                    &key.json_text(),
                    &ComputedEntry {
                        key: c.reference(),
                        value: value.clone(),
                    },
                )?,
                _ => map.serialize_entry(&key.json_text(), value)?,
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Arguments;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of arguments")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Arguments, A::Error> {
                use serde::de::Error;
                let mut out = Arguments::new();
                while let Some(text) = map.next_key::<String>()? {
                    let place = |rest: &str| {
                        rest.parse::<usize>()
                            .map_err(|_| A::Error::custom(format!("bad argument key `{text}`")))
                    };
                    if let Some(name) = text.strip_prefix('\\') {
                        out.insert(Key::Static(name.to_owned()), map.next_value()?);
                    } else if let Some(at) = text.strip_prefix("...") {
                        out.insert(Key::Spread(place(at)?), map.next_value()?);
                    } else if let Some(at) =
                        text.strip_prefix('[').and_then(|t| t.strip_suffix(']'))
                    {
                        let at = place(at)?;
                        let ComputedEntry { key, value } = map.next_value()?;
                        let ArgumentValue::Reference {
                            expression, reads, ..
                        } = key
                        else {
                            return Err(A::Error::custom("a computed key is a reference"));
                        };
                        let key = ComputedKey {
                            at,
                            leaves: Leaves::found_in(&expression),
                            expression,
                            reads,
                            canonical: None,
                        };
                        out.insert(Key::Computed(Box::new(key)), value);
                    } else {
                        out.insert(Key::Static(text), map.next_value()?);
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Error,
    Warning,
}

/// A problem found in the input: never a panic, always data. One type for every stage (the
/// builder's, the DAG's and the optimizer's, the hash's renaming).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code, e.g. `syntax-error` (see `diagnostics.rs`, and the stages' own).
    pub code: String,
    pub message: String,
    /// The node or task it is about, when a later stage says (`n3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// 1-based line and column (columns count characters). `None` only for what has no place
    /// in the program (a later stage's internal error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The code it is about, when the stage knows its extent: its byte range in the program
    /// and where it starts (`line` and `column` above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Other places that explain it, each with what it says there (a recursive call's
    /// function: "`load` is defined here").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Label>,
}

/// A place a [`Diagnostic`] points to besides its own, and what it says of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at 1-based `line` and `column`.
    pub fn at(
        severity: Severity,
        code: &str,
        message: String,
        (line, column): (usize, usize),
    ) -> Self {
        Diagnostic {
            severity,
            code: code.to_owned(),
            message,
            task: None,
            line: Some(line),
            column: Some(column),
            span: None,
            labels: Vec::new(),
        }
    }

    /// A diagnostic about the code at `span`.
    pub fn spanning(severity: Severity, code: &str, message: String, span: Span) -> Self {
        Diagnostic {
            span: Some(span),
            ..Diagnostic::at(severity, code, message, (span.line, span.column))
        }
    }

    /// The diagnostic with `message` said of the code at `span` too.
    pub fn with_label(mut self, span: Span, message: String) -> Self {
        self.labels.push(Label { span, message });
        self
    }

    /// `line:column: message` (the message alone when it has no place).
    pub fn located(&self) -> String {
        match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{line}:{column}: {}", self.message),
            _ => self.message.clone(),
        }
    }

    /// `file:line:column:`, or `file:` when it has no place.
    pub fn place(&self, file: &str) -> String {
        match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{file}:{line}:{column}:"),
            _ => format!("{file}:"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{collides_with_ids, escape_name, path_root, LeafKind, Leaves};

    #[test]
    fn an_index_goes_at_each_mark_and_a_name_at_each_result() {
        // The program's own `[*]` is written escaped; a mark is where the builder says.
        let text = r#"n1[*].items[*].id + "[\*]""#;
        let marks = Leaves::found_in(text);
        let at = |l: &Leaves| l.all().iter().map(|l| l.at).collect::<Vec<_>>();
        assert_eq!(at(&marks), [2, 11]);
        assert_eq!(marks.at_index(text, 12), r#"n1[12].items[12].id + "[\*]""#);
        assert_eq!(Leaves::none().at_index(text, 3), text);
        // Placed in a longer text, after a result.
        let mut outer = Leaves::of_path("n12.x");
        outer.extend_at(&marks.shifted(1), 4);
        assert_eq!(at(&outer), [0, 7, 16]);
        assert_eq!(outer.all()[0].kind, LeafKind::Result { len: 3 });
        assert_eq!(outer.elements(), marks.shifted(5));
        // A result said by a name; a node id that is no leaf (in a string) stays.
        let text = "n1.content + ' n1' + n2";
        let mut leaves = Leaves::of_path(text);
        leaves.extend_at(&Leaves::of_path("n2"), 21);
        let said = |id: &str| match id {
            "n1" => Some("file"),
            _ => None,
        };
        assert_eq!(leaves.with_results(text, said), "file.content + ' n1' + n2");
        assert!(Leaves::of_path("Date.now()").all().is_empty());
    }

    #[test]
    fn names_like_node_ids_are_escaped() {
        for name in [
            "n1", "d22", "fn3", "call4", "c1", "f9", "j2", "l7", "n1$", "n01",
        ] {
            assert!(collides_with_ids(name), "{name}");
            assert_eq!(escape_name(name), format!("{name}$"));
        }
        for name in ["n", "name", "fn", "n1x", "x1", "call", "$n1", "n_1", "cn1"] {
            assert!(!collides_with_ids(name), "{name}");
            assert_eq!(escape_name(name), name);
        }
    }

    #[test]
    fn path_roots() {
        assert_eq!(path_root("n1.content[0]"), "n1");
        assert_eq!(path_root("n12"), "n12");
        assert_eq!(path_root("$x_1[2]"), "$x_1");
        assert_eq!(path_root("café.au"), "café");
        assert_eq!(path_root("名前.x"), "名前");
        assert_eq!(path_root("`${a}`"), "");
        assert_eq!(path_root(""), "");
    }
}
