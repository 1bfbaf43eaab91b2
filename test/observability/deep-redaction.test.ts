/**
 * Redaction has no depth it stops at. The logger redacted secret-named keys and scrubbed known
 * secrets only down to depth 4, then handed what lay below to JSON.stringify raw: a `token` six
 * levels down, an ApiError's `authorization` header nested in a field, a known secret spelled with
 * a `"` (which JSON escapes, so the last scrub of the line no longer recognised it) were all
 * written in the clear. Error names and causes past the second were not looked at either. Now
 * every level is redacted down to a cap, what lies past it (or loops back) is replaced by a
 * marker, and the line is still written.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';

/** A secret JSON must escape (`"` and `\`): the serialized line spells it differently. */
const SECRET = 'db-pass"word\\with-quote-42';
const UNKNOWN = 'xoxb-unregistered-slack-token-123';

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ service: 'worker', level: 'debug', sink: (line) => lines.push(line) });
  return { logger, lines };
}

/** `leaf` wrapped in `levels` plain objects (`{ n: { n: … leaf } }`). */
function nested(leaf: unknown, levels: number): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
}

/** What a reader of the line can see: the line itself and it parsed back to text. */
function readable(line: string): string {
  return `${line}\n${JSON.stringify(JSON.parse(line), null, 0).replace(/\\(.)/g, '$1')}`;
}

describe('a log line', () => {
  it('never writes a secret-named key in the clear, however deep it is nested', () => {
    const { logger, lines } = capture();
    for (const key of ['token', 'apiKey', 'secret', 'authorization', 'password', 'signature', 'cookie']) {
      for (const levels of [3, 6, 12, 40])
        logger.info('deep', { payload: nested({ [key]: UNKNOWN }, levels) });
    }
    expect(lines).toHaveLength(28);
    for (const line of lines) {
      expect(line).not.toContain(UNKNOWN);
      expect(JSON.parse(line).logError).toBeUndefined();
    }
    // Shallow ones are redacted in place; deep ones are cut at the cap with a marker.
    expect(JSON.parse(lines[0] as string).payload).toEqual(nested({ token: '[redacted]' }, 3));
    expect(lines[3]).toContain('"[nested too deep]"');
  });

  it("never writes an error's secret headers nested in its fields", () => {
    const { logger, lines } = capture();
    // What an ApiError serializes to (its toJSON): response headers and body beside the message.
    class ResponseError extends Error {
      headers = { authorization: `Bearer ${UNKNOWN}`, 'set-cookie': `session=${UNKNOWN}` };
      toJSON(): object {
        return { ...this, message: this.message };
      }
    }
    const apiError = new ResponseError('Forbidden');
    logger.error('call failed', { context: nested({ error: apiError }, 6) });
    expect(lines[0]).not.toContain(UNKNOWN);
  });

  it('scrubs a known secret from values, keys, error names, messages and causes at any depth', () => {
    rememberSecret(SECRET);
    const { logger, lines } = capture();
    let error: Error = new Error(`innermost: bad password ${SECRET}`);
    for (let i = 0; i < 5; i++) error = new Error(`wrapped ${i}`, { cause: error });
    const named = Object.assign(new Error('odd'), { name: `Err ${SECRET}` });
    logger.warn('peer echoed it', {
      body: nested({ text: `the peer said ${SECRET}` }, 7),
      [`key ${SECRET}`]: 1,
      byKey: nested({ [SECRET]: 'value' }, 2),
      error,
      named,
    });
    const line = lines[0] as string;
    expect(readable(line)).not.toContain(SECRET);
    expect(readable(line)).not.toContain('pass"word');
    // The cause chain is kept (scrubbed) well past its second link.
    expect(line).toContain('innermost: bad password [redacted]');
  });

  it('marks a cycle and still writes the rest of the line', () => {
    const { logger, lines } = capture();
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = nested(loop, 5);
    const error = new Error('self-caused');
    error.cause = error;
    logger.error('cyclic', { loop, error, keep: 'this' });
    const parsed = JSON.parse(lines[0] as string);
    expect(parsed.logError).toBeUndefined();
    expect(parsed.keep).toBe('this');
    expect(lines[0]).toContain('"[circular]"');
    expect(parsed.error).toEqual({ name: 'Error', message: 'self-caused', cause: '[circular]' });
  });
});
