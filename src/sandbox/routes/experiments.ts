/**
 * Experiments and metric sources (spec 4.4): create a qualifying event (metric source),
 * disable experiment groups, list metric sources.
 */
import type { Hono } from 'hono';
import { badRequest, listPage, notFound, ok, parseBody } from '../http.js';
import { DisableGroupsBody, QualifyingEventBody } from '../schemas.js';
import type { MetricSource } from '../types.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function registerExperiments(app: Hono<SandboxEnv>, { state, now }: RouteDeps) {
  app.post('/experiments/qualifying_events', (c) => {
    const body = parseBody(QualifyingEventBody, c.get('body'));
    if (state.metricSources.has(body.name)) {
      throw badRequest(`A metric source named ${body.name} already exists.`, [
        { property: 'name', errorMessage: 'is already used by another metric source' },
      ]);
    }
    const { dryRun, owner: _owner, ...fields } = body;
    // A source created through this API has no owner (spec 2.7).
    const source = {
      description: '',
      tags: [],
      timestampAsDay: false,
      sourceType: 'query',
      tableName: '',
      customFieldMapping: [],
      isReadOnly: false,
      isVerified: false,
      team: null,
      teamID: null,
      ...stripUndefined(fields),
    } as MetricSource;
    if (!dryRun) state.metricSources.set(source.name, source);
    return ok(c, 'Qualifying event created successfully.', {
      name: source.name,
      description: source.description,
      tags: source.tags,
      sql: source.sql,
      timestampColumn: source.timestampColumn,
      timestampAsDay: source.timestampAsDay,
      idTypeMapping: source.idTypeMapping,
      sourceType: source.sourceType,
      tableName: source.tableName,
    });
  });

  app.post('/experiments/:id/disable_groups', (c) => {
    const id = c.req.param('id');
    const experiment = state.experiments.get(id);
    if (!experiment) throw notFound(`Experiment ${id} not found.`);
    const body = parseBody(DisableGroupsBody, c.get('body'));
    const known = new Set(experiment.groups.map((g) => g.name));
    const unknown = body.group_names.map((name, i) => ({ name, i })).filter(({ name }) => !known.has(name));
    if (unknown.length > 0) {
      throw badRequest(
        `Experiment ${id} has no group named ${unknown.map((u) => u.name).join(', ')}.`,
        unknown.map(({ name, i }) => ({
          property: `group_names[${i}]`,
          errorMessage: `unknown group ${name}`,
        })),
      );
    }
    const names = new Set(body.group_names);
    let changed = false;
    for (const group of experiment.groups) {
      if (names.has(group.name) && !group.disabled) {
        group.disabled = true;
        changed = true;
      }
    }
    if (changed) {
      const actor = c.get('actor');
      experiment.version += 1;
      experiment.lastModifiedTime = now();
      experiment.lastModifierID = actor.actorID;
      experiment.lastModifierName = actor.actorName;
    }
    return ok(c, 'Experiment groups disabled successfully.', experiment);
  });

  app.get('/metrics/metric_source/list', (c) => {
    const all = [...state.metricSources.values()];
    return listPage(
      c,
      'Metric sources listed successfully.',
      '/console/v1/metrics/metric_source/list',
      all.length,
      (o, l) => all.slice(o, o + l),
    );
  });
}

function stripUndefined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
