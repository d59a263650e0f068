/** Calls of user, role and profile administration (spec 01 §7; the server's shapes). */
import { api, apiRequest } from './client';

export interface User {
  id: number;
  userId: number;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  mobileNumber: string;
  dateOfBirth: string | null;
  dateFormat: string;
  languageCode: string;
  enableTwoFactor: boolean;
  twoFactorType: number;
  isActive: boolean;
  createdOn: string;
  createdBy: string;
  /** When the user was last changed: an update sends it back, and a user changed since is a 409. */
  version?: string;
}

/** What the user form sends; changePassword and newPassword only count when updating. */
export interface UserInput {
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  mobileNumber: string;
  dateOfBirth: string | null;
  password?: string;
  changePassword?: boolean;
  newPassword?: string;
  dateFormat: string;
  languageCode: string;
  enableTwoFactor: boolean;
  twoFactorType: number;
  /** The version the form read (updates only). */
  version?: string;
}

export interface UserRoleRef {
  id: number;
  roleId: number;
  roleName: string;
}

export interface Role {
  id: number;
  roleName: string;
  description: string;
  isAdmin: boolean;
  createdOn: string;
  createdBy: string;
  version?: string;
  /** The largest amount (USD, 2 decimals) a holder of the role may write off at once; null: no write-offs (absent from an older server). */
  writeOffLimit?: string | null;
}

export interface RoleInput {
  roleName: string;
  description: string;
  /** The write-off limit in USD as decimal text ("250.00"), or null for none. */
  writeOffLimit?: string | null;
  /** The version the form read (updates only). */
  version?: string;
}

export interface WebScreen {
  id: number;
  screenName: string;
}

export interface RoleScreen {
  screenId: number;
  screenName: string;
}

export interface Profile {
  userId: number;
  id: number;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  mobileNumber: string;
  dateOfBirth: string | null;
  dateFormat: string;
  languageCode: string;
  /** Two-factor sign-in is on: an email change needs a code (profileApi.sendCode). */
  enableTwoFactor?: boolean;
  /** The daily email of alerts and items past their SLA (omitted: unchanged). */
  dailyDigest?: boolean;
}

/** The proof a change of email or password needs: the current password, and a code for two-factor users. */
export interface Proof {
  currentPassword?: string;
  newPassword?: string;
  challengeId?: string;
  code?: string;
}

export type ProfileInput = Omit<Profile, 'id' | 'username' | 'enableTwoFactor'> & Proof;

export const usersApi = {
  get: (id: number) => api.get<User>(`users/${id}`),
  create: (input: UserInput) => api.post<{ user: User }>('users', input),
  update: (id: number, input: UserInput) => api.put<User>(`users/${id}`, input),
  roles: (id: number) => api.get<UserRoleRef[]>(`users/${id}/roles`),
  setRoles: (id: number, roleIds: number[]) => api.put<UserRoleRef[]>(`users/${id}/roles`, { roleIds }),
  /** Clears the sign-in lock of a user after too many failed sign-ins. */
  unlock: (id: number) => api.post<void>(`users/${id}/unlock`, {}),
};

// The list of web screens never changes while the app runs: load it once (spec 01 §7).
let webScreens: Promise<WebScreen[]> | null = null;

export const rolesApi = {
  list: () => api.get<Role[]>('roles'),
  get: (id: number) => api.get<Role>(`roles/${id}`),
  create: (input: RoleInput) => api.post<Role>('roles', input),
  update: (id: number, input: RoleInput) => api.put<Role>(`roles/${id}`, input),
  webScreens: (): Promise<WebScreen[]> => {
    if (!webScreens) {
      webScreens = api.get<WebScreen[]>('roles/webscreens').catch((error: unknown) => {
        webScreens = null; // a failure is not cached: the next form tries again
        throw error;
      });
    }
    return webScreens;
  },
  screens: (id: number) => api.get<RoleScreen[]>(`roles/${id}/screens`),
  setScreens: (id: number, screenIds: number[]) => api.put<RoleScreen[]>(`roles/${id}/screens`, { screenIds }),
};

/** For tests: forget the cached web screens. */
export function resetWebScreenCache(): void {
  webScreens = null;
}

export const profileApi = {
  get: () => api.get<Profile>('profile'),
  update: (input: ProfileInput) => api.put<Profile>('profile', input),
  /** Sends a confirmation code on the user's two-factor channel. */
  sendCode: () => api.post<{ challengeId: string; channel: string }>('profile/code', {}),
  /** Saves the language alone: the profile as stored with only the language changed. */
  setLanguage: async (languageCode: string): Promise<Profile> => {
    const { id: _id, username: _username, ...stored } = await api.getQuiet<Profile>('profile');
    return apiRequest<Profile>('PUT', 'profile', { ...stored, languageCode }, { quiet: true });
  },
};
