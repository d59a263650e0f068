import { describe, expect, it } from 'vitest';
import type { RJSFSchema } from '@rjsf/utils';
import { checkValue, FormValidator } from './formValidator';

const formValidator = new FormValidator<Record<string, unknown>>();

const schema: RJSFSchema = {
  type: 'object',
  required: ['countryCode', 'transactionType'],
  properties: {
    countryCode: { type: 'string', maxLength: 3 },
    rate: { type: 'number', minimum: 0 },
    days: { type: 'integer', maximum: 365 },
    on: { type: 'string', format: 'date' },
    transactionType: { type: 'integer', oneOf: [{ const: 1, title: 'a' }, { const: 2, title: 'b' }] },
  },
};

describe('formValidator (CSP-safe subset of JSON Schema)', () => {
  it('accepts a valid record', () => {
    expect(checkValue(schema, { countryCode: 'SE', rate: 0.5, days: 3, on: '2026-02-28', transactionType: 2 })).toEqual([]);
  });

  it('reports each broken rule with the field as the property', () => {
    const errors = checkValue(schema, { countryCode: 'SWED', rate: -1, days: 1.5, on: '2026-02-30', transactionType: 7 });
    expect(errors.map((e) => [e.name, e.property])).toEqual([
      ['maxLength', '.countryCode'],
      ['minimum', '.rate'],
      ['type', '.days'],
      ['format', '.on'],
      ['oneOf', '.transactionType'],
    ]);
  });

  it('checks minLength and pattern (the server sends the pattern anchored)', () => {
    const code: RJSFSchema = { type: 'object', properties: { code: { type: 'string', minLength: 3, maxLength: 3, pattern: '^(?:[A-Za-z]{3})$' } } };
    expect(checkValue(code, { code: 'sek' })).toEqual([]);
    expect(checkValue(code, { code: 'SE' }).map((e) => e.name)).toEqual(['minLength', 'pattern']);
    expect(checkValue(code, { code: 'S1K' }).map((e) => e.name)).toEqual(['pattern']);
    expect(checkValue(code, { code: 'SEKX' }).map((e) => e.name)).toEqual(['maxLength', 'pattern']);
  });

  it('treats empty and missing required fields alike and builds the error schema', () => {
    const result = formValidator.validateFormData({ countryCode: '' }, schema);
    expect(result.errors.map((e) => e.name)).toEqual(['required', 'required']);
    expect(result.errorSchema).toMatchObject({
      countryCode: { __errors: ["must have required property 'countryCode'"] },
      transactionType: { __errors: ["must have required property 'transactionType'"] },
    });
  });

  it('validates the data as it will be sent (after the transforms)', () => {
    const trimming = new FormValidator<Record<string, unknown>>((data) => ({ ...data, countryCode: String(data?.countryCode ?? '').trim() }));
    expect(trimming.validateFormData({ countryCode: ' SEK ', transactionType: 1 }, schema).errors).toEqual([]);
    expect(formValidator.validateFormData({ countryCode: ' SEK ', transactionType: 1 }, schema).errors.map((e) => e.name)).toEqual(['maxLength']);
  });

  it('passes errors through transformErrors and answers isValid for one option', () => {
    const result = formValidator.validateFormData({}, schema, undefined, (errors) => errors.map((e) => ({ ...e, message: 'x' })));
    expect(result.errorSchema).toMatchObject({ countryCode: { __errors: ['x'] } });
    expect(formValidator.isValid({ const: 1 }, 1 as never)).toBe(true);
    expect(formValidator.isValid({ const: 1 }, 2 as never)).toBe(false);
  });
});
