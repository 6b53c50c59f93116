//! What a tool call and a tool listing give back, as plain JSON-friendly data.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::McpError;

/// The result of one `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallOutcome {
    /// The value of `await mcp.server.tool(args)` (see [`CallOutcome::from_result`]);
    /// `null` when `is_error`.
    pub value: Value,
    /// The `CallToolResult` as the server sent it (for traces).
    pub raw: Value,
    /// The result had `isError: true`: the call throws `error_text`.
    pub is_error: bool,
    pub error_text: Option<String>,
}

impl CallOutcome {
    /// Apply the value rule to a `CallToolResult`:
    /// `isError: true` -> an error whose message is the text content (the text items joined
    /// by newlines, or the content as JSON when it has no text); else `structuredContent` if
    /// present; else, for a single text item, `JSON.parse` of its text when that parses,
    /// otherwise the text; else the content array.
    pub fn from_result(raw: Value) -> Self {
        let content = raw
            .get("content")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        if raw.get("isError").and_then(Value::as_bool) == Some(true) {
            return CallOutcome {
                value: Value::Null,
                error_text: Some(error_text(&content)),
                is_error: true,
                raw,
            };
        }
        let value = if let Some(structured) = raw.get("structuredContent") {
            structured.clone()
        } else {
            match content.as_array().map(Vec::as_slice) {
                Some([item]) if item.get("type").and_then(Value::as_str) == Some("text") => {
                    let text = item.get("text").and_then(Value::as_str).unwrap_or_default();
                    pml_jstext::parse(text).unwrap_or_else(|_| Value::String(text.to_owned()))
                }
                _ => content,
            }
        };
        CallOutcome {
            value,
            raw,
            is_error: false,
            error_text: None,
        }
    }

    /// The value, or [`McpError::Tool`] when the result was an error.
    pub fn into_value(self, server: &str, tool: &str) -> Result<Value, McpError> {
        match self.error_text {
            Some(message) if self.is_error => Err(McpError::Tool {
                server: server.to_owned(),
                tool: tool.to_owned(),
                message,
            }),
            _ => Ok(self.value),
        }
    }
}

fn error_text(content: &Value) -> String {
    let texts: Vec<&str> = content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|item| item.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        content.to_string()
    } else {
        texts.join("\n")
    }
}

/// One tool as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`, when the tool declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints (absent ones stay `None`; see the accessors for the spec's defaults).
    #[serde(default)]
    pub annotations: ToolAnnotations,
}

/// `Tool.annotations`: hints a server gives about a tool, not guarantees.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// `readOnlyHint` (default false).
    pub fn read_only(&self) -> bool {
        self.read_only_hint.unwrap_or(false)
    }

    /// `destructiveHint`, meaningful only for tools that are not read-only (default true).
    pub fn destructive(&self) -> bool {
        !self.read_only() && self.destructive_hint.unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn value(raw: Value) -> Value {
        CallOutcome::from_result(raw).value
    }

    #[test]
    fn value_rule() {
        let text = |t: &str| json!({"content": [{"type": "text", "text": t}]});
        assert_eq!(value(text(r#"{"a": [1, 2]}"#)), json!({"a": [1, 2]}));
        assert_eq!(value(text(" 42 ")), json!(42));
        assert_eq!(value(text("Echo: hi")), json!("Echo: hi"));
        assert_eq!(value(text("")), json!(""));
        assert_eq!(
            value(
                json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"s": 1}})
            ),
            json!({"s": 1})
        );
        assert_eq!(
            value(json!({"content": [], "structuredContent": null})),
            Value::Null,
            "an explicit null structuredContent is kept"
        );
        let two = json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        assert_eq!(value(json!({"content": two})), two);
        let image = json!([{"type": "image", "data": "AA==", "mimeType": "image/png"}]);
        assert_eq!(value(json!({"content": image})), image);
        assert_eq!(value(json!({})), json!([]));
    }

    #[test]
    fn is_error_gives_the_text() {
        let o = CallOutcome::from_result(json!({"isError": true, "structuredContent": {"a": 1},
            "content": [{"type": "text", "text": "no such file"}, {"type": "text", "text": "sorry"}]}));
        assert!(o.is_error);
        assert_eq!(o.error_text.as_deref(), Some("no such file\nsorry"));
        assert_eq!(
            o.into_value("fs", "read").unwrap_err().to_string(),
            "mcp tool `fs.read` returned an error: no such file\nsorry"
        );
        let o = CallOutcome::from_result(json!({"isError": true, "content": []}));
        assert_eq!(o.error_text.as_deref(), Some("[]"));
    }

    #[test]
    fn annotation_defaults_follow_the_spec() {
        let none = ToolAnnotations::default();
        assert!(!none.read_only() && none.destructive());
        let ro: ToolAnnotations = serde_json::from_value(json!({"readOnlyHint": true})).unwrap();
        assert!(ro.read_only() && !ro.destructive());
    }
}
