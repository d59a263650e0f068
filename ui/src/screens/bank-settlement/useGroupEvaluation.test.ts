import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { ApiError } from '../../api/client';
import { reconApi, type GroupEvaluation, type GroupIds } from './recon';
import { EVALUATE_DELAY_MS, useGroupEvaluation } from './useGroupEvaluation';

const answer = (leftSum: string): GroupEvaluation => ({
  leftSum,
  rightSum: '250.00',
  leftCurrency: 'USD',
  rightCurrency: 'USD',
  variance: '0.00',
  dateLagDays: 0,
  inside: true,
  status: 'matched',
  tolerance: { amount: '1.00', days: 2, currencyPct: null },
  refusal: null,
});

/** The evaluate calls made, each answered when the test says so. */
function stubEvaluate() {
  const calls: Array<{ ids: GroupIds; reply(e: GroupEvaluation): Promise<GroupEvaluation>; fail(err: unknown): void }> = [];
  vi.spyOn(reconApi, 'evaluate').mockImplementation((_slug, ids) => {
    let resolve!: (e: GroupEvaluation) => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<GroupEvaluation>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    calls.push({
      ids,
      reply: (e) => {
        resolve(e);
        return promise;
      },
      fail: reject,
    });
    return promise;
  });
  return calls;
}

const render = (ids: GroupIds) => renderHook(({ ids }: { ids: GroupIds }) => useGroupEvaluation('ticket-transaction', ids), { initialProps: { ids } });

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('useGroupEvaluation', () => {
  it('asks once the ticking pauses, for the records ticked last, and drops an answer to an earlier set', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const calls = stubEvaluate();
    const { result, rerender } = render({ leftIds: [1], rightIds: [] });
    expect(result.current).toEqual({ state: 'idle' });

    rerender({ ids: { leftIds: [1], rightIds: [2] } });
    expect(result.current).toEqual({ state: 'pending' });
    await act(() => vi.advanceTimersByTimeAsync(EVALUATE_DELAY_MS - 1));
    // Another tick before the pause is over starts the wait again.
    rerender({ ids: { leftIds: [1, 3], rightIds: [2] } });
    await act(() => vi.advanceTimersByTimeAsync(EVALUATE_DELAY_MS - 1));
    expect(calls).toHaveLength(0);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(calls.map((c) => c.ids)).toEqual([{ leftIds: [1, 3], rightIds: [2] }]);

    // A record ticked while that call is out: the earlier answer, even when it comes, is not shown.
    rerender({ ids: { leftIds: [1, 3, 4], rightIds: [2] } });
    await act(() => vi.advanceTimersByTimeAsync(EVALUATE_DELAY_MS));
    expect(calls.map((c) => c.ids)).toEqual([
      { leftIds: [1, 3], rightIds: [2] },
      { leftIds: [1, 3, 4], rightIds: [2] },
    ]);
    await act(() => calls[0]!.reply(answer('400.00')));
    expect(result.current).toEqual({ state: 'pending' });
    await act(() => calls[1]!.reply(answer('500.00')));
    expect(result.current).toEqual({ state: 'done', data: answer('500.00') });

    // Unticking a side leaves nothing to evaluate.
    rerender({ ids: { leftIds: [], rightIds: [2] } });
    expect(result.current).toEqual({ state: 'idle' });
  });

  it('a server without the evaluate call is no failure; any other refusal is', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const calls = stubEvaluate();
    const { result, rerender } = render({ leftIds: [1], rightIds: [2] });
    await act(() => vi.advanceTimersByTimeAsync(EVALUATE_DELAY_MS));
    const notFound = new ApiError('Not Found', 404);
    await act(async () => {
      calls[0]!.fail(notFound);
      await Promise.resolve();
    });
    expect(result.current).toEqual({ state: 'unavailable' });

    rerender({ ids: { leftIds: [1, 1], rightIds: [2] } });
    await act(() => vi.advanceTimersByTimeAsync(EVALUATE_DELAY_MS));
    const duplicate = new ApiError('The record 1 is listed twice.', 400, 'leftIds', 'recon.duplicateRecord', { id: 1 });
    await act(async () => {
      calls[1]!.fail(duplicate);
      await Promise.resolve();
    });
    expect(result.current).toEqual({ state: 'failed', error: duplicate });
  });
});
