/**
 * The filter of one column, shown in a popover from its header: an operator limited to the
 * column's `ops` and a value input suited to its type. Every change goes straight to the grid
 * controller, which waits for a pause in typing before it asks for the first page.
 */
import { useTranslation } from 'react-i18next';
import { Dropdown } from 'primereact/dropdown';
import { MultiSelect } from 'primereact/multiselect';
import { InputText } from 'primereact/inputtext';
import { Button } from 'primereact/button';
import { defaultOp, fieldType, filterOps, NO_VALUE_OPS, type FilterInput } from '../fields';
import { DateOfBirthInput } from '../../components/DateOfBirthInput';
import { useCurrentUser } from '../../auth/useSession';
import { fromIsoDate, toIsoDate } from '../../lib/dates';
import type { ColumnMeta, FilterOp } from '../types';

export interface ColumnFilterProps {
  column: ColumnMeta;
  label: string;
  value: FilterInput | undefined;
  onChange(input: FilterInput | null): void;
  enumLabel: (column: ColumnMeta, value: string) => string;
}

export function ColumnFilter({ column, label, value, onChange, enumLabel }: ColumnFilterProps) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const ops = filterOps(column);
  const current: FilterInput = value ?? { op: defaultOp(column), value: '' };
  const kind = fieldType(column.type).input;
  const set = (patch: Partial<FilterInput>) => onChange({ ...current, ...patch });

  const enumOptions =
    kind === 'bool'
      ? [
          { value: 'true', label: t('common.yes') },
          { value: 'false', label: t('common.no') },
        ]
      : (column.values ?? []).map((v) => ({ value: v, label: enumLabel(column, v) }));

  const input = (which: 'value' | 'to', placeholder: string) => {
    const text = (which === 'to' ? current.to : current.value) ?? '';
    if (kind === 'enum' || kind === 'bool') {
      return (
        <Dropdown
          value={text || null}
          options={enumOptions}
          onChange={(e) => set({ [which]: (e.value as string | null) ?? '' })}
          placeholder={placeholder}
          showClear
          appendTo="self"
          className="w-full p-inputtext-sm"
          ariaLabel={`${label} ${placeholder}`}
          data-testid={`filter-value-${column.field}`}
        />
      );
    }
    if (kind === 'date') {
      // The app's date picker in the user's format, not the browser's mm/dd/yyyy.
      return (
        <DateOfBirthInput
          inputId={which === 'to' ? `filter-to-${column.field}` : `filter-value-${column.field}`}
          value={fromIsoDate(text)}
          onChange={(date) => set({ [which]: date ? toIsoDate(date) : '' })}
          dateFormat={user?.dateFormat}
          appendTo="self"
        />
      );
    }
    return (
      <InputText
        value={text}
        type="text"
        inputMode={kind === 'number' ? 'decimal' : undefined}
        placeholder={placeholder}
        autoFocus={which === 'value'}
        onChange={(e) => set({ [which]: e.target.value })}
        className="w-full p-inputtext-sm"
        aria-label={`${label} ${placeholder}`}
        data-testid={which === 'to' ? `filter-to-${column.field}` : `filter-value-${column.field}`}
      />
    );
  };

  const valueInputs = () => {
    if (NO_VALUE_OPS.has(current.op)) return null;
    if (current.op === 'between') {
      return (
        <div className="grid-filter__range">
          {input('value', t('grid.filter.from'))}
          {input('to', t('grid.filter.to'))}
        </div>
      );
    }
    if (current.op === 'in' && kind === 'enum') {
      return (
        <MultiSelect
          value={current.values ?? []}
          options={enumOptions}
          onChange={(e) => set({ values: e.value as string[] })}
          placeholder={t('grid.filter.value')}
          appendTo="self"
          className="w-full p-inputtext-sm"
          ariaLabelledBy={`filter-title-${column.field}`}
          data-testid={`filter-value-${column.field}`}
        />
      );
    }
    return input('value', current.op === 'in' ? t('grid.filter.inHint') : t('grid.filter.value'));
  };

  return (
    <div className="grid-filter" data-testid={`filter-panel-${column.field}`}>
      <div className="grid-filter__title" id={`filter-title-${column.field}`}>
        {label}
      </div>
      <Dropdown
        value={current.op}
        options={ops.map((op) => ({ value: op, label: t(`grid.operators.${op}`) }))}
        onChange={(e) => set({ op: e.value as FilterOp })}
        appendTo="self"
        className="w-full p-inputtext-sm"
        ariaLabel={`${label} ${t('grid.filter.operator')}`}
        data-testid={`filter-op-${column.field}`}
      />
      {valueInputs()}
      <div className="grid-filter__actions">
        <Button
          type="button"
          label={t('grid.filter.clear')}
          icon="pi pi-filter-slash"
          size="small"
          text
          disabled={!value}
          onClick={() => onChange(null)}
          data-testid={`filter-clear-${column.field}`}
        />
      </div>
    </div>
  );
}
