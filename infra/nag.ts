/**
 * The security review that runs on every synth: cdk-nag's AwsSolutions pack through CDK's
 * policy-validation plugins (cdk-nag v3). Findings go to the assembly's validation report;
 * acknowledgments live next to the construct they concern, each with its reason.
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
