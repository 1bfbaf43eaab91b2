/**
 * Synthesizes the stack the way `infra/app.ts` does (same stack class, same cdk-nag plugin)
 * into a temporary directory, for template assertions. Bundling the handlers is the slow part,
 * so each test file synthesizes once; `bundle: false` skips it for variants that only look at
 * non-code resources.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AutopilotStack } from '../../infra/autopilot-stack.js';
import { readSettings } from '../../infra/context.js';
import { addNagChecks } from '../../infra/nag.js';

const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../../cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  }
).context;

export interface Synthesized {
  app: App;
  stack: AutopilotStack;
  assembly: CloudAssembly;
  template: Template;
  json: Record<string, unknown> & { Resources: Record<string, CfnResourceJson> };
  /** The directory holding the assembly; remove it with `cleanup()`. */
  outdir: string;
  cleanup(): void;
  /** The logical id of a construct's CloudFormation resource, e.g. `logicalId(stack.node.findChild('Secret'))`. */
  logicalId(path: string): string;
}

export interface CfnResourceJson {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export function synthesize(
  context: Record<string, unknown> = {},
  options: { bundle?: boolean; env?: { account: string; region: string } } = {},
): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'autopilot-cdk-'));
  const app = new App({
    outdir,
    // CDK's built-in CloudFormation schema check takes ~20 s here; `npm run synth` runs it, tests need not.
    builtinCloudFormationValidation: false,
    context: {
      // The feature flags of cdk.json, as `cdk synth` applies them.
      ...CDK_JSON_CONTEXT,
      consoleApiBaseUrl: 'https://console.example.com',
      ...context,
      ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}),
    },
  });
  let stack: AutopilotStack;
  let assembly: CloudAssembly;
  try {
    // Environment-agnostic unless a test names an account, like `cdk synth` without credentials.
    stack = new AutopilotStack(app, 'ConsoleAutopilot', {
      ...readSettings(app.node),
      ...(options.env ? { env: options.env } : {}),
    });
    addNagChecks(app);
    // Throws with the cdk-nag report when a finding is not acknowledged (NODE_ENV=test: in-memory mode).
    assembly = app.synth();
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
  const json = JSON.parse(
    readFileSync(assembly.getStackArtifact(stack.artifactId).templateFullPath, 'utf8'),
  ) as Synthesized['json'];
  return {
    app,
    stack,
    assembly,
    template: Template.fromJSON(json),
    json,
    outdir,
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
    logicalId(path) {
      const construct = stack.node.findChild(path.split('/')[0] ?? path);
      const target = path
        .split('/')
        .slice(1)
        .reduce((c, id) => c.node.findChild(id), construct);
      const cfn = target.node.defaultChild ?? target;
      return stack.getLogicalId(cfn as never);
    },
  };
}
