//! The servers a command talks to and what they offer: `pml tools`, `pml types` (checked with
//! the TypeScript compiler), `pml check` against the servers, a project's `.mcp.json` with
//! `${VAR}`s, and the reference servers installed into a folder of their own on first use.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::pml;

/// `pml` run in `dir` with `env` added.
fn pml_at(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    super::pml_with(Some(dir), env, args)
}

/// A config with the reference filesystem server serving `root`.
fn filesystem_config(root: &Path) -> Value {
    let server = pml::servers::mcp_servers_dir()
        .join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    serde_json::json!({"mcpServers": {"filesystem": {
        "command": "node", "args": [server, root]
    }}})
}

#[test]
fn tools_prints_the_catalog_that_tools_reads() {
    let (code, out, err) = pml(&["tools"]);
    assert_eq!(code, 0, "{err}");
    let catalog: Value = serde_json::from_str(&out).unwrap();
    let tools = catalog["tools"].as_array().unwrap();
    let read = tools
        .iter()
        .find(|t| t["name"] == "filesystem:read_text_file")
        .unwrap();
    assert_eq!(read["annotations"]["readOnlyHint"], true);
    assert_eq!(read["inputSchema"]["required"], serde_json::json!(["path"]));
    for server in ["filesystem", "memory", "everything"] {
        assert!(
            tools.iter().any(|t| t["name"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{server}:"))),
            "{server}"
        );
    }
    // What `--tools` reads: the structure then knows the tools' schemas.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, &out).unwrap();
    let example = format!("{}/../../examples/etl-files.ts", env!("CARGO_MANIFEST_DIR"));
    let (code, structure, err) = pml(&["analyze", &example, "--tools", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(structure.contains("\"provides\""), "{structure}");

    let (code, out, _) = pml(&["tools", "--server", "memory"]);
    assert_eq!(code, 0);
    let catalog: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = (catalog["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.iter().all(|n| n.starts_with("memory:")), "{names:?}");
    assert!(names.contains(&"memory:create_entities"), "{names:?}");

    let (code, _, err) = pml(&["tools", "--server", "memroy"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "pml: no server `memroy` is configured (configured: filesystem, memory, everything)\n"
    );
}

/// `pml types`, then `tsc --noEmit` over the declarations and each example as the
/// body of an async function: every example type-checks, and a program calling a tool that
/// does not exist, or with an argument of the wrong type, does not.
#[test]
fn types_type_check_the_examples_with_tsc() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let tsc = format!("{root}/crates/pml/tests/typescript/node_modules/typescript/bin/tsc");
    assert!(
        Path::new(&tsc).is_file(),
        "TypeScript is not installed: npm ci --prefix crates/pml/tests/typescript (scripts/test.sh does)"
    );
    let dir = tempfile::tempdir().unwrap();
    let declarations = dir.path().join("mcp.d.ts");
    // A store with one capability: it is declared by name, with its parameters.
    let store = dir.path().join("store.sqlite");
    let store = store.to_str().unwrap();
    let capability = dir.path().join("greet.ts");
    std::fs::write(
        &capability,
        "const r = await mcp.everything.echo({ message: \"hello\" });\nreturn r;\n",
    )
    .unwrap();
    let saved = pml(&[
        "save",
        capability.to_str().unwrap(),
        "--name",
        "greet",
        "--store",
        store,
    ]);
    assert_eq!(saved.0, 0, "{}", saved.2);
    let (code, _, err) = pml(&[
        "types",
        "-o",
        declarations.to_str().unwrap(),
        "--store",
        store,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&declarations).unwrap();
    assert!(text.contains("declare const mcp: {"), "{text}");
    assert!(text.contains("    read_text_file(args: {"), "{text}");

    let as_function =
        |code: &str| format!("export {{}};\nasync function program() {{\n{code}\n}}\n");
    let mut sources = vec![declarations.display().to_string()];
    let mut examples: Vec<_> = std::fs::read_dir(format!("{root}/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ts"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 5);
    for example in &examples {
        let code = std::fs::read_to_string(example).unwrap();
        let file = dir.path().join(example.file_name().unwrap());
        std::fs::write(&file, as_function(&code)).unwrap();
        sources.push(file.display().to_string());
    }
    let tsc_over = |files: &[String]| {
        let out = Command::new("node")
            .arg(&tsc)
            .args([
                "--noEmit",
                // Not `--strict`: agents' `const found = []` and callbacks over parsed JSON
                // (`xs.map(u => u.name)`) are fine JavaScript that strict mode refuses.
                "--target", "es2022", "--lib", "es2023", "--pretty", "false",
            ])
            .args(files)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, out) = tsc_over(&sources);
    assert!(ok, "{out}");

    let wrong = dir.path().join("wrong.ts");
    std::fs::write(
        &wrong,
        as_function(
            "const f = await mcp.filesystem.read_txt_file({ path: args.root + \"/a\" });\n\
             const g = await mcp.filesystem.read_text_file({ path: 42 });\n\
             const h = await capabilities.greet({ message: \"hi\" });\n\
             const i = await capabilities.gret({ message: 3 });\n\
             return [f, g.content, h, i];",
        ),
    )
    .unwrap();
    let (ok, out) = tsc_over(&[
        declarations.display().to_string(),
        wrong.display().to_string(),
    ]);
    assert!(!ok);
    assert!(
        out.contains("wrong.ts(3,32): error TS2551: Property 'read_txt_file' does not exist"),
        "{out}"
    );
    assert!(
        out.contains(
            "wrong.ts(4,49): error TS2322: Type 'number' is not assignable to type 'string'"
        ),
        "{out}"
    );
    // The stored capability type-checks, with its parameter; a misspelt one does not.
    assert!(!out.contains("wrong.ts(5,"), "{out}");
    assert!(
        out.contains("wrong.ts(6,30): error TS2551: Property 'gret' does not exist"),
        "{out}"
    );
}

/// `pml check --mcp-config` says what `pml run` would refuse, without running anything.
#[test]
fn check_against_the_servers_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let config = dir.path().join("config.json");
    std::fs::write(&config, filesystem_config(&data).to_string()).unwrap();
    let config = config.to_str().unwrap();
    let program = dir.path().join("p.js");
    let write_then = |call: &str| {
        format!(
            "await mcp.filesystem.write_file({{ path: {:?}, content: \"x\" }});\n{call}\n",
            data.join("x.txt")
        )
    };
    std::fs::write(
        &program,
        write_then("return await mcp.filesystem.read_txt_file({ path: \"a\" });"),
    )
    .unwrap();
    let p = program.to_str().unwrap();
    let (code, out, err) = pml(&["check", p, "--mcp-config", config]);
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert_eq!(
        err,
        format!("{p}:2:14: mcp.filesystem.read_txt_file: server `filesystem` has no tool `read_txt_file`; did you mean `read_text_file`?\n")
    );
    assert!(!data.join("x.txt").exists(), "the check ran the program");

    std::fs::write(
        &program,
        write_then("return await mcp.filesystem.read_text_file({ path: 7 });"),
    )
    .unwrap();
    let (code, _, err) = pml(&["check", p, "--mcp-config", config]);
    assert_eq!(code, 1);
    assert!(err.starts_with(&format!("{p}:2:14: ")), "{err}");
    assert!(err.contains("`path`"), "{err}");

    std::fs::write(
        &program,
        write_then("return await mcp.filesystem.read_text_file({ path: \"a\" });"),
    )
    .unwrap();
    let (code, _, err) = pml(&["check", p, "--mcp-config", config]);
    assert_eq!(code, 0, "{err}");
    assert!(!data.join("x.txt").exists(), "the check ran the program");
    // Only the syntax without a config; flags that need one are usage errors.
    assert_eq!(pml(&["check", p]).0, 0);
    assert_eq!(pml(&["check", p, "--servers", "--mcp-config", config]).0, 2);
}

/// Without `--mcp-config`, the nearest `.mcp.json` names the servers; its `${VAR}`s come from
/// the environment.
#[test]
fn a_projects_mcp_json_is_used_with_its_variables() {
    let project = tempfile::tempdir().unwrap();
    let data = project.path().join("data");
    let work = project.path().join("src/deep");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(data.join("hello.txt"), "hello from the project").unwrap();
    let mut config = filesystem_config(Path::new("${PROJECT_DATA}"));
    config["mcpServers"]["filesystem"]["env"] =
        serde_json::json!({"LABEL": "${LABEL:-default label}"});
    std::fs::write(project.path().join(".mcp.json"), config.to_string()).unwrap();
    std::fs::write(
        work.join("read.js"),
        "const f = await mcp.filesystem.read_text_file({ path: args.dir + \"/hello.txt\" });\nreturn f.content;\n",
    )
    .unwrap();
    let data = data.canonicalize().unwrap();
    let args = format!("{{\"dir\": {:?}}}", data.to_str().unwrap());
    let run = ["run", "read.js", "--no-store", "--args", &args];
    let (code, out, err) = pml_at(&work, &[("PROJECT_DATA", data.to_str().unwrap())], &run);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"], "hello from the project");
    // The same program does not see the project's servers from elsewhere.
    let (code, _, err) = pml_at(&work, &[], &run);
    assert_eq!(code, 2);
    assert!(
        err.contains(".mcp.json: invalid mcp config: `mcpServers.filesystem.args[1]`: `${PROJECT_DATA}` names an environment variable that is not set"),
        "{err}"
    );
}

/// With no source tree to find them in (`PML_MCP_SERVERS` names an empty folder here), the
/// reference servers are installed there from the lock file in the binary, on first use.
#[test]
fn the_reference_servers_install_themselves_where_told() {
    let home = tempfile::tempdir().unwrap();
    let servers = home.path().join("servers");
    let env = [("PML_MCP_SERVERS", servers.to_str().unwrap())];
    let (code, out, err) = pml_at(home.path(), &env, &["tools", "--server", "everything"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("installing the reference MCP servers"),
        "{err}"
    );
    assert!(out.contains("\"everything:echo\""), "{out}");
    assert!(servers.join("package-lock.json").is_file());
    // Once.
    let (code, _, err) = pml_at(home.path(), &env, &["tools", "--server", "everything"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("installing"), "{err}");
}

/// `cargo install --path crates/pml` into a temporary root (reusing this build's artifacts),
/// then `pml run` of an example copied into another directory, run from there.
#[test]
fn an_installed_pml_runs_an_example_from_anywhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let home = tempfile::tempdir().unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| root.join("target"));
    let out = Command::new(cargo)
        .args(["install", "--debug", "--locked", "--quiet", "--path"])
        .arg(root.join("crates/pml"))
        .arg("--root")
        .arg(home.path().join("install"))
        .arg("--target-dir")
        .arg(target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pml = home.path().join("install/bin/pml");
    let work = home.path().join("elsewhere");
    std::fs::create_dir_all(&work).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .args([
            root.join("examples/etl-files.ts"),
            root.join("examples/etl-files"),
        ])
        .arg(&work)
        .status()
        .unwrap();
    assert!(copied.success());
    let out = Command::new(&pml)
        .args(["run", "etl-files.ts"])
        .current_dir(&work)
        .env("PML_STORE", home.path().join("store.sqlite"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"]["written"], 3, "{v}");
    assert_eq!(v["result"]["reportHasSize"], true, "{v}");
    // The run was recorded in the store it was given.
    assert!(v["runId"].is_string());
}

#[test]
fn check_goes_as_deep_as_the_schema() {
    // `entityTyp` for `entityType` inside an array of objects: the memory server refuses the
    // call; `pml check --servers` says so before anything runs, with where.
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("p.ts");
    std::fs::write(
        &program,
        "const who = args.who ?? \"ada\";\nawait mcp.memory.create_entities({ entities: [{ name: who, entityTyp: \"person\", observations: [] }] });\n",
    )
    .unwrap();
    let p = program.to_str().unwrap();
    let (code, _, err) = crate::pml_with(Some(dir.path()), &[], &["check", p, "--servers"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "{p}:2:7: mcp.memory.create_entities: `entities[0]` lacks the required property `entityType`"
        )),
        "{err}"
    );
}

#[test]
fn check_uses_the_programs_project_config_and_says_when_no_call_was_checked() {
    let elsewhere = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let data = project.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let program = project.path().join("p.ts");
    std::fs::write(
        &program,
        "return await mcp.filesystem.read_txt_file({ path: \"a\" });\n",
    )
    .unwrap();
    let p = program.to_str().unwrap();
    // No config anywhere: the syntax is fine, and it says the calls were not checked.
    let (code, _, err) = crate::pml_with(Some(elsewhere.path()), &[], &["check", p]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("its calls were not checked against any server"),
        "{err}"
    );
    // The program's project has a `.mcp.json`: run from elsewhere, its calls are checked.
    std::fs::write(
        project.path().join(".mcp.json"),
        filesystem_config(&data).to_string(),
    )
    .unwrap();
    let (code, _, err) = crate::pml_with(Some(elsewhere.path()), &[], &["check", p]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{p}:1:14: mcp.filesystem.read_txt_file: server `filesystem` has no tool `read_txt_file`")),
        "{err}"
    );
}

/// `pml dag` takes the tools' annotations from the servers when they are known: the two reads of
/// `etl-files.ts` (annotated read-only by the filesystem server) share the first layer; without
/// servers or a catalog, a call is ordered as a write would be.
#[test]
fn dag_uses_the_servers_annotations() {
    let example = format!("{}/../../examples/etl-files.ts", env!("CARGO_MANIFEST_DIR"));
    let first_layer = |args: &[&str]| {
        let (code, out, err) = pml(args);
        assert_eq!(code, 0, "{err}");
        let dag: Value = serde_json::from_str(&out).unwrap();
        dag["layers"][0].clone()
    };
    assert_eq!(
        first_layer(&["dag", &example, "--servers", "--json"]),
        serde_json::json!(["n1", "n2"])
    );
    assert_eq!(
        first_layer(&["dag", &example, "--json"]),
        serde_json::json!(["n1"])
    );
    // A project's .mcp.json beside the program: its servers' annotations, without a flag.
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join(".mcp.json"),
        filesystem_config(project.path()).to_string(),
    )
    .unwrap();
    let program = project.path().join("etl.ts");
    std::fs::copy(&example, &program).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let (code, out, err) = pml_at(
        elsewhere.path(),
        &[],
        &["dag", program.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let dag: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(dag["layers"][0], serde_json::json!(["n1", "n2"]));
}

/// Errors about the servers name the config file they come from: a server that cannot start,
/// and a call to a server the file does not configure.
#[test]
fn server_errors_name_the_config_file() {
    let project = tempfile::tempdir().unwrap();
    let config = project.path().join(".mcp.json");
    std::fs::write(
        &config,
        r#"{"mcpServers": {"fs": {"command": "pml-test-no-such-command", "args": []}}}"#,
    )
    .unwrap();
    let config = config.canonicalize().unwrap();
    std::fs::write(
        project.path().join("p.ts"),
        "const r = await mcp.fs.read({ path: 'x' });\nreturn r;\n",
    )
    .unwrap();
    let (code, _, err) = pml_at(project.path(), &[], &["run", "--no-store", "p.ts"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "mcp server `fs` (from {}) could not be started",
            config.display()
        )),
        "{err}"
    );
    std::fs::write(
        project.path().join("q.ts"),
        "const r = await mcp.other.read({ path: 'x' });\nreturn r;\n",
    )
    .unwrap();
    let (code, _, err) = pml_at(project.path(), &[], &["run", "--no-store", "q.ts"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "no server `other` is configured in {} (configured: fs)",
            config.display()
        )),
        "{err}"
    );
}
