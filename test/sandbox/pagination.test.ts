import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { call, NOW } from './helpers.js';

const sandbox = createSandbox({ now: () => NOW, rateLimits: false });

describe('pagination', () => {
  it('defaults to page 1 with 10 items and no previous page', async () => {
    const r = await call(sandbox, 'GET', '/console/v1/segments');
    expect(r.json.data).toHaveLength(10);
    expect(r.json.pagination).toEqual({
      itemsPerPage: 10,
      pageNumber: 1,
      totalItems: sandbox.state.segments.size,
      nextPage: '/console/v1/segments?page=2&limit=10',
      previousPage: null,
      all: '/console/v1/segments',
    });
  });

  it('links both ways in the middle and ends with a null nextPage', async () => {
    const total = sandbox.state.segments.size;
    const lastPage = Math.ceil(total / 7);
    const middle = await call(sandbox, 'GET', '/console/v1/segments?page=2&limit=7');
    expect(middle.json.pagination.previousPage).toBe('/console/v1/segments?page=1&limit=7');
    expect(middle.json.pagination.nextPage).toBe('/console/v1/segments?page=3&limit=7');
    const last = await call(sandbox, 'GET', `/console/v1/segments?page=${lastPage}&limit=7`);
    expect(last.json.data).toHaveLength(total - (lastPage - 1) * 7);
    expect(last.json.pagination.nextPage).toBeNull();
    const beyond = await call(sandbox, 'GET', `/console/v1/segments?page=${lastPage + 1}&limit=7`);
    expect(beyond.json.data).toEqual([]);
    expect(beyond.json.pagination.nextPage).toBeNull();
  });

  it('visits every segment exactly once by following nextPage', async () => {
    const seen: string[] = [];
    let link: string | null = '/console/v1/segments?limit=4';
    for (let i = 0; link && i < 50; i++) {
      const r = await call(sandbox, 'GET', link);
      seen.push(...r.json.data.map((s: { id: string }) => s.id));
      link = r.json.pagination.nextPage;
    }
    expect(seen).toEqual([...sandbox.state.segments.keys()]);
  });

  it('paginates metric sources, metrics by event and events with their own paths', async () => {
    const sources = await call(sandbox, 'GET', '/console/v1/metrics/metric_source/list?page=2&limit=10');
    expect(sources.json.message).toBe('Metric sources listed successfully.');
    expect(sources.json.pagination).toMatchObject({
      totalItems: 25,
      nextPage: '/console/v1/metrics/metric_source/list?page=3&limit=10',
      previousPage: '/console/v1/metrics/metric_source/list?page=1&limit=10',
    });
    const metrics = await call(sandbox, 'GET', '/console/v1/events/page_view/metrics');
    expect(metrics.json.pagination.totalItems).toBeGreaterThan(10);
    expect(metrics.json.pagination.nextPage).toBe('/console/v1/events/page_view/metrics?page=2&limit=10');
    const events = await call(sandbox, 'GET', '/console/v1/events?page=3&limit=25');
    expect(events.json.data).toHaveLength(25);
    expect(events.json.pagination).toMatchObject({ totalItems: 2000, pageNumber: 3, itemsPerPage: 25 });
  });

  it('rejects a page or limit that is not a positive integer and clamps a huge limit', async () => {
    for (const q of ['page=0', 'limit=-1', 'limit=abc', 'page=1.5']) {
      const r = await call(sandbox, 'GET', `/console/v1/segments?${q}`);
      expect(r.status).toBe(400);
      expect(r.json.errors).toHaveLength(1);
    }
    const big = await call(sandbox, 'GET', '/console/v1/events?limit=100000');
    expect(big.json.pagination.itemsPerPage).toBe(1000);
    expect(big.json.data).toHaveLength(1000);
  });
});
