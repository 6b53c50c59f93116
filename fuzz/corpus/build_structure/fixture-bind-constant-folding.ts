// covers: constant folding of const initialisers: + - * / % **, string concatenation, == === != !== < > <= >=, && ||, unary - + ! typeof; folded consts feeding later folds.
// expect: 1 node: n1 task everything:echo message=literal "John Doe" (`full` inlined). NO code:add / code:* nodes (every operand is known).
//   literalBindings: base 10; step 5; sum 15; prod 50; rem 1; pow 256; quot 2.5; first "John"; last "Doe"; full "John Doe"; label "v2"
//   (`"v" + 2`); isBig true; same true; loose true; differs false; notSame true; small false; le true; ge true; both true; either "fallback";
//   neg -10; pos 42; not false; kind "string".
const base = 10;
const step = 5;
const sum = base + step;
const prod = base * step;
const rem = base % 3;
const pow = 2 ** 8;
const quot = base / 4;
const first = "John";
const last = "Doe";
const full = first + " " + last;
const label = "v" + 2;
const isBig = base > step;
const same = base === 10;
const loose = base == 10;
const differs = step !== 5;
const notSame = step != base;
const small = base < step;
const le = step <= 5;
const ge = base >= 10;
const both = isBig && same;
const either = false || "fallback";
const neg = -base;
const pos = +"42";
const not = !isBig;
const kind = typeof full;
await mcp.everything.echo({ message: full });
