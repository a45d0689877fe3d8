/**
 * The attachments a composer holds before it sends (the one attach control, attach-control.tsx): each file the
 * person picked, dropped or pasted is uploaded at once; the message is sent with the ids of those that finished.
 * A pure reducer, so every path — progress, cancel, a refusal, a removal, the send — is tested without a browser.
 *
 *   uploading ──progress──▶ uploading ──done──▶ done ──sent──▶ (gone)
 *       │                        │                 └──remove──▶ (gone)
 *       └──cancel (abort)──▶ (gone)   └──failed──▶ failed ──remove──▶ (gone)
 */
export type AttachmentStatus = 'uploading' | 'done' | 'failed';

export type PendingAttachment = {
  /** A local key (the upload has no file id until the server answers). */
  key: string;
  name: string;
  size: number;
  status: AttachmentStatus;
  /** Bytes sent so far (for the progress bar). */
  loaded: number;
  fileId: string | null;
  /** Why the upload was refused, in words (a 413 says the limit). */
  error: string | null;
};

export type AttachState = { items: PendingAttachment[]; notice: string | null };

export type AttachAction =
  | { type: 'add'; key: string; name: string; size: number }
  | { type: 'refuse'; notice: string }
  | { type: 'progress'; key: string; loaded: number }
  | { type: 'done'; key: string; fileId: string; name: string; size: number }
  | { type: 'failed'; key: string; error: string }
  | { type: 'remove'; key: string }
  | { type: 'sent'; fileIds: readonly string[] };

export const emptyAttachState: AttachState = { items: [], notice: null };

const update = (state: AttachState, key: string, change: (item: PendingAttachment) => PendingAttachment | null): AttachState => {
  let changed = false;
  const items: PendingAttachment[] = [];
  for (const item of state.items) {
    if (item.key !== key) {
      items.push(item);
      continue;
    }
    const next = change(item);
    if (next !== item) changed = true;
    if (next) items.push(next);
  }
  return changed ? { ...state, items } : state;
};

export function attachReducer(state: AttachState, action: AttachAction): AttachState {
  switch (action.type) {
    case 'add':
      if (state.items.some((i) => i.key === action.key)) return state;
      return {
        notice: null,
        items: [...state.items, { key: action.key, name: action.name, size: action.size, status: 'uploading', loaded: 0, fileId: null, error: null }],
      };
    case 'refuse':
      return { ...state, notice: action.notice };
    case 'progress':
      // Progress only ever moves forward, and only while uploading (a late event after a cancel changes nothing).
      return update(state, action.key, (i) =>
        i.status === 'uploading' && action.loaded > i.loaded ? { ...i, loaded: Math.min(action.loaded, i.size) } : i,
      );
    case 'done':
      return update(state, action.key, (i) =>
        i.status === 'uploading' ? { ...i, status: 'done', loaded: action.size, size: action.size, name: action.name, fileId: action.fileId } : i,
      );
    case 'failed':
      return update(state, action.key, (i) => (i.status === 'uploading' ? { ...i, status: 'failed', error: action.error } : i));
    case 'remove':
      return { ...update(state, action.key, () => null), notice: null };
    case 'sent': {
      // Only what went with the message leaves: a file attached while the send was on its way stays for the next one.
      const sent = new Set(action.fileIds);
      const items = state.items.filter((i) => !(i.fileId !== null && sent.has(i.fileId)));
      return items.length === state.items.length ? state : { items, notice: null };
    }
  }
}

/** The ids a send carries: the finished uploads, in the order they were attached. */
export const attachmentIds = (state: AttachState): string[] =>
  state.items.flatMap((i) => (i.status === 'done' && i.fileId !== null ? [i.fileId] : []));

/**
 * Why the message can't go yet, or null: an upload still running would be left out of a send made now; a failed
 * one must be removed first so the person sees it was not attached.
 */
export function attachBlocker(state: AttachState): string | null {
  if (state.items.some((i) => i.status === 'uploading')) return 'Wait for the attachments to finish uploading, or cancel them.';
  if (state.items.some((i) => i.status === 'failed')) return 'Remove the attachments that could not be uploaded first.';
  return null;
}

/** How many more files may be attached: the rest of a pick past the bound is refused in words. */
export function roomFor(state: AttachState, max: number): number {
  return Math.max(0, max - state.items.length);
}

/** The progress bar's value, 0–100. */
export const progressPercent = (item: Pick<PendingAttachment, 'loaded' | 'size' | 'status'>): number =>
  item.status === 'done' ? 100 : item.size <= 0 ? 0 : Math.min(100, Math.floor((item.loaded / item.size) * 100));
