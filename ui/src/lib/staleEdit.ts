import { ApiError } from '../api/client';

/**
 * A save refused because someone else saved the record after this form read it: the server's
 * version check answers 409 without naming a field (a duplicate name names its field).
 */
export function isStaleEdit(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409 && !error.field;
}
