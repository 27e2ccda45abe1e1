// The autocast fixture's bounds (src/parity/autocast.ts, docs/precision.md's table) and the two
// rules the replay uses: f16 judges |a - b| against the bound, reported shows it and never fails.
import { describe, expect, it } from 'vitest';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { autocastMultiples } from '../../src/parity/autocast.ts';
import { checkTensor, describeRule } from '../../src/parity/tolerance.ts';

describe('autocast fp16 bounds', () => {
  it("are docs/precision.md's multiples of 2^-11 for SimpleCNN at batch 8 and grow with conv1's sums", () => {
    expect(autocastMultiples(simpleCnnSpec(1), 8)).toEqual({ 'out.logits': 7, fc2: 10, fc1: 11, conv2: 12, conv1: 14 });
    // conv1's weight gradient sums N x 32 x 32 terms: (N x 1024 / 2^12) u of float32 sums
    expect(autocastMultiples(simpleCnnSpec(1), 16).conv1).toBe(16);
  });

  it('f16 fails beyond its bound; reported shows the same comparison and passes', () => {
    const f16 = checkTensor('t', 'f16', [1, 2.002], [1, 2], 1e-3);
    expect([f16.ok, f16.main.mismatches]).toEqual([false, 1]);
    const shown = checkTensor('t', 'reported', [1, 2.002], [1, 2], 1e-3);
    expect([shown.ok, shown.main.mismatches]).toEqual([true, 1]);
    expect(describeRule(shown)).toMatch(/^not judged: .* 2\.0 x the fp16-rounding bound 1\.00e-3$/);
    expect(() => checkTensor('t', 'f16', [1], [1])).toThrow(/needs its bound/);
  });
});
