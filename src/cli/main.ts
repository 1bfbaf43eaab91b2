/**
 * Entry point of `npx autopilot` (via bin/autopilot.js): the process's streams, environment
 * and clock, then exit with the command's code.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { runCli } = await import('./run.js');

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
});
process.exitCode = code;
