import 'server-only';
import { listFiles, ownedFile, fileVersion, versionBytes } from '@/server/files/files';
import { resolveScope } from '@/server/files/scope';
import { TEXT_MEDIA_TYPE } from '@/server/files/sniff';
import { zipChunks, type ZipEntry } from '@/server/files/zip-stream';
import { attachmentHeader, exportTeam } from './export';

export type TeamZipExport = { filename: string; contentDisposition: string; contentType: string; chunks: AsyncGenerator<Uint8Array, void, undefined> };

async function* encoded(chunks: AsyncIterable<string>): AsyncIterable<Uint8Array> {
  const encoder = new TextEncoder();
  for await (const text of chunks) yield encoder.encode(text);
}

/**
 * The team as a ZIP, streamed: `team.md` and `team.json` (the two other formats, whole) and `files/<name>` for each
 * workspace file's latest version (names are already free of separators, so no entry leaves files/). The ownership
 * check is the other exports' (404 before any byte); each file is read only when the archive reaches it.
 */
export async function exportTeamZip(ownerId: string, teamId: string, now = new Date()): Promise<TeamZipExport> {
  const md = await exportTeam(ownerId, teamId, 'md', now);
  const json = await exportTeam(ownerId, teamId, 'json', now);
  const scope = await resolveScope(ownerId, { kind: 'team', id: teamId });
  const files = await listFiles(scope);
  async function* entries(): AsyncIterable<ZipEntry> {
    yield { name: 'team.md', chunks: encoded(md.chunks), compress: true };
    yield { name: 'team.json', chunks: encoded(json.chunks), compress: true };
    for (const view of files) {
      // A file deleted while the archive streams is left out rather than failing the download.
      const file = await ownedFile(ownerId, view.id).catch(() => null);
      if (!file) continue;
      const version = await fileVersion(file);
      yield { name: `files/${file.name}`, chunks: versionBytes(version), compress: version.mediaType === TEXT_MEDIA_TYPE };
    }
  }
  const filename = md.filename.replace(/\.md$/, '.zip');
  const display = md.contentDisposition.match(/filename\*=UTF-8''(.*)$/)?.[1];
  return {
    filename,
    contentDisposition: attachmentHeader(filename, display ? decodeURIComponent(display).replace(/\.md$/, '.zip') : filename),
    contentType: 'application/zip',
    chunks: zipChunks(entries()),
  };
}
