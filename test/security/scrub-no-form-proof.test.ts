/**
 * The scrubber skips its scan of the forms when `holdsNoForm` proves none occurs in a text
 * (src/util/secret-scrub.ts: runs of characters sampled at a fixed step against a bitmap of the
 * forms' runs). That proof must never be wrong: on random texts holding forms of random secrets (and
 * pieces of them) at random positions, a "no form here" must mean no form is there, and a form put
 * in whole must be redacted. And it must be worth having: a clean reply gets the proof.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

/** A scrubber of its own (the module's state is process-wide): knowing only what the test tells it. */
async function freshScrubber() {
  vi.resetModules();
  return import('../../src/util/secret-scrub.js');
}

const BODY =
  '{"message":"Segment read successfully.","data":{"id":"beta_testers","isEnabled":true,' +
  '"description":"Users in beta testers","lastModifierName":"Edsger Dijkstra","lastModifierID":"usr_5",' +
  '"type":"id_list","count":667,"tags":[]}}';

/** Secrets from 8 characters (the shortest told: the proof's step is tightest) up, any characters. */
const secret = fc.oneof(
  fc.string({ minLength: 8, maxLength: 12, unit: fc.constantFrom(...'abcXYZ0189-_./%\\&<>+=') }),
  fc.string({ minLength: 8, maxLength: 40, unit: 'grapheme' }),
  fc.string({ minLength: 8, maxLength: 24 }),
);
/** A text: filler and forms (whole or cut) of the known secrets, at random places. */
const piece = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ maxLength: 30, unit: fc.constantFrom(...'abcdef0123456789%\\uXYZ=-_') }),
  fc.record({ form: fc.nat(), from: fc.nat(), cut: fc.nat(), whole: fc.boolean() }),
);

describe('the proof that no form of a secret occurs', () => {
  it('is given for a clean reply (the scan it saves is then skipped)', async () => {
    const { holdsNoForm, rememberSecret, scrubSecrets } = await freshScrubber();
    rememberSecret('sandbox-key');
    expect(holdsNoForm(BODY)).toBe(true);
    expect(scrubSecrets(BODY)).toBe(BODY);
    expect(holdsNoForm(BODY.replace('beta_testers', 'sandbox-key'))).toBe(false);
  });

  it('is never given for a text that holds a form, and every whole form is redacted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(secret, { minLength: 1, maxLength: 3 }),
        fc.array(piece, { maxLength: 8 }),
        async (told, pieces) => {
          const { holdsNoForm, knownForms, rememberSecret, scrubSecrets } = await freshScrubber();
          for (const value of told) rememberSecret(value);
          const forms = knownForms();
          const inserted: string[] = [];
          const text = pieces
            .map((p) => {
              if (typeof p === 'string') return p;
              const form = forms[p.form % forms.length] as string;
              if (p.whole) {
                inserted.push(form);
                return form;
              }
              const from = p.from % form.length;
              return form.slice(from, from + 1 + (p.cut % (form.length - from)));
            })
            .join('');
          const present = forms.filter((form) => text.includes(form));
          if (present.length > 0) expect(holdsNoForm(text)).toBe(false);
          if (holdsNoForm(text)) expect(present).toEqual([]);
          const scrubbed = scrubSecrets(text);
          for (const form of inserted) expect(scrubbed).not.toContain(form);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('finds a shortest form at every position of a text', async () => {
    const { holdsNoForm, rememberSecret, scrubSecrets } = await freshScrubber();
    const value = 'q7#Lm2!z'; // 8 characters: its raw form is the shortest of all known
    rememberSecret(value);
    const filler = 'The quick brown fox jumps over the lazy dog; '.repeat(3);
    for (let at = 0; at <= filler.length; at++) {
      const text = filler.slice(0, at) + value + filler.slice(at);
      expect(holdsNoForm(text)).toBe(false);
      expect(scrubSecrets(text)).toBe(`${filler.slice(0, at)}[redacted]${filler.slice(at)}`);
    }
  });
});
