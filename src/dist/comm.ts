// The communication layer's public API in one import: links and their transports, the ring
// collectives, the process group facade, the pure schedule and the bandwidth metrics. Workers
// and the benchmark bundle this file.
export * from './errors.ts';
export * from './link.ts';
export { PortLink, createPortLink } from './port-link.ts';
export type { PortLinkOptions } from './port-link.ts';
export { SabLink, createSabLink, sabTransportAvailable } from './sab-link.ts';
export type { SabLinkOptions } from './sab-link.ts';
export { hasWaitAsync } from './atomics-wait.ts';
export type { WaitMode } from './atomics-wait.ts';
export { ringAllReduce, reduceScatter, allGather, prescaleForAverage } from './collectives.ts';
export type { AllReduceOptions, CollectiveOptions, ReducedChunk } from './collectives.ts';
export { broadcast } from './broadcast.ts';
export { allReduceScalars, barrier } from './scalars.ts';
export { ProcessGroup, createProcessGroup } from './process-group.ts';
export type { TransportChoice } from './process-group.ts';
export * from './schedule.ts';
export * from './busbw.ts';
