/**
 * The Lambda adapter's headers (src/webhook/event-headers.ts) answer as Node's Headers answers
 * for the same calls: the same values, the same iteration (name order, `set-cookie` apart), the
 * same refusals (a TypeError), and they initialize a real Headers, Request or Response.
 */
import { describe, expect, it } from 'vitest';
import { EventHeaders } from '../../src/webhook/event-headers.js';

type Op = [method: 'set' | 'append' | 'delete', name: string, value?: string];

/** The same operations on both; every way of reading them afterwards. */
function readBoth(ops: Op[]) {
  const ours = new EventHeaders();
  const theirs = new Headers();
  for (const [method, name, value] of ops) {
    if (method === 'delete') {
      ours.delete(name);
      theirs.delete(name);
    } else {
      ours[method](name, value as string);
      theirs[method](name, value as string);
    }
  }
  const read = (h: EventHeaders | Headers) => {
    const each: Array<[string, string]> = [];
    h.forEach((value, name) => {
      each.push([name, value]);
    });
    return {
      entries: [...h],
      each,
      keys: [...h.keys()],
      values: [...h.values()],
      get: ['Content-Type', 'x-multi', 'SET-COOKIE', 'absent'].map((name) => h.get(name)),
      has: ['content-type', 'X-Multi', 'set-cookie', 'absent'].map((name) => h.has(name)),
      cookies: h.getSetCookie(),
    };
  };
  return { ours: read(ours), theirs: read(theirs), made: ours };
}

describe('the event headers', () => {
  it('read as a Headers reads after the same sets, appends and deletes', () => {
    const { ours, theirs } = readBoth([
      ['set', 'X-Multi', 'one'],
      ['append', 'x-multi', ' two\t'],
      ['set', 'Content-Type', 'application/x-www-form-urlencoded'],
      ['append', 'Set-Cookie', 'a=1'],
      ['append', 'set-cookie', 'b=2'],
      ['set', 'zeta', ''],
      ['set', 'alpha', 'A'],
      ['delete', 'ALPHA'],
      ['set', 'x-slack-signature', 'v0=abc'],
    ]);
    expect(ours).toEqual(theirs);
    expect(ours.get).toEqual(['application/x-www-form-urlencoded', 'one, two', 'a=1, b=2', null]);
  });

  it('refuse the names and values a Headers refuses, with a TypeError', () => {
    for (const [name, value] of [
      ['bad name', 'x'],
      ['', 'x'],
      ['x-note', 'one\ntwo'],
      ['x-note', 'one\rtwo'],
      ['x-note', 'nul\0'],
      ['x-note', 'wide 日本'],
    ]) {
      expect(() => new Headers().set(name as string, value as string)).toThrow(TypeError);
      expect(() => new EventHeaders().set(name as string, value as string)).toThrow(TypeError);
      expect(() => new EventHeaders().append(name as string, value as string)).toThrow(TypeError);
    }
    expect(() => new EventHeaders().get('bad name')).toThrow(TypeError);
    // Latin-1 is a byte string: taken by both.
    expect(new EventHeaders({ 'x-note': 'Grüße' }).get('x-note')).toBe(
      new Headers({ 'x-note': 'Grüße' }).get('x-note'),
    );
  });

  it('initialize a real Headers, Request and Response, and say they are Headers', () => {
    const { made } = readBoth([
      ['set', 'content-type', 'application/json'],
      ['append', 'set-cookie', 'a=1'],
      ['append', 'set-cookie', 'b=2'],
    ]);
    const real = new Headers([...made]);
    expect(real.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(new Request('https://example.com/', { headers: [...made] }).headers.get('content-type')).toBe(
      'application/json',
    );
    expect(new Response('{}', { headers: made as unknown as Headers }).headers.get('content-type')).toBe(
      'application/json',
    );
    expect(Object.prototype.toString.call(made)).toBe('[object Headers]');
  });
});
