/**
 * The environment a test gives a deployed bundle it starts in a fresh `node` process, as Lambda
 * starts it: a region and credentials for the SDK (never used against AWS), nothing of the test's own.
 */
export const LAMBDA_PROCESS_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};
