//! The table of pure operations and the lookups the structure builder uses.
//!
//! One static table, [`operations`], is the single source of truth. Every lookup is a scan over it
//! (about eighty entries), so there is no second index that could drift out of step.

use std::fmt;

/// The family an operation belongs to; it decides how a call site maps to the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// A method called on an array receiver (`xs.filter(..)`).
    Array,
    /// A method called on a string receiver (`s.split(..)`).
    String,
    /// A static call on `Object` (`Object.keys(..)`).
    Object,
    /// A static call on `Math` (`Math.max(..)`).
    Math,
    /// A static call on `JSON` (`JSON.parse(..)`).
    Json,
    /// `+ - * / % **`.
    Arithmetic,
    /// `== === != !== < <= > >=`.
    Comparison,
    /// `&& || ??`.
    Logical,
    /// `& | ^ << >> >>>`.
    Bitwise,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Category; 9] = [
        Category::Array,
        Category::String,
        Category::Object,
        Category::Math,
        Category::Json,
        Category::Arithmetic,
        Category::Comparison,
        Category::Logical,
        Category::Bitwise,
    ];

    /// The lowercase name used in serialised output: `"array"`, `"string"`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Array => "array",
            Category::String => "string",
            Category::Object => "object",
            Category::Math => "math",
            Category::Json => "json",
            Category::Arithmetic => "arithmetic",
            Category::Comparison => "comparison",
            Category::Logical => "logical",
            Category::Bitwise => "bitwise",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One pure JavaScript operation, exposed to the DAG as the pseudo-tool `tool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    /// Full pseudo-tool id, e.g. `"code:filter"`, `"code:Object.keys"`, `"code:add"`.
    pub tool: &'static str,
    /// The family the operation belongs to.
    pub category: Category,
    /// No I/O, deterministic, safe to run without human approval.
    pub pure: bool,
    /// The operation changes its first input in place (`sort`, `reverse`, `Object.assign`).
    pub mutates_receiver: bool,
}

/// The prefix every pseudo-tool id starts with.
pub const TOOL_PREFIX: &str = "code:";

impl Operation {
    /// The id without its `code:` prefix: `"filter"`, `"Object.keys"`, `"add"`.
    pub fn name(&self) -> &'static str {
        self.tool.strip_prefix(TOOL_PREFIX).unwrap_or(self.tool)
    }
}

const fn pure(tool: &'static str, category: Category) -> Operation {
    Operation {
        tool,
        category,
        pure: true,
        mutates_receiver: false,
    }
}

const fn mutating(tool: &'static str, category: Category) -> Operation {
    Operation {
        tool,
        category,
        pure: true,
        mutates_receiver: true,
    }
}

/// Every known operation. The order is part of the contract: append, never reorder.
///
/// Methods that exist on both arrays and strings (`includes`, `indexOf`, `lastIndexOf`, `slice`,
/// `concat`, `at`) are registered once, as array operations.
static OPERATIONS: [Operation; 83] = [
    // Array methods.
    pure("code:filter", Category::Array),
    pure("code:map", Category::Array),
    pure("code:reduce", Category::Array),
    pure("code:reduceRight", Category::Array),
    pure("code:flatMap", Category::Array),
    pure("code:flat", Category::Array),
    pure("code:find", Category::Array),
    pure("code:findIndex", Category::Array),
    pure("code:findLast", Category::Array),
    pure("code:findLastIndex", Category::Array),
    pure("code:some", Category::Array),
    pure("code:every", Category::Array),
    mutating("code:sort", Category::Array),
    mutating("code:reverse", Category::Array),
    pure("code:slice", Category::Array),
    pure("code:concat", Category::Array),
    pure("code:join", Category::Array),
    pure("code:includes", Category::Array),
    pure("code:indexOf", Category::Array),
    pure("code:lastIndexOf", Category::Array),
    pure("code:at", Category::Array),
    pure("code:toSorted", Category::Array),
    pure("code:toReversed", Category::Array),
    // String methods.
    pure("code:split", Category::String),
    pure("code:replace", Category::String),
    pure("code:replaceAll", Category::String),
    pure("code:trim", Category::String),
    pure("code:trimStart", Category::String),
    pure("code:trimEnd", Category::String),
    pure("code:toLowerCase", Category::String),
    pure("code:toUpperCase", Category::String),
    pure("code:substring", Category::String),
    pure("code:substr", Category::String),
    pure("code:match", Category::String),
    pure("code:matchAll", Category::String),
    pure("code:startsWith", Category::String),
    pure("code:endsWith", Category::String),
    pure("code:padStart", Category::String),
    pure("code:padEnd", Category::String),
    pure("code:repeat", Category::String),
    pure("code:charAt", Category::String),
    pure("code:localeCompare", Category::String),
    pure("code:normalize", Category::String),
    // Object statics.
    pure("code:Object.keys", Category::Object),
    pure("code:Object.values", Category::Object),
    pure("code:Object.entries", Category::Object),
    pure("code:Object.fromEntries", Category::Object),
    mutating("code:Object.assign", Category::Object),
    // Math statics. `Math.random` is deliberately absent: it is not deterministic.
    pure("code:Math.max", Category::Math),
    pure("code:Math.min", Category::Math),
    pure("code:Math.abs", Category::Math),
    pure("code:Math.floor", Category::Math),
    pure("code:Math.ceil", Category::Math),
    pure("code:Math.round", Category::Math),
    pure("code:Math.sqrt", Category::Math),
    pure("code:Math.pow", Category::Math),
    pure("code:Math.sign", Category::Math),
    pure("code:Math.trunc", Category::Math),
    // JSON statics.
    pure("code:JSON.parse", Category::Json),
    pure("code:JSON.stringify", Category::Json),
    // Arithmetic operators.
    pure("code:add", Category::Arithmetic),
    pure("code:subtract", Category::Arithmetic),
    pure("code:multiply", Category::Arithmetic),
    pure("code:divide", Category::Arithmetic),
    pure("code:modulo", Category::Arithmetic),
    pure("code:power", Category::Arithmetic),
    // Comparison operators.
    pure("code:equal", Category::Comparison),
    pure("code:strictEqual", Category::Comparison),
    pure("code:notEqual", Category::Comparison),
    pure("code:strictNotEqual", Category::Comparison),
    pure("code:lessThan", Category::Comparison),
    pure("code:lessThanOrEqual", Category::Comparison),
    pure("code:greaterThan", Category::Comparison),
    pure("code:greaterThanOrEqual", Category::Comparison),
    // Logical operators.
    pure("code:and", Category::Logical),
    pure("code:or", Category::Logical),
    pure("code:nullishCoalescing", Category::Logical),
    // Bitwise operators.
    pure("code:bitwiseAnd", Category::Bitwise),
    pure("code:bitwiseOr", Category::Bitwise),
    pure("code:bitwiseXor", Category::Bitwise),
    pure("code:leftShift", Category::Bitwise),
    pure("code:rightShift", Category::Bitwise),
    pure("code:unsignedRightShift", Category::Bitwise),
];

/// Binary operators as written in source, and the tool each one maps to.
const BINARY_OPERATORS: [(&str, &str); 23] = [
    ("+", "code:add"),
    ("-", "code:subtract"),
    ("*", "code:multiply"),
    ("/", "code:divide"),
    ("%", "code:modulo"),
    ("**", "code:power"),
    ("==", "code:equal"),
    ("===", "code:strictEqual"),
    ("!=", "code:notEqual"),
    ("!==", "code:strictNotEqual"),
    ("<", "code:lessThan"),
    ("<=", "code:lessThanOrEqual"),
    (">", "code:greaterThan"),
    (">=", "code:greaterThanOrEqual"),
    ("&&", "code:and"),
    ("||", "code:or"),
    ("??", "code:nullishCoalescing"),
    ("&", "code:bitwiseAnd"),
    ("|", "code:bitwiseOr"),
    ("^", "code:bitwiseXor"),
    ("<<", "code:leftShift"),
    (">>", "code:rightShift"),
    (">>>", "code:unsignedRightShift"),
];

/// Every known operation, in a stable order (array, string, Category::Object, Category::Math, JSON, then operators).
pub fn operations() -> &'static [Operation] {
    &OPERATIONS
}

/// The operation with the pseudo-tool id `tool` (`"code:filter"`), if it is known.
pub fn lookup(tool: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|op| op.tool == tool)
}

/// Whether `tool` names a known pure operation; `false` for unknown and non-`code:` tools.
pub fn is_pure(tool: &str) -> bool {
    lookup(tool).is_some_and(|op| op.pure)
}

/// A method called on a receiver value: `xs.filter(..)` -> method `"filter"` -> `code:filter`.
///
/// Only array and string methods resolve; `"keys"` or `"add"` called as methods return `None`.
pub fn method_operation(method: &str) -> Option<&'static Operation> {
    OPERATIONS
        .iter()
        .find(|op| matches!(op.category, Category::Array | Category::String) && op.name() == method)
}

/// A call on a global namespace: `("Object", "keys")` -> `code:Object.keys`, `("Math", "max")`,
/// `("JSON", "parse")`. `("Math", "random")` is `None`: it is not deterministic.
pub fn static_operation(namespace: &str, method: &str) -> Option<&'static Operation> {
    let category = match namespace {
        "Object" => Category::Object,
        "Math" => Category::Math,
        "JSON" => Category::Json,
        _ => return None,
    };
    OPERATIONS.iter().find(|op| {
        op.category == category
            && op
                .name()
                .strip_prefix(namespace)
                .and_then(|rest| rest.strip_prefix('.'))
                == Some(method)
    })
}

/// A binary operator as written in JavaScript source: `"+"` -> `code:add`,
/// `"==="` -> `code:strictEqual`, `"&&"` -> `code:and`. Assignment forms (`"+="`) are `None`.
pub fn binary_operation(operator: &str) -> Option<&'static Operation> {
    BINARY_OPERATORS
        .iter()
        .find(|(written, _)| *written == operator)
        .and_then(|(_, tool)| lookup(tool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const ARRAY_METHODS: [&str; 23] = [
        "filter",
        "map",
        "reduce",
        "reduceRight",
        "flatMap",
        "flat",
        "find",
        "findIndex",
        "findLast",
        "findLastIndex",
        "some",
        "every",
        "sort",
        "reverse",
        "slice",
        "concat",
        "join",
        "includes",
        "indexOf",
        "lastIndexOf",
        "at",
        "toSorted",
        "toReversed",
    ];

    const STRING_METHODS: [&str; 20] = [
        "split",
        "replace",
        "replaceAll",
        "trim",
        "trimStart",
        "trimEnd",
        "toLowerCase",
        "toUpperCase",
        "substring",
        "substr",
        "match",
        "matchAll",
        "startsWith",
        "endsWith",
        "padStart",
        "padEnd",
        "repeat",
        "charAt",
        "localeCompare",
        "normalize",
    ];

    const STATICS: [(&str, &str, Category); 17] = [
        ("Object", "keys", Category::Object),
        ("Object", "values", Category::Object),
        ("Object", "entries", Category::Object),
        ("Object", "fromEntries", Category::Object),
        ("Object", "assign", Category::Object),
        ("Math", "max", Category::Math),
        ("Math", "min", Category::Math),
        ("Math", "abs", Category::Math),
        ("Math", "floor", Category::Math),
        ("Math", "ceil", Category::Math),
        ("Math", "round", Category::Math),
        ("Math", "sqrt", Category::Math),
        ("Math", "pow", Category::Math),
        ("Math", "sign", Category::Math),
        ("Math", "trunc", Category::Math),
        ("JSON", "parse", Category::Json),
        ("JSON", "stringify", Category::Json),
    ];

    const OPERATORS: [(&str, &str, Category); 23] = [
        ("+", "code:add", Category::Arithmetic),
        ("-", "code:subtract", Category::Arithmetic),
        ("*", "code:multiply", Category::Arithmetic),
        ("/", "code:divide", Category::Arithmetic),
        ("%", "code:modulo", Category::Arithmetic),
        ("**", "code:power", Category::Arithmetic),
        ("==", "code:equal", Category::Comparison),
        ("===", "code:strictEqual", Category::Comparison),
        ("!=", "code:notEqual", Category::Comparison),
        ("!==", "code:strictNotEqual", Category::Comparison),
        ("<", "code:lessThan", Category::Comparison),
        ("<=", "code:lessThanOrEqual", Category::Comparison),
        (">", "code:greaterThan", Category::Comparison),
        (">=", "code:greaterThanOrEqual", Category::Comparison),
        ("&&", "code:and", Category::Logical),
        ("||", "code:or", Category::Logical),
        ("??", "code:nullishCoalescing", Category::Logical),
        ("&", "code:bitwiseAnd", Category::Bitwise),
        ("|", "code:bitwiseOr", Category::Bitwise),
        ("^", "code:bitwiseXor", Category::Bitwise),
        ("<<", "code:leftShift", Category::Bitwise),
        (">>", "code:rightShift", Category::Bitwise),
        (">>>", "code:unsignedRightShift", Category::Bitwise),
    ];

    #[test]
    fn every_array_method_resolves() {
        for method in ARRAY_METHODS {
            let op = method_operation(method).unwrap_or_else(|| panic!("{method} missing"));
            assert_eq!(op.tool, format!("code:{method}"));
            assert_eq!(op.category, Category::Array, "{method}");
        }
    }

    #[test]
    fn every_string_method_resolves() {
        for method in STRING_METHODS {
            let op = method_operation(method).unwrap_or_else(|| panic!("{method} missing"));
            assert_eq!(op.tool, format!("code:{method}"));
            assert_eq!(op.category, Category::String, "{method}");
        }
    }

    #[test]
    fn methods_shared_by_arrays_and_strings_are_array_ops() {
        for method in [
            "includes",
            "indexOf",
            "lastIndexOf",
            "slice",
            "concat",
            "at",
        ] {
            assert_eq!(
                method_operation(method).map(|op| op.category),
                Some(Category::Array)
            );
        }
    }

    #[test]
    fn every_static_resolves() {
        for (namespace, method, category) in STATICS {
            let op = static_operation(namespace, method)
                .unwrap_or_else(|| panic!("{namespace}.{method} missing"));
            assert_eq!(op.tool, format!("code:{namespace}.{method}"));
            assert_eq!(op.category, category);
        }
    }

    #[test]
    fn every_binary_operator_resolves() {
        for (operator, tool, category) in OPERATORS {
            let op = binary_operation(operator).unwrap_or_else(|| panic!("{operator} missing"));
            assert_eq!((op.tool, op.category), (tool, category), "{operator}");
        }
    }

    #[test]
    fn the_table_holds_exactly_the_listed_operations() {
        let listed = ARRAY_METHODS.len() + STRING_METHODS.len() + STATICS.len() + OPERATORS.len();
        assert_eq!(operations().len(), listed);
    }

    #[test]
    fn tool_ids_are_unique_and_prefixed() {
        let mut seen = BTreeSet::new();
        for op in operations() {
            assert!(op.tool.starts_with(TOOL_PREFIX), "{}", op.tool);
            assert!(seen.insert(op.tool), "duplicate {}", op.tool);
        }
    }

    #[test]
    fn lookup_round_trips_every_operation() {
        for op in operations() {
            assert_eq!(lookup(op.tool), Some(op));
            assert!(is_pure(op.tool), "{}", op.tool);
        }
    }

    #[test]
    fn every_operation_is_pure() {
        assert!(operations().iter().all(|op| op.pure));
    }

    #[test]
    fn only_sort_reverse_and_assign_mutate_their_receiver() {
        let mutating: Vec<&str> = operations()
            .iter()
            .filter(|op| op.mutates_receiver)
            .map(|op| op.tool)
            .collect();
        assert_eq!(
            mutating,
            ["code:sort", "code:reverse", "code:Object.assign"]
        );
    }

    #[test]
    fn unknown_and_foreign_tools_are_not_pure() {
        for tool in [
            "",
            "code:",
            "filter",
            "code:Math.random",
            "code:fetch",
            "mcp:filter",
            "CODE:filter",
            "code:filter ",
        ] {
            assert_eq!(lookup(tool), None, "{tool:?}");
            assert!(!is_pure(tool), "{tool:?}");
        }
    }

    #[test]
    fn math_random_is_not_an_operation() {
        assert_eq!(static_operation("Math", "random"), None);
    }

    #[test]
    fn methods_do_not_resolve_statics_or_operators() {
        for method in [
            "keys",
            "Object.keys",
            "max",
            "parse",
            "add",
            "and",
            "",
            "push",
        ] {
            assert_eq!(method_operation(method), None, "{method}");
        }
    }

    #[test]
    fn statics_need_the_right_namespace() {
        assert_eq!(static_operation("Object", "max"), None);
        assert_eq!(static_operation("Math", "keys"), None);
        assert_eq!(static_operation("Array", "filter"), None);
        assert_eq!(static_operation("Reflect", "ownKeys"), None);
        assert_eq!(static_operation("Object", ""), None);
        assert_eq!(static_operation("", "keys"), None);
    }

    #[test]
    fn assignment_and_unknown_operators_do_not_resolve() {
        for operator in ["=", "+=", "&&=", "instanceof", "in", "!", "~", "", " +"] {
            assert_eq!(binary_operation(operator), None, "{operator:?}");
        }
    }

    #[test]
    fn category_names_are_lowercase_and_distinct() {
        let names: BTreeSet<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), Category::ALL.len());
        for category in Category::ALL {
            assert_eq!(category.as_str(), category.as_str().to_lowercase());
            assert_eq!(category.to_string(), category.as_str());
        }
        assert_eq!(Category::Json.as_str(), "json");
    }

    #[test]
    fn name_strips_the_prefix() {
        assert_eq!(
            lookup("code:Object.keys").map(Operation::name),
            Some("Object.keys")
        );
        assert_eq!(lookup("code:add").map(Operation::name), Some("add"));
    }
}
