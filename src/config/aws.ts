/**
 * The SDK client settings of the CLI, the local stack and tests: a region (default us-east-1),
 * and for an emulator's `endpoint` (fauxqs, dynalite) throwaway credentials, which emulators
 * accept and the SDK's credential chain would otherwise look for. The functions' own clients
 * are configured by the wiring (src/wiring/from-env.ts).
 */
export function localAwsConfig(options: { endpoint?: string; region?: string }) {
  return {
    region: options.region ?? (process.env.AWS_REGION || 'us-east-1'),
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  };
}
