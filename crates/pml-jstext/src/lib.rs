//! JavaScript strings held exactly in Rust strings: *pml text*.
//!
//! A JavaScript string is a sequence of UTF-16 code units and may hold a *lone surrogate*
//! (`"😀".slice(0, 1)` is `"\ud83d"`); a Rust `String` (and so a `serde_json::Value`) cannot.
//! Node's `JSON.stringify` writes a lone surrogate as the escape `\ud83d` (well-formed
//! `JSON.stringify`), so a tool call carrying one reaches the MCP server as that escape, and a
//! server may answer with one. pml keeps such strings exactly, between the sandbox, the
//! executor, the MCP client, results, traces and the store, in this form:
//!
//! - every code point other than U+FDD0 stands for itself;
//! - a lone surrogate `U+D800..=U+DFFF` is [`ESCAPE`] (U+FDD0) followed by its four hex digits
//!   in lowercase (`"\ud83d"` is `"\u{FDD0}d83d"`);
//! - U+FDD0 itself is [`ESCAPE`] twice.
//!
//! U+FDD0 is a Unicode *noncharacter*, set aside for a program's internal use and not meant
//! to be interchanged, so the doubling almost never happens; the mapping is one-to-one, and
//! decoding reads left to right, so no real text collides with an escape. (An escape that is
//! not followed by a second escape or by four hex digits of a surrogate, which pml never
//! writes, is read as U+FDD0 itself.)
//!
//! The conversion happens on *JSON text*, where JavaScript and Rust meet: [`from_js_json`]
//! turns JSON text as JavaScript writes it (lone surrogates as `\udXXX` escapes) into JSON
//! text `serde_json` reads into pml text, and [`to_js_json`] turns what `serde_json` writes
//! back into the JSON text JavaScript would have written. Neither needs to know where strings
//! are: in valid JSON a backslash and a non-ASCII character occur only inside strings.
//! [`lossy`] is what Node prints for a string on a terminal (a lone surrogate as U+FFFD).
//! [`math`] computes what Rust's `f64` operations compute with other digits than V8's.
//!
//! ```
//! use pml_jstext::{from_js_json, to_js_json};
//!
//! let js = r#"{"preview":"ab\ud83d"}"#;
//! let value: serde_json::Value = serde_json::from_str(&from_js_json(js)).unwrap();
//! assert_eq!(value["preview"], "ab\u{FDD0}d83d");
//! let text = serde_json::to_string(&value).unwrap();
//! assert_eq!(to_js_json(&text), js);
//! ```
//!
//! [`parse_js_json`] and [`parse`] read JSON text into a `serde_json::Value` as deeply nested
//! as [`MAX_DEPTH`] (serde_json alone stops at 128 levels; Node's `JSON.stringify` goes to about
//! 4,000 before its stack runs out).
//!
//! [`to_js_json`] also writes numbers as JavaScript writes them ([`js_numbers`]): what pml
//! sends out reads as Node's text, not only as Node's values.
//!
//! **Invariant:** `to_js_json(serde(from_js_json(t)))` is `t` for JSON text `t` as
//! JavaScript's `JSON.stringify` writes it. Depends on serde_json and ryu-js only.

pub mod math;

use std::borrow::Cow;

/// The character that starts an escape (a Unicode noncharacter).
pub const ESCAPE: char = '\u{FDD0}';

const ESCAPE_UTF8: &[u8] = "\u{FDD0}".as_bytes();

/// JSON text as JavaScript writes it (lone surrogates as `\udXXX` escapes, anything else
/// raw or escaped) as JSON text whose strings are pml text. A U+FDD0 written as a `\ufdd0`
/// escape is doubled too; escaped surrogate pairs and other escapes are kept.
pub fn from_js_json(text: &str) -> Cow<'_, str> {
    if !text.contains('\\') && !text.contains(ESCAPE) {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let Some(&next) = bytes.get(i + 1) else { break };
            if next != b'u' {
                i += 2;
                continue;
            }
            let Some(unit) = hex4(bytes, i + 2) else {
                i += 2;
                continue;
            };
            let replacement = match unit {
                0xD800..=0xDBFF if hex_escape(bytes, i + 6).is_some_and(is_low) => {
                    // A pair: kept as it is.
                    i += 12;
                    continue;
                }
                0xD800..=0xDFFF => Some(unit),
                0xFDD0 => None,
                _ => {
                    i += 6;
                    continue;
                }
            };
            out.push_str(&text[copied..i]);
            match replacement {
                Some(unit) => push_escape(&mut out, unit),
                None => {
                    out.push(ESCAPE);
                    out.push(ESCAPE);
                }
            }
            i += 6;
            copied = i;
        } else if bytes[i..].starts_with(ESCAPE_UTF8) {
            out.push_str(&text[copied..i]);
            out.push(ESCAPE);
            out.push(ESCAPE);
            i += ESCAPE.len_utf8();
            copied = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// JSON text whose strings are pml text (as `serde_json` writes it) as the JSON text
/// JavaScript's `JSON.stringify` writes for the same values: each escaped lone surrogate as a
/// `\udXXX` escape, a doubled U+FDD0 as one, and each number as JavaScript writes it
/// ([`js_numbers`]).
pub fn to_js_json(text: &str) -> Cow<'_, str> {
    let decoded = decode(text, |out, unit| {
        out.push_str("\\u");
        push_hex(out, unit);
    });
    match js_numbers(&decoded) {
        Some(numbers) => Cow::Owned(numbers),
        None => decoded,
    }
}

/// Program text held as pml text, as JavaScript source: each lone surrogate as the escape
/// `\udXXX`. Inside a string, template or regular expression literal (the only places a
/// program can hold one) the escape stands for the same code unit, so a program a client sent
/// with a lone surrogate in a string runs as it would in Node.
pub fn to_js_source(text: &str) -> Cow<'_, str> {
    decode(text, |out, unit| {
        out.push_str("\\u");
        push_hex(out, unit);
    })
}

/// JSON text with its numbers written as JavaScript writes them (`Number::prototype.toString`,
/// which `JSON.stringify` uses), or `None` when each already is. `serde_json` writes a float in
/// the shortest form that reads back, but not JavaScript's: `1e20` and `1e-6` where JavaScript
/// writes `100000000000000000000` and `0.000001` (decimal from 1e-7 up to 1e21), `1.0` and
/// `-0.0` where it writes `1` and `0`. Same values, other text: what a server receives, a
/// result shows, would not be the text Node writes. Integers (no `.` nor exponent) are kept
/// as they are: they came from JavaScript's text or are exact.
pub fn js_numbers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Past the string: its end is the first quote not escaped.
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                let mut exponent = false;
                while i < bytes.len() {
                    match bytes[i] {
                        b'0'..=b'9' | b'-' | b'+' | b'.' => {}
                        b'e' | b'E' => exponent = true,
                        _ => break,
                    }
                    i += 1;
                }
                let token = &text[start..i];
                // Shortest digits either way (`serde_json` and JavaScript both write the
                // shortest that reads back, the nearest when several do): only the notation
                // can differ, an exponent or a `.0` that JavaScript does not write.
                if !exponent && !token.ends_with(".0") {
                    continue;
                }
                let value = match token.parse::<f64>() {
                    Ok(v) if v.is_finite() => v,
                    // (A token past f64's range, `1e999`, is left as it is.)
                    _ => continue,
                };
                let mut buffer = ryu_js::Buffer::new();
                let js = buffer.format(value);
                if js != token {
                    let out = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
                    out.push_str(&text[copied..start]);
                    out.push_str(js);
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    let mut out = out?;
    out.push_str(&text[copied..]);
    Some(out)
}

/// pml text as Node prints it (on a terminal or a pipe, in UTF-8): a lone surrogate as
/// U+FFFD, a doubled U+FDD0 as one.
pub fn lossy(text: &str) -> Cow<'_, str> {
    decode(text, |out, _| out.push('\u{FFFD}'))
}

/// How deeply pml lets JSON values nest: the results, call arguments and answers of a run.
/// Node's `JSON.stringify` stops at about 4,000 levels (its stack), the sandbox's at about as
/// many; a value read past this depth is an error, not a stack overflow of the host. Threads
/// that hold such values need a few MiB of stack (serde_json's `Clone`, `Drop` and
/// serialisation recurse): pml's runtimes are built with 16 MiB.
pub const MAX_DEPTH: usize = 4096;

/// JSON text as JavaScript writes it, read into a value whose strings are pml text
/// ([`from_js_json`]), nested up to [`MAX_DEPTH`] levels.
pub fn parse_js_json(text: &str) -> serde_json::Result<serde_json::Value> {
    parse(&from_js_json(text))
}

/// JSON text read into a value, nested up to [`MAX_DEPTH`] levels. Text within serde_json's
/// own 128 levels takes its usual path; deeper text is measured, then read on a stack that
/// grows as it needs to.
pub fn parse(text: &str) -> serde_json::Result<serde_json::Value> {
    use serde::de::{DeserializeSeed, Error};
    let shallow = || -> serde_json::Result<serde_json::Value> {
        let mut de = serde_json::Deserializer::from_str(text);
        let value = Compact.deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    };
    match shallow() {
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            let depth = depth_of(text);
            if depth > MAX_DEPTH {
                return Err(serde_json::Error::custom(format!(
                    "the value is nested {depth} levels deep; pml keeps at most {MAX_DEPTH}"
                )));
            }
            let mut de = serde_json::Deserializer::from_str(text);
            de.disable_recursion_limit();
            let value = Compact.deserialize(serde_stacker::Deserializer::new(&mut de))?;
            de.end()?;
            Ok(value)
        }
        other => other,
    }
}

/// The largest integer below which every integer is a double (2^53).
const SAFE: u64 = 1 << 53;

/// `number` as JavaScript holds it: a double. An integer beyond 2^53 that JSON text spells
/// exactly (`9007199254740993`, an id in `--args` or in a server's answer) is, in JavaScript,
/// the nearest double (`9007199254740992`): what the program reads and what it sends on.
/// A double, so that it is written as JavaScript writes it ([`to_js_json`]:
/// `12345678901234567000`).
pub fn js_number(number: &serde_json::Number) -> serde_json::Number {
    let rounded = match (number.as_u64(), number.as_i64()) {
        (Some(u), _) if u > SAFE => serde_json::Number::from_f64(u as f64),
        (None, Some(i)) if i.unsigned_abs() > SAFE => serde_json::Number::from_f64(i as f64),
        _ => None,
    };
    rounded.unwrap_or_else(|| number.clone())
}

/// Every number of `value` as JavaScript holds it ([`js_number`]): a value read from JSON
/// text outside the sandbox (the program's `args`) as the program reads it.
pub fn js_numbers_of(value: &mut serde_json::Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            serde_json::Value::Number(n) => *n = js_number(n),
            serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
            serde_json::Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
}

/// Reads a `serde_json::Value` as `Value::deserialize` does, holding each array and object in
/// no more memory than its elements need: serde_json grows a parsed array as it reads it (a
/// two-element array keeps room for four 72-byte values), which made a result of many small
/// arrays take ~4x its size in memory.
struct Compact;

impl<'de> serde::de::DeserializeSeed<'de> for Compact {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Compact {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Number(js_number(&v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Number(js_number(&v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v)
            .map_or(serde_json::Value::Null, serde_json::Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(serde_json::Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(serde_json::Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Compact)? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(serde_json::Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Read in full first, then held in a map of the right size (a repeated key keeps its
        // first place and its last value, as `Map::insert` does).
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(Compact)?));
        }
        let mut object = serde_json::Map::with_capacity(entries.len());
        for (key, value) in entries {
            object.insert(key, value);
        }
        Ok(serde_json::Value::Object(object))
    }
}

/// The deepest nesting of arrays and objects in JSON text (brackets inside strings left out).
fn depth_of(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The UTF-16 code units of the JavaScript string `text` (pml text) stands for.
pub fn utf16_units(text: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(ESCAPE) {
        units.extend(rest[..at].encode_utf16());
        let after = &rest[at + ESCAPE.len_utf8()..];
        match escaped(after) {
            Escaped::Escape => {
                units.push(ESCAPE as u16);
                rest = &after[ESCAPE.len_utf8()..];
            }
            Escaped::Surrogate(unit) => {
                units.push(unit);
                rest = &after[4..];
            }
            Escaped::Plain => {
                units.push(ESCAPE as u16);
                rest = after;
            }
        }
    }
    units.extend(rest.encode_utf16());
    units
}

/// The pml text of the JavaScript string whose UTF-16 code units are `units`.
pub fn from_utf16_units(units: &[u16]) -> String {
    let mut out = String::with_capacity(units.len());
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(ESCAPE) => {
                out.push(ESCAPE);
                out.push(ESCAPE);
            }
            Ok(c) => out.push(c),
            Err(e) => push_escape(&mut out, e.unpaired_surrogate()),
        }
    }
    out
}

fn decode(text: &str, surrogate: impl Fn(&mut String, u16)) -> Cow<'_, str> {
    if !text.contains(ESCAPE) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(ESCAPE) {
        out.push_str(&rest[..at]);
        let after = &rest[at + ESCAPE.len_utf8()..];
        match escaped(after) {
            Escaped::Escape => {
                out.push(ESCAPE);
                rest = &after[ESCAPE.len_utf8()..];
            }
            Escaped::Surrogate(unit) => {
                surrogate(&mut out, unit);
                rest = &after[4..];
            }
            Escaped::Plain => {
                out.push(ESCAPE);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// What follows an [`ESCAPE`].
enum Escaped {
    /// A second escape: U+FDD0 itself.
    Escape,
    /// Four lowercase hex digits of a surrogate.
    Surrogate(u16),
    /// Anything else: the escape stands for itself.
    Plain,
}

fn escaped(after: &str) -> Escaped {
    if after.starts_with(ESCAPE) {
        return Escaped::Escape;
    }
    let digits = after.as_bytes().get(..4).unwrap_or_default();
    if digits.len() == 4
        && digits
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        if let Some(unit @ 0xD800..=0xDFFF) = hex4(digits, 0) {
            return Escaped::Surrogate(unit);
        }
    }
    Escaped::Plain
}

fn push_escape(out: &mut String, unit: u16) {
    out.push(ESCAPE);
    push_hex(out, unit);
}

fn push_hex(out: &mut String, unit: u16) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for shift in [12, 8, 4, 0] {
        out.push(DIGITS[usize::from((unit >> shift) & 0xF)] as char);
    }
}

fn is_low(unit: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
}

/// The code unit of a `\uXXXX` escape at `at`.
fn hex_escape(bytes: &[u8], at: usize) -> Option<u16> {
    if bytes.get(at..at + 2)? != b"\\u" {
        return None;
    }
    hex4(bytes, at + 2)
}

fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    let mut unit = 0u16;
    for &b in digits {
        let digit = (b as char).to_digit(16)?;
        unit = unit << 4 | digit as u16;
    }
    Some(unit)
}

#[cfg(test)]
mod tests {
    #[test]
    fn integers_beyond_2_53_are_the_doubles_javascript_reads() {
        // What `JSON.stringify(JSON.parse(text))` gives in Node, for each text.
        for (text, js) in [
            ("9007199254740993", "9007199254740992"),
            ("9007199254740995", "9007199254740996"),
            ("-9007199254740993", "-9007199254740992"),
            ("12345678901234567890", "12345678901234567000"),
            ("9007199254740991", "9007199254740991"),
            ("10000000000000000", "10000000000000000"),
            (
                "[1, {\"id\": 1152921504606846977}]",
                "[1,{\"id\":1152921504606847000}]",
            ),
        ] {
            let value = super::parse(text).unwrap();
            let written = super::to_js_json(&value.to_string()).into_owned();
            let mut from_text: serde_json::Value = serde_json::from_str(text).unwrap();
            super::js_numbers_of(&mut from_text);
            assert_eq!(
                (
                    written.as_str(),
                    super::to_js_json(&from_text.to_string()).as_ref()
                ),
                (js, js),
                "{text}"
            );
        }
    }

    #[test]
    fn values_nest_as_deep_as_max_depth_and_no_deeper() {
        let nested = |n: usize| "[".repeat(n) + "\"[{\\\"\"" + &"]".repeat(n);
        // 129 levels: past serde_json's own limit.
        let value = super::parse_js_json(&nested(129)).unwrap();
        let mut inner = &value;
        for _ in 0..129 {
            inner = &inner[0];
        }
        assert_eq!(inner, "[{\"");
        let deepest = std::thread::Builder::new()
            .stack_size(16 << 20)
            .spawn(move || super::parse(&nested(super::MAX_DEPTH)).is_ok())
            .unwrap();
        assert!(deepest.join().unwrap());
        let error = super::parse(&nested(super::MAX_DEPTH + 1)).unwrap_err();
        assert!(
            error.to_string().contains("nested 4097 levels deep"),
            "{error}"
        );
        // Trailing text is still an error on the deep path.
        assert!(super::parse(&(nested(200) + "x")).is_err());
    }

    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Numbers as Node's `JSON.stringify` writes them (each expected text from Node 20), in
    /// what `serde_json` writes for the same values; strings that look like numbers untouched.
    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        let values = serde_json::json!([
            1e20, 1e21, 0.000001, 1e-7, 0.00005, 123.456, 5e-324, -0.0, 1.0, -2.5, 2e-7,
            1.1805916207174113e21, 1.7976931348623157e308, 12345678.9, 123456789012345680000.0,
            {"1.0": "1e20", "k": [-1e-6, 100]}, true, null, 7, -3
        ]);
        let written = serde_json::to_string(&values).unwrap();
        assert_eq!(
            to_js_json(&written),
            concat!(
                "[100000000000000000000,1e+21,0.000001,1e-7,0.00005,123.456,5e-324,0,1,-2.5,",
                "2e-7,1.1805916207174113e+21,1.7976931348623157e+308,12345678.9,",
                "123456789012345680000,",
                r#"{"1.0":"1e20","k":[-0.000001,100]},true,null,7,-3]"#
            )
        );
        // Text JavaScript wrote is kept as it is (borrowed), numbers, escapes and all.
        let js = r#"{"a":"x\"1.0\\","b":[1.5,-0.25,3e+21,1e-7]}"#;
        assert!(matches!(to_js_json(js), Cow::Borrowed(_)));
        // Beyond f64, a token stays (no `Infinity` in JSON).
        assert_eq!(to_js_json("[1e999]"), "[1e999]");
    }

    /// What `JSON.stringify` writes for the string with these code units.
    fn js_stringify(units: &[u16]) -> String {
        let mut out = String::from("\"");
        for c in char::decode_utf16(units.iter().copied()) {
            match c {
                Ok('"') => out.push_str("\\\""),
                Ok('\\') => out.push_str("\\\\"),
                Ok('\u{8}') => out.push_str("\\b"),
                Ok('\u{c}') => out.push_str("\\f"),
                Ok('\n') => out.push_str("\\n"),
                Ok('\r') => out.push_str("\\r"),
                Ok('\t') => out.push_str("\\t"),
                Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                Ok(c) => out.push(c),
                Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn lone_surrogates_and_the_escape_itself() {
        let js = r#"["\ud83d","\ude00x","😀","\ud83d\ude00","\ufdd0","﷐","a\\ud800"]"#;
        let value: Value = serde_json::from_str(&from_js_json(js)).unwrap();
        assert_eq!(
            value,
            serde_json::json!([
                "\u{FDD0}d83d",
                "\u{FDD0}de00x",
                "😀",
                "😀",
                "\u{FDD0}\u{FDD0}",
                "\u{FDD0}\u{FDD0}",
                "a\\ud800"
            ])
        );
        let back = serde_json::to_string(&value).unwrap();
        assert_eq!(
            to_js_json(&back),
            r#"["\ud83d","\ude00x","😀","😀","﷐","﷐","a\\ud800"]"#
        );
        assert_eq!(
            lossy("a\u{FDD0}d83db\u{FDD0}\u{FDD0}"),
            "a\u{FFFD}b\u{FDD0}"
        );
        assert_eq!(lossy("\u{FDD0}zz"), "\u{FDD0}zz");
        assert!(matches!(from_js_json(r#"{"a":"b"}"#), Cow::Borrowed(_)));
    }

    /// Any JSON value (numbers of every kind, strings with escapes, nesting).
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z\"\\\u{0}-\u{1f}é😀]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-c]{0,2}", inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// Whether every array and object of `value` holds no more room than its elements need.
    fn compact(value: &Value) -> bool {
        match value {
            Value::Array(items) => items.capacity() == items.len() && items.iter().all(compact),
            Value::Object(map) => map.values().all(compact),
            _ => true,
        }
    }

    proptest! {
        /// `parse` reads what serde_json reads (repeated keys and number forms included), held
        /// compactly.
        #[test]
        fn parse_reads_what_serde_json_reads(value in any_json(), repeat in any::<bool>()) {
            let mut text = value.to_string();
            if repeat && text.starts_with("{\"") {
                // The first key again, last: its first place, its last value.
                text = format!("{{\"a\":1,{},\"a\":[2.50,-0,1e300,-12345678901234567890]}}", &text[1..text.len() - 1])
                    .replace(",}", "}");
            }
            let ours = parse(&text);
            // serde_json's, with its numbers as JavaScript holds them.
            let theirs: serde_json::Result<Value> = serde_json::from_str(&text).map(|mut v| {
                super::js_numbers_of(&mut v);
                v
            });
            prop_assert_eq!(ours.as_ref().ok(), theirs.as_ref().ok());
            if let Ok(ours) = &ours {
                prop_assert!(compact(ours));
            }
        }

        /// Any finite number `serde_json` writes comes out as JavaScript writes it
        /// (`ryu_js`: ECMAScript's `Number::toString`), in an array beside a string that
        /// holds the same text, which stays.
        #[test]
        fn any_number_is_written_as_javascript_writes_it(bits in any::<u64>(), small in -1e-5f64..1e-5, round in -1e22f64..1e22) {
            for value in [f64::from_bits(bits), small, round.trunc()] {
                if !value.is_finite() {
                    continue;
                }
                let written = serde_json::to_string(&serde_json::json!([value, value.to_string()])).unwrap();
                let js = ryu_js::Buffer::new().format(value).to_owned();
                let expected = format!("[{js},{}]", serde_json::to_string(&value.to_string()).unwrap());
                prop_assert_eq!(to_js_json(&written).into_owned(), expected);
            }
        }

        #[test]
        fn any_javascript_string_round_trips(units in proptest::collection::vec(
            prop_oneof![Just(0xD83Du16), Just(0xDE00), Just(0xFDD0), Just(0x5C), Just(0x22),
                        Just(0x66), Just(0x64), Just(0x38), 0u16..0x80, any::<u16>()],
            0..24,
        )) {
            let js = js_stringify(&units);
            let text: String = serde_json::from_str(&from_js_json(&js)).unwrap();
            prop_assert_eq!(utf16_units(&text), units.clone());
            prop_assert_eq!(from_utf16_units(&units), text.clone());
            let written = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(to_js_json(&written).into_owned(), js);
        }
    }
}
