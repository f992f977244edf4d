import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { create as createTar } from 'tar';
import yazl from 'yazl';

// Tiny but structurally real mobile builds: the entries the server looks for, plus filler like a real build.

const plist =
  '<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.shop</string></dict></plist>';

export async function zipOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries))
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function tarGzOf(entries: Record<string, string>): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-tar-'));
  try {
    for (const [name, content] of Object.entries(entries)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), content);
    }
    const roots = [...new Set(Object.keys(entries).map((n) => n.split('/')[0]!))];
    const chunks: Buffer[] = [];
    for await (const chunk of createTar({ gzip: true, cwd: dir }, roots)) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const fixtures = {
  apk: () =>
    zipOf({
      'AndroidManifest.xml': Buffer.from([0x03, 0x00, 0x08, 0x00]),
      'classes.dex': 'dex\n035\0',
      'resources.arsc': '',
    }),
  aab: () =>
    zipOf({
      'BundleConfig.pb': Buffer.from([0x0a, 0x02]),
      'base/manifest/AndroidManifest.xml': Buffer.from([0x0a]),
      'base/dex/classes.dex': 'dex',
    }),
  ipa: () => zipOf({ 'Payload/Shop.app/Info.plist': plist, 'Payload/Shop.app/Shop': 'binary' }),
  simulatorZip: () => zipOf({ 'Shop.app/Info.plist': plist, 'Shop.app/Shop': 'binary' }),
  simulatorTarGz: () => tarGzOf({ 'Shop.app/Info.plist': plist, 'Shop.app/Shop': 'binary' }),
};
