// QR codes as PNG images: the symbol with its 4-module quiet zone stretched over a square of
// the asked size (each pixel takes its nearest module, as go-qrcode draws), 1-bit grayscale.

import { crc32, deflateSync } from 'node:zlib';
import { encodeQr } from './qr-code.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const QUIET_ZONE = 4;

/** A PNG of `text` (UTF-8) as a QR code, `sizePx` wide and high (at least one pixel a module). */
export function qrCodePng(text: string, sizePx = 256): Buffer {
  const qr = encodeQr(Buffer.from(text, 'utf8'));
  const modules = qr.size + 2 * QUIET_ZONE;
  const size = Math.max(sizePx, modules);
  const rowBytes = Math.ceil(size / 8);
  const raw = Buffer.alloc((rowBytes + 1) * size); // each row: filter type 0, then the bits
  for (let y = 0; y < size; y++) {
    const my = Math.floor((y * modules) / size) - QUIET_ZONE;
    for (let x = 0; x < size; x++) {
      const mx = Math.floor((x * modules) / size) - QUIET_ZONE;
      const dark = mx >= 0 && my >= 0 && mx < qr.size && my < qr.size && qr.modules[my * qr.size + mx] === 1;
      if (!dark) raw[y * (rowBytes + 1) + 1 + (x >>> 3)]! |= 0x80 >>> (x & 7); // 1 = white
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, no filter, no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}
