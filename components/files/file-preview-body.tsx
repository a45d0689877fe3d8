'use client';

import { useQuery } from '@tanstack/react-query';
import { AssistantMarkdown } from '@/components/conversations/assistant-markdown';
import { LoadError } from '@/components/ui/load-error';
import { Alert, Spinner } from '@/components/ui/misc';
import { CodeViewLazy } from './code-view-lazy';
import { fileContentUrl } from './file-format';
import { filePreviewQuery } from './queries';

const TEXT_BOX =
  'max-h-[60vh] overflow-auto rounded-md bg-zinc-100 p-3 text-sm whitespace-pre-wrap break-words [overflow-wrap:anywhere] text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100';

/**
 * One version's preview, as the server read it (GET /preview): Markdown rendered without raw HTML (the chat's
 * renderer: images as links, safe URLs), code highlighted, text and a PDF's or DOCX's extracted text as plain text,
 * an image from the content route (served inline only for png/jpeg/gif/webp), anything else offered as a download.
 */
export function FilePreviewBody({ fileId, revision, name }: { fileId: string; revision: number; name: string }) {
  const query = useQuery(filePreviewQuery(fileId, revision));
  if (query.isPending) return <Spinner label="Loading the preview…" />;
  if (query.isError) return <LoadError query={query}>Couldn’t load the preview.</LoadError>;
  const preview = query.data;
  const text = preview.text ?? '';
  const truncated = preview.truncated ? (
    <Alert tone="info">Only the beginning is shown. Download the file to see all of it.</Alert>
  ) : null;

  switch (preview.kind) {
    case 'markdown':
      return (
        <div className="space-y-2">
          {truncated}
          <div className="max-h-[60vh] overflow-auto rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800" tabIndex={0} aria-label="Rendered Markdown">
            <AssistantMarkdown text={text} />
          </div>
        </div>
      );
    case 'code':
      return (
        <div className="space-y-2">
          {truncated}
          <CodeViewLazy code={text} language={preview.language ?? 'text'} />
        </div>
      );
    case 'image':
      return (
        // A plain <img> from our own content route: next/image would proxy and resize it through its optimizer.
        // eslint-disable-next-line @next/next/no-img-element
        <img src={fileContentUrl(fileId, revision, true)} alt={name} className="mx-auto max-h-[60vh] max-w-full rounded-md object-contain" />
      );
    case 'text':
    case 'pdf':
    case 'docx':
      return (
        <div className="space-y-2">
          {preview.kind !== 'text' ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">{`The text of this ${preview.kind === 'pdf' ? 'PDF' : 'Word document'}, without its layout.`}</p>
          ) : null}
          {truncated}
          <pre className={TEXT_BOX} tabIndex={0} aria-label="File text">
            {text === '' ? 'This file has no text.' : text}
          </pre>
        </div>
      );
    case 'binary':
      return <p className="text-sm text-zinc-700 dark:text-zinc-300">There is no preview for this kind of file. Download it to open it.</p>;
  }
}
