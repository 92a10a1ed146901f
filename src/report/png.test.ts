import { decode, encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { crc32, iTxtChunk, pngChunks, pngSize, readITxt, STAMP_KEYWORD, withITxt } from './png.ts';

function image(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([(i * 7) & 255, 40, 200, 255], i);
  return encode({ width, height, data, channels: 4, depth: 8 });
}

describe('PNG iTXt stamp', () => {
  it('computes the CRC-32 PNG uses', () => {
    // the CRC of "IEND" with no data: every PNG ends with these four bytes
    expect(crc32(new TextEncoder().encode('IEND'))).toBe(0xae426082);
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('writes a chunk a PNG library decodes, pixels unchanged, text read back', () => {
    const png = image(7, 3);
    const text = JSON.stringify({ session_id: 'run-42 “quoted” ✓', turns: { from: 1, to: 9 } });
    const stamped = withITxt(png, STAMP_KEYWORD, text);
    const decoded = decode(stamped);
    expect(decoded.width).toBe(7);
    expect(decoded.height).toBe(3);
    expect(Array.from(decoded.data)).toEqual(Array.from(decode(png).data));
    expect(readITxt(stamped)).toBe(text);
    expect(pngSize(stamped)).toEqual({ width: 7, height: 3 });
    // right after IHDR, every CRC valid (pngChunks checks them)
    expect(
      pngChunks(stamped)
        .map((c) => c.type)
        .slice(0, 2),
    ).toEqual(['IHDR', 'iTXt']);
  });

  it('replaces an earlier stamp instead of adding a second', () => {
    const once = withITxt(image(2, 2), STAMP_KEYWORD, 'first');
    const twice = withITxt(once, STAMP_KEYWORD, 'second');
    expect(pngChunks(twice).filter((c) => c.type === 'iTXt')).toHaveLength(1);
    expect(readITxt(twice)).toBe('second');
    expect(readITxt(withITxt(twice, 'other', 'x'))).toBe('second');
  });

  it('says why bytes are not a PNG, and finds no stamp in an unstamped one', () => {
    expect(() => pngChunks(new Uint8Array([1, 2, 3]))).toThrow(/signature/);
    const broken = withITxt(image(2, 2), STAMP_KEYWORD, 'x');
    broken[40] = broken[40]! ^ 0xff;
    expect(() => pngChunks(broken)).toThrow(/wrong CRC/);
    expect(readITxt(image(2, 2))).toBeNull();
    expect(() => iTxtChunk('', 'x')).toThrow(/keyword/);
  });
});
