//! Compiling a script in one context and running it in another, through QuickJS bytecode.
//!
//! Task contexts have no `Eval` intrinsic, so QuickJS itself refuses `eval`, `new Function` and
//! the generator/async function constructors ("eval is not supported"), and they cannot parse
//! anything either. Each worker therefore compiles in a separate context that never runs code
//! (`JS_EVAL_FLAG_COMPILE_ONLY`), serialises the compiled script (`JS_WriteObject`) and loads it
//! into the task's context (`JS_ReadObject`, which makes that context the script's realm).
//! Loading bytecode is also much cheaper than parsing, so compiled scripts are cached.
//!
//! Only bytecode this module wrote, in the same process and QuickJS version, is ever read.

use std::ffi::CString;

use rquickjs::{qjs, Ctx, Value};

/// Compiles `source` (a strict-mode global script) in `ctx` without running it and returns
/// its bytecode. A syntax error is left pending in `ctx` (`Err(Error::Exception)`).
pub(crate) fn compile(ctx: &Ctx<'_>, source: &str, file_name: &str) -> rquickjs::Result<Vec<u8>> {
    compile_with(ctx, source, file_name, qjs::JS_WRITE_OBJ_BYTECODE)
}

/// [`compile`] for pml's own scripts (the built-ins they define): without their source text,
/// so that their functions print as QuickJS's native ones do (`function parse() { [native
/// code] }`), not as pml's code.
pub(crate) fn compile_builtin(
    ctx: &Ctx<'_>,
    source: &str,
    file_name: &str,
) -> rquickjs::Result<Vec<u8>> {
    let flags = qjs::JS_WRITE_OBJ_BYTECODE | qjs::JS_WRITE_OBJ_STRIP_SOURCE;
    compile_with(ctx, source, file_name, flags)
}

fn compile_with(
    ctx: &Ctx<'_>,
    source: &str,
    file_name: &str,
    write_flags: u32,
) -> rquickjs::Result<Vec<u8>> {
    // NUL-terminated, as `JS_Eval` requires; a NUL inside the source stays part of it.
    let mut text = Vec::with_capacity(source.len() + 1);
    text.extend_from_slice(source.as_bytes());
    text.push(0);
    let file_name = CString::new(file_name.replace('\0', ""))?;
    let flags =
        qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_STRICT | qjs::JS_EVAL_FLAG_COMPILE_ONLY;
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `raw` is the live context `ctx` borrows (its runtime is locked by `Context::with`);
    // `text` is NUL-terminated and the length passed excludes the NUL, as `JS_Eval` requires.
    // The function value it returns is owned here and freed below; the buffer `JS_WriteObject`
    // returns is copied, then freed with `js_free`.
    unsafe {
        let function = qjs::JS_Eval(
            raw,
            text.as_ptr().cast(),
            source.len() as _,
            file_name.as_ptr(),
            flags as _,
        );
        if qjs::JS_IsException(function) {
            return Err(rquickjs::Error::Exception);
        }
        let mut size: qjs::size_t = 0;
        let buffer = qjs::JS_WriteObject(raw, &mut size, function, write_flags as _);
        qjs::JS_FreeValue(raw, function);
        if buffer.is_null() {
            return Err(rquickjs::Error::Exception);
        }
        let bytes = std::slice::from_raw_parts(buffer, size as usize).to_vec();
        qjs::js_free(raw, buffer.cast());
        Ok(bytes)
    }
}

/// Loads `bytecode` (from [`compile`]) into `ctx` and runs it: the script's completion value.
pub(crate) fn run<'js>(ctx: &Ctx<'js>, bytecode: &[u8]) -> rquickjs::Result<Value<'js>> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `raw` is the live context `ctx` borrows; `bytecode` was written by `compile` in this
    // process (same QuickJS build), so `JS_ReadObject` reads a well-formed function.
    // `JS_EvalFunction` takes ownership of the function value; the result value is handed to an
    // rquickjs `Value`, which owns it from then on.
    unsafe {
        let function = qjs::JS_ReadObject(
            raw,
            bytecode.as_ptr(),
            bytecode.len() as _,
            qjs::JS_READ_OBJ_BYTECODE as _,
        );
        if qjs::JS_IsException(function) {
            return Err(rquickjs::Error::Exception);
        }
        let result = qjs::JS_EvalFunction(raw, function);
        if qjs::JS_IsException(result) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(Value::from_raw(ctx.clone(), result))
    }
}
