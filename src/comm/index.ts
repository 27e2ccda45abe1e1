// The communication layer's public API in one import (torch.distributed's place): the link, the ring
// collectives, the process group facade, the pure schedule and the bandwidth metrics. Workers
// and the benchmark bundle this file.
export * from './errors.ts';
export * from './link.ts';
export { PortLink, createPortLink } from './port-link.ts';
export type { PortLinkOptions } from './port-link.ts';
export { SharedLink, createSharedLink } from './shared-link.ts';
export type { SharedLinkOptions } from './shared-link.ts';
export { sharedRingBuffer, sharedRingSupported, DEFAULT_RING_BYTES } from './shared-ring.ts';
export { ringAllReduce, reduceScatter, allGather, prescaleForAverage } from './collectives.ts';
export type { AllReduceOptions, CollectiveOptions, ReducedChunk } from './collectives.ts';
export { broadcast } from './broadcast.ts';
export { allReduceScalars, barrier } from './scalars.ts';
export { ProcessGroup, createLink, createProcessGroup } from './process-group.ts';
export * from './ring-schedule.ts';
export * from './busbw.ts';
