/**
 * The SDK client settings of the CLI, the local stack and tests. For an emulator's `endpoint`
 * (fauxqs, dynalite): a region (default us-east-1) and throwaway credentials, which emulators
 * accept and the SDK's credential chain would otherwise look for. Against AWS: `AWS_REGION`, else
 * the SDK's own chain (the profile's region, as `aws configure` and `cdk deploy` use it); a fixed
 * us-east-1 there sent an operator whose region is in the profile to a region without the stack.
 * The functions' own clients are configured by the wiring (src/wiring/from-env.ts).
 */
export function localAwsConfig(options: { endpoint?: string; region?: string }) {
  const region = options.region ?? (process.env.AWS_REGION || (options.endpoint ? 'us-east-1' : undefined));
  return {
    ...(region ? { region } : {}),
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  };
}
