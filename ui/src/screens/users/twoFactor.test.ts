import { describe, expect, it } from 'vitest';
import { asTwoFactorType, needsMobileNumber, setTwoFactorEnabled, TwoFactorType } from './twoFactor';

describe('two-factor coupling', () => {
  it('turning it on while the type is None sets Email', () => {
    expect(setTwoFactorEnabled({ enableTwoFactor: false, twoFactorType: TwoFactorType.None }, true)).toEqual({
      enableTwoFactor: true,
      twoFactorType: TwoFactorType.Email,
    });
  });

  it('turning it on keeps a type already chosen', () => {
    expect(setTwoFactorEnabled({ enableTwoFactor: false, twoFactorType: TwoFactorType.Mobile }, true).twoFactorType).toBe(
      TwoFactorType.Mobile,
    );
  });

  it('turning it off resets the type to None', () => {
    for (const type of [TwoFactorType.None, TwoFactorType.Email, TwoFactorType.Mobile]) {
      expect(setTwoFactorEnabled({ enableTwoFactor: true, twoFactorType: type }, false)).toEqual({
        enableTwoFactor: false,
        twoFactorType: TwoFactorType.None,
      });
    }
  });

  it('Mobile needs a mobile number', () => {
    expect(needsMobileNumber({ enableTwoFactor: true, twoFactorType: TwoFactorType.Mobile }, ' ')).toBe(true);
    expect(needsMobileNumber({ enableTwoFactor: true, twoFactorType: TwoFactorType.Mobile }, '+46 70 123')).toBe(false);
    expect(needsMobileNumber({ enableTwoFactor: true, twoFactorType: TwoFactorType.Email }, '')).toBe(false);
    expect(needsMobileNumber({ enableTwoFactor: false, twoFactorType: TwoFactorType.None }, '')).toBe(false);
  });

  it('reads unknown server values as None', () => {
    expect(asTwoFactorType(2)).toBe(2);
    expect(asTwoFactorType(7)).toBe(0);
    expect(asTwoFactorType(undefined)).toBe(0);
  });
});
