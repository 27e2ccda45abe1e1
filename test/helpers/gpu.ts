// The real WebGPU device for GPU-tier tests: Dawn in Node, on the machine's GPU where there is one,
// else on SwiftShader (WEBDDP_ADAPTER=gpu|swiftshader|lavapipe picks explicitly). Never a fake.
import { acquireDevice, type Gpu } from '../../src/gpu/device.ts';
import { nodeGpu } from '../../src/gpu/device-node.ts';

export async function testGpu(label = 'test'): Promise<Gpu> {
  const { gpu } = await nodeGpu('auto');
  return acquireDevice(gpu, { label });
}
