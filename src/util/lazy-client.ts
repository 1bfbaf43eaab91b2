/**
 * An AWS SDK client built on its first `send`, not when the handler's dependencies are read.
 * Building the three clients costs ~10–15 ms of every cold start (their config resolution
 * runs cold code; bench/cold-start.bench.ts), and a webhook request, for one, needs DynamoDB
 * or SQS only for some commands. The first call that does need the client pays that once.
 */
export function lazyClient<C extends { send: (...args: never[]) => unknown }>(
  create: () => C,
): Pick<C, 'send'> {
  let client: C | undefined;
  const send = (...args: Parameters<C['send']>) => {
    client ??= create();
    return client.send(...args);
  };
  return { send: send as C['send'] };
}
