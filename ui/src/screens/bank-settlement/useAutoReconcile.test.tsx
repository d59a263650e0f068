import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import en from '../../i18n/en.json';
import { POLL_MS, useAutoReconcile } from './useAutoReconcile';

function Probe({ onFinished }: { onFinished(slug: string): void }) {
  const auto = useAutoReconcile(onFinished);
  return (
    <>
      <button type="button" onClick={() => void auto.start('settlement-bank')}>
        run
      </button>
      <span data-testid="running">{auto.running['settlement-bank'] ? 'yes' : 'no'}</span>
    </>
  );
}

/** Renders the hook and presses run; returns the onFinished spy. */
function startRun() {
  const onFinished = vi.fn();
  render(
    <ToastProvider>
      <Probe onFinished={onFinished} />
    </ToastProvider>,
  );
  act(() => screen.getByText('run').click());
  return onFinished;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('useAutoReconcile', () => {
  it('a run that outlasts the request (202) is polled until it ends, then reported and reloaded', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = mockApi({
      'POST /api/recon/settlement-bank/auto': [202, { succeeded: true, data: { runId: 9, status: 'queued' } }],
      'GET /api/recon/runs/9': [ok({ runId: 9, status: 'running' }), ok({ runId: 9, status: 'succeeded', matched: 40, partial: 2, unmatched: 3 })],
    });
    const onFinished = startRun();
    await waitFor(() => expect(screen.getByTestId('running').textContent).toBe('yes'));
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS));
    await waitFor(() => expect(api.callsTo('GET', '/api/recon/runs/9')).toHaveLength(1));
    expect(onFinished).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS));
    await waitFor(() => expect(onFinished).toHaveBeenCalledWith('settlement-bank'));
    await screen.findByText(`${en.recon.toasts.autoDone} 40 matched, 2 within tolerance, 3 left unmatched.`);
    expect(screen.getByTestId('running').textContent).toBe('no');
  });

  it('a failed run says so with the server reason', async () => {
    mockApi({
      'POST /api/recon/settlement-bank/auto': [503, { succeeded: false, error: 'Auto Reconcile failed: disk full', code: 'recon.autoFailed', params: { runId: 2, error: 'disk full' } }],
    });
    const onFinished = startRun();
    await screen.findByText('Auto Reconcile failed: disk full');
    expect(onFinished).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.getByTestId('running').textContent).toBe('no'));
  });

  it('a run that ended failed says why by its message code, not its English text', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    mockApi({
      'POST /api/recon/settlement-bank/auto': [202, { succeeded: true, data: { runId: 11, status: 'running' } }],
      'GET /api/recon/runs/11': ok({ runId: 11, status: 'failed', error: 'serialization failure (SQLSTATE 40001)', errorCode: 'recon.runCollided', errorParams: {} }),
    });
    const onFinished = startRun();
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS));
    await screen.findByText(`${en.recon.toasts.autoFailed} ${en.recon.errors.runCollided}`);
    expect(screen.queryByText(/SQLSTATE/)).toBeNull();
    await waitFor(() => expect(onFinished).toHaveBeenCalledWith('settlement-bank'));
  });

  it('a refusal naming the failed run\'s code shows that code\'s text with the run', async () => {
    mockApi({
      'POST /api/recon/settlement-bank/auto': [
        503,
        { succeeded: false, error: 'Auto Reconcile failed: boom', code: 'recon.autoFailed', params: { runId: 12, error: 'boom', errorCode: 'recon.runFailed', errorParams: { runId: 12 } } },
      ],
    });
    startRun();
    await screen.findByText(`${en.recon.toasts.autoFailed} ${en.recon.errors.runFailed.replace('{{runId}}', '12')}`);
  });
});
