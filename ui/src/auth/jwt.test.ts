import { describe, expect, it } from 'vitest';
import { decodeJwtPayload, isTokenValid } from './jwt';
import { makeJwt } from '../test/helpers';

const now = Date.UTC(2026, 0, 1);
const nowSeconds = now / 1000;

describe('isTokenValid', () => {
  it('accepts a token whose exp is in the future', () => {
    expect(isTokenValid(makeJwt(nowSeconds + 60), now)).toBe(true);
  });

  it('rejects an expired token', () => {
    expect(isTokenValid(makeJwt(nowSeconds - 1), now)).toBe(false);
    expect(isTokenValid(makeJwt(nowSeconds), now)).toBe(false);
  });

  it('rejects garbage, empty and exp-less tokens', () => {
    expect(isTokenValid('not-a-jwt', now)).toBe(false);
    expect(isTokenValid('a.b.c', now)).toBe(false);
    expect(isTokenValid('', now)).toBe(false);
    expect(isTokenValid(null, now)).toBe(false);
    const noExp = `${btoa('{}')}.${btoa(JSON.stringify({ sub: 'x' }))}.sig`;
    expect(isTokenValid(noExp, now)).toBe(false);
  });

  it('decodes base64url payloads with non-ASCII text', () => {
    const payload = btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify({ name: 'Åsa', exp: 1 }))))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    expect(decodeJwtPayload(`x.${payload}.y`)).toEqual({ name: 'Åsa', exp: 1 });
  });
});
