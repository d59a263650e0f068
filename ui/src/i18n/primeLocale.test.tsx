import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { Paginator } from 'primereact/paginator';
import { MultiSelect } from 'primereact/multiselect';
import { localeOption, PrimeReactProvider } from 'primereact/api';
import i18n from './index';
import en from './en.json';
import sv from './sv.json';
import es from './es.json';
import pt from './pt.json';

/**
 * The words PrimeReact reads from its locale in the components this app uses (Calendar,
 * Dropdown, MultiSelect, Paginator with its rows-per-page list, Dialog, ConfirmDialog, Toast,
 * Sidebar, OverlayPanel, TabView, and the AutoComplete of the rjsf theme). A component added
 * later that reads another word adds it here and to the four files.
 */
const USED = [
  'accept', 'reject', 'choose', 'clear', 'close', 'today', 'cancel',
  'chooseDate', 'chooseMonth', 'chooseYear', 'prevMonth', 'nextMonth', 'prevYear', 'nextYear', 'prevDecade', 'nextDecade', 'weekHeader',
  'emptyMessage', 'emptyFilterMessage', 'emptySearchMessage', 'emptySelectionMessage', 'searchMessage', 'selectionMessage',
];
const USED_ARIA = [
  'close', 'previous', 'next', 'navigation', 'scrollTop', 'selectAll', 'unselectAll', 'listLabel',
  'firstPageLabel', 'lastPageLabel', 'nextPageLabel', 'prevPageLabel', 'rowsPerPageLabel', 'pageLabel', 'jumpToPageDropdownLabel', 'jumpToPageInputLabel',
  'selectLabel', 'unselectLabel', 'expandLabel', 'collapseLabel', 'trueLabel', 'falseLabel', 'nullLabel',
];
type Prime = Record<string, unknown> & { aria: Record<string, string> };
const files: Record<string, Prime> = { en: en.prime, sv: sv.prime, es: es.prime, pt: pt.prime };
/** Words spelt as in English: Spanish "No". */
const SAME_AS_ENGLISH: Record<string, string[]> = { es: ['reject'] };

// First user, second round, item 14: the paginator and the date picker spoke English in sv, es
// and pt ("First Page", "Choose Date", "Close", "Clear").
describe("PrimeReact's words", () => {
  it('follow the language: labels from the translations, month names from the browser', async () => {
    await i18n.changeLanguage('sv');
    expect(localeOption('clear', 'sv')).toBe(sv.prime.clear);
    expect(localeOption('chooseDate', 'sv')).toBe(sv.prime.chooseDate);
    expect((localeOption('monthNames', 'sv') as string[])[0]).toBe('januari');
    render(
      <PrimeReactProvider value={{ locale: 'sv' }}>
        <Paginator first={0} rows={10} totalRecords={100} />
      </PrimeReactProvider>,
    );
    expect(screen.getByLabelText(sv.prime.aria.firstPageLabel)).toBeTruthy();
    await i18n.changeLanguage('es');
    expect(localeOption('close', 'es')).toBe(es.prime.close);
    await i18n.changeLanguage('en');
  });

  for (const [lang, prime] of Object.entries(files)) {
    it(`${lang} has every word the components read`, () => {
      expect(USED.filter((key) => typeof prime[key] !== 'string')).toEqual([]);
      expect(USED_ARIA.filter((key) => typeof prime.aria[key] !== 'string')).toEqual([]);
      if (lang === 'en') return;
      // A word left as in English is a word not translated, unless it is spelt the same.
      const same = SAME_AS_ENGLISH[lang] ?? [];
      expect(USED.filter((key) => prime[key] === (en.prime as Prime)[key] && !same.includes(key))).toEqual([]);
      expect(USED_ARIA.filter((key) => prime.aria[key] === en.prime.aria[key as keyof typeof en.prime.aria])).toEqual([]);
    });
  }

  it('a multi-select with more choices than it lists says how many in the language', async () => {
    await i18n.changeLanguage('sv');
    const options = ['USD', 'EUR', 'SEK', 'NOK'].map((c) => ({ label: c, value: c }));
    const { container } = render(<MultiSelect value={['USD', 'EUR', 'SEK', 'NOK']} options={options} maxSelectedLabels={3} onChange={() => {}} />);
    expect(container.querySelector('.p-multiselect-label')?.textContent).toBe(sv.prime.selectionMessage.replace('{0}', '4'));
    await i18n.changeLanguage('en');
  });

  it('a label the translations lack is English, never missing', async () => {
    await i18n.changeLanguage('sv');
    // passwordShow is read only by Password, which the app does not use: it is not translated.
    expect(localeOption('aria', 'sv')).toMatchObject({ passwordShow: 'Show Password', listLabel: sv.prime.aria.listLabel });
    await i18n.changeLanguage('en');
  });
});
