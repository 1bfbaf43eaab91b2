/**
 * The largest message the queues take, one number for everything that must agree on it: the CDK
 * stack sets it on the actions queue and the DLQ (infra/autopilot-stack.ts), the local stack's
 * emulated queues take it too (src/local/emulators.ts), and the worker fits a poison message's DLQ
 * copy within it (src/worker/dead-letter.ts). The stack says it rather than keep the default:
 * SQS's default is now 1 MiB (once 256 KiB), so a body between the worker's number and the
 * queue's would reach the DLQ with no room left for its `error` attribute.
 */

/**
 * SQS's limit on one message, as the stack sets it: the body plus every attribute's name, type
 * and value. 256 KiB: an action request is a few KB at most (50 group names of 200 characters).
 */
export const MAX_MESSAGE_BYTES = 262_144;
