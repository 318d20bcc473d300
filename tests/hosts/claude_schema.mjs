// Validates hook answers with Claude Code's own hook-output schema (tests/hostkit.claude_hook_schema_js cuts
// it out of the shipped binary) evaluated with zod 4, the way Claude Code reads a command hook's stdout:
// JSON.parse, then <schema>().safeParse; keys the schema does not know are reported as Claude Code's
// "unrecognized keys" warning does (they are stripped, so the field would be silently ignored).
//   node claude_schema.mjs HOSTS_DIR SCHEMA.js < {"outputs": ["<stdout>", ...]}
// Answers one line "RESULT [{success, issues, unrecognized}, ...]".
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.argv[2], "node_modules", "noop.js"));
const zod = require("zod");
const source = fs.readFileSync(process.argv[3], "utf8");
const context = { console };
vm.createContext(context);
vm.runInContext("var ZOD_NAMES, LAZY_NAME;" + source.split("\n").slice(0, 2).join("\n"), context);
for (const name of context.ZOD_NAMES) context[name] = zod;
context[context.LAZY_NAME] = (build) => { let made; return () => (made ??= build()); };
vm.runInContext(source, context);
const schema = context.HOOK_OUTPUT_SCHEMA();

function unrecognized(input, data) {
  const out = [];
  if (!input || typeof input !== "object" || Array.isArray(input)) return out;
  for (const key of Object.keys(input)) if (!(key in data)) out.push(key);
  const a = input.hookSpecificOutput, b = data.hookSpecificOutput;
  if (a && typeof a === "object" && b && typeof b === "object")
    for (const key of Object.keys(a)) if (!(key in b)) out.push(`hookSpecificOutput.${key}`);
  return out;
}

const request = JSON.parse(fs.readFileSync(0, "utf8"));
const results = request.outputs.map((text) => {
  let value;
  try { value = JSON.parse(text); } catch (e) { return { success: false, issues: [`not JSON: ${e.message}`], unrecognized: [] }; }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    return { success: false, issues: parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`), unrecognized: [] };
  return { success: true, issues: [], unrecognized: unrecognized(value, parsed.data) };
});
process.stdout.write("RESULT " + JSON.stringify(results) + "\n");
