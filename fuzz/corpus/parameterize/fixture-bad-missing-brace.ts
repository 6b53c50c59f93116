// covers: malformed input: a block never closed (missing `}`) -> diagnostics with line/column, no panic.
// expect: nodes [] edges []; one parse diagnostic, syntax-error "expected '}', got '<eof>'",
//   at line 8, column 1 (just after line 7: the last position of THIS file, never a line of the builder's wrapper
//   function; the wrapper's own `}` must not silently close the if and hide the error). No panic.
const file = await mcp.filesystem.read_text_file({ path: "a.txt" });
if (file.exists) {
  await mcp.filesystem.write_file({ path: "b.txt", content: file.content });
