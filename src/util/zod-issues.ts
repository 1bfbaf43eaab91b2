/**
 * Turning zod issues into words that keep the path, e.g.
 * `approvals.rules[0].windows[1].start: expected HH:MM`. Used wherever a bad input must
 * be reported (a DLQ attribute, a policy file error, a request-body error).
 */
import type { z } from 'zod';

/** `a.b[0].c` from a zod issue path; `(root)` for the whole value. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** One line per issue: `path: message`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ');
}
