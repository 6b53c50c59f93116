//! Optional inputs: a tool catalog (schemas -> `provides` edges) and a permission config
//! (-> `hilRequiredTools`).

use std::collections::{BTreeSet, HashMap, HashSet};

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{Coverage, Edge, EdgeKind, NodeKind, StaticStructure};

/// Tools with their JSON schemas, as MCP `tools/list` returns them, names qualified by server
/// (`filesystem:read_text_file`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCatalog {
    tools: HashMap<String, ToolSchema>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchema {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub input_schema: Option<Value>,
    #[serde(default)]
    pub output_schema: Option<Value>,
    #[serde(default)]
    pub annotations: Option<Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{0}")]
    Shape(String),
}

impl From<serde_json::Error> for ConfigError {
    fn from(e: serde_json::Error) -> Self {
        if e.is_data() {
            ConfigError::Shape(e.to_string())
        } else {
            ConfigError::Json {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            }
        }
    }
}

impl ToolCatalog {
    /// Parse `{"tools": [...]}` or a bare array of tools.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Wrapped { tools: Vec<ToolSchema> },
            Bare(Vec<ToolSchema>),
        }
        let tools = match serde_json::from_str::<Shape>(text) {
            Ok(Shape::Wrapped { tools }) | Ok(Shape::Bare(tools)) => tools,
            Err(e) if e.is_data() => {
                return Err(ConfigError::Shape(
                    "expected {\"tools\": [{\"name\": \"server:tool\", \"inputSchema\": {...}, \"outputSchema\": {...}}]}".into(),
                ))
            }
            Err(e) => return Err(e.into()),
        };
        let mut catalog = ToolCatalog::default();
        for tool in tools {
            if !tool.name.contains(':') {
                return Err(ConfigError::Shape(format!(
                    "tool `{}`: names must be qualified by server, as `server:tool`",
                    tool.name
                )));
            }
            catalog.tools.insert(tool.name.clone(), tool);
        }
        Ok(catalog)
    }

    pub fn insert(&mut self, tool: ToolSchema) {
        self.tools.insert(tool.name.clone(), tool);
    }

    pub fn get(&self, name: &str) -> Option<&ToolSchema> {
        self.tools.get(name)
    }

    /// The tools' names (`server:tool`), sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.tools.keys().map(String::as_str).collect();
        names.sort_unstable();
        names.into_iter()
    }
}

/// Property names of an object schema, and which are required.
fn properties(schema: Option<&Value>) -> (BTreeSet<String>, BTreeSet<String>) {
    let Some(schema) = schema else {
        return Default::default();
    };
    let props: BTreeSet<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let required: BTreeSet<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    (props, required)
}

/// How much of a consumer's inputs a provider's outputs cover; `None` without intersection.
pub fn coverage(
    outputs: &BTreeSet<String>,
    required: &BTreeSet<String>,
    optional: &BTreeSet<String>,
) -> Option<Coverage> {
    let required_covered = required.intersection(outputs).count();
    let optional_covered = optional.intersection(outputs).count();
    if required_covered == 0 && optional_covered == 0 {
        return None;
    }
    if !required.is_empty() && required_covered == required.len() {
        Some(Coverage::Strict)
    } else if required_covered > 0 {
        Some(Coverage::Partial)
    } else {
        Some(Coverage::Optional)
    }
}

/// Add `provides` edges: A -> B when A runs before B on some path (A is an ancestor of B in the
/// sequence/conditional graph), A's output schema intersects B's input schema, and A is the
/// nearest such ancestor calling its tool (an earlier call of the same tool provides the same:
/// 4,000 reads and writes made 16 million edges). Each search stops once every tool the
/// program calls has been met, so the cost is linear in the calls for a given catalog.
pub(crate) fn add_provides_edges(structure: &mut StaticStructure, catalog: &ToolCatalog) {
    let index: HashMap<&str, usize> = structure
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); structure.nodes.len()];
    for e in &structure.edges {
        if let (Some(&f), Some(&t)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            preds[t].push(f);
        }
    }
    // Scope parents count too: a loop's body follows the loop node.
    let tasks: Vec<usize> = structure
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::Task && n.is_mcp())
        .filter(|(_, n)| catalog.get(n.tool.as_deref().unwrap_or("")).is_some())
        .map(|(i, _)| i)
        .collect();
    let task_set: HashSet<usize> = tasks.iter().copied().collect();
    let tool = |i: usize| structure.nodes[i].tool.as_deref().unwrap_or("");
    let tools: HashSet<&str> = tasks.iter().map(|&t| tool(t)).collect();
    let mut new_edges = Vec::new();
    let mut seen = vec![usize::MAX; structure.nodes.len()];
    for &b in &tasks {
        let node_b = &structure.nodes[b];
        let schema_b = catalog.get(node_b.tool.as_deref().unwrap_or(""));
        let (inputs, required) = properties(schema_b.and_then(|s| s.input_schema.as_ref()));
        let optional: BTreeSet<String> = inputs.difference(&required).cloned().collect();
        // The nearest ancestor of b calling each tool (breadth first), until every tool is met.
        let mut nearest: HashMap<&str, usize> = HashMap::new();
        let mut queue: std::collections::VecDeque<usize> = preds[b].iter().copied().collect();
        while let Some(a) = queue.pop_front() {
            if nearest.len() == tools.len() {
                break;
            }
            if std::mem::replace(&mut seen[a], b) == b {
                continue;
            }
            if task_set.contains(&a) {
                nearest.entry(tool(a)).or_insert(a);
            }
            queue.extend(preds[a].iter().copied());
        }
        let mut ancestors: Vec<usize> = nearest.into_values().collect();
        ancestors.sort_unstable();
        for a in ancestors {
            let node_a = &structure.nodes[a];
            let schema_a = catalog.get(node_a.tool.as_deref().unwrap_or(""));
            let (outputs, _) = properties(schema_a.and_then(|s| s.output_schema.as_ref()));
            if let Some(c) = coverage(&outputs, &required, &optional) {
                new_edges.push(Edge {
                    from: node_a.id.clone(),
                    to: node_b.id.clone(),
                    kind: EdgeKind::Provides,
                    outcome: None,
                    coverage: Some(c),
                });
            }
        }
    }
    structure.edges.extend(new_edges);
}

/// Approval policy per tool: `auto` runs without asking, `hil` needs a human in the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    Auto,
    Hil,
}

/// Tool pattern -> approval. Patterns are `server:tool`, `server:*`, `*`, or any glob with `*`.
/// The most specific match wins: an exact name, then the pattern with the most literal
/// characters; ties go to the one written first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Permissions {
    rules: IndexMap<String, Approval>,
}

impl Permissions {
    /// Parse `{"permissions": {"pattern": "auto"|"hil"}}` or the bare map.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Wrapped {
                permissions: IndexMap<String, Approval>,
            },
            Bare(IndexMap<String, Approval>),
        }
        match serde_json::from_str::<Shape>(text) {
            Ok(Shape::Wrapped { permissions: rules }) | Ok(Shape::Bare(rules)) => {
                Ok(Permissions { rules })
            }
            Err(e) if e.is_data() => Err(ConfigError::Shape(
                "expected {\"permissions\": {\"server:tool\": \"auto\" | \"hil\", \"server:*\": ...}}"
                    .into(),
            )),
            Err(e) => Err(e.into()),
        }
    }

    pub fn insert(&mut self, pattern: impl Into<String>, approval: Approval) {
        self.rules.insert(pattern.into(), approval);
    }

    /// The approval that applies to `tool`, if any rule matches.
    pub fn approval(&self, tool: &str) -> Option<Approval> {
        let mut best: Option<(usize, Approval)> = None;
        for (pattern, approval) in &self.rules {
            if !glob_match(pattern, tool) {
                continue;
            }
            let specificity = if pattern.contains('*') {
                pattern.chars().filter(|c| *c != '*').count()
            } else {
                usize::MAX
            };
            if best.is_none_or(|(s, _)| specificity > s) {
                best = Some((specificity, *approval));
            }
        }
        best.map(|(_, a)| a)
    }
}

/// `*` matches any run of characters (including `:`); everything else literally.
fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

/// MCP tools of the structure that need approval, in node order, without duplicates.
pub(crate) fn hil_required_tools(structure: &StaticStructure, perms: &Permissions) -> Vec<String> {
    let mut seen = HashSet::new();
    structure
        .nodes
        .iter()
        .filter(|n| n.is_mcp())
        .filter_map(|n| n.tool.as_deref())
        .filter(|tool| perms.approval(tool) == Some(Approval::Hil))
        .filter(|tool| seen.insert(tool.to_string()))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn coverage_levels() {
        let out = set(&["path", "size"]);
        assert_eq!(
            coverage(&out, &set(&["path"]), &set(&[])),
            Some(Coverage::Strict)
        );
        assert_eq!(
            coverage(&out, &set(&["path", "content"]), &set(&[])),
            Some(Coverage::Partial)
        );
        assert_eq!(
            coverage(&out, &set(&["content"]), &set(&["size"])),
            Some(Coverage::Optional)
        );
        assert_eq!(coverage(&out, &set(&["content"]), &set(&["x"])), None);
        // No required inputs at all: covering an optional one is only optional coverage.
        assert_eq!(
            coverage(&out, &set(&[]), &set(&["size"])),
            Some(Coverage::Optional)
        );
    }

    #[test]
    fn permissions_most_specific_wins() {
        let p = Permissions::from_json(
            r#"{"permissions": {"*": "auto", "filesystem:*": "hil", "filesystem:read_*": "auto", "filesystem:read_text_file": "hil"}}"#,
        )
        .unwrap();
        assert_eq!(p.approval("filesystem:read_text_file"), Some(Approval::Hil));
        assert_eq!(
            p.approval("filesystem:read_media_file"),
            Some(Approval::Auto)
        );
        assert_eq!(p.approval("filesystem:write_file"), Some(Approval::Hil));
        assert_eq!(p.approval("memory:read_graph"), Some(Approval::Auto));
        assert!(Permissions::from_json(r#"{"permissions": {"x": "maybe"}}"#).is_err());
    }

    /// A call gets a `provides` edge from the nearest earlier call of each tool whose output
    /// fits its input, not from every earlier call: 4,000 reads and writes made 16 million.
    #[test]
    fn provides_edges_come_from_the_nearest_call_of_each_tool() {
        let catalog = ToolCatalog::from_json(
            r#"{"tools": [
                {"name": "fs:read", "inputSchema": {"properties": {"path": {}}, "required": ["path"]},
                 "outputSchema": {"properties": {"path": {}, "content": {}}}},
                {"name": "fs:write", "inputSchema": {"properties": {"path": {}, "content": {}}, "required": ["path", "content"]},
                 "outputSchema": {"properties": {"path": {}}}}
            ]}"#,
        )
        .unwrap();
        let provides = |calls: usize| {
            let code = "const r = await mcp.fs.read({ path: args.p });\nawait mcp.fs.write({ path: args.p, content: r.content });\n"
                .repeat(calls);
            let mut s = crate::build_structure(&code, &Default::default()).structure;
            add_provides_edges(&mut s, &catalog);
            let edges: Vec<(String, String)> = (s.edges.iter())
                .filter(|e| e.kind == EdgeKind::Provides)
                .map(|e| (e.from.clone(), e.to.clone()))
                .collect();
            edges
        };
        // n1 read, n2 write, n3 read, n4 write: n3's nearest read is n1, its nearest write n2.
        assert_eq!(
            provides(2),
            [
                ("n1", "n2"),
                ("n1", "n3"),
                ("n2", "n3"),
                ("n2", "n4"),
                ("n3", "n4"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
        assert!(provides(2_000).len() < 2 * 4_000);
    }

    #[test]
    fn glob() {
        assert!(glob_match("a*c", "abbc"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*c", "abb"));
        assert!(glob_match("*:write*", "fs:write_file"));
    }
}
