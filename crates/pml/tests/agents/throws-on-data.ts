// covers: an uncaught TypeError thrown after a read
const f = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
const data = JSON.parse(f.content);
if (data.users.length > 2) {
  throw new TypeError(`too many users: ${data.users.length}`);
}
return data;
