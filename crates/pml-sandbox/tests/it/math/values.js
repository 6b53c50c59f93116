// `Math` and `**` on inputs of every kind: `tests/it/math.rs` runs this program in the sandbox
// and in Node and compares the results (to the last bit: the JSON of a number is exact).
const out = [];
let seed = 20261128;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const keep = (v) => (Object.is(v, -0) ? "-0" : Number.isNaN(v) ? "NaN" : v);
const special = [0, -0, 1, -1, 2, -2, 0.5, -0.5, 3, -3, 2.5, Infinity, -Infinity, NaN, 5e-324, 1e-310, 1e308, -1e308, 2 ** 31, 2 ** 53, 2 ** 64, 1 + 2 ** -52, 1 - 2 ** -53, 1024, -1075, 0.1, 1 / 3];
const group = (name, f, inputs) => out.push([name, inputs.map((args) => keep(f(...args)))]);
const many = (n, make) => Array.from({ length: n }, make);

// Powers as programs write them: growth over years, roots, squares, scales.
group("growth", (r, n) => (1 + r) ** n, many(500, () => [Math.round(random() * 2000) / 10000, Math.floor(random() * 40)]));
group("pow", Math.pow, many(500, () => [random() * 100, random() * 6 - 3]));
group("pow integers", (x, y) => x ** y, many(300, () => [Math.floor(random() * 1000) - 500, Math.floor(random() * 9)]));
group("roots", (x, y) => x ** (1 / y), many(300, () => [random() * 1000, 2 + Math.floor(random() * 5)]));
group("pow special", (x, y) => x ** y, special.flatMap((x) => special.map((y) => [x, y])));
group("pow assign", (x, y) => { let v = x; v **= y; return v; }, [[1.0725, 3], [1.07, 3], [10, -2], [2, 0.5]]);

const unary = { exp: 40, expm1: 40, log: 1000, log2: 1000, sin: 40, cos: 40, tan: 40, asin: 2, acos: 2, atan: 40, sinh: 40, cosh: 40, asinh: 40, acosh: 100, atanh: 2 };
for (const [name, scale] of Object.entries(unary)) {
  const f = Math[name];
  const low = name === "log" || name === "log2" || name === "acosh" ? (name === "acosh" ? 1 : 0) : -scale / 2;
  const width = name === "acosh" ? scale : name === "log" || name === "log2" ? scale : scale;
  group(name, f, many(400, () => [low + random() * width]).concat(special.map((x) => [x])));
}
group("atan2", Math.atan2, many(400, () => [random() * 40 - 20, random() * 40 - 20]).concat(special.flatMap((x) => special.slice(0, 14).map((y) => [x, y]))));
group("cbrt", Math.cbrt, many(400, () => [random() * 2000 - 1000]).concat(many(200, () => [10 ** (random() * 600 - 300)]), special.map((x) => [x])));
group("hypot", Math.hypot, many(400, () => [random() * 200 - 100, random() * 200 - 100]));
group("hypot 3", Math.hypot, many(200, () => [random() * 10, random() * 1e3, random() * 1e-3]));
group("hypot special", Math.hypot, [[], [-0], [3, 4], [NaN, Infinity], [NaN, 1], [1e200, 1e200], [1e-200, 1e-200], [5e-324, 5e-324], ["3", { valueOf: () => 4 }]]);
out.push(["hypot length", Math.hypot.length, Math.hypot.name]);
// A haversine distance (sin, cos, atan2, sqrt), as a program over coordinates computes it.
const rad = (d) => (d * Math.PI) / 180;
const haversine = (a, b, c, d) => {
  const h = Math.sin(rad(c - a) / 2) ** 2 + Math.cos(rad(a)) * Math.cos(rad(c)) * Math.sin(rad(d - b) / 2) ** 2;
  return 2 * 6371 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
};
group("haversine", haversine, many(300, () => [random() * 180 - 90, random() * 360 - 180, random() * 180 - 90, random() * 360 - 180]));
// What a report computes: logarithms of counts, sines of whole degrees, growth rates.
const integers = Array.from({ length: 2000 }, (_, i) => [i + 1]);
for (const name of ["log", "log10", "log1p", "log2", "sqrt"]) group(`${name} of counts`, Math[name], integers);
for (const name of ["sin", "cos", "tan"]) group(`${name} of degrees`, (d) => Math[name]((d * Math.PI) / 180), Array.from({ length: 721 }, (_, d) => [d - 360]));
for (const name of ["sinh", "cosh", "tanh", "asinh", "atanh"]) group(`${name} of small values`, Math[name], many(300, () => [(random() - 0.5) * 10 ** (random() * 20 - 19)]));
group("sin of large angles", Math.sin, many(300, () => [random() * 800000]));
group("cos of large angles", Math.cos, many(300, () => [-random() * 800000]));
return out;
