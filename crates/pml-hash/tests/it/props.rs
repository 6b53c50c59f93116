//! Properties over generated programs: templates rendered with random names, whitespace,
//! comments, quote styles, number spellings, trailing commas, redundant parentheses and
//! shorthand/destructuring choices hash equal; one meaning-changing mutation changes the hash.
//!
//! Template markup (see [`render`]):
//! - `{vN}`: variable `N`; `{kN:key}`: where variable `N` meets the property `key` (a shorthand
//!   `{ key }` or a destructuring `{ key }` when `N` is named `key`, else `key: name`);
//! - ` `: a required separator; `~`: an optional one; `^`: an optional one without line break
//!   (before `=>`, after `return`); `_`: a required one without line break (`async function`);
//! - `Q`: a string quote; `#N#`: the number `N` in some spelling; `{tc}`: an optional trailing
//!   comma; `«`...`»`: optional redundant parentheses.

use proptest::prelude::*;

use crate::{form, hash};

struct Template {
    text: &'static str,
    mutations: &'static [Mutation],
}

#[derive(Debug, Clone, Copy)]
enum Mutation {
    /// Replace the first occurrence.
    Replace(&'static str, &'static str),
    /// Exchange two fragments.
    Swap(&'static str, &'static str),
}

const TEMPLATES: &[Template] = &[
    Template {
        text: "const {v0} = await mcp.db.query(~{~table:~QusersQ,~limit:~#10#{tc}~}~);\n\
               const {v1} = «{v0}.rows».filter(~«{v2}»^=>~«{v2}.active~&&~{v2}.score~>~#50#»{tc}~);\n\
               if~(~«{v1}.length~>~#0#»~)~{~await mcp.mail.send(~{~to:~args.to,~body:~JSON.stringify(~{v1}~){tc}~}~);~}~\
               else~{~await mcp.log.write(~{~message:~Qnothing to sendQ~}~);~}\n",
        mutations: &[
            Mutation::Replace("mcp.db.query", "mcp.db.find"),
            Mutation::Replace("mcp.mail.send", "mcp.mail.post"),
            Mutation::Replace("#10#", "#11#"),
            Mutation::Replace("QusersQ", "QaccountsQ"),
            Mutation::Replace("table:", "from:"),
            Mutation::Replace("args.to", "args.from"),
            Mutation::Replace("to:~args.to", "to:~Qops@example.comQ"),
            Mutation::Replace("JSON.stringify(~{v1}~)", "JSON.stringify(~{v0}~)"),
            Mutation::Replace("«{v2}.active", "«!{v2}.active"),
            Mutation::Replace("~&&~", "~||~"),
            Mutation::Replace("~>~#50#", "~>=~#50#"),
            Mutation::Replace("#0#»~)", "#1#»~)"),
            Mutation::Replace("Qnothing to sendQ", "Qnothing to send.Q"),
            Mutation::Swap(
                "await mcp.mail.send(~{~to:~args.to,~body:~JSON.stringify(~{v1}~){tc}~}~);",
                "await mcp.log.write(~{~message:~Qnothing to sendQ~}~);",
            ),
        ],
    },
    Template {
        text: "const~{~{k0:content}~}~=~await mcp.fs.read(~{~path:~args.path~}~);\n\
               const~[~{v1},~{v2}{tc}~]~=~await Promise.all(~[~mcp.x.one(~{~}~),~mcp.x.two(~{~n:~#1#~}~){tc}~]~);\n\
               const {v3} = {v1}.items.map(~«{v4}»^=>~(~{~id:~{v4}.id,~text:~{v0}{tc}~}~)~);\n\
               await mcp.x.save(~{~{k3:rows},~first:~{v2}.value,~size:~«{v0}.length»~}~);\n",
        mutations: &[
            Mutation::Replace("mcp.fs.read", "mcp.fs.stat"),
            Mutation::Replace("args.path", "args.file"),
            Mutation::Replace("#1#", "#2#"),
            Mutation::Replace("mcp.x.one(~{~}~),~mcp.x.two(~{~n:~#1#~}~)", "mcp.x.two(~{~n:~#1#~}~),~mcp.x.one(~{~}~)"),
            Mutation::Replace("{v4}.id", "{v4}.key"),
            Mutation::Replace("id:~{v4}.id", "ident:~{v4}.id"),
            Mutation::Replace("first:~{v2}.value", "first:~{v1}.value"),
            Mutation::Replace("«{v0}.length»", "«{v0}.size»"),
            Mutation::Replace("size:~", "count:~"),
            Mutation::Replace("mcp.x.save", "mcp.x.keep"),
        ],
    },
    Template {
        text: "const {v0} = await mcp.fs.list(~{~path:~args.dir~}~);\n\
               let {v1} = #0#;\n\
               for~(~const {v2} of «{v0}.entries»~)~{~\
                 const {v3} = await mcp.fs.stat(~{~path:~`${args.dir}/${{v2}.name}`~}~);~\
                 if~(~{v3}.size~>~args.max~)~{~await mcp.fs.move(~{~from:~{v2}.path~}~);~}~\
                 {v1}~+=~{v3}.size;~}\n\
               return^{~total:~{v1},~names:~{v0}.entries.map(~«{v4}»^=>~{v4}.name~).join(~Q, Q~){tc}~};\n",
        mutations: &[
            Mutation::Replace("mcp.fs.stat", "mcp.fs.info"),
            Mutation::Replace("{v3}.size~>~args.max", "{v3}.size~<~args.max"),
            Mutation::Replace("{v3}.size~>~args.max", "{v3}.size~>~args.min"),
            Mutation::Replace("{v1}~+=~{v3}.size", "{v1}~-=~{v3}.size"),
            Mutation::Replace("from:~{v2}.path", "from:~{v2}.name"),
            Mutation::Replace("${{v2}.name}`", "${{v2}.path}`"),
            Mutation::Replace("join(~Q, Q~)", "join(~Q; Q~)"),
            // The call moves out of the `if`.
            Mutation::Replace(
                "{~await mcp.fs.move(~{~from:~{v2}.path~}~);~}",
                "{~}~await mcp.fs.move(~{~from:~{v2}.path~}~);",
            ),
        ],
    },
    // Local functions: renaming a helper or its parameters keeps the hash; what it calls, and
    // with what, counts.
    Template {
        text: "const {v0} = async_(~{v1}~)^=>~(await mcp.fs.read(~{~path:~{v1}~}~)).content;\n\
               async_function {v2}(~{v3},~{v4}~)~{~await mcp.db.write(~{~key:~{v3},~value:~{v4}{tc}~}~);~return_{v3};~}\n\
               const {v5} = await {v0}(~QaQ~);\n\
               await {v2}(~Qk1Q,~{v5}~);\n\
               return_await mcp.db.list(~{~}~).then(~«{v1}»^=>~{v0}(~{v1}.first~)~);\n",
        mutations: &[
            Mutation::Replace("mcp.fs.read", "mcp.fs.remove"),
            Mutation::Replace("mcp.db.write", "mcp.db.dropAll"),
            Mutation::Replace("path:", "file:"),
            Mutation::Replace("QaQ", "QbQ"),
            Mutation::Replace("key:~{v3},~value:~{v4}", "key:~{v4},~value:~{v3}"),
            Mutation::Replace("return_{v3};", "return_{v4};"),
            Mutation::Replace("Qk1Q,~{v5}", "{v5},~Qk1Q"),
            Mutation::Replace("{v1}.first", "{v1}.last"),
            Mutation::Replace(").content;", ").text;"),
        ],
    },
];

/// Names a generated variable may not take (keywords, globals, property names of the
/// templates used as shorthand keys, names that look like node ids).
const RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "await",
    "async",
    "of",
    "get",
    "set",
    "as",
    "from",
    "type",
    "declare",
    "abstract",
    "readonly",
    "keyof",
    "infer",
    "is",
    "namespace",
    "module",
    "any",
    "never",
    "unknown",
    "number",
    "string",
    "boolean",
    "symbol",
    "object",
    "bigint",
    "undefined",
    "require",
    "global",
    "arguments",
    "eval",
    "constructor",
    "satisfies",
    "asserts",
    "accessor",
    "override",
    "unique",
    "args",
    "mcp",
    "capabilities",
    "parseInt",
    "parseFloat",
    "isNaN",
    "isFinite",
    "encodeURI",
    "decodeURI",
    "encodeURIComponent",
    "decodeURIComponent",
    "structuredClone",
    "console",
    "atob",
    "btoa",
    "globalThis",
    "content",
    "rows",
    "out",
];

fn is_node_id_like(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('n' | 'd' | 'c' | 'f' | 'j' | 'l'))
        && name.len() > 1
        && name[1..].bytes().all(|b| b.is_ascii_digit())
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-zA-Z0-9_]{0,7}",
        Just("u".to_string()),
        Just("x".to_string()),
        Just("item".to_string()),
        Just("result".to_string()),
        Just("data".to_string()),
    ]
    .prop_filter("not reserved", |n| {
        !RESERVED.contains(&n.as_str()) && !is_node_id_like(n)
    })
}

/// How one rendering looks: variable names, whether a variable takes its property's name
/// (shorthand), and a seed for every layout choice.
#[derive(Debug, Clone)]
struct Style {
    names: Vec<String>,
    shorthand: Vec<bool>,
    seed: u64,
}

fn style() -> impl Strategy<Value = Style> {
    (
        proptest::collection::vec(name(), 6),
        proptest::collection::vec(any::<bool>(), 6),
        any::<u64>(),
    )
        .prop_map(|(mut names, shorthand, seed)| {
            // Distinct names: a repeated one gets its position appended.
            for i in 0..names.len() {
                if names[..i].contains(&names[i]) {
                    names[i] = format!("{}_{i}", names[i]);
                }
            }
            Style {
                names,
                shorthand,
                seed,
            }
        })
}

/// xorshift64*: the layout choices of one rendering.
struct Rng(u64);

impl Rng {
    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        options[(r >> 33) as usize % options.len()]
    }
}

const WORDS: &[&str] = &[
    "note", "x.y", "'q'", "`t`", "{ }", "u => !u", "args.to", "a, b", "((",
];

fn comment(rng: &mut Rng, line: bool) -> String {
    let w = rng.pick(WORDS);
    if line {
        format!("// {w}\n")
    } else {
        format!("/* {w} */")
    }
}

fn separator(rng: &mut Rng, required: bool, line_breaks: bool) -> String {
    let choice = if required {
        rng.pick(&[" ", "  ", "\t", "\n", "\n  ", "c", "l"])
    } else if line_breaks {
        rng.pick(&["", "", "", " ", "\n", "c", "l"])
    } else {
        rng.pick(&["", "", " ", "c"])
    };
    match choice {
        "c" => format!(" {} ", comment(rng, false)),
        "l" => format!(" {}", comment(rng, true)),
        other => other.to_string(),
    }
}

fn number(rng: &mut Rng, n: u32) -> String {
    match rng.pick(&["dec", "float", "hex", "exp", "plain"]) {
        "float" => format!("{n}.0"),
        "hex" => format!("0x{n:x}"),
        "exp" if n != 0 => format!("{}e1", n as f64 / 10.0),
        _ => n.to_string(),
    }
}

/// The program `template` stands for in `style`.
fn render(template: &str, style: &Style) -> String {
    let mut rng = Rng(style.seed | 1);
    let name_of = |i: usize, key: Option<&str>| -> String {
        match key {
            Some(k) if style.shorthand[i] => k.to_string(),
            _ => style.names[i].clone(),
        }
    };
    // Which variables take their property's name: the first `{kN:key}` decides.
    let mut keyed: Vec<Option<String>> = vec![None; style.names.len()];
    let mut rest = template;
    while let Some(at) = rest.find("{k") {
        let end = at + rest[at..].find('}').unwrap();
        let (n, key) = rest[at + 2..end].split_once(':').unwrap();
        let i: usize = n.parse().unwrap();
        keyed[i].get_or_insert_with(|| key.to_string());
        rest = &rest[end + 1..];
    }
    let var = |i: usize| name_of(i, keyed[i].as_deref());

    let mut out = String::new();
    let mut parens: Vec<bool> = Vec::new();
    let b = template.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &template[i..];
        if let Some(r) = rest.strip_prefix("{v") {
            let end = r.find('}').unwrap();
            out.push_str(&var(r[..end].parse().unwrap()));
            i += 2 + end + 1;
        } else if let Some(r) = rest.strip_prefix("{k") {
            let end = r.find('}').unwrap();
            let (n, key) = r[..end].split_once(':').unwrap();
            let name = var(n.parse().unwrap());
            if name == key {
                out.push_str(key);
            } else {
                out.push_str(&format!("{key}:{}{name}", separator(&mut rng, false, true)));
            }
            i += 2 + end + 1;
        } else if rest.starts_with("{tc}") {
            out.push_str(rng.pick(&["", ","]));
            i += 4;
        } else if rest.starts_with('«') {
            let on = rng.pick(&["", "p"]) == "p";
            parens.push(on);
            if on {
                out.push('(');
            }
            i += '«'.len_utf8();
        } else if rest.starts_with('»') {
            if parens.pop().unwrap_or(false) {
                out.push(')');
            }
            i += '»'.len_utf8();
        } else if let Some(r) = rest.strip_prefix('#') {
            let end = r.find('#').unwrap();
            out.push_str(&number(&mut rng, r[..end].parse().unwrap()));
            i += 1 + end + 1;
        } else if let Some(r) = rest.strip_prefix('Q') {
            let end = r.find('Q').unwrap();
            let q = rng.pick(&["\"", "'", "`"]);
            out.push_str(&format!("{q}{}{q}", &r[..end]));
            i += 1 + end + 1;
        } else if rest.starts_with(' ') {
            out.push_str(&separator(&mut rng, true, true));
            i += 1;
        } else if rest.starts_with('~') {
            out.push_str(&separator(&mut rng, false, true));
            i += 1;
        } else if rest.starts_with('^') {
            out.push_str(&separator(&mut rng, false, false));
            i += 1;
        } else if rest.starts_with('_') {
            match rng.pick(&[" ", "  ", "\t", "c"]) {
                "c" => out.push_str(&format!(" {} ", comment(&mut rng, false))),
                space => out.push_str(space),
            }
            i += 1;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn mutate(template: &str, m: Mutation) -> String {
    match m {
        Mutation::Replace(from, to) => {
            assert!(template.contains(from), "mutation {from:?} does not apply");
            template.replacen(from, to, 1)
        }
        Mutation::Swap(a, b) => {
            assert!(
                template.contains(a) && template.contains(b),
                "swap does not apply"
            );
            template
                .replacen(a, "\u{0}A\u{0}", 1)
                .replacen(b, a, 1)
                .replacen("\u{0}A\u{0}", b, 1)
        }
    }
}

/// 256 cases unless `PROPTEST_CASES` says otherwise.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 256;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn names_layout_comments_and_quotes_do_not_change_the_hash(
        t in 0..TEMPLATES.len(),
        a in style(),
        b in style(),
    ) {
        let (x, y) = (render(TEMPLATES[t].text, &a), render(TEMPLATES[t].text, &b));
        prop_assert_eq!(
            hash(&x), hash(&y),
            "programs:\n{}\n---\n{}\ncanonical forms:\n{}\n---\n{}", x, y, form(&x), form(&y)
        );
    }

    #[test]
    fn one_change_of_meaning_changes_the_hash(
        t in 0..TEMPLATES.len(),
        m in any::<prop::sample::Index>(),
        a in style(),
        b in style(),
    ) {
        let template = &TEMPLATES[t];
        let mutation = template.mutations[m.index(template.mutations.len())];
        let x = render(template.text, &a);
        let y = render(&mutate(template.text, mutation), &b);
        prop_assert_ne!(
            hash(&x), hash(&y),
            "mutation {:?}\nprograms:\n{}\n---\n{}\ncanonical form:\n{}", mutation, x, y, form(&x)
        );
    }
}

#[test]
fn every_mutation_of_every_template_changes_the_hash() {
    let plain = Style {
        names: ["a", "b", "c", "d", "e", "f"].map(String::from).to_vec(),
        shorthand: vec![false; 6],
        seed: 7,
    };
    let fancy = Style {
        names: ["usersList", "x", "item", "r2d2", "result", "u"]
            .map(String::from)
            .to_vec(),
        shorthand: vec![true; 6],
        seed: 0x5eed,
    };
    for t in TEMPLATES {
        let original = hash(&render(t.text, &plain));
        assert_eq!(original, hash(&render(t.text, &fancy)));
        for &m in t.mutations {
            let mutated = render(&mutate(t.text, m), &fancy);
            assert_ne!(original, hash(&mutated), "{m:?}\n{mutated}");
        }
    }
}
