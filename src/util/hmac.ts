/**
 * SHA-256 and HMAC-SHA256 for the request path. A queued mutation makes three (the request id
 * hashes Slack's body, Slack's signature and the requester proof are HMACs), and Node 20's
 * `createHmac` builds a keyed stream object on every call: ~3 µs of the ~4 µs an HMAC of a Slack
 * body costs (measured). Here the key's padded blocks are made once per key, and each HMAC is two
 * one-shot `crypto.hash` calls, RFC 2104 as written: H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message)),
 * K the key's UTF-8 bytes (hashed first when longer than a block), zero-padded to 64 bytes:
 * exactly what `createHmac('sha256', key)` computes (test/unit/hmac.test.ts checks it against
 * createHmac). Where `crypto.hash` is missing (Node before 20.12), `createHmac` and `createHash`.
 */
import * as crypto from 'node:crypto';

const BLOCK_BYTES = 64;
/** The newest keys only: the current ones and one just rotated out (the scrubber keeps 16 too). */
const MAX_KEYS = 16;

/** Whether this Node has one-shot `crypto.hash` (≥ 20.12, ≥ 21.7). */
const ONE_SHOT = typeof crypto.hash === 'function';

interface Pads {
  inner: Buffer;
  outer: Buffer;
}
const padsByKey = new Map<string, Pads>();

function padsOf(key: string): Pads {
  let pads = padsByKey.get(key);
  if (pads) return pads;
  let bytes = Buffer.from(key, 'utf8');
  if (bytes.length > BLOCK_BYTES) bytes = crypto.createHash('sha256').update(bytes).digest();
  const inner = Buffer.alloc(BLOCK_BYTES, 0x36);
  const outer = Buffer.alloc(BLOCK_BYTES, 0x5c);
  for (let i = 0; i < bytes.length; i++) {
    inner[i] = (inner[i] as number) ^ (bytes[i] as number);
    outer[i] = (outer[i] as number) ^ (bytes[i] as number);
  }
  pads = { inner, outer };
  padsByKey.set(key, pads);
  if (padsByKey.size > MAX_KEYS) padsByKey.delete(padsByKey.keys().next().value as string);
  return pads;
}

const bytesOf = (part: string | Uint8Array): Uint8Array =>
  typeof part === 'string' ? Buffer.from(part, 'utf8') : part;

/** HMAC-SHA256 of the parts, one after the other (strings as UTF-8), under `key` (as UTF-8). */
export function hmacSha256(key: string, ...parts: Array<string | Uint8Array>): Buffer {
  if (!ONE_SHOT) {
    const hmac = crypto.createHmac('sha256', key);
    for (const part of parts) hmac.update(part);
    return hmac.digest();
  }
  const { inner, outer } = padsOf(key);
  const innerHash = crypto.hash('sha256', Buffer.concat([inner, ...parts.map(bytesOf)]), 'buffer');
  return crypto.hash('sha256', Buffer.concat([outer, innerHash]), 'buffer');
}

/** SHA-256 of `data`, in hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return ONE_SHOT
    ? crypto.hash('sha256', data, 'hex')
    : crypto.createHash('sha256').update(data).digest('hex');
}
