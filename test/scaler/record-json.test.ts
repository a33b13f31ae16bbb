// A target row's JSON fields as read back (src/scaler/read/record-json.ts).
import { describe, expect, it } from 'vitest';
import { parsedOnce, readJson } from '../../src/scaler/read/record-json.js';

describe('a JSON field of the row', () => {
  it.each([
    { name: 'a valid text reads back', text: '{"a":1}', want: { a: 1 } },
    { name: 'no text is nothing kept', text: undefined, want: 'none' },
    { name: 'a damaged text is nothing kept', text: '{"a":', want: 'none' },
    { name: 'a text of another shape is nothing kept', text: '[1]', want: 'none' },
  ])('$name', ({ text, want }) => {
    expect(readJson<unknown>(text, 'none', (v) => typeof v === 'object' && v !== null && !Array.isArray(v))).toEqual(want);
  });

  it('is parsed once per text, for the last texts it remembers', () => {
    const reads: string[] = [];
    const read = parsedOnce(2, (text: string) => {
      reads.push(text);
      return { text };
    });
    const first = read('a');
    expect(read('a')).toBe(first);
    read('b');
    read('c');
    // 'a' was the oldest of three: read again, a new object
    expect(read('a')).not.toBe(first);
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
  });
});
