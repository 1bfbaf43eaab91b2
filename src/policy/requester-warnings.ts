/**
 * `policy check`'s `requester-never-matches`: a requester glob (an approval rule's
 * `when.requesters`, an action section's `requesters`) that passes the schema but that no request
 * can match, so the rule is silently dead or the people it names are refused. Requesters are
 * compared as is: `source:id`, the source one of REQUESTER_SOURCES in lower case, and for `slack`
 * the user id as Slack sends it (`U…`/`W…`, upper-case letters and digits: the webhook passes it on
 * unchanged). Said only where provable from the glob alone. Pure.
 */
import { REQUESTER_SOURCES } from '../actions/request.js';
import type { Policy } from './schema.js';
import type { PolicyWarning } from './warnings.js';

/**
 * True when some requester (`source:id`, the source one of REQUESTER_SOURCES, lower case) can
 * match `glob`: its text before the first `*` begins with such a source and its colon, or, when a
 * `*` follows, could still grow into one (`*`, `c*`, `*:nightly`).
 */
function canMatchARequester(glob: string): boolean {
  const star = glob.indexOf('*');
  const fixed = star < 0 ? glob : glob.slice(0, star);
  return REQUESTER_SOURCES.some((source) => {
    const head = `${source}:`;
    return fixed.startsWith(head) || (star >= 0 && head.startsWith(fixed));
  });
}

/**
 * True when a Slack user id as Slack sends it (`U…`/`W…`, then upper-case letters and digits)
 * can match `id`, the glob after `slack:`: every character but `*` is one, and it starts with
 * `U`, `W` or `*`.
 */
function canMatchASlackUser(id: string): boolean {
  return /^[A-Z0-9*]+$/.test(id) && /^[UW*]/.test(id);
}

/** Why no request can match `glob`, in words after `<field> "<glob>"`; undefined when one can. */
function whyNeverMatches(glob: string): string | undefined {
  const trimmed = glob.trim();
  if (trimmed !== glob) {
    return `has leading or trailing whitespace: requesters are compared as is, so it matches only one sent with the same spaces (write "${trimmed}")`;
  }
  if (!canMatchARequester(glob)) {
    return `can never match a request: a requester is <source>:<id>, the source one of ${REQUESTER_SOURCES.join(', ')} (lower case)`;
  }
  const id = /^slack:(.*)$/.exec(glob)?.[1];
  if (id === undefined || canMatchASlackUser(id)) return undefined;
  const upper = id.toUpperCase();
  const never = 'can never match a request: the webhook passes on the user id Slack sends';
  return canMatchASlackUser(upper)
    ? `${never}, and Slack user ids are upper case (write "slack:${upper}")`
    : `${never}, and "${id}" is no Slack user id (U… or W…, upper-case letters and digits: profile → ⋮ → Copy member ID)`;
}

/**
 * A requester glob no request can match (`github-actions/*`, `CI:*`, `slack:u0admin`,
 * `ci:deploy.yml ` with a stray space) passes the schema, and the rule is silently dead: its
 * requests go to the rules after it, or are denied by default.
 */
export function deadRequesterWarnings(policy: Policy): PolicyWarning[] {
  const lists = [
    ...policy.approvals.rules.map((rule) => ({
      where: `approvals.rules "${rule.name}"`,
      field: 'when.requesters',
      globs: rule.when.requesters,
      effect:
        'the requesters it was meant for never meet this rule: their requests fall to the rules after it, or are denied (approvals.otherwise)',
    })),
    ...(['disable_groups', 'archive_config'] as const).map((action) => ({
      where: `actions.${action}`,
      field: 'requesters',
      globs: policy.actions[action]?.requesters ?? [],
      effect: 'the requesters it was meant for are denied',
    })),
  ];
  return lists.flatMap(({ where, field, globs, effect }) =>
    globs.flatMap((glob) => {
      const why = whyNeverMatches(glob);
      if (why === undefined) return [];
      return [{ code: 'requester-never-matches', where, message: `${field} "${glob}" ${why}, so ${effect}` }];
    }),
  );
}
