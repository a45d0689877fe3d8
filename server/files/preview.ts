import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { ApiFilePreview } from '@/lib/types/file';
import type { FileRow, FileVersionRow } from '@/server/db/schema';
import { DOCX_TYPE, PDF_TYPE, extractText } from './extract';
import { INLINE_IMAGE_TYPES } from './serve';
import { TEXT_MEDIA_TYPE } from './sniff';
import { textHead } from './text';

/** Code languages by extension: the preview's highlighting only (the type itself was decided by the bytes). */
const LANGUAGES: Record<string, string> = {
  ts: 'typescript', tsx: 'tsx', js: 'javascript', jsx: 'jsx', mjs: 'javascript', cjs: 'javascript', json: 'json', py: 'python',
  rb: 'ruby', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', c: 'c', h: 'c', cpp: 'cpp', cc: 'cpp', hpp: 'cpp', cs: 'csharp',
  php: 'php', sh: 'bash', bash: 'bash', zsh: 'bash', sql: 'sql', yaml: 'yaml', yml: 'yaml', toml: 'toml', css: 'css', scss: 'scss',
  html: 'html', xml: 'xml', svg: 'xml', swift: 'swift', lua: 'lua', r: 'r', dockerfile: 'dockerfile', ini: 'ini', csv: 'csv',
};

const extension = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot >= 0 ? name.slice(dot + 1).toLowerCase() : name.toLowerCase();
};

/** What a text file is for the preview: Markdown, code (with its language), or plain text. */
export function textKind(name: string): { kind: 'markdown' | 'code' | 'text'; language?: string } {
  const ext = extension(name);
  if (ext === 'md' || ext === 'markdown') return { kind: 'markdown' };
  const language = LANGUAGES[ext];
  return language ? { kind: 'code', language } : { kind: 'text' };
}

/** A bounded preview of a version: text (its head), a PDF's or DOCX's extracted text, an image, or binary. */
export async function previewVersion(file: FileRow, version: FileVersionRow): Promise<ApiFilePreview> {
  const max = LIMITS.files.previewChars;
  if (INLINE_IMAGE_TYPES.has(version.mediaType)) return { kind: 'image', truncated: false };
  if (version.mediaType === PDF_TYPE || version.mediaType === DOCX_TYPE) {
    const kind = version.mediaType === PDF_TYPE ? 'pdf' : 'docx';
    const extracted = await extractText(version, kind, max);
    if (!extracted.ok) return { kind, text: `(${extracted.reason})`, truncated: false };
    return { kind, text: extracted.text, truncated: extracted.truncated };
  }
  if (version.mediaType === TEXT_MEDIA_TYPE) {
    const head = await textHead(version, max);
    return { ...textKind(file.name), text: head.text, truncated: head.truncated };
  }
  return { kind: 'binary', truncated: false };
}

