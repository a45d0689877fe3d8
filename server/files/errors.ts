import 'server-only';
import { AppError } from '@/server/http/errors';

const mib = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB` : `${bytes.toLocaleString('en-US')} bytes`);

/** 413 past the per-file limit (LIMITS.files.maxBytes), naming the field a person fixes: the file. */
export const fileTooLarge = (limit: number) =>
  new AppError(413, 'file_too_large', `A file may be at most ${mib(limit)}`, { file: `At most ${mib(limit)}` });

/** 413 past the account's quota: nothing was stored. */
export const quotaExceeded = (quota: number) =>
  new AppError(413, 'file_quota_exceeded', `Your files may take at most ${mib(quota)} together`, { file: `Your files may take at most ${mib(quota)} together; delete some first` });
