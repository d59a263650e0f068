import { afterEach, describe, expect, it } from 'vitest';
import {
  blocksKey,
  checkUserPassword,
  isValidUserPassword,
  passwordRules,
  rulesMet,
  truncatePassword,
  userPasswordStrength,
} from './userPassword';
import { CONFIG_STORAGE_KEY, FALLBACK_CONFIG } from '../config/appConfig';

describe('user password rules', () => {
  it('ticks each rule on its own', () => {
    expect(checkUserPassword('')).toEqual({ length: false, uppercase: false, lowercase: false, digit: false, special: false });
    expect(checkUserPassword('A')).toMatchObject({ uppercase: true, lowercase: false });
    expect(checkUserPassword('a')).toMatchObject({ lowercase: true, uppercase: false });
    expect(checkUserPassword('7')).toMatchObject({ digit: true });
    expect(checkUserPassword('12345678')).toMatchObject({ length: true, digit: true, special: false });
  });

  it('knows every special character of the spec, and no other', () => {
    for (const ch of passwordRules().specials) expect(checkUserPassword(ch).special, ch).toBe(true);
    for (const ch of ['-', '_', '+', '=', '[', ']', '~', "'", '/', '\\', ';', ' ']) expect(checkUserPassword(ch).special, ch).toBe(false);
  });

  it('needs 8 to 20 characters', () => {
    expect(checkUserPassword('Abc#123').length).toBe(false); // 7
    expect(checkUserPassword('Abcd#123').length).toBe(true); // 8
    expect(checkUserPassword('Abcd#123Abcd#123Abcd').length).toBe(true); // 20
    expect(checkUserPassword('Abcd#123Abcd#123Abcd1').length).toBe(false); // 21
  });

  it('is valid only with all five rules', () => {
    expect(isValidUserPassword('Abcd#123')).toBe(true);
    expect(isValidUserPassword('abcd#123')).toBe(false);
    expect(isValidUserPassword('ABCD#123')).toBe(false);
    expect(isValidUserPassword('Abcd#efg')).toBe(false);
    expect(isValidUserPassword('Abcd1234')).toBe(false);
    expect(isValidUserPassword('Ab#1')).toBe(false);
  });
});

describe('user password meter', () => {
  it.each([
    ['', 'empty', 0],
    ['a', 'weak', 1],
    ['aB', 'weak', 2],
    ['aB1', 'medium', 3],
    ['aB1#', 'medium', 4],
    ['abcdefgh1#', 'medium', 4],
    ['Abcd#123', 'strong', 5],
  ])('%j is %s (%d rules)', (password, strength, met) => {
    expect(userPasswordStrength(password)).toBe(strength);
    expect(rulesMet(password)).toBe(met);
  });
});

describe('maximum length', () => {
  it('truncates to 20 characters', () => {
    expect(truncatePassword('A'.repeat(30))).toBe('A'.repeat(20));
    expect(truncatePassword('short')).toBe('short');
  });

  it('blocks a printable key on a full field unless text is selected', () => {
    const full = 'A'.repeat(20);
    expect(blocksKey(full, 'x', 0)).toBe(true);
    expect(blocksKey(full, 'x', 3)).toBe(false);
    expect(blocksKey(full, 'Backspace', 0)).toBe(false);
    expect(blocksKey(full, 'a', 0, { ctrlKey: true })).toBe(false);
    expect(blocksKey('A'.repeat(19), 'x', 0)).toBe(false);
  });
});

describe('rules from the app configuration', () => {
  afterEach(() => localStorage.removeItem(CONFIG_STORAGE_KEY));

  it('judges by the rules the server publishes', () => {
    expect(checkUserPassword('Abcdefg1;').special).toBe(false);
    localStorage.setItem(
      CONFIG_STORAGE_KEY,
      JSON.stringify({ ...FALLBACK_CONFIG, passwordRules: { minLength: 10, maxLength: 12, specials: ';' } }),
    );
    expect(checkUserPassword('Abcdefg1;').length).toBe(false); // 9 characters, the server wants 10
    expect(checkUserPassword('Abcdefgh1;').special).toBe(true);
    expect(isValidUserPassword('Abcdefgh1;')).toBe(true);
    expect(truncatePassword('Abcdefgh1;xyz')).toBe('Abcdefgh1;xy');
  });
});
