// The page's language choice, the engine's messages in Chinese, and the address that follows the
// settings (pure parts of src/ui/i18n and src/ui/address.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { addressQuery } from '../../src/ui/address.ts';
import type { FieldKey } from '../../src/ui/controls/field-key.ts';
import { localizeIssue, localizeRunError, pickLang, setLang } from '../../src/ui/i18n/index.ts';

afterEach(() => setLang('en'));

describe('page language', () => {
  it('takes ?lang= first, then the first browser language the page has, else English', () => {
    expect(pickLang('?lang=zh', ['en-US'])).toBe('zh');
    expect(pickLang('?lang=EN', ['zh-CN'])).toBe('en');
    expect(pickLang('', ['fr-FR', 'zh-TW', 'en'])).toBe('zh');
    expect(pickLang('?lang=xx', ['de'])).toBe('en');
  });

  it('puts validateConfig’s messages into Chinese with the control’s label, and leaves unknown shapes as written', () => {
    setLang('zh');
    const label = (f: string) => (f === 'workers' ? 'Worker 数' : f);
    expect(localizeIssue('workers must be an integer from 1 to 8 (got 9)', label)).toBe(
      'Worker 数 必须是 1 到 8 之间的整数（当前为 9）',
    );
    expect(localizeIssue('gpu0Bsz (1000) cannot exceed the global batch (12)', label)).toBe(
      'gpu0Bsz（1000）不能超过全局批大小（12）',
    );
    expect(localizeIssue('something new', label)).toBe('something new');
    expect(
      localizeIssue('bf16 is not supported with mode dp: bf16 mixed precision runs with ddp, zero1, zero2', label),
    ).toBe('模式 dp 不支持 bf16：bf16 混合精度可用于 ddp, zero1, zero2');
    expect(localizeRunError('rank 1 failed during step 2 of epoch 0: Error: injected fault')).toBe(
      'rank 1 在第 0 轮第 2 步时失败：Error: injected fault',
    );
    setLang('en');
    expect(localizeIssue('workers must be an integer from 1 to 8 (got 9)', label)).toBe(
      'workers must be an integer from 1 to 8 (got 9)',
    );
  });
});

describe('page address', () => {
  it('carries the lesson, every value that differs from the defaults, and keeps lang and autostart', () => {
    const values = { mode: 'dp', workers: '4', fp16: '0', schedule: '' } as Record<FieldKey, string>;
    const q = addressQuery('?lang=zh&autostart=0&mode=ddp&junk=1', {
      values,
      defaults: { mode: 'ddp', workers: 4, fp16: false, schedule: '' },
      lesson: 'dp-pileup',
      testLimit: 8,
    });
    expect(q).toBe('?lang=zh&autostart=0&lesson=dp-pileup&mode=dp&testLimit=8');
  });
});
