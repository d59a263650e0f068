/**
 * The inline editor of date and datetime cells: the app's date picker (the one the forms use),
 * read and shown in the signed-in user's date format instead of the browser's mm/dd/yyyy.
 * It hands the grid the yyyy-MM-dd text the date field types parse. Enter commits what was
 * typed or picked, a pick in the calendar commits at once, Escape cancels (the grid's own
 * handling), leaving the cell commits as for the other editors.
 */
import { useEffect, useRef } from 'react';
import type { RenderEditCellProps } from 'react-data-grid';
import { useCurrentUser } from '../../auth/useSession';
import { DateOfBirthInput } from '../../components/DateOfBirthInput';
import { fromIsoDate, toIsoDate } from '../../lib/dates';
import type { ColumnMeta, Row } from '../types';
import { EDIT_TEXT, type EditedRow } from './CellEditor';

/** What the grid is handed for a typed text that is no date: it reports "not a date". */
const NOT_A_DATE = '?';

type Props = Pick<RenderEditCellProps<Row>, 'row' | 'onRowChange'> & { meta: ColumnMeta; label: string; initial: string };

export function DateCellEditor({ row, onRowChange, meta, label, initial }: Props) {
  const user = useCurrentUser();
  const inputId = `grid-editor-${meta.field}`;
  // The latest text, and whether the edit is over (committed or cancelled): a blur after
  // Enter or Escape must not commit again.
  const text = useRef(initial);
  const done = useRef(false);

  const wrap = useRef<HTMLSpanElement>(null);
  const commit = useRef(() => {});
  commit.current = () => {
    if (done.current) return;
    done.current = true;
    onRowChange({ ...row, [EDIT_TEXT]: { field: meta.field, text: text.current } } as EditedRow, true);
  };

  useEffect(() => {
    document.getElementById(inputId)?.focus();
    // A native listener runs after the picker has read the typed text (React's capture
    // handlers) and before the grid's own Enter (React's bubbling ones): commit here, once.
    const el = wrap.current;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        event.stopPropagation();
        commit.current();
      } else if (event.key === 'Escape') {
        done.current = true;
      }
    };
    el?.addEventListener('keydown', onKeyDown);
    return () => el?.removeEventListener('keydown', onKeyDown);
  }, [inputId]);

  return (
    <span ref={wrap} className="grid-editor grid-editor--date" data-testid={`editor-${meta.field}`} aria-label={label}>
      <DateOfBirthInput
        inputId={inputId}
        value={fromIsoDate(text.current)}
        dateFormat={user?.dateFormat}
        anyDay
        onChange={(date) => {
          text.current = date ? toIsoDate(date) : '';
          // A pick in the calendar, or the text read on leaving the field: commit once the
          // picker is done (a bad text reports itself through onInvalid right after this).
          queueMicrotask(() => commit.current());
        }}
        onInvalid={() => {
          text.current = NOT_A_DATE;
        }}
      />
    </span>
  );
}
