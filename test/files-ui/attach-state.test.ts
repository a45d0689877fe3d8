import { describe, expect, it } from 'vitest';
import {
  attachBlocker,
  attachReducer,
  attachmentIds,
  emptyAttachState,
  progressPercent,
  roomFor,
  type AttachAction,
  type AttachState,
} from '@/components/files/attach-state';

const run = (...actions: AttachAction[]): AttachState => actions.reduce(attachReducer, emptyAttachState);

describe('attachReducer', () => {
  it('uploads, advances, and finishes with the stored name and id; the send then carries the id', () => {
    const state = run(
      { type: 'add', key: 'a1', name: 'report.md', size: 100 },
      { type: 'progress', key: 'a1', loaded: 40 },
      { type: 'done', key: 'a1', fileId: 'f1', name: 'report (2).md', size: 100 },
    );
    expect(state.items).toEqual([{ key: 'a1', name: 'report (2).md', size: 100, status: 'done', loaded: 100, fileId: 'f1', error: null }]);
    expect(attachmentIds(state)).toEqual(['f1']);
    expect(attachBlocker(state)).toBeNull();
  });

  it('never moves progress backwards, past the size, or after the upload ended', () => {
    let state = run({ type: 'add', key: 'a1', name: 'x', size: 100 }, { type: 'progress', key: 'a1', loaded: 60 });
    state = attachReducer(state, { type: 'progress', key: 'a1', loaded: 30 });
    expect(state.items[0]?.loaded).toBe(60);
    state = attachReducer(state, { type: 'progress', key: 'a1', loaded: 500 });
    expect(state.items[0]?.loaded).toBe(100);
    state = attachReducer(state, { type: 'failed', key: 'a1', error: 'Too large' });
    const after = attachReducer(state, { type: 'progress', key: 'a1', loaded: 100 });
    expect(after).toBe(state);
  });

  it('a cancel (remove while uploading) forgets it: a late answer for it changes nothing', () => {
    const cancelled = run({ type: 'add', key: 'a1', name: 'big.bin', size: 10 }, { type: 'remove', key: 'a1' });
    expect(cancelled.items).toEqual([]);
    expect(attachReducer(cancelled, { type: 'done', key: 'a1', fileId: 'f1', name: 'big.bin', size: 10 })).toBe(cancelled);
    expect(attachReducer(cancelled, { type: 'failed', key: 'a1', error: 'x' })).toBe(cancelled);
  });

  it('holds a send while any upload runs, and while a failed one is still listed', () => {
    const uploading = run({ type: 'add', key: 'a1', name: 'a', size: 1 }, { type: 'add', key: 'a2', name: 'b', size: 1 }, { type: 'done', key: 'a1', fileId: 'f1', name: 'a', size: 1 });
    expect(attachBlocker(uploading)).toBe('Wait for the attachments to finish uploading, or cancel them.');
    expect(attachmentIds(uploading)).toEqual(['f1']);
    const failed = attachReducer(uploading, { type: 'failed', key: 'a2', error: 'This file is larger than 25 MB.' });
    expect(failed.items[1]).toMatchObject({ status: 'failed', error: 'This file is larger than 25 MB.', fileId: null });
    expect(attachBlocker(failed)).toBe('Remove the attachments that could not be uploaded first.');
    expect(attachmentIds(failed)).toEqual(['f1']);
    expect(attachBlocker(attachReducer(failed, { type: 'remove', key: 'a2' }))).toBeNull();
  });

  it('after a send, only the files it carried leave; one attached meanwhile stays', () => {
    const state = run(
      { type: 'add', key: 'a1', name: 'a', size: 1 },
      { type: 'done', key: 'a1', fileId: 'f1', name: 'a', size: 1 },
      { type: 'add', key: 'a2', name: 'b', size: 1 },
      { type: 'done', key: 'a2', fileId: 'f2', name: 'b', size: 1 },
    );
    const after = attachReducer(state, { type: 'sent', fileIds: ['f1'] });
    expect(after.items.map((i) => i.fileId)).toEqual(['f2']);
    expect(attachReducer(after, { type: 'sent', fileIds: ['nope'] })).toBe(after);
  });

  it('ignores a second add under the same key, and a refusal notice clears on the next add', () => {
    const state = run({ type: 'add', key: 'a1', name: 'a', size: 1 }, { type: 'add', key: 'a1', name: 'other', size: 9 });
    expect(state.items).toHaveLength(1);
    const refused = attachReducer(state, { type: 'refuse', notice: '1 file was not attached' });
    expect(refused.notice).toBe('1 file was not attached');
    expect(attachReducer(refused, { type: 'add', key: 'a2', name: 'b', size: 1 }).notice).toBeNull();
  });
});

describe('roomFor', () => {
  it('has room up to the bound, none at it and none past it', () => {
    const nine = run(...Array.from({ length: 9 }, (_, i): AttachAction => ({ type: 'add', key: `k${i}`, name: `${i}`, size: 1 })));
    expect(roomFor(nine, 10)).toBe(1);
    const ten = attachReducer(nine, { type: 'add', key: 'k9', name: '9', size: 1 });
    expect(roomFor(ten, 10)).toBe(0);
    const eleven = attachReducer(ten, { type: 'add', key: 'k10', name: '10', size: 1 });
    expect(roomFor(eleven, 10)).toBe(0);
  });
});

describe('progressPercent', () => {
  it('is whole percent of the size, 100 when done, 0 for an empty file still uploading', () => {
    expect(progressPercent({ loaded: 1, size: 3, status: 'uploading' })).toBe(33);
    expect(progressPercent({ loaded: 3, size: 3, status: 'uploading' })).toBe(100);
    expect(progressPercent({ loaded: 0, size: 0, status: 'uploading' })).toBe(0);
    expect(progressPercent({ loaded: 0, size: 0, status: 'done' })).toBe(100);
  });
});
