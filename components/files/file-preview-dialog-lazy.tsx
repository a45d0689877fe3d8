'use client';

import dynamic from 'next/dynamic';

/** The preview (Markdown, versions, diff) is loaded when a file is opened, not with the page. */
export const FilePreviewDialog = dynamic(() => import('./file-preview-dialog'), { ssr: false });
