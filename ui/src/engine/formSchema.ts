/**
 * Pure helpers between a form's metadata and @rjsf: translating the schema's titles before rjsf
 * sees it, the uiSchema the dialog needs, the transforms applied before a save, and the
 * translation of ajv's messages. Kept apart from the lazily loaded form so tests and the
 * dialog can use them without pulling in @rjsf.
 */
import type { FieldUiSchema, FormMeta, FormSchema, FormUiSchema, Row, Transform } from './types';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The schema with every title (field titles and enum option titles) translated. */
export function translateSchema(schema: FormSchema, t: Translate): FormSchema {
  const properties: FormSchema['properties'] = {};
  for (const [field, prop] of Object.entries(schema.properties)) {
    properties[field] = {
      ...prop,
      ...(prop.title ? { title: t(prop.title, { defaultValue: field }) } : {}),
      ...(prop.oneOf ? { oneOf: prop.oneOf.map((o) => ({ ...o, title: t(o.title, { defaultValue: o.title }) })) } : {}),
    };
  }
  return { ...schema, properties };
}

/** The fields in display order: ui:order first, then any the order leaves out. */
export function fieldOrder(form: Pick<FormMeta, 'schema' | 'uiSchema'>): string[] {
  const order = (form.uiSchema['ui:order'] ?? []).filter((f) => f in form.schema.properties);
  return [...order, ...Object.keys(form.schema.properties).filter((f) => !order.includes(f))];
}

function fieldUi(uiSchema: FormUiSchema, field: string): FieldUiSchema | undefined {
  const entry = uiSchema[field];
  return entry && !Array.isArray(entry) ? entry : undefined;
}

/**
 * The uiSchema for rjsf: the server's, with the form's own submit button hidden (the dialog
 * footer has Save), the first field focused, and the server's transform/scale options kept.
 */
export function dialogUiSchema(form: Pick<FormMeta, 'schema' | 'uiSchema'>): Record<string, unknown> {
  const order = fieldOrder(form);
  const ui: Record<string, unknown> = { 'ui:order': order, 'ui:submitButtonOptions': { norender: true } };
  order.forEach((field, index) => {
    const server = fieldUi(form.uiSchema, field) ?? {};
    const prop = form.schema.properties[field];
    const entry: Record<string, unknown> = { ...server };
    if (index === 0) entry['ui:autofocus'] = true;
    // The input itself stops at the length the server accepts (code and trigram: 3), unless
    // the value is trimmed first: a pasted " chf " must not lose its last letter to the space.
    const trimmed = server['ui:options']?.transform?.includes('trim') ?? false;
    if (prop?.type === 'string' && prop.maxLength && !trimmed) {
      const options = (entry['ui:options'] ?? {}) as Record<string, unknown>;
      entry['ui:options'] = { ...options, prime: { ...((options.prime as object) ?? {}), maxLength: prop.maxLength } };
    }
    ui[field] = entry;
  });
  return ui;
}

/** Applies each field's transforms (trim, upper) to a copy of the data. */
export function applyTransforms(data: Row, uiSchema: FormUiSchema): Row {
  const out: Row = { ...data };
  for (const [field, value] of Object.entries(out)) {
    const transforms: Transform[] = fieldUi(uiSchema, field)?.['ui:options']?.transform ?? [];
    if (typeof value !== 'string') continue;
    let next = value;
    for (const transform of transforms) {
      if (transform === 'trim') next = next.trim();
      else if (transform === 'upper') next = next.toUpperCase();
    }
    out[field] = next;
  }
  return out;
}

/** Empty strings and undefined are left out of the record sent to the server. */
export function cleanRecord(data: Row): Row {
  const out: Row = {};
  for (const [field, value] of Object.entries(data)) {
    if (value !== undefined && value !== '') out[field] = value;
  }
  return out;
}

export interface ValidationErrorLike {
  name?: string;
  params?: Record<string, unknown>;
  message?: string;
  property?: string;
  stack: string;
}

/** ajv's English messages as the UI language's (the field name is shown above the input). */
export function translateErrors<E extends ValidationErrorLike>(errors: E[], t: Translate): E[] {
  return errors.map((error) => {
    const p = error.params ?? {};
    let message: string | undefined;
    switch (error.name) {
      case 'required':
        message = t('forms.errors.required');
        break;
      case 'maxLength':
        message = t('forms.errors.maxLength', { max: p.limit });
        break;
      case 'minLength':
        message = t('forms.errors.minLength', { min: p.limit });
        break;
      case 'pattern':
        message = t('forms.errors.pattern');
        break;
      case 'minimum':
        message = t('forms.errors.minimum', { min: p.limit });
        break;
      case 'maximum':
        message = t('forms.errors.maximum', { max: p.limit });
        break;
      case 'type':
        message = t('forms.errors.type');
        break;
      case 'format':
        // A decimal field holding text that is not a number reads as the type error.
        message = p.format === 'decimal' ? t('forms.errors.type') : t('forms.errors.format');
        break;
      case 'oneOf':
      case 'const':
      case 'enum':
        message = t('forms.errors.choice');
        break;
      default:
        message = error.message;
    }
    return { ...error, message, stack: message ?? error.stack };
  });
}
