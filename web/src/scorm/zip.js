// A minimal ZIP writer: every entry stored (no compression), with its CRC-32,
// a local header before its data, the central directory and the end record
// after them (APPNOTE 6.3: no ZIP64, so under 65535 entries and 4 GiB). Names
// are UTF-8 (general-purpose bit 11). Pure bytes in and out: runs in the
// browser and in Node.

let crcTable = null;

/** The CRC-32 (IEEE 802.3, as ZIP uses it) of `bytes`. */
export function crc32(bytes) {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// MS-DOS date and time (local time, 2-second steps, 1980..2107).
function dosDateTime(date) {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

const UTF8 = 0x0800; // general-purpose flag: the name is UTF-8
const VERSION = 20; // version needed to extract (2.0)

/**
 * The bytes of a ZIP archive holding `files` ([{name, data}], data a Uint8Array
 * or a string, written as UTF-8), in that order, all stored. Names use '/',
 * are relative, and are unique.
 * @param {{name: string, data: Uint8Array|string}[]} files
 * @param {{date?: Date}} [options] the entries' modification time (default: now)
 * @returns {Uint8Array}
 */
export function zipStored(files, { date = new Date() } = {}) {
  const enc = new TextEncoder();
  const stamp = dosDateTime(date);
  const seen = new Set();
  const entries = files.map(({ name, data }) => {
    if (
      typeof name !== 'string' ||
      !name ||
      name.startsWith('/') ||
      name.includes('\\') ||
      name.split('/').includes('..')
    )
      throw new Error(`zip: bad entry name ${JSON.stringify(name)}`);
    if (seen.has(name)) throw new Error(`zip: ${name} is given twice`);
    seen.add(name);
    const bytes = typeof data === 'string' ? enc.encode(data) : new Uint8Array(data);
    return { name: enc.encode(name), bytes, crc: crc32(bytes), offset: 0 };
  });
  if (entries.length > 0xfffe) throw new Error('zip: too many entries (no ZIP64)');

  const localSize = entries.reduce((s, e) => s + 30 + e.name.length + e.bytes.length, 0);
  const centralSize = entries.reduce((s, e) => s + 46 + e.name.length, 0);
  const total = localSize + centralSize + 22;
  if (total > 0xffffffff) throw new Error('zip: too large (no ZIP64)');
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let p = 0;
  const u16 = (v) => {
    view.setUint16(p, v, true);
    p += 2;
  };
  const u32 = (v) => {
    view.setUint32(p, v >>> 0, true);
    p += 4;
  };
  const bytes = (b) => {
    out.set(b, p);
    p += b.length;
  };
  // the fields local headers and central records share, from "version needed" to the name length
  const common = (e) => {
    u16(VERSION);
    u16(UTF8);
    u16(0); // stored
    u16(stamp.time);
    u16(stamp.date);
    u32(e.crc);
    u32(e.bytes.length); // compressed size
    u32(e.bytes.length); // uncompressed size
    u16(e.name.length);
  };

  for (const e of entries) {
    e.offset = p;
    u32(0x04034b50);
    common(e);
    u16(0); // extra field length
    bytes(e.name);
    bytes(e.bytes);
  }
  const centralStart = p;
  for (const e of entries) {
    u32(0x02014b50);
    u16((3 << 8) | VERSION); // made by: Unix, 2.0 (gives the entries plain file permissions)
    common(e);
    u16(0); // extra field length
    u16(0); // comment length
    u16(0); // disk number
    u16(0); // internal attributes
    u32((0o100644 << 16) >>> 0); // external attributes: a regular file, rw-r--r--
    u32(e.offset);
    bytes(e.name);
  }
  const centralBytes = p - centralStart;
  u32(0x06054b50);
  u16(0); // this disk
  u16(0); // disk with the central directory
  u16(entries.length);
  u16(entries.length);
  u32(centralBytes); // size of the central directory
  u32(centralStart);
  u16(0); // comment length
  return out;
}
