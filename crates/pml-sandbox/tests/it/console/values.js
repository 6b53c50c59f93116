// What `console` prints for many kinds of values: `tests/it/console.rs` runs this program in
// the sandbox and in Node (`node`) and compares the output. Each entry: the arguments of one
// `console.log` call.
class Foo { constructor() { this.a = 1; this.b = [1, 2]; } }
class Bar extends Foo {}
const circ = { name: "c" }; circ.self = circ; circ.list = [circ, { back: circ }];
const two = { x: {} }; two.x.y = two; two.z = two.x;
const sparse = [1, , 3]; sparse[10] = 9;
const arrProps = [1, 2]; arrProps.extra = "e";
const nul = Object.create(null); nul.k = 1;
const withGetter = { get g() { return 1; }, set s(v) {}, get gs() { return 1; }, set gs(v) {}, plain: 2 };
const sym = Symbol("tag");
const long = "x".repeat(30) + "\n" + "y".repeat(60) + "\nend";
const fnWithProps = function named() {}; fnWithProps.extra = 1;
const corpus = [
  [{ a: 1 }],
  [{ a: 1, b: "two", c: [1, 2, 3], d: { e: { f: { g: 1 } } } }],
  [[1, 2, 3]],
  [[]],
  [{}],
  ["hello", "world", 1, true, null, undefined],
  ["%s is %d years and %i, %f", "Bob", 42.5, "42.9px", "3.5e2"],
  ["%j and %o and %O", { a: [1, 2] }, [1, { b: 2 }], { c: { d: { e: { f: 1 } } } }],
  ["100%% done %c styled", "color: red"],
  ["%s %s", "only one"],
  ["%x unknown", 1],
  ["no placeholders", { a: 1 }],
  [new Foo(), new Bar()],
  [circ],
  [two],
  [sparse, arrProps],
  [nul],
  [withGetter],
  [{ [sym]: 1, "key with space": 2, "ok_key": 3, 'quote\'s': "it's", both: `it's "x"`, tick: 'a\'b"c`d' }],
  [sym, 10n, -0, 0, NaN, Infinity],
  [function foo() {}, () => {}, async function bar() {}, function* gen() {}, async function* ag() {}, class K {}, class L extends Foo {}, fnWithProps],
  [new Map([["a", 1], [{ k: 1 }, [1, 2]]]), new Set([1, "two", { three: 3 }]), new Map(), new Set()],
  [new Date(0), new Date(NaN), /ab+c/gi],
  [Array.from({ length: 30 }, (_, i) => i * 3)],
  [Array.from({ length: 120 }, (_, i) => i)],
  [Array.from({ length: 10 }, (_, i) => "item" + i)],
  [Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i).repeat(i % 5 + 1))],
  [{ users: [{ id: 1, name: "ada", roles: ["admin", "dev"], meta: { created: "2024-01-01", tags: { a: 1 } } }, { id: 2, name: "bob", roles: [], meta: null }] }],
  [{ text: long }],
  [[long]],
  ["top level\nstring", "😀".slice(0, 1)],
  [{ lone: "a\ud83db", ctrl: "tab\there\u0001\u007f" }],
  [[undefined, null, , 1]],
  [new Number(3), new String("str"), new Boolean(false), Object(1n), Object(Symbol("s"))],
  [{ a: { b: { c: { d: { e: 1 } } } } }],
  [[[[[1]]]], [[[[]]]]],
  [{ aaaaaaaaaa: 1, bbbbbbbbbb: 2, cccccccccc: 3, dddddddddd: 4, eeeeeeeeee: 5, ffffffffff: 6 }],
  [{ aaaaaaaaaa: 1, bbbbbbbbbb: 2, cccccccccc: 3, dddddddddd: 4, eeeeeeeeee: 5, ffffffffff: 6, gg: 7 }],
  [new Uint8Array([1, 2, 3]), new ArrayBuffer(4), new Float64Array(2)],
  [Buffer.from("hi"), Buffer.alloc(0), { file: Buffer.alloc(51, 1), list: [Buffer.from([255, 0])] }],
  [Buffer.alloc(52), Buffer.from("héllo").subarray(1)],
  [new WeakMap(), new WeakSet()],
  ["%s", { a: { b: 1 } }, "%s", [1, [2, [3]]]],
  ["%s", null, undefined, 5n, Symbol("q")],
  ["%d %i %f", "abc", {}, 12n],
  ["%o", [1, 2, { a: 1 }]],
  ["%o", { f: 1, g: "x" }],
  [{ 1: "one", "-1": "neg", "01": "zero-one" }],
  [Object.assign(Object.create({ inherited: 1 }), { own: 2 })],
  [[{ a: 1, b: 2 }, { a: 3, b: 4 }]],
  [{ nested: [{ deep: [{ deeper: [1] }] }] }],
  [{ fn: function () {}, arrow: () => 1, method() {} }],
  [[1.5, -2, 300000, 4e21, 1e-7, 6, 7, 8]],
  [[true, false, true, false, true, false, true]],
];

for (let i = 0; i < corpus.length; i++) {
  console.log("#" + i);
  console.log(...corpus[i]);
}
const p1 = Promise.resolve(5);
const p2 = new Promise(() => {});
const p3 = Promise.reject(new Error("no"));
p3.catch(() => {});
console.log(p1, p2, { p: p1 });
// Traps never run: the target is printed.
console.log(new Proxy({ a: 1 }, { get: () => { throw new Error("trap ran"); } }), new Proxy([1, 2], {}));
console.log("%o", new Proxy({ a: 1 }, {}));
console.group("Group");
console.log({ a: 1, b: [1, 2] });
console.group();
console.info("two\nlines");
console.groupEnd();
console.groupEnd();
console.warn("out");
console.count();
console.count("x");
console.count();
console.assert(false, "bad %s", "thing");
console.assert(0);
console.assert(false, { a: 1 });
console.assert(true, "never");
console.dir({ a: { b: { c: { d: 1 } } } }, { depth: 0 });
console.error(new Map([[{ k: [1, { deep: { deeper: 1 } }] }, new Set([[1, 2]])]]));
const big = {};
for (let i = 0; i < 40; i++) big["key" + i] = i % 3 === 0 ? "v".repeat(i) : i;
console.log(big);
console.log(Array.from({ length: 200 }, (_, i) => ({ i })).slice(0, 3), "x".repeat(12000).length);
console.log(["x".repeat(10005)]);
console.table([{ a: 1, b: "x" }, { a: 22, c: true }]);
console.table(["p", "q"]);
console.table({ r1: { c: 1 }, r2: { c: [1, 2, 3, 4] } });
console.table(new Map([["k", { v: 1 }]]));
console.table(new Set([1, "s"]));
console.table([{ a: 1, b: 2 }], ["b"]);
console.table(5);
console.table([[1, 2], [3]]);
console.table([{ a: { x: 1, y: 2, z: 3 } }, 7]);
console.log(["日本", "中文字", "😀", "👍🏽", "👨‍👩‍👧", "é", "e\u0301", "ｱｲ", "x", "yy", "\u00ad"]);
console.log(Array.from({ length: 12 }, (_, i) => "表".repeat(i % 4 + 1)));
console.table([{ name: "東京", emoji: "🗼" }, { name: "Paris", emoji: "🥐" }]);
console.log("%j|%j|%j", circ, undefined, { a: [1n].length });
console.group("in a group");
console.table([{ id: 1 }]);
console.groupEnd();
return "done";
