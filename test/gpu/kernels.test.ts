// Every kernel in shaders/ is registered, compiles on a real device, and declares exactly the
// bindings and Params fields the registry (src/gpu/kernels.ts) and its header comment state.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gpu } from '../../src/gpu/device.ts';
import { ShaderCompileError } from '../../src/gpu/errors.ts';
import { formatCompileMessages } from '../../src/gpu/kernel-cache.ts';
import { KERNEL_NAMES, KERNELS, type BindingKind, type KernelSpec } from '../../src/gpu/kernels.ts';
import { shaderFiles } from '../../src/gpu/shader-sources.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('kernels');
});
afterAll(() => gpu?.destroy());

const src = (name: string) => readFileSync(`shaders/${name}.wgsl`, 'utf8');
const KIND: Record<string, BindingKind> = {
  uniform: 'uniform',
  'storage, read': 'read',
  'storage, read_write': 'read_write',
};

describe('kernel registry', () => {
  it('registers every shader file and nothing else', () => {
    expect([...shaderFiles()].sort()).toEqual([...KERNEL_NAMES].sort());
  });

  for (const name of KERNEL_NAMES) {
    it(`${name}: WGSL declarations match the registry and the header table`, () => {
      const code = src(name);
      const decl = [...code.matchAll(/@group\(0\) @binding\((\d+)\) var<([a-z_, ]+)> (\w+)\s*:/g)].map(
        (m) => [Number(m[1]), m[3], KIND[m[2] ?? '']] as const,
      );
      const spec = KERNELS[name].bindings.map(([n, kind], i) => [i, n, kind] as const);
      expect(decl).toEqual(spec);
      const header = [...code.matchAll(/^\/\/\s+(\d+) (\w+)\s+(uniform|read_write|read)\b/gm)].map((m) => [
        Number(m[1]),
        m[2],
        m[3],
      ]);
      expect(header).toEqual(spec);
      const struct = /struct Params \{([^}]*)\}/.exec(code)?.[1] ?? '';
      const fields = [...struct.matchAll(/(\w+)\s*:\s*(\w+)/g)].map((m) => [m[1], m[2]]);
      expect(fields).toEqual(Object.entries(KERNELS[name].params));
      for (const o of Object.keys(KERNELS[name].overrides)) expect(code).toMatch(new RegExp(`override ${o}: u32`));
    });

    it(`${name}: compiles and builds a pipeline`, async (ctx) => {
      const needs = (KERNELS[name] as KernelSpec).requires;
      if (needs && !gpu.device.features.has(needs)) ctx.skip(`the device lacks '${needs}'`);
      const k = await gpu.kernels.get(name);
      expect(k.pipeline.label).toBe(`${name}.pipeline`);
    });
  }

  it('reports a compile error with file, line, column and the source line', async () => {
    const code = 'fn main() {\n  let x: u32 = 1.5;\n}\n';
    const module = gpu.device.createShaderModule({ label: 'broken.wgsl', code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    expect(errors.length).toBeGreaterThan(0);
    const text = formatCompileMessages('broken', code, errors);
    expect(text).toMatch(/^shaders\/broken\.wgsl:2:\d+: error: /);
    expect(text).toContain('let x: u32 = 1.5;');
    expect(new ShaderCompileError('broken', 'test', text).message).toContain('broken.wgsl failed to compile on test');
  });

  it('rejects an unknown override constant', () => {
    expect(() => gpu.kernels.get('fill', { NOPE: 1 })).toThrow(/no override constant 'NOPE'/);
  });
});
