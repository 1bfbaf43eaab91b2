/**
 * The worker fits a poison message's DLQ copy (its body, the error, where and when it failed)
 * within one message's size, MAX_MESSAGE_BYTES. The stack kept the queues' default size, which
 * SQS now sets up to 1 MiB and CDK versions differ on: a body between 256 KiB and the default then
 * reached the DLQ without its `error` attribute. Both queues now say their size, from that number.
 */
import { afterAll, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../src/queue/message-size.js';
import { synthesize } from './synth.js';

const synth = synthesize({}, { bundle: false });
afterAll(() => synth.cleanup());

it('sets the actions queue and the DLQ to the message size the worker fits a dead letter in', () => {
  for (const id of ['ActionsQueue', 'DeadLetterQueue']) {
    const queue = synth.json.Resources[synth.logicalId(id)];
    expect(queue?.Type, id).toBe('AWS::SQS::Queue');
    expect(queue?.Properties?.MaximumMessageSize, id).toBe(MAX_MESSAGE_BYTES);
  }
});
