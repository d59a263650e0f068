import { useRef } from 'react';
import { Calendar } from 'primereact/calendar';
import { formatMonth, monthPattern, parseMonthText } from '../lib/dates';

function refuseWhileTyping(): Date {
  throw new Error('read on blur');
}

/** The first day of a month given as YYYY-MM, for the calendar. */
function monthDate(month: string): Date | null {
  const [y, m] = month.split('-').map(Number);
  return y && m ? new Date(y, m - 1, 1) : null;
}

/**
 * A month (YYYY-MM) picked from a calendar of months or typed in the signed-in user's date
 * format without its day (DD-MM-YYYY users type 05-2019, YYYY/MM/DD users 2019/05), never the
 * browser's own month input. Typed text is read when the field is left or Enter is pressed; text
 * that is not a month goes back to the month shown.
 */
export function MonthInput({
  inputId,
  value,
  onChange,
  dateFormat,
  ariaLabel,
}: {
  inputId: string;
  value: string;
  onChange: (month: string) => void;
  dateFormat: string | null | undefined;
  ariaLabel?: string;
}) {
  const pattern = monthPattern(dateFormat);
  const typed = useRef<string | null>(null);

  function commit(input: HTMLInputElement) {
    const text = typed.current;
    typed.current = null;
    if (text === null) return;
    const month = parseMonthText(text, pattern);
    if (month && month !== value) onChange(month);
    else input.value = value ? formatMonth(value, pattern) : ''; // not a month: the one shown stays (or none)
  }

  return (
    <span
      className="date-input-wrap"
      onKeyDownCapture={(event) => {
        if (event.key === 'Enter' && event.target instanceof HTMLInputElement && typed.current !== null) {
          event.preventDefault();
          commit(event.target);
        }
      }}
    >
      <Calendar
        inputId={inputId}
        ariaLabel={ariaLabel}
        view="month"
        value={monthDate(value)}
        onChange={(e) => {
          if (typeof e.value === 'string' || (e.originalEvent as Event | undefined)?.type === 'input') return;
          typed.current = null;
          if (e.value instanceof Date) onChange(`${e.value.getFullYear()}-${String(e.value.getMonth() + 1).padStart(2, '0')}`);
        }}
        onInput={(e) => {
          typed.current = (e.target as HTMLInputElement).value;
        }}
        onBlur={(e) => {
          if ((e.relatedTarget as HTMLElement | null)?.closest('.p-datepicker')) return;
          commit(e.target);
        }}
        formatDateTime={(date) => formatMonth(`${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}`, pattern)}
        parseDateTime={refuseWhileTyping}
        keepInvalid
        placeholder={pattern}
        showIcon
        showOnFocus={false}
        className="date-input month-input"
        inputClassName="w-full"
        appendTo={typeof document !== 'undefined' ? document.body : undefined}
      />
    </span>
  );
}
