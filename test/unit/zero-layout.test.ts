// ZeRO's bounded layouts and stage 3's piece packing, on SimpleCNN's real parameter spec: the
// gradient bucket and the parameter working buffer are far smaller than the model (and than fc1),
// every piece fits them, and the packed pieces hold exactly the weights the kernels read.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.ts';
import { LinearLayer } from '../../src/nn/layers/linear.ts';
import { paramByName, simpleCnnSpec } from '../../src/nn/spec.ts';
import { bucketLayout, layerRanges } from '../../src/parallel/zero/layout.ts';
import { BUCKET, pieceShape } from '../../src/train/piece-shape.ts';
import { columnsOf, rowsOf } from '../../src/train/layerwise.ts';

describe('ZeRO layouts', () => {
  it('bounds the stage-2 bucket and the stage-3 working buffer by one piece, not the model', () => {
    const spec = simpleCnnSpec(1);
    const layers = layerRanges(spec);
    expect(layers.map((l) => [l.layer, l.size, l.large])).toEqual([
      ['conv1', 896, false],
      ['conv2', 18_496, false],
      ['fc1', 524_416, true],
      ['fc2', 1290, false],
    ]);
    expect(pieceShape(128, 4096)).toEqual({ rows: 15, cols: 512 });
    const grads = bucketLayout(spec, 'grads.bucket', false);
    const params = bucketLayout(spec, 'params.working', true);
    expect(grads.size).toBe(15 * 4097);
    expect(params.size).toBe(BUCKET);
    // Layers kept whole sit at offset 0 of the buffer, weight then bias.
    expect(grads.offset(paramByName(spec, 'conv2.weight'))).toBe(0);
    expect(grads.offset(paramByName(spec, 'conv2.bias'))).toBe(18_432);
    // At width 2 conv2 (73,856 floats) is never cut: it sets the bound.
    expect(bucketLayout(simpleCnnSpec(2), 'g', false).size).toBe(73_856);
  });

  it('reduce_bucket_size sets the bucket: the default is BUCKET; one that holds fc1 keeps every layer whole', () => {
    const spec = simpleCnnSpec(1);
    expect(DEFAULT_CONFIG.reduceBucketSize).toBe(BUCKET);
    expect(bucketLayout(spec, 'g', false, DEFAULT_CONFIG.reduceBucketSize).size).toBe(15 * 4097);
    // the example ds_config's 2e8: nothing is cut, the bucket is the largest layer (DeepSpeed's one bucket for a small model)
    expect(layerRanges(spec, 2e8).some((l) => l.large)).toBe(false);
    expect(bucketLayout(spec, 'g', false, 2e8).size).toBe(524_416);
    // smaller than fc1's row (4097): one row per piece, and the bucket is conv2, never cut
    expect(pieceShape(128, 4096, 1000).rows).toBe(1);
    expect(bucketLayout(spec, 'g', false, 1000).size).toBe(18_496);
  });

  it('packs rows (weight then bias) and columns ([o, cols]) of a gathered Linear layer', () => {
    const spec = simpleCnnSpec(0.125); // fc1: Linear(512, 16)
    const fc1 = new LinearLayer('fc1', paramByName(spec, 'fc1.weight'), paramByName(spec, 'fc1.bias'), true, false);
    const arena = Float32Array.from({ length: spec.total }, (_, i) => i);
    const w = fc1.weight.offset;
    const rows = rowsOf(arena, fc1, 2, 4);
    expect(rows.length).toBe(2 * 513);
    expect([rows[0], rows[511], rows[512], rows[1024], rows[1025]]).toEqual([
      w + 2 * 512,
      w + 2 * 512 + 511,
      w + 3 * 512,
      fc1.bias.offset + 2,
      fc1.bias.offset + 3,
    ]);
    const cols = columnsOf(arena, fc1, 100, 103);
    expect(cols.length).toBe(16 * 3);
    expect([cols[0], cols[2], cols[3], cols[47]]).toEqual([w + 100, w + 102, w + 512 + 100, w + 15 * 512 + 102]);
  });
});
