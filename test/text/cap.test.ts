import { describe, expect, it } from 'vitest';
import { MAX_STORED_TEXT_BYTES } from '../../src/limits.js';
import { capText } from '../../src/text/cap.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('capText', () => {
  it('leaves a text within the limit as it is', () => {
    expect(capText('script exited 1')).toBe('script exited 1');
    const exact = 'a'.repeat(MAX_STORED_TEXT_BYTES);
    expect(capText(exact)).toBe(exact);
  });

  it('keeps the beginning of a 40 KiB text and says how many bytes it cut', () => {
    const text = `boom: ${'x'.repeat(40 * 1024)}`;
    const capped = capText(text);
    expect(bytes(capped)).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    expect(capped.startsWith('boom: xxx')).toBe(true);
    const cut = Number(/… \[truncated ([\d,]+) bytes\]$/.exec(capped)![1]!.replace(/,/g, ''));
    expect(bytes(capped.slice(0, capped.indexOf('… [truncated'))) + cut).toBe(bytes(text));
  });

  it('never splits a character', () => {
    for (const unit of ['é', '€', '😀']) {
      const capped = capText(unit.repeat(2_000), 100);
      expect(bytes(capped)).toBeLessThanOrEqual(100);
      expect(capped).not.toContain('\uFFFD');
      expect(capped.replace(/… \[truncated [\d,]+ bytes\]$/, '')).toMatch(new RegExp(`^(${unit})+$`, 'u'));
    }
  });

  it('a 100-row batch of capped texts stays far below the 4 MiB batch limit', () => {
    const rows = Array.from({ length: 100 }, () => [capText('e'.repeat(200_000)), capText('m'.repeat(64_000))]);
    expect(rows.flat().reduce((n, t) => n + bytes(t), 0)).toBeLessThan(4 * 1024 * 1024 / 10);
  });
});
