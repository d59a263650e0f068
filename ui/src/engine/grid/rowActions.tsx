/**
 * A grid's actions on the rows chosen with its check boxes (views.yaml: an action with
 * selection: true). What each sends is metadata: the chosen rows' `send` fields as items (or
 * the one chosen row's `rowFields`), and the values its `inputs` ask for in a dialog first; its
 * path may name the chosen row's fields and the inputs ({Id}, {month}); a `link` action opens a
 * screen for the one chosen row instead. The exception queue's assign, investigate and
 * write-off, and the approvals' approve, reject, close and reopen are such actions.
 */
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { api } from '../../api/client';
import { useCurrentUser } from '../../auth/useSession';
import { MonthInput } from '../../components/MonthInput';
import type { ActionInputMeta, ActionMeta, Row } from '../types';

/** A {Name} of a path or link (the server checks the same form). */
const PATH_FIELD = /\{([A-Za-z_][A-Za-z0-9_ ]*)\}/g;

/**
 * The body of a call: the chosen rows' send fields (the key when none) as items, or the one
 * chosen row's rowFields (body key: the row's field) when the action names them and no send
 * fields; then the inputs.
 */
export function actionBody(action: ActionMeta, rows: Row[], key: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const rowFields = Object.entries(action.rowFields ?? {});
  const fromRow = rowFields.length > 0 && rows.length === 1 ? Object.fromEntries(rowFields.map(([bodyKey, field]) => [bodyKey, rows[0]?.[field] ?? null])) : {};
  if (!action.selection || (rowFields.length > 0 && !action.send?.length)) return { ...fromRow, ...inputs };
  const fields = action.send && action.send.length > 0 ? action.send : [key];
  const items = rows.map((row) => Object.fromEntries(fields.map((f) => [f, row[f] ?? null])));
  return { items, ...fromRow, ...inputs };
}

/**
 * An action's API path with its {Name}s replaced (encoded): by the one chosen row's field of
 * that name, else by the input of that name ('/approvals/{Id}/approve', '/periods/{month}/close').
 */
export function actionPath(action: ActionMeta, rows: Row[], inputs: Record<string, unknown>): string {
  const row = action.selection && rows.length === 1 ? rows[0] : undefined;
  return action.path.replace(PATH_FIELD, (_, name: string) => {
    const value = row && name in row ? row[name] : inputs[name];
    return encodeURIComponent(String(value ?? ''));
  });
}

/** A link's path with its {Field}s replaced by the row's values (encoded). */
export function linkFor(template: string, row: Row): string {
  return template.replace(PATH_FIELD, (_, field: string) => encodeURIComponent(String(row[field] ?? '')));
}

/** The value an input starts with: its default's text, nothing chosen for a select, else empty. */
function initialValue(input: ActionInputMeta, t: (key: string) => string): unknown {
  if (input.default) return t(input.default);
  return input.type === 'select' ? null : '';
}

/** The values as sent: an empty optional month is no month (null), not an empty text. */
export function sentValues(inputs: readonly ActionInputMeta[], values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  for (const input of inputs) {
    if (input.type === 'month' && (out[input.name] === '' || out[input.name] === undefined)) out[input.name] = null;
  }
  return out;
}

/**
 * The values a success toast can name: count (the chosen rows) and each field of the answer, a
 * list or an object counted (how many, 1 or 0), a number as it is.
 */
export function answerValues(answer: unknown, count: number): Record<string, number> {
  const out: Record<string, number> = { count };
  if (Array.isArray(answer)) {
    out.count = answer.length;
    return out;
  }
  if (answer && typeof answer === 'object') {
    for (const [k, v] of Object.entries(answer as Record<string, unknown>)) {
      if (typeof v === 'number') out[k] = v;
      else if (Array.isArray(v)) out[k] = v.length;
      else out[k] = v === null || v === undefined ? 0 : 1;
    }
  }
  return out;
}

/** Why the action cannot run on the chosen rows now (a translation key), or null. */
export function selectionProblem(action: ActionMeta, chosen: number): string | null {
  if (!action.selection) return null;
  if (action.one) return chosen === 1 ? null : 'grid.chooseOne';
  return chosen > 0 ? null : 'grid.chooseRows';
}

type Option = { value: unknown; label: string };

function useOptions(inputs: ActionInputMeta[], open: boolean): Record<string, Option[]> {
  const [options, setOptions] = useState<Record<string, Option[]>>({});
  useEffect(() => {
    if (!open) return;
    let alive = true;
    for (const input of inputs) {
      if (input.type !== 'select' || !input.options) continue;
      api
        .get<Row[]>(input.options)
        .then((list) => {
          if (!alive) return;
          // (labels that are translation keys stay keys here: they are translated as shown)
          const opts = (list ?? []).map((o) => ({ value: o[input.optionValue ?? 'id'], label: String(o[input.optionLabel ?? 'name'] ?? '') }));
          setOptions((prev) => ({ ...prev, [input.name]: opts }));
        })
        .catch(() => alive && setOptions((prev) => ({ ...prev, [input.name]: [] })));
    }
    return () => {
      alive = false;
    };
  }, [inputs, open]);
  return options;
}

export interface ActionDialogProps {
  action: ActionMeta | null;
  chosen: number;
  busy: boolean;
  onCancel(): void;
  onSubmit(values: Record<string, unknown>): void;
}

/** The dialog asking for an action's inputs (and its confirmation question) before the call. */
export function ActionDialog({ action, chosen, busy, onCancel, onSubmit }: ActionDialogProps) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const inputs = useMemo(() => action?.inputs ?? [], [action]);
  const options = useOptions(inputs, action !== null);
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (!action) return;
    setTried(false);
    setValues(Object.fromEntries((action.inputs ?? []).map((i) => [i.name, initialValue(i, t)])));
  }, [action, t]);

  const missing = inputs.filter((i) => i.required && (values[i.name] === null || values[i.name] === undefined || String(values[i.name]).trim() === ''));
  const submit = () => {
    setTried(true);
    if (missing.length === 0) onSubmit(sentValues(inputs, values));
  };
  if (!action) return null;
  const set = (name: string, value: unknown) => setValues((prev) => ({ ...prev, [name]: value }));
  return (
    <Dialog
      visible
      // the rows it acts on are counted; an action without a selection acts on none
      header={action.selection ? `${t(action.label)} · ${t('grid.chosen', { count: chosen })}` : t(action.label)}
      style={{ width: '460px' }}
      onHide={onCancel}
      data-testid={`action-dialog-${action.id}`}
      footer={
        <div>
          <Button type="button" label={t('grid.cancel')} outlined onClick={onCancel} />
          <Button type="button" label={t('grid.apply')} loading={busy} data-testid="action-apply" onClick={submit} />
        </div>
      }
    >
      {action.confirm && <p>{t(action.confirm)}</p>}
      {inputs.map((input) => {
        const id = `action-${action.id}-${input.name}`;
        const invalid = tried && missing.includes(input);
        return (
          <div key={input.name} className="action-input">
            <label htmlFor={id}>
              {t(input.label)}
              {input.required ? ' *' : ''}
            </label>
            {input.type === 'select' ? (
              <Dropdown
                inputId={id}
                value={values[input.name]}
                options={input.translate ? (options[input.name] ?? []).map((o) => ({ ...o, label: t(o.label) })) : (options[input.name] ?? [])}
                optionLabel="label"
                optionValue="value"
                placeholder={t(input.placeholder ?? 'grid.choose')}
                // an optional choice can go back to none (its placeholder says what none means)
                showClear={!input.required}
                filter
                invalid={invalid}
                onChange={(e) => set(input.name, (e.value as unknown) ?? null)}
                data-testid={id}
              />
            ) : input.type === 'month' ? (
              <span className={invalid ? 'action-input__month p-invalid' : 'action-input__month'} data-testid={id}>
                <MonthInput inputId={id} value={String(values[input.name] ?? '')} onChange={(month) => set(input.name, month)} dateFormat={user?.dateFormat} />
              </span>
            ) : input.type === 'textarea' ? (
              <InputTextarea
                id={id}
                value={String(values[input.name] ?? '')}
                rows={3}
                maxLength={input.maxLength}
                invalid={invalid}
                onChange={(e) => set(input.name, e.target.value)}
                data-testid={id}
              />
            ) : (
              <InputText
                id={id}
                value={String(values[input.name] ?? '')}
                maxLength={input.maxLength}
                invalid={invalid}
                onChange={(e) => set(input.name, e.target.value)}
                data-testid={id}
              />
            )}
            {invalid && <small className="p-error">{t('grid.invalid.required', { column: t(input.label) })}</small>}
          </div>
        );
      })}
    </Dialog>
  );
}
