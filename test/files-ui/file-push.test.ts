import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyFilePush, parseFilePush } from '@/components/files/file-push';
import { fileKeys } from '@/components/files/queries';

const team = { kind: 'team', id: 't1' } as const;
const chat = { kind: 'conversation', id: 'c1' } as const;

describe('parseFilePush', () => {
  it('reads a file push of its own scope', () => {
    expect(parseFilePush(JSON.stringify({ fileId: 'f1', teamId: 't1', revision: 2 }), team)).toEqual({ fileId: 'f1', teamId: 't1', revision: 2 });
    expect(parseFilePush(JSON.stringify({ fileId: 'f1', conversationId: 'c1', revision: 1 }), chat)).toMatchObject({ fileId: 'f1' });
  });

  it('ignores another scope’s push, a chat’s push on a team of the same id, and broken data', () => {
    expect(parseFilePush(JSON.stringify({ fileId: 'f1', teamId: 't2', revision: 1 }), team)).toBeNull();
    expect(parseFilePush(JSON.stringify({ fileId: 'f1', conversationId: 't1', revision: 1 }), team)).toBeNull();
    expect(parseFilePush('{not json', team)).toBeNull();
    expect(parseFilePush('null', team)).toBeNull();
    expect(parseFilePush(JSON.stringify({ fileId: 3, teamId: 't1', revision: 1 }), team)).toBeNull();
    expect(parseFilePush(JSON.stringify({ fileId: 'f1', teamId: 't1' }), team)).toBeNull();
  });
});

describe('applyFilePush', () => {
  it('re-reads the scope’s list and the file’s versions, and leaves another scope’s list and a preview alone', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const reads: string[] = [];
    const observe = (key: readonly unknown[], name: string) =>
      client.fetchQuery({ queryKey: key, queryFn: async () => (reads.push(name), name), staleTime: Infinity });
    await observe(fileKeys.scope(team), 'team list');
    await observe(fileKeys.scope({ kind: 'team', id: 't2' }), 'other list');
    await observe(fileKeys.file('f1'), 'f1 detail');
    await observe(fileKeys.preview('f1', 1), 'f1 preview');
    reads.length = 0;

    expect(applyFilePush(client, team, JSON.stringify({ fileId: 'f1', teamId: 't1', revision: 2 }))).toBe(true);
    // Queries no component observes are marked stale rather than read now; both of ours are.
    expect(client.getQueryState(fileKeys.scope(team))?.isInvalidated).toBe(true);
    expect(client.getQueryState(fileKeys.file('f1'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(fileKeys.scope({ kind: 'team', id: 't2' }))?.isInvalidated).toBe(false);
    expect(client.getQueryState(fileKeys.preview('f1', 1))?.isInvalidated).toBe(false);

    expect(applyFilePush(client, team, JSON.stringify({ fileId: 'f9', teamId: 'elsewhere', revision: 1 }))).toBe(false);
  });
});
