/**
 * KeyRing.scrub skips its own scan for the transport's keys when the process scrubber holds every
 * one of them and proves a text free of all its forms (src/console/key-ring.ts). A key the process
 * scrubber no longer holds (pushed out of its newest-16 window, or too short to be told) must still
 * be redacted from every reply, and so must a key still held.
 */
import { describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/console/key-ring.js';
import { holdsNoForm, rememberSecret } from '../../src/util/secret-scrub.js';

const CLEAN = '{"message":"Segment read successfully.","data":{"id":"beta_testers","type":"id_list"}}';
const echo = (key: string) => `{"message":"read with ${key}","data":{"id":"beta","type":"id_list"}}`;
const REDACTED = '{"message":"read with [redacted]","data":{"id":"beta","type":"id_list"}}';

describe('a transport key in a reply', () => {
  it('is redacted while the process scrubber holds it, and after it was pushed out of its window', () => {
    const keys = new KeyRing();
    const key = keys.remember('ring-key-6c1f0e9a2d');
    expect(keys.scrub(CLEAN)).toBe(CLEAN);
    expect(keys.scrub(echo(key))).toBe(REDACTED);
    // Newer secrets push it out of the process scrubber: only the ring still knows it.
    for (let n = 0; n < 16; n++) rememberSecret(`newer-secret-${n}-bbbbbbbbbbbb`);
    expect(keys.scrub(CLEAN)).toBe(CLEAN);
    expect(keys.scrub(echo(key))).toBe(REDACTED);
    // Told again (a provider's key is told on every read): held, and redacted, once more.
    keys.remember(key);
    expect(keys.scrub(echo(key))).toBe(REDACTED);
  });

  it('is redacted when it is too short for the process scrubber (4 to 7 characters)', () => {
    const keys = new KeyRing();
    keys.remember('a-long-key-held-by-the-process');
    expect(keys.scrub(CLEAN)).toBe(CLEAN); // every key held, so far
    const key = keys.remember('k-5e1a');
    expect(keys.scrub(CLEAN)).toBe(CLEAN);
    expect(keys.scrub(echo(key))).toBe(REDACTED);
  });

  it('is redacted for every key of a ring that one key of is no longer held', () => {
    const keys = new KeyRing();
    const old = keys.remember('old-ring-key-1a2b3c4d');
    for (let n = 0; n < 16; n++) rememberSecret(`pusher-${n}-cccccccccccccccc`);
    const current = keys.remember('new-ring-key-5e6f7a8b');
    expect(keys.scrub(CLEAN)).toBe(CLEAN);
    expect(keys.scrub(echo(old))).toBe(REDACTED);
    expect(keys.scrub(echo(current))).toBe(REDACTED);
  });

  it('is redacted when spelled with escapes among plain characters, in a reply proven free of every form', () => {
    const keys = new KeyRing();
    const key = keys.remember('ring-key-0d9c8b7a6f');
    // Every other character percent-encoded: no form of the key (each is spelled one way throughout).
    const mixed = [...key]
      .map((c, at) => (at % 2 ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c))
      .join('');
    const text = echo(mixed);
    // The reply takes the path that skips the forms' scan (the proof given once, not twice)…
    expect(holdsNoForm(text)).toBe(true);
    // …and its escaped run is still found and redacted.
    expect(keys.scrub(text)).toBe(REDACTED);
    expect(keys.scrub(`{"u":"${[...key].map((c) => (c === '-' ? '\\u002d' : c)).join('')}"}`)).toBe(
      '{"u":"[redacted]"}',
    );
  });
});
