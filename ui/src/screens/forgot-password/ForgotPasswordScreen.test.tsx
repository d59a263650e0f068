import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { locationOf, renderAt } from '../../test/helpers';

afterEach(() => vi.unstubAllGlobals());

function stubFetch(...answers: Array<[number, unknown]>) {
  const fetchMock = vi.fn();
  for (const [status, body] of answers) {
    fetchMock.mockImplementationOnce(async () => new Response(JSON.stringify(body), { status }));
  }
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

describe('forgot password', () => {
  it('does nothing while the email is missing or invalid', async () => {
    const fetchMock = stubFetch();
    renderAt('/forgot-password');
    const send = await screen.findByRole('button', { name: 'Send Reset Code' });
    fireEvent.click(send);
    expect(await screen.findByText('Email is required')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'not-an-email' } });
    fireEvent.click(send);
    expect(screen.getByText('Enter a valid email address')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends the code, then resets the password and returns to login', async () => {
    const fetchMock = stubFetch([200, { succeeded: true }], [200, { succeeded: true }]);
    const { router } = renderAt('/forgot-password');
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'anna@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Reset Code' }));

    expect(await screen.findByText('Please check your email for the reset code')).toBeTruthy();
    const code = screen.getByPlaceholderText('Enter 6-digit code');
    const reset = screen.getByRole('button', { name: 'Reset Password' });
    // The server's rules show before anything is typed.
    expect(screen.getByTestId('password-strength').textContent).toContain('Enter a password');
    expect(screen.getByTestId('password-rule-special').textContent).toContain('A special character: ! @ #');
    expect(screen.getByTestId('password-rule-length').textContent).toContain('8 to 20 characters');

    fireEvent.click(reset); // invalid: nothing is sent
    expect(fetchMock).toHaveBeenCalledTimes(1);

    fireEvent.change(code, { target: { value: '654321' } });
    // What the server refuses (no special character) is not "Strong", and is not sent.
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'Password2026' } });
    expect(screen.getByTestId('password-strength').getAttribute('data-strength')).toBe('medium');
    expect(screen.getByTestId('password-rule-special').getAttribute('data-met')).toBe('false');
    fireEvent.click(reset);
    expect(screen.getByTestId('new-password-error').textContent).toBe('The password does not meet every requirement');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'Abcdef12!' } });
    expect(screen.getByTestId('password-strength').getAttribute('data-strength')).toBe('strong');
    fireEvent.click(reset);

    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(JSON.parse((fetchMock.mock.calls[0] as [string, RequestInit])[1].body as string)).toEqual({ email: 'anna@example.com' });
    const [url, init] = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(url).toBe('/api/auth/reset-password');
    expect(JSON.parse(init.body as string)).toEqual({ email: 'anna@example.com', code: '654321', newPassword: 'Abcdef12!' });
    expect(await screen.findByText('Password has been reset')).toBeTruthy();
  });

  it('reports a failed send and stays on step 1', async () => {
    stubFetch([500, { succeeded: false, error: 'mail down' }]);
    renderAt('/forgot-password');
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'anna@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Reset Code' }));
    expect(await screen.findByText('Failed to send reset code')).toBeTruthy();
    expect(screen.queryByPlaceholderText('Enter 6-digit code')).toBeNull();
  });

  it("shows the server's reason when the reset is refused, and stays on step 2", async () => {
    stubFetch(
      [200, { succeeded: true }],
      [
        400,
        {
          succeeded: false,
          error: 'The reset code is wrong or no longer valid: check it, or request a new code (codes expire after 15 minutes).',
          field: 'code',
          code: 'reset.badCode',
          params: { minutes: 15 },
        },
      ],
    );
    renderAt('/forgot-password');
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'anna@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Reset Code' }));
    fireEvent.change(await screen.findByPlaceholderText('Enter 6-digit code'), { target: { value: '111111' } });
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'Abcdef12!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByText(/The reset code is wrong or no longer valid/)).toBeTruthy();
    expect(screen.getByText('Failed to reset password')).toBeTruthy();
    expect(screen.getByPlaceholderText('Enter 6-digit code')).toBeTruthy();
  });
});
