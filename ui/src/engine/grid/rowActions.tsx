/**
 * A grid's actions on the rows chosen with its check boxes (views.yaml: an action with
 * selection: true). What each sends is metadata: the chosen rows' `send` fields as items, and
 * the values its `inputs` ask for in a dialog first; a `link` action opens a screen for the one
 * chosen row instead. The exception queue's assign, investigate and write-off are such actions.
 */
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { api } from '../../api/client';
import type { ActionInputMeta, ActionMeta, Row } from '../types';

/** The body of a call: the chosen rows' send fields (the key when none) as items, then the inputs. */
export function actionBody(action: ActionMeta, rows: Row[], key: string, inputs: Record<string, unknown>): Record<string, unknown> {
  if (!action.selection) return { ...inputs };
  const fields = action.send && action.send.length > 0 ? action.send : [key];
  const items = rows.map((row) => Object.fromEntries(fields.map((f) => [f, row[f] ?? null])));
  return { items, ...inputs };
}

/** A link's path with its {Field}s replaced by the row's values (encoded). */
export function linkFor(template: string, row: Row): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_ ]*)\}/g, (_, field: string) => encodeURIComponent(String(row[field] ?? '')));
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
  const inputs = useMemo(() => action?.inputs ?? [], [action]);
  const options = useOptions(inputs, action !== null);
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (!action) return;
    setTried(false);
    setValues(Object.fromEntries((action.inputs ?? []).map((i) => [i.name, i.default ? t(i.default) : i.type === 'select' ? null : ''])));
  }, [action, t]);

  const missing = inputs.filter((i) => i.required && (values[i.name] === null || values[i.name] === undefined || String(values[i.name]).trim() === ''));
  const submit = () => {
    setTried(true);
    if (missing.length === 0) onSubmit(values);
  };
  if (!action) return null;
  const set = (name: string, value: unknown) => setValues((prev) => ({ ...prev, [name]: value }));
  return (
    <Dialog
      visible
      header={`${t(action.label)} · ${t('grid.chosen', { count: chosen })}`}
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
                options={options[input.name] ?? []}
                optionLabel="label"
                optionValue="value"
                placeholder={t('grid.choose')}
                filter
                invalid={invalid}
                onChange={(e) => set(input.name, e.value as unknown)}
                data-testid={id}
              />
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
