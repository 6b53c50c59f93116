// covers: switch fall-through: an empty case sharing the next case's body, and a non-empty case without break falling into the next one.
// expect: 5 nodes. n1 task api:get_job id=parameter(jobId); d1 decision condition `n1.status`;
//   n2 task api:wait_job id=parameter(jobId); n3 task api:fetch_result id=parameter(jobId); n4 task api:report_failure id=parameter(jobId).
//   edges: n1->d1 sequence; d1->n2 conditional "case:queued"; d1->n2 conditional "case:running";
//   d1->n3 conditional "case:done"; n2->n3 sequence (fall-through from "running" into "done"); d1->n4 conditional "default".
//   n3 (break) has no edge to n4.
const job = await mcp.api.get_job({ id: args.jobId });
switch (job.status) {
  case "queued":
  case "running":
    await mcp.api.wait_job({ id: args.jobId });
  case "done":
    await mcp.api.fetch_result({ id: args.jobId });
    break;
  default:
    await mcp.api.report_failure({ id: args.jobId });
}
