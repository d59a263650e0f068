import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { ToastProvider } from '../../shell/toast';
import { created, mockApi, ok } from '../../test/apiMock';
import { ChainPanel, matchGroups } from './ChainPanel';
import type { Chain, WhyCandidate } from './recon';
import { FOURTH_LEVEL, TEST_LEVELS } from './levelFixtures';

const link = (level: number, from: [string, number], to: [string, number], status: string, matchId: number | null) => ({
  level,
  from: { kind: from[0], id: from[1] },
  to: { kind: to[0], id: to[1] },
  status,
  rule: status === 'unmatched' ? 'key' : 'exact',
  amountVariance: '0',
  dateLagDays: 0,
  matchId,
  runId: null,
  createdBy: 'bo',
  createdOn: null,
});

// Ticket 10 is unmatched; its sibling ticket 11 is matched to transaction 30, which is not settled.
const chain = {
  start: { kind: 'ticket', id: 10 },
  tickets: [
    { id: 10, TicketNumber: '1254400000010', Date: '2026-10-01', Amount: '1083.22', Currency: 'DKK' },
    { id: 11, TicketNumber: '1254400000011', Date: '2026-10-01', Amount: '500.00', Currency: 'DKK' },
  ],
  transactions: [{ id: 30, ClientUniqueID: '1254400000011', Date: '2026-10-01', Amount: '500.00', Currency: 'DKK', ProviderActor: 'Nuvei' }],
  settlements: [],
  payouts: [],
  bankBookings: [],
  links: [link(1, ['ticket', 11], ['transaction', 30], 'matched', 77)],
  truncated: false,
} as unknown as Chain;

const candidate = (id: number, extra: Partial<WhyCandidate>): WhyCandidate => ({
  id,
  amount: '1126.92',
  currency: 'DKK',
  date: '2026-10-02',
  provider: 'Nuvei',
  keyMatches: false,
  providerMatches: true,
  amountDifference: '-43.70',
  amountTolerance: '1.00',
  amountMissedBy: '42.70',
  dateLagDays: 1,
  dateTolerance: 2,
  dateMissedBy: 0,
  currencyDiffers: false,
  differencePercent: null,
  currencyTolerance: null,
  currencyMissedBy: null,
  matchedElsewhere: false,
  undoneByUser: false,
  reasons: [],
  ...extra,
});

describe('ChainPanel', () => {
  it('shows each record with its status per level, undoes a match, says why a record did not match and matches a candidate', async () => {
    const api = mockApi({
      'GET /api/recon/chain/ticket/10': ok(chain),
      'GET /api/recon/ticket-transaction/why/left/10': ok({
        record: chain.tickets[0],
        match: null,
        candidates: [
          candidate(21, { reasons: ['key', 'amount'] }),
          candidate(22, { matchedElsewhere: true, reasons: ['matchedElsewhere'], date: '2026-10-14', dateLagDays: 13, dateMissedBy: 11 }),
        ],
      }),
      'POST /api/recon/ticket-transaction/match': created({ id: 90, status: 'matched' }),
    });
    const onUndo = vi.fn();
    const onMatched = vi.fn();
    render(
      <ToastProvider>
        <ChainPanel start={{ kind: 'ticket', id: 10 }} levels={TEST_LEVELS} reloadToken={0} onClose={() => {}} onUndo={onUndo} onMatched={onMatched} />
      </ToastProvider>,
    );
    const start = await screen.findByTestId('chain-card-ticket-10');
    expect(start.className).toContain('is-start');
    expect(start.className).toContain('chain-card--danger');
    expect(screen.getByTestId('chain-state-ticket-10-1').textContent).toContain('Tickets vs Transactions: Unmatched');
    expect(screen.getByTestId('chain-card-ticket-11').className).toContain('chain-card--success');
    // A transaction is in two levels: matched to its ticket, not yet to a settlement.
    expect(screen.getByTestId('chain-state-transaction-30-1').textContent).toContain('Matched');
    expect(screen.getByTestId('chain-state-transaction-30-2').textContent).toContain('Unmatched');
    expect(screen.getByTestId('chain-stage-bank').textContent).toContain('None found');

    fireEvent.click(screen.getByTestId('chain-undo-ticket-11-1'));
    expect(onUndo).toHaveBeenCalledWith({ slug: 'ticket-transaction', matchId: 77, what: 'Ticket 1254400000011' });

    fireEvent.click(screen.getByTestId('chain-why-ticket-10-1'));
    const first = await screen.findByTestId('chain-why-candidate-21');
    expect(first.textContent).toContain('different reference');
    expect(first.textContent).toContain('amount differs by -43.70, tolerance 1.00 (missed by 42.70)');
    const second = screen.getByTestId('chain-why-candidate-22');
    expect(second.textContent).toContain('already matched to another record');
    expect((within(second).getByTestId('chain-why-match-22') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(within(first).getByTestId('chain-why-match-21'));
    await waitFor(() => expect(onMatched).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/match')[0]!.body).toEqual({ leftIds: [10], rightIds: [21] });
  });

  it('a match group shows once on each of its records, as the group with its members; its undo names the group', async () => {
    // Tickets 10 and 11 matched by hand to transaction 30 as one group: a link from each ticket to the transaction.
    const grouped = { ...chain, links: [link(1, ['ticket', 10], ['transaction', 30], 'matched', 77), link(1, ['ticket', 11], ['transaction', 30], 'matched', 77)] } as Chain;
    mockApi({ 'GET /api/recon/chain/ticket/10': ok(grouped) });
    const onUndo = vi.fn();
    render(
      <ToastProvider>
        <ChainPanel start={{ kind: 'ticket', id: 10 }} levels={TEST_LEVELS} reloadToken={0} onClose={() => {}} onUndo={onUndo} onMatched={() => {}} />
      </ToastProvider>,
    );
    const card = await screen.findByTestId('chain-card-transaction-30');
    expect(screen.getByTestId('chain-state-transaction-30-1').textContent).toContain('Tickets vs Transactions: Group of 2 tickets and 1 transaction · Matched');
    expect(within(card).getAllByText(/Group of/)).toHaveLength(1);
    expect(within(card).getByTestId('chain-group-members-77').textContent).toBe('ticket 1254400000010, ticket 1254400000011, transaction 1254400000011');
    for (const ticket of [10, 11]) {
      expect(screen.getByTestId(`chain-state-ticket-${ticket}-1`).textContent).toContain('Group of 2 tickets and 1 transaction · Matched');
      expect(screen.getByTestId(`chain-card-ticket-${ticket}`).className).toContain('chain-card--success');
    }

    fireEvent.click(screen.getByTestId('chain-undo-transaction-30-1'));
    expect(onUndo).toHaveBeenCalledWith({
      slug: 'ticket-transaction',
      matchId: 77,
      what: 'ticket 1254400000010, ticket 1254400000011, transaction 1254400000011',
      group: { left: { kind: 'ticket', label: 'recon.kinds.ticket', count: 2 }, right: { kind: 'transaction', label: 'recon.kinds.transaction', count: 1 } },
    });
  });

  it('a write-off has no counter-record: its records show written off, a group of one side, and its undo says write-off', async () => {
    // Tickets 10 and 11 written off together: their links end in no transaction (id 0), or in none at all.
    const writeoff = (from: number, to: { kind: string; id: number } | null) => ({ ...link(1, ['ticket', from], ['transaction', 0], 'matched', 78), to, rule: 'writeoff', amountVariance: '1583.22' });
    const written = { ...chain, links: [writeoff(10, { kind: 'transaction', id: 0 }), writeoff(11, null), link(1, ['ticket', 12], ['transaction', 30], 'matched', 79)] } as unknown as Chain;
    mockApi({ 'GET /api/recon/chain/ticket/10': ok(written) });
    const onUndo = vi.fn();
    render(
      <ToastProvider>
        <ChainPanel start={{ kind: 'ticket', id: 10 }} levels={TEST_LEVELS} reloadToken={0} onClose={() => {}} onUndo={onUndo} onMatched={() => {}} />
      </ToastProvider>,
    );
    await screen.findByTestId('chain-card-ticket-10');
    for (const ticket of [10, 11]) {
      const state = screen.getByTestId(`chain-state-ticket-${ticket}-1`).textContent;
      expect(state).toContain('Tickets vs Transactions: Group of 2 tickets without a counter-record · Matched');
      expect(state).toContain('written off');
      expect(screen.getByTestId(`chain-card-ticket-${ticket}`).className).toContain('chain-card--success');
    }
    expect(screen.getAllByTestId('chain-group-members-78').map((e) => e.textContent)).toEqual(['ticket 1254400000010, ticket 1254400000011', 'ticket 1254400000010, ticket 1254400000011']);
    // No transaction #0 anywhere: transaction 30 is unmatched at level 1 (ticket 12 is not in the chain's records).
    expect(screen.queryByTestId('chain-card-transaction-0')).toBeNull();
    fireEvent.click(screen.getByTestId('chain-undo-ticket-10-1'));
    expect(onUndo).toHaveBeenCalledWith({
      slug: 'ticket-transaction',
      matchId: 78,
      what: 'ticket 1254400000010, ticket 1254400000011',
      group: { left: { kind: 'ticket', label: 'recon.kinds.ticket', count: 2 }, right: { kind: 'transaction', label: 'recon.kinds.transaction', count: 0 } },
      writeoff: true,
    });
  });

  it('a write-off of one record is no group: the record alone, written off', async () => {
    const single = { ...chain, links: [{ ...link(1, ['ticket', 10], ['transaction', 0], 'matched', 80), rule: 'writeoff' }] } as Chain;
    mockApi({ 'GET /api/recon/chain/ticket/10': ok(single) });
    const onUndo = vi.fn();
    render(
      <ToastProvider>
        <ChainPanel start={{ kind: 'ticket', id: 10 }} levels={TEST_LEVELS} reloadToken={0} onClose={() => {}} onUndo={onUndo} onMatched={() => {}} />
      </ToastProvider>,
    );
    await screen.findByTestId('chain-card-ticket-10');
    const state = screen.getByTestId('chain-state-ticket-10-1').textContent;
    expect(state).toContain('Tickets vs Transactions: Matched written off');
    expect(state).not.toContain('Group');
    fireEvent.click(screen.getByTestId('chain-undo-ticket-10-1'));
    expect(onUndo).toHaveBeenCalledWith({ slug: 'ticket-transaction', matchId: 80, what: 'Ticket 1254400000010', writeoff: true });
  });

  it('gathers the links of a match into one group, each record once', () => {
    const links = [
      link(1, ['ticket', 10], ['transaction', 30], 'matched', 5),
      link(1, ['ticket', 10], ['transaction', 31], 'matched', 5),
      link(1, ['ticket', 11], ['transaction', 30], 'matched', 5),
      link(1, ['ticket', 11], ['transaction', 31], 'matched', 5),
      link(1, ['ticket', 12], ['transaction', 32], 'matched', 6),
      link(1, ['ticket', 13], ['transaction', 33], 'unmatched', null),
    ] as Chain['links'];
    const groups = matchGroups(links);
    expect([...groups.keys()]).toEqual([5, 6]);
    expect(groups.get(5)).toEqual({
      matchId: 5,
      left: [{ kind: 'ticket', id: 10 }, { kind: 'ticket', id: 11 }],
      right: [{ kind: 'transaction', id: 30 }, { kind: 'transaction', id: 31 }],
    });
    expect(groups.get(6)).toEqual({ matchId: 6, left: [{ kind: 'ticket', id: 12 }], right: [{ kind: 'transaction', id: 32 }] });
  });

  it('a level added on the server shows on every record of its kinds, with why asked of its own slug', async () => {
    const api = mockApi({
      'GET /api/recon/chain/ticket/10': ok(chain),
      'GET /api/recon/ticket-settlement/why/left/10': ok({ record: chain.tickets[0], match: null, candidates: [] }),
    });
    render(
      <ToastProvider>
        <ChainPanel start={{ kind: 'ticket', id: 10 }} levels={[...TEST_LEVELS, FOURTH_LEVEL]} reloadToken={0} onClose={() => {}} onUndo={() => {}} onMatched={() => {}} />
      </ToastProvider>,
    );
    await screen.findByTestId('chain-card-ticket-10');
    expect(screen.getByTestId('chain-state-ticket-10-4').textContent).toContain('Tickets vs Settlements: Unmatched');
    expect(screen.getByTestId('chain-state-ticket-11-4').textContent).toContain('Unmatched');
    expect(screen.getByTestId('chain-state-ticket-11-1').textContent).toContain('Matched');
    // The stages are the levels' kinds in order; none is added for the new level.
    expect([...document.querySelectorAll('[data-testid^="chain-stage-"]')].map((e) => e.getAttribute('data-testid'))).toEqual([
      'chain-stage-ticket',
      'chain-stage-transaction',
      'chain-stage-settlement',
      'chain-stage-payout',
      'chain-stage-bank',
    ]);
    fireEvent.click(screen.getByTestId('chain-why-ticket-10-4'));
    await screen.findByTestId('chain-why-none');
    expect(api.callsTo('GET', '/api/recon/ticket-settlement/why/left/10')).toHaveLength(1);
  });
});
