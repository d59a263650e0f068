/**
 * The server's evaluation of the group being ticked in the manual dialog (POST
 * /recon/{slug}/evaluate): asked once both sides have a record and the ticking has paused for
 * EVALUATE_DELAY_MS, so a run of clicks costs one call. Only the answer for the records ticked
 * now counts: an answer to an earlier set is dropped, and until the current one comes the
 * evaluation is pending.
 */
import { useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import { reconApi, type GroupEvaluation, type GroupIds } from './recon';

export const EVALUATE_DELAY_MS = 250;

export type Evaluation =
  /** Not both sides ticked: nothing to evaluate. */
  | { state: 'idle' }
  | { state: 'pending' }
  | { state: 'done'; data: GroupEvaluation }
  /** The call failed; `error` is the failure, for the caller to put in words. */
  | { state: 'failed'; error: unknown }
  /** A server without the evaluate call (404 without a code): the dialog keeps its own sums. */
  | { state: 'unavailable' };

const IDLE: Evaluation = { state: 'idle' };
const PENDING: Evaluation = { state: 'pending' };

export function useGroupEvaluation(slug: string, ids: GroupIds, enabled = true): Evaluation {
  const key = enabled && ids.leftIds.length > 0 && ids.rightIds.length > 0 ? JSON.stringify({ slug, ...ids }) : null;
  const [answer, setAnswer] = useState<{ key: string; result: Evaluation } | null>(null);

  useEffect(() => {
    if (key === null) return undefined;
    let current = true;
    const { slug: level, leftIds, rightIds } = JSON.parse(key) as GroupIds & { slug: string };
    const timer = setTimeout(() => {
      reconApi.evaluate(level, { leftIds, rightIds }).then(
        (data) => current && setAnswer({ key, result: { state: 'done', data } }),
        (error: unknown) => {
          if (!current) return;
          const missing = error instanceof ApiError && error.status === 404 && !error.code;
          setAnswer({ key, result: missing ? { state: 'unavailable' } : { state: 'failed', error } });
        },
      );
    }, EVALUATE_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key]);

  if (key === null) return IDLE;
  return answer?.key === key ? answer.result : PENDING;
}
