// The QR encoder and PNG writer: published vectors (Reed-Solomon, format and version bits,
// capacities), then a decoder written here from the standard's description reads generated
// symbols back, checking every block's Reed-Solomon syndromes, and the PNG is parsed back.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inflateSync, crc32 } from 'node:zlib';
import { qrCodePng } from '../../../src/gateway/qr/png.js';
import {
  alignmentPositions,
  dataCapacity,
  encodeQr,
  formatBits,
  reedSolomon,
  versionBits,
  type QrCode,
} from '../../../src/gateway/qr/qr-code.js';

describe('QR building blocks', () => {
  it('computes the Reed-Solomon codewords of the HELLO WORLD 1-M example', () => {
    const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
    assert.deepEqual(reedSolomon(data, 10), [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
  });

  it('computes the format bits of level M for every mask', () => {
    const table = ['101010000010010', '101000100100101', '101111001111100', '101101101001011',
      '100010111111001', '100000011001110', '100111110010111', '100101010100000'];
    table.forEach((bits, mask) => assert.equal(formatBits(mask).toString(2).padStart(15, '0'), bits));
  });

  it('computes the version bits', () => {
    assert.equal(versionBits(7), 0x07c94);
    assert.equal(versionBits(21), 0x15683);
    assert.equal(versionBits(40), 0x28c69);
  });

  it('knows the level M capacities and alignment pattern positions', () => {
    const capacities: [number, number][] = [[1, 16], [2, 28], [5, 86], [7, 124], [10, 216], [27, 1128], [40, 2334]];
    for (const [version, codewords] of capacities) assert.equal(dataCapacity(version), codewords, `version ${version}`);
    assert.deepEqual(alignmentPositions(1), []);
    assert.deepEqual(alignmentPositions(7), [6, 22, 38]);
    assert.deepEqual(alignmentPositions(32), [6, 34, 60, 86, 112, 138]);
    assert.deepEqual(alignmentPositions(40), [6, 30, 58, 86, 114, 142, 170]);
  });
});

describe('encodeQr', () => {
  const payloads: [string, string, number][] = [
    ['a short text', 'hello', 1],
    ['a provisioning URL', 'otpauth://totp/openziti.io:laptop-01?issuer=openziti.io&secret=JBSWY3DPEHPK3PXP', 5],
    ['the 2-M capacity exactly', 'x'.repeat(26), 2],
    ['one byte over the 2-M capacity', 'x'.repeat(27), 3],
    ['a long name (version 7 and up: version bits)', `otpauth://totp/openziti.io:${'n'.repeat(40)}?issuer=openziti.io&secret=JBSWY3DPEHPK3PXP`, 7],
    ['300 bytes (16-bit character count)', 'é'.repeat(150), 13],
  ];
  for (const [what, text, version] of payloads) {
    it(`encodes ${what} in version ${version} and reads back`, () => {
      const bytes = Buffer.from(text, 'utf8');
      const qr = encodeQr(bytes);
      assert.equal(qr.version, version);
      assert.equal(qr.size, version * 4 + 17);
      assert.deepEqual(decode(qr), bytes);
    });
  }

  it('refuses more bytes than version 40 holds', () => {
    assert.throws(() => encodeQr(Buffer.alloc(2332)), /do not fit/);
    assert.equal(encodeQr(Buffer.alloc(2331, 0x41)).version, 40);
  });
});

describe('qrCodePng', () => {
  it('writes a 256 px 1-bit grayscale PNG whose pixels are the symbol with its quiet zone', () => {
    const text = 'otpauth://totp/openziti.io:laptop-01?issuer=openziti.io&secret=JBSWY3DPEHPK3PXP';
    const png = qrCodePng(text, 256);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const chunks = readChunks(png.subarray(8));
    assert.deepEqual(chunks.map((c) => c.type), ['IHDR', 'IDAT', 'IEND']);
    const ihdr = chunks[0]!.data;
    assert.equal(ihdr.readUInt32BE(0), 256);
    assert.equal(ihdr.readUInt32BE(4), 256);
    assert.deepEqual([...ihdr.subarray(8)], [1, 0, 0, 0, 0]);
    const raw = inflateSync(chunks[1]!.data);
    assert.equal(raw.length, 256 * 33);
    const qr = encodeQr(Buffer.from(text));
    const modules = qr.size + 8;
    const pixelDark = (x: number, y: number) => ((raw[y * 33 + 1 + (x >>> 3)]! >>> (7 - (x & 7))) & 1) === 0;
    for (let y = 0; y < 256; y += 3) {
      assert.equal(raw[y * 33], 0, 'filter type 0');
      for (let x = 0; x < 256; x += 3) {
        const mx = Math.floor((x * modules) / 256) - 4;
        const my = Math.floor((y * modules) / 256) - 4;
        const dark = mx >= 0 && my >= 0 && mx < qr.size && my < qr.size && qr.modules[my * qr.size + mx] === 1;
        assert.equal(pixelDark(x, y), dark, `pixel ${x},${y}`);
      }
    }
    assert.equal(pixelDark(0, 0), false, 'quiet zone');
    assert.equal(pixelDark(Math.ceil((4 * 256) / modules), Math.ceil((4 * 256) / modules)), true, 'finder corner');
  });

  it('grows to one pixel a module when asked for less', () => {
    const png = qrCodePng('hello', 10);
    const ihdr = readChunks(png.subarray(8))[0]!.data;
    assert.equal(ihdr.readUInt32BE(0), 29);
  });
});

function readChunks(buf: Buffer): { type: string; data: Buffer }[] {
  const out: { type: string; data: Buffer }[] = [];
  for (let at = 0; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('ascii', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    assert.equal(buf.readUInt32BE(at + 8 + length), crc32(buf.subarray(at + 4, at + 8 + length)) >>> 0, `${type} CRC`);
    out.push({ type, data });
    at += 12 + length;
  }
  return out;
}

// ---- A small decoder, written from the standard's description (row i, column j) ----

/** Level M blocks by version: [blocks with the shorter data length, data length, ECC per block]. */
function blockLayout(version: number): { dataLengths: number[]; ecc: number } {
  const table: Record<number, [number, number, number, number, number]> = {
    // version: [count1, data1, count2, data2, ecc]
    1: [1, 16, 0, 0, 10], 2: [1, 28, 0, 0, 16], 3: [1, 44, 0, 0, 26], 5: [2, 43, 0, 0, 24],
    7: [4, 31, 0, 0, 18], 13: [8, 37, 1, 38, 22], 40: [18, 47, 31, 48, 28],
  };
  const [c1, d1, c2, d2, ecc] = table[version] ?? assert.fail(`no layout for version ${version}`);
  return { dataLengths: [...Array(c1).fill(d1), ...Array(c2).fill(d2)], ecc };
}

function decode(qr: QrCode): Buffer {
  const n = qr.size;
  const dark = (i: number, j: number) => qr.modules[i * n + j] === 1;
  // Format information, both copies, most significant bit first.
  const first = [0, 1, 2, 3, 4, 5, 7, 8].map((j) => dark(8, j)).concat([7, 5, 4, 3, 2, 1, 0].map((i) => dark(i, 8)));
  const second = [n - 1, n - 2, n - 3, n - 4, n - 5, n - 6, n - 7].map((i) => dark(i, 8)).concat(
    [n - 8, n - 7, n - 6, n - 5, n - 4, n - 3, n - 2, n - 1].map((j) => dark(8, j)),
  );
  assert.deepEqual(first, second, 'both format copies agree');
  assert.equal(dark(n - 8, 8), true, 'dark module');
  const format = parseInt(first.map(Number).join(''), 2) ^ 0b101010000010010;
  assert.equal(bchRemainder(format, 0b10100110111, 10), 0, 'format BCH');
  assert.equal(format >>> 13, 0b00, 'level M');
  const mask = (format >>> 10) & 7;
  const reserved = functionModules(qr.version, n);
  const bits: number[] = [];
  let upward = true;
  for (let right = n - 1; right > 0; right -= 2) {
    if (right === 6) right--;
    for (let k = 0; k < n; k++) {
      const i = upward ? n - 1 - k : k;
      for (const j of [right, right - 1]) {
        if (reserved[i * n + j]) continue;
        bits.push(Number(dark(i, j) !== maskAt(mask, i, j)));
      }
    }
    upward = !upward;
  }
  const { dataLengths, ecc } = blockLayout(qr.version);
  const codewords: number[] = [];
  for (let k = 0; k + 8 <= bits.length; k += 8) codewords.push(parseInt(bits.slice(k, k + 8).join(''), 2));
  const blocks = dataLengths.map((length) => ({ data: [] as number[], length, ecc: [] as number[] }));
  let at = 0;
  for (let k = 0; k < Math.max(...dataLengths); k++) for (const b of blocks) if (k < b.length) b.data.push(codewords[at++]!);
  for (let k = 0; k < ecc; k++) for (const b of blocks) b.ecc.push(codewords[at++]!);
  for (const b of blocks) assert.ok(syndromesAreZero([...b.data, ...b.ecc], ecc), 'Reed-Solomon syndromes');
  const data = blocks.flatMap((b) => b.data);
  const stream = data.flatMap((byte) => [7, 6, 5, 4, 3, 2, 1, 0].map((s) => (byte >>> s) & 1));
  const read = (from: number, count: number) => parseInt(stream.slice(from, from + count).join(''), 2);
  assert.equal(read(0, 4), 0b0100, 'byte mode');
  const countBits = qr.version < 10 ? 8 : 16;
  const length = read(4, countBits);
  return Buffer.from(Array.from({ length }, (_, k) => read(4 + countBits + 8 * k, 8)));
}

function bchRemainder(value: number, generator: number, degree: number): number {
  let rem = value;
  for (let bit = 31 - Math.clz32(rem); bit >= degree; bit--) if ((rem >>> bit) & 1) rem ^= generator << (bit - degree);
  return rem;
}

function maskAt(mask: number, i: number, j: number): boolean {
  const rules = [
    () => (i + j) % 2 === 0,
    () => i % 2 === 0,
    () => j % 3 === 0,
    () => (i + j) % 3 === 0,
    () => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
    () => ((i * j) % 2) + ((i * j) % 3) === 0,
    () => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
    () => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
  ];
  return rules[mask]!();
}

/** Finders with separators and format areas, timing, alignment, version areas, dark module. */
function functionModules(version: number, n: number): Uint8Array {
  const out = new Uint8Array(n * n);
  const mark = (i: number, j: number) => (out[i * n + j] = 1);
  for (let i = 0; i < 9; i++) for (let j = 0; j < 9; j++) mark(i, j);
  for (let i = 0; i < 9; i++) for (let j = n - 8; j < n; j++) mark(i, j);
  for (let i = n - 8; i < n; i++) for (let j = 0; j < 9; j++) mark(i, j);
  for (let k = 0; k < n; k++) {
    mark(6, k);
    mark(k, 6);
  }
  const centres = alignmentPositions(version);
  for (const ci of centres) {
    for (const cj of centres) {
      if ((ci < 9 && cj < 9) || (ci < 9 && cj > n - 9) || (ci > n - 9 && cj < 9)) continue;
      for (let i = ci - 2; i <= ci + 2; i++) for (let j = cj - 2; j <= cj + 2; j++) mark(i, j);
    }
  }
  if (version >= 7) {
    for (let i = 0; i < 6; i++) {
      for (let j = n - 11; j < n - 8; j++) {
        mark(i, j);
        mark(j, i);
      }
    }
  }
  return out;
}

/** Evaluates the codeword polynomial at 2^0..2^(ecc-1) in GF(256)/0x11D: all zero when intact. */
function syndromesAreZero(codewords: number[], ecc: number): boolean {
  const mul = (a: number, b: number) => {
    let r = 0;
    for (; b; b >>>= 1, a = a & 0x80 ? ((a << 1) ^ 0x11d) : a << 1) if (b & 1) r ^= a;
    return r;
  };
  for (let k = 0, root = 1; k < ecc; k++, root = mul(root, 2)) {
    let value = 0;
    for (const c of codewords) value = mul(value, root) ^ c;
    if (value !== 0) return false;
  }
  return true;
}
