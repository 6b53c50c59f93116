// covers: literal arguments: string, integer, float, boolean, null, negative number, array, nested object, nested array.
// expect: 1 node. n1 task api:create_job with arguments, all type literal:
//   name "nightly-export"; priority 3; ratio 0.75; dryRun false; owner null; negative -1; tags ["etl","nightly"];
//   schedule {"cron":"0 3 * * *","timezone":"UTC","retry":{"attempts":2,"backoffMs":500}}; matrix [[1,2],[3,4]].
//   Argument order as written. edges: none.
await mcp.api.create_job({
  name: "nightly-export",
  priority: 3,
  ratio: 0.75,
  dryRun: false,
  owner: null,
  negative: -1,
  tags: ["etl", "nightly"],
  schedule: { cron: "0 3 * * *", timezone: "UTC", retry: { attempts: 2, backoffMs: 500 } },
  matrix: [[1, 2], [3, 4]],
});
