//! TypeScript constructs that need generated code (`enum`, namespaces with values, constructor
//! parameter properties),
//! compiled as the reference runner compiles the whole program (`../shared/node-oracle`: SWC's
//! TypeScript transform, target ESNext, class fields as JavaScript defines them), one construct
//! at a time, in the place it has in an agent program: the body of an async function.
//!
//! [`crate::strip`] erases every other type in place; a construct compiled here replaces its
//! own bytes in the JavaScript, printed on one line then as many line breaks as it spanned, so
//! the lines after it keep their numbers (not their byte offsets: the JavaScript is parsed
//! again).
//!
//! A `const enum` is compiled as an `enum`: the reference inlines its members where the program
//! reads them and leaves no object; here the object is left and read, with the same values.

use swc_common::{sync::Lrc, Globals, Mark, SourceMap, DUMMY_SP, GLOBALS};
use swc_ecma_ast::{
    Class, ClassDecl, ClassExpr, ClassMember, Decl, Expr, ExprStmt, FnDecl, Function, FunctionBody,
    Ident, ParamOrTsParamProp, Pass, Program, Script, Stmt, TsEnumDecl, TsModuleDecl,
};
use swc_ecma_codegen::{text_writer::JsWriter, Emitter, Node};
use swc_ecma_transforms_base::{fixer::fixer, resolver};
use swc_ecma_transforms_typescript::typescript;

/// A construct to compile.
#[derive(Debug, Clone)]
pub(crate) enum Construct {
    /// An `enum` declaration (a statement).
    Enum(TsEnumDecl),
    /// A namespace with values (a statement).
    Namespace(TsModuleDecl),
    /// A class declaration (a statement) with parameter properties.
    ClassDecl(ClassDecl),
    /// A class expression with parameter properties.
    ClassExpr(ClassExpr),
}

/// Whether a class's constructor has parameter properties (`constructor(private x: T)`).
pub(crate) fn has_parameter_properties(class: &Class) -> bool {
    class.body.iter().any(|m| match m {
        ClassMember::Constructor(c) => {
            (c.params.iter()).any(|p| matches!(p, ParamOrTsParamProp::TsParamProp(_)))
        }
        _ => false,
    })
}

/// The JavaScript of `construct` on one line (a statement starts with `;`: whatever comes
/// before it ends there, as it did), or `None` if it cannot be printed.
pub(crate) fn javascript(construct: &Construct) -> Option<String> {
    let statement = match construct.clone() {
        Construct::Enum(mut e) => {
            e.is_const = false;
            Stmt::Decl(Decl::TsEnum(Box::new(e)))
        }
        Construct::Namespace(m) => Stmt::Decl(Decl::TsModule(Box::new(m))),
        Construct::ClassDecl(c) => Stmt::Decl(Decl::Class(c)),
        Construct::ClassExpr(c) => Stmt::Expr(ExprStmt {
            span: DUMMY_SP,
            expr: Box::new(Expr::Class(c)),
        }),
    };
    // In the body of an async function, as the reference runner wraps a program.
    let wrapper = Function {
        is_async: true,
        body: Some(FunctionBody {
            span: DUMMY_SP,
            stmts: vec![statement],
        }),
        ..Default::default()
    };
    let program = Program::Script(Script {
        span: DUMMY_SP,
        body: vec![Stmt::Decl(Decl::Fn(FnDecl {
            ident: Ident::new_no_ctxt("__pml_compile".into(), DUMMY_SP),
            declare: false,
            function: Box::new(wrapper),
        }))],
        shebang: None,
    });
    let program = GLOBALS.set(&Globals::default(), || {
        let unresolved = Mark::new();
        let top_level = Mark::new();
        let config = typescript::Config {
            native_class_properties: true,
            ..Default::default()
        };
        let mut program = program;
        (
            resolver(unresolved, top_level, true),
            typescript::typescript(config, unresolved, top_level),
            fixer(None),
        )
            .process(&mut program);
        program
    });
    let Program::Script(script) = program else {
        return None;
    };
    let Some(Stmt::Decl(Decl::Fn(f))) = script.body.into_iter().next() else {
        return None;
    };
    let stmts = f.function.body?.stmts;
    let cm: Lrc<SourceMap> = Default::default();
    let mut out = Vec::new();
    let statements = !matches!(construct, Construct::ClassExpr(_));
    {
        let mut emitter = Emitter {
            cfg: swc_ecma_codegen::Config::default().with_minify(true),
            cm: cm.clone(),
            comments: None,
            wr: JsWriter::new(cm, "\n", &mut out, None),
        };
        match (construct, stmts.as_slice()) {
            // The class expression alone, where it was.
            (Construct::ClassExpr(_), [Stmt::Expr(e)]) => {
                let mut expr = &*e.expr;
                while let Expr::Paren(p) = expr {
                    expr = &p.expr;
                }
                expr.emit_with(&mut emitter).ok()?;
            }
            (Construct::ClassExpr(_), _) => return None,
            (_, stmts) => {
                for stmt in stmts {
                    stmt.emit_with(&mut emitter).ok()?;
                }
            }
        }
    }
    let text = String::from_utf8(out).ok()?;
    Some(match statements {
        true => format!(";{text}"),
        false => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(ts: &str) -> String {
        let lines = crate::parse::LineIndex::new(ts);
        let parsed = crate::strip::parse_typescript(ts, &lines).unwrap();
        let construct = match &parsed.body[0] {
            Stmt::Decl(Decl::TsEnum(e)) => Construct::Enum((**e).clone()),
            Stmt::Decl(Decl::Class(c)) => Construct::ClassDecl(c.clone()),
            other => panic!("{other:?}"),
        };
        javascript(&construct).unwrap()
    }

    #[test]
    fn enums_and_parameter_properties_as_the_reference_compiles_them() {
        // The reference's output (`@swc/core` transformSync, target esnext, in an async
        // function), printed on one line.
        assert_eq!(
            compiled("enum Level { Low = 1, High = 5, Mid = Low + 1, Name = \"n\" }"),
            r#";let Level=/*#__PURE__*/function(Level){Level[Level["Low"]=1]="Low";Level[Level["High"]=5]="High";Level[Level["Mid"]=2]="Mid";Level["Name"]="n";return Level;}({});"#
        );
        assert_eq!(
            compiled("const enum Dir { Up = \"up\" }"),
            r#";let Dir=/*#__PURE__*/function(Dir){Dir["Up"]="up";return Dir;}({});"#
        );
        assert_eq!(
            compiled(
                "class Box extends Base { x = 1; constructor(public readonly label: string, private n = 2) { super(); } }"
            ),
            ";class Box extends Base{label;n;x=1;constructor(label,n=2){super(),this.label=label,this.n=n;}}"
        );
    }
}
