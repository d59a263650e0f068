import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import { GlobalLoader } from './GlobalLoader';
import { api } from '../api/client';

afterEach(() => vi.unstubAllGlobals());

describe('global loader', () => {
  it('is visible while a request is pending and hidden once all finish', async () => {
    const answers: Array<(r: Response) => void> = [];
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>((resolve) => answers.push(resolve))));
    render(<GlobalLoader />);
    expect(screen.queryByTestId('global-loader')).toBeNull();

    let first!: Promise<unknown>;
    let second!: Promise<unknown>;
    act(() => {
      first = api.get('one');
      second = api.get('two');
    });
    const loader = screen.getByTestId('global-loader');
    expect(loader.textContent).toContain('Please wait');
    expect(loader.getAttribute('role')).toBe('status');

    await act(async () => {
      answers[0]!(new Response(JSON.stringify({ succeeded: true, data: 1 })));
      await first;
    });
    expect(screen.getByTestId('global-loader')).toBeTruthy(); // one still pending

    await act(async () => {
      answers[1]!(new Response(JSON.stringify({ succeeded: true, data: 2 })));
      await second;
    });
    expect(screen.queryByTestId('global-loader')).toBeNull();
  });

  it('hides after a failed request as well', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('network down'))));
    render(<GlobalLoader />);
    await act(async () => {
      await api.get('x').catch(() => undefined);
    });
    expect(screen.queryByTestId('global-loader')).toBeNull();
  });
});
