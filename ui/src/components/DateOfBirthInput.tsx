import { useMemo, useRef } from 'react';
import { Calendar } from 'primereact/calendar';
import {
  birthYearRange,
  datePattern,
  formatDateOnly,
  MIN_BIRTH_DATE,
  parseDateText,
  startOfDay,
  type DateError,
} from '../lib/dates';

function refuseWhileTyping(): Date {
  throw new Error('read on blur');
}

/**
 * The date-of-birth calendar of the user form and the profile (spec 01 §2, §5): date only,
 * month and year navigation, a button bar (today / clear), no date after today or before 1900.
 * The text shows and is read in the signed-in user's date format. Typed text is checked when
 * the field is left: a bad entry is cleared and reported through `onInvalid`.
 */
export function DateOfBirthInput({
  inputId,
  value,
  onChange,
  onInvalid,
  dateFormat,
  readOnlyInput = false,
  invalid = false,
  disabled = false,
  appendTo = 'body',
  anyDay = false,
  ariaLabel,
}: {
  inputId: string;
  value: Date | null;
  onChange: (value: Date | null) => void;
  onInvalid?: (error: DateError) => void;
  dateFormat: string | null | undefined;
  readOnlyInput?: boolean;
  invalid?: boolean;
  disabled?: boolean;
  /** Where the calendar panel goes: 'self' inside a popover that would close on a click outside it. */
  appendTo?: 'body' | 'self';
  /** Any real day, not only a date of birth (no bounds): the grid's inline date editor. */
  anyDay?: boolean;
  /** The input's accessible name where no <label> names it (a filter in a table header). */
  ariaLabel?: string;
}) {
  // The text typed since the field was entered; PrimeReact rewrites the input before onBlur.
  const typed = useRef<string | null>(null);
  const today = useMemo(() => startOfDay(new Date()), []);
  const pattern = datePattern(dateFormat);

  function onBlur(event: React.FocusEvent<HTMLInputElement>) {
    const text = typed.current;
    typed.current = null;
    if (text === null) return;
    // Moving into the calendar panel is not leaving the field.
    const next = event.relatedTarget as HTMLElement | null;
    if (next?.closest('.p-datepicker')) {
      typed.current = text;
      return;
    }
    commit(text);
  }

  function commit(text: string) {
    if (text.trim() === '') {
      if (value !== null) onChange(null);
      return;
    }
    const result = parseDateText(text, pattern, today, !anyDay);
    if (result.ok) {
      if (value?.getTime() !== result.date.getTime()) onChange(result.date);
    } else {
      onChange(null);
      onInvalid?.(result.error);
    }
  }

  // Enter confirms the typed date instead of submitting the form with the date not yet read.
  function onKeyDownCapture(event: React.KeyboardEvent<HTMLSpanElement>) {
    if (event.key !== 'Enter' || typed.current === null || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    const text = typed.current;
    typed.current = null;
    commit(text);
  }

  return (
    <span className="date-input-wrap" onKeyDownCapture={onKeyDownCapture}>
      <Calendar
        inputId={inputId}
        ariaLabel={ariaLabel}
        value={value}
        onChange={(e) => {
          // While typing, PrimeReact hands over the raw text (keepInvalid): it is read on blur.
          if (typeof e.value === 'string' || (e.originalEvent as Event | undefined)?.type === 'input') return;
          // A pick in the panel, or the button bar's Today and Clear, replaces whatever was typed.
          typed.current = null;
          onChange(e.value instanceof Date ? startOfDay(e.value) : null);
        }}
        onInput={(e) => {
          typed.current = (e.target as HTMLInputElement).value;
        }}
        onBlur={onBlur}
        formatDateTime={(date) => formatDateOnly(date, pattern)}
        // PrimeReact would parse on every key and rewrite the text as soon as a prefix parses
        // ("15-06-19" becomes 2019): refuse here, keep the raw text, and parse once on blur.
        parseDateTime={refuseWhileTyping}
        keepInvalid
        placeholder={pattern}
        minDate={anyDay ? undefined : MIN_BIRTH_DATE}
        maxDate={anyDay ? undefined : today}
        yearRange={anyDay ? `${MIN_BIRTH_DATE.getFullYear()}:${today.getFullYear() + 10}` : birthYearRange(today)}
        monthNavigator
        yearNavigator
        showButtonBar
        showIcon
        // PrimeReact moves focus into the panel when it opens, which would swallow typed text:
        // where typing is allowed, only the calendar button opens the panel.
        showOnFocus={readOnlyInput}
        readOnlyInput={readOnlyInput}
        invalid={invalid}
        disabled={disabled}
        className="date-input"
        inputClassName="w-full"
        appendTo={appendTo === 'self' ? 'self' : typeof document !== 'undefined' ? document.body : undefined}
      />
    </span>
  );
}
