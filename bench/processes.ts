/**
 * The peers a measurement talks to, each in a process of its own, as they are other machines
 * for a Lambda: the Console API sandbox (`npm run sandbox`) and the AWS emulators (fauxqs, dynalite). The
 * measured code then shares its event loop and its CPU caches with nothing but itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { EmulatorOptions } from '../src/local/emulators.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The key the sandbox accepts (src/sandbox). */
export const SANDBOX_KEY = 'sandbox-key';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The sandbox in its own process, seeded with `events` events, no rate limits. */
export async function startSandboxProcess(events: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_EVENT_COUNT: String(events),
      SANDBOX_RATE_LIMITS: 'off',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${url}/console/v1/segments?limit=1`, {
        headers: { 'SERVICE-API-KEY': SANDBOX_KEY },
      });
      if (res.ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error('the sandbox process did not start within 20 s');
}

/** The AWS emulators of src/local/emulators.ts as another process sees them: endpoints and names. */
export interface EmulatorsProcess {
  sqsEndpoint: string;
  dynamodbEndpoint: string;
  queueUrl: string;
  dlqUrl: string;
  tableName: string;
  stop(): Promise<void>;
}

/**
 * The AWS emulators (fauxqs with the queue and its DLQ, dynalite with the state table) in their
 * own process; it stops when the child's stdin closes. The measured process builds its own SDK
 * clients on the endpoints, as a Lambda talks to SQS and DynamoDB on other machines.
 */
export async function startEmulatorsProcess(options: EmulatorOptions = {}): Promise<EmulatorsProcess> {
  const script = [
    'const { startEmulators } = await import(process.env.EMULATORS_MODULE);',
    'const e = await startEmulators(JSON.parse(process.env.EMULATOR_OPTIONS));',
    'const { sqsEndpoint, dynamodbEndpoint, queueUrl, dlqUrl, tableName } = e;',
    "process.stdout.write(JSON.stringify({ sqsEndpoint, dynamodbEndpoint, queueUrl, dlqUrl, tableName }) + '\\n');",
    "process.stdin.on('end', () => e.stop().then(() => process.exit(0)));",
    'process.stdin.resume();',
  ].join(' ');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: {
      ...process.env,
      EMULATOR_OPTIONS: JSON.stringify(options),
      EMULATORS_MODULE: new URL('../src/local/emulators.ts', import.meta.url).href,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    ...(JSON.parse(line) as Omit<EmulatorsProcess, 'stop'>),
    stop: async () => {
      const exited = once(child, 'exit');
      child.stdin?.end();
      await exited;
    },
  };
}
