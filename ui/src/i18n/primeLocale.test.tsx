import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { Paginator } from 'primereact/paginator';
import { localeOption, PrimeReactProvider } from 'primereact/api';
import i18n from './index';
import sv from './sv.json';
import es from './es.json';

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
});
