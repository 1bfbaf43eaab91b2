/**
 * `npm run slack:manifest -- --url <webhook URL>`: prints the Slack app manifest as JSON on
 * stdout; a usage error goes to stderr with exit code 2.
 */
import { pathToFileURL } from 'node:url';
import { buildSlackManifest, MANIFEST_USAGE, ManifestUsageError, parseManifestArgs } from './manifest.js';

export function runManifestCli(
  argv: readonly string[],
  io: { out: (text: string) => void; err: (text: string) => void },
): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`${MANIFEST_USAGE}\n`);
    return 0;
  }
  try {
    io.out(`${JSON.stringify(buildSlackManifest(parseManifestArgs(argv)), null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ManifestUsageError) {
      io.err(`slack:manifest: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = runManifestCli(process.argv.slice(2), {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  });
}
