/**
 * The Embedded Metric Format specification, as a checker: the structure (the spec's JSON
 * Schema, transcribed) and the rules a schema cannot say (every dimension and metric named in a
 * directive is a root member of the right type; limits on counts). Returns the problems found.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';

const UNITS = [
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
];

const schema = {
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      properties: {
        Timestamp: { type: 'integer', minimum: 0 },
        CloudWatchMetrics: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            properties: {
              Namespace: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[^:].*$' },
              Dimensions: {
                type: 'array',
                items: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 30,
                  items: { type: 'string', minLength: 1, maxLength: 250 },
                },
              },
              Metrics: {
                type: 'array',
                minItems: 1,
                maxItems: 100,
                items: {
                  type: 'object',
                  required: ['Name'],
                  properties: {
                    Name: { type: 'string', minLength: 1, maxLength: 1024 },
                    Unit: { enum: UNITS },
                    StorageResolution: { enum: [1, 60] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

type Directive = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] };

export function emfProblems(line: string): string[] {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(line);
  } catch {
    return ['not JSON'];
  }
  if (!validate(doc)) return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  const problems: string[] = [];
  const directives = (doc._aws as { CloudWatchMetrics: Directive[] }).CloudWatchMetrics;
  for (const directive of directives) {
    for (const set of directive.Dimensions) {
      for (const name of set) {
        const value = doc[name];
        if (typeof value !== 'string' || value.length === 0 || value.length > 1024)
          problems.push(`dimension ${name} is not a non-empty string member (${JSON.stringify(value)})`);
      }
    }
    for (const { Name } of directive.Metrics) {
      const value = doc[Name];
      const ok =
        typeof value === 'number'
          ? Number.isFinite(value)
          : Array.isArray(value) && value.length <= 100 && value.every((v) => typeof v === 'number');
      if (!ok) problems.push(`metric ${Name} has no numeric value (${JSON.stringify(value)})`);
    }
  }
  return problems;
}
