// Browser module worker: one WebGPU device, one local trainer, exposed with comlink.
import { expose } from 'comlink';
import { createLocalTrainerApi, type LocalTrainerApi } from '../src/train/local-api.ts';

const api: LocalTrainerApi = createLocalTrainerApi(async () => {
  if (!('gpu' in navigator))
    throw new Error('this worker has no navigator.gpu: WebGPU is not available in this browser');
  return navigator.gpu;
});
expose(api);
