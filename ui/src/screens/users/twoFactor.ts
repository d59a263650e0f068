/**
 * The coupling of the enable-two-factor checkbox and the type dropdown (spec 01 §4): turning
 * two-factor off resets the type to None; turning it on while the type is None picks Email.
 * The dropdown is disabled unless two-factor is enabled. The server applies the same rule.
 */

export const TwoFactorType = { None: 0, Email: 1, Mobile: 2 } as const;
export type TwoFactorType = (typeof TwoFactorType)[keyof typeof TwoFactorType];

export const TWO_FACTOR_TYPES: readonly TwoFactorType[] = [TwoFactorType.None, TwoFactorType.Email, TwoFactorType.Mobile];

export interface TwoFactorState {
  enableTwoFactor: boolean;
  twoFactorType: TwoFactorType;
}

export function setTwoFactorEnabled(state: TwoFactorState, enabled: boolean): TwoFactorState {
  if (!enabled) return { enableTwoFactor: false, twoFactorType: TwoFactorType.None };
  return {
    enableTwoFactor: true,
    twoFactorType: state.twoFactorType === TwoFactorType.None ? TwoFactorType.Email : state.twoFactorType,
  };
}

/** Codes by mobile need a number to send them to (the server refuses the pair otherwise). */
export function needsMobileNumber(state: TwoFactorState, mobileNumber: string): boolean {
  return state.enableTwoFactor && state.twoFactorType === TwoFactorType.Mobile && mobileNumber.trim() === '';
}

export function asTwoFactorType(value: unknown): TwoFactorType {
  return value === 1 || value === 2 ? value : TwoFactorType.None;
}
