/**
 * Loading the project's own entry points (handlers, sandbox) by path at run time. The local
 * stack sets the environment first, because the handlers read it — and validate the policy —
 * when their module loads, exactly as a Lambda cold start does. A module that does not exist
 * yet is reported as absent; one that exists but fails to load fails loudly.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export type Absent = { absent: string };

/**
 * Imports `<repo>/<relative>.ts`. Resolves `{ absent: why }` when the file does not exist or
 * imports a module that does not exist (a part still being written); any other failure — an
 * invalid policy, a missing variable — is thrown, as a cold start would fail.
 */
export async function importIfPresent<T>(relative: string): Promise<T | Absent> {
  const file = resolve(REPO_ROOT, `${relative}.ts`);
  if (!existsSync(file)) return { absent: `${relative}.ts does not exist yet` };
  try {
    return (await import(pathToFileURL(file).href)) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND')
      return { absent: `${relative}.ts cannot load yet: ${(error as Error).message.split('\n')[0]}` };
    throw error;
  }
}

export function isAbsent(value: unknown): value is Absent {
  return typeof value === 'object' && value !== null && 'absent' in value;
}
