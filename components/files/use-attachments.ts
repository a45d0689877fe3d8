'use client';

import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { FileScope } from '@/lib/types/file';
import { attachBlocker, attachReducer, attachmentIds, emptyAttachState, roomFor, type AttachState } from './attach-state';
import { refusedBeyond } from './file-format';
import { fileKeys } from './queries';
import { isAbort, uploadErrorMessage, uploadFile } from './upload';

export type Attachments = {
  state: AttachState;
  /** Upload these files now (a pick, a drop or a paste); past `max` the rest is refused in words. */
  add: (files: readonly File[]) => void;
  /** Stop an upload in flight (its request is aborted) and forget it. */
  cancel: (key: string) => void;
  /** Forget a finished or failed one (the stored file stays in the scope's Files). */
  remove: (key: string) => void;
  /** After a send: the ids it carried leave the list. */
  markSent: (fileIds: readonly string[]) => void;
  /** The finished uploads' ids, for the send's `attachments`. */
  ids: string[];
  /** Why a send must wait, or null. */
  blocker: string | null;
  /** Spread on the element files may be dropped on. */
  dropProps: {
    onDragEnter: (e: DragEvent) => void;
    onDragOver: (e: DragEvent) => void;
    onDragLeave: (e: DragEvent) => void;
    onDrop: (e: DragEvent) => void;
  };
  /** A file being dragged over the drop target (to show where it lands). */
  dragging: boolean;
  /** On a text field's container: a pasted file (a screenshot) is attached; pasted text stays text. */
  onPaste: (e: ClipboardEvent) => void;
};

const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');

/**
 * Uploads for one scope (a team's workspace, a chat): the attach control of both composers and the Files panel.
 * Each file uploads as soon as it is added, so a send only waits for what is still on its way. `autoClear` (the
 * Files panel) lets finished uploads leave at once: the list shows them.
 */
export function useAttachments(where: FileScope, { max, autoClear = false }: { max: number; autoClear?: boolean }): Attachments {
  // Callers pass a fresh object each render: the uploads follow the scope's identity, not the object's.
  const { kind, id } = where;
  const scope = useMemo((): FileScope => (kind === 'team' ? { kind, id } : { kind, id }), [kind, id]);
  const [state, dispatch] = useReducer(attachReducer, emptyAttachState);
  const [dragging, setDragging] = useState(false);
  const queryClient = useQueryClient();
  const controllers = useRef(new Map<string, AbortController>());
  const nextKey = useRef(0);
  // The newest state for add(), which counts the room left without being re-created on every progress event.
  const latest = useRef(state);
  useEffect(() => {
    latest.current = state;
  }, [state]);

  // Leaving the page (or the chat) stops what is still uploading.
  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
      running.clear();
    };
  }, []);

  const add = useCallback(
    (files: readonly File[]) => {
      if (files.length === 0) return;
      const room = roomFor(latest.current, max);
      const taken = files.slice(0, room);
      for (const file of taken) {
        const key = `a${++nextKey.current}`;
        const controller = new AbortController();
        controllers.current.set(key, controller);
        dispatch({ type: 'add', key, name: file.name, size: file.size });
        uploadFile(scope, file, { signal: controller.signal, onProgress: (loaded) => dispatch({ type: 'progress', key, loaded }) }).then(
          (stored) => {
            controllers.current.delete(key);
            dispatch({ type: 'done', key, fileId: stored.id, name: stored.name, size: stored.size });
            if (autoClear) dispatch({ type: 'remove', key });
            void queryClient.invalidateQueries({ queryKey: fileKeys.scope(scope) });
          },
          (err: unknown) => {
            controllers.current.delete(key);
            if (!isAbort(err)) dispatch({ type: 'failed', key, error: uploadErrorMessage(err) });
          },
        );
      }
      if (taken.length < files.length) {
        dispatch({ type: 'refuse', notice: refusedBeyond(files.length - taken.length, max, autoClear ? 'panel' : 'message') });
      }
    },
    [scope, max, autoClear, queryClient],
  );

  const cancel = useCallback((key: string) => {
    controllers.current.get(key)?.abort();
    controllers.current.delete(key);
    dispatch({ type: 'remove', key });
  }, []);
  const remove = useCallback((key: string) => dispatch({ type: 'remove', key }), []);
  const markSent = useCallback((fileIds: readonly string[]) => dispatch({ type: 'sent', fileIds }), []);

  const dropProps = useMemo(
    () => ({
      onDragEnter: (e: DragEvent) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(true);
      },
      onDragOver: (e: DragEvent) => {
        if (!hasFiles(e)) return;
        // Without this the browser opens the dropped file in place of the page.
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: (e: DragEvent) => {
        // Moving over a child fires leave on the parent: only leaving the target itself ends the drag.
        if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
        setDragging(false);
      },
      onDrop: (e: DragEvent) => {
        setDragging(false);
        if (!hasFiles(e)) return;
        e.preventDefault();
        add(Array.from(e.dataTransfer.files));
      },
    }),
    [add],
  );

  const onPaste = useCallback(
    (e: ClipboardEvent) => {
      const files = Array.from(e.clipboardData?.files ?? []);
      if (files.length === 0) return;
      e.preventDefault();
      add(files);
    },
    [add],
  );

  return { state, add, cancel, remove, markSent, ids: attachmentIds(state), blocker: attachBlocker(state), dropProps, dragging, onPaste };
}
