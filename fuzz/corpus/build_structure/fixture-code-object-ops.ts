// covers: Object.keys / Object.values / Object.entries / Object.fromEntries / Object.assign, JSON.parse; a literal const used by a pure op.
// expect: 7 nodes, sequence n1->...->n7. n1 task filesystem:read_text_file path=literal "settings.json";
//   n2 code:JSON.parse `JSON.parse(file.content)`; n3 code:Object.keys `Object.keys(settings)`; n4 code:Object.values; n5 code:Object.entries;
//   n6 code:Object.fromEntries `Object.fromEntries(entries)`; n7 code:Object.assign `Object.assign({}, defaults, copy)`, defaults=literal {"retries": 3, "timeout": 1000}, copy=reference `n6`.
//   literalBindings {defaults: {"retries": 3, "timeout": 1000}}. variableBindings file n1, settings n2, keys n3, values n4, entries n5, copy n6, merged n7.
const defaults = { retries: 3, timeout: 1000 };
const file = await mcp.filesystem.read_text_file({ path: "settings.json" });
const settings = JSON.parse(file.content);
const keys = Object.keys(settings);
const values = Object.values(settings);
const entries = Object.entries(settings);
const copy = Object.fromEntries(entries);
const merged = Object.assign({}, defaults, copy);
