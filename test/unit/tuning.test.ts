// parseTuning: the CLI's --tuning JSON over an adapter's defaults, with errors that say which
// field is wrong; tuningOption: which JSON a command runs with (--tuning, else WEBDDP_TUNING).
import { afterEach, describe, expect, it } from 'vitest';
import { GPU_TUNING, SOFTWARE_TUNING, parseTuning } from '../../src/gpu/tuning.ts';
import { tuningOption } from '../../src/cli/tuning-option.ts';

describe('parseTuning', () => {
  it('halfMatrix: a list of layer products, anything else refused by name', () => {
    expect(parseTuning('{"halfMatrix": ["conv-forward", "linear-weight"]}', GPU_TUNING).halfMatrix).toEqual([
      'conv-forward',
      'linear-weight',
    ]);
    expect(parseTuning('{"halfMatrix": []}', GPU_TUNING).halfMatrix).toEqual([]);
    expect(parseTuning('{}', SOFTWARE_TUNING).halfMatrix).toEqual([]);
    expect(() => parseTuning('{"halfMatrix": "off"}', GPU_TUNING)).toThrow(
      /tuning halfMatrix must be a list of "conv-forward"/,
    );
    expect(() => parseTuning('{"halfMatrix": ["conv2"]}', GPU_TUNING)).toThrow(/got \["conv2"\]/);
  });

  it('overrides only the fields it names, kernel constants merged per kernel', () => {
    const t = parseTuning(
      '{"kernels": {"conv2d_backward_weight_tiled": {"TCI": 16}}, "targetThreads": 4096, "convWeight": "registers"}',
      GPU_TUNING,
    );
    expect(t.kernels.conv2d_backward_weight_tiled).toEqual({ TCI: 16 });
    expect(t.kernels.conv2d_forward).toEqual(GPU_TUNING.kernels.conv2d_forward);
    expect(t.targetThreads).toBe(4096);
    expect(t.maxSplits).toBe(GPU_TUNING.maxSplits);
    expect(t.convWeight).toBe('registers');
    expect(t.convForward).toBe(GPU_TUNING.convForward);
    expect(parseTuning('{"convInput": "registers", "convReduce": "subgroup"}', GPU_TUNING)).toMatchObject({
      convInput: 'registers',
      convReduce: 'subgroup',
    });
    expect(parseTuning('{"convForward": "wide", "convInput": "wide"}', GPU_TUNING)).toMatchObject({
      convForward: 'wide',
      convInput: 'wide',
    });
    expect(parseTuning('{}', SOFTWARE_TUNING)).toEqual(SOFTWARE_TUNING);
  });

  it('refuses what it cannot use, naming the field', () => {
    expect(() => parseTuning('{kernels:', GPU_TUNING)).toThrow(/tuning is not JSON/);
    expect(() => parseTuning('[1]', GPU_TUNING)).toThrow(/tuning must be a JSON object/);
    expect(() => parseTuning('7', GPU_TUNING)).toThrow(/tuning must be a JSON object/);
    expect(() => parseTuning('{"kernels": {"conv3d": {"WG": 8}}}', GPU_TUNING)).toThrow(
      /tuning names no kernel 'conv3d' \(kernels: conv2d_forward, /,
    );
    expect(() => parseTuning('{"kernels": {"conv2d_backward_weight_tiled": {"WG": 64}}}', GPU_TUNING)).toThrow(
      /tuning conv2d_backward_weight_tiled\.WG: conv2d_backward_weight_tiled has no override constant 'WG' \(it has TCO, TCI, ROWS, TW\)/,
    );
    expect(() => parseTuning('{"kernels": {"conv2d_forward": {"WG_X": 0}}}', GPU_TUNING)).toThrow(
      /tuning conv2d_forward\.WG_X must be a positive integer \(got 0\)/,
    );
    expect(() => parseTuning('{"targetThreads": 1.5}', GPU_TUNING)).toThrow(
      /tuning targetThreads must be a positive integer/,
    );
    expect(() => parseTuning('{"convWeight": "fast"}', GPU_TUNING)).toThrow(
      /tuning convWeight must be "registers" or "tiled" or "wide" \(got "fast"\)/,
    );
    expect(() => parseTuning('{"convBlock": 16}', GPU_TUNING)).toThrow(/tuning has no setting 'convBlock'/);
    expect(() => parseTuning('{"convForward": 1}', GPU_TUNING)).toThrow(
      /tuning convForward must be "registers" or "tiled" or "wide" \(got 1\)/,
    );
    expect(() => parseTuning('{"convReduce": "tiled"}', GPU_TUNING)).toThrow(
      /tuning convReduce must be "lanes" or "subgroup" or "auto" \(got "tiled"\)/,
    );
  });
});

describe('tuningOption (--tuning, else WEBDDP_TUNING)', () => {
  const saved = process.env.WEBDDP_TUNING;
  afterEach(() => {
    if (saved === undefined) delete process.env.WEBDDP_TUNING;
    else process.env.WEBDDP_TUNING = saved;
  });

  it('takes the flag over the environment, the environment over nothing', () => {
    process.env.WEBDDP_TUNING = '{"convForward":"registers"}';
    expect(tuningOption('{"convInput":"tiled"}')).toBe('{"convInput":"tiled"}');
    expect(tuningOption(undefined)).toBe('{"convForward":"registers"}');
    delete process.env.WEBDDP_TUNING;
    expect(tuningOption(undefined)).toBeUndefined();
  });

  it('refuses a bad value before any worker starts, naming where it came from', () => {
    process.env.WEBDDP_TUNING = '{"convForward":"regs"}';
    expect(() => tuningOption(undefined)).toThrow(/^WEBDDP_TUNING: tuning convForward must be "registers"/);
    expect(() => tuningOption('{"kernels":{"nope":{}}}')).toThrow(/^--tuning: tuning names no kernel 'nope'/);
  });
});
