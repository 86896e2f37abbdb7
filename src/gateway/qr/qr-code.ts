// A QR Code (model 2, ISO/IEC 18004) encoder for one byte-mode segment at error correction
// level M, as upstream draws MFA provisioning URLs (go-qrcode, qrcode.Medium). Versions 1-40,
// the mask with the lowest penalty. Produces the module matrix only; png.ts draws it.

import { maskHits, penalty } from './qr-mask.js';

/** A finished symbol: `modules[y * size + x]` is 1 for a dark module. */
export interface QrCode {
  version: number;
  /** Modules per side (version * 4 + 17), without the quiet zone. */
  size: number;
  mask: number;
  modules: Uint8Array;
}

// Level M, by version (index 0 unused): error correction codewords per block, and blocks.
const ECC_PER_BLOCK = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28];
const BLOCKS = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49];
/** The two format-information bits of level M. */
const LEVEL_M_BITS = 0b00;

/** Encodes the bytes in the smallest version that holds them; throws when none does. */
export function encodeQr(data: Uint8Array): QrCode {
  const version = smallestVersion(data.length);
  const matrix = new Matrix(version);
  matrix.drawFunctionPatterns();
  matrix.drawCodewords(addErrorCorrection(dataCodewords(data, version), version));
  let best = 0;
  let bestPenalty = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    matrix.applyMask(mask);
    matrix.drawFormat(mask);
    const score = penalty(matrix.size, matrix.dark);
    if (score < bestPenalty) [best, bestPenalty] = [mask, score];
    matrix.applyMask(mask); // XOR again: undone
  }
  matrix.applyMask(best);
  matrix.drawFormat(best);
  return { version, size: matrix.size, mask: best, modules: matrix.dark };
}

/** Data modules of a version, function patterns excluded (may not be a multiple of 8). */
export function rawDataModules(version: number): number {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    modules -= (25 * align - 10) * align - 55;
    if (version >= 7) modules -= 36;
  }
  return modules;
}

/** Data codewords (error correction excluded) a version holds at level M. */
export function dataCapacity(version: number): number {
  return Math.floor(rawDataModules(version) / 8) - ECC_PER_BLOCK[version]! * BLOCKS[version]!;
}

function countBits(version: number): number {
  return version < 10 ? 8 : 16;
}

function smallestVersion(length: number): number {
  for (let version = 1; version <= 40; version++) {
    if (length < 1 << countBits(version) && 4 + countBits(version) + 8 * length <= dataCapacity(version) * 8) return version;
  }
  throw new Error(`${length} bytes do not fit in a QR code at level M`);
}

/** Mode, count, bytes, terminator and the 0xEC/0x11 padding, as codewords. */
function dataCodewords(data: Uint8Array, version: number): number[] {
  const bits: number[] = [];
  const put = (value: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  const capacity = dataCapacity(version) * 8;
  put(0b0100, 4);
  put(data.length, countBits(version));
  for (const byte of data) put(byte, 8);
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  const out: number[] = [];
  for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((acc, b) => (acc << 1) | b, 0));
  for (let pad = 0xec; out.length < capacity / 8; pad ^= 0xec ^ 0x11) out.push(pad);
  return out;
}

/** Splits the data into blocks, appends each block's Reed-Solomon codewords, interleaves. */
export function addErrorCorrection(data: number[], version: number): number[] {
  const blocks = BLOCKS[version]!;
  const eccLength = ECC_PER_BLOCK[version]!;
  const total = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blocks - (total % blocks);
  const shortData = Math.floor(total / blocks) - eccLength;
  const divisor = rsGenerator(eccLength);
  const dataBlocks: number[][] = [];
  const eccBlocks: number[][] = [];
  for (let i = 0, at = 0; i < blocks; i++) {
    const block = data.slice(at, at + shortData + (i < shortBlocks ? 0 : 1));
    at += block.length;
    dataBlocks.push(block);
    eccBlocks.push(rsRemainder(block, divisor));
  }
  const out: number[] = [];
  for (let i = 0; i <= shortData; i++) for (const block of dataBlocks) if (i < block.length) out.push(block[i]!);
  for (let i = 0; i < eccLength; i++) for (const block of eccBlocks) out.push(block[i]!);
  return out;
}

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D), generator 2.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++, x = x & 0x80 ? ((x << 1) ^ 0x11d) : x << 1) {
  EXP[i] = x;
  LOG[x] = i;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;

function gfMul(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!;
}

/** Coefficients of (x - 2^0)...(x - 2^(degree-1)), highest first, leading 1 dropped. */
function rsGenerator(degree: number): number[] {
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array<number>(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j]! ^= poly[j]!;
      next[j + 1]! ^= gfMul(poly[j]!, EXP[i]!);
    }
    poly = next;
  }
  return poly.slice(1);
}

/** The Reed-Solomon error correction codewords of one block. */
export function rsRemainder(data: number[], divisor: number[]): number[] {
  const rem = new Array<number>(divisor.length).fill(0);
  for (const byte of data) {
    const factor = byte ^ rem.shift()!;
    rem.push(0);
    for (let i = 0; i < divisor.length; i++) rem[i]! ^= gfMul(divisor[i]!, factor);
  }
  return rem;
}

/** Reed-Solomon codewords for `data` with `degree` of them (exported for tests). */
export function reedSolomon(data: number[], degree: number): number[] {
  return rsRemainder(data, rsGenerator(degree));
}

/** The 15 format bits (level M, mask) with their BCH code and XOR mask. */
export function formatBits(mask: number): number {
  const data = (LEVEL_M_BITS << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | (rem & 0x3ff)) ^ 0x5412;
}

/** The 18 version bits (versions 7 and up) with their BCH code. */
export function versionBits(version: number): number {
  let rem = version;
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
  return (version << 12) | (rem & 0xfff);
}

/** Centres of the alignment patterns on either axis. */
export function alignmentPositions(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = version * 4 + 17;
  const step = version === 32 ? 26 : Math.ceil((size - 13) / (count * 2 - 2)) * 2;
  const out = [6];
  for (let pos = size - 7; out.length < count; pos -= step) out.splice(1, 0, pos);
  return out;
}

class Matrix {
  readonly size: number;
  readonly dark: Uint8Array;
  /** Function modules: never data, never masked. */
  readonly fixed: Uint8Array;

  constructor(readonly version: number) {
    this.size = version * 4 + 17;
    this.dark = new Uint8Array(this.size * this.size);
    this.fixed = new Uint8Array(this.size * this.size);
  }

  private set(x: number, y: number, dark: boolean): void {
    this.dark[y * this.size + x] = dark ? 1 : 0;
    this.fixed[y * this.size + x] = 1;
  }

  drawFunctionPatterns(): void {
    const { size } = this;
    for (let i = 0; i < size; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]] as const) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx;
          const y = cy + dy;
          const ring = Math.max(Math.abs(dx), Math.abs(dy));
          if (x >= 0 && x < size && y >= 0 && y < size) this.set(x, y, ring !== 2 && ring !== 4);
        }
      }
    }
    const align = alignmentPositions(this.version);
    const last = align.length - 1;
    align.forEach((cx, i) =>
      align.forEach((cy, j) => {
        if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return; // finders
        for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }),
    );
    this.drawFormat(0); // reserves the format areas; redrawn with the chosen mask
    if (this.version >= 7) {
      const bits = versionBits(this.version);
      for (let i = 0; i < 18; i++) {
        const dark = ((bits >>> i) & 1) === 1;
        const a = size - 11 + (i % 3);
        const b = Math.floor(i / 3);
        this.set(a, b, dark);
        this.set(b, a, dark);
      }
    }
  }

  drawFormat(mask: number): void {
    const { size } = this;
    const bits = formatBits(mask);
    const bit = (i: number) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(i));
    this.set(8, 7, bit(6));
    this.set(8, 8, bit(7));
    this.set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set(8, size - 15 + i, bit(i));
    this.set(8, size - 8, true); // the dark module
  }

  /** Places the codewords in the two-column zigzag from the bottom right, skipping column 6. */
  drawCodewords(codewords: number[]): void {
    const { size } = this;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      const upward = ((right + 1) & 2) === 0;
      for (let step = 0; step < size; step++) {
        const y = upward ? size - 1 - step : step;
        for (const x of [right, right - 1]) {
          if (this.fixed[y * size + x] || i >= codewords.length * 8) continue;
          this.dark[y * size + x] = (codewords[i >>> 3]! >>> (7 - (i & 7))) & 1;
          i++;
        }
      }
    }
  }

  applyMask(mask: number): void {
    for (let y = 0; y < this.size; y++) {
      for (let x = 0; x < this.size; x++) {
        if (!this.fixed[y * this.size + x] && maskHits(mask, x, y)) this.dark[y * this.size + x]! ^= 1;
      }
    }
  }
}
