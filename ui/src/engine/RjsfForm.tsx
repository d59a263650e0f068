/**
 * The @rjsf part of the form dialog (PrimeReact theme, the CSP-safe validator of
 * formValidator.ts), loaded lazily. It
 * renders the translated schema, holds what the user typed, and hands valid data to the
 * dialog; the dialog owns saving.
 */
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { withTheme } from '@rjsf/core';
import { Theme } from '@rjsf/primereact';
import type { ErrorSchema, RegistryWidgetsType, RJSFSchema, RJSFValidationError, WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { engineApi } from './api';
import { parseNumber, separators } from './fields';
import { DateOfBirthInput } from '../components/DateOfBirthInput';
import { useCurrentUser } from '../auth/useSession';
import { fromIsoDate, toIsoDate } from '../lib/dates';
import { applyTransforms, dialogUiSchema, translateErrors, translateSchema } from './formSchema';
import { FormValidator } from './formValidator';
import type { FormMeta, LookupOptions, Row } from './types';

const Form = withTheme<Row>(Theme);

/**
 * A dropdown filled from the form resource's lookup (e.g. the providers of
 * /ConfigSettings/GetDistinctIncomingTransactions); it stores the value or the label.
 */
function LookupWidget({ id, value, onChange, onBlur, onFocus, options, disabled, readonly, rawErrors, required }: WidgetProps) {
  const { t } = useTranslation();
  const { lookup, valueField, labelField, store } = options as unknown as LookupOptions;
  const [items, setItems] = useState<Array<{ value: unknown; label: string }> | null>(null);

  useEffect(() => {
    let alive = true;
    engineApi
      .lookup<Record<string, unknown>>(lookup)
      .then((list) => {
        if (!alive) return;
        const seen = new Set<string>();
        const mapped = (list ?? [])
          .map((r) => ({ value: store === 'label' ? r[labelField] : r[valueField], label: String(r[labelField] ?? '') }))
          .filter((o) => o.label !== '' && !seen.has(String(o.value)) && seen.add(String(o.value)));
        setItems(mapped);
      })
      .catch(() => alive && setItems([]));
    return () => {
      alive = false;
    };
  }, [lookup, valueField, labelField, store]);

  return (
    <Dropdown
      inputId={id}
      value={value ?? null}
      options={items ?? []}
      onChange={(e) => onChange(e.value ?? undefined)}
      onBlur={() => onBlur(id, value)}
      onFocus={() => onFocus(id, value)}
      placeholder={items === null ? t('grid.loading') : t('forms.select')}
      emptyMessage={t('forms.lookupEmpty')}
      filter={(items?.length ?? 0) > 8}
      showClear={!required}
      disabled={disabled || readonly}
      invalid={(rawErrors?.length ?? 0) > 0}
      className="w-full"
      data-testid={`lookup-${id}`}
    />
  );
}

/** An exact decimal string ("1234.50") as the user's language writes it ("1.234,50"). */
function toLocaleText(value: unknown, locale: string): string {
  if (value === undefined || value === null || value === '') return '';
  const s = String(value);
  return separators(locale).decimal === ',' ? s.replace('.', ',') : s;
}

/**
 * The form value of typed decimal text: "1234.5", undefined when empty, and for text that is
 * no number (in the user's language: "12.50" in Portuguese) a value no decimal check passes,
 * so the validator marks the field instead of a plain-looking "12.50" slipping through.
 */
function decimalValue(typed: string, locale: string): string | undefined {
  if (typed.trim() === '') return undefined;
  const parsed = parseNumber(typed, locale);
  return parsed.ok ? parsed.value : `not a number: ${typed}`;
}

/**
 * A decimal typed in the user's language and kept as an exact string end to end: what is
 * typed is read with the grid's rules (a group separator only before groups of three) and
 * handed to the form as "1234.5".
 */
function DecimalWidget({ id, value, onChange, onBlur, onFocus, disabled, readonly, rawErrors, required }: WidgetProps) {
  const { i18n } = useTranslation();
  const locale = i18n.language;
  const [text, setText] = useState(() => toLocaleText(value, locale));
  // A value set from outside (a record loaded for editing, a reset) replaces the text.
  useEffect(() => {
    setText((current) => (decimalValue(current, locale) === (value ?? undefined) ? current : toLocaleText(value, locale)));
  }, [value, locale]);
  return (
    <InputText
      id={id}
      value={text}
      inputMode="decimal"
      required={required}
      disabled={disabled || readonly}
      invalid={(rawErrors?.length ?? 0) > 0}
      onChange={(e) => {
        setText(e.target.value);
        onChange(decimalValue(e.target.value, locale));
      }}
      onBlur={() => onBlur(id, value)}
      onFocus={() => onFocus(id, value)}
      className="w-full"
    />
  );
}

/**
 * A date field is the app's date picker in the signed-in user's format (not the browser's
 * mm/dd/yyyy), holding the yyyy-MM-dd text the server reads.
 */
function DateWidget({ id, value, onChange, disabled, readonly, rawErrors }: WidgetProps) {
  const user = useCurrentUser();
  return (
    <DateOfBirthInput
      inputId={id}
      value={fromIsoDate(typeof value === 'string' ? value : null)}
      onChange={(date) => onChange(date ? toIsoDate(date) : undefined)}
      dateFormat={user?.dateFormat}
      invalid={(rawErrors?.length ?? 0) > 0}
      disabled={disabled || readonly}
    />
  );
}

const widgets: RegistryWidgetsType<Row> = { lookup: LookupWidget, decimal: DecimalWidget, DateWidget };

export interface RjsfFormProps {
  id: string;
  form: FormMeta;
  disabled: boolean;
  fieldError: { field: string; message: string } | null;
  onFieldEdited(field: string): void;
  onSubmit(data: Row): void;
  onInvalid(missingRequired: boolean): void;
  /**
   * Told whether the data as typed (with the schema's defaults) would pass validation, and
   * the titles of the fields that keep it from passing.
   */
  onValidity?(valid: boolean, problems: string[]): void;
}

export default function RjsfForm({ id, form, disabled, fieldError, onFieldEdited, onSubmit, onInvalid, onValidity }: RjsfFormProps) {
  const { t } = useTranslation();
  // t changes with the language, so a language switch translates the schema again.
  const schema = useMemo(() => translateSchema(form.schema, t) as RJSFSchema, [form.schema, t]);
  const uiSchema = useMemo(() => dialogUiSchema(form), [form]);
  const validator = useMemo(() => new FormValidator<Row>((data) => data && applyTransforms(data, form.uiSchema)), [form.uiSchema]);
  const [formData, setFormData] = useState<Row>({});

  useEffect(() => {
    if (!onValidity) return;
    const withDefaults: Row = { ...formData };
    for (const [field, prop] of Object.entries(form.schema.properties)) {
      if (withDefaults[field] === undefined && prop.default !== undefined) withDefaults[field] = prop.default;
    }
    const { errors } = validator.validateFormData(withDefaults, form.schema as RJSFSchema);
    const fields = new Set(errors.map((e) => (e.name === 'required' ? String(e.params?.missingProperty ?? '') : (e.property ?? '').replace(/^\./, ''))));
    const titles = Object.keys(schema.properties ?? {})
      .filter((field) => fields.has(field))
      .map((field) => String((schema.properties?.[field] as { title?: string } | undefined)?.title ?? field));
    onValidity(errors.length === 0, titles);
  }, [formData, form.schema, schema, validator, onValidity]);

  const extraErrors = useMemo(
    () => (fieldError ? ({ [fieldError.field]: { __errors: [fieldError.message] } } as ErrorSchema<Row>) : undefined),
    [fieldError],
  );

  return (
    <Form
      id={id}
      className="engine-form"
      schema={schema}
      uiSchema={uiSchema}
      formData={formData}
      validator={validator}
      widgets={widgets}
      disabled={disabled}
      extraErrors={extraErrors}
      showErrorList={false}
      noHtml5Validate
      focusOnFirstError
      transformErrors={(errors: RJSFValidationError[]) => translateErrors(errors, t)}
      onChange={(event) => {
        const next = event.formData ?? {};
        if (fieldError && next[fieldError.field] !== formData[fieldError.field]) onFieldEdited(fieldError.field);
        setFormData(next);
      }}
      onError={(errors) => onInvalid(errors.some((e) => e.name === 'required'))}
      onSubmit={(event) => onSubmit(event.formData ?? {})}
    />
  );
}
