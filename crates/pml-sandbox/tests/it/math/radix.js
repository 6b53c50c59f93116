// Number.prototype.toString in every radix (worker/node20.js): `tests/it/math.rs` runs this program
// in the sandbox and in Node and compares the results.
const out = [];
const xs = [0.001, 0.1, 0.5, 1/3, 2/3, 123.456, -0.75, 1e-7, 5e-324, 1.7976931348623157e308, 2**53 + 2, 2**60, 1e21, 123456789.123456789, -99.99, 0.000123, 3.14159, 255.5, 1e-300, Math.PI * 1e10];
for (const r of [2, 3, 5, 7, 8, 11, 16, 20, 32, 36]) for (const x of xs) out.push(x.toString(r));
out.push((255).toString(16), (-255).toString(36), (0).toString(2), (-0).toString(7), NaN.toString(3), (1/0).toString(3));
for (let i = 0; i < 200; i++) { const x = Math.sin(i + 1) * 10 ** ((i % 40) - 20); out.push(x.toString(3 + (i % 34))); }
try { (1).toString(1); } catch (e) { out.push(e.message); }
try { Number.prototype.toString.call("x", 2); } catch (e) { out.push(e.constructor.name); }
out.push(new Number(10.5).toString(36), (10.5).toString("16"), (10.5).toString(16.9));
return out;
