// WEBDDP_TRANSPORT: how `webddp train`'s ranks move gradients between worker threads, to compare the
// two transports on one machine: `message` (MessagePort messages with transferred buffers, the
// default: the faster one measured) or `shared` (SharedArrayBuffer rings with Atomics).
import type { Transport } from '../comm/link.ts';
import { UsageError } from './command.ts';

/** The transport WEBDDP_TRANSPORT asks for, as a Coordinator option (none: the default). */
export function transportOption(env: NodeJS.ProcessEnv = process.env): { transport?: Transport } {
  const v = env.WEBDDP_TRANSPORT;
  if (v === undefined || v === '') return {};
  if (v !== 'shared' && v !== 'message')
    throw new UsageError(`WEBDDP_TRANSPORT must be 'shared' or 'message', got '${v}'`);
  return { transport: v };
}
