// covers: GAP of the TS original: `capabilities.name()` detected in every form: with args, with no args, without await, bracket name.
// expect: 4 capability nodes, no task: c1 capabilityId "summarize_text" text=parameter(text); c2 capabilityId "extract_tags" (no arguments);
//   c3 capabilityId "notify_owner" summary=reference `c1.text` (no await); c4 capabilityId "fetch-weather" city=literal "Paris".
//   edges: c1->c2->c3->c4 sequence. variableBindings {summary: c1, tags: c2, weather: c4}.
const summary = await capabilities.summarize_text({ text: args.text });
const tags = await capabilities.extract_tags();
capabilities.notify_owner({ summary: summary.text });
const weather = await capabilities["fetch-weather"]({ city: "Paris" });
