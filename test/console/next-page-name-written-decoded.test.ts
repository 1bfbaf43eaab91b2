/**
 * Review of 28a4894 (nextPage links restricted to the first page's path). The check compares the
 * paths as encoded text, but the client encodes a path segment with encodeURIComponent (`:` as
 * `%3A`, `@` as `%40`, `,` as `%2C`) while a server writing the event name back decoded, the very
 * case that commit names, writes them as they are, which is the same path and the same endpoint.
 * The metrics of event `checkout:done` then ended after their first page in a PaginationError.
 * Only a link whose segments decode to other segments (`a%2Fb` written `a/b`) is another endpoint.
 */
import { describe, expect, it } from 'vitest';
import { PaginationError } from '../../src/console/errors.js';
import { resolvePageLink } from '../../src/console/pagination.js';

describe('resolvePageLink, a path segment written back decoded', () => {
  const base = 'https://api.example.com';
  const current = 'https://api.example.com/console/v1/events/checkout%3Adone%40web/metrics?page=1&limit=10';

  it('follows the same endpoint written with the characters the client encoded', () => {
    expect(
      resolvePageLink('/console/v1/events/checkout:done@web/metrics?page=2&limit=10', current, base),
    ).toBe('https://api.example.com/console/v1/events/checkout:done@web/metrics?page=2&limit=10');
    // Lower-case hex is the same octet.
    expect(
      resolvePageLink('/console/v1/events/checkout%3adone%40web/metrics?page=2', current, base),
    ).toBeTypeOf('string');
  });

  it('still refuses a decoded / (another endpoint) and another segment', () => {
    const slash = 'https://api.example.com/console/v1/events/a%2Fb/metrics?page=1';
    expect(() => resolvePageLink('/console/v1/events/a/b/metrics?page=2', slash, base)).toThrow(
      PaginationError,
    );
    expect(() => resolvePageLink('/console/v1/events/checkout/metrics?page=2', current, base)).toThrow(
      PaginationError,
    );
  });
});
