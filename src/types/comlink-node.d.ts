// Types for comlink's Node adapter (it ships node-adapter.d.ts, which TypeScript does not pair
// with the .mjs file it describes): a worker_threads Worker or MessagePort as a comlink Endpoint.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  import type { MessagePort, Worker } from 'node:worker_threads';
  export default function nodeEndpoint(nep: Worker | MessagePort): Endpoint;
}
