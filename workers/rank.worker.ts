// Browser module worker of one rank: its own WebGPU device (navigator.gpu inside the worker) and
// the IndexedDB dataset store.
import { expose } from 'comlink';
import { createRankApi } from '../src/runtime/rank.ts';
import { browserRankEnv } from './browser-rank-env.ts';

expose(createRankApi(browserRankEnv()));
