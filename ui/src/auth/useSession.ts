import { useSyncExternalStore } from 'react';
import { getCurrentUser, SessionKeys, subscribeSession, type CurrentUser } from './session';

// The raw stored text is the snapshot, so a change made without notify() (a test seeding
// localStorage, a devtools edit) still shows on the next render.
const readUserText = () => localStorage.getItem(SessionKeys.currentUser);

/** Re-renders the caller whenever the stored session changes, and returns the current user. */
export function useCurrentUser(): CurrentUser | null {
  useSyncExternalStore(subscribeSession, readUserText);
  return getCurrentUser();
}
