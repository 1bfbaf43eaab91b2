/**
 * What `autopilot policy check` warns about approval rules that are legal but do not do what their
 * writer means: a rule an earlier rule always matches first (it never decides), and a window too
 * short for a request deferred to it to be looked at while it is open. Said only when provable from
 * the policy alone: a warning that is not true would teach people to ignore them. Pure.
 */
import type { ApprovalRule, Policy } from './schema.js';
import type { PolicyWarning } from './warnings.js';

/**
 * True when every value `glob` matches is matched by `cover`, as far as a simple reading proves it:
 * `*`; the same glob; a `prefix*` whose prefix begins the glob's text before its first `*`; a
 * `*suffix` whose suffix ends the text after its last `*`. Any other pair: false (not known).
 */
export function globCovers(cover: string, glob: string): boolean {
  if (cover === '*' || cover === glob) return true;
  const stars = cover.split('*').length - 1;
  if (stars !== 1) return false;
  if (cover.endsWith('*')) {
    const star = glob.indexOf('*');
    return (star < 0 ? glob : glob.slice(0, star)).startsWith(cover.slice(0, -1));
  }
  if (cover.startsWith('*')) return glob.slice(glob.lastIndexOf('*') + 1).endsWith(cover.slice(1));
  return false;
}

const LISTS = ['requesters', 'triggers', 'phases'] as const;

/** For each of `later`'s lists, the covering globs of `earlier` in words; undefined unless every glob is covered. */
function coverWords(earlier: ApprovalRule, later: ApprovalRule): string[] | undefined {
  const words: string[] = [];
  for (const list of LISTS) {
    const pairs = later.when[list].map((glob) => [glob, earlier.when[list].find((c) => globCovers(c, glob))]);
    if (pairs.some(([, cover]) => cover === undefined)) return undefined;
    // Both "*" (a list left to its default) goes without saying.
    if (pairs.every(([glob, cover]) => glob === '*' && cover === '*')) continue;
    words.push(
      `${list} ${pairs.map(([glob, cover]) => (glob === cover ? `"${glob}"` : `"${glob}" within "${cover}"`)).join(', ')}`,
    );
  }
  return words;
}

const OUTCOME_WORDS: Record<ApprovalRule['decision'], string> = {
  approve: 'approves them',
  deny: 'denies them',
  ask: 'asks a person about them',
};

/**
 * First match wins on requesters, triggers and phases alone: an earlier rule whose lists cover a
 * later rule's takes all its requests. Its windows and maxPerHour do not pass one on (outside them
 * it defers or denies the request itself), so they do not lift the shadow.
 */
export function shadowedRuleWarnings(policy: Policy): PolicyWarning[] {
  const rules = policy.approvals.rules;
  return rules.flatMap((later, index) => {
    for (let i = 0; i < index; i++) {
      const earlier = rules[i] as ApprovalRule;
      const words = coverWords(earlier, later);
      if (words === undefined) continue;
      const has = [earlier.windows && 'windows', earlier.maxPerHour !== undefined && 'maxPerHour'].filter(
        Boolean,
      );
      const limits =
        has.length > 0
          ? ` (its ${has.join(' and ')} pass no request on: outside ${has.length > 1 ? 'them' : 'it'} it defers or denies the request itself)`
          : '';
      const matched = words.length > 0 ? `: ${words.join('; ')}` : ': every list is "*"';
      return [
        {
          code: 'rule-shadowed',
          where: `approvals.rules "${later.name}"`,
          message:
            `never decides: rule ${i + 1} "${earlier.name}" comes first and matches every request rule ${index + 1} matches${matched}. ` +
            `First match wins, so "${earlier.name}" ${OUTCOME_WORDS[earlier.decision]}${limits}; ` +
            `if "${later.name}" is the exception, move it above "${earlier.name}"`,
        },
      ];
    }
    return [];
  });
}
