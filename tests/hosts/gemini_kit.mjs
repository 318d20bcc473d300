// Drives Gemini CLI's own shipped code for tests/test_real_hosts.py: its settings loader, its hook
// runner (command expansion, shell, output parsing) and its matcher, imported from the installed bundle
// (chunks found by what they export, so a new build's file names do not matter).
//   node gemini_kit.mjs BUNDLE < {"ops": [{"op": "load", "workspace": DIR},
//                                         {"op": "run", "event": NAME, "command": CMD, "input": {...}},
//                                         {"op": "match", "matcher": RE, "tool": NAME}]}
// Answers one line "RESULT [...]" (Gemini's debug logger also writes to stdout).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const bundle = process.argv[2];

function chunkWith(...needles) {
  for (const name of fs.readdirSync(bundle).sort()) {
    if (!name.endsWith(".js")) continue;
    const text = fs.readFileSync(path.join(bundle, name), "utf8");
    if (needles.every((n) => text.includes(n))) return pathToFileURL(path.join(bundle, name)).href;
  }
  throw new Error(`no chunk of ${bundle} holds ${needles.join(" + ")}`);
}

const request = JSON.parse(fs.readFileSync(0, "utf8"));
const results = [];
let core = null, cli = null;
for (const op of request.ops) {
  if (op.op === "load") {
    cli ??= await import(chunkWith("function _doLoadSettings(", "  loadSettings,"));
    const loaded = cli.loadSettings(op.workspace);
    results.push({ trusted: loaded.isTrusted, errors: loaded.errors ?? null, hooks: loaded.merged?.hooks ?? null });
    continue;
  }
  core ??= await import(chunkWith("var HookRunner = class", "  HookRunner,", "  HookPlanner,", "  createHookOutput,"));
  if (op.op === "match") {
    const planner = Object.create(core.HookPlanner.prototype);
    results.push({ matches: planner.matchesToolName(op.matcher, op.tool) });
  } else if (op.op === "run") {
    const runner = Object.create(core.HookRunner.prototype);
    runner.config = { storage: { getPlansDir: () => path.join(op.input.cwd, ".gemini", "plans") }, sanitizationConfig: {} };
    const result = await runner.executeCommandHook({ type: "command", command: op.command, timeout: 60000 }, op.event, op.input, Date.now());
    const out = result.output ?? null;
    const typed = out ? core.createHookOutput(op.event, out) : null;
    results.push({
      success: result.success, exitCode: result.exitCode ?? null, output: out, outputFormat: result.outputFormat ?? null,
      error: result.error ? String(result.error) : null,
      expanded: runner.expandCommand(op.command, op.input, core.getShellConfiguration().shell),
      ask: typed ? typed.isAskDecision() : false, blocking: typed ? typed.getBlockingError() : null,
      systemMessage: typed ? typed.systemMessage ?? null : null, context: typed ? typed.getAdditionalContext() ?? null : null,
    });
  } else {
    results.push({ error: `unknown op ${op.op}` });
  }
}
process.stdout.write("\nRESULT " + JSON.stringify(results) + "\n");
process.exit(0);
