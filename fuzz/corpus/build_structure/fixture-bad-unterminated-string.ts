// covers: malformed input: an unterminated string literal -> diagnostic with line/column, no panic.
// expect: nodes [] edges []; the first parse diagnostic is "unterminated string"-like at line 4, column 58 (1-based: the opening quote of "a.txt),
//   numbered in this file (not the wrapper). Exact message text is the parser's; line/column must point into this file.
const file = await mcp.filesystem.read_text_file({ path: "a.txt });
await mcp.everything.echo({ message: "after" });
