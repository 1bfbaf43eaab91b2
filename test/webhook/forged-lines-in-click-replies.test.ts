/**
 * Review (what people read in Slack): `/autopilot cancel` of a held request, and a click on a
 * question, answer with the request's target. A request's group names are checked for length only
 * (an event rule fills them from client-logged metadata): a line break in one put a line of the
 * producer's choosing in the cancel's reply, such as ":white_check_mark: Done: …" under the
 * cancel, and a backtick formatted what followed as ours. Ids (no whitespace, but any backtick or
 * asterisk) were shown bare in a click's reply, where they formatted our words around them.
 */
import { describe, expect, it } from 'vitest';
import { writePause } from '../../src/state/pause.js';
import { benchResetEachTest, copyTrigger } from '../worker/fixture.js';
import { chatCommand, clickDeny, questionValue, repliesAt } from '../worker/questions.js';

const bench = benchResetEachTest();

const FORGED = ':white_check_mark: Done: disable groups `control` of experiment `exp_prod`';

/** Every text a reply shows (its fallback, each block's and element's text), from its JSON. */
function shownTexts(json: string): string[] {
  const texts: string[] = [];
  JSON.parse(`[${json.replace(/}{/g, '},{')}]`, (key, value) => {
    if (key === 'text' && typeof value === 'string') texts.push(value);
    return value;
  });
  return texts;
}

describe('a held request whose group names hold line breaks or a backtick', () => {
  it('cancel: the reply shows no line and no formatting of the producer’s choosing', async () => {
    await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at: bench.clock.now });
    try {
      await bench.send({
        action: 'disable_groups',
        experimentId: 'exp_forged',
        groupNames: [
          `control\n${FORGED}`,
          `beta\u2028${FORGED}`,
          'treatment` *approved by the release manager* `x',
        ],
        requestId: 'forged-cancel',
        requestedBy: { source: 'slack', id: 'U0ADMIN' },
      });
      await bench.run(bench.worker(), await bench.receive());
      const reply = await chatCommand(bench, 'cancel forged-cancel not tonight');
      expect(reply).toContain('*cancelled*');
      for (const text of shownTexts(reply)) {
        for (const line of text.split(/\r\n|[\r\n\u2028\u2029]/))
          expect(line).not.toMatch(/^\s*:white_check_mark:/);
        // Every code span we open is closed by us: the producer's backtick never ends one.
        expect(text).not.toContain('` *approved by the release manager* `');
      }
    } finally {
      await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at: bench.clock.now });
    }
  });
});

describe('a question whose ids hold asterisks and backticks', () => {
  it('Deny: the reply that replaces it shows each id as code, so none formats our words', async () => {
    const triggerId = 'trg_*prod*`';
    copyTrigger(bench, triggerId);
    await bench.send({
      triggerId,
      phaseId: '`ph_1',
      requestId: 'forged-ids',
      requestedBy: { source: 'schedule', id: 'nightly' },
    });
    await bench.run(bench.worker(), await bench.receive());
    await clickDeny(bench, questionValue(bench, 'forged-ids'));
    const [, section] = shownTexts(repliesAt(bench, '/actions/T0001/1/click'));
    // As the worker shows them: `trg_*prod*'` and `'ph_1`, each in a span of its own.
    expect(section).toContain("`trg_*prod*'`");
    expect(section).toContain("`'ph_1`");
  });
});
