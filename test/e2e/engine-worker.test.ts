// The engine in headless Chromium: a real module worker acquires its own WebGPU device, runs one
// forward/backward of SimpleCNN on the PyTorch fixture's batch, and the loss, logits and every
// gradient match PyTorch within the fixture tolerances. No console or page errors.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compareTensors } from '../../src/reference/compare.ts';
import { launchBrowser, type BrowserSession } from '../helpers/browser.ts';
import { loadGradFixture } from '../helpers/fixture.ts';
import type { EngineHarness } from './harness/engine.ts';

let session: BrowserSession;
beforeAll(async () => {
  session = await launchBrowser();
});
afterAll(async () => session.close());

const b64 = (f: Float32Array) => Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64');
const f32 = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
};

describe('engine in a module worker (Chromium, WebGPU)', () => {
  it('one training step matches PyTorch: loss, logits, gradients', async () => {
    const fx = loadGradFixture();
    const page = await session.newPage();
    await page.goto(`${inject('baseUrl')}/test/e2e/harness/engine.html`);
    await page.waitForFunction(() => window.webddpEngine !== undefined);
    const out = await page.evaluate(
      (p, x, y) => (window.webddpEngine as EngineHarness).runStep(p, x, y),
      b64(fx.params),
      b64(fx.x),
      [...fx.y],
    );
    const tol = { rtol: 1e-4, atol: 1e-5 };
    expect(compareTensors([out.loss], [fx.loss], tol).ok).toBe(true);
    const logits = compareTensors(f32(out.logits), fx.logits, tol);
    const grads = compareTensors(f32(out.grads), fx.grads, tol);
    expect({ logits: logits.mismatches, grads: grads.mismatches, count: grads.count }).toEqual({
      logits: 0,
      grads: 0,
      count: fx.spec.total,
    });
    expect(out.adapter.length).toBeGreaterThan(0);
    expect(session.errors).toEqual([]);
  });
});
