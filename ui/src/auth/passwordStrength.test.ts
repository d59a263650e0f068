import { describe, expect, it } from 'vitest';
import { passwordStrength, strengthPercent } from './passwordStrength';

describe('passwordStrength', () => {
  it.each([
    ['', 'empty'],
    ['a', 'weak'],
    ['abcdefgh', 'weak'], // one class only, however long
    ['abc12', 'weak'], // two classes but shorter than 6
    ['abc123', 'medium'],
    ['ABCdef', 'medium'],
    ['Abcdef1', 'medium'], // all three classes but shorter than 8
    ['abcdefg1', 'medium'],
    ['Abcdefg1', 'strong'],
    ['Passw0rd!', 'strong'],
  ])('%j is %s', (password, expected) => {
    expect(passwordStrength(password)).toBe(expected);
  });

  it('maps to the meter widths of the spec', () => {
    expect(strengthPercent('empty')).toBe(0);
    expect(strengthPercent('weak')).toBe(33);
    expect(strengthPercent('medium')).toBe(66);
    expect(strengthPercent('strong')).toBe(100);
  });
});
