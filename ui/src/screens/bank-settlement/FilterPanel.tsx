/**
 * The dashboard's filter area (spec 03 sections 2.1 and 5): From and To date (required, marked
 * with an asterisk and highlighted when empty), currency and provider multi-selects from the
 * filter lists (the spec's defaults until they arrive), the ticket number, Apply and Clear, and
 * the error line. It folds away; the screen closes it after Apply.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Calendar } from 'primereact/calendar';
import { MultiSelect } from 'primereact/multiselect';
import { InputText } from 'primereact/inputtext';
import { Button } from 'primereact/button';
import { useCurrentUser } from '../../auth/useSession';
import { datePattern, formatDateOnly, fromIsoDate, toIsoDate } from '../../lib/dates';
import { reconApi } from './recon';
import { DEFAULT_CURRENCIES, DEFAULT_PROVIDERS, TICKET_LENGTH, type DashboardFilters, type FilterError, type VisibleFilters } from './filters';

/** PrimeReact's calendar format of a user date pattern ("DD-MM-YYYY" -> "dd-mm-yy"). */
export function calendarFormat(pattern: string): string {
  return pattern.replace('YYYY', 'yy').replace('MM', 'mm').replace('DD', 'dd');
}

function useFilterLists() {
  const [currencies, setCurrencies] = useState<string[]>(DEFAULT_CURRENCIES);
  const [providers, setProviders] = useState<string[]>(DEFAULT_PROVIDERS);
  useEffect(() => {
    let alive = true;
    reconApi.currencies().then((list) => alive && list?.length && setCurrencies(list.map((c) => c.Code ?? '').filter(Boolean)), () => undefined);
    reconApi.providers().then((list) => alive && list?.length && setProviders(list.map((p) => p.TransProvider ?? '').filter(Boolean)), () => undefined);
    return () => {
      alive = false;
    };
  }, []);
  return { currencies, providers };
}

export function FilterPanel({
  open,
  onToggle,
  draft,
  onChange,
  shown,
  error,
  onApply,
  onClear,
}: {
  open: boolean;
  onToggle(): void;
  draft: DashboardFilters;
  onChange(next: DashboardFilters): void;
  /** The fields the active level applies (provider, ticket). */
  shown: VisibleFilters;
  error: FilterError | null;
  onApply(): void;
  onClear(): void;
}) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const id = useId();
  const pattern = datePattern(user?.dateFormat);
  const { currencies, providers } = useFilterLists();
  const bad = (field: keyof DashboardFilters) => !!error?.fields.includes(field);
  const set = (patch: Partial<DashboardFilters>) => onChange({ ...draft, ...patch });

  const day = (iso: string) => {
    const d = fromIsoDate(iso);
    return d ? formatDateOnly(d, pattern) : '';
  };
  const summary = [
    `${day(draft.fromDate)} – ${day(draft.toDate)}`,
    draft.currency.length ? draft.currency.join(', ') : '',
    shown.provider && draft.provider.length ? draft.provider.join(', ') : '',
    shown.ticket && draft.clientUniqueId ? draft.clientUniqueId : '',
  ]
    .filter(Boolean)
    .join(' · ');

  const dateField = (field: 'fromDate' | 'toDate') => (
    <div className="recon-filter">
      <label htmlFor={`${id}-${field}`} className="recon-field__label">
        {t(`recon.filters.${field}`)} <span className="recon-required" aria-hidden="true">*</span>
      </label>
      <Calendar
        inputId={`${id}-${field}`}
        value={fromIsoDate(draft[field])}
        onChange={(e) => set({ [field]: e.value instanceof Date ? toIsoDate(e.value) : '' })}
        // Deleting the text empties the field (the calendar itself ignores an empty input).
        onInput={(e) => {
          if ((e.target as HTMLInputElement).value.trim() === '') set({ [field]: '' });
        }}
        dateFormat={calendarFormat(pattern)}
        placeholder={pattern}
        showIcon
        showButtonBar
        // Typing a date stays possible: the calendar opens from its button, not on focus.
        showOnFocus={false}
        invalid={bad(field) || !draft[field]}
        aria-required="true"
        data-testid={`filter-${field}`}
        inputClassName="recon-filter__date"
      />
    </div>
  );

  return (
    <section className={`collapsible recon-filters${open ? ' is-open' : ''}`} data-testid="recon-filters">
      <button type="button" className="collapsible__header" aria-expanded={open} onClick={onToggle} data-testid="recon-filters-toggle">
        <i className="pi pi-chevron-right collapsible__chevron" aria-hidden="true" />
        <span className="collapsible__title">{t('recon.filters.title')}</span>
        {!open && (
          <span className="collapsible__summary" data-testid="recon-filters-summary">
            {summary}
          </span>
        )}
      </button>
      {open && (
        <form
          className="recon-filters__body"
          onSubmit={(e) => {
            e.preventDefault();
            onApply();
          }}
        >
          <div className="recon-filters__fields">
            {dateField('fromDate')}
            {dateField('toDate')}
            <div className="recon-filter">
              <label htmlFor={`${id}-currency`} className="recon-field__label">{t('recon.filters.currency')}</label>
              <MultiSelect
                inputId={`${id}-currency`}
                value={draft.currency}
                options={currencies}
                onChange={(e) => set({ currency: e.value as string[] })}
                placeholder={t('recon.filters.all')}
                display="chip"
                filter
                maxSelectedLabels={3}
                className="recon-filter__multi"
                data-testid="filter-currency"
              />
            </div>
            {shown.provider && (
              <div className="recon-filter">
                <label htmlFor={`${id}-provider`} className="recon-field__label">{t('recon.filters.provider')}</label>
                <MultiSelect
                  inputId={`${id}-provider`}
                  value={draft.provider}
                  options={providers}
                  onChange={(e) => set({ provider: e.value as string[] })}
                  placeholder={t('recon.filters.all')}
                  display="chip"
                  maxSelectedLabels={3}
                  className="recon-filter__multi"
                  data-testid="filter-provider"
                />
              </div>
            )}
            {shown.ticket && (
              <div className="recon-filter">
                <label htmlFor={`${id}-ticket`} className="recon-field__label">{t('recon.filters.ticket')}</label>
                <InputText
                  id={`${id}-ticket`}
                  value={draft.clientUniqueId}
                  onChange={(e) => set({ clientUniqueId: e.target.value.replace(/\D/g, '').slice(0, TICKET_LENGTH) })}
                  inputMode="numeric"
                  placeholder={t('recon.filters.ticketHint')}
                  invalid={bad('clientUniqueId')}
                  className="recon-filter__ticket"
                  data-testid="filter-ticket"
                />
              </div>
            )}
            <div className="recon-filters__buttons">
              <Button type="submit" icon="pi pi-filter" label={t('recon.filters.apply')} data-testid="filter-apply" />
              <Button type="button" outlined icon="pi pi-filter-slash" label={t('recon.filters.clear')} onClick={onClear} data-testid="filter-clear" />
            </div>
          </div>
          {error && (
            <small className="recon-field__error" role="alert" data-testid="filter-error">
              {t(`recon.errors.${error.code}`)}
            </small>
          )}
        </form>
      )}
    </section>
  );
}
