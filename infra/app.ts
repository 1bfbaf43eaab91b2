/**
 * The CDK app: reads the deployment's settings from context, builds the one stack and runs
 * the cdk-nag AwsSolutions checks on it. Synthesizes without AWS credentials or network: the
 * stack is environment-agnostic unless the CLI supplies an account and region. A setting the
 * stack refuses (an http:// Console URL, a bad number, an invalid policy, a failed policy test
 * case with `-c policyTests=<cases.json>`) stops the synth
 * with its message alone, not a stack trace.
 */
import { Annotations, App } from 'aws-cdk-lib';
import { AutopilotStack } from './autopilot-stack.js';
import { PLACEHOLDER_CONSOLE_API_BASE_URL, policyTestsFile, readSettings } from './context.js';
import { addNagChecks } from './nag.js';
import { assertPolicyTestsPass } from './policy-tests.js';

const app = new App();
try {
  const settings = readSettings(app.node);
  const policyTests = policyTestsFile(app.node);
  if (policyTests !== undefined) assertPolicyTestsPass(settings.policyFile ?? 'policy.json', policyTests);
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const stack = new AutopilotStack(app, 'ConsoleAutopilot', {
    ...settings,
    description: 'console-autopilot: Slack chat-ops, policy-gated release approvals, scheduled housekeeping',
    ...(account && region ? { env: { account, region } } : {}),
  });
  if (settings.consoleApiBaseUrl === PLACEHOLDER_CONSOLE_API_BASE_URL) {
    Annotations.of(stack).addInfo(
      `consoleApiBaseUrl is not set: using ${PLACEHOLDER_CONSOLE_API_BASE_URL}. Deploy with -c consoleApiBaseUrl=https://...`,
    );
  }
} catch (error) {
  process.stderr.write(`console-autopilot: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
addNagChecks(app);
app.synth();
