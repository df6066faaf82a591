// Writes the reading site's PNG icons (www/icons/icon-192.png, icon-512.png) with node's zlib:
// an open book, pale pages on the theme colour. Run once; the PNGs are committed.
//   node scripts/make-icons.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** The colour of pixel (x, y) of a `size` icon: background, two pages, a spine. */
function pixel(x, y, size) {
  const u = x / size, v = y / size;
  const inBook = v > 0.28 && v < 0.74 && u > 0.16 && u < 0.84;
  if (inBook && Math.abs(u - 0.5) < 0.012) return [59, 74, 107];
  const line = inBook && Math.abs(u - 0.5) > 0.06 && Math.abs(u - 0.5) < 0.28 && Math.round(v * 40) % 4 === 0 && v > 0.34 && v < 0.68;
  if (line) return [160, 150, 130];
  if (inBook) return [250, 248, 244];
  return [59, 74, 107];
}

function png(size) {
  const rows = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    rows[y * (1 + size * 3)] = 0;
    for (let x = 0; x < size; x++) {
      const at = y * (1 + size * 3) + 1 + x * 3;
      [rows[at], rows[at + 1], rows[at + 2]] = pixel(x, y, size);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const size of [192, 512]) writeFileSync(new URL(`../www/icons/icon-${size}.png`, import.meta.url), png(size));
