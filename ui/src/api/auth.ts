/** Calls of the authentication service (DESIGN.md §4). */
import { api } from './client';
import type { CurrentUser, UserRole } from '../auth/session';

export interface LoginSuccess {
  token: string;
  expiresAt: string;
  user: CurrentUser & { userId: number };
  screenIds: number[];
  roles: UserRole[];
}

export interface TwoFactorChallenge {
  twoFactorRequired: true;
  challengeId: string;
  channel: 'email' | 'mobile';
}

export type LoginResult = LoginSuccess | TwoFactorChallenge;

export function isTwoFactorChallenge(result: LoginResult): result is TwoFactorChallenge {
  return (result as TwoFactorChallenge).twoFactorRequired === true;
}

export const authApi = {
  login: (username: string, password: string) => api.post<LoginResult>('auth/login', { username, password }),
  verify: (challengeId: string, code: string) => api.post<LoginResult>('auth/login/verify', { challengeId, code }),
  logout: () => api.post<void>('auth/logout'),
  forgotPassword: (email: string) => api.post<unknown>('auth/forgot-password', { email }),
  resetPassword: (email: string, code: string, newPassword: string) =>
    api.post<unknown>('auth/reset-password', { email, code, newPassword }),
};
