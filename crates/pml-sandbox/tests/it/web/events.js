// Event, EventTarget, AbortController and AbortSignal: `tests/it/web.rs` runs this program in the
// sandbox and in Node and compares the results.
const out = [];
const t = (f) => { try { out.push(f()); } catch (e) { out.push([e.name, e.message, e.code]); } };
t(() => { const ac = new AbortController(); const s = ac.signal; const log = []; s.addEventListener("abort", (e) => log.push(["l", e.type, e.isTrusted, e.target === s, e.currentTarget === s, e.eventPhase, e.bubbles, e.cancelable])); s.onabort = (e) => log.push("on"); ac.abort(); ac.abort("again"); return [s.aborted, s.reason.name, s.reason.message, s.reason.code, s.reason instanceof DOMException, log, Object.keys(ac), Object.keys(s), JSON.stringify(s), String(ac), String(s)]; });
t(() => { const ac = new AbortController(); ac.abort("why"); return [ac.signal.reason]; });
t(() => { const s = AbortSignal.abort(); try { s.throwIfAborted(); } catch (e) { return [e.name, e.message]; } });
t(() => new AbortSignal());
t(() => new Event());
t(() => { const e = new Event("x", { cancelable: true }); e.preventDefault(); return [e.defaultPrevented, e.type, e.cancelable, e.bubbles, e.composed, e.eventPhase, e.target, e.returnValue, Object.keys(e), typeof e.timeStamp, Event.NONE, Event.AT_TARGET]; });
t(() => { const et = new EventTarget(); const log = []; const f = (e) => log.push(1); et.addEventListener("a", f); et.addEventListener("a", f); et.addEventListener("a", { handleEvent(e) { log.push(2); } }); et.addEventListener("a", () => log.push(3), { once: true }); const r1 = et.dispatchEvent(new Event("a")); const r2 = et.dispatchEvent(new Event("a")); et.removeEventListener("a", f); et.dispatchEvent(new Event("a")); return [log, r1, r2]; });
t(() => { const et = new EventTarget(); const log = []; et.addEventListener("a", (e) => { e.preventDefault(); log.push("x"); }); et.addEventListener("a", (e) => { e.stopImmediatePropagation(); log.push("y"); }); et.addEventListener("a", () => log.push("z")); return [et.dispatchEvent(new Event("a", { cancelable: true })), log]; });
t(() => { const ac = new AbortController(); const et = new EventTarget(); const log = []; et.addEventListener("a", () => log.push(1), { signal: ac.signal }); et.dispatchEvent(new Event("a")); ac.abort(); et.dispatchEvent(new Event("a")); return log; });
t(() => { const a = new AbortController(), b = new AbortController(); const s = AbortSignal.any([a.signal, b.signal]); b.abort("B"); return [s.aborted, s.reason]; });
t(() => new EventTarget().dispatchEvent("x"));
t(() => { const e = new Event("q"); const et = new EventTarget(); et.dispatchEvent(e); return et.dispatchEvent(e); });
t(() => [typeof AbortSignal.timeout, AbortSignal.timeout(10).aborted, Object.getOwnPropertyNames(AbortSignal.prototype).sort(), Object.getOwnPropertyNames(EventTarget.prototype).sort(), Object.getOwnPropertyNames(Event.prototype).sort(), Object.getOwnPropertyNames(AbortController.prototype).sort(), Object.getPrototypeOf(AbortSignal) === EventTarget]);
const s = AbortSignal.timeout(20); await new Promise((r) => setTimeout(r, 50)); out.push([s.aborted, s.reason.name, s.reason.message, s.reason.code]);
t(() => { const ac = new AbortController(); return [Object.getOwnPropertyNames(new Event("x")), ac.signal.onabort, typeof ac.abort]; });
t(() => { const et = new EventTarget(); et.addEventListener("a", null); et.addEventListener("a", 5); return "ok"; });
t(() => new EventTarget().addEventListener("a"));
t(() => [Object.keys(Event.prototype), Object.getOwnPropertyNames(AbortSignal.prototype), Object.keys(AbortSignal.prototype), Object.keys(AbortController.prototype), Object.keys(Event), Object.getOwnPropertyNames(Event.prototype)]);
t(() => { const et = new EventTarget(); const seen = []; et.addEventListener('x', function (e) { seen.push(this === et, e.composedPath().length); }); et.dispatchEvent(new Event('x')); return seen; });
return out;
