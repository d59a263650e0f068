import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ToastProvider } from '../shell/toast';
import { created, fail, mockApi, ok } from '../test/apiMock';
import { clearMetaCache } from './api';
import { FormDialog } from './FormDialog';
import i18n from '../i18n';
import { countryForm, rateForm } from './testFixtures';

function renderDialog(onSaved = vi.fn(), onClose = vi.fn()) {
  render(
    <ToastProvider>
      <FormDialog formName="country" visible onClose={onClose} onSaved={onSaved} />
    </ToastProvider>,
  );
  return { onSaved, onClose };
}

// The rjsf part loads lazily; the first import is slow under Vitest's transform.
beforeAll(async () => {
  await import('./RjsfForm');
}, 30_000);

beforeEach(() => clearMetaCache());

/** The add-rate dialog with its one decimal field, saving into a mock. */
async function openRateDialog() {
  const api = mockApi({ 'GET /api/meta/forms/exchangeRate': ok(rateForm), 'POST /api/CurrencyExchangeRate': created({ ExchangeId: 1 }) });
  render(
    <ToastProvider>
      <FormDialog formName="exchangeRate" visible onClose={vi.fn()} onSaved={vi.fn()} />
    </ToastProvider>,
  );
  const usd = (await screen.findByLabelText(/USD/)) as HTMLInputElement;
  return { api, usd };
}

describe('FormDialog decimals', () => {
  afterEach(() => void i18n.changeLanguage('en'));

  it.each([
    ['en', '1,234.12345678', '1234.12345678'],
    ['pt', '1.234,12345678', '1234.12345678'],
    ['sv', '0,1', '0.1'],
    ['en', '0.30000000000000004', '0.30000000000000004'],
  ])('%s: %j is sent as the exact string %j, never a float', async (language, typed, sent) => {
    await i18n.changeLanguage(language);
    const { api, usd } = await openRateDialog();
    fireEvent.change(usd, { target: { value: typed } });
    fireEvent.click(screen.getByTestId('form-save'));
    await waitFor(() => expect(api.callsTo('POST', '/api/CurrencyExchangeRate')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/CurrencyExchangeRate')[0]!.body).toEqual({ usd: sent });
  });

  it('refuses "12.50" in Portuguese instead of sending 1250', async () => {
    await i18n.changeLanguage('pt');
    const { api, usd } = await openRateDialog();
    fireEvent.change(usd, { target: { value: '12.50' } });
    fireEvent.click(screen.getByTestId('form-save'));
    await waitFor(() => expect(document.body.textContent).toContain('Informe um número válido'));
    expect(api.callsTo('POST', '/api/CurrencyExchangeRate')).toHaveLength(0);
  });
});

describe('FormDialog', () => {
  it('renders translated labels with asterisks, submits the transformed data and reports success', async () => {
    const api = mockApi({ 'GET /api/meta/forms/country': ok(countryForm), 'POST /api/Country': created({ CountryID: 9 }) });
    const { onSaved } = renderDialog();
    const code = (await screen.findByLabelText(/Country Code/)) as HTMLInputElement;
    expect(screen.getByText('Add Country')).toBeTruthy();
    expect(document.querySelector('label[for="root_countryCode"]')!.textContent).toContain('*');
    // A trimmed field does not cut a paste with spaces around it: the length is checked after the trim.
    expect(code.getAttribute('maxlength')).toBeNull();

    fireEvent.change(code, { target: { value: 'se' } });
    fireEvent.change(screen.getByLabelText(/Country Name/), { target: { value: '  Sweden ' } });
    fireEvent.click(screen.getByTestId('form-save'));

    await waitFor(() => expect(onSaved).toHaveBeenCalledWith({ CountryID: 9 }));
    expect(api.callsTo('POST', '/api/Country')[0]!.body).toEqual({ countryCode: 'SE', countryName: 'Sweden' });
    expect(await screen.findByText('Country added successfully')).toBeTruthy();
  });

  it('keeps the dialog open and marks the field the server blames', async () => {
    mockApi({ 'GET /api/meta/forms/country': ok(countryForm), 'POST /api/Country': fail(400, 'countryCode: SE already exists.', 'countryCode') });
    const { onSaved } = renderDialog();
    const code = await screen.findByLabelText(/Country Code/);
    fireEvent.change(code, { target: { value: 'SE' } });
    fireEvent.change(screen.getByLabelText(/Country Name/), { target: { value: 'Sweden' } });
    fireEvent.click(screen.getByTestId('form-save'));

    // Once in the toast, once under the field.
    await waitFor(() => expect(screen.getAllByText('countryCode: SE already exists.')).toHaveLength(2));
    expect(onSaved).not.toHaveBeenCalled();
    expect(screen.getByLabelText(/Country Code/).className).toContain('p-invalid');
    expect((screen.getByTestId('form-save') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows the required-fields message and sends nothing while required fields are empty', async () => {
    const api = mockApi({ 'GET /api/meta/forms/country': ok(countryForm) });
    renderDialog();
    await screen.findByLabelText(/Country Code/);
    fireEvent.click(screen.getByTestId('form-save'));
    expect(await screen.findByText('Please fill in all required fields')).toBeTruthy();
    expect(screen.getAllByText('This field is required').length).toBe(2);
    expect(api.callsTo('POST', '/api/Country')).toHaveLength(0);
  });

  it('keeps Save disabled until the form is valid when the form asks for it (saveWhenValid)', async () => {
    const strict = {
      ...countryForm,
      saveWhenValid: true,
      schema: {
        ...countryForm.schema,
        properties: { ...countryForm.schema.properties, countryCode: { ...countryForm.schema.properties.countryCode, minLength: 3, pattern: '^(?:[A-Za-z]{3})$' } },
      },
    };
    const api = mockApi({ 'GET /api/meta/forms/country': ok(strict), 'POST /api/Country': created({ CountryID: 5 }) });
    const { onSaved } = renderDialog();
    const code = await screen.findByLabelText(/Country Code/);
    const save = () => screen.getByTestId('form-save') as HTMLButtonElement;
    await waitFor(() => expect(save().disabled).toBe(true));
    // The disabled Save says what it waits for.
    await waitFor(() => expect(screen.getByTestId('form-missing').textContent).toBe('To save, complete: Country Code, Country Name'));
    fireEvent.change(screen.getByLabelText(/Country Name/), { target: { value: 'Sweden' } });
    fireEvent.change(code, { target: { value: 'S1' } });
    await waitFor(() => expect(screen.getByTestId('form-missing').textContent).toBe('To save, complete: Country Code'));
    expect(save().disabled).toBe(true);
    fireEvent.change(code, { target: { value: ' swe ' } }); // pasted with spaces: trimmed, not cut
    await waitFor(() => expect(save().disabled).toBe(false));
    expect(screen.queryByTestId('form-missing')).toBeNull();
    fireEvent.click(save());
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith({ CountryID: 5 }));
    expect(api.callsTo('POST', '/api/Country')[0]!.body).toMatchObject({ countryCode: 'SWE' });
  });

  it('a record kept for a second user\'s approval (202) is an info toast, and the dialog is done as after a save', async () => {
    mockApi({
      'GET /api/meta/forms/country': ok(countryForm),
      'POST /api/Country': [202, { succeeded: false, data: null, error: 'Sent for approval (request 7): ...', code: 'approvals.pending', params: { id: 7, action: 'tolerance' } }],
    });
    const { onSaved } = renderDialog();
    fireEvent.change(await screen.findByLabelText(/Country Code/), { target: { value: 'SE' } });
    fireEvent.change(screen.getByLabelText(/Country Name/), { target: { value: 'Sweden' } });
    fireEvent.click(screen.getByTestId('form-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith({}));
    const toast = await screen.findByText(/^Sent for approval \(request 7\): a second user/);
    expect(toast.closest('.p-toast-message-info')).not.toBeNull();
    expect(document.querySelector('.p-toast-message-error')).toBeNull();
  });
});
