// Pure parts of the teaching page and the CLI: settings from the page address, and RANK:STEP:KIND
// fault specs (the page's ?fault= and the CLI's --inject-fault).
import { describe, expect, it } from 'vitest';
import { parseFaultSpec } from '../../src/runtime/fault.ts';
import { addressQuery } from '../../src/ui/address.ts';
import type { FieldKey } from '../../src/ui/controls/field-key.ts';
import { readParams } from '../../src/ui/url-params.ts';

describe('page address parameters', () => {
  it('reads form settings by their kind, passes testLimit and fault through, and reports unknown keys', () => {
    const p = readParams('?mode=dp&workers=4&lr=0.005&augment=1&testLimit=64&fault=1:2:throw&autostart=0&colour=red');
    expect(p.values).toEqual({ mode: 'dp', workers: 4, lr: 0.005, augment: true });
    expect(p.testLimit).toBe(64);
    expect(p.fault).toBe('1:2:throw');
    expect(p.autostart).toBe(false);
    expect(p.unknown).toEqual(['colour']);
  });

  it('reads the checkpoint and restart settings, and the address carries those that differ from the defaults', () => {
    const p = readParams('?checkpoints=0&checkpointEvery=4&keep=3&maxRestarts=1&workers=2');
    expect(p.life).toEqual({ checkpoints: false, checkpointEvery: 4, keep: 3, maxRestarts: 1 });
    expect(p.unknown).toEqual([]);
    const life = { checkpoints: '1', checkpointEvery: '4', keep: '2', maxRestarts: '1' } as const;
    expect(addressQuery('', { values: {} as Record<FieldKey, string>, defaults: {}, lesson: null, life })).toBe(
      '?checkpointEvery=4&maxRestarts=1',
    );
  });

  it('reads the placement; the address carries only the shared device, and an unknown placement is reported', () => {
    expect(readParams('?placement=shared-device').placement).toBe('shared-device');
    expect(readParams('?placement=own-devices').placement).toBe('own-devices');
    expect(readParams('?placement=gpu').unknown).toEqual(['placement']);
    const at = (placement: string) =>
      addressQuery('', { values: {} as Record<FieldKey, string>, defaults: {}, lesson: null, placement });
    expect(at('shared-device')).toBe('?placement=shared-device');
    expect(at('own-devices')).toBe('');
  });

  it('reads the kernel tuning, and the address keeps it as it keeps lang and autostart', () => {
    const tuning = '{"convForward":"registers"}';
    expect(readParams(`?tuning=${encodeURIComponent(tuning)}`)).toMatchObject({ tuning, unknown: [] });
    expect(readParams('?workers=2').tuning).toBeUndefined();
    // not a JSON object: reported as not understood, never sent to a worker
    for (const bad of ['{', '[1]', '"registers"'])
      expect(readParams(`?tuning=${encodeURIComponent(bad)}`)).toMatchObject({ unknown: ['tuning'] });
    expect(readParams(`?tuning=${encodeURIComponent('[1]')}`).tuning).toBeUndefined();
    const q = addressQuery(`?tuning=${encodeURIComponent(tuning)}&workers=3`, {
      values: {} as Record<FieldKey, string>,
      defaults: {},
      lesson: null,
    });
    expect(new URLSearchParams(q).get('tuning')).toBe(tuning);
  });

  it('starts by itself unless told not to, and leaves bad numbers for the form to refuse', () => {
    const p = readParams('?workers=lots');
    expect(p.autostart).toBe(true);
    expect(p.values.workers).toBeNaN();
  });
});

describe('fault specs', () => {
  it('parses RANK:STEP:KIND', () => {
    expect(parseFaultSpec('1:3:device-lost', 2)).toEqual({
      ok: true,
      fault: { rank: 1, step: 3, kind: 'device-lost' },
    });
  });

  it.each([
    ['1:3', /must be RANK:STEP:KIND/],
    ['1:x:throw', /must be RANK:STEP:KIND/],
    ['-1:0:throw', /must be RANK:STEP:KIND/],
    ['0:0:explode', /KIND one of throw, exit, hang, device-lost/],
    ['0:0:throw:extra', /must be RANK:STEP:KIND/],
    ['2:0:throw', /rank 2 does not exist \(there are 2 workers: 0 to 1\)/],
  ])('refuses %s', (text, message) => {
    const r = parseFaultSpec(text, 2);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});
