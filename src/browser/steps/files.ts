// Small valid files to upload, chosen by what the input accepts, and the type of a file read from its bytes.
// Valid means a real decoder takes them: a form that checks magic bytes or decodes the image sees a real file.
import { extname } from 'node:path';

interface FileKind {
  type: string;
  ext: string[];
  mimeType: string;
  bytes: () => Buffer;
}

// A 1x1 transparent PNG and a 1x1 baseline JPEG, both decoded by browsers.
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const jpeg =
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=';

/** A one-page PDF with a correct cross-reference table (readers reject one without). */
export function minimalPdf(text = 'Proctor test upload'): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const kinds: FileKind[] = [
  { type: 'png', ext: ['.png'], mimeType: 'image/png', bytes: () => Buffer.from(png, 'base64') },
  { type: 'jpeg', ext: ['.jpg', '.jpeg'], mimeType: 'image/jpeg', bytes: () => Buffer.from(jpeg, 'base64') },
  { type: 'pdf', ext: ['.pdf'], mimeType: 'application/pdf', bytes: () => minimalPdf() },
  { type: 'csv', ext: ['.csv'], mimeType: 'text/csv', bytes: () => Buffer.from('name,quantity\nCoffee mug,1\n') },
  { type: 'text', ext: ['.txt'], mimeType: 'text/plain', bytes: () => Buffer.from('Proctor test upload\n') },
];
const textKind = kinds.at(-1)!;

function kindOfName(name: string): FileKind | undefined {
  const ext = extname(name).toLowerCase();
  return kinds.find((k) => k.ext.includes(ext));
}

function accepts(token: string, kind: FileKind): boolean {
  if (token === '*/*' || token === kind.mimeType || kind.ext.includes(token)) return true;
  return token.endsWith('/*') && kind.mimeType.startsWith(token.slice(0, -1));
}

/**
 * The file name to upload to an input with this `accept`: the requested one when its type is accepted (or the
 * input takes anything), else the requested name with the first accepted type we can generate.
 */
export function uploadNameFor(accept: string | null, requested?: string): string {
  const tokens = (accept ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  const base = requested?.trim() || 'upload.txt';
  const asked = kindOfName(base);
  if (tokens.length === 0 || (asked && tokens.some((t) => accepts(t, asked)))) return asked ? base : `${base}.txt`;
  const fit = tokens.map((t) => kinds.find((k) => accepts(t, k))).find(Boolean) ?? textKind;
  return `${base.replace(/\.[^.]*$/, '')}.${fit.ext[0]!.slice(1)}`;
}

/** The generated file for a recorded name: its type follows the extension (text when unknown). */
export function generatedFile(name: string): { name: string; mimeType: string; buffer: Buffer } {
  const kind = kindOfName(name) ?? textKind;
  return { name, mimeType: kind.mimeType, buffer: kind.bytes() };
}

/** The type of a file from its first bytes (the name only tells text formats apart). */
export function fileTypeOf(bytes: Buffer, name = ''): string {
  const starts = (hex: string) => bytes.subarray(0, hex.length / 2).equals(Buffer.from(hex, 'hex'));
  if (starts('89504e470d0a1a0a')) return 'png';
  if (starts('ffd8ff')) return 'jpeg';
  if (starts('255044462d')) return 'pdf';
  if (starts('47494638')) return 'gif';
  if (starts('504b0304')) return 'zip';
  if (bytes.length === 0) return 'empty';
  // Text: no NUL and valid UTF-8 in the first 4 KiB (a character cut at the end is not an error: stream mode).
  const head = bytes.subarray(0, 4096);
  if (head.includes(0) || !isUtf8(head)) return 'binary';
  const kind = kindOfName(name);
  if (kind?.type === 'csv') return 'csv';
  if (/\.json$/i.test(name)) return 'json';
  return 'text';
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
