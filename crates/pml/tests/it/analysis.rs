//! One analysis per program: a run and a save parse their program once, and a TypeScript program has the
//! hash of its JavaScript (what runs, and what a run records), so runs and saves agree.

use std::path::{Path, PathBuf};

use pml::run::{run_file, RunOptions};
use pml_structure::Dialect;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every TypeScript program of the repository: fixtures, examples, agent programs.
fn programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["fixtures", "examples", "crates/pml/tests/agents"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let input = path.join("input.ts");
            if input.is_file() {
                out.push(input);
            } else if path.extension().is_some_and(|e| e == "ts") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_typescript_program_hashes_as_its_javascript() {
    let programs = programs();
    assert!(programs.len() > 100, "{} programs", programs.len());
    let mut compared = 0;
    for path in programs {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(javascript) = pml_structure::strip_types(&text) else {
            continue;
        };
        let typescript = pml::capability::program_hash(&text, pml::Dialect::TypeScript);
        let Some(typescript) = typescript else {
            continue;
        };
        // `pml save` hashes the structure of the TypeScript it walks (types and all), and
        // keeps what each stage gives on its own, from its one parse.
        let options = pml::AnalyzeOptions::default();
        let saved = pml::capability::prepare(&text, &options, "p", None).unwrap();
        assert_eq!(saved.code_hash, typescript, "{}", path.display());
        let structure = pml::analyze(&text, &options).structure;
        let normalized = pml::normalize_variable_names(&text, &structure.variable_bindings);
        assert_eq!(saved.normalized_code, normalized.code, "{}", path.display());
        let parameterized = pml_structure::parameterize(&text, Dialect::TypeScript);
        assert_eq!(
            saved.parameterized_code,
            parameterized.code,
            "{}",
            path.display()
        );
        assert_eq!(
            saved.parameter_schema,
            parameterized.schema,
            "{}",
            path.display()
        );
        let analysis = pml::analysis::Analysis::of(javascript);
        if analysis.hash().as_deref() != Some(typescript.as_str()) {
            let options = pml::AnalyzeOptions {
                dialect: pml::Dialect::TypeScript,
                ..Default::default()
            };
            let typed = pml::analyze(&text, &options).structure;
            panic!(
                "{}: the TypeScript's canonical form\n{}\nthe JavaScript's\n{}",
                path.display(),
                pml::canonical_form(&typed),
                pml::canonical_form(&analysis.structure)
            );
        }
        compared += 1;
    }
    assert!(compared > 100, "{compared} compared");
}

#[test]
fn a_run_parses_its_program_once() {
    let dir = tempfile::tempdir().unwrap();
    let options = RunOptions {
        store: Some(dir.path().join("store.sqlite").display().to_string()),
        ..RunOptions::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let program = "const a{} = await mcp.everything.echo({ message: 'one' });\nconst b = await mcp.everything.echo({ message: JSON.stringify(a) + '!' });\nreturn [a, b].length;\n";
    // Once for everything (structure, instrumentation, servers, checks, hash, the program
    // that runs; TypeScript's types blanked out from the same syntax tree).
    for (name, typed, expected) in [("once.js", "", 1), ("once.ts", ": unknown", 1)] {
        let file = dir.path().join(name);
        std::fs::write(&file, program.replace("{}", typed)).unwrap();
        let before = pml_structure::program_parses();
        let out = runtime.block_on(run_file(&file, &options)).unwrap();
        let parses = pml_structure::program_parses() - before;
        assert!(out.report.ok, "{:?}", out.report.error);
        assert_eq!(out.report.result, serde_json::json!(2));
        assert_eq!(parses, expected, "parses of {name} in one run");
    }
}

/// TypeScript that is types only where JavaScript has nothing, or something else.
const TYPES_ONLY: &str = r#"declare const mcp: { fs: { read(a: { path: string }): Promise<{ content: string }> } };
declare function helper(x: number): number;
interface Row { id: number }
type Rows = Row[];
function total(rows: Rows): number;
function total(rows: Rows, start: number): number;
function total(this: unknown, rows: Rows, start = 0): number {
  return rows.reduce((s, r) => s + r.id, start);
}
abstract class Base implements Row {
  id = 1;
  declare extra: string;
  abstract name(): string;
  [key: string]: unknown;
}
class Reader extends Base implements Row {
  name() { return "reader"; }
  async read(this: Reader, path: string) {
    return (await mcp.fs.read({ path })!).content as string;
  }
}
let last!: string;
const file = await new Reader().read(args.root + "/a.txt");
last! = file satisfies string;
const rows = <Rows>JSON.parse(last);
return total(rows, 1);
"#;

#[test]
fn one_parse_of_typescript_gives_what_its_javascript_gives() {
    // The syntax tree of the TypeScript walked with the JavaScript's text: the same
    // JavaScript, structure and instrumented program as building the JavaScript on its own.
    let mut compared = 0;
    let dir = tempfile::tempdir().unwrap();
    let types_only = dir.path().join("types-only.ts");
    std::fs::write(&types_only, TYPES_ONLY).unwrap();
    pml_structure::strip_types(TYPES_ONLY)
        .expect("the types-only program is JavaScript once blanked");
    for path in programs().into_iter().chain([types_only]) {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(javascript) = pml_structure::strip_types(&text) else {
            assert!(
                pml::analysis::Analysis::of_source(&text, pml::Dialect::TypeScript).is_err(),
                "{}",
                path.display()
            );
            continue;
        };
        let once = pml::analysis::Analysis::of_source(&text, pml::Dialect::TypeScript).unwrap();
        let twice = pml::analysis::Analysis::of(javascript.clone());
        assert_eq!(once.javascript, javascript, "{}", path.display());
        assert_eq!(once.structure, twice.structure, "{}", path.display());
        let probes = |a: &pml::analysis::Analysis| {
            a.instrumented.as_ref().map(|i| {
                // The probe object's name has a secret of each analysis in it.
                (i.source.replace(&i.namespace, "P"), i.probes.clone())
            })
        };
        let (a, b) = (probes(&once), probes(&twice));
        if a != b {
            let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
            let line = (a.0.lines().zip(b.0.lines())).find(|(x, y)| x != y);
            panic!(
                "{}: instrumented differently: {line:?}; probes alike: {}",
                path.display(),
                a.1 == b.1
            );
        }
        compared += 1;
    }
    assert!(compared > 100, "{compared} compared");
}

#[test]
fn saving_a_program_parses_it_once() {
    let program = "const dir: string = args.dir ?? \"/tmp\";\nconst listing = await mcp.filesystem.list_directory({ path: dir });\nconst names = listing.content.split(\"\\n\").filter((l: string) => l.startsWith(\"[FILE]\"));\nconst first = await mcp.filesystem.read_text_file({ path: dir + \"/\" + names[0].slice(7) });\nreturn { count: names.length, head: first.content.slice(0, 10) };\n";
    let compiled = "enum Level { Low = 1, High = 5 }\nconst r = await mcp.everything.echo({ message: \"level \" + Level.High });\nreturn r;\n";
    // Once for structure, hash, normalized names and parameters; an enum's compiled
    // JavaScript is parsed on its own, as a run parses it.
    for (code, dialect, expected) in [
        (program, Dialect::TypeScript, 1),
        (
            program.replace(": string", "").as_str(),
            Dialect::JavaScript,
            1,
        ),
        (compiled, Dialect::TypeScript, 2),
    ] {
        let options = pml::AnalyzeOptions {
            dialect,
            ..Default::default()
        };
        let before = pml_structure::program_parses();
        let record = pml::capability::prepare(code, &options, "cap", None).unwrap();
        assert_eq!(pml_structure::program_parses() - before, expected, "{code}");
        // The same record as each stage computes it on its own.
        let structure = pml::analyze(code, &options).structure;
        let hash = pml::capability::program_hash(code, dialect);
        assert_eq!(Some(&record.code_hash), hash.as_ref(), "{code}");
        assert_eq!(record.structure, serde_json::to_value(&structure).unwrap());
        let normalized = pml::normalize_variable_names(code, &structure.variable_bindings);
        assert_eq!(record.normalized_code, normalized.code);
        let parameterized = pml_structure::parameterize(code, dialect);
        assert_eq!(record.parameterized_code, parameterized.code);
        assert_eq!(
            record.parameters,
            serde_json::to_value(&parameterized.parameters).unwrap()
        );
        assert_eq!(record.parameter_schema, parameterized.schema);
    }
}

#[test]
fn typescript_that_cannot_run_is_not_saved_and_says_where() {
    let code = "class A {\n  @log m() {}\n}\nreturn 1;\n";
    let options = pml::AnalyzeOptions::default();
    let errors = pml::capability::prepare(code, &options, "cap", None).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        (errors[0].line, errors[0].column),
        (Some(2), Some(3)),
        "{errors:?}"
    );
}
