/**
 * The @rjsf validator for the engine's forms, without code generation.
 *
 * Why not @rjsf/validator-ajv8: ajv compiles every schema into a function with `new Function`,
 * and the server's Content-Security-Policy (`script-src 'self'`, DESIGN.md §8) forbids that,
 * so in the browser every validation failed with "Error compiling schema". ajv's precompiled
 * mode needs the schemas at build time, but forms arrive from the server at run time.
 *
 * The server emits a small, fixed subset of JSON Schema for forms (engine/meta.go): a flat
 * object with required, and per field type string/integer/number/boolean, maxLength, minLength,
 * pattern, minimum, maximum, format date/date-time and oneOf of consts. This checks exactly that
 * subset (and const/enum for good measure) and answers in the shape rjsf expects; the server
 * validates every write again with its own copy of the rules.
 */
import { compareDecimal, PLAIN_DECIMAL } from '../lib/decimal';
import {
  createErrorHandler,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from '@rjsf/utils';

type Schema = RJSFSchema;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

/** A JSON Schema pattern (ECMA-262, unanchored) tested with RegExp: no eval, so CSP-safe. */
function patternMatches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true; // the server checks its own patterns; a bad one must not block the form
  }
}

function error(name: string, property: string, message: string, params: Record<string, unknown>, schemaPath: string): RJSFValidationError {
  return { name, property, message, params, stack: `${property} ${message}`.trim(), schemaPath };
}

/** Every error of `value` against `schema`; `path` is the rjsf property (".field"). */
export function checkValue(schema: Schema, value: unknown, path = '', schemaPath = '#'): RJSFValidationError[] {
  const errors: RJSFValidationError[] = [];
  if (value === undefined) return errors;

  if (schema.const !== undefined && value !== schema.const) {
    errors.push(error('const', path, 'must be equal to constant', { allowedValue: schema.const }, `${schemaPath}/const`));
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as never)) {
    errors.push(error('enum', path, 'must be equal to one of the allowed values', { allowedValues: schema.enum }, `${schemaPath}/enum`));
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((t) => typeMatches(t, value))) {
    errors.push(error('type', path, `must be ${types.join(',')}`, { type: types.join(',') }, `${schemaPath}/type`));
    return errors;
  }

  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
      errors.push(error('maxLength', path, `must NOT have more than ${schema.maxLength} characters`, { limit: schema.maxLength }, `${schemaPath}/maxLength`));
    }
    if (typeof schema.minLength === 'number' && length < schema.minLength) {
      errors.push(error('minLength', path, `must NOT have fewer than ${schema.minLength} characters`, { limit: schema.minLength }, `${schemaPath}/minLength`));
    }
    if (typeof schema.pattern === 'string' && !patternMatches(schema.pattern, value)) {
      errors.push(error('pattern', path, `must match pattern "${schema.pattern}"`, { pattern: schema.pattern }, `${schemaPath}/pattern`));
    }
    const badFormat =
      (schema.format === 'date' && !isDate(value)) ||
      (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) ||
      (schema.format === 'decimal' && !PLAIN_DECIMAL.test(value));
    if (badFormat) {
      errors.push(error('format', path, `must match format "${schema.format}"`, { format: schema.format }, `${schemaPath}/format`));
    } else if (schema.format === 'decimal') {
      // An exact decimal string against the bounds, compared without a float.
      if (typeof schema.minimum === 'number' && compareDecimal(value, String(schema.minimum)) < 0) {
        errors.push(error('minimum', path, `must be >= ${schema.minimum}`, { comparison: '>=', limit: schema.minimum }, `${schemaPath}/minimum`));
      }
      if (typeof schema.maximum === 'number' && compareDecimal(value, String(schema.maximum)) > 0) {
        errors.push(error('maximum', path, `must be <= ${schema.maximum}`, { comparison: '<=', limit: schema.maximum }, `${schemaPath}/maximum`));
      }
    }
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      errors.push(error('minimum', path, `must be >= ${schema.minimum}`, { comparison: '>=', limit: schema.minimum }, `${schemaPath}/minimum`));
    }
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      errors.push(error('maximum', path, `must be <= ${schema.maximum}`, { comparison: '<=', limit: schema.maximum }, `${schemaPath}/maximum`));
    }
  }
  if (Array.isArray(schema.oneOf)) {
    const matching = schema.oneOf.filter((option) => typeof option === 'object' && checkValue(option as Schema, value, path).length === 0);
    if (matching.length !== 1) {
      errors.push(error('oneOf', path, 'must match exactly one schema in oneOf', { passingSchemas: null }, `${schemaPath}/oneOf`));
    }
  }

  if (typeMatches('object', value) && (schema.properties || schema.required)) {
    const record = value as Record<string, unknown>;
    for (const field of schema.required ?? []) {
      const v = record[field];
      if (v === undefined || v === null || v === '') {
        errors.push(error('required', `${path}.${field}`, `must have required property '${field}'`, { missingProperty: field }, `${schemaPath}/required`));
      }
    }
    for (const [field, sub] of Object.entries(schema.properties ?? {})) {
      if (typeof sub !== 'object' || record[field] === null || record[field] === '') continue;
      errors.push(...checkValue(sub as Schema, record[field], `${path}.${field}`, `${schemaPath}/properties/${field}`));
    }
  }
  return errors;
}

export class FormValidator<T = unknown> implements ValidatorType<T, Schema> {
  /**
   * `prepare` turns what the user typed into what will be sent (the form's trim/upper
   * transforms), so " sek " counts as the three characters it is saved as.
   */
  constructor(private readonly prepare: (data: T | undefined) => T | undefined = (data) => data) {}

  validateFormData(
    formData: T | undefined,
    schema: Schema,
    customValidate?: CustomValidator<T, Schema>,
    transformErrors?: ErrorTransformer<T, Schema>,
    uiSchema?: UiSchema<T, Schema>,
  ): ValidationData<T> {
    let errors = checkValue(schema, this.prepare(formData) ?? {});
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const data: ValidationData<T> = { errors, errorSchema: toErrorSchema<T>(errors) };
    if (!customValidate) return data;
    const handler = customValidate(formData, createErrorHandler<T>(formData as T), uiSchema, data.errorSchema);
    return validationDataMerge<T>(data, unwrapErrorHandler<T>(handler));
  }

  isValid(schema: Schema, formData: T | undefined): boolean {
    return checkValue(schema, formData).length === 0;
  }

  rawValidation<Result = unknown>(schema: Schema, formData?: T): { errors?: Result[]; validationError?: Error } {
    const errors = checkValue(schema, formData);
    return { errors: errors.length > 0 ? (errors as unknown as Result[]) : undefined };
  }
}

