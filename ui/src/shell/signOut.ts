import { authApi } from '../api/auth';
import { clearSession } from '../auth/session';

/**
 * Asks the server to revoke the token first (it needs the token to know which one), then
 * drops the session whatever the answer: a failed logout call must never keep anyone signed in.
 */
export async function signOut(): Promise<void> {
  try {
    await authApi.logout();
  } catch (error) {
    console.warn('logout call failed; the session is cleared anyway', error);
  }
  clearSession();
}
