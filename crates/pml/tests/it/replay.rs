//! `pml replay RUN [FILE]`: a program against a recorded run's answers, no server started.

use serde_json::Value;

use crate::store::pml_in;

const PROGRAM: &str = r#"const file = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
const users = JSON.parse(file.content).users;
const stamp = Date.now();
const active = users.filter((u: any) => u.active).map((u: any) => u.name);
await mcp.memory.create_entities({ entities: active.map((n: string) => ({ name: n, entityType: "user", observations: [] })) });
return { active, stamp };
"#;

#[test]
fn a_replay_answers_from_the_recorded_run_and_refuses_what_it_did_not_make() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let program = dir.path().join("users.ts");
    std::fs::write(&program, PROGRAM).unwrap();
    std::fs::create_dir(dir.path().join("users")).unwrap();
    let users = dir.path().join("users/users.json");
    std::fs::write(
        &users,
        r#"{"users": [{"name": "ann", "active": true}, {"name": "bob", "active": false}]}"#,
    )
    .unwrap();
    let program = program.display().to_string();
    let (code, out, err) = pml_in(&store, &["run", &program, "--approve", "auto"]);
    assert_eq!(code, 0, "{err}");
    let recorded: Value = serde_json::from_str(&out).unwrap();
    let (_, list, _) = pml_in(&store, &["runs", "list", "--json"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    let id = (list.as_array().or_else(|| list["runs"].as_array()))
        .and_then(|runs| runs[0]["id"].as_str())
        .unwrap()
        .to_owned();

    // The data changes and no server will run: the replay still gives the recorded result,
    // the clock's reading included.
    std::fs::write(&users, "not json any more").unwrap();
    let (code, out, err) = pml_in(&store, &["replay", &id]);
    assert_eq!(code, 0, "{err}");
    let replayed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(replayed["result"], recorded["result"]);
    assert_eq!(
        replayed["replay"],
        serde_json::json!({"run": id, "answered": 2, "unanswered": [], "sameResult": true})
    );
    // Nothing was recorded.
    let (_, again, _) = pml_in(&store, &["runs", "list", "--json"]);
    assert_eq!(serde_json::from_str::<Value>(&again).unwrap(), list);

    // An edited program: the call the recorded run made with other arguments has no answer;
    // the program fails there, as against a missing server.
    let edited = dir.path().join("edited.ts");
    std::fs::write(&edited, PROGRAM.replace("u.active)", "!u.active)")).unwrap();
    let (code, out, err) = pml_in(&store, &["replay", &id, edited.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let replayed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(replayed["replay"]["answered"], 1);
    assert_eq!(replayed["replay"]["sameResult"], false);
    let unanswered = replayed["replay"]["unanswered"][0].as_str().unwrap();
    assert!(
        unanswered.starts_with("memory:create_entities with ") && unanswered.contains("bob"),
        "{unanswered}"
    );
    assert!(
        err.contains(&format!(
            "the recorded run {id} did not make it (this tool with these arguments), so a replay has no answer for it (at 5:7)"
        )),
        "{err}"
    );

    // No such run: a usage error.
    let (code, _, err) = pml_in(&store, &["replay", "ffffffffffff"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("pml: "), "{err}");
}
