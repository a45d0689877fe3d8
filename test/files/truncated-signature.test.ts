import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiFile } from '@/lib/types/file';
import { sniffMediaType } from '@/server/files/sniff';
import { conversationWith } from '../agents/helpers';
import { makeUser } from '../support/users';
import { PNG, list, upload, type TestUser } from './helpers';

// A file that starts like a known format and then stops (a cut-off download, a corrupt image) makes file-type's
// parser run out of bytes: the upload must still be typed by the fallback, never answer 500 or be lost.
let ann: TestUser;
let chatId: string;

beforeAll(async () => {
  ann = await makeUser('ann');
  chatId = (await conversationWith(ann.id)).conversation.id;
});

const truncatedPng = PNG.slice(0, 12);
// An EBML (Matroska/WebM) header and an Ogg page cut right after their magic bytes.
const truncatedEbml = Uint8Array.from([0x1a, 0x45, 0xdf, 0xa3, 0x84]);
const truncatedOgg = Uint8Array.from([0x4f, 0x67, 0x67, 0x53, 0x00]);

describe('content sniffing of a cut-off file', () => {
  it('types a truncated PNG, EBML or Ogg head as binary instead of throwing', async () => {
    for (const head of [truncatedPng, truncatedEbml, truncatedOgg]) {
      await expect(sniffMediaType(head, false)).resolves.toBe('application/octet-stream');
    }
  });

  it('still recognises a whole PNG', async () => {
    await expect(sniffMediaType(PNG, false)).resolves.toBe('image/png');
  });

  it('an upload of a truncated PNG is stored as binary (201), not refused with a 500', async () => {
    const res = await upload(ann, 'conversation', chatId, 'broken.png', truncatedPng);
    expect(res.status).toBe(201);
    const { file } = (await res.json()) as { file: ApiFile };
    expect(file).toMatchObject({ name: 'broken.png', size: 12, mediaType: 'application/octet-stream' });
    const listed = (await (await list(ann, 'conversation', chatId)).json()) as { files: ApiFile[] };
    expect(listed.files.map((f) => f.id)).toEqual([file.id]);
  });
});
