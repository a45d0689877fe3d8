import 'server-only';
import { createTwoFilesPatch } from 'diff';
import { LIMITS } from '@/lib/limits';
import type { FileRow, FileVersionRow } from '@/server/db/schema';
import { AppError } from '@/server/http/errors';
import { versionBytes } from './files';
import { TEXT_MEDIA_TYPE } from './sniff';
import { decodeAll } from './text';

/** A unified diff of two text versions; 422 for binary ones or ones past LIMITS.files.diffBytes. */
export async function diffVersions(file: FileRow, from: FileVersionRow, to: FileVersionRow): Promise<string> {
  for (const [field, version] of [['from', from], ['to', to]] as const) {
    if (version.mediaType !== TEXT_MEDIA_TYPE) throw new AppError(422, 'not_text', 'Only text versions can be compared', { [field]: `Revision ${version.revision} is not text` });
    if (Number(version.size) > LIMITS.files.diffBytes) {
      throw new AppError(422, 'too_large_to_diff', `Versions larger than ${LIMITS.files.diffBytes.toLocaleString('en-US')} bytes are not compared`, { [field]: `Revision ${version.revision} is too large to compare` });
    }
  }
  const [a, b] = await Promise.all([decodeAll(versionBytes(from)), decodeAll(versionBytes(to))]);
  return createTwoFilesPatch(`${file.name}@${from.revision}`, `${file.name}@${to.revision}`, a, b, '', '', { context: 3 });
}
