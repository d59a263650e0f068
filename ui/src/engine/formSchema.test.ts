import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { applyTransforms, cleanRecord, dialogUiSchema, fieldOrder, translateErrors, translateSchema } from './formSchema';
import type { FormMeta } from './types';

const form: Pick<FormMeta, 'schema' | 'uiSchema'> = {
  schema: {
    type: 'object',
    required: ['transactionType'],
    properties: {
      providerName: { type: 'string', maxLength: 100, title: 'forms.configSetting.fields.providerName' },
      transactionType: {
        type: 'integer',
        title: 'forms.configSetting.fields.transactionType',
        oneOf: [
          { const: 1, title: 'config.transactionTypes.transaction' },
          { const: 2, title: 'RAW' },
        ],
      },
      amountThreshold: { type: 'string', format: 'decimal', title: 'forms.configSetting.fields.amountThreshold' },
    },
  },
  uiSchema: {
    'ui:order': ['transactionType', 'providerName'],
    providerName: { 'ui:widget': 'lookup', 'ui:options': { lookup: '/ConfigSettings/X', valueField: 'Id', labelField: 'N', store: 'label', transform: ['trim', 'upper'] } },
    amountThreshold: { 'ui:widget': 'decimal', 'ui:options': { scale: 2 } },
  },
};

describe('formSchema helpers', () => {
  it('translates field titles and enum option titles, keeping raw values', () => {
    const t = i18n.t.bind(i18n) as (key: string, options?: Record<string, unknown>) => string;
    const schema = translateSchema(form.schema, t);
    expect(schema.properties.providerName!.title).toBe('Provider Name');
    expect(schema.properties.transactionType!.oneOf).toEqual([
      { const: 1, title: '1 - Transaction' },
      { const: 2, title: 'RAW' },
    ]);
  });

  it('orders fields, hides the rjsf submit button, keeps the lookup widget and limits lengths', () => {
    expect(fieldOrder(form)).toEqual(['transactionType', 'providerName', 'amountThreshold']);
    const ui = dialogUiSchema(form) as Record<string, Record<string, unknown>>;
    expect(ui['ui:submitButtonOptions']).toEqual({ norender: true });
    expect(ui.transactionType!['ui:autofocus']).toBe(true);
    expect(ui.providerName!['ui:widget']).toBe('lookup');
    // Trimmed before its length counts: no maxlength on the input (a paste with spaces would lose letters).
    expect(ui.providerName!['ui:options']).toMatchObject({ lookup: '/ConfigSettings/X' });
    expect((ui.providerName!['ui:options'] as Record<string, unknown>).prime).toBeUndefined();
    const untrimmed = dialogUiSchema({ ...form, uiSchema: { ...form.uiSchema, providerName: {} } }) as Record<string, Record<string, unknown>>;
    expect(untrimmed.providerName!['ui:options']).toMatchObject({ prime: { maxLength: 100 } });
    expect(ui.amountThreshold!['ui:widget']).toBe('decimal');
    expect(ui.amountThreshold!['ui:options']).toMatchObject({ scale: 2 });
  });

  it('applies trim and upper before a save and drops empty values', () => {
    expect(applyTransforms({ providerName: '  nuvei ', amountThreshold: 2 }, form.uiSchema)).toEqual({ providerName: 'NUVEI', amountThreshold: 2 });
    expect(cleanRecord({ a: '', b: undefined, c: 0, d: 'x' })).toEqual({ c: 0, d: 'x' });
  });

  it('translates validation messages', () => {
    const t = i18n.t.bind(i18n) as (key: string, options?: Record<string, unknown>) => string;
    const [required, tooLong] = translateErrors(
      [
        { name: 'required', stack: '', message: 'x' },
        { name: 'maxLength', params: { limit: 3 }, stack: '', message: 'x' },
      ],
      t,
    );
    expect(required!.message).toBe('This field is required');
    expect(tooLong!.message).toBe('At most 3 characters');
  });
});
