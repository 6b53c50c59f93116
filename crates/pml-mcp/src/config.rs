//! The MCP server config file, in the format MCP clients already use:
//! `{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}`.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde_json::Value;

/// The reference-server template shipped in `mcp-servers/default-config.json`; see
/// [`McpConfig::expand`] for its `${ROOT}`, `${MCP_SERVERS}` and `${SCRATCH}` placeholders.
pub const DEFAULT_CONFIG_TEMPLATE: &str = include_str!("../../../mcp-servers/default-config.json");

/// All configured servers, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    pub servers: IndexMap<String, ServerConfig>,
    /// Fields that were read but not understood (other clients' extensions such as
    /// `disabled` or `autoApprove`, or typos), as `mcpServers.name.field`. Never fatal.
    pub ignored: Vec<String>,
    /// The file it was read from, when it was (named in the errors of its servers).
    pub origin: Option<String>,
}

/// How to start one stdio server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerConfig {
    pub command: String,
    pub args: Vec<String>,
    /// Added to (and overriding) the environment pml runs in.
    pub env: IndexMap<String, String>,
    /// Working directory; `None` keeps pml's.
    pub cwd: Option<PathBuf>,
}

/// A config file that cannot be used. `path` names the offending field
/// (`mcpServers.fs.args[1]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid mcp config: not JSON: {message} (line {line}, column {column})")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("invalid mcp config: `{path}`: {message}")]
    Field { path: String, message: String },
}

fn field(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Field {
        path: path.into(),
        message: message.into(),
    }
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn string(v: &Value, path: &str) -> Result<String, ConfigError> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| field(path, format!("expected a string, found {}", kind(v))))
}

impl McpConfig {
    /// Parse a config file. Unknown fields are listed in [`McpConfig::ignored`]; a server
    /// that is not a stdio server (`url`, or a `type` other than `stdio`) is an error.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let root: Value = serde_json::from_str(text).map_err(|e| ConfigError::Syntax {
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned(),
        })?;
        let Value::Object(root) = root else {
            return Err(field(
                "(root)",
                format!("expected an object, found {}", kind(&root)),
            ));
        };
        let mut config = McpConfig::default();
        for key in root.keys().filter(|k| *k != "mcpServers") {
            config.ignored.push(key.clone());
        }
        let servers = root
            .get("mcpServers")
            .ok_or_else(|| field("mcpServers", "missing"))?;
        let Value::Object(servers) = servers else {
            return Err(field(
                "mcpServers",
                format!("expected an object, found {}", kind(servers)),
            ));
        };
        for (name, server) in servers {
            let path = format!("mcpServers.{name}");
            if name.is_empty() {
                return Err(field(path, "a server name cannot be empty"));
            }
            let parsed = parse_server(server, &path, &mut config.ignored)?;
            config.servers.insert(name.clone(), parsed);
        }
        Ok(config)
    }

    /// Replace `${NAME}` placeholders in every command, argument, environment value and
    /// working directory. A placeholder not in `vars` is an error naming the field, so a
    /// template is never run half-filled. The shipped template uses `ROOT` (the directory the
    /// filesystem server may touch), `MCP_SERVERS` (the `node_modules` folder of
    /// `mcp-servers/`) and `SCRATCH` (a writable directory for server state).
    pub fn expand(&mut self, vars: &[(&str, &str)]) -> Result<(), ConfigError> {
        self.substitute_all(&|name: &str| match vars.iter().find(|(k, _)| *k == name) {
            Some((_, value)) => Ok((*value).to_owned()),
            None => {
                let known: Vec<&str> = vars.iter().map(|(k, _)| *k).collect();
                Err(format!(
                    "unknown placeholder `${{{name}}}` (known: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ))
            }
        })
    }

    /// Replace `${VAR}` and `${VAR:-default}` by environment variables, as MCP clients do in
    /// their config files (`"env": {"TOKEN": "${GITHUB_TOKEN}"}`), in every command,
    /// argument, environment value and working directory. `env` looks a variable up; an unset
    /// one without a default is an error naming the field.
    pub fn expand_env(&mut self, env: &dyn Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        self.substitute_all(&|name: &str| {
            let (name, default) = match name.split_once(":-") {
                Some((name, default)) => (name, Some(default)),
                None => (name, None),
            };
            if default.is_some_and(|d| d.contains("${")) {
                return Err(format!(
                    "`${{{name}:-...}}`: a default cannot hold another placeholder"
                ));
            }
            // As in a shell, `:-` also replaces a variable that is set but empty.
            match (env(name).filter(|v| !v.is_empty() || default.is_none()), default) {
                (Some(value), _) => Ok(value),
                (None, Some(default)) => Ok(default.to_owned()),
                (None, None) => Err(format!(
                    "`${{{name}}}` names an environment variable that is not set (`${{{name}:-default}}` gives a default)"
                )),
            }
        })
    }

    fn substitute_all(&mut self, value_of: &Resolve) -> Result<(), ConfigError> {
        for (name, server) in &mut self.servers {
            let path = format!("mcpServers.{name}");
            server.command = substitute(&server.command, value_of, &format!("{path}.command"))?;
            for (i, arg) in server.args.iter_mut().enumerate() {
                *arg = substitute(arg, value_of, &format!("{path}.args[{i}]"))?;
            }
            for (key, value) in &mut server.env {
                *value = substitute(value, value_of, &format!("{path}.env.{key}"))?;
            }
            if let Some(cwd) = &mut server.cwd {
                let text = cwd.to_string_lossy().into_owned();
                *cwd = substitute(&text, value_of, &format!("{path}.cwd"))?.into();
            }
        }
        Ok(())
    }
}

/// The value of a placeholder's name (`VAR`, or `VAR:-default`), or why there is none.
type Resolve<'a> = dyn Fn(&str) -> Result<String, String> + 'a;

fn parse_server(
    v: &Value,
    path: &str,
    ignored: &mut Vec<String>,
) -> Result<ServerConfig, ConfigError> {
    let Value::Object(obj) = v else {
        return Err(field(
            path,
            format!("expected an object, found {}", kind(v)),
        ));
    };
    if obj.contains_key("url") {
        return Err(field(
            format!("{path}.url"),
            "only stdio servers (`command`) are supported",
        ));
    }
    if let Some(ty) = obj.get("type") {
        if ty.as_str() != Some("stdio") {
            return Err(field(
                format!("{path}.type"),
                format!("only \"stdio\" servers are supported, found {ty}"),
            ));
        }
    }
    let command = obj
        .get("command")
        .ok_or_else(|| field(format!("{path}.command"), "missing"))?;
    let command = string(command, &format!("{path}.command"))?;
    if command.trim().is_empty() {
        return Err(field(format!("{path}.command"), "cannot be empty"));
    }
    let mut server = ServerConfig {
        command,
        ..ServerConfig::default()
    };
    match obj.get("args") {
        None | Some(Value::Null) => {}
        Some(Value::Array(args)) => {
            for (i, arg) in args.iter().enumerate() {
                server.args.push(string(arg, &format!("{path}.args[{i}]"))?);
            }
        }
        Some(other) => {
            return Err(field(
                format!("{path}.args"),
                format!("expected an array of strings, found {}", kind(other)),
            ))
        }
    }
    match obj.get("env") {
        None | Some(Value::Null) => {}
        Some(Value::Object(env)) => {
            for (key, value) in env {
                let value = string(value, &format!("{path}.env.{key}"))?;
                server.env.insert(key.clone(), value);
            }
        }
        Some(other) => {
            return Err(field(
                format!("{path}.env"),
                format!("expected an object of strings, found {}", kind(other)),
            ))
        }
    }
    match obj.get("cwd") {
        None | Some(Value::Null) => {}
        Some(cwd) => server.cwd = Some(string(cwd, &format!("{path}.cwd"))?.into()),
    }
    for key in obj.keys() {
        if !matches!(key.as_str(), "command" | "args" | "env" | "cwd" | "type") {
            ignored.push(format!("{path}.{key}"));
        }
    }
    Ok(server)
}

/// `${NAME}` (NAME made of ASCII letters, digits and `_`, optionally followed by `:-` and a
/// default without `}`); anything else is literal.
fn substitute(text: &str, value_of: &Resolve, path: &str) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        // The default runs to the `}` that closes the placeholder (braces inside nest).
        let default_len = match after[name_len..].strip_prefix(":-") {
            Some(default) => closing_brace(default).map(|end| end + 2),
            None => Some(0),
        };
        let Some(default_len) = default_len else {
            out.push_str("${");
            rest = after;
            continue;
        };
        let end = name_len + default_len;
        if name_len == 0 || !after[end..].starts_with('}') {
            out.push_str("${");
            rest = after;
            continue;
        }
        let value = value_of(&after[..end]).map_err(|message| field(path, message))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The byte index of the `}` that closes an already open `{` in `text`.
fn closing_brace(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_common_format() {
        let c = McpConfig::from_json(
            r#"{"mcpServers": {"fs": {"command": "node", "args": ["a.js", "/tmp"],
                "env": {"K": "v"}, "disabled": false}, "b": {"command": "x", "type": "stdio"}}}"#,
        )
        .unwrap();
        assert_eq!(c.servers.keys().collect::<Vec<_>>(), ["fs", "b"]);
        assert_eq!(c.servers["fs"].args, ["a.js", "/tmp"]);
        assert_eq!(c.servers["fs"].env["K"], "v");
        assert_eq!(c.ignored, ["mcpServers.fs.disabled"]);
    }

    #[test]
    fn errors_name_the_field() {
        let err = |t: &str| McpConfig::from_json(t).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"mcpServers": {"fs": {"command": "n", "args": ["a", 1]}}}"#),
            "invalid mcp config: `mcpServers.fs.args[1]`: expected a string, found a number"
        );
        assert_eq!(
            err(r#"{"mcpServers": {"fs": {"args": []}}}"#),
            "invalid mcp config: `mcpServers.fs.command`: missing"
        );
        assert_eq!(
            err(r#"{"mcpServers": {"fs": {"command": "n", "env": {"A": true}}}}"#),
            "invalid mcp config: `mcpServers.fs.env.A`: expected a string, found a boolean"
        );
        assert_eq!(
            err(r#"{"mcpServers": {"w": {"url": "http://x"}}}"#),
            "invalid mcp config: `mcpServers.w.url`: only stdio servers (`command`) are supported"
        );
        assert_eq!(
            err(r#"{"servers": {}}"#),
            "invalid mcp config: `mcpServers`: missing"
        );
        assert_eq!(
            err("{\"mcpServers\": {\n  \"a\": }"),
            "invalid mcp config: not JSON: expected value (line 2, column 8)"
        );
    }

    #[test]
    fn expands_placeholders_and_refuses_unknown_ones() {
        let mut c = McpConfig::from_json(DEFAULT_CONFIG_TEMPLATE).unwrap();
        c.expand(&[("ROOT", "/r"), ("MCP_SERVERS", "/m"), ("SCRATCH", "/s")])
            .unwrap();
        assert_eq!(
            c.servers["filesystem"].args,
            [
                "/m/@modelcontextprotocol/server-filesystem/dist/index.js",
                "/r"
            ]
        );
        assert_eq!(
            c.servers["memory"].env["MEMORY_FILE_PATH"],
            "/s/memory.jsonl"
        );
        let mut c = McpConfig::from_json(DEFAULT_CONFIG_TEMPLATE).unwrap();
        let e = c.expand(&[("MCP_SERVERS", "/m")]).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid mcp config: `mcpServers.filesystem.args[1]`: unknown placeholder `${ROOT}` (known: MCP_SERVERS)"
        );
        let none = |name: &str| Err(format!("asked for {name}"));
        assert_eq!(
            substitute("a${b c $ ${}x ${:-y}", &none, "p").unwrap(),
            "a${b c $ ${}x ${:-y}"
        );
    }

    #[test]
    fn expands_environment_variables_with_defaults() {
        let mut c = McpConfig::from_json(
            r#"{"mcpServers": {"gh": {"command": "${BIN:-npx}", "args": ["--token=${TOKEN}"],
                "env": {"URL": "${API_URL:-https://api.example.org}", "K": "$HOME ${}"}}}}"#,
        )
        .unwrap();
        let env = |name: &str| (name == "TOKEN").then(|| "t0k".to_owned());
        c.expand_env(&env).unwrap();
        let gh = &c.servers["gh"];
        assert_eq!(gh.command, "npx");
        assert_eq!(gh.args, ["--token=t0k"]);
        assert_eq!(gh.env["URL"], "https://api.example.org");
        assert_eq!(gh.env["K"], "$HOME ${}");
        let mut c = McpConfig::from_json(
            r#"{"mcpServers": {"gh": {"command": "x", "env": {"T": "${GH_TOKEN}"}}}}"#,
        )
        .unwrap();
        assert_eq!(
            c.expand_env(&|_| None).unwrap_err().to_string(),
            "invalid mcp config: `mcpServers.gh.env.T`: `${GH_TOKEN}` names an environment variable that is not set (`${GH_TOKEN:-default}` gives a default)"
        );
    }

    #[test]
    fn defaults_replace_empty_variables_and_hold_no_placeholder() {
        let config = |env: &str| {
            McpConfig::from_json(&format!(
                r#"{{"mcpServers": {{"s": {{"command": "x", "env": {{"A": "{env}"}}}}}}}}"#
            ))
            .unwrap()
        };
        let empty = |name: &str| (name == "E").then(String::new);
        let mut c = config("${E:-fallback}");
        c.expand_env(&empty).unwrap();
        assert_eq!(c.servers["s"].env["A"], "fallback");
        let mut c = config("${E}");
        c.expand_env(&empty).unwrap();
        assert_eq!(c.servers["s"].env["A"], "");
        let mut c = config("${A:-${B}}");
        assert_eq!(
            c.expand_env(&empty).unwrap_err().to_string(),
            "invalid mcp config: `mcpServers.s.env.A`: `${A:-...}`: a default cannot hold another placeholder"
        );
    }
}
