import 'server-only';

export type ErrorBody = { error: { code: string; message: string; fields?: Record<string, string> } };

/** An error with an HTTP meaning. Route handlers turn it into `{ error: { code, message } }`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) } };
  }
}

export const unauthorized = () => new AppError(401, 'unauthorized', 'Sign in or send a valid API token');
/** Another owner's ids answer exactly like ids that never existed. */
export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const badRequest = (code: string, message: string) => new AppError(400, code, message);
export const validationError = (fields: Record<string, string>) => {
  const [first] = Object.entries(fields);
  const message = first ? `${first[0]}: ${first[1]}` : 'Invalid input';
  return new AppError(422, 'validation_error', message, fields);
};
export const tooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `Request body is larger than ${limit} bytes`);
