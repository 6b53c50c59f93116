// An agent that posts one note per team, reusing one payload object for every call it starts
// at once (a bug Node runs as it is: the payload is read when each call is sent).
const hello = await mcp.everything.echo({ message: "starting" });
const payload = { message: "" };
const teams = ["infra", "web", "data"];
const posts = teams.map((team) => {
  payload.message = `deploy done for ${team}`;
  return mcp.everything.echo(payload);
});
const status = { message: "draft" };
const pending = mcp.everything.echo(status);
status.message = "final";
const replies = await Promise.all(posts);
return { hello, replies, status: await pending };
