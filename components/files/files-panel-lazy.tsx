'use client';

import dynamic from 'next/dynamic';
import { Spinner } from '@/components/ui/misc';

/**
 * The Files panel, loaded after the page (the team page's and the chat's first load carry none of it: its list,
 * uploads and dialogs come with this chunk). Its list is read from the API once it mounts.
 */
export const FilesPanelLazy = dynamic(() => import('./files-panel').then((m) => m.FilesPanel), {
  ssr: false,
  loading: () => <Spinner label="Loading files…" />,
});
