import 'server-only';
import { formatBytes } from '@/lib/byte-size';
import { AppError } from '@/server/http/errors';

const size = (bytes: number) => formatBytes(bytes, 'en');

/** 413 past the per-file limit (LIMITS.files.maxBytes), naming the field a person fixes: the file. */
export const fileTooLarge = (limit: number) =>
  new AppError(413, 'file_too_large', `A file may be at most ${size(limit)}`, { file: `At most ${size(limit)}` });

/** 413 past the account's quota: nothing was stored. */
export const quotaExceeded = (quota: number) =>
  new AppError(413, 'file_quota_exceeded', `Your files may take at most ${size(quota)} together`, { file: `Your files may take at most ${size(quota)} together; delete some first` });
