/**
 * `node:util` parseArgs with the CLI's conventions: strict (an unknown flag is a usage
 * error), `--help` on every command, and a bound on positionals.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  help: boolean;
}

export function parse(
  args: string[],
  options: Options,
  usage: string,
  positionals: { min: number; max: number },
): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
  const values = parsed.values as Parsed['values'];
  const help = values.help === true;
  if (!help) {
    if (parsed.positionals.length < positionals.min) throw new UsageError('missing arguments', usage);
    if (parsed.positionals.length > positionals.max)
      throw new UsageError(`unexpected argument: ${parsed.positionals[positionals.max]}`, usage);
  }
  return { values, positionals: parsed.positionals, help };
}
