import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import i18n from '../../i18n';
import { SessionKeys } from '../../auth/session';
import { seedSession } from '../../test/helpers';
import { changes, HistoryList, type HistoryFormat } from './HistoryList';
import type { HistoryEntry } from './api';

const adjust: HistoryEntry = {
  at: '2026-11-26T22:51:22Z',
  actor: 'admin',
  action: 'task.adjust',
  before: null,
  after: {
    acquiringBank: '', amount: '1012.56', clientUniqueId: '1254400000602', createdBy: 'admin', currency: 'USD', date: '2026-11-20',
    isManualAdjust: true, paymentMethod: 'Manual', remarks: 'refund difference', transactionId: 877, transactionType: 'Adjustment',
  },
};
const update: HistoryEntry = {
  at: '2026-11-26T22:52:00Z',
  actor: 'admin',
  action: 'task.update',
  before: { assignedToId: null, isStatus: 1, priority: null, remarks: 'Demo', taskName: 'Review' },
  after: { assignedToId: 2, isStatus: 2, priority: null, remarks: 'Demo', taskName: 'Review' },
};

function format(dateFormat: string): HistoryFormat {
  return { t: i18n.t, locale: i18n.language, dateFormat, userName: (id) => (id === 2 ? 'Tia Sker' : undefined) };
}

// First user, second round, item 14: the history read as a raw English diff,
// "amount: – → 1012.56; isManualAdjust: – → true; isStatus: 1 → 2".
describe('task history', () => {
  it('names fields and values in the reader\'s language and formats', async () => {
    await i18n.changeLanguage('sv');
    expect(changes(update.before, update.after, format('DD-MM-YYYY HH:mm:ss'))).toEqual(['Status: Ny → Pågår', 'Tilldelad till: – → Tia Sker']);
    expect(changes(adjust.before, adjust.after, format('MM/DD/YYYY HH:mm:ss'))).toEqual([
      'Biljettnummer: 1254400000602',
      'Datum: 11/20/2026',
      'Belopp: 1\u00a0012,56',
      'Valuta: USD',
      'Anmärkningar: refund difference',
    ]);
    // A type other than the one every adjustment gets is said.
    expect(changes(null, { ...(adjust.after as object), transactionType: 'Refund' }, format('DD-MM-YYYY'))).toContain('Typ: Refund');
    // A deleted adjustment lists what it was.
    expect(changes(adjust.after, null, format('YYYY-MM-DD'))).toContain('Datum: 2026-11-20');
    await i18n.changeLanguage('en');
    expect(changes(update.before, update.after, format('DD-MM-YYYY'))).toEqual(['Status: New → In Progress', 'Assigned to: – → Tia Sker']);
  });

  it('shows no field name or value as the server stores it', async () => {
    seedSession();
    const user = JSON.parse(localStorage.getItem(SessionKeys.currentUser)!) as Record<string, unknown>;
    localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ ...user, dateFormat: 'DD/MM/YYYY HH:mm:ss' }));
    await i18n.changeLanguage('es');
    render(<HistoryList entries={[update, adjust]} />);
    const text = screen.getByTestId('task-history').textContent ?? '';
    for (const raw of ['isStatus', 'isManualAdjust', 'amount:', 'true', '1 → 2', '2026-11-20', 'Manual', 'Adjustment']) expect(text).not.toContain(raw);
    expect(text).toContain('Estado: Nueva → En curso');
    expect(text).toContain('Fecha: 20/11/2026');
    expect(text).toContain('Importe: 1012,56');
    await i18n.changeLanguage('en');
  });
});
