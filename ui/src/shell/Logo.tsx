/** The Ledgerdesk mark: a ledger page with a tick, drawn inline so it needs no extra request. */
export function Logo({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" role="img" aria-hidden="true" focusable="false">
      <rect x="2" y="2" width="28" height="28" rx="7" fill="#1e40af" />
      <rect x="8" y="7" width="16" height="19" rx="2" fill="#ffffff" />
      <path d="M11 11.5h10M11 15h7" stroke="#93a4c8" strokeWidth="1.6" strokeLinecap="round" />
      <path d="M12 20.5l2.6 2.5 5.6-5.8" fill="none" stroke="#10b981" strokeWidth="2.4" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
