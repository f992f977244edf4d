// What a mobile build file is, decided from its name alone (the spec: "fileName ... used for file type detection").

export type BuildPlatform = 'ios' | 'android';

export type BuildFileType = 'apk' | 'aab' | 'ipa' | 'app-zip' | 'app-tar-gz';

const byExtension: { suffix: string; type: BuildFileType; platform: BuildPlatform }[] = [
  { suffix: '.apk', type: 'apk', platform: 'android' },
  { suffix: '.aab', type: 'aab', platform: 'android' },
  { suffix: '.ipa', type: 'ipa', platform: 'ios' },
  // A simulator `.app` is a directory, so it arrives zipped (QA.tech's mobile page asks for .zip or .tar.gz).
  { suffix: '.tar.gz', type: 'app-tar-gz', platform: 'ios' },
  { suffix: '.tgz', type: 'app-tar-gz', platform: 'ios' },
  { suffix: '.zip', type: 'app-zip', platform: 'ios' },
];

export const supportedBuildExtensions = byExtension.map((e) => e.suffix);

/** The type and platform of a build file by its (case-insensitive) extension; undefined when unsupported. */
export function buildFileType(fileName: string): { type: BuildFileType; platform: BuildPlatform } | undefined {
  const lower = fileName.trim().toLowerCase();
  const match = byExtension.find((e) => lower.endsWith(e.suffix) && lower.length > e.suffix.length);
  return match && { type: match.type, platform: match.platform };
}

export function platformOfType(type: BuildFileType): BuildPlatform {
  return byExtension.find((e) => e.type === type)!.platform;
}

export const isBuildFileType = (value: string): value is BuildFileType => byExtension.some((e) => e.type === value);
