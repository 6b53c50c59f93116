// An immediately invoked async function: its body is a function node, called once right there.
const summary = await (async () => {
  const page = await mcp.everything.echo({ message: "page 1" });
  return page.content[0].text.toUpperCase();
})();
return summary;
