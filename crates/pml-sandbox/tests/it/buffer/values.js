// `Buffer` as programs use it (`tests/it/buffer.rs` runs this in the sandbox and in Node and
// compares the results).
const out = [];
let label = "";
const t = (f) => {
  out.push(label + String(f).slice(6));
  try {
    const v = f();
    // (Strings as their code units: a lone surrogate is no JSON the test harness reads.)
    const units = (s) => { const u = []; for (let i = 0; i < s.length; i++) u.push(s.charCodeAt(i)); return ["units", u]; };
    out.push(Buffer.isBuffer(v) ? ["buffer", v.toString("hex")] : typeof v === "string" ? units(v) : v);
  } catch (e) {
    out.push([e.name, e.code, e.message]);
  }
};
const texts = ["", "hi", "héllo wörld", "😀 emoji", "\ud83d lone", "a\u0000b", "ÿ\u0100"];
const encodings = ["utf8", "utf-8", "UTF8", "hex", "base64", "base64url", "latin1", "binary", "ascii", "utf16le", "ucs2"];
for (const s of texts) {
  for (const enc of encodings) {
    label = `${JSON.stringify(s)} ${enc}: `;
    t(() => Buffer.from(s, enc));
    t(() => Buffer.from(s, enc).toString(enc));
    t(() => Buffer.byteLength(s, enc));
  }
}
// Decoding is lenient.
label = "";
for (const b64 of ["aGk=", "aGk", "aG k=", "aGk=trailing", "a", "ab", "abc", "abcd", "ab==cd", "-_-_", "+/+/", "!!aGk", "aGVsbG8gd29ybGQ=\n"]) {
  label = `${JSON.stringify(b64)}: `;
  t(() => Buffer.from(b64, "base64").toString("latin1"));
  t(() => Buffer.from(b64, "base64url").toString("hex"));
}
for (const hex of ["", "0", "00", "abc", "ABCD", "zz00", "00zz11", "0g"]) {
  label = `${JSON.stringify(hex)}: `;
  t(() => Buffer.from(hex, "hex"));
}
for (const bytes of [[0xff, 0xfe], [0xe2, 0x82], [0xc0, 0x80, 0x41], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98, 0x80, 0x80]]) {
  label = `${JSON.stringify(bytes)}: `;
  t(() => Buffer.from(bytes).toString());
  t(() => Buffer.from(bytes).toString("ascii"));
  t(() => Buffer.from(bytes).toString("utf16le"));
}
label = "";
// Other sources.
t(() => Buffer.from([1, 256, -1, 3.7, "5", "x"]));
t(() => Buffer.from(new Uint16Array([1, 258])));
t(() => Buffer.from(new Uint8Array([9, 8, 7]).buffer, 1, 1));
t(() => Buffer.from({ type: "Buffer", data: [104, 105] }).toString());
t(() => Buffer.from({ length: 2, 0: 65, 1: 66 }).toString());
t(() => Buffer.from(Buffer.from("copy")).toString());
t(() => Buffer.from(new String("boxed")).toString());
t(() => Buffer.from("x", "nope"));
t(() => Buffer.from(5));
t(() => Buffer.from(undefined));
t(() => Buffer.from(null));
t(() => Buffer.alloc(4, "ab"));
t(() => Buffer.alloc(3, 1));
t(() => Buffer.alloc(5, "aGk=", "base64"));
t(() => Buffer.alloc(-1));
t(() => Buffer.alloc("3"));
// Whole-buffer operations.
const a = Buffer.from("hello world");
t(() => a.length);
t(() => a.toString("utf8", 6));
t(() => a.toString("utf8", 2, 5));
t(() => a.toString("hex", -3, 100));
t(() => a.slice(0, 5).toString());
t(() => a.subarray(-5).toString());
t(() => a.slice(-5, -1).toString());
t(() => JSON.stringify(Buffer.from("hi")));
t(() => JSON.stringify({ file: Buffer.from([1, 2]) }));
t(() => Buffer.concat([Buffer.from("ab"), Buffer.from("cd"), new Uint8Array([101])]).toString());
t(() => Buffer.concat([Buffer.from("abc"), Buffer.from("def")], 4).toString());
t(() => Buffer.concat([Buffer.from("ab")], 5).toString("hex"));
t(() => Buffer.concat([]).length);
t(() => Buffer.concat(["x"]));
t(() => Buffer.compare(Buffer.from("a"), Buffer.from("b")));
t(() => [Buffer.from("b"), Buffer.from("a"), Buffer.from("ab")].sort(Buffer.compare).map((b) => b.toString()));
t(() => a.equals(Buffer.from("hello world")));
t(() => a.equals(Buffer.from("hello")));
t(() => a.compare(Buffer.from("hello")));
t(() => [a.indexOf("o"), a.indexOf("o", 5), a.lastIndexOf("o"), a.indexOf(111), a.indexOf(Buffer.from("wor")), a.indexOf("zz"), a.includes("world"), a.indexOf(""), a.indexOf("o", -3)]);
t(() => { const b = Buffer.alloc(8); const n = b.write("héllo", 1); return [n, b.toString("hex")]; });
t(() => { const b = Buffer.alloc(3); return [b.write("héllo"), b.toString("hex")]; });
t(() => { const b = Buffer.alloc(6); b.write("ffee", 2, "hex"); return b.toString("hex"); });
t(() => { const b = Buffer.alloc(6); return [Buffer.from("xyz").copy(b, 2), b.toString("hex")]; });
t(() => Buffer.alloc(5).fill("ab").toString());
t(() => Buffer.alloc(5).fill(255, 1, 3).toString("hex"));
t(() => [Buffer.isBuffer(a), Buffer.isBuffer(new Uint8Array(1)), Buffer.isBuffer("a")]);
t(() => [Buffer.isEncoding("hex"), Buffer.isEncoding("UTF-8"), Buffer.isEncoding("nope"), Buffer.isEncoding("")]);
t(() => [a instanceof Uint8Array, a instanceof Buffer, Object.prototype.toString.call(a), typeof Buffer, Buffer.name, Buffer.poolSize]);
t(() => [...Buffer.from("hi")]);
t(() => Buffer.from("hi").map((x) => x + 1).toString());
t(() => Array.from(Buffer.from("abc").entries()));
t(() => Buffer.byteLength(new Uint8Array(7)));
t(() => Buffer.byteLength(5));
t(() => Buffer.from("aGVsbG8=", "base64").toString("base64url"));
// A media file as an MCP server returns one, decoded and measured.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
t(() => { const bytes = Buffer.from(png, "base64"); return [bytes.length, bytes.subarray(1, 4).toString("ascii"), bytes.readUInt32BE(16), bytes.readUInt32BE(20), bytes.readUInt8(24)]; });
const n = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9]);
t(() => [n.readUInt8(1), n.readUInt16BE(1), n.readUint16LE(0), n.readUInt32LE(2), n.readInt8(0), n.readInt16LE(7), n.readInt32BE(5), n.readDoubleLE(1), n.readFloatBE(0), n.readUInt8()]);
t(() => n.readUInt32BE(7));
t(() => n.readUInt8(1.5));
t(() => n.readUInt8("1"));
t(() => n.readUInt8(-1));
t(() => Buffer.alloc(2).readDoubleLE(0));
for (const s of ["aGk😀", "aG😀k=", "😀aGk", "aGké"]) {
  label = `${JSON.stringify(s)}: `;
  t(() => Buffer.from(s, "base64"));
}
label = "";
t(() => Buffer.alloc(NaN));
t(() => Buffer.alloc(1.5).length);
return out;
