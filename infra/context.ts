/**
 * The deployment's settings, read from CDK context (`-c key=value` on the command line, or the
 * `context` block of cdk.json). Context given on the command line arrives as strings, so
 * numbers are parsed here and a bad value fails the synth with the key's name.
 */
import type { Node } from 'constructs';
import type { AutopilotStackProps } from './autopilot-stack.js';

/** Lets `cdk synth` run in CI with no settings; a deployment must pass the real URL. */
export const PLACEHOLDER_CONSOLE_API_BASE_URL = 'https://console-api.invalid';

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new Error(`context value "${key}" must be a string or number, got ${JSON.stringify(value)}`);
  }
  return String(value).trim();
}

function integer(node: Node, key: string): number | undefined {
  const raw = text(node, key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`context value "${key}" must be an integer, got "${raw}"`);
  return value;
}

/** The stack's settings from context; unset keys keep the stack's defaults. */
export function readSettings(node: Node): AutopilotStackProps {
  const settings: AutopilotStackProps = {
    consoleApiBaseUrl: text(node, 'consoleApiBaseUrl') ?? PLACEHOLDER_CONSOLE_API_BASE_URL,
  };
  const sweepScheduleMinutes = integer(node, 'sweepSchedule');
  const workerMaxConcurrency = integer(node, 'workerMaxConcurrency');
  const alarmEmail = text(node, 'alarmEmail');
  const existingSecretArn = text(node, 'existingSecretArn');
  const policyFile = text(node, 'policyFile');
  if (sweepScheduleMinutes !== undefined) settings.sweepScheduleMinutes = sweepScheduleMinutes;
  if (workerMaxConcurrency !== undefined) settings.workerMaxConcurrency = workerMaxConcurrency;
  if (alarmEmail !== undefined) settings.alarmEmail = alarmEmail;
  if (existingSecretArn !== undefined) settings.existingSecretArn = existingSecretArn;
  if (policyFile !== undefined) settings.policyFile = policyFile;
  return settings;
}
