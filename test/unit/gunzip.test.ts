// gunzipStream: decompresses like DecompressionStream, but reads compressed input only as fast as
// the output is consumed (Node 20's DecompressionStream alone reads its whole input ahead).
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { gunzipStream } from '../../src/data/gunzip.ts';
import { makeRecords } from '../helpers/cifar-fixture.ts';

function countingStream(bytes: Uint8Array, piece: number): { stream: ReadableStream<Uint8Array>; read: () => number } {
  let at = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(ctrl) {
        if (at >= bytes.byteLength) return ctrl.close();
        ctrl.enqueue(bytes.slice(at, at + piece));
        at += piece;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, read: () => Math.min(at, bytes.byteLength) };
}

describe('gunzipStream', { timeout: 60_000 }, () => {
  const data = makeRecords(4000, 1); // 12 MB of incompressible bytes
  const gz = gzipSync(data, { level: 1 });

  it('round-trips', async () => {
    const out = new Uint8Array(await new Response(gunzipStream(countingStream(gz, 65536).stream)).arrayBuffer());
    expect(Buffer.from(out).equals(data)).toBe(true);
  });

  it('reads compressed input only as far as the output consumed (bounded read-ahead)', async () => {
    const src = countingStream(gz, 65536);
    const reader = gunzipStream(src.stream).getReader();
    let out = 0;
    while (out < 1 << 20) {
      const r = await reader.read();
      if (r.done) break;
      out += r.value.byteLength;
    }
    await new Promise((resolve) => setTimeout(resolve, 200)); // give a runaway reader the chance to run ahead
    expect(src.read()).toBeLessThan(out + (2 << 20));
    await reader.cancel();
  });
});
