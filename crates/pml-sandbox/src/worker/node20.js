// The built-ins of standards later than Node 20's that QuickJS has: a program using one fails
// in Node (not a function, not defined), so it must fail here too, and a code task that
// speculation computes ahead must fail as the program would. Run once in every context
// (programs' and code tasks'), before anything else.
(function (globals) {
  const protoOf = Object.getPrototypeOf;
  const iteratorPrototype = protoOf(protoOf([][Symbol.iterator]()));
  // A code task's context has no typed arrays and no weak references.
  const AB = globals.ArrayBuffer;
  const U8 = globals.Uint8Array;
  const WM = globals.WeakMap;
  const absent = [
    [globals, ["Iterator", "Float16Array", "DisposableStack", "AsyncDisposableStack", "SuppressedError", "InternalError"]],
    [Object, ["groupBy"]],
    [Map, ["groupBy"]],
    [Array, ["fromAsync"]],
    [Promise, ["withResolvers", "try"]],
    [Math, ["sumPrecise", "f16round"]],
    [JSON, ["rawJSON", "isRawJSON"]],
    [RegExp, ["escape"]],
    [Error, ["isError"]],
    [Map.prototype, ["getOrInsert", "getOrInsertComputed"]],
    [WM?.prototype, ["getOrInsert", "getOrInsertComputed"]],
    [Set.prototype, ["union", "intersection", "difference", "symmetricDifference", "isSubsetOf", "isSupersetOf", "isDisjointFrom"]],
    [AB?.prototype, ["detached", "immutable", "sliceToImmutable", "transfer", "transferToFixedLength", "transferToImmutable"]],
    [U8?.prototype, ["setFromBase64", "setFromHex", "toBase64", "toHex"]],
    [U8, ["fromBase64", "fromHex"]],
    [iteratorPrototype, ["chunks", "constructor", "drop", "every", "filter", "find", "flatMap", "forEach", "includes", "join", "map", "reduce", "some", "take", "toArray", "windows", Symbol.dispose, Symbol.toStringTag]],
  ];
  for (const [owner, keys] of absent) {
    if (owner === undefined) continue;
    for (const key of keys) if (key !== undefined) delete owner[key];
  }
})
