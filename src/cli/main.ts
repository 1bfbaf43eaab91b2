/**
 * Entry point of `npx autopilot` (via bin/autopilot.js): the process's streams, environment
 * and clock, then exit with the command's code.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { runCli } = await import('./run.js');

/** A yes/no question on the terminal (prompt on stderr); only when stdin is one. */
async function confirm(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
  ...(process.stdin.isTTY ? { confirm } : {}),
});
process.exitCode = code;
