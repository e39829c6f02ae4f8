/** An error the sandbox answers as `{ status: false, message }` with an HTTP status (CONTRACT.md "Errors"). */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly code: string;

  constructor(
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = `HTTP_${status}`;
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const notFound = (message: string): HttpError => new HttpError(404, message);
export const unprocessable = (message: string): HttpError => new HttpError(422, message);
