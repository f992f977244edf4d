import { describe, expect, it } from 'vitest';
import { checkDownload, downloadExpectation } from '../../src/browser/session/downloads.js';
import { fileTypeOf, generatedFile, minimalPdf, uploadNameFor } from '../../src/browser/steps/files.js';

describe('upload files chosen by what the input accepts', () => {
  it('keeps an accepted name and retypes one the input would refuse', () => {
    expect(uploadNameFor('image/png,image/jpeg,application/pdf', 'notes.txt')).toBe('notes.png');
    expect(uploadNameFor('application/pdf, image/*', 'scan')).toBe('scan.pdf');
    expect(uploadNameFor('image/*', 'scan.jpg')).toBe('scan.jpg');
    expect(uploadNameFor('.csv,text/csv', 'contacts.xlsx')).toBe('contacts.csv');
    expect(uploadNameFor(null, 'report.pdf')).toBe('report.pdf');
    expect(uploadNameFor('', undefined)).toBe('upload.txt');
  });

  it('generates each type with the bytes its readers check', () => {
    for (const [name, type, mimeType] of [
      ['a.png', 'png', 'image/png'],
      ['a.jpeg', 'jpeg', 'image/jpeg'],
      ['a.pdf', 'pdf', 'application/pdf'],
      ['a.csv', 'csv', 'text/csv'],
      ['a.txt', 'text', 'text/plain'],
    ] as const) {
      const file = generatedFile(name);
      expect(file.mimeType).toBe(mimeType);
      expect(fileTypeOf(file.buffer, name)).toBe(type);
    }
  });

  it('writes a PDF whose cross-reference table points at its objects', () => {
    const pdf = minimalPdf().toString('latin1');
    const xref = Number(/startxref\n(\d+)/.exec(pdf)![1]);
    expect(pdf.slice(xref, xref + 4)).toBe('xref');
    const offsets = [...pdf.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, i) => expect(pdf.slice(offset).startsWith(`${i + 1} 0 obj`)).toBe(true));
  });

  it('tells binary, empty and text files apart', () => {
    expect(fileTypeOf(Buffer.alloc(0))).toBe('empty');
    expect(fileTypeOf(Buffer.from([0, 1, 2, 255]))).toBe('binary');
    expect(fileTypeOf(Buffer.from('{"a":1}'), 'data.json')).toBe('json');
    expect(fileTypeOf(Buffer.from('Grüße'), 'notes.md')).toBe('text');
  });
});

describe('download expectations', () => {
  const invoice = { fileName: 'invoice-1042.pdf', path: '/tmp/x', size: 800, type: 'pdf' };

  it('records the name with its digits free, the size within bounds and the type', () => {
    const expected = downloadExpectation(invoice);
    expect(expected).toEqual({ fileNamePattern: '^invoice-\\d+\\.pdf$', minBytes: 200, maxBytes: 7296, type: 'pdf' });
    expect(() => checkDownload({ ...invoice, fileName: 'invoice-1043.pdf', size: 900 }, expected)).not.toThrow();
  });

  it('fails an empty file, another name, another type and an oversized file', () => {
    const expected = downloadExpectation(invoice);
    expect(() => checkDownload({ ...invoice, size: 0, type: 'empty' }, expected)).toThrow('it is empty');
    expect(() => checkDownload({ ...invoice, fileName: 'invoice-1042.pdf.html' }, expected)).toThrow(
      'its name does not match',
    );
    expect(() => checkDownload({ ...invoice, type: 'text' }, expected)).toThrow('it is text, not pdf');
    expect(() => checkDownload({ ...invoice, size: 10_000 }, expected)).toThrow('more than 7296');
    expect(() => downloadExpectation({ ...invoice, size: 0 })).toThrow('is empty');
  });
});
