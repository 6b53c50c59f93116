//! Constant folding: which expressions have a value known before the program runs.
//!
//! Follows JavaScript semantics for the operators the issue lists (`+ - * / % **`, comparisons,
//! `&& || ??`, unary `- + ! typeof`, string concatenation) over literals, literal bindings,
//! array/object literals and member access into them. An expression with any operand that is not
//! known (a call, a run-time value, `NaN`/`Infinity` results that JSON cannot hold) is not folded.

use indexmap::IndexMap;
use serde_json::{Number, Value};
use swc_ecma_ast::{
    BinaryOp, Expr, Lit, MemberProp, ObjectLit, Prop, PropName, PropOrSpread, Tpl, UnaryOp,
};

/// A JavaScript value that folding can produce.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsValue {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Array(Vec<JsValue>),
    Object(IndexMap<String, JsValue>),
}

impl JsValue {
    /// The JSON form (as `JSON.stringify` would write it), or `None` when the value has no JSON
    /// form (`undefined` at top level, `NaN`, `Infinity`).
    pub(crate) fn to_json(&self) -> Option<Value> {
        Some(match self {
            JsValue::Undefined => return None,
            JsValue::Null => Value::Null,
            JsValue::Bool(b) => Value::Bool(*b),
            JsValue::Num(n) => number_to_json(*n)?,
            JsValue::Str(s) => Value::String(s.clone()),
            JsValue::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| match v {
                        JsValue::Undefined => Some(Value::Null),
                        v => v.to_json(),
                    })
                    .collect::<Option<_>>()?,
            ),
            JsValue::Object(map) => {
                let mut out = serde_json::Map::new();
                for (k, v) in map {
                    if *v == JsValue::Undefined {
                        continue;
                    }
                    out.insert(k.clone(), v.to_json()?);
                }
                Value::Object(in_js_order(out))
            }
        })
    }

    /// The JSON form when JSON holds the value exactly (no `undefined` inside, no -0), else
    /// `None`: what code computed from the JSON computes as from the value.
    pub(crate) fn to_exact_json(&self) -> Option<Value> {
        fn exact(v: &JsValue) -> bool {
            match v {
                JsValue::Undefined => false,
                JsValue::Num(n) => n.is_finite() && !(*n == 0.0 && n.is_sign_negative()),
                JsValue::Array(items) => items.iter().all(exact),
                JsValue::Object(map) => map.values().all(exact),
                JsValue::Null | JsValue::Bool(_) | JsValue::Str(_) => true,
            }
        }
        exact(self).then(|| self.to_json()).flatten()
    }

    fn truthy(&self) -> bool {
        match self {
            JsValue::Undefined | JsValue::Null => false,
            JsValue::Bool(b) => *b,
            JsValue::Num(n) => *n != 0.0 && !n.is_nan(),
            JsValue::Str(s) => !s.is_empty(),
            JsValue::Array(_) | JsValue::Object(_) => true,
        }
    }

    pub(crate) fn is_primitive(&self) -> bool {
        !matches!(self, JsValue::Array(_) | JsValue::Object(_))
    }

    fn to_number(&self) -> f64 {
        match self {
            JsValue::Undefined => f64::NAN,
            JsValue::Null => 0.0,
            JsValue::Bool(b) => f64::from(u8::from(*b)),
            JsValue::Num(n) => *n,
            JsValue::Str(s) => string_to_number(s),
            other => string_to_number(&other.to_js_string()),
        }
    }

    pub(crate) fn to_js_string(&self) -> String {
        match self {
            JsValue::Undefined => "undefined".into(),
            JsValue::Null => "null".into(),
            JsValue::Bool(b) => b.to_string(),
            JsValue::Num(n) => number_to_string(*n),
            JsValue::Str(s) => s.clone(),
            JsValue::Array(items) => items
                .iter()
                .map(|v| match v {
                    JsValue::Undefined | JsValue::Null => String::new(),
                    v => v.to_js_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            JsValue::Object(_) => "[object Object]".into(),
        }
    }

    fn type_of(&self) -> &'static str {
        match self {
            JsValue::Undefined => "undefined",
            JsValue::Bool(_) => "boolean",
            JsValue::Num(_) => "number",
            JsValue::Str(_) => "string",
            JsValue::Null | JsValue::Array(_) | JsValue::Object(_) => "object",
        }
    }
}

/// An integral f64 becomes a JSON integer (`10`, not `10.0`); NaN and infinities have no JSON form.
pub(crate) fn number_to_json(n: f64) -> Option<Value> {
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        // -0 prints as 0 in JSON.
        return Some(Value::Number(Number::from(n as i64)));
    }
    Number::from_f64(n).map(Value::Number)
}

/// `Number.prototype.toString()` for the values folding meets.
pub(crate) fn number_to_string(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let abs = n.abs();
    if (1e-7..1e21).contains(&abs) {
        if n.fract() == 0.0 {
            return format!("{}", n as i128);
        }
        return format!("{n}");
    }
    // Exponent form: JS writes `1e+21`, `1.5e-7`; Rust's `{:e}` writes `1e21`, `1.5e-7`.
    let s = format!("{n:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => s,
    }
}

fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, radix: u32| {
        u64::from_str_radix(digits, radix)
            .map(|v| v as f64)
            .unwrap_or(f64::NAN)
    };
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return radix(h, 16);
    }
    if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        return radix(b, 2);
    }
    if let Some(o) = t.strip_prefix("0o").or_else(|| t.strip_prefix("0O")) {
        return radix(o, 8);
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    // Rust accepts "inf", "nan", "infinity": JS does not.
    if t.chars()
        .any(|c| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')))
    {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// Where folding looks up identifiers: the literal bindings visible at this point.
pub(crate) trait Env {
    fn literal(&self, name: &str) -> Option<JsValue>;
}

/// Largest folded value kept (string bytes, or elements and characters of a composite):
/// `const b = a + a` repeated would otherwise double without bound.
pub(crate) const MAX_FOLD_SIZE: usize = 64 * 1024;

impl JsValue {
    /// Whether the value's size stays within `budget` (strings count bytes, composites count
    /// their elements plus their contents). Stops as soon as the budget is spent.
    pub(crate) fn fits(&self, budget: &mut usize) -> bool {
        let cost = match self {
            JsValue::Str(s) => s.len(),
            _ => 1,
        };
        if cost > *budget {
            return false;
        }
        *budget -= cost;
        match self {
            JsValue::Array(items) => items.iter().all(|v| v.fits(budget)),
            JsValue::Object(map) => map.iter().all(|(k, v)| {
                if k.len() > *budget {
                    return false;
                }
                *budget -= k.len();
                v.fits(budget)
            }),
            _ => true,
        }
    }

    pub(crate) fn within_limit(&self) -> bool {
        let mut budget = MAX_FOLD_SIZE;
        self.fits(&mut budget)
    }
}

/// Deepest expression nesting folding follows. Deeper values are left to run time: they
/// would only make bindings no reader wants, and recursive serialisers would pay for them.
const MAX_FOLD_DEPTH: usize = 64;

/// Fold `expr` to a value, or `None` if any part is not known statically.
pub(crate) fn fold(expr: &Expr, env: &dyn Env) -> Option<JsValue> {
    fold_at(expr, env, 0)
}

fn fold_at(expr: &Expr, env: &dyn Env, depth: usize) -> Option<JsValue> {
    if depth > MAX_FOLD_DEPTH {
        return None;
    }
    let result = fold_unbounded(expr, env, depth)?;
    // Composites built from admitted parts can still multiply in one expression.
    if matches!(result, JsValue::Str(ref s) if s.len() > MAX_FOLD_SIZE)
        || (matches!(result, JsValue::Array(_) | JsValue::Object(_)) && !result.within_limit())
    {
        return None;
    }
    Some(result)
}

fn fold_unbounded(expr: &Expr, env: &dyn Env, depth: usize) -> Option<JsValue> {
    let fold = |e: &Expr, env: &dyn Env| fold_at(e, env, depth + 1);
    let fold_tpl = |t: &Tpl, env: &dyn Env| fold_tpl(t, env, depth + 1);
    let fold_object = |o: &ObjectLit, env: &dyn Env| fold_object(o, env, depth + 1);
    match expr {
        Expr::Lit(lit) => fold_lit(lit),
        Expr::Tpl(tpl) => fold_tpl(tpl, env),
        Expr::Paren(p) => fold(&p.expr, env),
        Expr::TsAs(e) => fold(&e.expr, env),
        Expr::TsConstAssertion(e) => fold(&e.expr, env),
        Expr::TsSatisfies(e) => fold(&e.expr, env),
        Expr::TsNonNull(e) => fold(&e.expr, env),
        Expr::TsTypeAssertion(e) => fold(&e.expr, env),
        Expr::Ident(id) => match id.sym.as_ref() {
            name if env.literal(name).is_some() => env.literal(name),
            "undefined" => Some(JsValue::Undefined),
            _ => None,
        },
        Expr::Array(arr) => {
            let mut out = Vec::with_capacity(arr.elems.len());
            for elem in &arr.elems {
                match elem {
                    None => out.push(JsValue::Undefined),
                    Some(e) if e.spread.is_some() => match fold(&e.expr, env)? {
                        JsValue::Array(items) => out.extend(items),
                        JsValue::Str(s) => out.extend(s.chars().map(|c| JsValue::Str(c.into()))),
                        _ => return None,
                    },
                    Some(e) => out.push(fold(&e.expr, env)?),
                }
            }
            Some(JsValue::Array(out))
        }
        Expr::Object(obj) => fold_object(obj, env),
        Expr::Unary(u) => {
            let v = fold(&u.arg, env)?;
            Some(match u.op {
                UnaryOp::Minus => JsValue::Num(-v.to_number()),
                UnaryOp::Plus => JsValue::Num(v.to_number()),
                UnaryOp::Bang => JsValue::Bool(!v.truthy()),
                UnaryOp::TypeOf => JsValue::Str(v.type_of().into()),
                UnaryOp::Void => JsValue::Undefined,
                _ => return None,
            })
        }
        Expr::Bin(bin) => {
            let left = fold(&bin.left, env)?;
            // Short-circuit operators only need the right side when it is evaluated, but a
            // right side that is not known still makes the expression not constant.
            let right = fold(&bin.right, env)?;
            binary(bin.op, left, right)
        }
        Expr::Cond(c) => {
            let test = fold(&c.test, env)?;
            if test.truthy() {
                fold(&c.cons, env)
            } else {
                fold(&c.alt, env)
            }
        }
        Expr::Member(m) => {
            let obj = fold(&m.obj, env)?;
            let key = match &m.prop {
                MemberProp::Ident(name) => JsValue::Str(name.sym.as_str().to_owned()),
                MemberProp::Computed(c) => fold(&c.expr, env)?,
                MemberProp::PrivateName(_) => return None,
            };
            member(&obj, &key)
        }
        _ => None,
    }
}

fn fold_lit(lit: &Lit) -> Option<JsValue> {
    Some(match lit {
        Lit::Str(s) => JsValue::Str(s.value.to_string_lossy().into_owned()),
        Lit::Num(n) => JsValue::Num(n.value),
        Lit::Bool(b) => JsValue::Bool(b.value),
        Lit::Null(_) => JsValue::Null,
        _ => return None,
    })
}

fn fold_tpl(tpl: &Tpl, env: &dyn Env, depth: usize) -> Option<JsValue> {
    let fold = |e: &Expr, env: &dyn Env| fold_at(e, env, depth + 1);
    let mut out = String::new();
    for (i, quasi) in tpl.quasis.iter().enumerate() {
        out.push_str(&quasi.cooked.as_ref()?.to_string_lossy());
        if let Some(e) = tpl.exprs.get(i) {
            let v = fold(e, env)?;
            if !v.is_primitive() {
                return None;
            }
            out.push_str(&v.to_js_string());
        }
    }
    Some(JsValue::Str(out))
}

fn fold_object(obj: &ObjectLit, env: &dyn Env, depth: usize) -> Option<JsValue> {
    let fold = |e: &Expr, env: &dyn Env| fold_at(e, env, depth + 1);
    let mut out = IndexMap::new();
    for prop in &obj.props {
        match prop {
            PropOrSpread::Spread(s) => match fold(&s.expr, env)? {
                JsValue::Object(map) => out.extend(map),
                JsValue::Null | JsValue::Undefined => {}
                _ => return None,
            },
            PropOrSpread::Prop(p) => match &**p {
                // `__proto__: v` sets the prototype: JavaScript's to compute.
                Prop::KeyValue(kv) if sets_prototype(&kv.key) => return None,
                Prop::KeyValue(kv) => {
                    let key = prop_name(&kv.key)?;
                    let value = fold(&kv.value, env)?;
                    out.insert(key, value);
                }
                Prop::Shorthand(id) => {
                    out.insert(id.sym.as_str().to_owned(), env.literal(&id.sym)?);
                }
                _ => return None,
            },
        }
    }
    Some(JsValue::Object(out))
}

/// The static name of a property key, if it has one.
pub(crate) fn prop_name(key: &PropName) -> Option<String> {
    Some(match key {
        PropName::Ident(id) => id.sym.as_str().to_owned(),
        PropName::Str(s) => s.value.to_string_lossy().into_owned(),
        PropName::Num(n) => number_to_string(n.value),
        _ => return None,
    })
}

fn member(obj: &JsValue, key: &JsValue) -> Option<JsValue> {
    match (obj, key) {
        (JsValue::Array(items), JsValue::Str(k)) if k == "length" => {
            Some(JsValue::Num(items.len() as f64))
        }
        (JsValue::Str(s), JsValue::Str(k)) if k == "length" => {
            Some(JsValue::Num(s.encode_utf16().count() as f64))
        }
        (JsValue::Array(items), JsValue::Num(i)) if i.fract() == 0.0 && *i >= 0.0 => Some(
            items
                .get(*i as usize)
                .cloned()
                .unwrap_or(JsValue::Undefined),
        ),
        (JsValue::Object(map), key) if key.is_primitive() => {
            // Own properties only; inherited ones (`toString`...) are not folded.
            map.get(&key.to_js_string()).cloned()
        }
        _ => None,
    }
}

fn binary(op: BinaryOp, l: JsValue, r: JsValue) -> Option<JsValue> {
    use BinaryOp::*;
    let num = |f: fn(f64, f64) -> f64| Some(JsValue::Num(f(l.to_number(), r.to_number())));
    match op {
        Add => {
            let long = |v: &JsValue| matches!(v, JsValue::Str(s) if s.len() > MAX_FOLD_SIZE);
            if long(&l) || long(&r) {
                return None;
            }
            if matches!(l, JsValue::Str(_))
                || matches!(r, JsValue::Str(_))
                || !l.is_primitive()
                || !r.is_primitive()
            {
                Some(JsValue::Str(l.to_js_string() + &r.to_js_string()))
            } else {
                num(|a, b| a + b)
            }
        }
        Sub => num(|a, b| a - b),
        Mul => num(|a, b| a * b),
        Div => num(|a, b| a / b),
        Mod => num(|a, b| a % b),
        // V8's digits (`f64::powf` is the C library's, and says `1 ** NaN` is 1).
        Exp => num(pml_jstext::math::pow),
        EqEqEq => Some(JsValue::Bool(strict_equals(&l, &r)?)),
        NotEqEq => Some(JsValue::Bool(!strict_equals(&l, &r)?)),
        EqEq => Some(JsValue::Bool(loose_equals(&l, &r)?)),
        NotEq => Some(JsValue::Bool(!loose_equals(&l, &r)?)),
        Lt => compare(&l, &r, |o| o.is_lt()),
        LtEq => compare(&r, &l, |o| o.is_lt()).map(|v| negate_unless_nan(v, &l, &r)),
        Gt => compare(&r, &l, |o| o.is_lt()),
        GtEq => compare(&l, &r, |o| o.is_lt()).map(|v| negate_unless_nan(v, &l, &r)),
        LogicalAnd => Some(if l.truthy() { r } else { l }),
        LogicalOr => Some(if l.truthy() { l } else { r }),
        NullishCoalescing => Some(match l {
            JsValue::Null | JsValue::Undefined => r,
            l => l,
        }),
        _ => None,
    }
}

/// `a <= b` is `!(b < a)` except that any NaN comparison is false.
fn negate_unless_nan(v: JsValue, l: &JsValue, r: &JsValue) -> JsValue {
    let both_strings = matches!((l, r), (JsValue::Str(_), JsValue::Str(_)));
    if !both_strings && (l.to_number().is_nan() || r.to_number().is_nan()) {
        return JsValue::Bool(false);
    }
    match v {
        JsValue::Bool(b) => JsValue::Bool(!b),
        other => other,
    }
}

fn compare(l: &JsValue, r: &JsValue, pick: fn(std::cmp::Ordering) -> bool) -> Option<JsValue> {
    if !l.is_primitive() || !r.is_primitive() {
        return None;
    }
    if let (JsValue::Str(a), JsValue::Str(b)) = (l, r) {
        return Some(JsValue::Bool(pick(a.encode_utf16().cmp(b.encode_utf16()))));
    }
    let (a, b) = (l.to_number(), r.to_number());
    Some(JsValue::Bool(a.partial_cmp(&b).map(pick).unwrap_or(false)))
}

fn strict_equals(l: &JsValue, r: &JsValue) -> Option<bool> {
    if !l.is_primitive() || !r.is_primitive() {
        // Identity of objects is not known statically.
        return None;
    }
    Some(match (l, r) {
        (JsValue::Num(a), JsValue::Num(b)) => a == b,
        (a, b) => a == b,
    })
}

fn loose_equals(l: &JsValue, r: &JsValue) -> Option<bool> {
    use JsValue::*;
    if !l.is_primitive() || !r.is_primitive() {
        return None;
    }
    Some(match (l, r) {
        (Undefined | Null, Undefined | Null) => true,
        (Undefined | Null, _) | (_, Undefined | Null) => false,
        (Str(a), Str(b)) => a == b,
        (Bool(a), Bool(b)) => a == b,
        _ => l.to_number() == r.to_number(),
    })
}

/// A fold result as JSON, if it has a JSON form.
pub(crate) fn fold_json(expr: &Expr, env: &dyn Env) -> Option<Value> {
    fold(expr, env)?.to_json()
}

/// An object's keys in the order JavaScript enumerates them (and `JSON.stringify` writes
/// them): array indices (`"0"`, `"7"`: canonical integers below 2^32 - 1) first, ascending,
/// then the other keys in the order they were added.
pub fn in_js_order(map: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    let index = |key: &str| -> Option<u32> {
        let n: u32 = key.parse().ok()?;
        (n != u32::MAX && n.to_string() == key).then_some(n)
    };
    if !map.keys().any(|k| index(k).is_some()) {
        return map;
    }
    let (mut indices, others): (Vec<_>, Vec<_>) =
        map.into_iter().partition(|(k, _)| index(k).is_some());
    indices.sort_by_key(|(k, _)| index(k));
    indices.into_iter().chain(others).collect()
}

/// Whether an object literal's `key: value` sets the object's prototype instead of a property
/// (`__proto__: v` or `"__proto__": v`, not computed, not shorthand).
pub(crate) fn sets_prototype(key: &swc_ecma_ast::PropName) -> bool {
    match key {
        swc_ecma_ast::PropName::Ident(id) => &*id.sym == "__proto__",
        swc_ecma_ast::PropName::Str(s) => s.value.as_str() == Some("__proto__"),
        _ => false,
    }
}

#[cfg(test)]
mod js_order_tests {
    use super::in_js_order;
    use serde_json::json;

    #[test]
    fn array_indices_come_first_ascending() {
        let Some(map) = json!({"b": 1, "10": 2, "2": 3, "02": 4, "4294967295": 5, "-1": 6, "a": 7})
            .as_object()
            .cloned()
        else {
            unreachable!()
        };
        let keys: Vec<String> = in_js_order(map).keys().cloned().collect();
        // As `Object.keys` in Node.
        assert_eq!(keys, ["2", "10", "b", "02", "4294967295", "-1", "a"]);
    }
}
