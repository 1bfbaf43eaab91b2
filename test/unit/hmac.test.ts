/**
 * src/util/hmac.ts computes HMAC-SHA256 by RFC 2104 from one-shot hashes, with each key's padded
 * blocks made once: it must give exactly what `createHmac` gives, for every key length (a key
 * longer than SHA-256's 64-byte block is hashed first), for keys in any script, and for each key
 * of several in turn (a key rotated in must never be answered with another key's blocks).
 */
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, sha256Hex } from '../../src/util/hmac.js';
import { slackSignature } from '../../src/webhook/slack-signature.js';

const reference = (key: string, ...parts: Array<string | Uint8Array>) => {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
};

describe('hmacSha256', () => {
  it('is createHmac for keys shorter than, as long as and longer than a block, in any script', () => {
    const body = new TextEncoder().encode('team_id=T0001&user_id=U0ADMIN&text=approve+trg_1+ph_1');
    for (const key of [
      'k',
      'a'.repeat(63),
      'b'.repeat(64),
      'c'.repeat(65),
      'd'.repeat(200),
      'ключ-🔑-鍵',
      'é'.repeat(40),
    ])
      expect(hmacSha256(key, 'v0:1531420618:', body).toString('hex')).toBe(
        reference(key, 'v0:1531420618:', body),
      );
  });

  it('answers each key with its own MAC when keys alternate (a key rotated in and out)', () => {
    const keys = ['signing-secret-one', 'signing-secret-two', 'x'.repeat(70)];
    for (let round = 0; round < 3; round++)
      for (const key of keys) expect(hmacSha256(key, 'body').toString('hex')).toBe(reference(key, 'body'));
    // More keys than the blocks kept: the oldest are made again, never mixed up.
    for (let i = 0; i < 40; i++)
      expect(hmacSha256(`key-${i}`, 'm').toString('hex')).toBe(reference(`key-${i}`, 'm'));
    expect(hmacSha256(keys[0] as string, 'body').toString('hex')).toBe(reference(keys[0] as string, 'body'));
  });

  it('is createHmac on any key and parts (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 150, unit: 'binary' }),
        fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 300 })), {
          maxLength: 4,
        }),
        (key, parts) => {
          expect(hmacSha256(key, ...parts).toString('hex')).toBe(reference(key, ...parts));
        },
      ),
    );
  });

  it("makes Slack's v0 signature as createHmac does", () => {
    const body = 'token=xyz&team_id=T1&text=%F0%9F%94%91';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', '1531420618', body)).toBe(
      `v0=${reference('8f742231b10e8888abcd99yyyzzz85a5', `v0:1531420618:${body}`)}`,
    );
  });
});

describe('sha256Hex', () => {
  it('is createHash for text and bytes', () => {
    for (const data of ['', 'slack body', new Uint8Array([0, 1, 2, 255])])
      expect(sha256Hex(data)).toBe(createHash('sha256').update(data).digest('hex'));
  });
});
