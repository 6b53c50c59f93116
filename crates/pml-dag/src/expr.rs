//! Names an expression text reads (the structure's references and conditions are source text
//! with bound names already replaced by node ids, e.g. `n1.entries.length > 0`).
//!
//! A small tokenizer, not a parser: it skips strings, template text (but reads `${...}`),
//! property names after `.`/`?.`, object keys, keywords, and arrow-function parameters.

const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "undefined",
    "typeof",
    "instanceof",
    "new",
    "await",
    "async",
    "function",
    "return",
    "const",
    "let",
    "var",
    "in",
    "of",
    "void",
    "delete",
    "this",
    "yield",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "throw",
    "try",
    "catch",
    "finally",
    "class",
    "extends",
    "super",
    "as",
    "satisfies",
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    Arrow,
    Other,
}

fn tokenize(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    // Stack of open template-literal interpolations: brace depth at which `}` resumes the
    // template text.
    let mut templates: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
            continue;
        }
        if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            out.push(Tok::Other);
            continue;
        }
        match c {
            '\'' | '"' => {
                i += 1;
                while i < chars.len() && chars[i] != c {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                out.push(Tok::Other);
            }
            '`' => {
                i = skip_template_text(&chars, i + 1, &mut templates, braces);
                out.push(Tok::Other);
            }
            '}' if templates.last() == Some(&braces) => {
                templates.pop();
                i = skip_template_text(&chars, i + 1, &mut templates, braces);
                out.push(Tok::Other);
            }
            '=' if chars.get(i + 1) == Some(&'>') => {
                out.push(Tok::Arrow);
                i += 2;
            }
            c if c.is_whitespace() => i += 1,
            c => {
                if c == '{' {
                    braces += 1;
                } else if c == '}' {
                    braces = braces.saturating_sub(1);
                }
                out.push(Tok::Punct(c));
                i += 1;
            }
        }
    }
    out
}

/// Skip template text from `i` to the closing backtick or the next `${` (then push an
/// interpolation). Returns the index after what was consumed.
fn skip_template_text(
    chars: &[char],
    mut i: usize,
    templates: &mut Vec<usize>,
    braces: usize,
) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '`' => return i + 1,
            '$' if chars.get(i + 1) == Some(&'{') => {
                templates.push(braces);
                return i + 2;
            }
            _ => i += 1,
        }
    }
    i
}

/// Free names read by `text`, in order of first appearance, without duplicates.
pub fn free_names(text: &str) -> Vec<String> {
    let toks = tokenize(text);
    // Arrow parameters: `x =>` and `(a, b) =>`.
    let mut params: Vec<String> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if *t != Tok::Arrow || k == 0 {
            continue;
        }
        match &toks[k - 1] {
            Tok::Ident(name) => params.push(name.clone()),
            Tok::Punct(')') => {
                let mut depth = 0;
                let mut j = k - 1;
                loop {
                    match &toks[j] {
                        Tok::Punct(')') => depth += 1,
                        Tok::Punct('(') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Ident(name) => params.push(name.clone()),
                        _ => {}
                    }
                    if j == 0 {
                        break;
                    }
                    j -= 1;
                }
            }
            _ => {}
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let Tok::Ident(name) = t else { continue };
        let prev = k.checked_sub(1).map(|p| &toks[p]);
        let next = toks.get(k + 1);
        // Property access (also `?.`), but not a spread `...name`.
        let spread = k >= 3 && toks[k - 3..k].iter().all(|t| *t == Tok::Punct('.'));
        if matches!(prev, Some(Tok::Punct('.'))) && !spread {
            continue;
        }
        if matches!(next, Some(Tok::Punct(':')))
            && matches!(prev, Some(Tok::Punct('{') | Tok::Punct(',')))
        {
            continue; // object key
        }
        if KEYWORDS.contains(&name.as_str()) || params.contains(name) || out.contains(name) {
            continue;
        }
        out.push(name.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::free_names;

    #[test]
    fn names_in_expressions() {
        assert_eq!(free_names("n1.entries.length > 0"), ["n1"]);
        assert_eq!(free_names("[...n1.tags, ...n2]"), ["n1", "n2"]);
        assert_eq!(free_names("{ ...n3, a: x.y }"), ["n3", "x"]);
        assert_eq!(free_names("`${args.dir}/${n2[*].name}`"), ["args", "n2"]);
        assert_eq!(free_names("\"n3\" + 'x' + n4"), ["n4"]);
        assert_eq!(free_names("{ a: n1, b: BASE }"), ["n1", "BASE"]);
        assert_eq!(free_names("xs.map((a, b) => a + b + k)"), ["xs", "k"]);
        assert_eq!(free_names("c ? d : e"), ["c", "d", "e"]);
        assert_eq!(free_names("`a${`b${n1}`}c` + n2?.x"), ["n1", "n2"]);
        assert_eq!(free_names("typeof n1 === \"string\""), ["n1"]);
    }
}
