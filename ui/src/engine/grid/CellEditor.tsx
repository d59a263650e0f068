/**
 * Inline editors, one per input kind of the field registry. They write the typed text into
 * the row while editing; GridView parses it when the grid commits (Enter, Tab or a click
 * outside), so a bad number is reported once instead of on every keystroke. Escape cancels.
 */
import { useState } from 'react';
import type { RenderEditCellProps } from 'react-data-grid';
import { fieldType, toInputText } from '../fields';
import type { ColumnMeta, Row } from '../types';
import { DateCellEditor } from './DateCellEditor';

export interface EditorOptions {
  meta: ColumnMeta;
  /** The column's translated name: the editor's accessible name. */
  label: string;
  locale: string;
  enumLabel: (column: ColumnMeta, value: string) => string;
  yes: string;
  no: string;
}

/** Marks a row whose edited cell still holds raw typed text. */
export const EDIT_TEXT = Symbol('editText');
export type EditedRow = Row & { [EDIT_TEXT]?: { field: string; text: string } };

export function CellEditor({ row, onRowChange, meta, label, locale, enumLabel, yes, no }: RenderEditCellProps<Row> & EditorOptions) {
  const kind = fieldType(meta.type).input;
  const [text, setText] = useState(() => toInputText(row[meta.field], meta, locale));

  const change = (value: string, commit = false) => {
    setText(value);
    onRowChange({ ...row, [EDIT_TEXT]: { field: meta.field, text: value } } as EditedRow, commit);
  };

  if (kind === 'date') return <DateCellEditor row={row} onRowChange={onRowChange} meta={meta} label={label} initial={text} />;

  if (kind === 'enum' || kind === 'bool') {
    const options =
      kind === 'bool'
        ? [
            { value: 'true', label: yes },
            { value: 'false', label: no },
          ]
        : (meta.values ?? []).map((v) => ({ value: v, label: enumLabel(meta, v) }));
    return (
      <select
        className="grid-editor"
        autoFocus
        value={text}
        aria-label={label}
        data-testid={`editor-${meta.field}`}
        onChange={(e) => change(e.target.value, true)}
      >
        <option value="" />
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  }

  return (
    <input
      className={`grid-editor${kind === 'number' ? ' grid-editor--number' : ''}`}
      autoFocus
      type="text"
      inputMode={kind === 'number' ? (meta.type === 'int' ? 'numeric' : 'decimal') : undefined}
      maxLength={kind === 'text' && meta.maxLength ? meta.maxLength : undefined}
      value={text}
      aria-label={label}
      data-testid={`editor-${meta.field}`}
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => change(e.target.value)}
    />
  );
}
